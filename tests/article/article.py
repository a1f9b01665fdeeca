#!/usr/bin/env python3
"""The article suite: what the 3.9 article (seeds/000-article.md) promises
beyond the two seed commits, as KTAP.  Each group of cases boots its own
guest once; SUITE:GLOB boots only the groups it needs.

  article.py [KERNEL]      KERNEL: lab (default), stock, debug or a bzImage

1. Trace events without padding, trace-cmd, perf stat -I: article.sh.
2. Tickless user space: nohz.sh with nohz_full=, and without it.
3. perf bench numa mem on two NUMA nodes: numa.sh under --numa 2.
4. regmap without a bus, and asynchronous writes: a KUnit module
   (regmap/), and the tree's regmap-kunit, through lablib.kunit.
5. The drivers it names that 6.12 still has and x86_64 builds: drivers.sh.
"""

import functools
import io
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, TOP)

from lablib import guest, ktap, kunit  # noqa: E402

KERNEL = sys.argv[1] if len(sys.argv) > 1 else "lab"
HERE = os.path.join(TOP, "tests/article")

# The tick: the same busy loop on housekeeping CPU 1 and on CPU 3.
NOHZ_SECS = 5
NOHZ_RATIO = 10     # nohz_full: CPU 1 takes at least 10x the ticks of CPU 3
CONTROL_RATIO = 2   # without it both tick alike: within 2x of each other
MIN_TICKS = 5 * NOHZ_SECS   # a ticking CPU: HZ is 100 or more; 5/s is dead


def run(argv, **kw):
    out, err = io.BytesIO(), io.BytesIO()
    kw.setdefault("kernel", KERNEL)
    kw.setdefault("timeout", 300)
    res = guest.run(guest.GuestSpec.make(**kw), argv, stdout=out, stderr=err)
    out, err = out.getvalue().decode(errors="replace"), err.getvalue().decode(errors="replace")
    assert res.kind == "exit", \
        f"guest {res.kind} (exit {res.status}) in {res.rundir}:\n{err}{res.console_tail(15)}"
    return res, out, err


def comment(text):
    for line in text.splitlines():
        print(f"# {line}")


# 1. article.sh: five KTAP cases in one guest.
@functools.cache
def format_cases():
    res, out, err = run([os.path.join(HERE, "article.sh")])
    comment("\n".join(l[2:] for l in out.splitlines() if l.startswith("# ")))
    rep = ktap.parse(out)
    assert not rep.problems(), f"article.sh KTAP: {rep.problems()}"
    return {name: status for status, name, _ in rep.results}


def format_case(name):
    def test():
        status = format_cases().get(name)
        assert status == "pass", f"article.sh: {name}: {status or 'missing'}"
    return test


# 2. The tick.
def nohz(append):
    _, out, _ = run([os.path.join(HERE, "nohz.sh"), "1", "3", str(NOHZ_SECS)],
                    smp=4, append=append)
    m = re.search(r"nohz_full=(\S*) secs=\d+ loc_1=(\d+) loc_3=(\d+)", out)
    assert m, f"no result line from nohz.sh:\n{out}"
    full, hk, nz = m.group(1), int(m.group(2)), int(m.group(3))
    print(f"# nohz_full={full or '(none)'}: {NOHZ_SECS} s of a user-space loop on each: "
          f"CPU 1 {hk} local timer interrupts, CPU 3 {nz}"
          f"{f', {hk / max(nz, 1):.0f}x fewer' if full else ''}")
    return full, hk, nz


def test_nohz_full_cpu_takes_10x_fewer_ticks():
    full, hk, nz = nohz("nohz_full=2-3")
    assert full == "2-3", f"/sys/devices/system/cpu/nohz_full says '{full}', want 2-3"
    assert hk >= MIN_TICKS, f"the housekeeping CPU took only {hk} ticks in {NOHZ_SECS} s"
    assert hk >= NOHZ_RATIO * max(nz, 1), \
        f"CPU 3 (nohz_full) took {nz} ticks, CPU 1 {hk}: want {NOHZ_RATIO}x fewer"


def test_without_nohz_full_both_cpus_tick():
    """The control: the same loop without nohz_full= ticks on both CPUs,
    so the case above fails on a kernel or command line without it."""
    full, hk, nz = nohz("")
    assert full == "", f"nohz_full is '{full}' without nohz_full="
    assert min(hk, nz) >= MIN_TICKS and max(hk, nz) <= CONTROL_RATIO * min(hk, nz), \
        f"CPU 1 {hk} and CPU 3 {nz} ticks: want both ticking, within {CONTROL_RATIO}x"


# 3. perf bench numa mem on two nodes: 2 sockets of 2 cores.
def test_perf_bench_numa_mem_on_two_nodes():
    _, out, _ = run([os.path.join(HERE, "numa.sh"), "0", "2"],
                    topology="4x1", numa=2, mem="2G", timeout=400)
    kv = dict(re.findall(r"(\w+)=(\S+)", out))
    print(f"# nodes {kv.get('nodes_online')}: node0 CPUs {kv.get('node0_cpus')}, "
          f"{int(kv.get('node0_mem_kb', 0)) // 1024} MB; node1 CPUs "
          f"{kv.get('node1_cpus')}, {int(kv.get('node1_mem_kb', 0)) // 1024} MB")
    assert kv.get("nodes_online") == "0-1", f"online nodes: {kv.get('nodes_online')}\n{out}"
    assert kv.get("node0_cpus") == "0-1" and kv.get("node1_cpus") == "2-3", out
    # One process per node, its CPU and memory bound there (-C, -M).
    bound = sorted(set(re.findall(r"binding to node (\d+)", out)))
    figures = [l.strip() for l in out.splitlines() if re.search(r"GB/sec|on \d+ nodes", l)]
    comment("\n".join([f"perf bench numa mem bound processes to nodes {', '.join(bound)}"]
                       + figures))
    assert bound == ["0", "1"], f"processes bound to nodes {bound}, want 0 and 1:\n{out}"
    assert any("GB/sec" in l for l in figures), f"no GB/sec figure:\n{out}"


# 4. regmap, through KUnit.
def kunit_case(glob, modules, want):
    spec = guest.GuestSpec.make(kernel=KERNEL, smp=2, timeout=300)
    res, reports, text = kunit.run(spec, glob, modules)
    counts = {s: sum(r.count(s) for r in reports) for s in ("pass", "fail", "skip")}
    fails = [f"{n}: {note}" for r in reports for s, n, note in r.results if s == "fail"]
    problems = [p for r in reports for p in r.problems()]
    print(f"# kunit {glob}: {counts['pass']} passed, {counts['fail']} failed, "
          f"{counts['skip']} skipped")
    assert res.kind == "exit" and res.status == 0, \
        f"guest {res.kind} (exit {res.status}):\n{res.console_tail(15)}"
    assert not fails and not problems, f"{fails} {problems}\n{text[-3000:]}"
    assert counts["pass"] >= want, f"{counts['pass']} passed, want {want}:\n{text[-3000:]}"


def test_regmap_without_a_bus_and_async_writes():
    mod = os.path.join(TOP, "build/modules", KERNEL, "regmap/regmap_nobus_test.ko")
    kunit_case("regmap_nobus_async", [mod], 5)


def test_tree_regmap_kunit_basic_read_write():
    """The tree's own regmap-kunit, built in, picked by filter glob."""
    kunit_case("regmap.basic_read_write", [], 4)


# 5. The drivers the article names that 6.12 has and x86_64 can build.
def test_drivers_named_by_the_article_compile():
    import subprocess
    p = subprocess.run([os.path.join(HERE, "drivers.sh"), KERNEL], cwd=TOP,
                       capture_output=True, text=True, timeout=900)
    rep = ktap.parse(p.stdout)
    comment("\n".join(l[2:] for l in p.stdout.splitlines() if l.startswith("# ")))
    built = [n for s, n, _ in rep.results if s == "pass"]
    print(f"# compiled: {', '.join(built) or 'none'}")
    bad = [n for s, n, _ in rep.results if s != "pass"]
    assert p.returncode == 0 and not bad and not rep.problems() and built, \
        f"drivers.sh exit {p.returncode}; not built: {bad}; {rep.problems()}\n{p.stderr[-2000:]}"


TESTS = [
    ("events_have_no_common_padding", format_case("events_have_no_common_padding")),
    ("common_fields_are_type_flags_preempt_count_pid",
     format_case("common_fields_are_type_flags_preempt_count_pid")),
    ("event_fields_start_at_offset_8", format_case("event_fields_start_at_offset_8")),
    ("trace_cmd_records_and_reports_sched_switch",
     format_case("trace_cmd_records_and_reports_sched_switch")),
    ("perf_stat_prints_intervals", format_case("perf_stat_prints_intervals")),
] + [(n[5:], f) for n, f in list(globals().items()) if n.startswith("test_")]

if __name__ == "__main__":
    sys.exit(ktap.run_tests(TESTS))
