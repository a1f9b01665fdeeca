// SPDX-License-Identifier: GPL-2.0
/*
 * In the guest: the snapshot history (snapshot_depth, snapshots/N) and
 * waiting for a snapshot (poll() and the "# snapshot:" header line).
 *
 * Every snapshot is tagged by a trace_marker line written just before it,
 * so each file's content says which snapshot it holds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define T "/sys/kernel/tracing/"
#define BUFSZ (4 << 20)

static char buf[BUFSZ];

/* Writes @val to @path; returns 0 or the errno of the write. */
static int wr(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* Reads @path into buf; returns the length or -1. */
static ssize_t rd(const char *path)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + len, BUFSZ - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return n < 0 ? -1 : len;
}

static int has(const char *path, const char *needle)
{
	return rd(path) >= 0 && strstr(buf, needle) != NULL;
}

static int count(const char *path, const char *needle)
{
	int n = 0;
	char *p;

	if (rd(path) < 0)
		return -1;
	for (p = buf; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* N in the "# snapshot: #N" header of @path, or -1. */
static long snap_no(const char *path)
{
	long n;
	char *p;

	if (rd(path) < 0 || !(p = strstr(buf, "# snapshot: #")))
		return -1;
	return sscanf(p, "# snapshot: #%ld", &n) == 1 ? n : -1;
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static int depth(void)
{
	return rd(T "snapshot_depth") > 0 ? atoi(buf) : -1;
}

static void mark(const char *m)
{
	wr(T "trace_marker", m);
}

/* Marker @tag, then a snapshot through the file. */
static int snap(const char *tag)
{
	mark(tag);
	return wr(T "snapshot", "1");
}

/* Which of the tags "<prefix>0".."<prefix>9" @path holds, as a string. */
static const char *tags(const char *path, const char *prefix)
{
	static char out[64];
	char tag[32];
	int i;

	out[0] = '\0';
	if (rd(path) < 0)
		return "(unreadable)";
	for (i = 0; i < 10; i++) {
		snprintf(tag, sizeof(tag), "%s%d\n", prefix, i);
		if (strstr(buf, tag)) {
			snprintf(tag, sizeof(tag), "%s%d", prefix, i);
			strcat(out, out[0] ? " " : "");
			strcat(out, tag);
		}
	}
	return out;
}

/* A function that only the test calls, so that a probe on it is ours. */
static const char *probe_function(void)
{
	static const char * const names[] = {
		"__do_sys_getppid", "__x64_sys_getppid", "sys_getppid",
	};
	unsigned int i;

	if (rd(T "available_filter_functions") < 0)
		return NULL;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char line[64];

		snprintf(line, sizeof(line), "\n%s\n", names[i]);
		if (strstr(buf, line))
			return names[i];
	}
	return NULL;
}

static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* Forks a child that exits at once, the event the triggers wait for. */
static void fork_one(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
}

/* A hist trigger whose .snapshot() action fires on each fork of ours. */
static char hist_trigger[160];

/* The "# snapshots skipped: N" count of the history, 0 if none. */
static long skipped(void)
{
	long n = 0;
	char *p;

	if (rd(T "snapshot") >= 0 && (p = strstr(buf, "# snapshots skipped: ")))
		sscanf(p, "# snapshots skipped: %ld", &n);
	return n;
}

static void call_getppid(void)
{
	getppid();
}

/*
 * Marker <prefix>1, @fire, marker <prefix>2, @fire, ... so that each
 * snapshot a trigger or probe on @fire takes holds its own marker.  A
 * trigger that fires before the history's spare is cleared (an RCU grace
 * period) skips its snapshot, so each step first waits 300 ms, and fires
 * again while the skipped count says it was skipped (10 times at most).
 */
static void fire_tagged(void (*fire)(void), const char *prefix, int n)
{
	char tag[16];
	int i, try;
	long s0;

	for (i = 1; i <= n; i++) {
		usleep(300 * 1000);
		snprintf(tag, sizeof(tag), "%s%d", prefix, i);
		mark(tag);
		for (try = 0; try < 10; try++) {
			s0 = skipped();
			fire();
			if (skipped() == s0)
				break;
			usleep(300 * 1000);
		}
	}
}

static void reset(void)
{
	if (hist_trigger[0]) {
		hist_trigger[0] = '!';
		wr(T "events/sched/sched_process_fork/trigger", hist_trigger);
		hist_trigger[0] = '\0';
	}
	wr(T "events/sched/sched_process_fork/trigger", "!snapshot");
	wr(T "events/ftrace/print/trigger", "!snapshot");
	wr(T "set_ftrace_filter", "");
	wr(T "current_tracer", "nop");
	wr(T "snapshot", "0");
	wr(T "snapshot_depth", "1");
	wr(T "buffer_size_kb", "1408");
	wr(T "trace", "");
	wr(T "tracing_on", "1");
}

FIXTURE(snap) {
	int unused;
};

FIXTURE_SETUP(snap)
{
	cpu_set_t set;

	/* One CPU for the markers keeps their order and their buffer. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	reset();
}

FIXTURE_TEARDOWN(snap)
{
	reset();
}

TEST_F(snap, depth_is_1_by_default_and_snapshots_is_empty)
{
	ASSERT_EQ(1, depth());
	ASSERT_TRUE(exists(T "snapshots"));
	ASSERT_FALSE(exists(T "snapshots/1"));
	/* Depth 1 is today's swap: nothing in the history. */
	ASSERT_EQ(0, snap("A0"));
	ASSERT_EQ(0, snap("A1"));
	ASSERT_STREQ("A1", tags(T "snapshot", "A"));
	ASSERT_FALSE(exists(T "snapshots/1"));
}

TEST_F(snap, bad_depth_is_einval_and_changes_nothing)
{
	const char *bad[] = { "0", "33", "-1", "abc", "99999999999", "3x", "" };
	unsigned int i;

	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(EINVAL, wr(T "snapshot_depth", bad[i]))
			TH_LOG("depth '%s'", bad[i]);
		ASSERT_EQ(3, depth());
	}
	ASSERT_TRUE(exists(T "snapshots/2"));
	ASSERT_FALSE(exists(T "snapshots/3"));
	ASSERT_EQ(0, wr(T "snapshot_depth", "32"));
	ASSERT_TRUE(exists(T "snapshots/31"));
}

TEST_F(snap, depth_change_is_ebusy_under_a_latency_tracer)
{
	if (!has(T "available_tracers", "irqsoff"))
		SKIP(return, "no irqsoff tracer");
	ASSERT_EQ(0, wr(T "current_tracer", "irqsoff"));
	ASSERT_EQ(EBUSY, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(1, depth());
	ASSERT_FALSE(exists(T "snapshots/1"));
}

TEST_F(snap, depth_k_keeps_k_distinct_snapshots_in_order)
{
	ASSERT_EQ(0, wr(T "snapshot_depth", "4"));
	ASSERT_EQ(0, snap("S1"));
	ASSERT_EQ(0, snap("S2"));
	ASSERT_EQ(0, snap("S3"));
	ASSERT_EQ(0, snap("S4"));
	ASSERT_STREQ("S4", tags(T "snapshot", "S"));
	ASSERT_STREQ("S3", tags(T "snapshots/1", "S"));
	ASSERT_STREQ("S2", tags(T "snapshots/2", "S"));
	ASSERT_STREQ("S1", tags(T "snapshots/3", "S"));
	ASSERT_FALSE(exists(T "snapshots/4"));
	/* The live buffer starts empty after each snapshot. */
	ASSERT_STREQ("", tags(T "trace", "S"));
}

TEST_F(snap, the_next_snapshot_drops_the_oldest)
{
	int i;
	char tag[8];

	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	for (i = 1; i <= 5; i++) {
		snprintf(tag, sizeof(tag), "D%d", i);
		ASSERT_EQ(0, snap(tag));
	}
	ASSERT_STREQ("D5", tags(T "snapshot", "D"));
	ASSERT_STREQ("D4", tags(T "snapshots/1", "D"));
	ASSERT_STREQ("D3", tags(T "snapshots/2", "D"));
	ASSERT_STREQ("", tags(T "trace", "D"));
}

TEST_F(snap, a_counted_trigger_fills_the_history)
{
	char trig[64];

	ASSERT_EQ(0, wr(T "snapshot_depth", "5"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	snprintf(trig, sizeof(trig), "snapshot:5 if parent_pid == %d", getpid());
	ASSERT_EQ(0, wr(T "events/sched/sched_process_fork/trigger", trig));
	fire_tagged(fork_one, "F", 7);
	ASSERT_STREQ("F5", tags(T "snapshot", "F"));
	ASSERT_STREQ("F4", tags(T "snapshots/1", "F"));
	ASSERT_STREQ("F3", tags(T "snapshots/2", "F"));
	ASSERT_STREQ("F2", tags(T "snapshots/3", "F"));
	ASSERT_STREQ("F1", tags(T "snapshots/4", "F"));
	ASSERT_STREQ("F6 F7", tags(T "trace", "F"));
	ASSERT_TRUE(has(T "snapshot", " by trigger on CPU "));
}

/*
 * Calls @fire in a tight loop, for 20 s at most, until @path (a trigger or
 * set_ftrace_filter) says its counted snapshot command has run out.
 */
static int fire_until_count_0(void (*fire)(void), const char *path)
{
	time_t end = time(NULL) + 20;
	int i;

	while (time(NULL) < end) {
		for (i = 0; i < 100; i++)
			fire();
		if (has(path, "snapshot:count=0"))
			return 1;
	}
	return 0;
}

static void mark_hot(void)
{
	mark("hot");
}

/*
 * @cmd, a "snapshot:3" trigger or probe written to @path, fired in a tight
 * loop by @fire, finds the spare not cleared yet almost every time, and
 * skips.  The skipped snapshots must not use up its count: it takes three,
 * and the history holds them.
 */
static void check_count_fills_history(struct __test_metadata *_metadata,
				      const char *path, const char *cmd,
				      void (*fire)(void))
{
	long n0;

	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_LT(0, n0 = snap_no(T "snapshot"));
	ASSERT_EQ(0, wr(path, cmd));
	ASSERT_TRUE(fire_until_count_0(fire, path));
	ASSERT_TRUE(has(T "snapshot", "# snapshots skipped: "))
		TH_LOG("nothing was skipped: the case did not happen");
	EXPECT_EQ(n0 + 3, snap_no(T "snapshot"));
	EXPECT_EQ(n0 + 2, snap_no(T "snapshots/1"));
	EXPECT_EQ(n0 + 1, snap_no(T "snapshots/2"));
}

TEST_F(snap, a_skipped_snapshot_does_not_use_up_a_trigger_count)
{
	check_count_fills_history(_metadata, T "events/ftrace/print/trigger",
				  "snapshot:3", mark_hot);
}

TEST_F(snap, a_skipped_snapshot_does_not_use_up_a_probe_count)
{
	const char *fn = probe_function();
	char probe[64];

	if (!fn)
		SKIP(return, "no traceable getppid");
	snprintf(probe, sizeof(probe), "%s:snapshot:3", fn);
	check_count_fills_history(_metadata, T "set_ftrace_filter", probe,
				  call_getppid);
}

TEST_F(snap, a_hist_snapshot_action_rotates_the_history)
{
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	/* Allocate first: a conditional snapshot makes the file EBUSY. */
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	snprintf(hist_trigger, sizeof(hist_trigger),
		 " hist:keys=parent_pid:c=child_pid:onchange($c).snapshot() if parent_pid == %d",
		 getpid());
	/*
	 * Skip only on the missing feature (no hist file without
	 * CONFIG_HIST_TRIGGERS); any write error is a failure, since a
	 * broken .snapshot() action would give one too.
	 */
	if (!exists(T "events/sched/sched_process_fork/hist")) {
		hist_trigger[0] = '\0';
		SKIP(return, "no hist triggers (CONFIG_HIST_TRIGGERS=n)");
	}
	if (wr(T "events/sched/sched_process_fork/trigger", hist_trigger + 1))
		hist_trigger[0] = '\0';
	ASSERT_NE('\0', hist_trigger[0]) TH_LOG("the hist .snapshot() trigger was refused");
	fire_tagged(fork_one, "G", 3);
	ASSERT_STREQ("G3", tags(T "snapshot", "G"));
	ASSERT_STREQ("G2", tags(T "snapshots/1", "G"));
	ASSERT_STREQ("G1", tags(T "snapshots/2", "G"));
	ASSERT_TRUE(has(T "snapshots/1", " by trigger on CPU "));
}

TEST_F(snap, a_function_probe_rotates_the_history)
{
	const char *fn = probe_function();
	char probe[64];

	if (!fn)
		SKIP(return, "no traceable getppid");
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	snprintf(probe, sizeof(probe), "%s:snapshot", fn);
	ASSERT_EQ(0, wr(T "set_ftrace_filter", probe));
	fire_tagged(call_getppid, "P", 2);
	ASSERT_STREQ("P2", tags(T "snapshot", "P"));
	ASSERT_STREQ("P1", tags(T "snapshots/1", "P"));
	ASSERT_TRUE(has(T "snapshot", " by function on CPU "));
}

TEST_F(snap, clear_clears_the_whole_history)
{
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, snap("C1"));
	ASSERT_EQ(0, snap("C2"));
	ASSERT_EQ(0, snap("C3"));
	ASSERT_EQ(0, wr(T "snapshot", "2"));
	ASSERT_STREQ("", tags(T "snapshot", "C"));
	ASSERT_STREQ("", tags(T "snapshots/1", "C"));
	ASSERT_STREQ("", tags(T "snapshots/2", "C"));
	ASSERT_FALSE(has(T "snapshots/1", "# snapshot: #"));
	ASSERT_EQ(3, depth());
}

TEST_F(snap, free_frees_the_history_and_keeps_the_depth)
{
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, snap("R1"));
	ASSERT_EQ(0, snap("R2"));
	ASSERT_EQ(0, wr(T "snapshot", "0"));
	ASSERT_TRUE(has(T "snapshot", "Snapshot is freed"));
	ASSERT_STREQ("", tags(T "snapshots/1", "R"));
	ASSERT_EQ(3, depth());
	/* And it comes back whole. */
	ASSERT_EQ(0, snap("R3"));
	ASSERT_EQ(0, snap("R4"));
	ASSERT_STREQ("R4", tags(T "snapshot", "R"));
	ASSERT_STREQ("R3", tags(T "snapshots/1", "R"));
}

TEST_F(snap, a_lower_depth_keeps_the_newest_in_order)
{
	ASSERT_EQ(0, wr(T "snapshot_depth", "4"));
	ASSERT_EQ(0, snap("L1"));
	ASSERT_EQ(0, snap("L2"));
	ASSERT_EQ(0, snap("L3"));
	ASSERT_EQ(0, snap("L4"));
	ASSERT_EQ(0, wr(T "snapshot_depth", "2"));
	ASSERT_STREQ("L4", tags(T "snapshot", "L"));
	ASSERT_STREQ("L3", tags(T "snapshots/1", "L"));
	ASSERT_FALSE(exists(T "snapshots/2"));
	ASSERT_EQ(0, wr(T "snapshot_depth", "4"));
	ASSERT_STREQ("L3", tags(T "snapshots/1", "L"));
	ASSERT_STREQ("", tags(T "snapshots/2", "L"));
	ASSERT_EQ(0, snap("L5"));
	ASSERT_STREQ("L4", tags(T "snapshots/1", "L"));
	ASSERT_STREQ("L3", tags(T "snapshots/2", "L"));
}

/*
 * After three rotations the live buffer is a buffer of the history. How
 * many of 5000 markers it keeps shows its size: a history that missed a
 * buffer_size_kb write keeps about as few as the smaller size allows.
 */
static int fill_after_rotations(const char *prefix)
{
	char line[128];
	int i;

	for (i = 0; i < 3; i++)
		if (snap("Z"))
			return -1;
	for (i = 0; i < 5000; i++) {
		snprintf(line, sizeof(line), "%s %04d %s", prefix, i,
			 "..............................................................");
		mark(line);
	}
	return count(T "trace", prefix);
}

TEST_F(snap, buffer_size_kb_resizes_every_buffer_of_the_history)
{
	int small, large;

	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, wr(T "buffer_size_kb", "64"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	small = fill_after_rotations("small");
	ASSERT_EQ(0, wr(T "buffer_size_kb", "2048"));
	large = fill_after_rotations("large");
	TH_LOG("markers kept: %d at 64 KB, %d at 2048 KB", small, large);
	ASSERT_GT(small, 100);
	ASSERT_LT(small, 2000);
	ASSERT_EQ(5000, large);
}

TEST_F(snap, an_instance_has_its_own_history)
{
	const char *I = T "instances/hist_test/";
	char p[128];

	rmdir(T "instances/hist_test");
	ASSERT_EQ(0, mkdir(T "instances/hist_test", 0755));
	snprintf(p, sizeof(p), "%ssnapshot_depth", I);
	ASSERT_EQ(0, wr(p, "3"));
	ASSERT_EQ(1, depth());
	snprintf(p, sizeof(p), "%strace_marker", I);
	wr(p, "I1");
	snprintf(p, sizeof(p), "%ssnapshot", I);
	ASSERT_EQ(0, wr(p, "1"));
	snprintf(p, sizeof(p), "%strace_marker", I);
	wr(p, "I2");
	snprintf(p, sizeof(p), "%ssnapshot", I);
	ASSERT_EQ(0, wr(p, "1"));
	ASSERT_STREQ("I2", tags(p, "I"));
	snprintf(p, sizeof(p), "%ssnapshots/1", I);
	ASSERT_STREQ("I1", tags(p, "I"));
	ASSERT_STREQ("", tags(T "snapshot", "I"));
	ASSERT_EQ(0, rmdir(T "instances/hist_test"));
}

TEST_F(snap, header_says_which_snapshot_when_and_how)
{
	unsigned long n1, n2;
	double t1, t2;
	char by[16];
	int cpu;
	char *p;

	ASSERT_EQ(0, snap("H1"));
	ASSERT_NE(NULL, p = strstr((rd(T "snapshot"), buf), "# snapshot: #"));
	ASSERT_EQ(4, sscanf(p, "# snapshot: #%lu at %lf by %15s on CPU %d",
			    &n1, &t1, by, &cpu));
	ASSERT_STREQ("file", by);
	ASSERT_EQ(0, cpu);
	/* The line comes right after "# tracer:". */
	ASSERT_EQ(0, strncmp(buf, "# tracer: nop\n# snapshot: #", 27));
	usleep(100 * 1000);
	ASSERT_EQ(0, snap("H2"));
	ASSERT_NE(NULL, p = strstr((rd(T "snapshot"), buf), "# snapshot: #"));
	ASSERT_EQ(4, sscanf(p, "# snapshot: #%lu at %lf by %15s on CPU %d",
			    &n2, &t2, by, &cpu));
	ASSERT_EQ(n1 + 1, n2);
	ASSERT_GT(t2 - t1, 0.05);
	ASSERT_LT(t2 - t1, 10.0);
}

TEST_F(snap, poll_does_not_wake_without_a_snapshot)
{
	int fd;

	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_LE(0, fd = open(T "snapshot", O_RDONLY));
	mark("nothing");
	ASSERT_FALSE(readable(fd, 500));
	close(fd);
}

TEST_F(snap, poll_wakes_for_a_file_write_and_rearms_on_read)
{
	int fd;

	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_LE(0, fd = open(T "snapshot", O_RDONLY));
	ASSERT_FALSE(readable(fd, 100));
	ASSERT_EQ(0, snap("W1"));
	ASSERT_TRUE(readable(fd, 2000));
	/* A read from offset 0 reads the new snapshot, and re-arms poll. */
	ASSERT_LT(0, pread(fd, buf, BUFSZ - 1, 0));
	ASSERT_FALSE(readable(fd, 300));
	ASSERT_EQ(0, snap("W2"));
	ASSERT_TRUE(readable(fd, 2000));
	close(fd);
}

TEST_F(snap, a_read_from_offset_0_reads_the_newest_snapshot)
{
	ssize_t n;
	int fd;

	ASSERT_EQ(0, snap("O1"));
	ASSERT_LE(0, fd = open(T "snapshot", O_RDONLY));
	ASSERT_EQ(0, snap("O2"));
	ASSERT_LT(0, n = pread(fd, buf, BUFSZ - 1, 0));
	buf[n] = '\0';
	ASSERT_NE(NULL, strstr(buf, "O2\n"));
	ASSERT_EQ(NULL, strstr(buf, "O1\n"));
	close(fd);
}

TEST_F(snap, poll_wakes_for_an_event_trigger)
{
	char trig[64];
	int fd;

	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_LE(0, fd = open(T "snapshot", O_RDONLY));
	snprintf(trig, sizeof(trig), "snapshot if parent_pid == %d", getpid());
	ASSERT_EQ(0, wr(T "events/sched/sched_process_fork/trigger", trig));
	ASSERT_FALSE(readable(fd, 100));
	mark("E1");
	fork_one();
	ASSERT_TRUE(readable(fd, 2000));
	ASSERT_LT(0, pread(fd, buf, BUFSZ - 1, 0));
	ASSERT_NE(NULL, strstr(buf, " by trigger on CPU "));
	ASSERT_NE(NULL, strstr(buf, "E1\n"));
	close(fd);
}

TEST_F(snap, poll_wakes_for_a_function_probe)
{
	const char *fn = probe_function();
	char probe[64];
	int fd;

	if (!fn)
		SKIP(return, "no traceable getppid");
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_LE(0, fd = open(T "snapshot", O_RDONLY));
	snprintf(probe, sizeof(probe), "%s:snapshot:1", fn);
	ASSERT_EQ(0, wr(T "set_ftrace_filter", probe));
	ASSERT_FALSE(readable(fd, 100));
	getppid();
	ASSERT_TRUE(readable(fd, 2000));
	close(fd);
}

TEST_F(snap, poll_on_a_history_file_wakes_too)
{
	int fd;

	ASSERT_EQ(0, wr(T "snapshot_depth", "2"));
	ASSERT_EQ(0, snap("Y1"));
	ASSERT_LE(0, fd = open(T "snapshots/1", O_RDONLY));
	ASSERT_FALSE(readable(fd, 100));
	ASSERT_EQ(0, snap("Y2"));
	ASSERT_TRUE(readable(fd, 2000));
	ASSERT_LT(0, pread(fd, buf, BUFSZ - 1, 0));
	ASSERT_NE(NULL, strstr(buf, "Y1\n"));
	close(fd);
}

TEST_HARNESS_MAIN
