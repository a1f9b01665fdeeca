// SPDX-License-Identifier: GPL-2.0
/*
 * Provoke the splats that LKDTM cannot, to prove that ./lab run reports
 * them (tests/lab/selftest.py, on the debug kernel only):
 *
 *   insmod lab_splat.ko what=circular   lockdep: circular locking dependency
 *   insmod lab_splat.ko what=rcu        lockdep: suspicious RCU usage
 *
 * Loading always fails with -EAGAIN, so the module never stays.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

static char *what = "circular";
module_param(what, charp, 0444);
MODULE_PARM_DESC(what, "circular or rcu");

static DEFINE_MUTEX(lab_a);
static DEFINE_MUTEX(lab_b);

struct lab_obj {
	int v;
};

static struct lab_obj __rcu *lab_ptr;

static int __init lab_splat_init(void)
{
	if (!strcmp(what, "circular")) {
		/* A then B, then B then A: lockdep needs no real deadlock. */
		mutex_lock(&lab_a);
		mutex_lock(&lab_b);
		mutex_unlock(&lab_b);
		mutex_unlock(&lab_a);

		mutex_lock(&lab_b);
		mutex_lock(&lab_a);
		mutex_unlock(&lab_a);
		mutex_unlock(&lab_b);
	} else if (!strcmp(what, "rcu")) {
		struct lab_obj *p;

		/* rcu_dereference() outside rcu_read_lock(). */
		p = rcu_dereference(lab_ptr);
		pr_info("lab_splat: %p\n", p);
	} else {
		pr_err("lab_splat: what=%s: want circular or rcu\n", what);
		return -EINVAL;
	}
	return -EAGAIN;
}
module_init(lab_splat_init);

MODULE_DESCRIPTION("Provoke lockdep splats for the lab's own tests");
MODULE_LICENSE("GPL");
