#!/usr/bin/env python3
"""Benchmark (not a test) for the snapshot series.

1. Time to take one snapshot (a write of "1" to "snapshot", timed in the
   guest) with 1 MB and 64 MB per CPU, at depth 1 and depth 8, on the lab
   kernel; depth 1 on stock as well. The live buffer is filled first.
   Goal: 64 MB / 1 MB <= 1.2 at each depth.
   Goals: depth 1 <= 1.05 x stock, depth 8 <= 1.1 x depth 1.
2. trace_marker write rate, lab against stock, booted alternately
   (lab, stock, stock, lab): what the snapshot hooks cost a tracing hot
   path.
3. Burst: trace_marker writes as fast as one task goes, each a hit of a
   "snapshot" trigger on ftrace:print, at depth 1 and 8 (lab only): the
   hits a second, and how many became snapshots (all, or it is a bug).

The guest has 2 CPUs and 3 GB: 64 MB per CPU at depth 8 is nine buffers
(live and 8 snapshots) per CPU. Everything runs under TCG.

Usage: bench/snapshot.py [TAKES] [MARKER_RUNS_PER_BOOT] [MARKERS]
"""

import json
import os
import re
import sys
import time

from benchlib import OUT_DIR as out_dir, TOP, boot, build_helper, stats

takes = int(sys.argv[1]) if len(sys.argv) > 1 else 15
mruns = int(sys.argv[2]) if len(sys.argv) > 2 else 5
markers = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
rel = build_helper()

cases = [("lab", 1024, 1), ("lab", 65536, 1), ("lab", 1024, 8), ("lab", 65536, 8),
         ("stock", 1024, 1), ("stock", 65536, 1)]
take = {}
for kernel in ("lab", "stock"):
    mine = [c for c in cases if c[0] == kernel]
    script = "; ".join(f"echo case {kb} {d}; {rel} take {kb} {d} {takes}"
                       for _, kb, d in mine)
    text = boot(kernel, script, f"{len(mine)} snapshot cases x {takes}")
    for block in text.split("case ")[1:]:
        kb, d = (int(x) for x in block.split()[:2])
        us = [float(x) for x in re.findall(r"take_us ([\d.]+)", block)]
        take[f"{kernel} {kb // 1024}MB depth{d}"] = stats(us)

bursts = int(os.environ.get("BURST_HITS", "20000"))
burst = {}
text = boot("lab", "; ".join(f"echo case {d}; {rel} burst {d} {bursts}" for d in (1, 8)),
            f"bursts of {bursts} trigger hits")
for block in text.split("case ")[1:]:
    d = int(block.split()[0])
    m = re.search(r"burst_per_s (\d+) taken (-?\d+) of (\d+)", block)
    burst[f"depth{d}"] = {"hits_per_s": int(m.group(1)), "taken": int(m.group(2)),
                          "hits": int(m.group(3))}

rate = {"lab": [], "stock": []}
for kernel in ("lab", "stock", "stock", "lab"):
    script = "; ".join([f"{rel} marker {markers}"] * mruns)
    text = boot(kernel, script, f"{mruns} x {markers} trace_marker writes")
    rate[kernel] += [float(x) for x in re.findall(r"marker_per_s ([\d.]+)", text)]

print("\nTime to take one snapshot (write of 1 to snapshot, 2 CPUs, TCG):")
for name, s in take.items():
    print(f"  {name:22} median {s['median']:9.1f} us   range {s['min']:.1f}-{s['max']:.1f}   n={s['n']}")
ratios = {}
for kernel, d in (("lab", 1), ("lab", 8), ("stock", 1)):
    small, big = take[f"{kernel} 1MB depth{d}"], take[f"{kernel} 64MB depth{d}"]
    ratios[f"{kernel} depth{d}"] = big["median"] / small["median"]
    print(f"  {kernel} depth {d}: 64 MB / 1 MB = {ratios[f'{kernel} depth{d}']:.2f} (goal <= 1.2)")
for name, (a, b) in {"lab depth1 / stock depth1": ("lab 1MB depth1", "stock 1MB depth1"),
                     "lab depth8 / lab depth1": ("lab 1MB depth8", "lab 1MB depth1")}.items():
    ratios[name] = take[a]["median"] / take[b]["median"]
    print(f"  {name}: {ratios[name]:.2f} (1 MB)")
print("\nBurst of trigger hits (one task writing trace_marker, lab):")
for name, b in burst.items():
    print(f"  {name}: {b['hits_per_s']} hits/s, {b['taken']} snapshots of {b['hits']} hits")
rs = {k: stats(v) for k, v in rate.items()}
marker_ratio = rs["lab"]["median"] / rs["stock"]["median"]
print("\ntrace_marker writes per second (64-byte lines, TCG):")
for k, s in rs.items():
    print(f"  {k:6} median {s['median']:9.0f}   range {s['min']:.0f}-{s['max']:.0f}   n={s['n']}")
print(f"  lab / stock = {marker_ratio:.3f}")
with open(os.path.join(out_dir, "snapshot.json"), "w") as f:
    json.dump({"date": time.strftime("%Y-%m-%d %H:%M"), "tcg": True, "smp": 2,
               "take_us": take, "ratios": ratios, "burst": burst, "marker_per_s": rs,
               "marker_ratio_lab_to_stock": marker_ratio}, f, indent=1)
print(f"\nwritten: {os.path.relpath(os.path.join(out_dir, 'snapshot.json'), TOP)}")
