// SPDX-License-Identifier: GPL-2.0
/*
 * A module with a trace event of its own, for the snapshot history's
 * module-unload case (tests/snapshot/history.c): once the module is gone,
 * no buffer of a trace array may keep its events, whose id a later module
 * can take.
 *
 *   echo N > /sys/module/lab_modevent/parameters/fire   emits lab_modevent_hit n=N
 */
#include <linux/module.h>

#define CREATE_TRACE_POINTS
#include "lab_modevent.h"

static int fire_set(const char *val, const struct kernel_param *kp)
{
	int n, ret = kstrtoint(val, 10, &n);

	if (ret)
		return ret;
	trace_lab_modevent_hit(n);
	return 0;
}

static const struct kernel_param_ops fire_ops = {
	.set = fire_set,
};
module_param_cb(fire, &fire_ops, NULL, 0200);
MODULE_PARM_DESC(fire, "write N to emit the event lab_modevent_hit n=N");

MODULE_DESCRIPTION("A trace event in a module, for the lab's tests");
MODULE_LICENSE("GPL");
