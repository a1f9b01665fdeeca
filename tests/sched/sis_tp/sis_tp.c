// SPDX-License-Identifier: GPL-2.0
/*
 * A probe on the bare sched_sis_decision_tp tracepoint, attached as a
 * module attaches one.  It keeps the last decision of each task named
 * comm (sis_test: by pid, in 256 slots) and shows them in
 * /sys/kernel/debug/sis_tp, one line a task: "PID PREV TARGET DEST
 * REASON".  sis_test holds them against what it staged and against the
 * sched_select_idle_sibling event.
 *
 * It also stages the one wake-up that user space cannot: a wake-up from a
 * per-CPU kthread on the wakee's previous CPU (kthread_stack).  A read of
 * /sys/kernel/debug/sis_tp_kwake sleeps until a write of a CPU number
 * makes a kthread bound to that CPU wake the readers.
 */
#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <trace/events/sched.h>

#define SLOTS 256

/* Only tasks of this name are recorded: other wake-ups share no slot. */
static char comm[TASK_COMM_LEN] = "sis_test";
module_param_string(comm, comm, sizeof(comm), 0444);
MODULE_PARM_DESC(comm, "record only the decisions of tasks of this name");

/* probe=0 leaves the tracepoint alone: wake-ups then take the default path. */
static bool probe = true;
module_param(probe, bool, 0444);
MODULE_PARM_DESC(probe, "attach the probe to sched_sis_decision_tp (default 1)");

struct decision {
	pid_t pid;
	int prev, target, dest;
	enum sis_reason reason;
};

static struct decision last[SLOTS];
static DEFINE_RAW_SPINLOCK(last_lock);
static struct dentry *file, *kwake_file;
static DECLARE_WAIT_QUEUE_HEAD(kwake_wq);
static bool kwake_done;

/*
 * The reasons' names, as the documentation and the lab's event give them;
 * a kernel with more reasons (the 3.8 and 3.9 policies' idle_group) shows
 * those as "other".
 */
static const char *const names[NR_SIS_REASONS] = {
	[SIS_TARGET_IDLE] = "target_idle", [SIS_PREV_AFFINE] = "prev_affine",
	[SIS_KTHREAD_STACK] = "kthread_stack", [SIS_RECENT_USED] = "recent_used",
	[SIS_ASYM_CAPACITY] = "asym_capacity", [SIS_IDLE_SMT] = "idle_smt",
	[SIS_IDLE_CORE] = "idle_core", [SIS_IDLE_CPU] = "idle_cpu",
	[SIS_CLUSTER_PREV] = "cluster_prev", [SIS_CLUSTER_RECENT] = "cluster_recent",
	[SIS_SCAN_BUDGET] = "scan_budget", [SIS_TARGET_FALLBACK] = "target_fallback",
};

static void sis_tp_probe(void *data, struct task_struct *p, int prev, int target,
			 int dest, enum sis_reason reason)
{
	struct decision *d = &last[p->pid % SLOTS];
	unsigned long flags;

	if (strncmp(p->comm, comm, TASK_COMM_LEN))
		return;
	raw_spin_lock_irqsave(&last_lock, flags);
	d->pid = p->pid;
	d->prev = prev;
	d->target = target;
	d->dest = dest;
	d->reason = reason;
	raw_spin_unlock_irqrestore(&last_lock, flags);
}

static int sis_tp_show(struct seq_file *m, void *v)
{
	struct decision d;
	int i;

	for (i = 0; i < SLOTS; i++) {
		raw_spin_lock_irq(&last_lock);
		d = last[i];
		raw_spin_unlock_irq(&last_lock);
		if (!d.pid)
			continue;
		seq_printf(m, "%d %d %d %d %s\n", d.pid, d.prev, d.target, d.dest,
			   (unsigned int)d.reason < NR_SIS_REASONS && names[d.reason] ?
			   names[d.reason] : "other");
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sis_tp);

/* Runs on the CPU it is bound to, and wakes the readers from there. */
static int kwake_fn(void *unused)
{
	WRITE_ONCE(kwake_done, true);
	wake_up_all(&kwake_wq);
	return 0;
}

static ssize_t kwake_read(struct file *filp, char __user *ubuf, size_t cnt, loff_t *ppos)
{
	int ret = wait_event_interruptible(kwake_wq, READ_ONCE(kwake_done));

	if (ret)
		return ret;
	WRITE_ONCE(kwake_done, false);
	return 0;
}

static ssize_t kwake_write(struct file *filp, const char __user *ubuf, size_t cnt,
			   loff_t *ppos)
{
	struct task_struct *t;
	unsigned int cpu;
	int ret = kstrtouint_from_user(ubuf, cnt, 10, &cpu);

	if (ret)
		return ret;
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	t = kthread_create_on_cpu(kwake_fn, NULL, cpu, "sis_kwake/%u");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wake_up_process(t);
	return cnt;
}

static const struct file_operations kwake_fops = {
	.owner = THIS_MODULE,
	.read = kwake_read,
	.write = kwake_write,
	.llseek = noop_llseek,
};

static int __init sis_tp_init(void)
{
	int ret = probe ? register_trace_sched_sis_decision_tp(sis_tp_probe, NULL) : 0;

	if (ret)
		return ret;
	file = debugfs_create_file("sis_tp", 0444, NULL, NULL, &sis_tp_fops);
	kwake_file = debugfs_create_file("sis_tp_kwake", 0600, NULL, NULL, &kwake_fops);
	return 0;
}

static void __exit sis_tp_exit(void)
{
	debugfs_remove(kwake_file);
	debugfs_remove(file);
	if (probe) {
		unregister_trace_sched_sis_decision_tp(sis_tp_probe, NULL);
		tracepoint_synchronize_unregister();
	}
}

module_init(sis_tp_init);
module_exit(sis_tp_exit);
MODULE_DESCRIPTION("A probe on sched_sis_decision_tp and a per-CPU kthread waker, for sis_test");
MODULE_LICENSE("GPL");
