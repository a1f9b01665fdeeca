#!/usr/bin/env python3
"""The lab's own tests, as KTAP: each case boots a guest with `lab run`."""

import io
import os
import re
import secrets
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, TOP)

from lablib import guest, ktap  # noqa: E402

KERNEL = os.environ.get("LAB_KERNEL", "lab")
TOPOLOGY = os.path.join(TOP, "tests/lab/topology.sh")


def run(argv, **kw):
    out, err = io.BytesIO(), io.BytesIO()
    kw.setdefault("kernel", KERNEL)
    kw.setdefault("timeout", 120)
    res = guest.run(argv, stdout=out, stderr=err, **kw)
    return res, out.getvalue().decode(errors="replace"), err.getvalue().decode(errors="replace")


def check_topology(topology=None, smp=None):
    if smp:
        cores, threads, kw = smp, 1, {"smp": smp}
    else:
        cores, threads = map(int, topology.split("x"))
        kw = {"topology": topology}
    res, out, _ = run([TOPOLOGY, str(cores), str(threads)], **kw)
    bad = [line for line in out.splitlines() if line.startswith("not ok")]
    assert res.kind == "exit" and res.status == 0 and not bad and "ok " in out, \
        f"guest status {res.status} ({res.kind}):\n{out}{res.console_tail(10)}"


def test_topology_default_10x2():
    """The default guest is the seed's 10 core + SMT package."""
    check_topology("10x2")


def test_topology_smp_3():
    check_topology(smp=3)


def test_exit_zero_propagates():
    res, _, _ = run(["true"])
    assert (res.kind, res.status) == ("exit", 0), (res.kind, res.status)


def test_exit_nonzero_propagates():
    res, _, _ = run(["sh", "-c", "exit 3"])
    assert (res.kind, res.status) == ("exit", 3), (res.kind, res.status)


def test_stdout_and_stderr_are_separate():
    res, out, err = run(["sh", "-c", "echo to-out; echo to-err >&2"])
    assert res.status == 0 and out == "to-out\n" and err == "to-err\n", (out, err)


def test_host_file_is_readable():
    token = secrets.token_hex(16)
    path = os.path.join(TOP, "build", f"lab-selftest-{os.getpid()}.txt")
    with open(path, "w") as f:
        f.write(token + "\n")
    try:
        res, out, _ = run(["cat", path])
    finally:
        os.unlink(path)
    assert res.status == 0 and out.strip() == token, (res.status, out)


def test_host_root_is_read_only_and_tmp_writable():
    res, out, _ = run(["sh", "-c",
                       f"touch {TOP}/ro-probe 2>/dev/null && echo writable; "
                       "touch /tmp/x /var/x /run/x && echo tmp-ok"])
    assert res.status == 0 and out == "tmp-ok\n", out


def test_panic_is_reported_as_crash():
    res, out, _ = run(["sh", "-c", "echo c > /proc/sysrq-trigger; sleep 30; echo survived"])
    assert res.kind == "panic" and res.status == guest.EXIT_PANIC, (res.kind, res.status)
    assert "survived" not in out
    assert re.search(r"sysrq|Kernel panic", res.console), res.console_tail(10)


def test_hang_is_reported_as_timeout():
    res, _, _ = run(["sleep", "600"], timeout=25)
    assert res.kind == "timeout" and res.status == guest.EXIT_TIMEOUT, (res.kind, res.status)


def test_bad_topology_is_refused():
    try:
        run(["true"], topology="0x2")
    except guest.LabError as e:
        assert "CORESxTHREADS" in str(e)
        return
    raise AssertionError("--topology 0x2 was accepted")


PROVOKE = "/sys/kernel/debug/provoke-crash/DIRECT"
SPLAT_MODULE = os.path.join(TOP, "build/splat-module/lab_splat.ko")


def provoke(cmd, kernel=KERNEL, timeout=240):
    """Run cmd in a 2-CPU guest, then sleep: a run that stops on the splat
    never prints "survived"."""
    start = time.time()
    res, out, err = run(["sh", "-c", f"{cmd}; sleep 100; echo survived"],
                        kernel=kernel, smp=2, timeout=timeout)
    return res, out, err, time.time() - start


def check_splat(res, out, name, marker):
    assert (res.kind, res.status) == ("warn", guest.EXIT_WARN), \
        f"{res.kind} {res.status}, want warn {guest.EXIT_WARN}:\n{res.console_tail(15)}"
    assert res.splat[0] == name, f"splat named {res.splat[0]}, want {name}"
    assert marker in res.splat[1], f"{marker!r} not in the splat:\n{res.splat[1]}"
    assert "survived" not in out, "the run went on after the splat"


def test_lab_run_exits_122_on_a_warning_and_shows_it():
    """LKDTM WARNING: ./lab run exits 122 at once with the splat on stderr."""
    start = time.time()
    p = subprocess.run([os.path.join(TOP, "lab"), "run", "--kernel", KERNEL, "--smp", "2",
                        "--timeout", "200", "--", "sh", "-c",
                        f"echo WARNING > {PROVOKE}; sleep 100; echo survived"],
                       capture_output=True, text=True)
    took = time.time() - start
    assert p.returncode == guest.EXIT_WARN, f"exit {p.returncode}:\n{p.stderr[-2000:]}"
    assert "the kernel warned (WARNING)" in p.stderr, p.stderr[-2000:]
    assert re.search(r"WARNING: CPU: \d+ PID: \d+ at .*lkdtm", p.stderr), p.stderr[-2000:]
    assert "survived" not in p.stdout
    assert took < 100, f"the run took {took:.0f}s: it did not stop on the warning"


def test_lkdtm_bug_is_a_crash():
    res, out, _, _ = provoke(f"echo BUG > {PROVOKE}")
    assert (res.kind, res.status) == ("panic", guest.EXIT_PANIC), (res.kind, res.status)
    assert "kernel BUG at" in res.console and "survived" not in out


def test_splats_are_classified():
    """The patterns against real splat lines, and boot lines that must not
    match (seen on the lab and debug kernels)."""
    cases = [
        ("[  5.1] WARNING: CPU: 1 PID: 80 at drivers/misc/lkdtm/bugs.c:97 lkdtm_WARNING", "WARNING"),
        ("[  5.1] WARNING: possible circular locking dependency detected", "lockdep"),
        ("[  5.1] WARNING: inconsistent lock state", "lockdep"),
        ("[  5.1] WARNING: suspicious RCU usage", "lockdep"),
        ("[  5.1] BUG: KASAN: slab-use-after-free in lkdtm_READ_AFTER_FREE+0x1/0x2", "KASAN"),
        ("[  5.1] UBSAN: array-index-out-of-bounds in kernel/trace/trace.c:42:7", "UBSAN"),
        ("[ 30.1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:", "RCU stall"),
        ("[ 30.1] rcu: INFO: rcu_preempt self-detected stall on CPU", "RCU stall"),
        ("[ 30.1] INFO: task sh:81 blocked for more than 5 seconds.", "hung task"),
        ("[ 30.1] watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [sh:80]", "soft lockup"),
        ("[  5.1] BUG: sleeping function called from invalid context at kernel/x.c:1", "BUG"),
        ("[  5.1] list_add corruption. prev->next should be next", "list corruption"),
        ("[  5.1] Oops: invalid opcode: 0000 [#1] PREEMPT SMP", "oops"),
        ("[  5.1] Kernel panic - not syncing: sysrq triggered crash", "panic"),
    ]
    for line, name in cases:
        got = guest.find_splat("[  0.0] booting\n" + line + "\n")
        assert got and got[1] == name, f"{line!r}: {got and got[1]}, want {name}"
    # panic_on_warn: the WARNING comes first and decides.
    got = guest.find_splat(cases[0][0] + "\n[ 5.2] Kernel panic - not syncing: kernel: "
                           "panic_on_warn set ...\n")
    assert got[:2] == ("warn", "WARNING"), got
    clean = ["[  0.0] kasan: KernelAddressSanitizer initialized (generic)",
             "[  0.0] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar",
             "[  0.0] rcu: \tRCU CPU stall warnings timeout set to 100 (rcu_cpu_stall_timeout).",
             "[  0.0] ODEBUG: selftest passed",
             "[  0.2] Spectre V2 : WARNING: Unprivileged eBPF is enabled"]
    for line in clean:
        assert guest.find_splat(line) is None, f"boot line taken for a splat: {line!r}"


def test_debug_kernel_warning():
    res, out, _, _ = provoke(f"echo WARNING > {PROVOKE}", kernel="debug")
    check_splat(res, out, "WARNING", "lkdtm_WARNING")


def test_debug_kernel_kasan_use_after_free():
    res, out, _, _ = provoke(f"echo READ_AFTER_FREE > {PROVOKE}", kernel="debug")
    check_splat(res, out, "KASAN", "use-after-free")


def test_debug_kernel_lockdep_circular():
    assert os.path.exists(SPLAT_MODULE), f"no {SPLAT_MODULE}: run 'make kernel-debug'"
    # busybox: the host may have no kmod.
    res, out, _, _ = provoke(f"busybox insmod {SPLAT_MODULE} what=circular", kernel="debug")
    check_splat(res, out, "lockdep", "lab_splat_init")


def main():
    return ktap.run_tests([(n[5:], f) for n, f in globals().items()
                           if n.startswith("test_")])


if __name__ == "__main__":
    sys.exit(main())
