// SPDX-License-Identifier: GPL-2.0
/*
 * The bare tracepoint sched_sis_decision_tp as a user attaches it, with no
 * module: a tracepoint probe event (CONFIG_FPROBE_EVENTS),
 *
 *   t:GROUP/decision sched_sis_decision_tp prev=$arg2:s32 target=$arg3:s32
 *                                          dest=$arg4:s32 reason=$arg5:u32
 *
 * ($arg1 is the task).  Each case stages one wake-up on an idle machine:
 * the wakee last ran on prev, the waker runs on its own CPU.  It then
 * checks every argument against what was staged, dest against the CPU the
 * wakee ran on (sched_getcpu() in the wakee), and the reason against the
 * path the staging leads to.  For the upstream-bound series (--kernel
 * upstream); the reason values come from that series' enum sis_reason,
 * compiled in (-include include/linux/sched/sis.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "sis_llc.h"

#ifndef _LINUX_SCHED_SIS_H
#error "compile with -include include/linux/sched/sis.h of the series"
#endif

#define TRACEFS		"/sys/kernel/tracing/"
#define FEATURES	"/sys/kernel/debug/sched/features"
#define TRIES		10

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Opening trace for writing with O_TRUNC clears it. */
static int clear_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int append_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The waker, prev and the other CPUs of their LLC. */
static int waker_cpu = -1, prev_cpu = -1;
static cpu_set_t llc;
static char group[32], instance[96], sis_util[16];

static int pin_to(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

static int core_of(int cpu)
{
	char path[96], buf[64];
	cpu_set_t set;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
	if (llc_read_file(path, buf, sizeof(buf)) <= 0 || llc_parse_cpulist(buf, &set) <= 0)
		return cpu;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return cpu;
}

/*
 * The waker on the first CPU of an LLC of three cores or more, prev on
 * the third core's first CPU.  0, or 1 with *why set.
 */
static int find_cpus(char *why)
{
	int n = sysconf(_SC_NPROCESSORS_ONLN), cpu, cores;
	const char *how;

	for (cpu = 0; cpu < n; cpu++) {
		if (core_of(cpu) != cpu || llc_of(cpu, &llc, &how, why) < 0)
			continue;
		waker_cpu = cpu;
		prev_cpu = -1;
		cores = 1;
		for (int i = cpu + 1; i < n && prev_cpu < 0; i++)
			if (CPU_ISSET(i, &llc) && core_of(i) == i && ++cores == 3)
				prev_cpu = i;
		if (prev_cpu >= 0)
			return 0;
	}
	snprintf(why, LLC_WHY_LEN, "no LLC of three cores");
	return 1;
}

/* Remove what setup() made; also at exit and on SIGINT or SIGTERM. */
static void cleanup(void)
{
	char cmd[64], path[160];

	if (sis_util[0])
		write_file(FEATURES, sis_util);
	if (instance[0]) {
		snprintf(path, sizeof(path), "%sevents/%s/enable", instance, group);
		write_file(path, "0");
		rmdir(instance);
		instance[0] = '\0';
	}
	if (group[0]) {
		snprintf(cmd, sizeof(cmd), "-:%s/decision\n", group);
		append_file(TRACEFS "dynamic_events", cmd);
		group[0] = '\0';
	}
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The SIS_UTIL feature as written: "SIS_UTIL" or "NO_SIS_UTIL". */
static void save_sis_util(void)
{
	char buf[2048], *p;

	if (llc_read_file(FEATURES, buf, sizeof(buf)) <= 0)
		return;
	for (p = strtok(buf, "\n "); p; p = strtok(NULL, "\n "))
		if (!strcmp(p, "SIS_UTIL") || !strcmp(p, "NO_SIS_UTIL"))
			snprintf(sis_util, sizeof(sis_util), "%s", p);
}

struct decision {
	int found;
	int prev, target, dest;
	unsigned int reason;
	int ran_on;		/* sched_getcpu() in the wakee, once woken */
	int placed;		/* sched_wakeup's target_cpu after it, or -1 */
};

enum { WAKE_PIPE, WAKE_FUTEX };
enum { BUSY_NONE, BUSY_PREV, BUSY_ALL };

struct shared {
	int futex;
	int ran_on;
};

/*
 * Wait until pid sleeps off its run-queue: state S, and a wait channel,
 * which get_wchan() only gives a task that is no longer queued (a sleeper
 * still queued, as the delayed dequeue can leave one, is woken without
 * placement).  After 1 s in state S, state S is enough (a kernel without
 * kallsyms shows no wait channel): check() stages again a wake-up with
 * no decision.
 */
static int wait_sleeping(pid_t pid)
{
	char path[64], wchan[64], buf[512], *p;
	int i, asleep;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	snprintf(wchan, sizeof(wchan), "/proc/%d/wchan", pid);
	for (i = 0; i < 2000; i++) {
		asleep = llc_read_file(path, buf, sizeof(buf)) > 0 &&
			 (p = strrchr(buf, ')')) && p[2] == 'S';
		if (asleep && (i >= 1000 || (llc_read_file(wchan, buf, sizeof(buf)) > 0 &&
					     strcmp(buf, "0"))))
			return 0;
		usleep(1000);
	}
	return -1;
}

/*
 * The last decision of this process's wake-ups in the instance's trace.
 * The filter keeps the hits while this process is current; those in an
 * interrupt on its CPU (a timer waking a kworker) are left out here: the
 * third character of the flags column ("d..3.", irq-info) is 'h', 'H',
 * 's', 'z' or 'Z' in an interrupt.  After it comes the wakee's
 * sched_wakeup, which ttwu_do_wakeup() traces once the wakee is queued:
 * its target_cpu is where the wake-up put it.  The instance's clock is
 * global, so events of two CPUs are in order.
 */
static void last_decision(struct decision *d)
{
	static char buf[1 << 16];
	char path[160], *line, *p;

	d->found = 0;
	d->placed = -1;
	snprintf(path, sizeof(path), "%strace", instance);
	if (llc_read_file(path, buf, sizeof(buf)) < 0)
		return;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *flags = strstr(line, "] ");

		p = strstr(line, " sched_wakeup: ");
		if (p) {
			p = strstr(p, " target_cpu=");
			if (p && d->found && d->placed < 0)
				d->placed = atoi(p + 12);
			continue;
		}
		p = strstr(line, " decision: ");
		if (!p || !flags || strlen(flags) < 5 || strchr("hHszZ", flags[4]) ||
		    !(p = strstr(p, " prev=")))
			continue;
		if (sscanf(p, " prev=%d target=%d dest=%d reason=%u",
			   &d->prev, &d->target, &d->dest, &d->reason) == 4) {
			d->found = 1;
			d->placed = -1;
		}
	}
}

/*
 * Stage one wake-up: the wakee sleeps, having last run on prev_cpu, and may
 * then run anywhere; busy says which CPUs a spinner keeps busy meanwhile,
 * for settle_ms.  0, or -1 if the staging failed.
 */
static int stage(int how, int busy, int settle_ms, struct decision *d)
{
	struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t wakee = -1, spinner[CPU_SETSIZE], self = getpid();
	int fd[2] = { -1, -1 }, nspin = 0, cpu, ret = -1, status;
	char c = 0, path[160], filter[48];
	cpu_set_t all;

	if (sh == MAP_FAILED || pipe(fd))
		goto out;
	sh->ran_on = -1;
	if (pin_to(0, waker_cpu))
		goto out;
	wakee = fork();
	if (wakee == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (pin_to(0, prev_cpu) || sched_getcpu() != prev_cpu)
			_exit(1);
		if (how == WAKE_PIPE) {
			if (read(fd[0], &c, 1) != 1)
				_exit(1);
		} else {
			while (!__atomic_load_n(&sh->futex, __ATOMIC_ACQUIRE))
				syscall(SYS_futex, &sh->futex, FUTEX_WAIT, 0, NULL, NULL, 0);
		}
		sh->ran_on = sched_getcpu();
		_exit(0);
	}
	if (wakee < 0 || wait_sleeping(wakee))
		goto reap;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!(busy == BUSY_PREV ? cpu == prev_cpu :
		      busy == BUSY_ALL && CPU_ISSET(cpu, &llc) && cpu != waker_cpu))
			continue;
		spinner[nspin] = fork();
		if (spinner[nspin] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self || pin_to(0, cpu))
				_exit(1);
			for (;;)
				;
		}
		if (spinner[nspin] > 0)
			nspin++;
	}
	if (nspin)
		usleep(settle_ms * 1000);
	/* Asleep, the wakee may now run anywhere: the decision is the kernel's. */
	CPU_ZERO(&all);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &llc))
			CPU_SET(cpu, &all);
	if (sched_setaffinity(wakee, sizeof(all), &all))
		goto reap;

	snprintf(path, sizeof(path), "%strace", instance);
	if (clear_file(path))
		goto reap;
	snprintf(path, sizeof(path), "%sevents/%s/decision/filter", instance, group);
	snprintf(filter, sizeof(filter), "common_pid == %d", self);
	if (write_file(path, filter))
		goto reap;
	snprintf(path, sizeof(path), "%sevents/sched/sched_wakeup/filter", instance);
	snprintf(filter, sizeof(filter), "pid == %d", wakee);
	if (write_file(path, filter))
		goto reap;
	snprintf(path, sizeof(path), "%sevents/sched/sched_wakeup/enable", instance);
	if (write_file(path, "1"))
		goto reap;
	snprintf(path, sizeof(path), "%sevents/%s/decision/enable", instance, group);
	if (write_file(path, "1"))
		goto reap;
	if (how == WAKE_PIPE) {
		if (write(fd[1], &c, 1) != 1)
			goto reap;
	} else {
		__atomic_store_n(&sh->futex, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &sh->futex, FUTEX_WAKE, 1, NULL, NULL, 0);
	}
	if (waitpid(wakee, &status, 0) == wakee && WIFEXITED(status) && !WEXITSTATUS(status))
		ret = 0;
	wakee = -1;
	write_file(path, "0");
	snprintf(path, sizeof(path), "%sevents/sched/sched_wakeup/enable", instance);
	write_file(path, "0");
	last_decision(d);
	d->ran_on = sh->ran_on;
reap:
	if (wakee > 0)
		kill(wakee, SIGKILL);
	while (nspin)
		kill(spinner[--nspin], SIGKILL);
	while (waitpid(-1, NULL, 0) > 0)
		;
out:
	if (fd[0] >= 0) {
		close(fd[0]);
		close(fd[1]);
	}
	if (sh != MAP_FAILED)
		munmap(sh, sizeof(*sh));
	return ret;
}

FIXTURE(tp) {
	unsigned long tainted;
};

#define TAINT_WARN_BIT	(1UL << 9)	/* TAINT_WARN: a WARN*() fired */

static unsigned long tainted(void)
{
	char buf[32];

	return llc_read_file("/proc/sys/kernel/tainted", buf, sizeof(buf)) > 0 ?
	       strtoul(buf, NULL, 10) : 0;
}

FIXTURE_SETUP(tp)
{
	char why[LLC_WHY_LEN] = "", cmd[192], path[160];
	int ret;

	if (geteuid())
		SKIP(return, "not root");
	ret = find_cpus(why);
	if (ret > 0)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret) TH_LOG("%s", why);
	save_sis_util();
	self->tainted = tainted();
	snprintf(group, sizeof(group), "sis_tprobe_%d", getpid());
	snprintf(cmd, sizeof(cmd), "t:%s/decision sched_sis_decision_tp prev=$arg2:s32 "
		 "target=$arg3:s32 dest=$arg4:s32 reason=$arg5:u32\n", group);
	ret = append_file(TRACEFS "dynamic_events", cmd);
	if (ret)
		group[0] = '\0';
	ASSERT_EQ(0, ret)
		TH_LOG("a tracepoint probe event on sched_sis_decision_tp: %s (FPROBE_EVENTS?)",
		       strerror(-ret));
	snprintf(instance, sizeof(instance), TRACEFS "instances/%s/", group);
	ret = mkdir(instance, 0755) ? -errno : 0;
	if (!ret) {
		snprintf(path, sizeof(path), "%strace_clock", instance);
		ret = write_file(path, "global");
	}
	snprintf(path, sizeof(path), "%sevents/%s/decision/enable", instance, group);
	if (!ret && access(path, F_OK))
		ret = -errno;
	if (ret)
		cleanup();
	ASSERT_EQ(0, ret) TH_LOG("%s: %s", path, strerror(-ret));
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	TH_LOG("waker %d, prev %d", waker_cpu, prev_cpu);
}

/*
 * The traced copy warns when a way out of select_idle_sibling() set no
 * reason; without panic_on_warn only the taint shows it.
 */
FIXTURE_TEARDOWN(tp)
{
	cleanup();
	EXPECT_FALSE(~self->tainted & tainted() & TAINT_WARN_BIT)
		TH_LOG("the kernel warned during the case (TAINT_WARN): see dmesg");
}

/*
 * Stage until wake_affine() proposes want_target (a kthread runnable on
 * the waker's CPU can make it propose prev), then check the decision.
 */
static void check(struct __test_metadata *_metadata, int how, int busy, int settle_ms,
		  int want_target, int want_dest, const unsigned int *reasons, int nreasons)
{
	struct decision d = { 0 };
	int i, ok = 0, misses = 0;

	for (i = 0; i < TRIES; i++) {
		ASSERT_EQ(0, stage(how, busy, settle_ms, &d));
		/*
		 * A wakee still queued (a delayed dequeue) is woken without
		 * placement: try again, but a tracepoint that never fires fails.
		 */
		if (!d.found) {
			ASSERT_GT(TRIES / 2, ++misses)
				TH_LOG("no sched_sis_decision_tp hit in %d wake-ups", misses);
			continue;
		}
		/* wake_affine() proposes the waker's CPU or prev, nothing else */
		ASSERT_EQ(prev_cpu, d.prev) TH_LOG("target=%d dest=%d", d.target, d.dest);
		ASSERT_TRUE(d.target == waker_cpu || d.target == prev_cpu)
			TH_LOG("target %d is neither the waker's CPU nor prev", d.target);
		if (d.target == want_target)
			break;
		usleep(20000);
	}
	if (i == TRIES)
		SKIP(return, "target %d, never %d, in %d tries: the machine is not idle",
		     d.target, want_target, TRIES);
	TH_LOG("prev=%d target=%d dest=%d reason=%u; placed on %d, ran on %d",
	       d.prev, d.target, d.dest, d.reason, d.placed, d.ran_on);
	EXPECT_EQ(prev_cpu, d.prev);
	/*
	 * sched_wakeup says where the wake-up put the wakee; the wakee's own
	 * sched_getcpu() may already see a later balance, so it is only shown.
	 */
	EXPECT_EQ(d.dest, d.placed) TH_LOG("dest is not where sched_wakeup put the wakee");
	if (want_dest >= 0) {
		EXPECT_EQ(want_dest, d.dest);
	} else {
		EXPECT_TRUE(d.dest != prev_cpu && d.dest != waker_cpu && CPU_ISSET(d.dest, &llc));
	}
	ASSERT_GT(NR_SIS_REASONS, d.reason);
	for (i = 0; i < nreasons; i++)
		ok |= d.reason == reasons[i];
	EXPECT_TRUE(ok) TH_LOG("reason %u", d.reason);
}

/* A sync wake-up targets the waker's busy CPU; prev is idle and affine. */
TEST_F(tp, sync_wakeup_returns_to_idle_prev)
{
	const unsigned int r[] = { SIS_PREV_AFFINE };

	check(_metadata, WAKE_PIPE, BUSY_NONE, 0, waker_cpu, prev_cpu, r, 1);
}

/* A plain wake-up targets the idle prev itself. */
TEST_F(tp, plain_wakeup_targets_idle_prev)
{
	const unsigned int r[] = { SIS_TARGET_IDLE };

	check(_metadata, WAKE_FUTEX, BUSY_NONE, 0, prev_cpu, prev_cpu, r, 1);
}

/* prev busy: the wakee goes to another idle CPU of the LLC. */
TEST_F(tp, busy_prev_moves_to_an_idle_cpu)
{
	const unsigned int r[] = { SIS_RECENT_USED, SIS_IDLE_SMT, SIS_IDLE_CORE, SIS_IDLE_CPU };

	check(_metadata, WAKE_PIPE, BUSY_PREV, 20, waker_cpu, -1, r, 4);
}

/* Nothing idle, and the whole LLC scanned (SIS_UTIL off): the target. */
TEST_F(tp, busy_llc_keeps_the_target)
{
	const unsigned int r[] = { SIS_TARGET_FALLBACK };

	ASSERT_EQ(0, write_file(FEATURES, "NO_SIS_UTIL"));
	check(_metadata, WAKE_PIPE, BUSY_ALL, 20, waker_cpu, waker_cpu, r, 1);
}

/*
 * Overloaded under SIS_UTIL: after long enough for the LLC's balance to see
 * it (see sis_test), the scan has no budget and the target is kept.
 */
TEST_F_TIMEOUT(tp, overloaded_llc_ends_the_scan, 300)
{
	const unsigned int r[] = { SIS_SCAN_BUDGET };

	ASSERT_EQ(0, write_file(FEATURES, "SIS_UTIL"));
	check(_metadata, WAKE_PIPE, BUSY_ALL, 200 + 40 * CPU_COUNT(&llc), waker_cpu,
	      waker_cpu, r, 1);
}

TEST_HARNESS_MAIN
