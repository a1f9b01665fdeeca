"""What the snapshot benchmarks share: the in-guest helper, a 2-CPU boot
and the statistics they print."""

import io
import os
import statistics
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOP)

from lablib import guest  # noqa: E402

OUT_DIR = os.path.join(TOP, "build/bench")


def build_helper():
    """Builds bench/snapshot_bench.c; returns its path from the top."""
    os.makedirs(OUT_DIR, exist_ok=True)
    binary = os.path.join(OUT_DIR, "snapshot_bench")
    subprocess.run(["gcc", "-O2", "-Wall", "-o", binary,
                    os.path.join(TOP, "bench/snapshot_bench.c")], check=True)
    return os.path.relpath(binary, TOP)


def boot(kernel, script, what):
    """Runs script in a 2-CPU, 3 GB, single-threaded TCG guest; its stdout."""
    print(f"# booting {kernel}: {what}", flush=True)
    out = io.BytesIO()
    spec = guest.GuestSpec.make(kernel=kernel, smp=2, mem="3G", timeout=1800, tcg="single")
    res = guest.run(spec, ["sh", "-c", script], stdout=out, stderr=io.BytesIO())
    if res.status != 0:
        sys.exit(f"{kernel} guest failed ({res.kind}, {res.status}):\n{res.console_tail()}")
    return out.getvalue().decode()


def stats(v):
    if not v:
        return {"n": 0}
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)}
