#!/usr/bin/env python3
"""Hold a kernel to stock 6.12: run tests/stock/probe.py on both, at
default settings, and print KTAP, one test a row.

  tests/stock/compare.py [KERNEL]     (default: upstream)

A row passes when both kernels show the same.  A row that differs fails,
unless it is on INTENDED (a difference that a patch of its own argues, with the
exact upstream row as a function of stock's) or on KNOWN (a regression
seen and not yet fixed, with the exact upstream row seen, reported as a
skip that the suite's expected skips name).  An entry of either list whose row no
longer differs fails too, so that neither list outlives its reason.
"""

import fnmatch
import os
import re
import subprocess
import sys
import threading

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The tracing suites' guest (lablib/check.py TRACING).
GUEST = ["--tcg", "single", "--smp", "4", "--append", "rcupdate.rcu_expedited=1",
         "--timeout", "600"]

HIDE = "tracing: Do not show the previous snapshot in the live buffer"
HIDE_WHY = ("after a swap 6.12 showed the previous snapshot's events in the live "
            "buffer again, older than the live ones and out of order; no reader can "
            "use them, and trace_pipe never showed them")


POLLW = "tracing: Let poll() wait for a snapshot"
POLLW_WHY = ("epoll_ctl() takes a snapshot file, which 6.12 refused with EPERM (no "
             ".poll), and it then reports what poll() and select() report, as in "
             "6.12: no program can depend on epoll refusing a file they accept")


def hidden(stock):
    """The stock row with the previous snapshot's markers gone from the
    live buffer, as the hiding patch leaves it."""
    def drop(m):
        kept = [x for x in m.group(1).split(",") if x not in ("m1",)]
        return "live=" + (",".join(kept) or "-")
    return re.sub(r"live=([m\d,]+)", drop, stock)


TRACE_ON = "tracing: Keep tracing on when an armed snapshot trigger finds no snapshot"
TRACE_ON_WHY = ("6.12 turned tracing off at the first hit of a trigger or probe "
                "after echo 0 > snapshot, at an arbitrary later event; nothing the "
                "user asked for depends on tracing stopping there")


ASLEEP = "tracing: Wake trace_pipe readers left on the old buffer by a snapshot"
ASLEEP_WHY = ("6.12's reader slept on the queue of the buffer that became the "
              "snapshot, and no later event woke it; no reader can depend on "
              "missing the events written after a snapshot")


FREED = "tracing: Take no snapshot once free_snapshot() has begun"
FREED_WHY = ("a probe that hit while echo 0 freed the snapshot could swap the "
             "live buffer into the half-freed one, so that the freed snapshot "
             "showed live events and the next echo 0 left them there; that race "
             "is the 6.12 bug the patch fixes, and stock shows it only sometimes")


def freed_and_traced_on(stock):
    """A probe row: the snapshot freed by echo 0 even where stock lost
    the race, and tracing left on."""
    return traced_on(stock.replace("snap=allocated", "snap=freed"))


def traced_on(stock):
    """The stock row with tracing left on and no NOT ALLOCATED line."""
    return stock.replace("on=0", "on=1").replace("not_allocated=yes", "not_allocated=no")


def added(*names):
    def add(stock):
        return " ".join(sorted(stock.split() + list(names)))
    return add


# Row glob -> (the patch that makes the difference, why no user can
# depend on the old behaviour, the upstream row as a function of stock's).
# Only patches of the upstream-bound series; a difference other than the
# one the function gives fails the row.
INTENDED = {
    "files.tracing": ("tracing: Keep a history of snapshots",
                      "new files only: snapshot_depth, and snapshots/ from \"tracing: Add "
                      "snapshots/N to read the older snapshots\"; no 6.12 file goes",
                      added("snapshot_depth", "snapshots")),
    "twice.live_and_snapshot": (HIDE, HIDE_WHY, hidden),
    "write.snapshot.allocated.1": (HIDE, HIDE_WHY, hidden),
    "write.snapshot.allocated.octal": (HIDE, HIDE_WHY, hidden),
    "write.snapshot.allocated.plus": (HIDE, HIDE_WHY, hidden),
    "write.snapshot.allocated.no_newline": (HIDE, HIDE_WHY, hidden),
    "write.per_cpu_snapshot.1": (HIDE, HIDE_WHY, hidden),
    # kstrtoul_from_user() stops at a NUL: these take a snapshot, as "1"
    "write.snapshot.allocated.nul": (HIDE, HIDE_WHY, hidden),
    "write.snapshot.allocated.pad64": (HIDE, HIDE_WHY, hidden),
    "write.per_cpu_snapshot.nul": (HIDE, HIDE_WHY, hidden),
    "write.per_cpu_snapshot.pad64": (HIDE, HIDE_WHY, hidden),
    "under.event_trigger.echo_1": (HIDE, HIDE_WHY, hidden),
    "under.event_trigger_count.echo_1": (HIDE, HIDE_WHY, hidden),
    "under.trace_open.echo_1": (HIDE, HIDE_WHY, hidden),
    "poll.snapshot.*": (POLLW, POLLW_WHY, lambda a: a.replace("epoll:EPERM", "epoll=1")),
    "poll.per_cpu_cpu0_snapshot.*": (POLLW, POLLW_WHY,
                                     lambda a: a.replace("epoll:EPERM", "epoll=1")),
    "fire.marker_trigger.echo_0": (TRACE_ON, TRACE_ON_WHY, traced_on),
    "probe.*.echo_0": (f"{TRACE_ON}\" and \"{FREED}", f"{TRACE_ON_WHY}; {FREED_WHY}",
                       freed_and_traced_on),
    "read.trace_pipe_asleep_across_a_snapshot": (
        ASLEEP, ASLEEP_WHY, lambda a: a.replace("after=-", "after=m2,m3")),
    "header.snapshot": ("tracing: Say in the snapshot files' header how each snapshot was taken",
                        "one '#' comment line more; readers of the text format skip "
                        "comment lines, and no 6.12 line moves but the ones below it",
                        lambda a: a.replace("# tracer: nop | ",
                                            "# tracer: nop | # snapshot: #N at N.N by "
                                            "file on CPU N | ", 1)),
}

# Row -> (why it differs, the upstream row as seen): regressions seen on
# the upstream kernel and not fixed yet, each a skip of its own in the
# suite's output while the upstream row is exactly the one seen; any
# other value fails the row.  Empty since the tracing series' fourth
# round (issue 37).
KNOWN = {}


def run_probe(kernel, out):
    """Boot kernel, run the probe: (rows {name: result}, problem or None)."""
    p = subprocess.run([os.path.join(TOP, "lab"), "run", *GUEST, "--kernel", kernel, "--",
                        os.path.join(TOP, "tests/stock/probe.py")],
                       cwd=TOP, capture_output=True, text=True, errors="replace")
    out[kernel] = p


def rows_of(text):
    rows = {}
    for line in text.splitlines():
        name, tab, result = line.partition("\t")
        if tab:
            rows[name] = result
    return rows


def lookup(table, name):
    for glob, what in table.items():
        if fnmatch.fnmatchcase(name, glob):
            return glob, what
    return None, None


def main():
    kernel = sys.argv[1] if len(sys.argv) > 1 else "upstream"
    if os.environ.get("LAB_TEST_LIST"):
        return 0
    runs = {}
    threads = [threading.Thread(target=run_probe, args=(k, runs)) for k in ("stock", kernel)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("KTAP version 1")
    bad = [k for k, p in runs.items() if p.returncode != 0]
    if bad:
        print("1..1")
        for k in bad:
            p = runs[k]
            print(f"# the probe on {k} exited {p.returncode}:")
            for line in (p.stderr.strip().splitlines() or ["(no stderr)"])[-30:]:
                print(f"#   {line}")
        print("not ok 1 probe_ran_on_both_kernels")
        return 1
    stock, other = rows_of(runs["stock"].stdout), rows_of(runs[kernel].stdout)
    names = list(stock) + [n for n in other if n not in stock]
    print(f"# {len(names)} rows: stock against {kernel}, default settings")
    print(f"1..{len(names)}", flush=True)
    failed = 0
    used = set()
    for i, name in enumerate(names, 1):
        a, b = stock.get(name, "(no row)"), other.get(name, "(no row)")
        iglob, intended = lookup(INTENDED, name)
        kglob, known = lookup(KNOWN, name)
        used.update(g for g in (iglob, kglob) if g)
        if a == b:
            if intended or known:
                failed += 1
                print(f"# {name}: the same on both, yet listed as "
                      f"{'intended' if intended else 'known'} ({iglob or kglob}): "
                      "take it off the list")
                print(f"not ok {i} {name}")
            else:
                print(f"ok {i} {name}")
            continue
        print(f"#   stock:   {a}")
        print(f"#   {kernel + ':':<8} {b}")
        if intended and intended[2](a) == b:
            print(f"# intended, \"{intended[0]}\": {intended[1]}")
            print(f"ok {i} {name}")
        elif intended:
            failed += 1
            print(f"# listed as intended (\"{intended[0]}\"), but the patch makes it:")
            print(f"#   {intended[2](a)}")
            print(f"not ok {i} {name}")
        elif known and known[1] == b:
            print(f"ok {i} {name} # SKIP known difference: {known[0]}")
        elif known:
            failed += 1
            print(f"# listed as known ({known[0]}), but was: {known[1]}")
            print(f"not ok {i} {name}")
        else:
            failed += 1
            print(f"not ok {i} {name}")
    stale = (set(INTENDED) | set(KNOWN)) - used
    for glob in sorted(stale):
        print(f"# no row matches the listed glob {glob}: take it off the list")
    return 1 if failed or stale else 0


if __name__ == "__main__":
    sys.exit(main())
