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
EVENT = re.compile(r"\[(\d+)\].*?\s([\d.]+): \w+:")
ENTRIES = re.compile(r"entries-in-buffer/entries-written: (\d+)/(\d+)")
LOST = re.compile(r"CPU:(\d+) \[LOST (\d+) EVENTS\]")


def boot(kernel, runs, duration, cases, raw_dir, use):
    """Run demo/cases.sh in one guest; its raw files land in raw_dir."""
    print(f"demo: booting the {kernel} kernel (10x2, {use.upper()}): {runs} run(s) x "
          f"{len(cases)} case(s) x {duration}s", flush=True)
    timeout = 120 + runs * len(cases) * (duration * 3 + 60)
    spec = guest.GuestSpec.make(kernel=kernel, timeout=timeout, accel=use)
    res = guest.run(spec, [os.path.join(TOP, "demo/cases.sh"), kernel, str(runs),
                           str(duration)] + cases,
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
    """The switches to a tbench task that every CPU's buffer still holds:
    [(time, cpu, comm, pid)], and the events lost in that window.

    Each CPU's buffer wraps on its own, so once one has wrapped the
    snapshot starts later on a busy CPU than on an idle one; before the
    latest start, moves to the busy CPU would be missed.  So if the header
    says events were overwritten, the window starts at the latest first
    event of any CPU.  If none were, it is the whole snapshot: a CPU the
    pair first reaches in its last moments must not cut the window short."""
    first = {}
    for m in EVENT.finditer(text):
        cpu = int(m.group(1))
        if cpu not in first:
            first[cpu] = float(m.group(2))
    kept = ENTRIES.search(text)
    wrapped = not kept or kept.group(1) != kept.group(2)
    start = max(first.values()) if first and wrapped else 0.0
    out = []
    for m in SWITCH.finditer(text):
        cpu, t, comm, pid = int(m.group(1)), float(m.group(2)), m.group(3), int(m.group(4))
        if comm.startswith("tbench") and t >= start:
            out.append((t, cpu, comm, pid))
    lost = sum(int(m.group(2)) for m in LOST.finditer(text))
    return out, lost


def pair(sw):
    """The pids of the pair: the tbench client and the tbench_srv process
    serving it, each the most switched-in of its name."""
    count = {}
    for _, _, comm, pid in sw:
        count[(comm, pid)] = count.get((comm, pid), 0) + 1
    pids = set()
    for name in ("tbench", "tbench_srv"):
        mine = [(n, pid) for (comm, pid), n in count.items() if comm == name]
        if mine:
            pids.add(max(mine)[1])
    return pids


def moves(sw):
    """CPU changes per 1,000 wake-ups of the pair, and the distinct CPUs
    it ran on.  Both over the pair's own two tasks: a wake-up is a switch-in
    of one of them, a CPU change one on another CPU than its previous."""
    pids = pair(sw)
    last, changes, wakeups, cpus = {}, 0, 0, set()
    for t, cpu, comm, pid in sw:
        if pid not in pids:
            continue
        cpus.add(cpu)
        if pid in last:
            wakeups += 1
            changes += last[pid] != cpu
        last[pid] = cpu
    return (1000.0 * changes / wakeups if wakeups else None), len(cpus)


def summarise(values):
    """Median, range and n of the runs that gave a figure; missing says
    how many did not."""
    got = [v for v in values if v is not None]
    if not got:
        return None
    return {"median": statistics.median(got), "min": min(got),
            "max": max(got), "n": len(got), "missing": len(values) - len(got),
            "runs": got}


def collect(raw_dir, kernel, case, runs):
    row = {"kernel": kernel, "case": case, "runs": []}
    for r in range(1, runs + 1):
        base = os.path.join(raw_dir, f"{case}.{r}")
        tb = read(base + ".tbench")
        m = re.search(r"Throughput ([\d.]+) MB/sec", tb)
        pipe = re.search(r"(\d+) ops/sec", read(base + ".pipe"))
        sw, lost = switches(read(base + ".snapshot"))
        mv, ncpu = moves(sw)
        row["runs"].append({
            "run": r,
            "tbench_mb_s": float(m.group(1)) if m else None,
            "pipe_ops_s": int(pipe.group(1)) if pipe else None,
            "cpu_changes_per_1000_wakeups": mv,
            "distinct_cpus": ncpu,
            "lost_events": lost,
            "sis_tbench": sis_reasons(read(base + ".tbench.sis")),
            "sis_pipe": sis_reasons(read(base + ".pipe.sis")),
            "switches": sw,
        })
    for key in ("tbench_mb_s", "pipe_ops_s", "cpu_changes_per_1000_wakeups", "distinct_cpus"):
        row[key] = summarise([x[key] for x in row["runs"]])
    reasons = {}
    for x in row["runs"]:
        for k, v in x["sis_tbench"].items():
            reasons[k] = reasons.get(k, 0) + v
    total = sum(reasons.values())
    row["top_reasons"] = [(k, round(100.0 * v / total)) for k, v in
                          sorted(reasons.items(), key=lambda kv: -kv[1])[:3] if v] if total else []
    return row


def fmt(s, digits=1, runs=None):
    """median (min-max), and n when a run gave no figure."""
    if not s:
        return "-"
    out = f"{s['median']:.{digits}f} ({s['min']:.{digits}f}-{s['max']:.{digits}f})"
    if s["missing"]:
        out += f" n={s['n']}"
    return out


def ratio(a, b):
    if not a or not b or not b["median"]:
        return None
    return a["median"] / b["median"]


class DrawError(Exception):
    """placement.png cannot be drawn; the message says what is missing."""


def can_draw():
    """Why placement.png could not be drawn on this host, or None: checked
    before booting anything, so that a run of minutes does not end without
    its picture."""
    if not shutil.which("gnuplot"):
        return "gnuplot not found (install gnuplot-nox, or run 'make deps')"
    p = subprocess.run(["gnuplot"], input="set terminal pngcairo\n", text=True,
                       errors="replace", capture_output=True)
    if p.returncode:
        return ("this gnuplot has no pngcairo terminal (install gnuplot-nox): "
                + " ".join(p.stderr.split())[-200:])
    return None


def plot(rows, png, datdir, label):
    """One panel per case: CPU over time of each task of the pair, from the
    last run's end-of-run sched_switch snapshot.  Returns the cases that have
    no panel (no switch of the pair in that snapshot); raises DrawError when
    there is no picture at all."""
    panels, missing = [], []
    for row in rows:
        sw = row["runs"][-1]["switches"]
        if not sw:
            missing.append(row["case"])
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
        raise DrawError("no case's snapshot holds a switch of the tbench pair")
    script = [
        "set terminal pngcairo size 1400,%d font 'sans,10'" % (260 * len(panels)),
        f"set output '{png}'",
        "set multiplot layout %d,1 title 'Where the tbench pair ran: the last 0.5 s of a run "
        "(sched\\_switch snapshot; 10 cores x 2 threads, %s)'" % (len(panels), label),
        "set yrange [-0.5:19.5]", "set ytics 0,2,19", "set ylabel 'CPU'",
        "set xlabel 'ms'", "set key outside right", "set grid ytics",
    ]
    for dat, title in panels:
        script.append(f"set title 'policy {title}'" if title != "stock kernel"
                      else "set title 'stock kernel'")
        script.append(f"plot '{dat}' index 0 with points pt 7 ps 0.5 lc rgb '#d62728' title 'tbench (client)', "
                      f"'' index 1 with points pt 7 ps 0.5 lc rgb '#1f77b4' title 'tbench\\_srv (server)'")
    script.append("unset multiplot")
    why = can_draw()
    if why:
        raise DrawError(why)
    # stdout away: gnuplot writes the PNG there when it cannot open the file.
    p = subprocess.run(["gnuplot"], input="\n".join(script), text=True, errors="replace",
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode or not os.path.isfile(png) or not os.path.getsize(png):
        err = " ".join(p.stderr.split())[-300:]
        raise DrawError(f"gnuplot exited {p.returncode} and wrote "
                        f"{'an empty file' if os.path.isfile(png) else 'no file'}"
                        + (f": {err}" if err else ""))
    return missing


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3, help="runs per case (default 3)")
    p.add_argument("--duration", type=int, default=10,
                   help="seconds per tbench run (default 10)")
    p.add_argument("--out", default=os.path.join(TOP, "results"),
                   help="output directory (default results/)")
    p.add_argument("--accel", choices=("auto", "kvm", "tcg"), default=None,
                   help="QEMU accelerator (default: auto, KVM when usable)")
    p.add_argument("--no-stock", action="store_true",
                   help="the lab kernel's cases only, without the stock kernel "
                        "(make check's smoke run)")
    args = p.parse_args()
    if args.runs < 1 or args.duration < 2:
        p.error("--runs must be >= 1 and --duration >= 2")
    try:
        use, note = guest.resolve_accel(args.accel)
    except guest.LabError as e:
        p.error(str(e))
    if note:
        print(f"demo: {note}", file=sys.stderr)
    why = can_draw()
    if why:
        print(f"demo: cannot draw placement.png: {why}", file=sys.stderr)
        sys.exit(1)
    label = "TCG (emulated)" if use == "tcg" else "KVM"
    start = time.time()
    out = os.path.abspath(args.out)
    png = os.path.join(out, "placement.png")
    # A picture from an earlier run must not pass for this run's.
    if os.path.exists(png):
        os.remove(png)
    raw_lab, raw_stock = os.path.join(out, "raw-lab"), os.path.join(out, "raw-stock")
    raws = [("lab", raw_lab)] + ([] if args.no_stock else [("stock", raw_stock)])
    for d in (raw_lab, raw_stock):
        shutil.rmtree(d, ignore_errors=True)
    for _, d in raws:
        os.makedirs(d)

    boot("lab", args.runs, args.duration, LAB_CASES, raw_lab, use)
    if not args.no_stock:
        boot("stock", args.runs, args.duration, ["stock"], raw_stock, use)

    rows = [collect(raw_lab, "lab", c, args.runs) for c in LAB_CASES]
    if not args.no_stock:
        rows.append(collect(raw_stock, "stock", "stock", args.runs))
    by = {r["case"]: r for r in rows}
    base, pinned = by["3.8"]["tbench_mb_s"], by["pinned"]["tbench_mb_s"]

    print(f"\nBouncing cow, 1 tbench pair, 10 cores x 2 threads, {label}, "
          f"{args.runs} run(s) x {args.duration}s; median (min-max) of "
          f"{args.runs} runs unless n= says fewer gave a figure\n")
    hdr = (f"{'kernel/case':<14} {'tbench MB/s':<22} {'/3.8':>6} {'/pinned':>8} "
           f"{'CPU changes/1k wakeups':<22} {'CPUs':<10} {'pipe ops/s':<22} top reasons")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        name = f"{r['kernel']}/{r['case']}" if r["kernel"] == "lab" else "stock"
        r38, rp = ratio(r["tbench_mb_s"], base), ratio(r["tbench_mb_s"], pinned)
        reasons = ", ".join(f"{k} {v}%" for k, v in r["top_reasons"]) or "-"
        print(f"{name:<14} {fmt(r['tbench_mb_s'], 2):<22} "
              f"{(f'{r38:.2f}x' if r38 else '-'):>6} {(f'{rp:.2f}x' if rp else '-'):>8} "
              f"{fmt(r['cpu_changes_per_1000_wakeups'], 0):<22} {fmt(r['distinct_cpus'], 0):<10} "
              f"{fmt(r['pipe_ops_s'], 0):<22} {reasons}")
    head = ratio(by["3.9"]["tbench_mb_s"], base)
    tag = "  [TCG]" if use == "tcg" else ""
    print(f"\n3.9 / 3.8 = {head:.1f}x (seed, on hardware: {SEED:.1f}x){tag}" if head
          else "\n3.9 / 3.8: no figures")
    lost = sum(x["lost_events"] for r in rows for x in r["runs"])
    if lost:
        print(f"warning: the sched_switch snapshots lost {lost} events: CPU "
              "changes are under-counted; raise buffer_size_kb in demo/cases.sh")
    m_stock = ratio(by["modern"]["tbench_mb_s"], by["stock"]["tbench_mb_s"]) \
        if "stock" in by else None
    if m_stock:
        print(f"modern (lab) / stock = {m_stock:.2f}x")

    try:
        missing, cannot_draw = plot(rows, png, out, label), None
    except DrawError as e:
        missing, cannot_draw = [], str(e)
    setup = {k: dict(line.split(" ", 1) for line in
                     read(os.path.join(d, f"setup.{k}")).splitlines() if " " in line)
             for k, d in raws}
    qemu = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                          text=True).stdout.splitlines()
    result = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "series": subprocess.run(["git", "-C", os.path.join(TOP, "build/linux"), "describe",
                                  "--tags", "--always", "--dirty"], capture_output=True,
                                 text=True).stdout.strip(),
        "qemu": qemu[0] if qemu else None,
        "accelerator": use,
        "tcg_threads": "multi" if use == "tcg" else None,
        "topology_requested": {"sockets": 1, "cores": 10, "threads": 2},
        "topology_booted": {k: {"cpus": int(v.get("cpus", 0)),
                                "threads_per_core": int(v.get("threads_per_core", 0)),
                                "llc_cpus": v.get("llc_cpus")} for k, v in setup.items()},
        "pipe_loops": int(setup["lab"].get("pipe_loops", 0)),
        "trace_buffer_size_kb": int(setup["lab"].get("buffer_size_kb", 0)),
        "duration_s": args.duration, "runs": args.runs,
        "metric": "cpu_changes_per_1000_wakeups: switch-ins of the tbench pair's "
                  "two tasks on another CPU than their previous, per 1,000 "
                  "switch-ins, in the window every CPU's snapshot buffer holds",
        "kernels": {k: read(os.path.join(d, f"kernel.{k}")).strip()
                    for k, d in raws},
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
    if not cannot_draw:
        print(f"demo: wrote {os.path.relpath(png)}")
    print("demo: raw guest output in " + " and ".join(f"{os.path.relpath(d)}/" for _, d in raws))
    if missing:
        print(f"warning: {os.path.relpath(png)} has no panel for {', '.join(missing)}: "
              "the last run's snapshot holds no switch of the tbench pair", file=sys.stderr)
    if cannot_draw:
        print(f"demo: cannot draw {os.path.relpath(png)}: {cannot_draw}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
