// SPDX-License-Identifier: GPL-2.0
/*
 * The sched_ext gate of sis_llc.h, on the host: llc_scx() against files
 * shaped like /sys/kernel/sched_ext in a directory of its own.  The lab
 * kernel has no sched_ext (it needs BPF), so no guest can show the gate.
 */
#define _GNU_SOURCE
#define LLC_SCX_DIR "scx"
#include "kselftest_harness.h"
#include "sched/sis_llc.h"
#include <sys/stat.h>

FIXTURE(scx) {
	char dir[64];
};

FIXTURE_SETUP(scx)
{
	strcpy(self->dir, "/tmp/scx_gate.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, chdir(self->dir));
}

FIXTURE_TEARDOWN(scx)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

static void put(const char *path, const char *text)
{
	FILE *f;

	mkdir("scx", 0755);
	mkdir("scx/root", 0755);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST_F(scx, no_sched_ext_judges)
{
	char name[64];

	EXPECT_FALSE(llc_scx(name, sizeof(name)));
}

TEST_F(scx, disabled_judges)
{
	char name[64];

	put("scx/state", "disabled\n");
	put("scx/switch_all", "0\n");
	EXPECT_FALSE(llc_scx(name, sizeof(name)));
}

TEST_F(scx, enabled_for_every_task_skips_and_names_it)
{
	char name[64];

	put("scx/state", "enabled\n");
	put("scx/switch_all", "1\n");
	put("scx/root/ops", "simple\n");
	ASSERT_TRUE(llc_scx(name, sizeof(name)));
	EXPECT_STREQ("simple", name);
}

TEST_F(scx, enabling_for_every_task_skips)
{
	char name[64];

	put("scx/state", "enabling\n");
	put("scx/switch_all", "1\n");
	ASSERT_TRUE(llc_scx(name, sizeof(name)));
	EXPECT_STREQ("unnamed", name);
}

TEST_F(scx, enabled_for_sched_ext_tasks_only_judges_a_normal_task)
{
	char name[64];

	put("scx/state", "enabled\n");
	put("scx/switch_all", "0\n");
	put("scx/root/ops", "simple\n");
	ASSERT_NE(SCHED_EXT, sched_getscheduler(0));
	EXPECT_FALSE(llc_scx(name, sizeof(name)));
}

TEST_HARNESS_MAIN
