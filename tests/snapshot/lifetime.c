// SPDX-License-Identifier: GPL-2.0
/*
 * In the guest: the buffers of the snapshot history outlive everything
 * that holds them.
 *
 * Each holder of a trace buffer takes it while it is live, then two
 * snapshots at depth 2 move that buffer into the history and a write of
 * 1 to snapshot_depth drops it.  The holder is then used and let go:
 *
 *   iterator  an open "trace" file (ring_buffer_read_start())
 *   pipe      a reader asleep in "trace_pipe" (ring_buffer_wait())
 *   splice    pages spliced from trace_pipe_raw into a pipe
 *   poll      an epoll entry on trace_pipe_raw
 *   writer    a task writing trace_marker throughout
 *
 * Each case runs at the top level, in an instance, and in an instance
 * that is then removed.  A buffer freed under its holder is a use after
 * free: KASAN reports it on the debug kernel, and the lab kernel may
 * crash; `lab run` fails on either.  The cases also check what the
 * holder sees.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "task_state.h"
#include "tracefs_write.h"

#define T "/sys/kernel/tracing/"
#define INSTANCE T "instances/lifetime"

static char buf[1 << 20];

static int wr(const char *path, const char *val)
{
	return tracefs_write(path, val, O_TRUNC);
}

/* Reads all of @fd into buf; returns the length, or -1 */
static ssize_t rd_fd(int fd)
{
	ssize_t n, len = 0;

	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	return n < 0 ? -1 : len;
}

static void on_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

FIXTURE(held) {
	char dir[64];		/* the trace array's directory, with a '/' */
};

/* Where the buffers are, and whether the instance goes away at the end */
FIXTURE_VARIANT(held) {
	const char *dir;
	int remove;
};

FIXTURE_VARIANT_ADD(held, top_level) {
	.dir = T,
};

FIXTURE_VARIANT_ADD(held, instance) {
	.dir = INSTANCE "/",
};

FIXTURE_VARIANT_ADD(held, instance_removed) {
	.dir = INSTANCE "/",
	.remove = 1,
};

/* @name in the fixture's trace array, in a buffer of @n rotating ones */
static const char *at(struct _test_data_held *self, const char *name)
{
	static char paths[4][128];
	static int n;

	n = (n + 1) % 4;
	snprintf(paths[n], sizeof(paths[n]), "%s%s", self->dir, name);
	return paths[n];
}

static void reset_top(void)
{
	wr(T "snapshot", "0");
	wr(T "snapshot_depth", "1");
	wr(T "trace", "");
	wr(T "tracing_on", "1");
}

FIXTURE_SETUP(held)
{
	on_cpu0();
	rmdir(INSTANCE);
	reset_top();
	snprintf(self->dir, sizeof(self->dir), "%s", variant->dir);
	if (strcmp(variant->dir, T))
		ASSERT_EQ(0, mkdir(INSTANCE, 0755));
	ASSERT_EQ(0, wr(at(self, "snapshot_depth"), "2"));
	ASSERT_EQ(0, wr(at(self, "snapshot"), "1"));
}

FIXTURE_TEARDOWN(held)
{
	rmdir(INSTANCE);
	reset_top();
}

static void mark(struct _test_data_held *self, const char *m)
{
	wr(at(self, "trace_marker"), m);
}

/*
 * The buffer live now goes into the history and is dropped from it:
 * after two snapshots at depth 2 it is snapshots/1, which depth 1 drops.
 */
static int drop_live_buffer(struct _test_data_held *self)
{
	int err;

	err = wr(at(self, "snapshot"), "1");
	if (!err)
		err = wr(at(self, "snapshot"), "1");
	if (!err)
		err = wr(at(self, "snapshot_depth"), "1");
	return err;
}

/*
 * For instance_removed: the instance cannot go while a file of it is
 * open (EBUSY); once @fd is closed, it goes.
 */
static void close_and_remove(struct _test_data_held *self,
			     const struct _fixture_variant_held *variant,
			     struct __test_metadata *_metadata, int fd)
{
	if (variant->remove) {
		EXPECT_EQ(-1, rmdir(INSTANCE));
		EXPECT_EQ(EBUSY, errno);
	}
	close(fd);
	if (variant->remove)
		EXPECT_EQ(0, rmdir(INSTANCE)) TH_LOG("rmdir: %s", strerror(errno));
}

/* The sequence that freed a buffer under an open "trace" */
TEST_F(held, an_open_trace_file_reads_on_after_its_buffer_is_dropped)
{
	int fd;

	mark(self, "BEFORE");
	fd = open(at(self, "trace"), O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, drop_live_buffer(self));
	mark(self, "AFTER");
	/* It reads the buffer it opened, which holds BEFORE, to its end */
	ASSERT_LE(0, rd_fd(fd));
	EXPECT_NE(NULL, strstr(buf, "BEFORE"));
	EXPECT_EQ(NULL, strstr(buf, "AFTER"));
	close_and_remove(self, variant, _metadata, fd);
}

/* A reader asleep in trace_pipe, then its buffer leaves: it wakes */
TEST_F(held, a_sleeping_trace_pipe_reader_follows_the_live_buffer)
{
	int status, ready[2];
	pid_t pid;

	ASSERT_EQ(0, wr(at(self, "trace"), ""));
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open(at(self, "trace_pipe"), O_RDONLY);
		ssize_t n;

		close(ready[0]);
		if (fd < 0)
			_exit(2);
		write(ready[1], "o", 1);
		alarm(10);
		n = read(fd, buf, sizeof(buf) - 1);
		if (n <= 0)
			_exit(1);
		buf[n] = '\0';
		_exit(strstr(buf, "WAKE") ? 0 : 3);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], buf, 1));
	close(ready[0]);
	ASSERT_TRUE(sleeping(pid)) TH_LOG("the trace_pipe reader never slept");
	ASSERT_EQ(0, drop_live_buffer(self));
	/* Only the live buffer gets this: the reader must be reading it */
	mark(self, "WAKE");
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status))
		TH_LOG("the reader slept on in its dropped buffer (signal %d)",
		       WTERMSIG(status));
	if (WIFEXITED(status))
		EXPECT_EQ(0, WEXITSTATUS(status));
	if (variant->remove)
		EXPECT_EQ(0, rmdir(INSTANCE)) TH_LOG("rmdir: %s", strerror(errno));
}

/* Pages spliced out of a buffer stay in a pipe after it is dropped */
TEST_F(held, spliced_pages_outlive_their_dropped_buffer)
{
	char line[64];
	int raw, p[2], i;
	ssize_t n = 0, got;

	raw = open(at(self, "per_cpu/cpu0/trace_pipe_raw"), O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, raw);
	ASSERT_EQ(0, pipe(p));
	/* More than a page of markers on CPU 0, so that one can be spliced */
	for (i = 0; i < 400 && n <= 0; i++) {
		snprintf(line, sizeof(line), "SPLICE %d padding padding padding", i);
		mark(self, line);
		if (i >= 100)
			n = splice(raw, NULL, p[1], NULL, 4096, SPLICE_F_NONBLOCK);
	}
	ASSERT_LT(0, n) TH_LOG("nothing spliced: %s", strerror(errno));
	ASSERT_EQ(0, drop_live_buffer(self));
	close(raw);
	/*
	 * The pages in the pipe hold the trace array: it cannot be removed
	 * until they are read.
	 */
	if (variant->remove) {
		EXPECT_EQ(-1, rmdir(INSTANCE))
			TH_LOG("the instance went with spliced pages in a pipe");
		EXPECT_EQ(EBUSY, errno);
	}
	got = read(p[0], buf, sizeof(buf));
	EXPECT_EQ(n, got);
	close(p[0]);
	close(p[1]);
	if (variant->remove)
		EXPECT_EQ(0, rmdir(INSTANCE)) TH_LOG("rmdir: %s", strerror(errno));
}

/* An epoll entry waits on the buffer's wait queue: it outlives the drop */
TEST_F(held, an_epoll_entry_outlives_its_dropped_buffer)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int ep, fd;

	fd = open(at(self, "trace_pipe_raw"), O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		fd = open(at(self, "per_cpu/cpu0/trace_pipe_raw"),
			  O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	ep = epoll_create1(0);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	ASSERT_EQ(0, epoll_wait(ep, &out, 1, 0));
	ASSERT_EQ(0, drop_live_buffer(self));
	mark(self, "EPOLL");
	epoll_wait(ep, &out, 1, 100);
	EXPECT_EQ(0, epoll_ctl(ep, EPOLL_CTL_DEL, fd, &ev));
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	/* The last close removes the entry from the wait queue */
	close(ep);
	close_and_remove(self, variant, _metadata, fd);
}

/* A writer of trace_marker all along, while depths come and go */
TEST_F_TIMEOUT(held, a_writer_outlives_the_buffers_it_wrote_to, 120)
{
	int i, status, fd;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		fd = open(at(self, "trace_marker"), O_WRONLY);
		if (fd < 0)
			_exit(2);
		for (;;)
			write(fd, "WRITER padding padding padding", 30);
	}
	for (i = 0; i < 40; i++) {
		ASSERT_EQ(0, wr(at(self, "snapshot_depth"), i % 2 ? "1" : "4"));
		ASSERT_EQ(0, wr(at(self, "snapshot"), "1"));
		ASSERT_EQ(0, wr(at(self, "snapshot"), "1"));
	}
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("the writer could not start");
	if (variant->remove)
		EXPECT_EQ(0, rmdir(INSTANCE)) TH_LOG("rmdir: %s", strerror(errno));
}

TEST_HARNESS_MAIN
