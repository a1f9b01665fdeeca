#!/usr/bin/env python3
"""Benchmark (not a test): what `trace-cmd record -e sched` costs its
per-CPU readers, upstream against stock.

A 4-CPU guest (single-threaded TCG) runs a fork loop pinned to CPU 1,
then `trace-cmd record -e sched` for DURATION seconds at default
settings (depth 1, no snapshot allocated).  The readers are the
recorder processes trace-cmd forks, one per CPU, which poll() their
CPU's trace_pipe_raw.  For each, the voluntary context switches (each
one a sleep, so a wake-up) and the CPU time (utime + stime, in ticks)
over the window are read from /proc.  The kernels boot alternately
(stock, upstream, upstream, stock, ...), RUNS boots each.

Goal (issue 37): the readers' wake-ups, upstream / stock <= 1.05.

Usage: bench/pollers.py [RUNS] [DURATION]
"""

import json
import os
import re
import sys

from benchlib import OUT_DIR, TOP, stats  # noqa: F401

sys.path.insert(0, TOP)
from lablib import guest  # noqa: E402

import io  # noqa: E402

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
duration = int(sys.argv[2]) if len(sys.argv) > 2 else 20

# The recorders are trace-cmd's children; the CPU a recorder reads is
# not in its name, so they are reported in pid order and summed.
SCRIPT = r"""
set -u
cd /tmp
taskset -c 1 sh -c 'while :; do /bin/true; done' &
load=$!
trace-cmd record -e sched -o /tmp/pollers.dat >/dev/null 2>&1 &
tc=$!
sleep 3
recs=$(pgrep -P $tc | sort)
[ -n "$recs" ] || { echo "no recorder"; exit 1; }
snap() {
	for p in $recs; do
		v=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/$p/status)
		t=$(awk '{print $14 + $15}' /proc/$p/stat)
		echo "$p $v $t"
	done
}
snap > /tmp/a
sleep DURATION
snap > /tmp/b
kill -INT $tc
wait $tc
kill $load
join /tmp/a /tmp/b | awk '{printf "reader %s wakeups %d ticks %d\n", $1, $4 - $2, $5 - $3}'
echo "events $(trace-cmd report /tmp/pollers.dat 2>/dev/null | grep -c sched_)"
"""


def boot(kernel):
    print(f"# booting {kernel}", flush=True)
    out = io.BytesIO()
    spec = guest.GuestSpec.make(kernel=kernel, smp=4, mem="2G", timeout=600, tcg="single")
    res = guest.run(spec, ["sh", "-c", SCRIPT.replace("DURATION", str(duration))],
                    stdout=out, stderr=io.BytesIO())
    text = out.getvalue().decode()
    if res.status != 0:
        sys.exit(f"{kernel} guest failed ({res.kind}, {res.status}):\n{text}\n"
                 f"{res.console_tail()}")
    readers = [(int(w), int(t)) for w, t in re.findall(r"wakeups (\d+) ticks (\d+)", text)]
    events = int(re.search(r"events (\d+)", text).group(1))
    return readers, events


results = {"stock": [], "upstream": []}
order = []
for i in range(runs):
    order += ["stock", "upstream"] if i % 2 == 0 else ["upstream", "stock"]
for kernel in order:
    readers, events = boot(kernel)
    wakeups = sum(w for w, _ in readers)
    ticks = sum(t for _, t in readers)
    results[kernel].append({"wakeups": wakeups, "ticks": ticks, "events": events,
                            "readers": readers})
    print(f"{kernel}: {len(readers)} readers, {wakeups} wake-ups, {ticks} ticks, "
          f"{events} events recorded; per reader {readers}", flush=True)

summary = {}
for kernel, rs in results.items():
    summary[kernel] = {k: stats([r[k] for r in rs]) for k in ("wakeups", "ticks", "events")}
for k in ("wakeups", "ticks"):
    s, u = summary["stock"][k]["median"], summary["upstream"][k]["median"]
    summary[f"ratio_{k}"] = u / s if s else None
print(json.dumps(summary, indent=1))
os.makedirs(OUT_DIR, exist_ok=True)
with open(os.path.join(OUT_DIR, "pollers.json"), "w") as f:
    json.dump({"runs": results, "summary": summary, "duration": duration,
               "note": "TCG, single-threaded, 4 CPUs"}, f, indent=1)
print(f"pollers: readers' wake-ups upstream/stock {summary['ratio_wakeups']:.3f}, "
      f"CPU ticks {summary['ratio_ticks'] or 0:.3f} (TCG, {runs} boots each, "
      f"{duration} s)")
