#!/usr/bin/env python3
"""make demo: the bouncing-cow experiment, side by side.

Boots the lab kernel (10 cores x 2 threads) and runs 1 tbench pair under
the placement policies 3.8, 3.9 and modern and pinned to CPUs 2 and 4, then
boots the stock kernel with the same workload; each case also runs a pipe
ping-pong (perf bench sched pipe).  Prints a table and the headline,
writes results.json and placement.png (from sched_switch snapshots).

Usage: demo/demo.py [--runs N] [--duration S] [--out DIR]
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOP)

from lablib import guest  # noqa: E402

LAB_CASES = ["3.8", "3.9", "modern", "pinned"]
SEED = 252.01 / 15.22
SWITCH = re.compile(r"\[(\d+)\].*?\s([\d.]+): sched_switch: .*==> next_comm=(\S+) next_pid=(\d+)")


def boot(kernel, runs, duration, cases, raw_dir):
    """Run demo/cases.sh in one guest; its raw files land in raw_dir."""
    print(f"demo: booting the {kernel} kernel (10x2, TCG): {runs} run(s) x "
          f"{len(cases)} case(s) x {duration}s", flush=True)
    timeout = 120 + runs * len(cases) * (duration * 3 + 60)
    res = guest.run([os.path.join(TOP, "demo/cases.sh"), kernel, str(runs),
                     str(duration)] + cases, kernel=kernel, timeout=timeout,
                    keep=True, stdout=sys.stdout.buffer, stderr=sys.stdout.buffer)
    if res.kind != "exit":
        print(f"demo: the {kernel} guest failed ({res.kind}); console tail:\n"
              f"{res.console_tail()}", file=sys.stderr)
        sys.exit(1)
    src = os.path.join(res.rundir, "raw")
    for name in os.listdir(src):
        shutil.copy(os.path.join(src, name), raw_dir)
    shutil.rmtree(res.rundir, ignore_errors=True)
    if res.status != 0:
        print(f"demo: the {kernel} guest reported failed cases (exit {res.status})",
              file=sys.stderr)
        sys.exit(1)


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def sis_reasons(text):
    """Sum the sis_stats columns over all CPUs: {reason: count}."""
    lines = text.split("\n")
    if not lines or not lines[0].startswith("cpu "):
        return {}
    names = lines[0].split()[1:]
    total = dict.fromkeys(names, 0)
    for line in lines[1:]:
        cols = line.split()
        if len(cols) == len(names) + 1:
            for name, v in zip(names, cols[1:]):
                total[name] += int(v)
    return total


def switches(text):
    """(time, cpu, comm, pid) of every switch to a tbench task."""
    out = []
    for m in SWITCH.finditer(text):
        cpu, t, comm, pid = int(m.group(1)), float(m.group(2)), m.group(3), int(m.group(4))
        if comm.startswith("tbench"):
            out.append((t, cpu, comm, pid))
    return out


def moves(sw):
    """CPU moves per 1,000 round trips and distinct CPUs in a snapshot.
    A round trip is one switch-in of the client (tbench)."""
    last, nmoves, cpus = {}, 0, set()
    trips = sum(1 for s in sw if s[2] == "tbench")
    for t, cpu, comm, pid in sw:
        cpus.add(cpu)
        if pid in last and last[pid] != cpu:
            nmoves += 1
        last[pid] = cpu
    return (1000.0 * nmoves / trips if trips else None), len(cpus)


def summarise(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "runs": values}


def collect(raw_dir, kernel, case, runs):
    row = {"kernel": kernel, "case": case, "runs": []}
    for r in range(1, runs + 1):
        base = os.path.join(raw_dir, f"{case}.{r}")
        tb = read(base + ".tbench")
        m = re.search(r"Throughput ([\d.]+) MB/sec", tb)
        pipe = re.search(r"(\d+) ops/sec", read(base + ".pipe"))
        sw = switches(read(base + ".snapshot"))
        mv, ncpu = moves(sw)
        row["runs"].append({
            "run": r,
            "tbench_mb_s": float(m.group(1)) if m else None,
            "pipe_ops_s": int(pipe.group(1)) if pipe else None,
            "moves_per_1000_round_trips": mv,
            "distinct_cpus": ncpu,
            "sis_tbench": sis_reasons(read(base + ".tbench.sis")),
            "sis_pipe": sis_reasons(read(base + ".pipe.sis")),
            "switches": sw,
        })
    for key in ("tbench_mb_s", "pipe_ops_s", "moves_per_1000_round_trips", "distinct_cpus"):
        row[key] = summarise([x[key] for x in row["runs"]])
    reasons = {}
    for x in row["runs"]:
        for k, v in x["sis_tbench"].items():
            reasons[k] = reasons.get(k, 0) + v
    total = sum(reasons.values())
    row["top_reasons"] = [(k, round(100.0 * v / total)) for k, v in
                          sorted(reasons.items(), key=lambda kv: -kv[1])[:3] if v] if total else []
    return row


def fmt(s, digits=1):
    if not s:
        return "-"
    return f"{s['median']:.{digits}f} ({s['min']:.{digits}f}-{s['max']:.{digits}f})"


def ratio(a, b):
    if not a or not b or not b["median"]:
        return None
    return a["median"] / b["median"]


def plot(rows, png, datdir):
    """One panel per case: CPU over time of each task of the pair, from the
    last run's end-of-run sched_switch snapshot."""
    panels = []
    for row in rows:
        sw = row["runs"][-1]["switches"]
        if not sw:
            continue
        t_end = sw[-1][0]
        window = [s for s in sw if s[0] >= t_end - 0.5]
        dat = os.path.join(datdir, f"switch-{row['kernel']}-{row['case']}.dat")
        with open(dat, "w") as f:
            for comm in ("tbench", "tbench_srv"):
                f.write(f"# {comm}\n")
                for t, cpu, c, pid in window:
                    if c == comm:
                        f.write(f"{(t - window[0][0]) * 1000:.3f} {cpu}\n")
                f.write("\n\n")
        title = row["case"] if row["kernel"] == "lab" else "stock kernel"
        panels.append((dat, title))
    if not panels:
        return False
    script = [
        "set terminal pngcairo size 1400,%d font 'sans,10'" % (260 * len(panels)),
        f"set output '{png}'",
        "set multiplot layout %d,1 title 'Where the tbench pair ran: the last 0.5 s of a run "
        "(sched\\_switch snapshot; 10 cores x 2 threads, TCG)'" % len(panels),
        "set yrange [-0.5:19.5]", "set ytics 0,2,19", "set ylabel 'CPU'",
        "set xlabel 'ms'", "set key outside right", "set grid ytics",
    ]
    for dat, title in panels:
        script.append(f"set title 'policy {title}'" if title != "stock kernel"
                      else "set title 'stock kernel'")
        script.append(f"plot '{dat}' index 0 with points pt 7 ps 0.5 lc rgb '#d62728' title 'tbench (client)', "
                      f"'' index 1 with points pt 7 ps 0.5 lc rgb '#1f77b4' title 'tbench\\_srv (server)'")
    script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True)
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3, help="runs per case (default 3)")
    p.add_argument("--duration", type=int, default=10,
                   help="seconds per tbench run (default 10)")
    p.add_argument("--out", default=os.path.join(TOP, "results"),
                   help="output directory (default results/)")
    args = p.parse_args()
    if args.runs < 1 or args.duration < 2:
        p.error("--runs must be >= 1 and --duration >= 2")
    start = time.time()
    out = os.path.abspath(args.out)
    raw_lab, raw_stock = os.path.join(out, "raw-lab"), os.path.join(out, "raw-stock")
    for d in (raw_lab, raw_stock):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)

    boot("lab", args.runs, args.duration, LAB_CASES, raw_lab)
    boot("stock", args.runs, args.duration, ["stock"], raw_stock)

    rows = [collect(raw_lab, "lab", c, args.runs) for c in LAB_CASES]
    rows.append(collect(raw_stock, "stock", "stock", args.runs))
    by = {r["case"]: r for r in rows}
    base, pinned = by["3.8"]["tbench_mb_s"], by["pinned"]["tbench_mb_s"]

    print(f"\nBouncing cow, 1 tbench pair, 10 cores x 2 threads, TCG (emulated), "
          f"{args.runs} run(s) x {args.duration}s; median (min-max)\n")
    hdr = (f"{'kernel/case':<14} {'tbench MB/s':<22} {'/3.8':>6} {'/pinned':>8} "
           f"{'moves/1k RT':<20} {'CPUs':<10} {'pipe ops/s':<22} top reasons")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        name = f"{r['kernel']}/{r['case']}" if r["kernel"] == "lab" else "stock"
        r38, rp = ratio(r["tbench_mb_s"], base), ratio(r["tbench_mb_s"], pinned)
        reasons = ", ".join(f"{k} {v}%" for k, v in r["top_reasons"]) or "-"
        print(f"{name:<14} {fmt(r['tbench_mb_s'], 2):<22} "
              f"{(f'{r38:.2f}x' if r38 else '-'):>6} {(f'{rp:.2f}x' if rp else '-'):>8} "
              f"{fmt(r['moves_per_1000_round_trips'], 0):<20} {fmt(r['distinct_cpus'], 0):<10} "
              f"{fmt(r['pipe_ops_s'], 0):<22} {reasons}")
    head = ratio(by["3.9"]["tbench_mb_s"], base)
    print(f"\n3.9 / 3.8 = {head:.1f}x (seed, on hardware: {SEED:.1f}x)  [TCG]" if head
          else "\n3.9 / 3.8: no figures")
    m_stock = ratio(by["modern"]["tbench_mb_s"], by["stock"]["tbench_mb_s"])
    if m_stock:
        print(f"modern (lab) / stock = {m_stock:.2f}x")

    png = os.path.join(out, "placement.png")
    drew = plot(rows, png, out)
    result = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "tcg": True, "topology": {"sockets": 1, "cores": 10, "threads": 2},
        "duration_s": args.duration, "runs": args.runs,
        "kernels": {k: read(os.path.join(d, f"kernel.{k}")).strip()
                    for k, d in (("lab", raw_lab), ("stock", raw_stock))},
        "headline_3_9_over_3_8": head, "seed_ratio": SEED,
        "cases": [{k: v for k, v in r.items()} for r in rows],
        "wall_s": round(time.time() - start, 1),
    }
    for r in result["cases"]:
        for x in r["runs"]:
            x["switches_in_snapshot"] = len(x.pop("switches"))
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(f"\ndemo: took {result['wall_s']:.0f}s")
    print(f"demo: wrote {os.path.relpath(os.path.join(out, 'results.json'))}")
    if drew:
        print(f"demo: wrote {os.path.relpath(png)}")
    print(f"demo: raw guest output in {os.path.relpath(raw_lab)}/ and {os.path.relpath(raw_stock)}/")


if __name__ == "__main__":
    main()
