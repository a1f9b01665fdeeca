"""Run the test suites and summarise them (`./lab check`, `make check`).

Every suite is a host command whose stdout is KTAP.  Guest suites are
`./lab run -- CMD`; a guest crash, hang or QEMU failure makes the suite
fail, whatever it printed before.  The last line is `N passed, N failed`.
"""

import fnmatch
import os
import subprocess
import sys
import time

from lablib import guest, ktap

TOP = guest.TOP
LAB = os.path.join(TOP, "lab")

# name -> (what it checks, host command printing KTAP); {kernel} is the
# kernel under test.
SUITES = {
    "lab": ("the lab itself: topology, exit status, crash and hang reports, 9p",
            [sys.executable, "tests/lab/selftest.py"]),
    "series": ("every patch in patches/ passes checkpatch --strict",
               ["tests/series/checkpatch.sh"]),
    "sched": ("select_idle_sibling() policies, reasons, counters (kselftest)",
              [LAB, "run", "--kernel", "{kernel}", "--", "build/selftests/sis_test"]),
    "sched-4x2": ("the same on a second SMT topology, 4 cores x 2 threads",
                  [LAB, "run", "--kernel", "{kernel}", "--topology", "4x2", "--",
                   "build/selftests/sis_test"]),
    "sched-nosmt": ("the same on 8 CPUs without SMT: the idle-core case skips",
                    [LAB, "run", "--kernel", "{kernel}", "--smp", "8", "--",
                     "build/selftests/sis_test"]),
    # Single-threaded TCG: switching latency tracers live-patches text, and
    # multi-threaded TCG sometimes oopses on its int3 (seen once here, on a
    # tracer switch in code the series does not touch).
    "snapshot": ("the ftrace snapshot file against the 3.9 seed's table",
                 [LAB, "run", "--tcg", "single", "--kernel", "{kernel}", "--",
                  "tests/snapshot/seed.sh"]),
    "history": ("snapshot history (snapshot_depth, snapshots/N), poll() and the header",
                [LAB, "run", "--tcg", "single", "--kernel", "{kernel}", "--",
                 "build/selftests/snapshot_history"]),
    "history-debug": ("the same on the debug kernel (KASAN, lockdep, debug objects), 2 CPUs",
                      [LAB, "run", "--tcg", "single", "--smp", "2", "--timeout", "1500",
                       "--kernel", "debug", "--", "build/selftests/snapshot_history"]),
    "recorder": ("tools/snapshot-recorder saves each snapshot, woken by poll()",
                 [LAB, "run", "--tcg", "single", "--kernel", "{kernel}", "--",
                  "tests/snapshot/recorder.sh"]),
    "trace-cmd": ("Debian's trace-cmd snapshot -s, -r, -c, -f and display",
                  [LAB, "run", "--kernel", "{kernel}", "--", "tests/snapshot/trace-cmd.sh"]),
    "ftracetest": ("the tree's ftracetest cases for snapshots and snapshot triggers",
                   [LAB, "run", "--tcg", "single", "--timeout", "900", "--kernel", "{kernel}",
                    "--", "tests/snapshot/ftracetest.sh"]),
    "badinput": ("bad input to sis_policy and sis_stats: its errno, and nothing changes",
                 [LAB, "run", "--kernel", "{kernel}", "--", "build/selftests/badinput_sched"]),
    "badinput-snapshot": ("bad input to snapshot, per-CPU snapshot, snapshot_depth and "
                          "snapshots/N: EINVAL, and nothing changes",
                          [LAB, "run", "--tcg", "single", "--kernel", "{kernel}", "--",
                           "build/selftests/badinput_snapshot"]),
    "stress": ("60 s of everything at once on the debug kernel: no splat, hang or leak",
               [LAB, "run", "--kernel", "debug", "--tcg", "single", "--topology", "2x2",
                "--timeout", "1500", "--",
                "tests/stress/stress.sh", "60"]),
    "matrix": ("the series at HEAD under the config matrix: builds, no new warning",
               ["scripts/config-matrix.sh"]),
    "demo": ("a smoke run of make demo: numbers, results.json, placement.png",
             [sys.executable, "tests/demo/smoke.py"]),
}


# Suites that `./lab check` with no names leaves out, with the reason;
# name them to run them.
NOT_BY_DEFAULT = {
    "stress": "not yet shown to pass with the second snapshot-history design "
              "(make stress runs it)",
}

# Skips each suite expects, by test-name glob, with the reason.  Any other
# skip fails the suite: a test that skips where it should have run hides
# a failure.  Checked on the lab and debug kernels; on stock the suites fail
# by design, and skips are only listed.
EXPECTED_SKIPS = {
    "sched-nosmt": {"sis.modern_busy_prev_scans_for_idle_core":
                    "no SMT siblings, so no idle-core scan"},
}


def unexpected_skips(name, rep, kernel):
    if kernel == "stock":
        return []
    allowed = EXPECTED_SKIPS.get(name, {})
    return [f"unexpected skip: {test}{' (' + note + ')' if note else ''}"
            for status, test, note in rep.results
            if status == "skip" and not any(fnmatch.fnmatchcase(test, g) for g in allowed)]


def run_suite(name, argv, kernel, logdir):
    env = dict(os.environ, LAB_KERNEL=kernel)
    start = time.time()
    print(f"# suite {name}: {SUITES[name][0]}", flush=True)
    proc = subprocess.Popen(argv, cwd=TOP, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace")
    lines = []
    for line in proc.stdout:
        lines.append(line)
        sys.stdout.write("  " + line)
        sys.stdout.flush()
    status = proc.wait()
    text = "".join(lines)
    with open(os.path.join(logdir, f"{name}.log"), "w") as f:
        f.write(text)
    rep = ktap.parse(text)
    problems = rep.problems() + unexpected_skips(name, rep, kernel)
    if status == guest.EXIT_WARN:
        problems.append(f"the kernel warned (exit {status}): a splat, whatever the KTAP said")
    elif status in (guest.EXIT_PANIC, guest.EXIT_TIMEOUT, guest.EXIT_QEMU):
        problems.append(f"the guest crashed, hung or failed (exit {status})")
    elif status != 0 and not rep.count("fail"):
        problems.append(f"exited {status} without a failed test")
    return rep, problems, time.time() - start


def main(names, kernel="lab"):
    if not names:
        names = [n for n in SUITES if n not in NOT_BY_DEFAULT]
        for n, why in NOT_BY_DEFAULT.items():
            print(f"# not run by default: {n}: {why}", flush=True)
    unknown = [n for n in names if n not in SUITES]
    if unknown:
        print(f"lab check: unknown suite(s) {', '.join(unknown)}; "
              f"known: {', '.join(SUITES)}", file=sys.stderr)
        return guest.EXIT_USAGE
    logdir = os.path.join(TOP, "build/check")
    os.makedirs(logdir, exist_ok=True)
    passed = failed = skipped = 0
    rows = []
    for name in names:
        argv = [a.replace("{kernel}", kernel) for a in SUITES[name][1]]
        rep, problems, secs = run_suite(name, argv, kernel, logdir)
        p, f, s = rep.count("pass"), rep.count("fail"), rep.count("skip")
        f += len(problems)
        passed, failed, skipped = passed + p, failed + f, skipped + s
        rows.append((name, p, f, s, secs, problems,
                     [r[1] for r in rep.results if r[0] == "fail"],
                     [r[1] + (f" ({r[2]})" if r[2] else "")
                      for r in rep.results if r[0] == "skip"]))
    print(f"\n# summary (kernel: {kernel}; logs in build/check/)")
    for name, p, f, s, secs, problems, fails, skips in rows:
        print(f"#   {name:<12} {p:4d} passed {f:4d} failed {s:4d} skipped  {secs:6.1f}s")
        for why in fails:
            print(f"#     failed: {why}")
        for why in skips:
            print(f"#     skipped: {why}")
        for why in problems:
            print(f"#     problem: {why}")
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 1 if failed else 0
