#!/bin/sh
# In the guest: what the 3.9 article promises beyond the two seeds, as
# KTAP.  $T is the tracefs to read (default /sys/kernel/tracing); pointing
# it at a copy with a 3.8-style format shows the format cases fail.
#   1. trace events lost their padding: no common_padding field, the
#      common fields are exactly type, flags, preempt_count and pid at 0-7,
#      and an event's own fields start at offset 8 (12 in 3.8);
#   2. trace-cmd (libtraceevent) records and reports sched_switch;
#   3. perf stat -I prints interval lines (software events: TCG has no PMU).
# KTAP with the tree's kselftest/ktap_helpers.sh.
T=${T:-/sys/kernel/tracing}
top=$(cd "$(dirname "$0")/../.." && pwd)
# The repository, build/linux included, is at the same path in the guest.
. "$top/build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh" || exit 2
check() { # name test-function
	ktap_test_result "$1" "$2"
}

ktap_print_header
ktap_set_plan 5

formats=$(ls "$T"/events/*/*/format 2>/dev/null | wc -l)
echo "# $formats event formats under $T/events"

no_padding() {
	[ "$formats" -gt 0 ] || { echo "# no event formats"; return 1; }
	padded=$(grep -l common_padding "$T"/events/*/*/format | wc -l)
	echo "# formats with common_padding: $padded"
	[ "$padded" -eq 0 ]
}
check events_have_no_common_padding no_padding

# The common fields of every format, one line per format file:
# "FILE: name offset size,name offset size,...".  One awk over all of
# them: a sed per file cost about 80 s of the suite under TCG.
common_fields() {
	awk -F'\t' '
	FNR == 1 && NR > 1 { print file ": " cur; cur = "" }
	FNR == 1 { file = FILENAME }
	$2 ~ /^field:.* common_[a-z_]*;$/ {
		n = $2; sub(/;$/, "", n); sub(/.* /, "", n)
		o = $3; sub(/^offset:/, "", o); sub(/;$/, "", o)
		s = $4; sub(/^size:/, "", s); sub(/;$/, "", s)
		cur = cur (cur == "" ? "" : ",") n " " o " " s
	}
	END { if (NR) print file ": " cur }' "$@"
}
want="common_type 0 2,common_flags 2 1,common_preempt_count 3 1,common_pid 4 4"
exact_common() {
	common_fields "$T"/events/*/*/format > /tmp/common-fields
	bad=$(grep -vc ": $want\$" /tmp/common-fields)
	grep -v ": $want\$" /tmp/common-fields | head -3 | sed 's/^/# /'
	echo "# formats whose common fields differ: $bad of $formats"
	[ "$formats" -gt 0 ] && [ "$(wc -l < /tmp/common-fields)" -eq "$formats" ] && [ "$bad" -eq 0 ]
}
check common_fields_are_type_flags_preempt_count_pid exact_common

first_field_at_8() {
	f=$T/events/sched/sched_switch/format
	off=$(sed -n 's/^\tfield:[^;]* \([a-z_]*\)\(\[[0-9]*\]\)*;\toffset:\([0-9]*\);.*/\1 \3/p' "$f" |
	      grep -v '^common_' | head -1 | cut -d' ' -f2)
	echo "# sched_switch's first own field at offset ${off:-?}; 3.8's struct trace_entry" \
	     "had an int common_padding, so it started at 12: ${off:+$((12 - off))} bytes saved per event"
	[ "$off" = 8 ]
}
check event_fields_start_at_offset_8 first_field_at_8

trace_cmd_reports() {
	d=$(mktemp -d)
	trace-cmd record -q -e sched:sched_switch -o "$d/trace.dat" sleep 1 > "$d/record.log" 2>&1 ||
		{ sed 's/^/# /' "$d/record.log"; return 1; }
	trace-cmd report -i "$d/trace.dat" > "$d/report" 2> "$d/report.err"
	# libtraceevent's sched_switch handler: "prev:pid [prio] S ==> next:pid [prio]"
	got=$(grep -c 'sched_switch: .*:[0-9]* \[[0-9]*\] .* ==> .*:[0-9]* \[[0-9]*\]' "$d/report")
	warn=$(grep -ci 'failed\|unknown\|error' "$d/report.err")
	echo "# trace-cmd report: $got sched_switch events parsed, $warn parse complaints"
	[ "$got" -gt 0 ] && [ "$warn" -eq 0 ]
}
check trace_cmd_records_and_reports_sched_switch trace_cmd_reports

# An interval line: "<time> <count or <not counted>> [msec] <event>".  While
# sleep sleeps, its intervals are <not counted>; the first one, which
# covers its start, must hold a count.
perf_intervals() {
	perf stat -I 500 -e task-clock,context-switches -- sleep 2 > /tmp/perf-stat.out 2>&1
	tc=$(grep -c '^ *[0-9]\+\.[0-9]\+ \+\([0-9.,]\+\|<not counted>\) \+msec task-clock' /tmp/perf-stat.out)
	cs=$(grep -c '^ *[0-9]\+\.[0-9]\+ \+\([0-9,]\+\|<not counted>\) \+context-switches' /tmp/perf-stat.out)
	counted=$(grep -c '^ *[0-9]\+\.[0-9]\+ \+[0-9.,]\+ \+msec task-clock' /tmp/perf-stat.out)
	echo "# perf stat -I 500 over sleep 2: $tc task-clock and $cs context-switches interval lines, $counted with a count"
	[ "$tc" -ge 4 ] && [ "$cs" -ge 4 ] && [ "$counted" -ge 1 ] || sed 's/^/# /' /tmp/perf-stat.out
	[ "$tc" -ge 4 ] && [ "$cs" -ge 4 ] && [ "$counted" -ge 1 ]
}
check perf_stat_prints_intervals perf_intervals
ktap_finished
