// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to the snapshot files: every input of the table must fail
 * with EINVAL (ERANGE for a number too big, EFAULT for a bad pointer) and
 * change nothing that can be observed: the content and header of
 * "snapshot" and of every snapshots/N, and snapshot_depth.
 *
 *   snapshot, per_cpu/cpuN/snapshot   what kstrtoul_from_user() takes,
 *                                      as in 6.12: a decimal number,
 *                                      optionally followed by a newline,
 *                                      read up to a NUL or 66 bytes
 *   snapshot_depth                     the same, 1 to 32, in one write
 *                                      at offset 0
 *   snapshots/N                        read-only
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../snapshot/tracefs_write.h"

#define T "/sys/kernel/tracing/"

struct input {
	const char *name;
	const char *buf;
	size_t len;
	off_t offset;
};

#define IN(n, s)	{ n, s, sizeof(s) - 1, 0 }

/* Inputs that no snapshot file takes */
static const struct input common_bad[] = {
	{ "empty", "", 0, 0 },
	IN("newline alone", "\n"),
	IN("negative", "-1"),
	IN("non-numeric", "abc"),
	IN("valid then junk", "1x"),
	IN("leading space", " 1"),
	IN("trailing space", "1 "),
	IN("two newlines", "1\n\n"),
	IN("NUL first", "\0" "1"),
};

static const struct input depth_bad[] = {
	IN("zero", "0"),
	IN("33", "33"),
	IN("2^32 + 3", "4294967299"),
	{ "at offset 1", "3", 1, 1 },
};

static char before[1 << 16], after[1 << 16];

static int wr(const char *path, const char *val)
{
	return tracefs_write(path, val, O_TRUNC);
}

/* 0, or the errno of writing @in to @path */
static int write_input(const char *path, const struct input *in)
{
	int fd = open(path, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return errno;
	if (pwrite(fd, in->buf, in->len, in->offset) < 0)
		err = errno;
	close(fd);
	return err;
}

static void cat(const char *path, char *out, size_t size)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY);

	out[0] = '\0';
	if (fd < 0)
		return;
	while ((n = read(fd, out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(fd);
}

/* All that a bad write must leave as it was, in one string */
static void state(char *out, size_t size)
{
	static char part[1 << 14];

	out[0] = '\0';
	cat(T "snapshot_depth", part, sizeof(part));
	strncat(out, part, size - strlen(out) - 1);
	cat(T "snapshot", part, sizeof(part));
	strncat(out, part, size - strlen(out) - 1);
	cat(T "snapshots/1", part, sizeof(part));
	strncat(out, part, size - strlen(out) - 1);
	cat(T "snapshots/2", part, sizeof(part));
	strncat(out, part, size - strlen(out) - 1);
}

static void check_table_err(struct __test_metadata *_metadata, const char *path,
			    const struct input *tab, size_t n, int err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		state(before, sizeof(before));
		EXPECT_EQ(err, write_input(path, &tab[i]))
			TH_LOG("%s: '%s' was not %s", path, tab[i].name, strerror(err));
		state(after, sizeof(after));
		EXPECT_STREQ(before, after)
			TH_LOG("%s: '%s' changed something", path, tab[i].name);
	}
}

static void check_table(struct __test_metadata *_metadata, const char *path,
			const struct input *tab, size_t n)
{
	check_table_err(_metadata, path, tab, n, EINVAL);
}

/* One past ULONG_MAX, as kstrtoul() tells it apart */
static const struct input too_big = IN("2^64", "18446744073709551616");

FIXTURE(files) {
	int unused;
};

/* @path holds @tag */
static int holds(const char *path, const char *tag)
{
	static char text[1 << 14];

	cat(path, text, sizeof(text));
	return strstr(text, tag) != NULL;
}

/*
 * Depth 3, three snapshots, each tagged by a marker, and checked to be
 * there: "nothing changed" means something only if there is something.
 */
FIXTURE_SETUP(files)
{
	ASSERT_EQ(0, wr(T "snapshot", "0"));
	ASSERT_EQ(0, wr(T "snapshot_depth", "3"));
	ASSERT_EQ(0, wr(T "trace_marker", "bad-input-1"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_EQ(0, wr(T "trace_marker", "bad-input-2"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_EQ(0, wr(T "trace_marker", "bad-input-3"));
	ASSERT_EQ(0, wr(T "snapshot", "1"));
	ASSERT_TRUE(holds(T "snapshot", "bad-input-3"));
	ASSERT_TRUE(holds(T "snapshots/1", "bad-input-2"));
	ASSERT_TRUE(holds(T "snapshots/2", "bad-input-1"));
}

FIXTURE_TEARDOWN(files)
{
	wr(T "snapshot", "0");
	wr(T "snapshot_depth", "1");
}

TEST_F(files, snapshot_table)
{
	check_table(_metadata, T "snapshot", common_bad,
		    sizeof(common_bad) / sizeof(common_bad[0]));
	check_table_err(_metadata, T "snapshot", &too_big, 1, ERANGE);
}

TEST_F(files, per_cpu_snapshot_table)
{
	static const struct input zero = IN("zero (per-CPU: EINVAL)", "0");

	check_table(_metadata, T "per_cpu/cpu0/snapshot", common_bad,
		    sizeof(common_bad) / sizeof(common_bad[0]));
	check_table(_metadata, T "per_cpu/cpu0/snapshot", &zero, 1);
	check_table_err(_metadata, T "per_cpu/cpu0/snapshot", &too_big, 1, ERANGE);
}

TEST_F(files, snapshot_depth_table)
{
	check_table(_metadata, T "snapshot_depth", common_bad,
		    sizeof(common_bad) / sizeof(common_bad[0]));
	check_table(_metadata, T "snapshot_depth", depth_bad,
		    sizeof(depth_bad) / sizeof(depth_bad[0]));
	check_table_err(_metadata, T "snapshot_depth", &too_big, 1, ERANGE);
}

TEST_F(files, history_files_are_read_only)
{
	int fd;

	state(before, sizeof(before));
	/* Even for root: a write open leaked a reader of the history */
	fd = open(T "snapshots/1", O_WRONLY);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EACCES, errno);
	if (fd >= 0)
		close(fd);
	fd = open(T "snapshots/1", O_RDWR);
	EXPECT_EQ(-1, fd);
	if (fd >= 0)
		close(fd);
	state(after, sizeof(after));
	EXPECT_STREQ(before, after);
	/* And nothing holds the history: the depth can change */
	EXPECT_EQ(0, wr(T "snapshot_depth", "2"));
}

TEST_F(files, valid_forms_are_accepted)
{
	/* As 6.12: kstrtoul_from_user() stops at a NUL */
	static const struct input nul = IN("1, NUL, x", "1\0x");
	static const struct input depth_nul = IN("2 and NULs", "2\0\0\0");

	EXPECT_EQ(0, wr(T "snapshot_depth", "2\n"));
	EXPECT_EQ(0, wr(T "snapshot_depth", "3"));
	EXPECT_EQ(0, wr(T "snapshot", "1\n"));
	EXPECT_EQ(0, wr(T "snapshot", "00000000000000000001"));
	EXPECT_EQ(0, write_input(T "snapshot", &nul));
	EXPECT_EQ(0, wr(T "snapshot", "00000000000000000000001"));
	EXPECT_EQ(0, write_input(T "snapshot_depth", &depth_nul));
}

TEST_F(files, bad_user_pointer_is_efault)
{
	const char *files[] = { T "snapshot", T "snapshot_depth" };
	void *bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int i;
	int fd;

	ASSERT_NE(MAP_FAILED, bad);
	for (i = 0; i < 2; i++) {
		state(before, sizeof(before));
		ASSERT_LE(0, fd = open(files[i], O_WRONLY));
		EXPECT_EQ(-1, write(fd, bad, 2));
		EXPECT_EQ(EFAULT, errno) TH_LOG("%s", files[i]);
		close(fd);
		state(after, sizeof(after));
		EXPECT_STREQ(before, after);
	}
	munmap(bad, 4096);
}

TEST_HARNESS_MAIN
