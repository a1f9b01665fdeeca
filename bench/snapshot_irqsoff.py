#!/usr/bin/env python3
"""Benchmark (not a test): what a snapshot costs with interrupts off.

With snapshots next to a latency tracer (depth 2 or more), the irqsoff
tracer can time the snapshot itself: the longest section with interrupts
off that "echo 1 > snapshot" and a "snapshot" trigger cause, at depths 2
and 8, with 1 MB and 64 MB per CPU (lab kernel).  irqsoff times CPU 1
only, where the snapshots are taken, and tracing stops right after each
snapshot.  That longest section is either the swap itself or the
irq_work interrupt that follows it; a sample whose longest section is
any other interrupt (a timer tick) is taken again, and counted.

Stock cannot trace a snapshot with irqsoff (EBUSY): its swap is timed
with function_graph on update_max_tr(), at depth 1, for comparison.

Goal: depth 8 at 64 MB no worse than 1.1 x depth 2 at 1 MB (medians).
The guest has 2 CPUs and 3 GB; everything runs under TCG.

Usage: bench/snapshot_irqsoff.py [SAMPLES]
"""

import json
import os
import re
import sys
import time

from benchlib import OUT_DIR as out_dir, TOP, boot, build_helper, stats

samples = int(sys.argv[1]) if len(sys.argv) > 1 else 30
rel = build_helper()

cases = [(d, kb, how) for d in (2, 8) for kb in (1024, 65536) for how in ("file", "trigger")]
script = "; ".join(f"echo case {d} {kb} {how}; {rel} irqsoff {kb} {d} {samples} {how}"
                   for d, kb, how in cases)
text = boot("lab", script, f"{len(cases)} cases x {samples} snapshots under irqsoff")
lab = {}
for block in text.split("case ")[1:]:
    d, kb, how = block.split()[:3]
    name = f"{how} depth{d} {int(kb) // 1024}MB"
    found = re.findall(r"irqsoff_us (\d+) (\w+)", block)
    lab[name] = stats([int(us) for us, _ in found])
    lab[name]["swap"] = sum(kind == "swap" for _, kind in found)
    lab[name]["irq_work"] = sum(kind == "irq_work" for _, kind in found)
    lab[name]["retakes"] = len(re.findall(r"irqsoff_retake", block))

script = "; ".join(f"echo case {kb}; {rel} graph {kb} {samples}" for kb in (1024, 65536))
text = boot("stock", script, f"update_max_tr() under function_graph x {samples}")
stock = {}
for block in text.split("case ")[1:]:
    kb = int(block.split()[0])
    stock[f"file depth1 {kb // 1024}MB"] = stats(
        [float(x) for x in re.findall(r"graph_us ([\d.]+)", block)])

print("\nLongest section with interrupts off per snapshot, lab kernel, irqsoff (us, TCG):")
for name, s in lab.items():
    if s["n"]:
        print(f"  {name:24} median {s['median']:7.1f}   range {s['min']}-{s['max']}"
              f"   n={s['n']} (swap {s['swap']}, irq_work {s['irq_work']};"
              f" {s['retakes']} retaken)")
    else:
        print(f"  {name:24} no sample ({s['retakes']} retaken)")
print("\nStock's update_max_tr(), function_graph, depth 1 (us, TCG):")
for name, s in stock.items():
    if s["n"]:
        print(f"  {name:24} median {s['median']:7.1f}   range {s['min']}-{s['max']}   n={s['n']}")
ratios = {}
for how in ("file", "trigger"):
    a, b = lab[f"{how} depth8 64MB"], lab[f"{how} depth2 1MB"]
    if a["n"] and b["n"]:
        ratios[how] = a["median"] / b["median"]
        print(f"  {how}: depth 8 at 64 MB / depth 2 at 1 MB = {ratios[how]:.2f} (goal <= 1.1)")
with open(os.path.join(out_dir, "snapshot_irqsoff.json"), "w") as f:
    json.dump({"date": time.strftime("%Y-%m-%d %H:%M"), "tcg": True, "smp": 2,
               "samples": samples, "lab_irqsoff_us": lab, "stock_graph_us": stock,
               "ratios": ratios}, f, indent=1)
print(f"\nwritten: {os.path.relpath(os.path.join(out_dir, 'snapshot_irqsoff.json'), TOP)}")
