// SPDX-License-Identifier: GPL-2.0
/*
 * In the guest: snapshots next to a latency tracer. At depth 1 the
 * latency tracer owns the snapshot buffer and "snapshot" is EBUSY, as
 * in every kernel. At a depth above 1 it has a buffer of its own: the
 * snapshots rotate as without it, and neither replaces what the other
 * holds. Each case runs at the top level and in an instance.
 *
 * A new maximum comes when tracing_max_latency is 0: any section with
 * interrupts off is longer. tracing_thresh far above any section stops
 * new maxima, so that the maximum trace stays still while a case
 * compares it.
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
#include "tracefs_write.h"

#define T "/sys/kernel/tracing/"
#define INSTANCE T "instances/latency_test/"
#define BUFSZ (4 << 20)
/* tracing_thresh, in us, that no section in a test guest reaches */
#define NO_NEW_MAXIMUM "100000000"

static char buf[BUFSZ];
static char saved[3][BUFSZ];

FIXTURE(lat) {
	const char *dir;
};

FIXTURE_VARIANT(lat) {
	bool instance;
};

FIXTURE_VARIANT_ADD(lat, top) {
	.instance = false,
};

FIXTURE_VARIANT_ADD(lat, instance) {
	.instance = true,
};

/* @file of the trace array under test */
static const char *at(const char *dir, const char *file)
{
	static char path[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s%s", dir, file);
	return path[i];
}

static int put(const char *path, const char *val)
{
	return tracefs_write(path, val, O_TRUNC);
}

/* Without O_TRUNC, which removes a trigger file's triggers */
static int append(const char *path, const char *val)
{
	return tracefs_write(path, val, O_APPEND);
}

/* The removal of the hist trigger a case set, for reset() if it fails */
static char untrig[168];

/*
 * Reads @path into @out; returns 0, the errno of open() or read(), or
 * E2BIG if it does not fit: a comparison never passes on a part.
 */
static int get(const char *path, char *out)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY), err = 0;

	if (fd < 0)
		return errno;
	while ((n = read(fd, out + len, BUFSZ - 1 - len)) > 0)
		len += n;
	if (n < 0)
		err = errno;
	else if (len == BUFSZ - 1)
		err = E2BIG;
	close(fd);
	out[len] = '\0';
	return err;
}

/*
 * Reads the events of @path into @out, as get() does, without the task
 * names: they come from a cache that changes as tasks are seen, not from
 * the buffer. Each line loses what comes before its "-PID ".
 */
static int events(const char *path, char *out)
{
	char *line, *next, *p, *to = out;
	int err = get(path, out);

	for (line = out; !err && *line; line = next) {
		next = strchrnul(line, '\n');
		if (*next)
			next++;
		p = line;
		if (*line != '#') {
			for (p = strchr(line, '-'); p && p < next; p = strchr(p + 1, '-')) {
				size_t d = strspn(p + 1, "0123456789");

				if (d && p[1 + d] == ' ')
					break;
			}
			if (!p || p >= next)
				p = line;
		}
		memmove(to, p, next - p);
		to += next - p;
	}
	*to = '\0';
	return err;
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static int holds(const char *path, const char *needle)
{
	return !get(path, buf) && strstr(buf, needle);
}

static long number(const char *path)
{
	return get(path, buf) ? -1 : atol(buf);
}

/* The "# snapshots dropped: N" count in the header of "snapshot", or 0 */
static long dropped(const char *dir)
{
	char *p;

	if (get(at(dir, "snapshot"), buf) || !(p = strstr(buf, "# snapshots dropped: ")))
		return 0;
	return atol(p + strlen("# snapshots dropped: "));
}

/*
 * The markers "<prefix>0".."<prefix>9" that @path holds, in one string.
 * Line by line: with every CPU's sections in them, the buffers of a
 * latency tracer print to more than any fixed buffer.
 */
static const char *tags(const char *path, const char *prefix)
{
	size_t plen = strlen(prefix), cap = 0;
	static char out[64];
	bool seen[10] = { };
	char *line = NULL;
	FILE *f = fopen(path, "r");
	ssize_t n;
	int i, bad;

	if (!f)
		return "(unreadable)";
	while ((n = getline(&line, &cap, f)) > 0) {
		/* A marker line ends in " <prefix><digit>" */
		if (n >= (ssize_t)plen + 3 && line[n - 1] == '\n' &&
		    line[n - plen - 3] == ' ' &&
		    !strncmp(line + n - plen - 2, prefix, plen) &&
		    line[n - 2] >= '0' && line[n - 2] <= '9')
			seen[line[n - 2] - '0'] = true;
	}
	free(line);
	bad = ferror(f);
	fclose(f);
	if (bad)
		return "(unreadable)";
	out[0] = '\0';
	for (i = 0; i < 10; i++) {
		if (seen[i])
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s%d",
				 out[0] ? " " : "", prefix, i);
	}
	return out;
}

/* Marker @tag in the live buffer, then a snapshot through the file */
static int snap(const char *dir, const char *tag)
{
	put(at(dir, "trace_marker"), tag);
	return put(at(dir, "snapshot"), "1");
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Lets the latency tracer record a new maximum, waits for it, and stops
 * new ones. Returns the maximum, in us, or 0 if none came in 5 s.
 */
static long new_maximum(const char *dir)
{
	long max = 0;
	int i;

	put(T "tracing_thresh", "0");
	put(at(dir, "tracing_max_latency"), "0");
	for (i = 0; i < 50 && max <= 0; i++) {
		sleep_ms(100);
		max = number(at(dir, "tracing_max_latency"));
	}
	put(T "tracing_thresh", NO_NEW_MAXIMUM);
	/* A maximum recorded as the threshold was written */
	sleep_ms(100);
	return max > 0 ? number(at(dir, "tracing_max_latency")) : 0;
}

static void reset(const char *dir)
{
	put(at(dir, "events/ftrace/print/trigger"), "!snapshot");
	if (untrig[0]) {
		append(at(dir, "events/sched/sched_process_fork/trigger"), untrig);
		untrig[0] = '\0';
	}
	put(at(dir, "current_tracer"), "nop");
	put(at(dir, "snapshot"), "0");
	put(at(dir, "snapshot_depth"), "1");
	put(at(dir, "tracing_max_latency"), "0");
	put(at(dir, "trace"), "");
	put(at(dir, "tracing_on"), "1");
	put(at(dir, "options/function-trace"), "1");
	put(T "tracing_thresh", "0");
}

FIXTURE_SETUP(lat)
{
	cpu_set_t set;

	/* One CPU for the markers keeps their order and their buffer. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	self->dir = T;
	if (variant->instance) {
		rmdir(INSTANCE);
		ASSERT_EQ(0, mkdir(INSTANCE, 0755));
		self->dir = INSTANCE;
	}
	reset(self->dir);
	/*
	 * The latency tracers time their sections only: with every function
	 * in them, a buffer holds more than a read here takes in.
	 */
	put(at(self->dir, "options/function-trace"), "0");
	if (!holds(at(self->dir, "available_tracers"), "irqsoff"))
		SKIP(return, "no irqsoff tracer here");
}

FIXTURE_TEARDOWN(lat)
{
	reset(self->dir);
	if (variant->instance)
		rmdir(INSTANCE);
}

TEST_F(lat, at_depth_1_snapshot_is_ebusy_under_a_latency_tracer)
{
	const char *dir = self->dir;

	ASSERT_EQ(0, put(at(dir, "current_tracer"), "irqsoff"));
	EXPECT_EQ(EBUSY, put(at(dir, "snapshot"), "1"));
	EXPECT_EQ(EBUSY, get(at(dir, "snapshot"), buf));
	EXPECT_EQ(EBUSY, get(at(dir, "per_cpu/cpu0/snapshot_raw"), buf));
	EXPECT_TRUE(holds(at(dir, "current_tracer"), "irqsoff"));
}

TEST_F(lat, at_depth_4_a_latency_tracer_and_snapshots_work_at_once)
{
	const char *dir = self->dir;

	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "4"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "irqsoff"))
		TH_LOG("a latency tracer is refused at depth 4");
	ASSERT_LT(0, new_maximum(dir)) TH_LOG("no maximum in 5 s");
	EXPECT_TRUE(holds(at(dir, "trace"), "irqsoff latency trace"));
	/* The snapshots hold the live events, one each, in order */
	ASSERT_EQ(0, snap(dir, "S1"));
	ASSERT_EQ(0, snap(dir, "S2"));
	ASSERT_EQ(0, snap(dir, "S3"));
	ASSERT_EQ(0, snap(dir, "S4"));
	EXPECT_STREQ("S4", tags(at(dir, "snapshot"), "S"));
	EXPECT_STREQ("S3", tags(at(dir, "snapshots/1"), "S"));
	EXPECT_STREQ("S2", tags(at(dir, "snapshots/2"), "S"));
	EXPECT_STREQ("S1", tags(at(dir, "snapshots/3"), "S"));
	EXPECT_TRUE(holds(at(dir, "snapshot"), "# snapshot: #"));
	EXPECT_STREQ("", tags(at(dir, "trace"), "S"));
	EXPECT_TRUE(holds(at(dir, "current_tracer"), "irqsoff"));
}

TEST_F(lat, a_new_maximum_leaves_every_snapshot_as_it_was)
{
	const char *dir = self->dir;
	int i;

	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "3"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "irqsoff"));
	put(T "tracing_thresh", NO_NEW_MAXIMUM);
	ASSERT_EQ(0, snap(dir, "N1"));
	ASSERT_EQ(0, snap(dir, "N2"));
	ASSERT_EQ(0, snap(dir, "N3"));
	ASSERT_EQ(0, events(at(dir, "snapshot"), saved[0]));
	ASSERT_EQ(0, events(at(dir, "snapshots/1"), saved[1]));
	ASSERT_EQ(0, events(at(dir, "snapshots/2"), saved[2]));
	/* Several new maxima, from every CPU that has interrupts off */
	for (i = 0; i < 3; i++)
		ASSERT_LT(0, new_maximum(dir)) TH_LOG("no maximum in 5 s");
	ASSERT_EQ(0, events(at(dir, "snapshot"), buf));
	EXPECT_STREQ(saved[0], buf) TH_LOG("a new maximum changed snapshot");
	ASSERT_EQ(0, events(at(dir, "snapshots/1"), buf));
	EXPECT_STREQ(saved[1], buf) TH_LOG("a new maximum changed snapshots/1");
	ASSERT_EQ(0, events(at(dir, "snapshots/2"), buf));
	EXPECT_STREQ(saved[2], buf) TH_LOG("a new maximum changed snapshots/2");
}

TEST_F(lat, a_snapshot_leaves_the_maximum_as_it_was)
{
	const char *dir = self->dir;
	long max, dropped0;

	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "3"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "irqsoff"));
	ASSERT_LT(0, max = new_maximum(dir)) TH_LOG("no maximum in 5 s");
	dropped0 = dropped(dir);
	ASSERT_EQ(0, events(at(dir, "trace"), saved[0]));
	ASSERT_TRUE(strstr(saved[0], "irqsoff latency trace") != NULL);
	/* From the file, from a trigger, and a clear of every snapshot */
	ASSERT_EQ(0, snap(dir, "M1"));
	ASSERT_EQ(0, put(at(dir, "events/ftrace/print/trigger"), "snapshot"));
	put(at(dir, "trace_marker"), "M2");
	put(at(dir, "trace_marker"), "M3");
	ASSERT_EQ(0, put(at(dir, "events/ftrace/print/trigger"), "!snapshot"));
	EXPECT_STREQ("M3", tags(at(dir, "snapshot"), "M"));
	EXPECT_STREQ("M2", tags(at(dir, "snapshots/1"), "M"));
	ASSERT_EQ(0, put(at(dir, "snapshot"), "2"));
	EXPECT_EQ(max, number(at(dir, "tracing_max_latency")));
	ASSERT_EQ(0, events(at(dir, "trace"), buf));
	EXPECT_STREQ(saved[0], buf) TH_LOG("a snapshot changed the maximum trace");
	EXPECT_EQ(dropped0, dropped(dir));
}

TEST_F(lat, the_depth_changes_under_a_latency_tracer_and_the_maximum_stays)
{
	const char *dir = self->dir;
	long max;

	ASSERT_EQ(0, put(at(dir, "current_tracer"), "irqsoff"));
	ASSERT_LT(0, max = new_maximum(dir)) TH_LOG("no maximum in 5 s");
	ASSERT_EQ(0, events(at(dir, "trace"), saved[0]));
	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "4"))
		TH_LOG("a depth change is refused under a latency tracer");
	ASSERT_EQ(0, events(at(dir, "trace"), buf));
	EXPECT_STREQ(saved[0], buf) TH_LOG("depth 4 lost the maximum trace");
	EXPECT_FALSE(holds(at(dir, "snapshot"), "# snapshot: #"));
	ASSERT_EQ(0, snap(dir, "D1"));
	EXPECT_STREQ("D1", tags(at(dir, "snapshot"), "D"));
	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "1"));
	ASSERT_EQ(0, events(at(dir, "trace"), buf));
	EXPECT_STREQ(saved[0], buf) TH_LOG("depth 1 lost the maximum trace");
	EXPECT_EQ(max, number(at(dir, "tracing_max_latency")));
	EXPECT_EQ(EBUSY, put(at(dir, "snapshot"), "1"));
}

/*
 * A real-time task that sleeps and wakes once: one maximum for wakeup_rt,
 * so that the buffers take known roles.
 */
static void rt_wakeup(void)
{
	struct sched_param sp = { .sched_priority = 10 };
	pid_t pid = fork();

	if (pid == 0) {
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(1);
		sleep_ms(10);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

/* A new maximum for wakeup_rt, which only real-time wake-ups make */
static long new_rt_maximum(const char *dir)
{
	put(T "tracing_thresh", "0");
	put(at(dir, "tracing_max_latency"), "0");
	rt_wakeup();
	put(T "tracing_thresh", NO_NEW_MAXIMUM);
	return number(at(dir, "tracing_max_latency"));
}

/*
 * A maximum brings back into the live buffer the buffer of an earlier
 * maximum: its events must stay hidden, or the next snapshot holds them.
 * O1 goes with the first maximum into the latency tracer's buffer, and
 * comes back with the second.
 */
TEST_F(lat, a_new_maximum_brings_back_no_old_event)
{
	const char *dir = self->dir;

	if (!holds(at(dir, "available_tracers"), "wakeup_rt"))
		SKIP(return, "no wakeup_rt tracer here");
	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "2"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "wakeup_rt"));
	put(T "tracing_thresh", NO_NEW_MAXIMUM);
	put(at(dir, "trace_marker"), "O1");
	ASSERT_LT(0, new_rt_maximum(dir)) TH_LOG("no real-time wake-up maximum");
	ASSERT_EQ(0, snap(dir, "O2"));
	ASSERT_LT(0, new_rt_maximum(dir)) TH_LOG("no real-time wake-up maximum");
	ASSERT_EQ(0, snap(dir, "O3"));
	EXPECT_STREQ("O3", tags(at(dir, "snapshot"), "O"));
	EXPECT_STREQ("O2", tags(at(dir, "snapshots/1"), "O"));
}

TEST_F(lat, poll_wakes_for_a_snapshot_next_to_a_latency_tracer)
{
	const char *dir = self->dir;
	struct pollfd p = { .events = POLLPRI };

	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "2"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "irqsoff"));
	ASSERT_LE(0, p.fd = open(at(dir, "snapshot"), O_RDONLY));
	ASSERT_EQ(0, read(p.fd, buf, BUFSZ) < 0 ? errno : 0);
	/* Maxima come, but no snapshot */
	put(T "tracing_thresh", "0");
	put(at(dir, "tracing_max_latency"), "0");
	EXPECT_EQ(0, poll(&p, 1, 300));
	ASSERT_EQ(0, snap(dir, "W1"));
	EXPECT_EQ(1, poll(&p, 1, 1000));
	close(p.fd);
}

TEST_F(lat, leaving_the_latency_tracer_keeps_the_snapshots)
{
	const char *dir = self->dir;

	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "3"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "irqsoff"));
	/* A maximum between a marker and its snapshot would take the marker */
	put(T "tracing_thresh", NO_NEW_MAXIMUM);
	ASSERT_EQ(0, snap(dir, "L1"));
	ASSERT_EQ(0, snap(dir, "L2"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "wakeup"));
	ASSERT_EQ(0, snap(dir, "L3"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "nop"));
	EXPECT_STREQ("L3", tags(at(dir, "snapshot"), "L"));
	EXPECT_STREQ("L2", tags(at(dir, "snapshots/1"), "L"));
	EXPECT_STREQ("L1", tags(at(dir, "snapshots/2"), "L"));
	ASSERT_EQ(0, snap(dir, "L4"));
	EXPECT_STREQ("L4", tags(at(dir, "snapshot"), "L"));
}

/*
 * preemptoff times every section with preemption off, and a snapshot's
 * own end of one may be a new maximum: it must not come while the
 * snapshot holds max_lock (irq_work_queue() under it hung the CPU).
 */
TEST_F(lat, a_snapshot_is_a_preemptoff_maximum_without_deadlock)
{
	const char *dir = self->dir;
	int i;

	if (!holds(at(dir, "available_tracers"), "preemptoff"))
		SKIP(return, "no preemptoff tracer here");
	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "2"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "preemptoff"));
	/* From 0, any section is a maximum: the snapshot's own too */
	put(T "tracing_thresh", "0");
	for (i = 0; i < 50; i++) {
		put(at(dir, "tracing_max_latency"), "0");
		ASSERT_EQ(0, put(at(dir, "snapshot"), "1"));
	}
	EXPECT_LT(0, number(at(dir, "tracing_max_latency")));
}

/* At depth 1 a latency tracer and a hist .snapshot() exclude each other */
TEST_F(lat, depth_1_is_ebusy_under_a_latency_tracer_and_a_hist_snapshot)
{
	const char *dir = self->dir;
	char trig[160], file[256];

	if (!exists(at(dir, "events/sched/sched_process_fork/hist")))
		SKIP(return, "no hist triggers (CONFIG_HIST_TRIGGERS=n)");
	/* at() reuses its buffers */
	snprintf(file, sizeof(file), "%s", at(dir, "events/sched/sched_process_fork/trigger"));
	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "2"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "irqsoff"));
	snprintf(trig, sizeof(trig),
		 "hist:keys=parent_pid:c=child_pid:onchange($c).snapshot() if parent_pid == %d",
		 getpid());
	snprintf(untrig, sizeof(untrig), "!%s", trig);
	ASSERT_EQ(0, append(file, trig))
		TH_LOG("a hist .snapshot() is refused next to a latency tracer");
	EXPECT_EQ(EBUSY, put(at(dir, "snapshot_depth"), "1"));
	EXPECT_EQ(2, number(at(dir, "snapshot_depth")));
	ASSERT_EQ(0, append(file, untrig));
	untrig[0] = '\0';
	EXPECT_EQ(0, put(at(dir, "snapshot_depth"), "1"));
}

/*
 * Removing a hist .snapshot() frees its cond_snapshot: if that kfree()
 * ran under max_lock, a preemptoff section it ended would be a maximum
 * that takes max_lock again (kmemleak's lock, SLUB's slow path).
 */
TEST_F_TIMEOUT(lat, a_hist_snapshot_goes_away_next_to_preemptoff_without_deadlock, 480)
{
	const char *dir = self->dir;
	char trig[160], file[256];
	int i;

	if (!holds(at(dir, "available_tracers"), "preemptoff"))
		SKIP(return, "no preemptoff tracer here");
	if (!exists(at(dir, "events/sched/sched_process_fork/hist")))
		SKIP(return, "no hist triggers (CONFIG_HIST_TRIGGERS=n)");
	snprintf(file, sizeof(file), "%s", at(dir, "events/sched/sched_process_fork/trigger"));
	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "2"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "preemptoff"));
	put(T "tracing_thresh", "0");
	snprintf(trig, sizeof(trig),
		 "hist:keys=parent_pid:c=child_pid:onchange($c).snapshot() if parent_pid == %d",
		 getpid());
	/*
	 * Each removal takes seconds on the debug kernel under TCG, and
	 * three took over 180 s next to two other guests on 2 cores
	 */
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, append(file, trig));
		snprintf(untrig, sizeof(untrig), "!%s", trig);
		/* From 0, any section is a maximum: the kfree()'s own too */
		put(at(dir, "tracing_max_latency"), "0");
		ASSERT_EQ(0, append(file, untrig));
		untrig[0] = '\0';
	}
	EXPECT_LT(0, number(at(dir, "tracing_max_latency")));
}

/*
 * snapshot_raw reads max_buffer, which at depth 1 holds the latency
 * tracer's maximum: with one open, the depth does not drop to 1.
 */
TEST_F(lat, depth_1_is_ebusy_under_a_latency_tracer_while_snapshot_raw_is_open)
{
	const char *dir = self->dir;
	int fd;

	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "4"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "irqsoff"));
	fd = open(at(dir, "per_cpu/cpu0/snapshot_raw"), O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EBUSY, put(at(dir, "snapshot_depth"), "1"));
	EXPECT_EQ(4, number(at(dir, "snapshot_depth")));
	close(fd);
	EXPECT_EQ(0, put(at(dir, "snapshot_depth"), "1"));
	/* And at depth 1, snapshot_raw is EBUSY, as documented */
	fd = open(at(dir, "per_cpu/cpu0/snapshot_raw"), O_RDONLY | O_NONBLOCK);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EBUSY, errno);
	if (fd >= 0)
		close(fd);
}

/*
 * Unsetting the latency tracer frees the snapshot buffers that selecting
 * it allocated, if no snapshot was taken meanwhile, as at depth 1.
 */
TEST_F(lat, unsetting_the_tracer_frees_what_selecting_it_allocated)
{
	const char *dir = self->dir;
	long live;

	/* Expanded first: the live buffer's size is what the total compares */
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "irqsoff"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "nop"));
	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "3"));
	live = number(at(dir, "buffer_total_size_kb"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "irqsoff"));
	EXPECT_LT(live, number(at(dir, "buffer_total_size_kb")));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "nop"));
	EXPECT_EQ(live, number(at(dir, "buffer_total_size_kb")));
	/* The same when the depth rose under the tracer */
	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "1"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "irqsoff"));
	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "3"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "nop"));
	EXPECT_EQ(live, number(at(dir, "buffer_total_size_kb")));
}

/*
 * The latency tracer's buffer is one buffer more in buffer_total_size_kb,
 * the size of the others; once the tracer is unset, a page per CPU.
 */
TEST_F(lat, a_latency_tracer_costs_one_buffer_more)
{
	const char *dir = self->dir;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), size, none, with, after;

	ASSERT_EQ(0, put(at(dir, "snapshot_depth"), "3"));
	ASSERT_EQ(0, put(at(dir, "snapshot"), "1"));
	size = number(at(dir, "buffer_size_kb"));
	none = number(at(dir, "buffer_total_size_kb"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "irqsoff"));
	with = number(at(dir, "buffer_total_size_kb"));
	ASSERT_EQ(0, put(at(dir, "current_tracer"), "nop"));
	after = number(at(dir, "buffer_total_size_kb"));
	TH_LOG("%ld KB per CPU: %ld KB, %ld KB with irqsoff, %ld KB after",
	       size, none, with, after);
	/* A parked buffer from an earlier case, a few pages, came back */
	EXPECT_GE(none + size * cpus, with);
	EXPECT_LE(none + (size - 8) * cpus, with);
	EXPECT_LE(none, after);
	EXPECT_GE(none + 8 * cpus, after);
}

TEST_HARNESS_MAIN
