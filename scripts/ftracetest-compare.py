#!/usr/bin/env python3
"""make ftracetest: the whole ftracetest suite of the lab tree on a kernel
(--kernel: lab, upstream, debug; default lab) and on the stock kernel
(10x2 guest, single-threaded TCG), then every case that passes on stock
and not on that kernel.  Exit 1 if there is any such case.  --depth N
runs the kernel's side at snapshot_depth N (FTRACETEST_SNAPSHOT_DEPTH,
which the series' ftracetest sets before each case); stock runs at 1.

  scripts/ftracetest-compare.py [--fresh] [--kernel K] [--depth N]

A kernel's run takes about half an hour, so its log in build/ftracetest/
is reused while it is newer than that kernel's image; --fresh runs both."""

import io
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOP)

from lablib import guest  # noqa: E402

CMD = ["sh", "-c", "cd build/linux/tools/testing/selftests/ftrace && "
       "./ftracetest -K -l /tmp/ftracetest-logs"]
RESULT = re.compile(r"^(ok|not ok) \d+ (.*?)(?: # (\w+).*)?$")
os.makedirs(os.path.join(TOP, "build/ftracetest"), exist_ok=True)
def option(name, default):
    if name in sys.argv:
        i = sys.argv.index(name)
        if i + 1 < len(sys.argv):
            return sys.argv[i + 1]
        sys.exit(f"ftracetest: {name} needs a value")
    return default


OTHER = option("--kernel", "lab")
DEPTH = option("--depth", "1")
if OTHER == "stock" or not DEPTH.isdigit() or not 1 <= int(DEPTH) <= 32:
    sys.exit("usage: ftracetest-compare.py [--fresh] [--kernel lab|upstream|debug] [--depth 1..32]")
results = {}
for kernel in ("stock", OTHER):
    depth = DEPTH if kernel != "stock" else "1"
    env = [f"FTRACETEST_SNAPSHOT_DEPTH={depth}"] if depth != "1" else []
    log = os.path.join(TOP, f"build/ftracetest/{kernel}"
                       + (f"-depth{depth}" if depth != "1" else "") + ".log")
    image = guest.resolve_kernel(kernel)
    if ("--fresh" not in sys.argv and os.path.exists(log)
            and os.path.getmtime(log) > os.path.getmtime(image)):
        print(f"ftracetest: reusing {os.path.relpath(log, TOP)}, newer than the "
              f"{kernel} kernel (--fresh to run it again)", flush=True)
        with open(log) as f:
            text = f.read()
    else:
        print(f"ftracetest: the whole suite on the {kernel} kernel "
              "(single-threaded TCG, about 30 min)", flush=True)
        out = io.BytesIO()
        spec = guest.GuestSpec.make(kernel=kernel, tcg="single", timeout=5400, env=env)
        res = guest.run(spec, CMD, stdout=out, stderr=io.BytesIO())
        text = out.getvalue().decode(errors="replace")
        if res.kind != "exit":
            sys.exit(f"ftracetest: the {kernel} guest failed ({res.kind}):\n"
                     f"{res.console_tail()}")
        with open(log, "w") as f:
            f.write(text)
    cases = {}
    for line in text.splitlines():
        m = RESULT.match(line)
        if m:
            cases[m.group(2)] = "pass" if m.group(1) == "ok" and not m.group(3) else \
                (m.group(3) or "FAIL").lower()
    results[kernel] = cases
    counts = {}
    for v in cases.values():
        counts[v] = counts.get(v, 0) + 1
    print(f"ftracetest: {kernel}: {len(cases)} cases, {counts}", flush=True)

worse = sorted(c for c, v in results["stock"].items()
               if v == "pass" and results[OTHER].get(c) != "pass")
for c in worse:
    print(f"ftracetest: passes on stock, not on {OTHER}: {c} "
          f"({results[OTHER].get(c, 'missing')})")
print(f"ftracetest: {len(worse)} case(s) pass on stock and not on {OTHER} (depth {DEPTH}); "
      "logs in build/ftracetest/")
sys.exit(1 if worse else 0)
