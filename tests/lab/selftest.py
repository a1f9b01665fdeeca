#!/usr/bin/env python3
"""The lab's own tests, as KTAP: each case boots a guest with `lab run`."""

import io
import os
import re
import secrets
import sys

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


def main():
    return ktap.run_tests([(n[5:], f) for n, f in globals().items()
                           if n.startswith("test_")])


if __name__ == "__main__":
    sys.exit(main())
