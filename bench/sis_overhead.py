#!/usr/bin/env python3
"""Benchmark (not a test): does the modern default of the lab kernel cost
anything against stock?  perf bench sched pipe in the 10x2 guest, the lab
and stock kernels booted alternately (lab, stock, stock, lab), the
sched_select_idle_sibling event disabled and schedstats off.  Prints the
median and min-max ops/sec per kernel and the ratio of the medians.

Usage: bench/sis_overhead.py [RUNS_PER_BOOT] [LOOPS]
"""

import io
import json
import os
import re
import statistics
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOP)

from lablib import guest  # noqa: E402

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
loops = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
script = ("echo 0 > /proc/sys/kernel/sched_schedstats; "
          f"for i in $(seq {runs}); do perf bench sched pipe -l {loops}; done")
use, note = guest.resolve_accel(None)
if note:
    print(f"# {note}", flush=True)
ops = {"lab": [], "stock": []}
for kernel in ("lab", "stock", "stock", "lab"):
    print(f"# booting {kernel}: {runs} x perf bench sched pipe -l {loops}", flush=True)
    out = io.BytesIO()
    spec = guest.GuestSpec.make(kernel=kernel, timeout=900, accel=use)
    res = guest.run(spec, ["sh", "-c", script], stdout=out, stderr=io.BytesIO())
    if res.status != 0:
        sys.exit(f"{kernel} guest failed ({res.kind}, {res.status}):\n{res.console_tail()}")
    got = [int(x) for x in re.findall(r"(\d+) ops/sec", out.getvalue().decode())]
    print(f"#   ops/sec: {got}", flush=True)
    ops[kernel] += got

summary = {k: {"median": statistics.median(v), "min": min(v), "max": max(v), "runs": v}
           for k, v in ops.items()}
ratio = summary["lab"]["median"] / summary["stock"]["median"]
for k, s in summary.items():
    print(f"{k:6} {s['median']:8.0f} ops/sec median, {s['min']}-{s['max']} over {len(s['runs'])} runs")
print(f"lab (modern) / stock = {ratio:.3f} ({use.upper()}, 10x2 guest, "
      f"perf bench sched pipe -l {loops})")
os.makedirs(os.path.join(TOP, "build/bench"), exist_ok=True)
with open(os.path.join(TOP, "build/bench/sis_overhead.json"), "w") as f:
    json.dump({"date": time.strftime("%Y-%m-%d %H:%M"), "workload":
               f"perf bench sched pipe -l {loops}", "topology": "10x2", "accelerator": use,
               "ratio_lab_to_stock": ratio, "kernels": summary}, f, indent=1)
