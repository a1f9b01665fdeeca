"""Run the test suites and summarise them (`./lab check`, `make check`).

Every suite is a host command whose stdout is KTAP; its stderr is kept
apart, so that no stray line can split a result line.  Guest suites are
`./lab run -- CMD`; a guest crash, splat, hang or QEMU failure makes the
suite fail, whatever it printed before.

The output is one KTAP document: `KTAP version 1`, a plan, and per suite
its own KTAP nested (indented, with `# Subtest: NAME`) and `ok N NAME` or
`not ok N NAME`.  Then a summary in `#` lines, and last `N passed, N
failed`.  --json FILE writes the same results as a KernelCI KCIDB report
(schema v5), which KernelCI's kcidb tools ingest as they are.
"""

import datetime
import fnmatch
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

from lablib import accel as accel_mod
from lablib import guest, ktap

TOP = guest.TOP
LAB = os.path.join(TOP, "lab")

# name -> (what it checks, host command printing KTAP); {kernel} is the
# kernel under test.  How SUITE:GLOB picks tests depends on the command
# (see KIND below).
# The guest of the tracing suites on the lab kernel.  Single-threaded TCG:
# switching latency tracers live-patches text, and multi-threaded TCG
# sometimes oopses on its int3 (seen once here, on a tracer switch in code
# the series does not touch).  Four CPUs, not the seed's twenty: each
# per-CPU buffer is then allocated, swapped and read five times less often.
# Expedited RCU: tracer, trigger and buffer changes wait for grace
# periods, and under TCG a normal one takes long enough that the history
# suite spent two thirds of its run waiting.  Together: history 162 s and
# 68 CPU-s alone, now 40 s and 30 CPU-s (docs/measurements.md).  The
# debug kernel's runs keep normal grace periods.
TRACING = ["--tcg", "single", "--smp", "4", "--append", "rcupdate.rcu_expedited=1"]

# sis_test's probe on the bare placement tracepoint (tests/sched/sis_tp),
# built with the kernel under test.
SIS_TP = ["--env", f"SIS_TP_KO={TOP}/build/modules/{{kernel}}/sis_tp/sis_tp.ko"]

SUITES = {
    "lab": ("the lab itself: topology, exit status, crash and hang reports, 9p",
            [sys.executable, "tests/lab/selftest.py"]),
    "lab-debug": ("the lab on the debug kernel: WARN, KASAN and lockdep fail a run",
                  [sys.executable, "tests/lab/selftest.py"]),
    "tracer-switches": ("15 rounds of tracer switches in the default ./lab run guest "
                        "(10 x 2, multi-threaded TCG): no int3 oops",
                        [sys.executable, "tests/lab/selftest.py"]),
    "series": ("every patch in patches/ passes checkpatch --strict",
               ["tests/series/checkpatch.sh"]),
    "sched": ("select_idle_sibling() policies, reasons, counters (kselftest)",
              [LAB, "run", "--kernel", "{kernel}", *SIS_TP, "--", "build/selftests/sis_test"]),
    "cow": ("the knob-free bouncing-cow selftest: a ping-pong pair stands still",
            [LAB, "run", "--kernel", "{kernel}", "--", "build/selftests/sis_cow_test"]),
    "sched-gates": ("the selftests' sched_ext and asymmetric-capacity gates (sis_llc.h), "
                    "on the host, against files shaped like /sys",
                    ["build/selftests/llc_gates"]),
    "tprobe": ("the bare sched_sis_decision_tp on the upstream-bound kernel, attached as a "
               "tracepoint probe event: every argument against the staged wake-up",
               [LAB, "run", "--kernel", "upstream", "--", "build/selftests/sis_tprobe"]),
    "cow-stock": ("the same on the stock kernel, which it judges without the lab's knobs",
                  [LAB, "run", "--kernel", "stock", "--", "build/selftests/sis_cow_test"]),
    "sched-4x2": ("the same on a second SMT topology, 4 cores x 2 threads",
                  [LAB, "run", "--kernel", "{kernel}", *SIS_TP, "--topology", "4x2", "--",
                   "build/selftests/sis_test"]),
    "sched-nosmt": ("the same on 8 CPUs without SMT: the idle-core case skips",
                    [LAB, "run", "--kernel", "{kernel}", *SIS_TP, "--smp", "8", "--",
                     "build/selftests/sis_test"]),
    "sched-skips": ("sis_cow_test and sis_test skip or judge, never fail: cpusets, an "
                    "isolated partition, an offline CPU, a busy machine, another LLC busy",
                    # 273-294 s measured: twice the guest's default 300 s
                    [LAB, "run", "--kernel", "{kernel}", *SIS_TP, "--numa", "2",
                     "--timeout", "600", "--", "tests/sched/skips.sh"]),
    "snapshot": ("the ftrace snapshot file against the 3.9 seed's table",
                 [LAB, "run", *TRACING, "--kernel", "{kernel}", "--", "tests/snapshot/seed.sh"]),
    "history": ("snapshot history (snapshot_depth, snapshots/N), poll() and the header",
                [LAB, "run", *TRACING, "--kernel", "{kernel}", "--",
                 "build/selftests/snapshot_history"]),
    "history-debug": ("the same on the debug kernel (KASAN, lockdep, debug objects), 2 CPUs",
                      [LAB, "run", "--tcg", "single", "--smp", "2", "--timeout", "2400",
                       "--kernel", "debug", "--", "build/selftests/snapshot_history"]),
    "lifetime": ("history buffers outlive their holders: trace, trace_pipe, splice, "
                 "epoll, trace_marker",
                 [LAB, "run", *TRACING, "--kernel", "{kernel}", "--",
                  "build/selftests/snapshot_lifetime"]),
    "lifetime-debug": ("the same on the debug kernel: KASAN sees any use after free",
                       [LAB, "run", "--tcg", "single", "--smp", "2", "--timeout", "900",
                        "--kernel", "debug", "--", "build/selftests/snapshot_lifetime"]),
    "latency": ("snapshots next to a latency tracer: EBUSY at depth 1, both at once above",
                [LAB, "run", *TRACING, "--kernel", "{kernel}", "--",
                 "build/selftests/snapshot_latency"]),
    "latency-debug": ("the same on the debug kernel (KASAN, lockdep), 2 CPUs",
                      [LAB, "run", "--tcg", "single", "--smp", "2", "--timeout", "1500",
                       "--kernel", "debug", "--", "build/selftests/snapshot_latency"]),
    "recorder": ("tools/snapshot-recorder saves each snapshot, woken by poll()",
                 [LAB, "run", *TRACING, "--kernel", "{kernel}", "--",
                  "tests/snapshot/recorder.sh"]),
    "trace-cmd": ("Debian's trace-cmd snapshot -s, -r, -c, -f and display",
                  [LAB, "run", *TRACING, "--kernel", "{kernel}", "--",
                   "tests/snapshot/trace-cmd.sh"]),
    "ftracetest": ("the tree's ftracetest cases for snapshots and snapshot triggers",
                   [LAB, "run", "--tcg", "single", "--timeout", "900", "--kernel", "{kernel}",
                    "--", "tests/snapshot/ftracetest.sh", "--snapshot"]),
    "ftracetest-latency": ("the tree's latency tracer ftracetest cases (irqsoff, "
                           "preemptoff, wakeup, wakeup_rt)",
                           [LAB, "run", "--tcg", "single", "--timeout", "900",
                            "--kernel", "{kernel}",
                            "--", "tests/snapshot/ftracetest.sh", "--latency"]),
    "ftracetest-depth4": ("the tree's latency tracer ftracetest cases at snapshot_depth 4",
                          [LAB, "run", "--tcg", "single", "--timeout", "900",
                           "--kernel", "{kernel}", "--env", "FTRACETEST_SNAPSHOT_DEPTH=4",
                           "--", "tests/snapshot/ftracetest.sh", "--latency"]),
    "badinput": ("bad input to sis_policy and sis_stats: its errno, and nothing changes",
                 [LAB, "run", "--kernel", "{kernel}", "--", "build/selftests/badinput_sched"]),
    "badinput-snapshot": ("bad input to snapshot, per-CPU snapshot, snapshot_depth and "
                          "snapshots/N: EINVAL, and nothing changes",
                          [LAB, "run", *TRACING, "--kernel", "{kernel}", "--",
                           "build/selftests/badinput_snapshot"]),
    "stress": ("60 s of everything at once on the debug kernel: no splat, hang or leak",
               [LAB, "run", "--kernel", "debug", "--tcg", "single", "--topology", "2x2",
                "--timeout", "1500", "--",
                "tests/stress/stress.sh", "60"]),
    "stock-compare": ("the upstream-bound series against stock 6.12 at default settings: "
                      "writes and errnos, triggers, probes, poll, sizes, trace-cmd, "
                      "sched files; only listed differences",
                      [sys.executable, "tests/stock/compare.py", "upstream"]),
    "matrix": ("the series at HEAD under the config matrix: builds, no new warning",
               ["scripts/config-matrix.sh"]),
    "bisect": ("every commit of the five topics builds under the lab config, with no "
               "new warning (the directories each commit touches)",
               ["sh", "-c", "ALL=1 exec scripts/config-matrix.sh lab"]),
    "article": ("the 3.9 article beyond the seeds: unpadded trace events, trace-cmd, "
                "perf stat -I, nohz_full, perf bench numa, regmap KUnit",
                [sys.executable, "tests/article/article.py", "{kernel}"]),
    "article-drivers": ("the drivers the 3.9 article names compile in the lab tree",
                        [sys.executable, "tests/article/article.py", "{kernel}"]),
    "demo": ("a smoke run of make demo on the lab kernel: numbers, results.json, "
             "placement.png",
             [sys.executable, "tests/demo/smoke.py"]),
    "demo-stock": ("the same with the stock kernel's case, as make demo runs it",
                   [sys.executable, "tests/demo/smoke.py"]),
}


# Suites that `./lab check` with no names leaves out, with the reason;
# name them to run them.
NOT_BY_DEFAULT = {
    "tracer-switches": "9 min under TCG on 2 cores: run it after changing the lab's QEMU "
                       "(scripts/qemu.sh)",
}

# The quick tier, `make check` and `./lab check` without names: every
# user-visible feature on the lab kernel, which is the only kernel it
# builds.  The full tier (`make check-full`, `./lab check --full`, CI) runs
# every suite, adding the debug and stock kernels, the stress, the config
# matrix, ftracetest, the other topologies, the drivers and checkpatch
# (`series`, a check of the patches rather than of a feature; `make
# checkpatch` runs it alone).
QUICK = ["lab", "cow", "sched", "sched-gates", "badinput", "snapshot", "history", "lifetime",
         "latency", "recorder", "trace-cmd", "badinput-snapshot", "article", "demo"]

# The kernels a suite needs built, when not just the one under test
# ({kernel}, the lab kernel unless --kernel says otherwise).
KERNELS = {
    "series": [], "matrix": [], "bisect": [], "sched-gates": [],
    "lab-debug": ["debug"], "history-debug": ["debug"],
    "lifetime-debug": ["debug"], "stress": ["debug"], "latency-debug": ["debug"],
    "article-drivers": [],
    "demo-stock": ["{kernel}", "stock"], "cow-stock": ["stock"],
    "stock-compare": ["stock", "upstream"], "tprobe": ["upstream"],
}

# Environment of a host suite: which of its tests it runs.
SUITE_ENV = {
    "lab": {"LAB_TEST_EXCLUDE": "debug_kernel_*,tracer_switches_*"},
    "tracer-switches": {"LAB_TEST_GLOB": "tracer_switches_*"},
    "lab-debug": {"LAB_TEST_GLOB": "debug_kernel_*"},
    "article": {"LAB_TEST_EXCLUDE": "drivers_*"},
    "article-drivers": {"LAB_TEST_GLOB": "drivers_*"},
    "demo": {"LAB_DEMO_STOCK": "0"},
}


def kernels_needed(specs, kernel="lab"):
    """The kernels (lab, stock, debug) that the suites of specs boot."""
    need = []
    for name, _ in specs:
        for k in KERNELS.get(name, ["{kernel}"]):
            k = k.replace("{kernel}", kernel)
            if k not in need:
                need.append(k)
    return need

# Skips each suite expects, by test-name glob, with the reason.  Any other
# skip fails the suite: a test that skips where it should have run hides
# a failure.  Checked on the lab and debug kernels; on stock the suites fail
# by design, and skips are only listed.
EXPECTED_SKIPS = {
    "history": {"snap.a_failed_allocation_anywhere_leaves_every_buffer_as_it_was":
                "fault injection is in the debug kernel only: history-debug runs it",
                "snap.a_failed_subbuf_change_anywhere_leaves_every_buffer_as_it_was":
                "fault injection is in the debug kernel only",
                "snap.a_failed_*_that_cannot_be_undone_changes_nothing":
                "fault injection is in the debug kernel only: history-debug runs it"},
    "history-debug": {"snap.a_failed_subbuf_change_anywhere_leaves_every_buffer_as_it_was":
                      "over 15 minutes under TCG: SWEEP_SUBBUF=1 runs it"},
    "sched-nosmt": {"sis.modern_busy_prev_scans_for_idle_core":
                    "no SMT siblings, so no idle-core scan",
                    "sis.modern_stale_idle_core_hint_is_labelled_idle_cpu":
                    "no SMT siblings, so no idle-core hint",
                    "sis.default_path_busy_prev_scans_for_idle_core":
                    "no SMT siblings, so no idle-core scan",
                    "sis.modern_cleared_idle_core_hint_takes_prevs_idle_sibling":
                    "no SMT siblings, so no idle-core hint",
                    "sis.default_path_cleared_idle_core_hint_takes_prevs_idle_sibling":
                    "no SMT siblings, so no idle-core hint"},
}


# How a suite's tests are listed and picked.  "harness": a kselftest
# binary (the last argument), listed with -l, picked with -r FIXTURE:TEST;
# "host": a Python suite of lablib.ktap.run_tests ($LAB_TEST_LIST,
# $LAB_TEST_GLOB); "ftracetest": case names as arguments.  Other suites are
# one script and run whole.
KIND = {
    "lab": "host", "lab-debug": "host", "tracer-switches": "host", "demo": "host", "demo-stock": "host",
    "article": "host",
    "article-drivers": "host",
    "sched": "harness", "sched-4x2": "harness", "sched-nosmt": "harness",
    "cow": "harness", "cow-stock": "harness", "tprobe": "harness",
    "history": "harness", "history-debug": "harness",
    "lifetime": "harness", "lifetime-debug": "harness",
    "latency": "harness", "latency-debug": "harness",
    "badinput": "harness", "badinput-snapshot": "harness",
    "ftracetest": "ftracetest", "ftracetest-latency": "ftracetest",
    "ftracetest-depth4": "ftracetest",
}

# The ftracetest cases of tests/snapshot/ftracetest.sh.
FTRACETEST_CASES = [
    "00basic/snapshot", "00basic/snapshot1", "trigger/trigger-snapshot",
    "trigger/trigger-trace-marker-snapshot",
    "trigger/inter-event/trigger-snapshot-action-hist",
    "00basic/snapshot_history", "00basic/snapshot_dropped", "trigger/trigger-snapshot-burst",
    "00basic/snapshot_latency",
] + ["preemptirq/irqsoff_tracer", "tracer/wakeup", "tracer/wakeup_rt"]

# The cases of each ftracetest suite: the latency tracer cases run at depth
# 1 in "ftracetest-latency" and again next to a history in
# "ftracetest-depth4", each alone (see ALONE).
FTRACETEST_LISTS = {"ftracetest": FTRACETEST_CASES[:-3],
                    "ftracetest-latency": FTRACETEST_CASES[-3:],
                    "ftracetest-depth4": FTRACETEST_CASES[-3:]}


class CheckError(Exception):
    """A bad request to lab check; the message says how to fix it."""


def harness_names(listing):
    """The names a kselftest harness binary's -l listing stands for:
    fixture.test, or fixture.variant.test for each variant of a fixture
    (the names its KTAP output gives).  The listing has three columns,
    fixture, variant and test, placed as in its header line; a fixture's
    variants and tests are listed side by side, not paired."""
    fixtures, vcol, tcol = [], None, None
    for line in listing.splitlines():
        if line.startswith("# FIXTURE"):
            vcol, tcol = line.index("VARIANT"), line.index("TEST")
            continue
        if line.startswith(("#", "---")) or not line.strip() or vcol is None:
            continue
        fixture = line[:vcol].strip()
        variant, test = line[vcol:tcol].strip(), line[tcol:].strip()
        if fixture:
            fixtures.append((fixture, [], []))
        if variant:
            fixtures[-1][1].append(variant)
        if test:
            fixtures[-1][2].append(test)
    return [".".join(x for x in (fixture, variant, test) if x)
            for fixture, variants, tests in fixtures
            for variant in variants or [None] for test in tests]


def list_tests(name):
    """The test names of a suite, or None if it runs as one script."""
    kind = KIND.get(name)
    argv = SUITES[name][1]
    if kind == "harness":
        exe = os.path.join(TOP, argv[-1])
        if not os.access(exe, os.X_OK):
            raise CheckError(f"no {argv[-1]}: run 'make selftests'")
        p = subprocess.run([exe, "-l"], capture_output=True, text=True)
        return harness_names(p.stderr)
    if kind == "host":
        p = subprocess.run(argv, cwd=TOP, capture_output=True, text=True,
                           env=dict(os.environ, LAB_TEST_LIST="1",
                                    **SUITE_ENV.get(name, {})))
        return p.stdout.split()
    if kind == "ftracetest":
        return list(FTRACETEST_LISTS[name])
    return None


def pick(name, globs):
    """(extra argv, extra env) that run only the tests of suite `name`
    matching one of globs."""
    names = list_tests(name)
    spec = f"{name}:{','.join(globs)}"
    if names is None:
        raise CheckError(f"{spec}: suite {name} runs as one script and "
                         f"cannot pick tests; run it whole: ./lab check {name}")
    chosen = [n for n in names if any(fnmatch.fnmatchcase(n, g) for g in globs)]
    if not chosen:
        raise CheckError(f"{spec}: no test of {name} matches; "
                         f"see ./lab check --list {name}")
    kind = KIND[name]
    if kind == "harness":
        return [a for n in chosen for a in ("-r", n.replace(".", ":"))], {}
    if kind == "ftracetest":
        return chosen, {}
    if len(globs) > 1:
        raise CheckError(f"{spec}: suite {name} takes one glob; "
                         f"run ./lab check {name}:GLOB once per glob")
    return [], {"LAB_TEST_GLOB": globs[0]}


def list_suites(names):
    try:
        for spec in names or list(SUITES):
            name = spec.partition(":")[0]
            if name not in SUITES:
                raise CheckError(f"unknown suite {name}; known: {', '.join(SUITES)}")
            note = f"  (not run by default: {NOT_BY_DEFAULT[name]})" \
                if name in NOT_BY_DEFAULT else ""
            print(f"{name}: {SUITES[name][0]}{note}")
            tests = list_tests(name)
            if tests is None:
                print("  (one script; SUITE:GLOB does not apply)")
            for t in tests or []:
                print(f"  {t}")
    except CheckError as e:
        print(f"lab check: {e}", file=sys.stderr)
        return guest.EXIT_USAGE
    return 0


def suites_help():
    rows = [f"  {n:<18} {d}" + ("" if n in QUICK else " [full tier]")
            for n, (d, _) in SUITES.items()]
    return "suites:\n" + "\n".join(rows) + (
        "\n\nSUITE:GLOB picks tests by name (./lab check --list shows them), "
        "e.g.\n  ./lab check 'sched:sis.v3_9_*' 'ftracetest:00basic/*'\n")


def unexpected_skips(name, rep, kernel):
    if kernel == "stock":
        return []
    allowed = EXPECTED_SKIPS.get(name, {})
    return [f"unexpected skip: {test}{' (' + note + ')' if note else ''}"
            for status, test, note in rep.results
            if status == "skip" and not any(fnmatch.fnmatchcase(test, g) for g in allowed)]


_VERSION = re.compile(r"^\s*(K?TAP) version \d+\s*$")


class Suite:
    def __init__(self, name, num):
        self.name, self.num = name, num
        self.rep = None
        self.problems = []
        self.secs = 0.0
        self.cpu = 0.0
        self.start = None
        self.stdout_log = os.path.join(LOGDIR, f"{name}.log")
        self.stderr_log = os.path.join(LOGDIR, f"{name}.stderr.log")
        self.rundirs = []
        self.whole = True

    @property
    def ok(self):
        return not self.problems and not self.rep.count("fail")


# Each suite's host process has a time limit; past it the suite and every
# process it started are killed, and the suite fails as hung (124).  Twice
# a suite's longest run here (TCG, 2 cores, three at once), at least
# 15 minutes; a guest's own --timeout is shorter and reports first.
TIME_LIMIT = 900
TIME_LIMITS = {"matrix": 3600, "bisect": 2400, "stress": 2400, "history-debug": 3000,
               "lifetime-debug": 1800, "latency-debug": 2400, "ftracetest": 1800,
               "ftracetest-latency": 1800, "ftracetest-depth4": 1800, "article-drivers": 1800, "demo": 1800,
               "demo-stock": 2400, "lab-debug": 1800, "stock-compare": 1500,
               "tracer-switches": 1800}
_running = set()


def time_limit(name):
    """The time limit of suite `name`'s host process, in seconds:
    $LAB_SUITE_TIME_LIMIT overrides every one (main() checks it)."""
    env = os.environ.get("LAB_SUITE_TIME_LIMIT")
    return float(env) if env else TIME_LIMITS.get(name, TIME_LIMIT)


def on_signal(sig, frame):
    """SIGTERM or SIGHUP to lab check: end the suites with it, since each
    runs in a session of its own."""
    kill_running()
    sys.exit(128 + sig)


def kill_running():
    """End every suite still running, with its guests (lab check was
    interrupted)."""
    for pid in list(_running):
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


LOGDIR = os.path.join(TOP, "build/check")
_print_lock = threading.Lock()


def emit(line):
    with _print_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def run_suite(suite, argv, env, kernel, emit=emit):
    """Run one suite, printing its KTAP nested through emit; fill in
    suite's results."""
    suite.start = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.time()
    emit("  KTAP version 1")
    emit(f"  # Subtest: {suite.name}")
    emit(f"  # {SUITES[suite.name][0]}")
    # A session of its own, so that a hang is ended whole: the suite, its
    # lab run and QEMU.
    proc = subprocess.Popen(argv, cwd=TOP, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace",
                            start_new_session=True)
    limit = time_limit(suite.name)
    hung, ended = [], threading.Event()

    def kill():
        # SIGTERM first, so that lab run stops its guest and a build its
        # worktree; SIGKILL for what is left 10 s later.
        if ended.is_set():
            return
        hung.append(True)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                return
            if ended.wait(10):
                return
    timer = threading.Timer(limit, kill)
    timer.daemon = True
    timer.start()
    _running.add(proc.pid)
    err_lines = []

    def drain_stderr():
        for line in proc.stderr:
            err_lines.append(line)
            emit("  # " + line.rstrip("\n"))

    t = threading.Thread(target=drain_stderr, daemon=True)
    t.start()
    out_lines, seen_version = [], False
    for line in proc.stdout:
        out_lines.append(line)
        line = line.rstrip("\n")
        if not seen_version and _VERSION.match(line):
            seen_version = True
            continue
        emit("  " + (line if seen_version or line.startswith("#") else "# " + line))
    # wait4() for the CPU time of the suite and every guest it ran.
    _, wstatus, usage = os.wait4(proc.pid, 0)
    status = proc.returncode = os.waitstatus_to_exitcode(wstatus)
    timer.cancel()
    ended.set()
    _running.discard(proc.pid)
    if hung:
        status = guest.EXIT_TIMEOUT
    t.join()
    suite.secs = time.time() - t0
    suite.cpu = usage.ru_utime + usage.ru_stime
    text, err = "".join(out_lines), "".join(err_lines)
    with open(suite.stdout_log, "w") as f:
        f.write(text)
    with open(suite.stderr_log, "w") as f:
        f.write(err)
    # lab names the run directory "kept in DIR" after a failed command, and
    # "(full log in DIR):" after a crash, splat, hang or QEMU failure.
    suite.rundirs = re.findall(r"(?:kept in|full log in) ([^\s)]+)", err)
    suite.rep = rep = ktap.parse(text)
    suite.problems = rep.problems() + unexpected_skips(suite.name, rep, kernel)
    if hung:
        suite.problems.append(f"the suite hung: no end within its time limit of {limit}s "
                              f"(exit {guest.EXIT_TIMEOUT}); it was killed")
    elif status == guest.EXIT_WARN:
        suite.problems.append(f"the kernel warned (exit {status}): a splat, "
                              "whatever the KTAP said")
    elif status in (guest.EXIT_PANIC, guest.EXIT_TIMEOUT, guest.EXIT_QEMU):
        suite.problems.append(f"the guest crashed, hung or failed (exit {status})")
    elif status != 0 and not rep.count("fail"):
        suite.problems.append(f"exited {status} without a failed test")
    for why in suite.problems:
        emit(f"  # problem: {why}")
    emit(f"{'ok' if suite.ok else 'not ok'} {suite.num} {suite.name}")


# Suites that run alone even under TCG: their cases judge rates or
# placement, which a guest next to them would change (the placement
# suites, the demo), or they compile on every core.  The latency tracer
# cases time a 500 ms section, and next to two guests on 2 cores one ran
# 681 ms (a 433 ms stall of its vCPU thread); the stress judges when its
# loops end, and next to two guests they ended 352 s late.
ALONE = {"cow", "cow-stock", "tprobe", "sched", "sched-4x2", "sched-nosmt", "sched-skips",
         "demo", "demo-stock", "matrix", "bisect", "article-drivers",
         "ftracetest-latency", "ftracetest-depth4", "stress"}


def shares(name, accel):
    """Whether suite `name` may run next to others.  Under TCG every
    suite may but those of ALONE: their guests mostly wait (the quick
    tier kept 1.1 of 2 cores busy one suite at a time), and their cases
    judge what the kernel did, not how fast.  Under KVM, whose vCPUs are
    pinned to host CPUs, only the host suites without a guest do
    (checkpatch, the sis_llc.h gates)."""
    if name in ("series", "sched-gates"):
        return True
    return accel == "tcg" and name not in ALONE


# Suites at once by default, on a host of two or more cores.
JOBS = 3

DURATIONS = "durations.json"


def _durations(path):
    try:
        with open(path) as f:
            return {k: float(v) for k, v in json.load(f).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def last_durations():
    """{suite: seconds} of each suite's last whole run here (LOGDIR), else
    of a run of ours (lablib/durations.json: TCG, 2 cores, three at once),
    so that a fresh clone starts the long suites first too."""
    times = _durations(os.path.join(TOP, "lablib", DURATIONS))
    times.update(_durations(os.path.join(LOGDIR, DURATIONS)))
    return times


def record_durations(suites):
    """Keep the time of each suite that ran whole, for the next run's order."""
    times = _durations(os.path.join(LOGDIR, DURATIONS))
    times.update({s.name: round(s.secs, 1) for s in suites if s.whole and s.rep})
    with open(os.path.join(LOGDIR, DURATIONS), "w") as f:
        json.dump(times, f, indent=1, sort_keys=True)


def order(specs, accel):
    """Suites that share first, the longest of their last runs first (a
    suite never run counts as longest), so that the short ones fill in
    at the end; then those that run alone, in the order named."""
    times = last_durations()
    share = [s for s in specs if shares(s[0], accel)]
    share.sort(key=lambda s: -times.get(s[0], float("inf")))
    return share + [s for s in specs if not shares(s[0], accel)]


def run_all(jobs_plan, jobs):
    """Run [(suite, argv, env, kernel, share)] with up to `jobs` of the
    suites that share at once; the others alone.  Each suite's KTAP is
    printed whole, in suite order, once it and every suite before it
    have finished."""
    lock = threading.Condition()
    done, printed = {}, [0]
    running = [0]

    def flush():
        while printed[0] < len(jobs_plan) and printed[0] in done:
            for line in done.pop(printed[0]):
                emit(line)
            printed[0] += 1

    def work(i, suite, argv, env, kernel):
        lines = []
        try:
            run_suite(suite, argv, env, kernel, emit=lines.append)
        except Exception as e:  # a suite that cannot start fails, the others run
            suite.rep = ktap.parse("")
            suite.problems.append(f"lab check could not run it: {e}")
            lines.append(f"not ok {suite.num} {suite.name}")
        finally:
            with lock:
                done[i] = lines
                running[0] -= 1
                flush()
                lock.notify_all()

    threads = []
    for i, (suite, argv, env, kernel, share) in enumerate(jobs_plan):
        with lock:
            # A suite that runs alone waits for every other to end, and one
            # that shares for a free slot (one that runs alone is joined
            # below before the next starts).
            while running[0] >= (jobs if share else 1):
                lock.wait()
            running[0] += 1
        if not share:
            emit(f"# {suite.name}: running alone")
        t = threading.Thread(target=work, args=(i, suite, argv, env, kernel))
        t.start()
        threads.append(t)
        if not share:
            t.join()
    for t in threads:
        t.join()


def parse_specs(specs):
    """['sched:sis.v3_9_*', 'lab', 'sched:sis.v3_8_*'] ->
    [('sched', ['sis.v3_9_*', 'sis.v3_8_*']), ('lab', None)]: one run per
    suite, in the order first named; a suite named whole runs whole."""
    out = {}
    for spec in specs:
        name, colon, glob = spec.partition(":")
        if name not in SUITES:
            raise CheckError(f"unknown suite {name}; known: {', '.join(SUITES)} "
                             "(./lab check --list)")
        if colon and not glob:
            raise CheckError(f"{spec}: empty test glob; want SUITE:GLOB")
        if name in out and (out[name] is None or not glob):
            out[name] = None
        else:
            out[name] = out.get(name, []) + [glob] if glob else None
    return list(out.items())


def default_specs(full):
    return [(n, None) for n in (SUITES if full else QUICK) if n not in NOT_BY_DEFAULT]


def print_kernels(names, kernel="lab", full=False):
    """`./lab check --kernels`: the kernels the suites need, one line."""
    try:
        specs = parse_specs(names) or default_specs(full)
    except CheckError as e:
        print(f"lab check: {e}", file=sys.stderr)
        return guest.EXIT_USAGE
    print(" ".join(kernels_needed(specs, kernel)))
    return 0


def main(names, kernel="lab", json_path=None, accel=None, full=False, jobs=None):
    try:
        if jobs is None:
            jobs = JOBS if (os.cpu_count() or 1) > 1 else 1
        if jobs < 1:
            raise CheckError(f"--jobs {jobs}: want 1 or more")
        limit = os.environ.get("LAB_SUITE_TIME_LIMIT")
        try:
            if limit is not None and float(limit) <= 0:
                raise ValueError
        except ValueError:
            raise CheckError(f"LAB_SUITE_TIME_LIMIT={limit}: want seconds, above 0") from None
        specs = parse_specs(names) or default_specs(full)
        if not os.path.isfile(os.path.join(ktap.KUNIT_DIR, "kunit_parser.py")):
            raise CheckError("no kernel tree in build/linux (its KTAP parser reads "
                             "every suite's output): run 'make tree'")
        missing = [k for k in kernels_needed(specs, kernel)
                   if not os.path.isfile(guest.KERNELS.get(k, k))]
        if missing:
            raise CheckError(f"no {' or '.join(missing)} kernel built: run "
                             + " and ".join(f"'make kernel-{k}'" for k in missing))
        picks = {name: pick(name, globs) if globs else ([], {}) for name, globs in specs}
        use, note = accel_mod.select(accel or os.environ.get("LAB_ACCEL") or "auto")
    except (CheckError, accel_mod.AccelError) as e:
        print(f"lab check: {e}", file=sys.stderr)
        return guest.EXIT_USAGE
    if note:
        print(f"lab check: {note}", file=sys.stderr, flush=True)
    os.makedirs(LOGDIR, exist_ok=True)
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, on_signal)
    print("KTAP version 1")
    if not names:
        for n, why in NOT_BY_DEFAULT.items():
            print(f"# not run by default: {n}: {why}")
    tier = "named suites" if names else ("full tier" if full else "quick tier")
    print(f"# {tier}; kernel {kernel}, accelerator {use}; logs in {os.path.relpath(LOGDIR)}/")
    if jobs > 1:
        specs = order(specs, use)
        alone = [n for n, _ in specs if not shares(n, use)]
        print(f"# up to {jobs} suites at once, the longest first"
              + (f"; alone: {', '.join(alone)}" if alone else "")
              + " (--jobs 1: one at a time, in the order named)")
    print(f"1..{len(specs)}", flush=True)
    suites, plan = [], []
    for num, (name, _) in enumerate(specs, 1):
        extra_argv, extra_env = picks[name]
        argv = [a.replace("{kernel}", kernel) for a in SUITES[name][1]] + extra_argv
        env = dict(os.environ, LAB_KERNEL=kernel, LAB_ACCEL=use,
                   **dict(SUITE_ENV.get(name, {}), **extra_env))
        suite = Suite(name, num)
        suite.whole = not extra_argv and not extra_env
        if jobs == 1:
            try:
                run_suite(suite, argv, env, kernel)
            except KeyboardInterrupt:
                kill_running()
                raise
        else:
            plan.append((suite, argv, env, kernel, shares(name, use)))
        suites.append(suite)
    try:
        run_all(plan, jobs)
    except KeyboardInterrupt:
        kill_running()
        raise
    record_durations(suites)
    passed = sum(s.rep.count("pass") for s in suites)
    failed = sum(s.rep.count("fail") + len(s.problems) for s in suites)
    skipped = sum(s.rep.count("skip") for s in suites)
    print(f"# summary (kernel: {kernel}, accelerator: {use}; logs in "
          f"{os.path.relpath(LOGDIR)}/)")
    for s in suites:
        print(f"#   {s.name:<18} {s.rep.count('pass'):4d} passed "
              f"{s.rep.count('fail') + len(s.problems):4d} failed "
              f"{s.rep.count('skip'):4d} skipped  {s.secs:6.1f}s, CPU {s.cpu:6.1f}s")
        for status, test, note in s.rep.results:
            if status in ("fail", "skip"):
                print(f"#     {'failed' if status == 'fail' else 'skipped'}: {test}"
                      + (f" ({note})" if note else ""))
        for why in s.problems:
            print(f"#     problem: {why}")
        if not s.ok:
            logs = [os.path.relpath(s.stdout_log), os.path.relpath(s.stderr_log)]
            print(f"#     logs: {', '.join(logs + s.rundirs)}")
    if json_path:
        write_kcidb(json_path, suites, kernel, use)
        print(f"# KCIDB report: {json_path}")
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 1 if failed else 0


def _git(*args):
    p = subprocess.run(["git", "-C", os.path.join(TOP, "build/linux"), *args],
                       capture_output=True, text=True)
    return p.stdout.strip()


def _kcidb_path(*parts):
    """A KCIDB test path: dot-separated, each part of [A-Za-z0-9_-]."""
    out = []
    for part in parts:
        for piece in part.split("."):
            piece = re.sub(r"[^A-Za-z0-9_-]+", "_", piece).strip("_")
            if piece:
                out.append(piece)
    return ".".join(out)


def kcidb_report(suites, kernel, accel):
    """The results as a KCIDB v5 I/O report: one checkout (the series on
    Debian's 6.12 source), one build (the kernel under test), and a test per
    suite and per test case."""
    head = _git("rev-parse", "HEAD" if kernel != "stock" else "base")
    patches = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(TOP, "patches"))
                     for f in fs if f.endswith(".patch") and not f.startswith("0000-"))
    inner = "".join(hashlib.sha256(open(p, "rb").read()).hexdigest() + "\n"
                    for p in patches) if kernel != "stock" else ""
    checkout_id = f"lab:{head[:12] or 'unknown'}"
    build_id = f"lab:{head[:12] or 'unknown'}-{kernel}"
    run_id = time.strftime("%Y%m%d%H%M%S")
    env = {"comment": f"QEMU {accel.upper()}, x86_64, started by ./lab check"}
    tests = []
    status_of = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}
    for s in suites:
        log = f"file://{os.path.abspath(s.stdout_log)}"
        tests.append({
            "id": f"lab:{run_id}:{s.num}", "build_id": build_id, "origin": "lab",
            "path": _kcidb_path(s.name), "comment": SUITES[s.name][0],
            "status": "PASS" if s.ok else ("ERROR" if s.problems and not
                                           s.rep.count("fail") else "FAIL"),
            "start_time": s.start.isoformat(), "duration": round(s.secs, 1),
            "environment": env, "log_url": log,
            "misc": {"problems": s.problems},
        })
        for i, (status, name, note) in enumerate(s.rep.results, 1):
            t = {"id": f"lab:{run_id}:{s.num}.{i}", "build_id": build_id,
                 "origin": "lab", "path": _kcidb_path(s.name, name),
                 "status": status_of[status], "environment": env, "log_url": log,
                 "misc": {"ktap_name": name}}
            if note:
                t["comment"] = note
            tests.append(t)
    return {
        "version": {"major": 5, "minor": 3},
        "checkouts": [{
            "id": checkout_id, "origin": "lab",
            "tree_name": "debian-linux-source-6.12",
            "git_commit_hash": head or "0" * 40,
            "git_commit_name": _git("describe", "--tags", "--always", head) or head,
            "patchset_hash": hashlib.sha256(inner.encode()).hexdigest() if inner else "",
        }],
        "builds": [{
            "id": build_id, "origin": "lab", "checkout_id": checkout_id,
            "architecture": "x86_64", "config_name": kernel, "status": "PASS",
        }],
        "tests": tests,
    }


def write_kcidb(path, suites, kernel, accel):
    with open(path, "w") as f:
        json.dump(kcidb_report(suites, kernel, accel), f, indent=1)
        f.write("\n")
