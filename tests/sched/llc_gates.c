// SPDX-License-Identifier: GPL-2.0
/*
 * Two gates of sis_llc.h, on the host, against files shaped like /sys in
 * a directory of their own: llc_scx() (a sched_ext scheduler places the
 * tasks) and llc_asym_capacity() (the CPUs differ in cpu_capacity).  The
 * lab's x86 guests have neither sched_ext (it needs BPF) nor a
 * cpu_capacity file, so no guest can show them.
 */
#define _GNU_SOURCE
#define LLC_SYSFS "sys"
#include "kselftest_harness.h"
#include "sched/sis_llc.h"
#include <sys/stat.h>

FIXTURE(gate) {
	char dir[64];
};

FIXTURE_SETUP(gate)
{
	strcpy(self->dir, "/tmp/llc_gates.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, chdir(self->dir));
}

FIXTURE_TEARDOWN(gate)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

/* Write @text to @path under the fake sysfs, making its directories. */
static void put(const char *path, const char *text)
{
	char cmd[256];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p $(dirname sys/%s)", path);
	if (system(cmd))
		return;
	snprintf(cmd, sizeof(cmd), "sys/%s", path);
	f = fopen(cmd, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST_F(gate, no_sched_ext_judges)
{
	char name[64];

	EXPECT_FALSE(llc_scx(name, sizeof(name)));
}

TEST_F(gate, sched_ext_disabled_judges)
{
	char name[64];

	put("kernel/sched_ext/state", "disabled\n");
	put("kernel/sched_ext/switch_all", "0\n");
	EXPECT_FALSE(llc_scx(name, sizeof(name)));
}

TEST_F(gate, sched_ext_for_every_task_skips_and_names_it)
{
	char name[64];

	put("kernel/sched_ext/state", "enabled\n");
	put("kernel/sched_ext/switch_all", "1\n");
	put("kernel/sched_ext/root/ops", "simple\n");
	ASSERT_TRUE(llc_scx(name, sizeof(name)));
	EXPECT_STREQ("simple", name);
}

TEST_F(gate, sched_ext_enabling_for_every_task_skips)
{
	char name[64];

	put("kernel/sched_ext/state", "enabling\n");
	put("kernel/sched_ext/switch_all", "1\n");
	ASSERT_TRUE(llc_scx(name, sizeof(name)));
	EXPECT_STREQ("unnamed", name);
}

TEST_F(gate, sched_ext_for_its_own_tasks_only_judges_a_normal_task)
{
	char name[64];

	put("kernel/sched_ext/state", "enabled\n");
	put("kernel/sched_ext/switch_all", "0\n");
	put("kernel/sched_ext/root/ops", "simple\n");
	ASSERT_NE(SCHED_EXT, sched_getscheduler(0));
	EXPECT_FALSE(llc_scx(name, sizeof(name)));
}

TEST_F(gate, no_cpu_capacity_judges)
{
	long lo, hi;

	put("devices/system/cpu/cpu0/online", "1\n");
	put("devices/system/cpu/cpu1/online", "1\n");
	EXPECT_FALSE(llc_asym_capacity(&lo, &hi));
}

TEST_F(gate, equal_cpu_capacity_judges)
{
	long lo, hi;

	put("devices/system/cpu/cpu0/cpu_capacity", "1024\n");
	put("devices/system/cpu/cpu1/cpu_capacity", "1024\n");
	put("devices/system/cpu/cpufreq/cpu_capacity", "7\n");
	EXPECT_FALSE(llc_asym_capacity(&lo, &hi));
}

TEST_F(gate, asymmetric_cpu_capacity_skips_with_the_range)
{
	long lo, hi;

	put("devices/system/cpu/cpu0/cpu_capacity", "1024\n");
	put("devices/system/cpu/cpu1/cpu_capacity", "1024\n");
	put("devices/system/cpu/cpu2/cpu_capacity", "446\n");
	put("devices/system/cpu/cpu10/cpu_capacity", "1024\n");
	ASSERT_TRUE(llc_asym_capacity(&lo, &hi));
	EXPECT_EQ(446, lo);
	EXPECT_EQ(1024, hi);
}

TEST_HARNESS_MAIN
