/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM lab_modevent

#if !defined(_LAB_MODEVENT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _LAB_MODEVENT_H

#include <linux/tracepoint.h>

TRACE_EVENT(lab_modevent_hit,
	TP_PROTO(int n),
	TP_ARGS(n),
	TP_STRUCT__entry(
		__field(int, n)
	),
	TP_fast_assign(
		__entry->n = n;
	),
	TP_printk("lab_modevent n=%d", __entry->n)
);

#endif /* _LAB_MODEVENT_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE lab_modevent
#include <trace/define_trace.h>
