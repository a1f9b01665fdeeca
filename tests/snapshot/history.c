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
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "task_state.h"
#include "tracefs_write.h"

#define T "/sys/kernel/tracing/"
#define BUFSZ (4 << 20)

static char buf[BUFSZ];

static int wr(const char *path, const char *val)
{
	return tracefs_write(path, val, O_TRUNC);
}

/*
 * Reads the rest of @fd into buf after the @len bytes already there, and
 * ends it with a NUL; returns the length or -1.
 */
static ssize_t read_on(int fd, ssize_t len)
{
	ssize_t n;

	while ((n = read(fd, buf + len, BUFSZ - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	return n < 0 ? -1 : len;
}

/* Reads @path into buf; returns the length or -1. */
static ssize_t rd(const char *path)
{
	int fd = open(path, O_RDONLY);
	ssize_t len;

	if (fd < 0)
		return -1;
	len = read_on(fd, 0);
	close(fd);
	return len;
}

/* Like wr(), without O_TRUNC, which removes a trigger file's triggers */
static int wr_append(const char *path, const char *val)
{
	return tracefs_write(path, val, O_APPEND);
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
static const char * const probe_names[] = {
	"__do_sys_getppid", "__x64_sys_getppid", "sys_getppid",
};

static const char *probe_function(void)
{
	unsigned int i;

	if (rd(T "available_filter_functions") < 0)
		return NULL;
	for (i = 0; i < sizeof(probe_names) / sizeof(probe_names[0]); i++) {
		char line[64];

		snprintf(line, sizeof(line), "\n%s\n", probe_names[i]);
		if (strstr(buf, line))
			return probe_names[i];
	}
	return NULL;
}

/* Whether a snapshot file reports a new snapshot (POLLPRI) within @ms */
static int snapped(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLPRI);
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

static void call_getppid(void)
{
	getppid();
}

/*
 * Marker <prefix>1, @fire, marker <prefix>2, @fire, ... so that each
 * snapshot a trigger or probe on @fire takes holds its own marker.
 * Nothing is ever skipped: there is no wait between the steps.
 */
static void fire_tagged(void (*fire)(void), const char *prefix, int n)
{
	char tag[16];
	int i;

	for (i = 1; i <= n; i++) {
		snprintf(tag, sizeof(tag), "%s%d", prefix, i);
		mark(tag);
		fire();
	}
}

/* tracing_cpumask as the test found it, restored by reset() */
static char cpumask0[64];

static void reset(void)
{
	char probe[64];
	int i;

	if (hist_trigger[0]) {
		hist_trigger[0] = '!';
		wr(T "events/sched/sched_process_fork/trigger", hist_trigger);
		hist_trigger[0] = '\0';
	}
	wr(T "events/sched/sched_process_fork/trigger", "!snapshot");
	wr(T "events/ftrace/print/trigger", "!snapshot");
	wr_append(T "events/sched/sched_switch/trigger", "!snapshot");
	/*
	 * Truncating set_ftrace_filter leaves probes, which hold the
	 * snapshot; a counted probe goes only by its counted form.
	 */
	wr_append(T "set_ftrace_filter", "!*:snapshot");
	wr_append(T "set_ftrace_filter", "!*:snapshot:1");
	for (i = 0; i < 3; i++) {
		snprintf(probe, sizeof(probe), "!%s:snapshot", probe_names[i]);
		wr_append(T "set_ftrace_filter", probe);
		strcat(probe, ":1");
		wr_append(T "set_ftrace_filter", probe);
	}
	wr(T "set_ftrace_filter", "");
	wr(T "current_tracer", "nop");
	wr(T "snapshot", "0");
	wr(T "snapshot_depth", "1");
	wr(T "buffer_subbuf_size_kb", "4");
	wr(T "buffer_size_kb", "1408");
	wr(T "trace", "");
	wr(T "tracing_on", "1");
	wr(T "options/overwrite", "1");
	wr(T "trace_clock", "local");
	wr(T "buffer_percent", "50");
	wr(T "options/pause-on-trace", "0");
	if (cpumask0[0])
		wr(T "tracing_cpumask", cpumask0);
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
	if (!cpumask0[0] && rd(T "tracing_cpumask") > 0)
		snprintf(cpumask0, sizeof(cpumask0), "%.63s", buf);
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
 * Sets a hist .snapshot() action on this process's forks, which reset()
 * removes: 0, or -1 if the write failed, or 1 without hist triggers
 * (CONFIG_HIST_TRIGGERS=n), the only case to skip on. Any write error
 * is a failure, since a broken .snapshot() action would give one too.
 */
static int hist_snapshot_set(void)
{
	snprintf(hist_trigger, sizeof(hist_trigger),
		 " hist:keys=parent_pid:c=child_pid:onchange($c).snapshot() if parent_pid == %d",
		 getpid());
	if (!exists(T "events/sched/sched_process_fork/hist")) {
		hist_trigger[0] = '\0';
		return 1;
	}
	if (wr(T "events/sched/sched_process_fork/trigger", hist_trigger + 1)) {
		hist_trigger[0] = '\0';
		return -1;
	}
	return 0;
}

TEST_F(snap, a_hist_snapshot_action_rotates_the_history)
{
	int ret;

	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	/* Allocate first: a conditional snapshot makes the file EBUSY. */
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ret = hist_snapshot_set();
	if (ret == 1)
		SKIP(return, "no hist triggers (CONFIG_HIST_TRIGGERS=n)");
	ASSERT_EQ(0, ret) TH_LOG("the hist .snapshot() trigger was refused");
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

/* The "# snapshots dropped: N" line of "snapshot": N, 0 without it, or -1 */
static long dropped(void)
{
	long n;
	char *p;

	if (rd(T "snapshot") < 0)
		return -1;
	p = strstr(buf, "# snapshots dropped: ");
	if (!p)
		return 0;
	return sscanf(p, "# snapshots dropped: %ld", &n) == 1 ? n : -1;
}

/*
 * A plain snapshot trigger next to a hist .snapshot() is not taken: the
 * snapshot the action took stays, and the dropped one is counted. (The
 * action's update() dereferenced the missing data, in 6.12 too.) The
 * refusal writes nothing into the live buffer, which the action
 * snapshots.
 */
TEST_F(snap, a_snapshot_trigger_next_to_a_hist_snapshot_is_declined)
{
	long no, lost;
	int ret;

	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ret = hist_snapshot_set();
	if (ret == 1)
		SKIP(return, "no hist triggers (CONFIG_HIST_TRIGGERS=n)");
	ASSERT_EQ(0, ret) TH_LOG("the hist .snapshot() trigger was refused");
	fire_tagged(fork_one, "G", 1);
	ASSERT_STREQ("G1", tags(T "snapshot", "G"));
	no = snap_no(T "snapshot");
	lost = dropped();
	ASSERT_EQ(0, wr(T "events/ftrace/print/trigger", "snapshot"));
	mark("P1");
	EXPECT_EQ(no, snap_no(T "snapshot"));
	EXPECT_STREQ("G1", tags(T "snapshot", "G"));
	EXPECT_EQ(lost + 1, dropped());
	EXPECT_EQ(1, count(T "trace", "P1"));
	EXPECT_EQ(0, count(T "trace", "SNAPSHOT"))
		TH_LOG("the refusal wrote into the live buffer");
}

/*
 * With tracing stopped (here, "trace" open with pause-on-trace), no
 * snapshot can be taken. The file's writes succeed, as in 6.12, and each
 * is counted in the header, as each hit of a probe is. Nothing moves.
 */
TEST_F(snap, a_snapshot_that_cannot_be_taken_is_counted)
{
	const char *fn = probe_function();
	const char *depths[] = { "1", "3" };
	char probe[64];
	unsigned int i;
	long n;
	int fd;

	if (!fn)
		SKIP(return, "no traceable getppid");
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, wr(T "snapshot_depth", depths[i]));
		ASSERT_EQ(0, snap("D1"));
		ASSERT_LE(0, n = dropped());
		ASSERT_EQ(0, wr(T "options/pause-on-trace", "1"));
		ASSERT_LE(0, fd = open(T "trace", O_RDONLY));
		EXPECT_EQ(0, wr(T "snapshot", "1"))
			TH_LOG("echo 1 > snapshot, stopped, depth %s: 6.12 succeeds", depths[i]);
		EXPECT_EQ(n + 1, dropped())
			TH_LOG("echo 1 > snapshot, stopped, depth %s", depths[i]);
		EXPECT_EQ(0, wr(T "per_cpu/cpu0/snapshot", "1"))
			TH_LOG("per-CPU echo 1, stopped, depth %s: 6.12 succeeds", depths[i]);
		EXPECT_EQ(n + 2, dropped())
			TH_LOG("per-CPU echo 1, stopped, depth %s", depths[i]);
		ASSERT_STREQ("D1", tags(T "snapshot", "D"));
		snprintf(probe, sizeof(probe), "%s:snapshot", fn);
		ASSERT_EQ(0, wr(T "set_ftrace_filter", probe));
		getppid();
		getppid();
		EXPECT_EQ(n + 4, dropped())
			TH_LOG("two probe hits while stopped, depth %s", depths[i]);
		ASSERT_STREQ("D1", tags(T "snapshot", "D"));
		close(fd);
		/* Started again: the next hit is taken, and not counted */
		mark("D2");
		getppid();
		EXPECT_EQ(n + 4, dropped());
		EXPECT_STREQ("D2", tags(T "snapshot", "D"));
		EXPECT_TRUE(has(T "snapshot", " by function on CPU "));
		reset();
	}
}

#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"

/*
 * smp_call_function_single() fails for an offline CPU: the write
 * succeeds, as in 6.12, and the snapshot not taken is counted
 */
TEST_F(snap, a_per_cpu_snapshot_of_an_offline_cpu_is_counted)
{
	long n;

	if (!exists(CPU1_ONLINE))
		SKIP(return, "CPU 1 cannot go offline");
	ASSERT_EQ(0, snap("O1"));
	ASSERT_LE(0, n = dropped());
	ASSERT_EQ(0, wr(CPU1_ONLINE, "0"));
	mark("O2");
	EXPECT_EQ(0, wr(T "per_cpu/cpu1/snapshot", "1"));
	EXPECT_EQ(0, wr(CPU1_ONLINE, "1"));
	EXPECT_EQ(n + 1, dropped());
	EXPECT_STREQ("O1", tags(T "snapshot", "O"));
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
/* @n markers "<prefix> NNNN" into the live buffer; how many it keeps */
static int fill_live(const char *prefix, int n)
{
	char line[128];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "%s %04d %s", prefix, i,
			 "..............................................................");
		mark(line);
	}
	return count(T "trace", prefix);
}

/*
 * Each of the K + 1 buffers holds what its size holds: at depth 3 four
 * rotations make each of the four buffers live once, and each is filled
 * then.  64 KB per CPU keeps a few hundred markers, 2048 KB all 3000.
 */
TEST_F_TIMEOUT(snap, buffer_size_kb_resizes_every_buffer_of_the_history, 600)
{
	static const char * const sizes[] = { "64", "2048" };
	char prefix[16];
	int s, b, kept;

	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	for (s = 0; s < 2; s++) {
		ASSERT_EQ(0, wr(T "buffer_size_kb", sizes[s]));
		for (b = 0; b < 4; b++) {
			ASSERT_EQ(0, snap("Z"));
			snprintf(prefix, sizeof(prefix), "size%db%d", s, b);
			kept = fill_live(prefix, 3000);
			TH_LOG("%s KB, buffer %d of 4: %d markers kept", sizes[s], b + 1, kept);
			if (s == 0) {
				EXPECT_LT(100, kept);
				EXPECT_GT(2000, kept);
			} else {
				EXPECT_EQ(3000, kept);
			}
		}
	}
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
	ASSERT_FALSE(snapped(fd, 500));
	close(fd);
}

TEST_F(snap, poll_wakes_for_a_file_write_and_rearms_on_read)
{
	int fd;

	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_LE(0, fd = open(T "snapshot", O_RDONLY));
	ASSERT_FALSE(snapped(fd, 100));
	ASSERT_EQ(0, snap("W1"));
	ASSERT_TRUE(snapped(fd, 2000));
	/* A read from offset 0 reads the new snapshot, and re-arms poll. */
	ASSERT_LT(0, pread(fd, buf, BUFSZ - 1, 0));
	ASSERT_FALSE(snapped(fd, 300));
	ASSERT_EQ(0, snap("W2"));
	ASSERT_TRUE(snapped(fd, 2000));
	close(fd);
}

/*
 * Whether the snapshot is armed, as 6.12 shows it: an mmap() of a
 * trace_pipe_raw file fails with EBUSY while it is.  1, 0, or -1 on any
 * other error.
 */
static int snapshot_armed(void)
{
	int fd = open(T "per_cpu/cpu0/trace_pipe_raw", O_RDONLY);
	long len = sysconf(_SC_PAGESIZE);
	void *p;

	if (fd < 0)
		return -1;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return errno == EBUSY ? 1 : -1;
	}
	munmap(p, len);
	close(fd);
	return 0;
}

/*
 * Each function of a snapshot probe arms the snapshot once, whatever
 * commands add and remove it: probes added one by one and removed
 * together, or added together and removed one by one, leave it unarmed
 * (6.12 counted commands: the first left it armed until reboot, the
 * second warned in tracing_disarm_snapshot()).
 */
TEST_F(snap, probes_added_and_removed_in_any_grouping_leave_it_unarmed)
{
	static const char * const fn[] = { "__do_sys_getppid", "__do_sys_getpid" };
	char line[64];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(line, sizeof(line), "\n%s\n", fn[i]);
		if (rd(T "available_filter_functions") < 0 || !strstr(buf, line))
			SKIP(return, "no traceable %s", fn[i]);
	}
	if (snapshot_armed())
		SKIP(return, "mmap() of trace_pipe_raw refused before any probe");
	for (i = 0; i < 2; i++) {
		snprintf(line, sizeof(line), "%s:snapshot", fn[i]);
		ASSERT_EQ(0, wr_append(T "set_ftrace_filter", line));
	}
	ASSERT_EQ(1, snapshot_armed());
	ASSERT_EQ(0, wr_append(T "set_ftrace_filter", "!*:snapshot"));
	ASSERT_EQ(0, snapshot_armed())
		TH_LOG("two probes added one by one, removed with !*:snapshot: still armed");

	/* "__do_sys_get*pid": both functions, in one command */
	ASSERT_EQ(0, wr(T "set_ftrace_filter", "__do_sys_get*pid:snapshot:5"));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(1, snapshot_armed())
			TH_LOG("%d of 2 functions removed: no longer armed", i);
		snprintf(line, sizeof(line), "!%s:snapshot:5", fn[i]);
		ASSERT_EQ(0, wr_append(T "set_ftrace_filter", line));
	}
	ASSERT_EQ(0, snapshot_armed());
}

/*
 * A poller already asleep when the snapshot is taken: the snapshot must
 * wake it, not its timeout.  The cases above poll after the snapshot,
 * when poll() answers without sleeping.
 */
TEST_F(snap, poll_asleep_before_a_snapshot_wakes_for_it)
{
	int fd, status = -1, i;
	pid_t pid, done = 0;

	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_LE(0, fd = open(T "snapshot", O_RDONLY));
	pid = fork();
	if (pid == 0)
		_exit(snapped(fd, 10000) ? 0 : 1);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(sleeping(pid));
	ASSERT_EQ(0, snap("A1"));
	/* 5 s, half its timeout, is plenty under TCG */
	for (i = 0; i < 50 && !(done = waitpid(pid, &status, WNOHANG)); i++)
		usleep(100 * 1000);
	if (!done) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	close(fd);
	ASSERT_TRUE(done > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the poller was not woken by the snapshot within 5 s");
}

/*
 * A sub-buffer order change after snapshots: the buffer that came back
 * live hides the events it held, and its new sub-buffers are numbered on
 * from its old tail, so that what is written next is not taken for old.
 */
TEST_F(snap, events_after_a_subbuf_order_change_are_not_hidden)
{
	ASSERT_EQ(0, snap("S1"));
	ASSERT_EQ(0, snap("S2"));
	ASSERT_EQ(0, wr(T "buffer_subbuf_size_kb", "8"));
	mark("N1");
	EXPECT_TRUE(has(T "trace", "N1\n"))
		TH_LOG("a marker written after the order change is hidden");
	ASSERT_EQ(0, snap("S3"));
	EXPECT_TRUE(has(T "snapshot", "N1\n"));
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
	ASSERT_FALSE(snapped(fd, 100));
	mark("E1");
	fork_one();
	ASSERT_TRUE(snapped(fd, 2000));
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
	ASSERT_FALSE(snapped(fd, 100));
	getppid();
	ASSERT_TRUE(snapped(fd, 2000));
	close(fd);
}

TEST_F(snap, poll_on_a_history_file_wakes_too)
{
	int fd;

	ASSERT_EQ(0, wr(T "snapshot_depth", "2"));
	ASSERT_EQ(0, snap("Y1"));
	ASSERT_LE(0, fd = open(T "snapshots/1", O_RDONLY));
	ASSERT_FALSE(snapped(fd, 100));
	ASSERT_EQ(0, snap("Y2"));
	ASSERT_TRUE(snapped(fd, 2000));
	ASSERT_LT(0, pread(fd, buf, BUFSZ - 1, 0));
	ASSERT_NE(NULL, strstr(buf, "Y1\n"));
	close(fd);
}

/* Runs @fn on CPU @cpu, in a child; returns its exit status or -1. */
static int on_cpu(int cpu, int (*fn)(void))
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			_exit(100);
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static const char *marker_cpu1;

/* 0 if the marker write worked, else its errno */
static int mark_from_here(void)
{
	return wr(T "trace_marker", marker_cpu1);
}

static int has_cpu1(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

TEST_F(snap, a_burst_of_trigger_hits_gives_one_snapshot_each_in_order)
{
	char tag[16];
	long n0;
	int i;

	/* The issue's case: five hits faster than any grace period */
	ASSERT_EQ(0, wr(T "snapshot_depth", "5"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_LT(0, n0 = snap_no(T "snapshot"));
	ASSERT_EQ(0, wr(T "events/ftrace/print/trigger", "snapshot:5"));
	for (i = 1; i <= 7; i++) {
		snprintf(tag, sizeof(tag), "B%d", i);
		mark(tag);
	}
	EXPECT_STREQ("B5", tags(T "snapshot", "B"));
	EXPECT_STREQ("B4", tags(T "snapshots/1", "B"));
	EXPECT_STREQ("B3", tags(T "snapshots/2", "B"));
	EXPECT_STREQ("B2", tags(T "snapshots/3", "B"));
	EXPECT_STREQ("B1", tags(T "snapshots/4", "B"));
	EXPECT_STREQ("B6 B7", tags(T "trace", "B"));
	/* One number each: nothing was skipped */
	EXPECT_EQ(n0 + 5, snap_no(T "snapshot"));
	EXPECT_EQ(n0 + 1, snap_no(T "snapshots/4"));
	EXPECT_TRUE(has(T "events/ftrace/print/trigger", "snapshot:count=0"));
}

/*
 * A child named "snapswitch" that sleeps and wakes for @secs, so that it
 * switches out often.
 */
static pid_t start_switcher(int secs)
{
	pid_t pid = fork();

	if (pid == 0) {
		time_t end = time(NULL) + secs;

		prctl(PR_SET_NAME, "snapswitch");
		while (time(NULL) < end)
			usleep(200);
		/*
		 * waitpid() returns before the last switch out of a dead
		 * task: that one must not be a hit, or it races with the
		 * removal of the triggers.
		 */
		prctl(PR_SET_NAME, "snapdone");
		usleep(50 * 1000);
		_exit(0);
	}
	return pid;
}

/* The hitcount of the first entry of a hist file, or -1 */
static long hitcount(const char *path)
{
	long n = -1;
	char *p;

	if (rd(path) >= 0 && (p = strstr(buf, "} hitcount:")))
		sscanf(p, "} hitcount: %ld", &n);
	return n;
}

TEST_F_TIMEOUT(snap, a_hot_conditional_trigger_takes_a_snapshot_per_hit, 120)
{
	const char *ev = T "events/sched/sched_switch/";
	char path[128];
	long n0, n1, hits;
	pid_t pid;

	if (!exists(T "events/sched/sched_switch/hist"))
		SKIP(return, "no hist triggers (CONFIG_HIST_TRIGGERS=n)");
	ASSERT_EQ(0, wr(T "snapshot_depth", "4"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_LT(0, n0 = snap_no(T "snapshot"));
	/* The same filter counts the hits in a hist trigger; both first */
	snprintf(path, sizeof(path), "%strigger", ev);
	ASSERT_EQ(0, wr(path, "hist:keys=prev_pid if prev_comm == \"snapswitch\""));
	ASSERT_EQ(0, wr_append(path, "snapshot if prev_comm == \"snapswitch\""));
	pid = start_switcher(10);
	ASSERT_LT(0, pid);
	waitpid(pid, NULL, 0);
	wr_append(path, "!snapshot if prev_comm == \"snapswitch\"");
	n1 = snap_no(T "snapshot");
	snprintf(path, sizeof(path), "%shist", ev);
	hits = hitcount(path);
	snprintf(path, sizeof(path), "%strigger", ev);
	wr_append(path, "!hist:keys=prev_pid if prev_comm == \"snapswitch\"");
	TH_LOG("%ld hits, %ld snapshots in 10 s", hits, n1 - n0);
	ASSERT_LT(100, hits);
	ASSERT_EQ(hits, n1 - n0);
}

TEST_F(snap, the_live_buffer_never_shows_an_old_snapshot)
{
	const char *depths[] = { "1", "3" };
	char tag[16];
	unsigned int d;
	ssize_t n;
	int i, fd;

	for (d = 0; d < 2; d++) {
		ASSERT_EQ(0, wr(T "snapshot_depth", depths[d]));
		/* More snapshots than buffers: each comes back into live use */
		for (i = 0; i < 6; i++) {
			snprintf(tag, sizeof(tag), "V%d", i);
			ASSERT_EQ(0, snap(tag));
			EXPECT_STREQ("", tags(T "trace", "V"))
				TH_LOG("depth %s, after V%d", depths[d], i);
		}
		/* Nor to a consuming reader */
		ASSERT_LE(0, fd = open(T "trace_pipe", O_RDONLY | O_NONBLOCK));
		n = read(fd, buf, BUFSZ - 1);
		buf[n > 0 ? n : 0] = '\0';
		close(fd);
		EXPECT_EQ(NULL, strstr(buf, "V")) TH_LOG("trace_pipe: %.200s", buf);
		ASSERT_EQ(0, wr(T "snapshot", "0"));
	}
}

TEST_F(snap, tracing_cpumask_holds_on_every_buffer_of_the_history)
{
	int i;

	if (!has_cpu1())
		SKIP(return, "one CPU: no CPU to mask out");
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_EQ(0, wr(T "tracing_cpumask", "1"));
	/* And buffers added after the mask was set */
	ASSERT_EQ(0, wr(T "snapshot_depth", "5"));
	for (i = 0; i < 7; i++) {
		ASSERT_EQ(0, snap("M"));
		marker_cpu1 = "masked-cpu1";
		on_cpu(1, mark_from_here);
		EXPECT_EQ(0, count(T "trace", "masked-cpu1"))
			TH_LOG("CPU 1 recorded after %d rotations", i + 1);
	}
	ASSERT_EQ(0, wr(T "tracing_cpumask", cpumask0));
	for (i = 0; i < 7; i++) {
		ASSERT_EQ(0, snap("M"));
		marker_cpu1 = "unmasked-cpu1";
		EXPECT_EQ(0, on_cpu(1, mark_from_here))
			TH_LOG("CPU 1's marker failed after %d rotations", i + 1);
		EXPECT_EQ(1, count(T "trace", "unmasked-cpu1"))
			TH_LOG("CPU 1 silent after %d rotations", i + 1);
	}
}

/* Fills the live buffer (64 KB) with markers; which ones does it keep? */
static int keeps_first_marker(void)
{
	char line[128];
	int i;

	wr(T "trace", "");
	for (i = 0; i < 3000; i++) {
		snprintf(line, sizeof(line), "ov %04d ..................................................", i);
		mark(line);
	}
	return has(T "trace", "ov 0000 ");
}

TEST_F_TIMEOUT(snap, overwrite_holds_on_every_buffer_of_the_history, 300)
{
	int i;

	ASSERT_EQ(0, wr(T "buffer_size_kb", "64"));
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_EQ(0, wr(T "options/overwrite", "0"));
	ASSERT_EQ(0, wr(T "snapshot_depth", "4"));
	for (i = 0; i < 6; i++) {
		EXPECT_TRUE(keeps_first_marker())
			TH_LOG("overwrite on again after %d rotations", i);
		ASSERT_EQ(0, snap("O"));
	}
	ASSERT_EQ(0, wr(T "options/overwrite", "1"));
	for (i = 0; i < 6; i++) {
		EXPECT_FALSE(keeps_first_marker())
			TH_LOG("overwrite off again after %d rotations", i);
		ASSERT_EQ(0, snap("O"));
	}
}

/* How many of 3000 markers the live buffer keeps after a rotation */
static int kept_after_rotation(void)
{
	char line[128];
	int i;

	if (snap("Z"))
		return -1;
	wr(T "trace", "");
	for (i = 0; i < 3000; i++) {
		snprintf(line, sizeof(line), "kept %04d ................................................", i);
		mark(line);
	}
	return count(T "trace", "kept ");
}

TEST_F_TIMEOUT(snap, a_failed_resize_leaves_every_buffer_as_it_was, 300)
{
	int i, n, first, kb;
	int fd;

	ASSERT_EQ(0, wr(T "buffer_size_kb", "64"));
	ASSERT_LT(0, rd(T "buffer_size_kb"));
	kb = atoi(buf);
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, snap("R"));
	ASSERT_EQ(0, snap("R"));
	/* A reader of snapshots/2 holds one buffer of the history */
	ASSERT_LE(0, fd = open(T "snapshots/2", O_RDONLY));
	ASSERT_LT(0, read(fd, buf, 100));
	EXPECT_EQ(EBUSY, wr(T "buffer_size_kb", "256"));
	close(fd);
	EXPECT_EQ(ENOMEM, wr(T "buffer_size_kb", "1000000000"));
	ASSERT_LT(0, rd(T "buffer_size_kb"));
	EXPECT_EQ(kb, atoi(buf));
	/*
	 * Every buffer takes its turn as the live one: all keep about the
	 * same.  Time extends make it vary by a few markers (seen: 858 and
	 * 860 on the debug kernel, and 816 and 861 next to two other
	 * guests, whose stalls add extends); a buffer of 256 KB would keep
	 * 4 times as many.
	 */
	first = kept_after_rotation();
	for (i = 0; i < 4; i++) {
		n = kept_after_rotation();
		EXPECT_LT(abs(n - first) * 10, first)
			TH_LOG("rotation %d keeps %d, not about %d", i, n, first);
	}
	ASSERT_LT(100, first);
	ASSERT_GT(3000, first);
}

#define FAULT "/sys/kernel/debug/"

/* Lets /proc/self/fail-nth fail any slab or page allocation of ours. */
static int fault_setup(void)
{
	return wr(FAULT "failslab/verbose", "0") ||
	       wr(FAULT "fail_page_alloc/verbose", "0") ||
	       wr(FAULT "failslab/ignore-gfp-wait", "N") ||
	       wr(FAULT "fail_page_alloc/ignore-gfp-wait", "N") ||
	       wr(FAULT "fail_page_alloc/ignore-gfp-highmem", "N") ||
	       wr(FAULT "fail_page_alloc/min-order", "0");
}

/*
 * Writes @val to @path, with the @nth allocation of this thread from
 * the write on made to fail (fault injection). Returns 0 or the errno;
 * *@injected says whether the write got as far as the @nth allocation.
 */
static int wr_failing(const char *path, const char *val, int nth,
		      int *injected)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	int nfd = open("/proc/thread-self/fail-nth", O_RDWR);
	char n[16] = "";
	int err = 0;

	*injected = 0;
	if (fd < 0 || nfd < 0) {
		err = errno;
		goto out;
	}
	snprintf(n, sizeof(n), "%d", nth);
	if (pwrite(nfd, n, strlen(n), 0) < 0) {
		err = errno;
		goto out;
	}
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	/* fail-nth reads 0 once the failure was injected */
	memset(n, 0, sizeof(n));
	if (pread(nfd, n, sizeof(n) - 1, 0) > 0)
		*injected = atoi(n) == 0;
	pwrite(nfd, "0", 1, 0);
out:
	if (fd >= 0)
		close(fd);
	if (nfd >= 0)
		close(nfd);
	return err;
}

/* Path of the fault attribute @attr ("failslab", "fail_page_alloc") */
static const char *fault(const char *attr, const char *file)
{
	static char path[128];

	snprintf(path, sizeof(path), FAULT "%s/%s", attr, file);
	return path;
}

/*
 * Writes @val to @path with every allocation of this thread of kind
 * @attr ("failslab": slab objects; "fail_page_alloc": pages) failing once
 * @budget was allocated (the attribute's "space"): the change
 * fails part way, and so does anything that would allocate to undo it.
 * Returns 0 or the errno; *@injected says whether an allocation failed.
 */
static int wr_failing_after(const char *path, const char *val,
			    const char *attr, int budget, int *injected)
{
	int fd = -1, mfd = -1, err = 0;
	char space[16];

	*injected = 0;
	snprintf(space, sizeof(space), "%d", budget);
	if (wr(fault(attr, "space"), space) ||
	    wr(fault(attr, "times"), "1000000") ||
	    wr(fault(attr, "interval"), "1") ||
	    wr(fault(attr, "task-filter"), "Y") ||
	    wr(fault(attr, "probability"), "100"))
		return EIO;
	fd = open(path, O_WRONLY | O_TRUNC);
	mfd = open("/proc/thread-self/make-it-fail", O_WRONLY);
	if (fd < 0 || mfd < 0) {
		err = errno;
		goto out;
	}
	if (write(mfd, "1", 1) != 1) {
		err = errno;
		goto out;
	}
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	if (write(mfd, "0", 1) != 1 && !err)
		err = errno;
out:
	if (fd >= 0)
		close(fd);
	if (mfd >= 0)
		close(mfd);
	wr(fault(attr, "probability"), "0");
	wr(fault(attr, "task-filter"), "N");
	wr(fault(attr, "space"), "0");
	*injected = rd(fault(attr, "times")) > 0 && atoi(buf) != 1000000;
	return err;
}

/* What every buffer of the history looks like from the outside */
struct sizes {
	char size[32], subbuf[32], total[32], cpus[128];
};

static void sizes(struct sizes *s)
{
	char path[64];
	int cpu;

	rd(T "buffer_size_kb");
	snprintf(s->size, sizeof(s->size), "%.31s", buf);
	rd(T "buffer_subbuf_size_kb");
	snprintf(s->subbuf, sizeof(s->subbuf), "%.31s", buf);
	rd(T "buffer_total_size_kb");
	snprintf(s->total, sizeof(s->total), "%.31s", buf);
	s->cpus[0] = '\0';
	for (cpu = 0; cpu < 8; cpu++) {
		snprintf(path, sizeof(path), T "per_cpu/cpu%d/buffer_size_kb",
			 cpu);
		if (rd(path) < 0)
			break;
		snprintf(s->cpus + strlen(s->cpus),
			 sizeof(s->cpus) - strlen(s->cpus), "%.15s", buf);
	}
}

static int same(const struct sizes *a, const struct sizes *b)
{
	return !strcmp(a->size, b->size) && !strcmp(a->subbuf, b->subbuf) &&
	       !strcmp(a->total, b->total) && !strcmp(a->cpus, b->cpus);
}

/* Whether the kernel has warned (taint W) */
static int warned(void)
{
	return rd("/proc/sys/kernel/tainted") > 0 && (atol(buf) & 512);
}

/*
 * Fails each allocation of a change from @was to @val in turn, the 1st,
 * the 2nd, ..., until the change makes no N-th allocation. With @attr
 * ("failslab" or "fail_page_alloc"), fails every allocation of that kind
 * past a budget of 0, 1, 2, ... times @step instead, until the
 * change is made: what would undo a half-made change fails too. A failed
 * change must be ENOMEM and leave every buffer of the history as it was,
 * tracing on (the debug kernel also fails the run on the WARN of a
 * failed roll-back); a change that absorbed the failure must have been
 * made, and is undone for the next round (a sub-buffer change and back
 * may round the size: each round compares with its own start). Returns
 * the number of ENOMEMs.
 */
static int sweep(struct __test_metadata *_metadata, const char *file,
		 const char *was, const char *val, const char *attr, int step)
{
	struct sizes old, now;
	int nth, err, injected, enomem = 0;
	int had_warned = warned();

	for (nth = 1; nth < 20000; nth++) {
		sizes(&old);
		if (!attr)
			err = wr_failing(file, val, nth, &injected);
		else
			err = wr_failing_after(file, val, attr,
					       (nth - 1) * step, &injected);
		sizes(&now);
		if (!had_warned && warned()) {
			TH_LOG("%s: allocation %d failed and the kernel warned",
			       file, nth);
			return -1;
		}
		if (!injected) {
			if (err || same(&old, &now)) {
				TH_LOG("%s: without a failure: %s, %s KB", file,
				       strerror(err), now.total);
				return -1;
			}
			return enomem;
		}
		if (!err) {
			/* The failure was absorbed: the change was made */
			if (same(&old, &now)) {
				TH_LOG("%s: allocation %d absorbed, nothing changed",
				       file, nth);
				return -1;
			}
			/* Past the budget every allocation fails: done */
			if (attr)
				return enomem;
			if (wr(file, was)) {
				TH_LOG("%s: cannot undo to %s", file, was);
				return -1;
			}
		} else if (err != ENOMEM) {
			TH_LOG("%s: allocation %d failed: %s, not ENOMEM",
			       file, nth, strerror(err));
			return -1;
		} else if (!same(&old, &now)) {
			TH_LOG("%s: allocation %d failed and changed the sizes: total %.20s KB, was %.20s",
			       file, nth, now.total, old.total);
			return -1;
		} else {
			enomem++;
		}
		if (!has(T "tracing_on", "1")) {
			TH_LOG("%s: allocation %d failed and turned tracing off",
			       file, nth);
			return -1;
		}
	}
	TH_LOG("%s: still allocating after %d failures", file, nth);
	return -1;
}

TEST_F_TIMEOUT(snap, a_failed_allocation_anywhere_leaves_every_buffer_as_it_was, 600)
{
	int failures;

	if (!exists("/proc/thread-self/fail-nth") || !exists(FAULT "failslab"))
		SKIP(return, "no fault injection (the debug kernel has it)");
	ASSERT_EQ(0, fault_setup());
	ASSERT_EQ(0, wr(T "buffer_size_kb", "64"));
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, snap("F1"));
	ASSERT_EQ(0, snap("F2"));
	ASSERT_EQ(0, snap("F3"));

	failures = sweep(_metadata, T "buffer_size_kb", "64", "128", NULL, 0);
	ASSERT_LT(0, failures);
	TH_LOG("buffer_size_kb: %d allocations failed in turn", failures);
	ASSERT_EQ(0, wr(T "buffer_size_kb", "128"));
	/* A resize keeps what the buffers hold */
	EXPECT_STREQ("F3", tags(T "snapshot", "F"));
	EXPECT_STREQ("F2", tags(T "snapshots/1", "F"));
	EXPECT_STREQ("F1", tags(T "snapshots/2", "F"));
	/* 128 KB in whole sub-buffers: at least 128 */
	ASSERT_LT(0, rd(T "buffer_size_kb"));
	ASSERT_LE(128, atoi(buf));

	/* And the history works on */
	ASSERT_EQ(0, snap("F4"));
	ASSERT_EQ(0, snap("F5"));
	EXPECT_STREQ("F5", tags(T "snapshot", "F"));
	EXPECT_STREQ("F4", tags(T "snapshots/1", "F"));
}

/*
 * The same for a sub-buffer change, on small buffers. Each round changes
 * the order of every buffer twice, with grace periods: under TCG on the
 * debug kernel the sweep outlasts 15 minutes, so it runs only with
 * SWEEP_SUBBUF=1. The harness's SIGKILL at the timeout once came in the
 * middle of a change: __rb_allocate_pages() gives up on a fatal signal,
 * so the roll-back failed too, and WARNed.
 */
TEST_F_TIMEOUT(snap, a_failed_subbuf_change_anywhere_leaves_every_buffer_as_it_was, 3600)
{
	int failures;

	if (!exists("/proc/thread-self/fail-nth") || !exists(FAULT "failslab"))
		SKIP(return, "no fault injection (the debug kernel has it)");
	if (!getenv("SWEEP_SUBBUF"))
		SKIP(return, "over 15 minutes under TCG: SWEEP_SUBBUF=1 runs it");
	ASSERT_EQ(0, fault_setup());
	ASSERT_EQ(0, wr(T "buffer_size_kb", "16"));
	ASSERT_EQ(0, wr(T "snapshot_depth", "2"));
	ASSERT_EQ(0, snap("F1"));
	ASSERT_EQ(0, snap("F2"));
	failures = sweep(_metadata, T "buffer_subbuf_size_kb", "4", "8", NULL, 0);
	ASSERT_LT(0, failures);
	TH_LOG("buffer_subbuf_size_kb: %d allocations failed in turn", failures);
	ASSERT_TRUE(has(T "buffer_subbuf_size_kb", "8"));
	ASSERT_EQ(0, snap("F3"));
	EXPECT_STREQ("F3", tags(T "snapshot", "F"));
	EXPECT_STREQ("F2", tags(T "snapshots/1", "F"));
}

/*
 * Slab objects (the sub-buffers' descriptors; "space" counts bytes) and
 * pages (their data; "space" counts pages)
 */
static const struct {
	const char *attr;
	int step;
} kinds[] = { { "failslab", 64 }, { "fail_page_alloc", 1 } };

/*
 * A sub-buffer change fails part way, and every allocation after it
 * fails too, as on a machine out of memory: the buffers changed so far
 * cannot be changed back by allocating again. Nothing may change, with
 * no warning and tracing on.
 */
TEST_F_TIMEOUT(snap, a_failed_subbuf_change_that_cannot_be_undone_changes_nothing, 900)
{
	int failures, i;

	if (!exists("/proc/thread-self/make-it-fail") || !exists(FAULT "failslab"))
		SKIP(return, "no fault injection (the debug kernel has it)");
	ASSERT_EQ(0, fault_setup());
	ASSERT_EQ(0, wr(T "buffer_size_kb", "16"));
	ASSERT_EQ(0, wr(T "snapshot_depth", "2"));
	ASSERT_EQ(0, snap("F1"));
	ASSERT_EQ(0, snap("F2"));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, wr(T "buffer_subbuf_size_kb", "4"));
		failures = sweep(_metadata, T "buffer_subbuf_size_kb", NULL,
				 "8", kinds[i].attr, kinds[i].step);
		ASSERT_LT(0, failures);
		TH_LOG("buffer_subbuf_size_kb, %s: %d budgets ran out",
		       kinds[i].attr, failures);
		ASSERT_TRUE(has(T "buffer_subbuf_size_kb", "8"));
	}
	ASSERT_EQ(0, snap("F3"));
	EXPECT_STREQ("F3", tags(T "snapshot", "F"));
}

/*
 * The same for a resize that grows one CPU's buffers and shrinks
 * another's: undoing the shrink allocates.
 */
TEST_F_TIMEOUT(snap, a_failed_resize_that_cannot_be_undone_changes_nothing, 900)
{
	int failures, i;

	if (!exists("/proc/thread-self/make-it-fail") || !exists(FAULT "failslab"))
		SKIP(return, "no fault injection (the debug kernel has it)");
	if (!exists(T "per_cpu/cpu1"))
		SKIP(return, "one CPU: no CPU to shrink while another grows");
	ASSERT_EQ(0, fault_setup());
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, snap("F1"));
	ASSERT_EQ(0, snap("F2"));
	ASSERT_EQ(0, snap("F3"));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, wr(T "buffer_size_kb", "128"));
		ASSERT_EQ(0, wr(T "per_cpu/cpu0/buffer_size_kb", "32"));
		failures = sweep(_metadata, T "buffer_size_kb", NULL, "64",
				 kinds[i].attr, kinds[i].step);
		ASSERT_LT(0, failures);
		TH_LOG("buffer_size_kb, %s: %d budgets ran out",
		       kinds[i].attr, failures);
		ASSERT_LT(0, rd(T "buffer_size_kb"));
		ASSERT_LE(64, atoi(buf));
		ASSERT_GT(128, atoi(buf));
	}
	/* A resize keeps what the buffers hold */
	EXPECT_STREQ("F3", tags(T "snapshot", "F"));
	EXPECT_STREQ("F2", tags(T "snapshots/1", "F"));
	EXPECT_STREQ("F1", tags(T "snapshots/2", "F"));
	ASSERT_EQ(0, snap("F4"));
	EXPECT_STREQ("F4", tags(T "snapshot", "F"));
}

TEST_F(snap, a_reader_of_a_dropped_snapshot_never_sees_live_events)
{
	ssize_t len = 0;
	int fd;

	ASSERT_EQ(0, wr(T "snapshot_depth", "2"));
	ASSERT_EQ(0, snap("X1"));
	ASSERT_EQ(0, snap("X2"));
	ASSERT_LE(0, fd = open(T "snapshots/1", O_RDONLY));
	/* The header only, then its buffer becomes the live one */
	ASSERT_LT(0, len = read(fd, buf, 20));
	ASSERT_EQ(0, snap("X3"));
	mark("LIVE-EVENT");
	read_on(fd, len);
	EXPECT_EQ(NULL, strstr(buf, "LIVE-EVENT"));
	EXPECT_EQ(NULL, strstr(buf, "X3\n"));
	/* The reader has let go of the live buffer */
	EXPECT_EQ(0, wr(T "buffer_size_kb", "512"));
	close(fd);
}

TEST_F(snap, depth_change_is_ebusy_while_a_snapshot_file_is_open)
{
	int fd;

	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_LE(0, fd = open(T "snapshot", O_RDONLY));
	EXPECT_EQ(EBUSY, wr(T "snapshot_depth", "2"));
	EXPECT_EQ(3, depth());
	close(fd);
	EXPECT_EQ(0, wr(T "snapshot_depth", "2"));
}

TEST_F(snap, poll_counts_only_reads_from_offset_0)
{
	int fd;

	ASSERT_EQ(0, snap("P0"));
	ASSERT_LE(0, fd = open(T "snapshot", O_RDONLY));
	ASSERT_EQ(0, snap("P1"));
	ASSERT_TRUE(snapped(fd, 2000));
	/* A read from 0 sees the notification... */
	ASSERT_EQ(50, read(fd, buf, 50));
	ASSERT_FALSE(snapped(fd, 200));
	/* ...a read further on does not use up the next one */
	ASSERT_EQ(0, snap("P2"));
	read(fd, buf, 50);
	EXPECT_TRUE(snapped(fd, 2000));
	close(fd);
}

/*
 * For POLLIN and POLLOUT a snapshot file answers as 6.12's, which had no
 * poll(): ready at once, with or without a new snapshot.
 */
TEST_F(snap, poll_for_pollin_is_ready_at_once_as_in_6_12)
{
	struct pollfd p = { .events = POLLIN };

	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_LE(0, p.fd = open(T "snapshot", O_RDONLY));
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_EQ(POLLIN, p.revents);
	ASSERT_EQ(0, snap("I1"));
	p.events = POLLIN | POLLPRI;
	EXPECT_EQ(1, poll(&p, 1, 2000));
	EXPECT_EQ(POLLIN | POLLPRI, p.revents);
	close(p.fd);
}

TEST_F(snap, poll_reports_a_snapshot_file_writable)
{
	struct pollfd p = { .events = POLLOUT };

	ASSERT_LE(0, p.fd = open(T "snapshot", O_RDWR));
	EXPECT_EQ(1, poll(&p, 1, 1000));
	EXPECT_TRUE(p.revents & POLLOUT);
	close(p.fd);
	ASSERT_LE(0, p.fd = open(T "snapshot", O_WRONLY));
	p.revents = 0;
	EXPECT_EQ(1, poll(&p, 1, 1000));
	EXPECT_TRUE(p.revents & POLLOUT);
	close(p.fd);
}

/*
 * A blocking read of @path (a per_cpu/cpuN/..._raw file); 0 once it returned
 * data. It says "o" on @ready just before it reads.
 */
static int read_raw(const char *path, int ready)
{
	static char page[1 << 16];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 2;
	alarm(5);
	if (write(ready, "o", 1) != 1)
		return 3;
	return read(fd, page, sizeof(page)) > 0 ? 0 : 1;
}

TEST_F(snap, a_blocked_snapshot_raw_reader_is_woken_at_depth_above_1)
{
	int status, ready[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_EQ(0, wr(T "snapshot", "2"));
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		_exit(read_raw(T "per_cpu/cpu0/snapshot_raw", ready[1]));
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	/* Proof that it blocked in read(), not that it was slow to start */
	ASSERT_TRUE(sleeping(pid)) TH_LOG("the reader never blocked");
	ASSERT_EQ(0, snap("RAW"));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("the reader was not woken in 5 s");
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * Blocking splice()s of per_cpu/cpu0/trace_pipe_raw until one moves data;
 * each that returns 0 is counted in *@zeros. Says "o" on @ready first.
 */
static int splice_until_data(int ready, int *zeros)
{
	int fd = open(T "per_cpu/cpu0/trace_pipe_raw", O_RDONLY);
	int p[2];
	ssize_t n;

	if (fd < 0 || pipe(p))
		return 2;
	alarm(10);
	if (write(ready, "o", 1) != 1)
		return 3;
	while ((n = splice(fd, NULL, p[1], NULL, 1 << 16, 0)) == 0)
		__atomic_add_fetch(zeros, 1, __ATOMIC_SEQ_CST);
	return n > 0 ? 0 : 4;
}

/*
 * A snapshot wakes the readers asleep on the live buffer, so that they
 * read on in the new one; one that splices must wait on there, not
 * return 0 (trace-cmd record then spins on a hot trigger).
 */
TEST_F(snap, a_splice_reader_sleeps_on_through_snapshots)
{
	int d, i, status, ready[2], *zeros;
	char depth_s[4];
	pid_t pid;
	char c;

	zeros = mmap(NULL, sizeof(*zeros), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, zeros);
	ASSERT_EQ(0, wr(T "buffer_percent", "0"));
	for (d = 1; d <= 3; d += 2) {
		snprintf(depth_s, sizeof(depth_s), "%d", d);
		ASSERT_EQ(0, wr(T "snapshot_depth", depth_s));
		ASSERT_EQ(0, wr(T "snapshot", "1"));
		ASSERT_EQ(0, wr(T "trace", ""));
		*zeros = 0;
		ASSERT_EQ(0, pipe(ready));
		pid = fork();
		if (pid == 0) {
			close(ready[0]);
			_exit(splice_until_data(ready[1], zeros));
		}
		close(ready[1]);
		ASSERT_EQ(1, read(ready[0], &c, 1));
		close(ready[0]);
		ASSERT_TRUE(sleeping(pid)) TH_LOG("the splice never blocked");
		for (i = 0; i < 20; i++)
			ASSERT_EQ(0, wr(T "snapshot", "1"));
		usleep(200 * 1000);
		EXPECT_EQ(0, __atomic_load_n(zeros, __ATOMIC_SEQ_CST))
			TH_LOG("depth %d: splice returned 0 after a snapshot", d);
		EXPECT_TRUE(sleeping(pid));
		/*
		 * It still reads the live buffer: markers that fill a page end
		 * its wait (splice() moves whole pages only)
		 */
		for (i = 0; i < 200; i++)
			mark("SPLICED 0123456789abcdef0123456789abcdef");
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status))
			TH_LOG("depth %d: no data after a marker in 10 s", d);
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	munmap(zeros, sizeof(*zeros));
}

/* Reads @fd (non-blocking) until it is empty; returns whether @needle was read */
static int drain(int fd, const char *needle)
{
	int found = 0;
	ssize_t n;

	/* memmem(): trace_pipe_raw gives binary pages */
	while ((n = read(fd, buf, BUFSZ - 1)) > 0)
		found |= !!memmem(buf, n, needle, strlen(needle));
	return found;
}

/*
 * An epoll entry stays on the wait queue it was added to, and a snapshot
 * moves that queue's buffer out of the live role: the entry on @path must
 * still be woken by what is written to the live buffer afterwards, at
 * depth 1 and 3.
 */
static void epoll_follows_the_live_buffer(struct __test_metadata *_metadata,
					  const char *path)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int d, i, ep, fd;
	char depth_s[4], tag[16];

	for (d = 1; d <= 3; d += 2) {
		snprintf(depth_s, sizeof(depth_s), "%d", d);
		ASSERT_EQ(0, wr(T "snapshot_depth", depth_s));
		ASSERT_EQ(0, wr(T "snapshot", "1"));
		ASSERT_LE(0, fd = open(path, O_RDONLY | O_NONBLOCK));
		ASSERT_LE(0, ep = epoll_create1(0));
		ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
		drain(fd, "");
		for (i = 0; i < d + 1; i++) {
			snprintf(tag, sizeof(tag), "OLD%d", i);
			ASSERT_EQ(0, snap(tag));
			drain(fd, "");
			ASSERT_EQ(0, epoll_wait(ep, &ev, 1, 0))
				TH_LOG("%s, depth %d: readable, nothing to read", path, d);
			snprintf(tag, sizeof(tag), "NEW%d", i);
			mark(tag);
			EXPECT_EQ(1, epoll_wait(ep, &ev, 1, 2000))
				TH_LOG("%s, depth %d, snapshot %d: no wake-up", path, d, i);
			EXPECT_TRUE(drain(fd, tag));
		}
		close(ep);
		close(fd);
	}
}

TEST_F(snap, epoll_on_trace_pipe_follows_the_live_buffer)
{
	epoll_follows_the_live_buffer(_metadata, T "trace_pipe");
}

/*
 * The same for a reader of one CPU, as trace-cmd record and perf poll:
 * its entry is on that CPU's queue, which every buffer of the instance
 * wakes with its own waiters of the CPU.
 */
TEST_F(snap, epoll_on_a_cpu_trace_pipe_raw_follows_the_live_buffer)
{
	/* Woken by each event, not at a watermark */
	ASSERT_EQ(0, wr(T "buffer_percent", "0"));
	epoll_follows_the_live_buffer(_metadata, T "per_cpu/cpu0/trace_pipe_raw");
}

/* Marks "<tag>0" from CPU 0 (this task) and "<tag>1" from CPU 1 */
static void mark_both(const char *tag)
{
	static char m1[16];
	char m0[16];

	snprintf(m0, sizeof(m0), "%s0", tag);
	snprintf(m1, sizeof(m1), "%s1", tag);
	mark(m0);
	marker_cpu1 = m1;
	on_cpu(1, mark_from_here);
}

/*
 * A read of "snapshot" that goes on after the next snapshot ends there:
 * max_buffer holds the new one, and what is left of the old one is
 * snapshots/1 now. Reading on over the old buffer while the reader tests
 * the new one for emptiness showed the old events of only the CPUs that
 * have events in the new snapshot.
 */
TEST_F(snap, a_read_of_snapshot_ends_at_the_next_snapshot)
{
	ssize_t len = 0;
	int fd;

	if (!has_cpu1())
		SKIP(return, "one CPU: the old snapshot needs events of two");
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	mark_both("RA");
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_LE(0, fd = open(T "snapshot", O_RDONLY));
	/* The header only */
	ASSERT_LT(0, len = read(fd, buf, 20));
	/* The next snapshot has events of CPU 0 only */
	ASSERT_EQ(0, snap("RB0"));
	read_on(fd, len);
	close(fd);
	EXPECT_EQ(NULL, strstr(buf, "RA0\n"));
	EXPECT_EQ(NULL, strstr(buf, "RA1\n"));
	EXPECT_EQ(NULL, strstr(buf, "RB0\n"));
	/* snapshots/1 has the whole old snapshot */
	EXPECT_STREQ("RA0 RA1", tags(T "snapshots/1", "RA"));
}

/*
 * An open "trace" reads on across a snapshot in the buffer it opened on,
 * as in 6.12. The buffer that comes in as live has its old events
 * hidden: asked whether a CPU is empty in place of the buffer that the
 * reader's iterators walk, it made the reader skip every CPU.
 */
TEST_F(snap, an_open_trace_reads_on_across_a_snapshot)
{
	ssize_t len = 0;
	int fd;

	if (!has_cpu1())
		SKIP(return, "one CPU: the trace needs events of two");
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	mark_both("TR");
	ASSERT_LE(0, fd = open(T "trace", O_RDONLY));
	/* The header only */
	ASSERT_LT(0, len = read(fd, buf, 20));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	read_on(fd, len);
	close(fd);
	EXPECT_NE(NULL, strstr(buf, "TR0\n"));
	EXPECT_NE(NULL, strstr(buf, "TR1\n"));
}

/*
 * Each CPU buffer hides what it held by its own position: a CPU whose clock
 * lags or leads must neither lose the events written after a snapshot
 * nor show those written before. Every trace_clock the kernel offers,
 * with markers from two CPUs around each snapshot. On the debug kernel
 * under TCG it takes about 17 s alone, and outlasted the default 30 s
 * next to another guest.
 */
TEST_F_TIMEOUT(snap, old_events_stay_hidden_per_cpu_under_every_clock, 120)
{
	char clocks[256], *clock, *save, want[16];
	int d, i;

	if (!has_cpu1())
		SKIP(return, "one CPU");
	ASSERT_LT(0, rd(T "trace_clock"));
	snprintf(clocks, sizeof(clocks), "%s", buf);
	for (clock = strtok_r(clocks, " \n", &save); clock;
	     clock = strtok_r(NULL, " \n", &save)) {
		if (clock[0] == '[')
			memmove(clock, clock + 1, strlen(clock));
		clock[strcspn(clock, "]")] = '\0';
		ASSERT_EQ(0, wr(T "trace_clock", clock)) TH_LOG("clock %s", clock);
		for (d = 1; d <= 3; d += 2) {
			snprintf(want, sizeof(want), "%d", d);
			ASSERT_EQ(0, wr(T "snapshot_depth", want));
			ASSERT_EQ(0, wr(T "snapshot", "1"));
			ASSERT_EQ(0, wr(T "snapshot", "2"));
			ASSERT_EQ(0, wr(T "trace", ""));
			/* d + 1 snapshots: the first buffer comes back live */
			for (i = 0; i <= d; i++) {
				snprintf(want, sizeof(want), "OLD%c", 'a' + i);
				mark_both(want);
				ASSERT_EQ(0, wr(T "snapshot", "1"));
			}
			mark_both("NEW");
			EXPECT_EQ(1, count(T "trace", "NEW0"))
				TH_LOG("clock %s, depth %d: CPU 0's new marker", clock, d);
			EXPECT_EQ(1, count(T "trace", "NEW1"))
				TH_LOG("clock %s, depth %d: CPU 1's new marker", clock, d);
			EXPECT_EQ(0, count(T "trace", "OLD"))
				TH_LOG("clock %s, depth %d: an old marker in trace", clock, d);
		}
	}
}

/*
 * The "uptime" clock counts jiffies, so an event written right after a
 * buffer comes back live usually has the stamp of the newest event it
 * hides. What is hidden is bounded by position, not by stamp: the new
 * event shows, every time.
 */
TEST_F(snap, a_new_event_in_the_tick_of_the_hidden_ones_shows)
{
	int i, lost = 0;

	ASSERT_EQ(0, wr(T "trace_clock", "uptime"));
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(0, wr(T "trace", ""));
		mark("OLD");
		/* The second swap brings the buffer that holds OLD back */
		ASSERT_EQ(0, wr(T "snapshot", "1"));
		ASSERT_EQ(0, wr(T "snapshot", "1"));
		mark("NEW");
		if (count(T "trace", "NEW") != 1)
			lost++;
		EXPECT_EQ(0, count(T "trace", "OLD"));
	}
	EXPECT_EQ(0, lost) TH_LOG("%d of 20 new markers hidden", lost);
}

/*
 * "echo 2" clears every snapshot of the history at once, and a reader
 * that has "snapshot" open reads it again from the start without the
 * header of the snapshot that was cleared.
 */
TEST_F(snap, clear_hides_every_snapshot_and_its_header_from_open_readers)
{
	int fd;

	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, snap("C1"));
	ASSERT_EQ(0, snap("C2"));
	ASSERT_EQ(0, snap("C3"));
	ASSERT_LE(0, fd = open(T "snapshot", O_RDONLY));
	ASSERT_LT(0, read(fd, buf, 64));
	ASSERT_EQ(0, wr(T "snapshot", "2"));
	ASSERT_LE(0, pread(fd, buf, BUFSZ - 1, 0));
	close(fd);
	EXPECT_EQ(NULL, strstr(buf, "# snapshot: #"))
		TH_LOG("an open reader kept the cleared snapshot's header");
	EXPECT_EQ(NULL, strstr(buf, "C3"));
	EXPECT_EQ(0, count(T "snapshot", "C3"));
	EXPECT_EQ(0, count(T "snapshots/1", "C2"));
	EXPECT_EQ(0, count(T "snapshots/2", "C1"));
	EXPECT_EQ(0, count(T "snapshot", "# snapshot: #"));
	/* Live tracing goes on, and the next snapshot is numbered on */
	ASSERT_EQ(0, snap("C4"));
	EXPECT_EQ(1, count(T "snapshot", "C4"));
	EXPECT_EQ(0, count(T "snapshots/1", "C3"));
}

/*
 * "echo 2" while a hot trigger rotates the buffers: the clear must leave
 * the live buffer recording. A smoke case: the race is narrow.
 */
TEST_F_TIMEOUT(snap, clear_under_a_hot_trigger_keeps_live_tracing, 120)
{
	pid_t sw;
	int i;

	ASSERT_EQ(0, wr(T "snapshot_depth", "8"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_EQ(0, wr(T "events/sched/sched_switch/trigger",
			"snapshot if prev_comm == \"snapswitch\""));
	sw = start_switcher(5);
	ASSERT_LT(0, sw);
	for (i = 0; i < 100; i++)
		ASSERT_EQ(0, wr(T "snapshot", "2"));
	waitpid(sw, NULL, 0);
	ASSERT_EQ(0, wr_append(T "events/sched/sched_switch/trigger",
			       "!snapshot if prev_comm == \"snapswitch\""));
	mark("ALIVE");
	EXPECT_EQ(1, count(T "trace", "ALIVE"));
	EXPECT_EQ(0, rd(T "tracing_on") > 0 ? strncmp(buf, "1", 1) : -1);
}

/*
 * Forks a blocking read_raw() of @path, and returns once it is asleep in
 * its read, or -1.
 */
static pid_t start_raw_reader(const char *path)
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		_exit(read_raw(path, ready[1]));
	}
	close(ready[1]);
	if (pid < 0 || read(ready[0], &c, 1) != 1 || !sleeping(pid)) {
		if (pid > 0)
			kill(pid, SIGKILL);
		pid = -1;
	}
	close(ready[0]);
	return pid;
}

/* Whether the reader @pid exits 0 (it read data) within its 5 s */
static int reader_got_data(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

/*
 * A per-CPU snapshot swaps one CPU's buffers, and their wait queues with
 * them: its header says so, and the readers asleep in either role are
 * woken to read on in the CPU buffer that their file reads now.
 */
TEST_F(snap, a_per_cpu_snapshot_says_so_and_wakes_both_roles)
{
	pid_t pid;

	if (!exists(T "per_cpu/cpu0/snapshot"))
		SKIP(return, "no per-CPU snapshot files");
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	mark("PCPU1");
	ASSERT_EQ(0, wr(T "per_cpu/cpu0/snapshot", "1"));
	EXPECT_EQ(1, count(T "snapshot", " by cpu-file on CPU 0"))
		TH_LOG("the header: %.200s", (rd(T "snapshot"), buf));

	/* A live reader, asleep on the CPU buffer that the swap moves */
	ASSERT_EQ(0, wr(T "buffer_percent", "0"));
	ASSERT_EQ(0, wr(T "trace", ""));
	ASSERT_LT(0, pid = start_raw_reader(T "per_cpu/cpu0/trace_pipe_raw"));
	ASSERT_EQ(0, wr(T "per_cpu/cpu0/snapshot", "1"));
	ASSERT_EQ(0, wr(T "trace", ""));
	mark("PCPU2");
	EXPECT_TRUE(reader_got_data(pid))
		TH_LOG("the trace_pipe_raw reader missed a marker after the swap");

	/* A snapshot_raw reader, asleep until the swap brings data in */
	ASSERT_EQ(0, wr(T "per_cpu/cpu0/snapshot", "2"));
	mark("PCPU3");
	ASSERT_LT(0, pid = start_raw_reader(T "per_cpu/cpu0/snapshot_raw"));
	ASSERT_EQ(0, wr(T "per_cpu/cpu0/snapshot", "1"));
	EXPECT_TRUE(reader_got_data(pid))
		TH_LOG("the snapshot_raw reader was not woken by the swap");
}

static long total_kb(void)
{
	return rd(T "buffer_total_size_kb") > 0 ? atol(buf) : -1;
}

/* A field of /proc/meminfo, in KB, or -1 */
static long meminfo_kb(const char *field)
{
	char *p;

	if (rd("/proc/meminfo") < 0 || !(p = strstr(buf, field)))
		return -1;
	return atol(p + strlen(field) + 1);
}

/*
 * buffer_total_size_kb counts every buffer of the history, and only once
 * the snapshot is allocated, parked ones included (a page per CPU each,
 * after "echo 0"; earlier tests may have parked more).
 */
TEST_F(snap, buffer_total_size_kb_counts_the_whole_history)
{
	/* The smallest buffer: a few pages per CPU */
	long page = 8 * sysconf(_SC_NPROCESSORS_ONLN);
	long live, t1, t3, parked;

	ASSERT_LT(0, live = total_kb());
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	EXPECT_EQ(live, total_kb()) TH_LOG("no snapshot allocated yet");
	ASSERT_EQ(0, wr(T "snapshot_depth", "1"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	t1 = total_kb();
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	t3 = total_kb();
	TH_LOG("live %ld KB; with the snapshot %ld KB; at depth 3 %ld KB", live, t1, t3);
	/* Parked buffers, a page each: this test parked two */
	parked = t1 - 2 * live;
	EXPECT_LE(2 * page / 4, parked);
	EXPECT_GE(31 * page, parked);
	/* Two of them came back at full size */
	EXPECT_GE(parked, t3 - 4 * live);
	EXPECT_LE(parked - 2 * page, t3 - 4 * live);
	ASSERT_EQ(0, wr(T "snapshot_depth", "2"));
	EXPECT_EQ(t3, total_kb())
		TH_LOG("a lower depth parks a buffer, which keeps its memory");
	ASSERT_EQ(0, wr(T "snapshot", "0"));
	EXPECT_EQ(live, total_kb()) TH_LOG("echo 0 gives the memory back");

	/* Without a history, as in 6.12: "snapshot" is not counted */
	rmdir(T "instances/total_abi");
	ASSERT_EQ(0, mkdir(T "instances/total_abi", 0755));
	rd(T "instances/total_abi/buffer_total_size_kb");
	live = atol(buf);
	ASSERT_EQ(0, wr(T "instances/total_abi/snapshot", "1"));
	EXPECT_EQ(live, rd(T "instances/total_abi/buffer_total_size_kb") > 0 ? atol(buf) : -1)
		TH_LOG("depth 1 with a snapshot reads as in 6.12");
	ASSERT_EQ(0, wr(T "instances/total_abi/snapshot", "0"));
	ASSERT_EQ(0, rmdir(T "instances/total_abi"));
}

/*
 * A depth whose buffers the memory cannot hold is ENOMEM, and nothing
 * changes: the depth, the snapshot, the total and live tracing.
 */
TEST_F_TIMEOUT(snap, a_depth_that_does_not_fit_is_enomem_and_changes_nothing, 600)
{
	long avail = meminfo_kb("MemAvailable:"), ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long total;
	char size[32];

	ASSERT_LT(0, avail);
	/* Two parked buffers, a page each, that a higher depth takes first */
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, wr(T "snapshot_depth", "1"));
	/* live + snapshot take half of what is available; 5 buffers cannot fit */
	snprintf(size, sizeof(size), "%ld", avail / 4 / ncpu);
	ASSERT_EQ(0, wr(T "buffer_size_kb", size));
	ASSERT_EQ(0, snap("FIT"));
	total = total_kb();
	TH_LOG("%ld KB available; %s KB per CPU; total %ld KB", avail, size, total);
	EXPECT_EQ(ENOMEM, wr(T "snapshot_depth", "5"));
	EXPECT_EQ(1, depth());
	EXPECT_EQ(total, total_kb());
	EXPECT_EQ(1, count(T "snapshot", "FIT"));
	EXPECT_FALSE(exists(T "snapshots/1"));
	mark("STILL");
	EXPECT_EQ(1, count(T "trace", "STILL"));
	ASSERT_EQ(0, wr(T "snapshot", "0"));
	ASSERT_EQ(0, wr(T "buffer_size_kb", "1408"));
}

/* Markers "<tag>" on CPU 0 until its buffer has surely wrapped or filled */
static void fill_cpu0(const char *tag)
{
	int i;

	for (i = 0; i < 1500; i++)
		mark(tag);
}

/*
 * A buffer that comes back into live use full of old events: without
 * overwrite they would keep out every new event, and a reader that waits
 * must drop them first, not sleep on a buffer it thinks empty.
 */
TEST_F_TIMEOUT(snap, without_overwrite_old_events_make_room_for_a_waiting_reader, 120)
{
	pid_t pid;

	ASSERT_EQ(0, wr(T "options/overwrite", "0"));
	ASSERT_EQ(0, wr(T "buffer_size_kb", "64"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_EQ(0, wr(T "trace", ""));
	fill_cpu0("FILL-A 0123456789abcdef0123456789abcdef");
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	fill_cpu0("FILL-B 0123456789abcdef0123456789abcdef");
	/* The buffer full of FILL-A is live again, its events hidden */
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_LT(0, pid = start_raw_reader(T "trace_pipe"));
	mark("AFTER");
	EXPECT_TRUE(reader_got_data(pid))
		TH_LOG("the new marker found no room, and the reader slept on");
}

/* Instances with a history, triggers and snapshots, created and removed */
TEST_F_TIMEOUT(snap, instances_come_and_go_with_their_history, 300)
{
	const char *I = T "instances/hist_loop/";
	char p[128];
	int i;

	for (i = 0; i < 20; i++) {
		rmdir(T "instances/hist_loop");
		ASSERT_EQ(0, mkdir(T "instances/hist_loop", 0755));
		snprintf(p, sizeof(p), "%ssnapshot_depth", I);
		ASSERT_EQ(0, wr(p, i % 2 ? "3" : "1"));
		snprintf(p, sizeof(p), "%sevents/ftrace/print/trigger", I);
		ASSERT_EQ(0, wr(p, "snapshot"));
		snprintf(p, sizeof(p), "%strace_marker", I);
		wr(p, "instance hit");
		wr(p, "instance hit");
		snprintf(p, sizeof(p), "%ssnapshot", I);
		ASSERT_EQ(0, wr(p, "1"));
		ASSERT_EQ(0, rmdir(T "instances/hist_loop"));
	}
}

/*
 * echo 0 with a snapshot trigger armed: EBUSY, and live tracing goes on.
 * Freed under the trigger, the next hit found no snapshot and turned
 * tracing off.
 */
/*
 * "echo 0 > snapshot" frees the snapshot under an armed trigger, as 6.12
 * does. The trigger's later hits are counted as dropped and tracing goes
 * on (6.12 turned it off at the next hit); "echo 1" allocates it again.
 */
TEST_F(snap, free_under_an_armed_trigger_frees_and_counts_later_hits)
{
	const char *trig = T "events/sched/sched_process_fork/trigger";
	const char *depth[] = { "1", "8" };
	int i;

	for (i = 0; i < 2; i++) {
		reset();
		ASSERT_EQ(0, wr(T "snapshot_depth", depth[i]));
		ASSERT_EQ(0, wr_append(trig, "snapshot"));
		EXPECT_EQ(0, wr(T "snapshot", "0")) TH_LOG("depth %s", depth[i]);
		EXPECT_TRUE(has(T "snapshot", "Snapshot is freed"));
		mark("FREE1");
		fork_one();
		mark("FREE2");
		EXPECT_TRUE(has(T "tracing_on", "1"))
			TH_LOG("depth %s: a hit after the free turned tracing off", depth[i]);
		EXPECT_TRUE(has(T "trace", "FREE2"));
		EXPECT_FALSE(has(T "trace", "SNAPSHOT NOT ALLOCATED"));
		/* Allocated again: the hit is in the header, the next one snapshots */
		ASSERT_EQ(0, wr(T "snapshot", "1"));
		EXPECT_TRUE(has(T "snapshot", "# snapshots dropped: "))
			TH_LOG("depth %s: the hit after the free was not counted", depth[i]);
		mark("FREE3");
		fork_one();
		EXPECT_TRUE(has(T "snapshot", "FREE3"));
		ASSERT_EQ(0, wr_append(trig, "!snapshot"));
	}
}

/*
 * A latency tracer needs its buffers at every depth: 6.12 refuses any
 * write to "snapshot" under it at depth 1, and "echo 0" stays EBUSY above
 * (it parked the latency tracer's own buffer, and its next maximum
 * warned).
 */
TEST_F(snap, free_is_ebusy_under_a_latency_tracer_at_any_depth)
{
	const char *depth[] = { "1", "4" };
	int i;

	if (!has(T "available_tracers", "wakeup"))
		SKIP(return, "no wakeup tracer");
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, wr(T "snapshot_depth", depth[i]));
		ASSERT_EQ(0, wr(T "current_tracer", "wakeup"));
		EXPECT_EQ(EBUSY, wr(T "snapshot", "0")) TH_LOG("depth %s", depth[i]);
		EXPECT_FALSE(has(T "snapshot", "Snapshot is freed"));
		ASSERT_EQ(0, wr(T "current_tracer", "nop"));
		ASSERT_EQ(0, wr(T "snapshot", "0"));
	}
}

/*
 * Leaving a latency tracer frees the snapshot under an armed trigger, as
 * 6.12 does, and the trigger's next hit is counted, with tracing on.
 */
TEST_F(snap, leaving_a_latency_tracer_under_an_armed_trigger_keeps_tracing_on)
{
	const char *trig = T "events/sched/sched_process_fork/trigger";

	if (!has(T "available_tracers", "wakeup"))
		SKIP(return, "no wakeup tracer");
	ASSERT_EQ(0, wr_append(trig, "snapshot"));
	ASSERT_EQ(0, wr(T "current_tracer", "wakeup"));
	ASSERT_EQ(0, wr(T "current_tracer", "nop"));
	EXPECT_TRUE(has(T "snapshot", "Snapshot is freed"));
	mark("TRACER1");
	fork_one();
	mark("TRACER2");
	EXPECT_TRUE(has(T "tracing_on", "1"));
	EXPECT_TRUE(has(T "trace", "TRACER2"))
		TH_LOG("live tracing stopped after leaving the latency tracer");
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	EXPECT_TRUE(has(T "snapshot", "# snapshots dropped: "));
}

/* A buffer a lower depth parked comes back without its old header */
TEST_F(snap, a_parked_buffer_comes_back_without_its_header)
{
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, snap("H1"));
	ASSERT_EQ(0, snap("H2"));
	ASSERT_EQ(0, snap("H3"));
	ASSERT_TRUE(has(T "snapshots/2", "# snapshot: #"));
	ASSERT_EQ(0, wr(T "snapshot_depth", "1"));
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	EXPECT_FALSE(has(T "snapshots/1", "# snapshot: #"))
		TH_LOG("snapshots/1 came back with a header: %.200s", buf);
	EXPECT_FALSE(has(T "snapshots/2", "# snapshot: #"));
	EXPECT_STREQ("", tags(T "snapshots/1", "H"));
}

/* Non-comment lines of @path, -1 if it cannot be read */
static int entries(const char *path)
{
	int n = 0;
	char *p;

	if (rd(path) < 0)
		return -1;
	for (p = buf; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		if (*p != '#' && *p != '\n')
			n++;
	}
	return n;
}

/* The lab's module with a trace event, built for the running kernel */
static int modevent_load(char *why, size_t len)
{
	struct utsname u;
	char ko[256];
	const char *flavour;
	int fd, ret;

	uname(&u);
	flavour = strrchr(u.release, '-');
	snprintf(ko, sizeof(ko), "build/modules/%s/modevent/lab_modevent.ko",
		 flavour ? flavour + 1 : "lab");
	fd = open(ko, O_RDONLY);
	if (fd < 0) {
		snprintf(why, len, "no %s: run make kernel-lab", ko);
		return -1;
	}
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	if (ret && errno != EEXIST) {
		snprintf(why, len, "finit_module(%s): %s", ko, strerror(errno));
		return -1;
	}
	return 0;
}

static void modevent_fire(int n)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", n);
	wr("/sys/module/lab_modevent/parameters/fire", v);
}

/*
 * A removed module's events leave every buffer, the history included:
 * a later module may take their event id, and its format would then
 * print them.
 */
TEST_F(snap, module_unload_clears_its_events_from_every_buffer)
{
	char why[300];

	if (modevent_load(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, wr(T "trace", ""));
	ASSERT_EQ(0, wr(T "events/lab_modevent/enable", "1"));
	modevent_fire(1);
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	modevent_fire(2);
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	modevent_fire(3);
	ASSERT_EQ(0, wr(T "events/lab_modevent/enable", "0"));
	ASSERT_TRUE(has(T "snapshots/1", "lab_modevent n=1"));
	ASSERT_TRUE(has(T "snapshot", "lab_modevent n=2"));
	ASSERT_TRUE(has(T "trace", "lab_modevent n=3"));
	ASSERT_EQ(0, syscall(SYS_delete_module, "lab_modevent", O_NONBLOCK))
		TH_LOG("delete_module: %s", strerror(errno));
	EXPECT_EQ(0, entries(T "trace"));
	EXPECT_EQ(0, entries(T "snapshot"));
	EXPECT_EQ(0, entries(T "snapshots/1"))
		TH_LOG("snapshots/1 kept the removed module's events:\n%s", buf);
	EXPECT_EQ(0, entries(T "snapshots/2"));
}

TEST_HARNESS_MAIN
