// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to the scheduler files of the series: every input of the
 * table must fail with its documented errno and change nothing that can
 * be observed.
 *
 *   /sys/kernel/debug/sched/sis_policy   a policy name, optionally followed
 *                                         by one newline, in one write (at
 *                                         any file offset, as 6.12's other
 *                                         sched debugfs files); else EINVAL
 *   /sys/kernel/debug/sched/sis_stats    "0" (or "0\n") resets, in the same
 *                                         way; else EINVAL
 *
 * A bad user pointer is EFAULT.  sis_stats is compared with schedstats
 * off, so that nothing else moves its counters meanwhile, and only after
 * wake-ups made them non-zero (asserted): a bad write that reset them
 * would otherwise leave all-zero counters unchanged and pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define POLICY		"/sys/kernel/debug/sched/sis_policy"
#define STATS		"/sys/kernel/debug/sched/sis_stats"
#define SCHEDSTATS	"/proc/sys/kernel/sched_schedstats"

struct input {
	const char *name;
	const char *buf;
	size_t len;		/* bytes written; the string's length if 0 */
	off_t offset;		/* written at this offset */
};

#define IN(n, s)	{ n, s, sizeof(s) - 1, 0 }

/* The inputs that neither file accepts. */
static const struct input common_bad[] = {
	{ "empty", "", 0, 0 },
	IN("newline alone", "\n"),
	IN("negative", "-1"),
	IN("2^32", "4294967296"),
	IN("2^64", "18446744073709551616"),
	IN("non-numeric", "abc"),
	IN("two newlines", "0\n\n"),
	IN("more than 40 characters",
	   "0000000000000000000000000000000000000000000000001"),
	IN("34 zeros and a 1 (cut to 34 by kstrtouint_from_user)",
	   "00000000000000000000000000000000001"),
};

static const struct input policy_bad[] = {
	IN("leading space", " 3.8"),
	IN("trailing space", "3.8 "),
	IN("embedded NUL", "3.8\0x"),
	IN("valid then junk", "3.8x"),
	IN("valid, newline, junk", "3.8\nx"),
	IN("two names", "3.8 3.9"),
	IN("upper case", "MODERN"),
	IN("a number", "0"),
	IN("prefix of a name", "mod"),
};

static const struct input stats_bad[] = {
	IN("leading space", " 0"),
	IN("trailing space", "0 "),
	IN("embedded NUL", "0\0x"),
	IN("valid then junk", "0x"),
	IN("one", "1"),
	IN("two zeros", "00"),
};

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, off = 0;

	if (fd < 0)
		return -errno;
	while (off < (ssize_t)len - 1 && (n = read(fd, buf + off, len - 1 - off)) > 0)
		off += n;
	buf[off] = '\0';
	close(fd);
	return off;
}

/* One write, after seeking to in->offset (debugfs has no pwrite); 0 or -errno. */
static int write_input(const char *path, const struct input *in)
{
	size_t len = in->len ? in->len : strlen(in->buf);
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (in->offset && lseek(fd, in->offset, SEEK_SET) != in->offset) {
		close(fd);
		return -ESPIPE;
	}
	n = write(fd, in->buf, len);
	n = n < 0 ? -errno : (size_t)n == len ? 0 : -EIO;
	close(fd);
	return n;
}

static int write_str(const char *path, const char *s)
{
	struct input in = { s, s, 0, 0 };

	return write_input(path, &in);
}

FIXTURE(files) {
	char policy[64];
	char schedstats[8];
};

FIXTURE_SETUP(files)
{
	if (geteuid())
		SKIP(return, "not root");
	if (access(POLICY, F_OK))
		SKIP(return, "no " POLICY " (not the lab kernel, or no debugfs)");
	ASSERT_LT(0, read_file(POLICY, self->policy, sizeof(self->policy)));
	if (read_file(SCHEDSTATS, self->schedstats, sizeof(self->schedstats)) <= 0)
		self->schedstats[0] = '\0';
}

FIXTURE_TEARDOWN(files)
{
	char *open = strchr(self->policy, '['), *close = open ? strchr(open, ']') : NULL;

	if (close) {
		*close = '\0';
		write_str(POLICY, open + 1);
	}
	if (self->schedstats[0])
		write_str(SCHEDSTATS, self->schedstats);
}

static void check_table(struct __test_metadata *_metadata, const char *path,
			const struct input *tab, size_t n, int want)
{
	char before[1 << 14], after[1 << 14];
	size_t i;

	for (i = 0; i < n; i++) {
		ASSERT_LT(0, read_file(path, before, sizeof(before)));
		EXPECT_EQ(want, write_input(path, &tab[i]))
			TH_LOG("%s: input '%s'", path, tab[i].name);
		ASSERT_LT(0, read_file(path, after, sizeof(after)));
		EXPECT_STREQ(before, after)
			TH_LOG("%s: input '%s' changed the file", path, tab[i].name);
	}
}

TEST_F(files, policy_table)
{
	ASSERT_EQ(0, write_str(POLICY, "3.9\n"));
	check_table(_metadata, POLICY, common_bad, ARRAY_SIZE(common_bad), -EINVAL);
	check_table(_metadata, POLICY, policy_bad, ARRAY_SIZE(policy_bad), -EINVAL);
}

/* The sum of every counter of sis_stats: its lines after the header. */
static unsigned long stats_total(struct __test_metadata *_metadata)
{
	char buf[1 << 14], *p, *end;
	unsigned long total = 0;

	ASSERT_LT(0, read_file(STATS, buf, sizeof(buf)));
	p = strchr(buf, '\n');
	ASSERT_NE(NULL, p) TH_LOG("no header line in " STATS);
	while (*++p) {
		p += strcspn(p, " \n");	/* the "cpuN" column */
		while (*p == ' ') {
			total += strtoul(p, &end, 10);
			ASSERT_NE(p, end) TH_LOG("not a number in " STATS ": '%.20s'", p);
			p = end;
		}
		ASSERT_EQ('\n', *p) TH_LOG("bad line in " STATS);
	}
	return total;
}

#define ROUNDS	200

static void *pong(void *arg)
{
	int *fd = arg;		/* read fd[0], answer on fd[3] */
	char c;
	int i;

	for (i = 0; i < ROUNDS; i++)
		if (read(fd[0], &c, 1) != 1 || write(fd[3], &c, 1) != 1)
			break;
	return NULL;
}

/*
 * Wake-ups for select_idle_sibling() to decide: ROUNDS round trips of a
 * byte between two threads over two pipes, each read a sleep and each
 * write a wake-up.
 */
static void ping_pong(struct __test_metadata *_metadata)
{
	int fd[4];
	pthread_t t;
	char c = 'x';
	int i;

	ASSERT_EQ(0, pipe(fd));
	ASSERT_EQ(0, pipe(fd + 2));
	ASSERT_EQ(0, pthread_create(&t, NULL, pong, fd));
	for (i = 0; i < ROUNDS; i++) {
		ASSERT_EQ(1, write(fd[1], &c, 1));
		ASSERT_EQ(1, read(fd[2], &c, 1));
	}
	ASSERT_EQ(0, pthread_join(t, NULL));
	for (i = 0; i < 4; i++)
		close(fd[i]);
}

/*
 * Counters that are not all zero, standing still: wake-ups with schedstats
 * on, then schedstats off, so that nothing moves the counters while the
 * table runs.  A bad write that resets them then shows.
 */
static void stats_still(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, access(STATS, F_OK)) TH_LOG("no " STATS " on the lab kernel");
	ASSERT_EQ(0, write_str(SCHEDSTATS, "1"));
	ping_pong(_metadata);
	ASSERT_EQ(0, write_str(SCHEDSTATS, "0"));
	ASSERT_LT(0, stats_total(_metadata))
		TH_LOG("%d round trips with schedstats on counted no wake-up in " STATS,
		       ROUNDS);
}

TEST_F(files, stats_table)
{
	stats_still(_metadata);
	check_table(_metadata, STATS, common_bad, ARRAY_SIZE(common_bad), -EINVAL);
	check_table(_metadata, STATS, stats_bad, ARRAY_SIZE(stats_bad), -EINVAL);
}

TEST_F(files, valid_forms_are_accepted)
{
	const struct input at1 = { "3.8 at offset 1", "3.8", 3, 1 };
	char buf[128];

	ASSERT_EQ(0, write_str(POLICY, "3.8"));
	ASSERT_LT(0, read_file(POLICY, buf, sizeof(buf)));
	EXPECT_STREQ("modern 3.9 [3.8]\n", buf);
	ASSERT_EQ(0, write_str(POLICY, "modern\n"));
	ASSERT_LT(0, read_file(POLICY, buf, sizeof(buf)));
	EXPECT_STREQ("[modern] 3.9 3.8\n", buf);
	/* The offset does not matter: each write is parsed whole. */
	ASSERT_EQ(0, write_input(POLICY, &at1));
	ASSERT_LT(0, read_file(POLICY, buf, sizeof(buf)));
	EXPECT_STREQ("modern 3.9 [3.8]\n", buf);
	stats_still(_metadata);
	EXPECT_EQ(0, write_str(STATS, "0"));
	EXPECT_EQ(0, stats_total(_metadata)) TH_LOG("\"0\" did not reset " STATS);
	stats_still(_metadata);
	EXPECT_EQ(0, write_str(STATS, "0\n"));
	EXPECT_EQ(0, stats_total(_metadata)) TH_LOG("\"0\\n\" did not reset " STATS);
}

/* Two partial writes on one fd: neither half is a valid input. */
static void check_split(struct __test_metadata *_metadata, const char *path,
			const char *a, const char *b)
{
	char before[1 << 14], after[1 << 14];
	int fd;

	ASSERT_LT(0, read_file(path, before, sizeof(before)));
	ASSERT_LE(0, fd = open(path, O_WRONLY));
	EXPECT_EQ(-1, write(fd, a, strlen(a)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(fd, b, strlen(b)));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	ASSERT_LT(0, read_file(path, after, sizeof(after)));
	EXPECT_STREQ(before, after);
}

TEST_F(files, two_partial_writes)
{
	char before[1 << 14], after[1 << 14];
	int fd;

	ASSERT_EQ(0, write_str(POLICY, "modern"));
	check_split(_metadata, POLICY, "3.", "8");

	/*
	 * "0\n" split: "0" is whole and resets; "\n", the second write on
	 * the fd (at offset 1), is parsed alone and fails.  Counters again
	 * before it, or a reset there would go unseen.
	 */
	stats_still(_metadata);
	ASSERT_LE(0, fd = open(STATS, O_WRONLY));
	EXPECT_EQ(1, write(fd, "0", 1));
	EXPECT_EQ(0, stats_total(_metadata)) TH_LOG("\"0\" did not reset " STATS);
	stats_still(_metadata);
	ASSERT_LT(0, read_file(STATS, before, sizeof(before)));
	EXPECT_EQ(-1, write(fd, "\n", 1));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	ASSERT_LT(0, read_file(STATS, after, sizeof(after)));
	EXPECT_STREQ(before, after);
}

TEST_F(files, bad_user_pointer_is_efault)
{
	char before[1 << 14], after[1 << 14];
	const char *paths[] = { POLICY, STATS };
	void *bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int i;
	int fd;

	ASSERT_NE(MAP_FAILED, bad);
	stats_still(_metadata);
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		ASSERT_LT(0, read_file(paths[i], before, sizeof(before)));
		ASSERT_LE(0, fd = open(paths[i], O_WRONLY));
		EXPECT_EQ(-1, write(fd, bad, 2));
		EXPECT_EQ(EFAULT, errno) TH_LOG("%s", paths[i]);
		close(fd);
		ASSERT_LT(0, read_file(paths[i], after, sizeof(after)));
		EXPECT_STREQ(before, after);
	}
	munmap(bad, 4096);
}

static void *bad_writer(void *arg)
{
	const char *path = arg;
	long fails = 0;
	int i;

	for (i = 0; i < 2000; i++) {
		const struct input *in = i % 2 ? &policy_bad[i % ARRAY_SIZE(policy_bad)] :
					 &common_bad[i % ARRAY_SIZE(common_bad)];

		if (!strcmp(path, STATS))
			in = i % 2 ? &stats_bad[i % ARRAY_SIZE(stats_bad)] : in;
		if (write_input(path, in) != -EINVAL)
			fails++;
	}
	return (void *)fails;
}

/* Four threads writing bad input at once: every write fails, nothing moves. */
TEST_F(files, concurrent_bad_writers)
{
	const char *paths[] = { POLICY, STATS };
	char before[1 << 14], after[1 << 14];
	pthread_t t[4];
	unsigned int i, j;
	void *fails;

	ASSERT_EQ(0, write_str(POLICY, "3.9"));
	stats_still(_metadata);
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		ASSERT_LT(0, read_file(paths[i], before, sizeof(before)));
		for (j = 0; j < ARRAY_SIZE(t); j++)
			ASSERT_EQ(0, pthread_create(&t[j], NULL, bad_writer, (void *)paths[i]));
		for (j = 0; j < ARRAY_SIZE(t); j++) {
			ASSERT_EQ(0, pthread_join(t[j], &fails));
			EXPECT_EQ(0, (long)fails) TH_LOG("%s", paths[i]);
		}
		ASSERT_LT(0, read_file(paths[i], after, sizeof(after)));
		EXPECT_STREQ(before, after);
	}
}

TEST_HARNESS_MAIN
