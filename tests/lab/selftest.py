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


def run(argv, keep=False, **kw):
    """guest.run() of argv in the guest of GuestSpec.make(**kw).  Two
    CPUs unless kw names a topology: a 20-vCPU boot costs 4.7 CPU-s under
    TCG, a 2-vCPU one 2.9; the topology cases boot the 10 x 2 package."""
    out, err = io.BytesIO(), io.BytesIO()
    if not {"topology", "smp", "numa"} & kw.keys():
        kw["smp"] = 2
    kw.setdefault("kernel", KERNEL)
    kw.setdefault("timeout", 120)
    res = guest.run(guest.GuestSpec.make(**kw), argv, stdout=out, stderr=err, keep=keep)
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


def demo_snapshot(written, kept, lines):
    """A snapshot file as the demo reads it: the header, then lines of
    (cpu, time, next_comm, next_pid)."""
    out = ["# tracer: nop", f"# entries-in-buffer/entries-written: {kept}/{written}   #P:20"]
    for cpu, t, comm, pid in lines:
        out.append(f"          <idle>-0       [{cpu:03d}] d..2. {t:10.6f}: sched_switch: "
                   f"prev_comm=swapper prev_pid=0 prev_prio=120 prev_state=R ==> "
                   f"next_comm={comm} next_pid={pid} next_prio=120")
    return "\n".join(out) + "\n"


def test_demo_window_is_the_whole_snapshot_when_nothing_was_overwritten():
    """The pair ping-pongs on CPUs 2 and 4, then one of them reaches CPU 7
    at the very end.  Nothing was overwritten, so every switch counts; had
    a buffer wrapped, the window would start at CPU 7's first event."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("demo", os.path.join(TOP, "demo/demo.py"))
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    lines = [(2 if i % 2 else 4, 1.0 + i / 100, "tbench" if i % 2 else "tbench_srv",
              100 if i % 2 else 200) for i in range(100)]
    lines.append((7, 3.0, "tbench", 100))
    sw, _ = demo.switches(demo_snapshot(len(lines), len(lines), lines))
    assert len(sw) == 101, f"{len(sw)} switches of 101 in the window"
    assert demo.moves(sw)[0] is not None
    sw, _ = demo.switches(demo_snapshot(len(lines) + 50, len(lines), lines))
    assert len(sw) == 1, f"{len(sw)} switches in a wrapped snapshot's window, want 1"


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


def test_guests_started_at_once_on_a_fresh_clone_build_the_init_once_each():
    """Three guests that start together on a fresh clone each build the
    guest's init, and none of them fails for another's rename (seen as
    FileNotFoundError on build/guest-init.tmp in a cold make check)."""
    import tempfile
    import threading
    tmp = tempfile.mkdtemp(prefix="lab-init-", dir=os.path.join(TOP, "build"))
    os.makedirs(os.path.join(tmp, "guest"))
    subprocess.run(["cp", os.path.join(TOP, "guest/init.c"), os.path.join(tmp, "guest")],
                   check=True)
    saved, errors = guest.TOP, []

    def build():
        try:
            guest.build_init()
        except Exception as e:  # any failure is the finding
            errors.append(f"{type(e).__name__}: {e}")

    guest.TOP = tmp
    try:
        threads = [threading.Thread(target=build) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        exe = os.path.join(tmp, "build/guest-init")
        assert not errors, errors
        assert os.access(exe, os.X_OK), "no build/guest-init"
        left = [f for f in os.listdir(os.path.join(tmp, "build")) if f.endswith(".tmp")]
        assert not left, left
    finally:
        guest.TOP = saved
        subprocess.run(["rm", "-rf", tmp])


def test_hang_is_reported_as_timeout():
    res, _, _ = run(["sleep", "600"], timeout=10)
    assert res.kind == "timeout" and res.status == guest.EXIT_TIMEOUT, (res.kind, res.status)


def test_bad_topology_is_refused():
    try:
        run(["true"], topology="0x2")
    except guest.LabError as e:
        assert "CORESxTHREADS" in str(e)
        return
    raise AssertionError("--topology 0x2 was accepted")


PROVOKE = "/sys/kernel/debug/provoke-crash/DIRECT"
SPLAT_MODULE = os.path.join(TOP, "build/modules/debug/splat/lab_splat.ko")


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


TRACER_LOOP = """
T=/sys/kernel/tracing
for i in $(seq 15); do
    for t in wakeup irqsoff function_graph function nop; do
        echo $t > $T/current_tracer || { echo "round $i: $t refused"; exit 1; }
    done
done
echo "tracer switches: 15 rounds done"
"""


def test_tracer_switches_in_the_default_guest():
    """15 rounds through wakeup, irqsoff, function_graph, function and
    nop in the guest `./lab run` boots by default (10 x 2, multi-threaded
    TCG): each switch patches kernel text live, which QEMU 7.2's
    multi-threaded TCG could run stale ("Oops: int3")."""
    res, out, err = run(["sh", "-c", TRACER_LOOP], topology="10x2", timeout=600)
    assert res.kind == "exit" and res.status == 0 and "15 rounds done" in out, \
        f"{res.kind} {res.status} ({res.splat[0] if res.splat else ''}):\n{out}{err}" \
        f"{res.splat[1] if res.splat else res.console_tail(20)}"


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
        # Missed before: an expedited stall (the tracing suites boot with
        # rcu_expedited), kmemleak's scan, lockdep's INFO lines, and any
        # report behind a caller ID (CONFIG_PRINTK_CALLER).
        ("[ 30.1] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks:",
         "RCU stall"),
        ("[ 60.1] kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
         "kmemleak"),
        ("[  5.1] INFO: trying to register non-static key.", "lockdep"),
        ("[  5.1] DEBUG_LOCKS_WARN_ON(1)", "lockdep"),
        ("[ T123] WARNING: CPU: 1 PID: 123 at kernel/trace/trace.c:42 f+0x1/0x2", "WARNING"),
        ("[    5.123456][  T123] WARNING: CPU: 1 PID: 123 at kernel/x.c:1 f", "WARNING"),
        ("[    5.123456][    C1] BUG: KASAN: use-after-free in f+0x1/0x2", "KASAN"),
        ("[  C1] BUG: sleeping function called from invalid context", "BUG"),
        ("WARNING: CPU: 0 PID: 1 at kernel/x.c:1 f", "WARNING"),
        ("[  5.1] [ BUG: Invalid wait context ]", "lockdep"),
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
             "[  0.2] Spectre V2 : WARNING: Unprivileged eBPF is enabled",
             "[  0.3] kmemleak: Kernel memory leak detector initialized (mem pool available: 15)",
             "[  0.3][    T1] rcu: Hierarchical RCU implementation.",
             "[  9.9] traps: python3[81] general protection fault ip:7f01 sp:7ffe error:0"]
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


def test_accel_selection_with_a_faked_kvm_probe():
    """auto, kvm and tcg against a probe that says yes, then no."""
    from lablib import accel
    calls = []

    def yes():
        calls.append(1)
        return None

    def no():
        calls.append(1)
        return "cannot open /dev/kvm: No such file or directory"

    assert accel.select("auto", yes) == ("kvm", None)
    assert accel.select("kvm", yes) == ("kvm", None)
    use, note = accel.select("auto", no)
    assert use == "tcg" and "cannot open /dev/kvm" in note and "TCG" in note, note
    for bad in [("kvm", no), ("hvf", yes)]:
        try:
            accel.select(*bad)
        except accel.AccelError as e:
            assert ("not usable" in str(e)) == (bad[0] == "kvm"), e
        else:
            raise AssertionError(f"--accel {bad[0]} was accepted")
    n = len(calls)
    assert accel.select("tcg", no) == ("tcg", None) and len(calls) == n, "tcg probed KVM"


def test_accel_probe_of_a_device_that_is_not_kvm():
    """/dev/null opens but is no KVM: the probe says why, auto falls back."""
    from lablib import accel
    why = accel.probe_kvm("/dev/null")
    assert why and "/dev/null" in why, why
    assert accel.probe_kvm("/nonexistent/kvm").startswith("cannot open"), "no reason"


def test_accel_auto_on_this_host():
    """auto takes KVM when the probe says it works, else TCG with one note
    on stderr; --accel kvm without KVM is an error that boots nothing."""
    from lablib import accel
    why = accel.probe_kvm()
    env = {k: v for k, v in os.environ.items() if k != "LAB_ACCEL"}
    p = subprocess.run([os.path.join(TOP, "lab"), "run", "--kernel", KERNEL, "--smp", "1",
                        "--accel", "auto", "--", "true"], capture_output=True,
                       text=True, env=env)
    assert p.returncode == 0, p.stderr
    notes = [line for line in p.stderr.splitlines() if "KVM is not usable" in line]
    assert len(notes) == (1 if why else 0), (why, p.stderr)
    start = time.time()
    p = subprocess.run([os.path.join(TOP, "lab"), "run", "--kernel", KERNEL,
                        "--accel", "kvm", "--", "true"], capture_output=True, text=True)
    if why:
        assert p.returncode == guest.EXIT_USAGE and "KVM is not usable" in p.stderr, p
        assert time.time() - start < 5, "it booted"
    else:
        assert p.returncode == 0, p.stderr


def test_pin_plan_puts_siblings_on_siblings():
    from lablib import accel
    host = [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert accel.pin_plan(2, 2, host) == [0, 4, 1, 5]
    assert accel.pin_plan(3, 1, host) == [0, 1, 2]
    assert accel.pin_plan(6, 1, host) == [0, 1, 2, 3, 4, 5]
    assert accel.pin_plan(1, 2, [[0], [1]]) == [0, 1]
    assert accel.pin_plan(3, 2, [[0, 1]]) == [0, 1, 0, 1, 0, 1]


def test_pin_pins_every_vcpu_thread():
    res, _, _ = run(["true"], smp=2, pin=True, tcg="multi")
    assert res.status == 0 and len(res.pinned) == 2, (res.status, res.pinned)
    allowed = os.sched_getaffinity(0)
    assert all(cpu in allowed for _, _, cpu in res.pinned), res.pinned
    assert len({tid for _, tid, _ in res.pinned}) == 2, res.pinned


def test_env_reaches_the_command():
    res, out, _ = run(["sh", "-c", 'echo "$FOO|$BAR|$TERM"'], smp=1,
                      env=["FOO=a b", "BAR=", "TERM=xterm"])
    assert res.status == 0 and out == "a b||xterm\n", out
    for bad in ("1X=2", "NOEQUALS", "A-B=1"):
        try:
            run(["true"], env=[bad])
        except guest.LabError as e:
            assert bad in str(e), e
        else:
            raise AssertionError(f"--env {bad} was accepted")


def test_shell_reads_the_terminal_and_exits_with_it():
    """What is typed at the prompt reaches the guest's shell, and its exit
    status is lab's.  The lines go in once the prompt shows, as a user
    types them: the serial line drops what comes before the shell has
    set the terminal up."""
    import threading
    p = subprocess.Popen([os.path.join(TOP, "lab"), "shell", "--kernel", KERNEL, "--smp", "1",
                          "--timeout", "120"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    out, err = bytearray(), []
    prompt = threading.Event()

    def read_out():
        for chunk in iter(lambda: p.stdout.read1(4096), b""):
            out.extend(chunk)
            if re.search(rb"[#$] (\x1b\[\?2004h)?$", bytes(out[-64:])):
                prompt.set()
        prompt.set()

    reader = threading.Thread(target=read_out, daemon=True)
    reader.start()
    errs = threading.Thread(target=lambda: err.append(p.stderr.read()), daemon=True)
    errs.start()
    saw_prompt = prompt.wait(110)
    try:
        p.stdin.write(b"echo hello-$((6*7))\nexit 5\n")
        p.stdin.close()
    except BrokenPipeError:
        pass
    status = p.wait(timeout=130)
    reader.join(10)
    errs.join(10)
    text = out.decode(errors="replace")
    stderr = (err[0] if err else b"").decode(errors="replace")
    assert saw_prompt, ("no prompt", text[-1500:], stderr[-1500:])
    assert status == 5, (status, text[-1500:], stderr[-1500:])
    assert "hello-42" in text, text[-1500:]
    # A shell under multi-threaded TCG is told of the int3 oops of QEMU
    # before 10 (on this host's QEMU), and only then.
    spec = guest.GuestSpec.make(kernel=KERNEL, smp=1)
    version = guest.qemu_version(spec.qemu)
    old = spec.accel == "tcg" and version is not None and version < guest.MTTCG_TEXT_POKE_FIXED
    assert ("Oops: int3" in stderr) == old, (version, stderr[-1500:])


def test_qemu_args_are_passed_and_a_bad_one_is_reported():
    res, _, _ = run(["true"], smp=1, qemu_args=["-name", "lab-selftest"], keep=True)
    try:
        with open(os.path.join(res.rundir, "qemu.cmd")) as f:
            assert "-name lab-selftest" in f.read()
    finally:
        subprocess.run(["rm", "-rf", res.rundir])
    assert res.status == 0, res.status
    res, _, _ = run(["true"], smp=1, qemu_args=["-no-such-option"])
    subprocess.run(["rm", "-rf", res.rundir])
    assert res.kind == "qemu" and "no-such-option" in res.console, res.console_tail()


def test_gdb_stub_answers():
    """--gdb starts QEMU's stub: a remote-protocol '?' gets a stop reply,
    and 'c' lets the guest finish."""
    import socket
    import threading
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    box = {}
    t = threading.Thread(target=lambda: box.update(r=run(["sleep", "2"], smp=1, gdb=port)))
    t.start()
    reply = b""
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
                c.sendall(b"$?#3f")
                while b"#" not in reply:
                    reply += c.recv(256)
                c.sendall(b"+$c#63")
                time.sleep(0.5)
            break
        except OSError:
            time.sleep(0.2)
    t.join(120)
    assert re.search(rb"\$[ST][0-9a-f]{2}", reply), reply
    assert box["r"][0].status == 0, box["r"][0].status


def test_failed_run_keeps_its_run_directory():
    res, _, _ = run(["sh", "-c", "echo kept > $LAB_OUT/mark; exit 3"], smp=1)
    try:
        assert res.status == 3 and os.path.isfile(os.path.join(res.rundir, "mark")), res.rundir
        assert os.path.isfile(os.path.join(res.rundir, "console.log"))
    finally:
        subprocess.run(["rm", "-rf", res.rundir])
    res, _, _ = run(["true"], smp=1)
    assert not os.path.exists(res.rundir), "a clean run left its directory"


def test_ktap_parser_fails_what_it_must():
    """The tree's kunit_parser under lablib.ktap: a failed subtest under an
    ok parent, a duplicate number, 1..0, a missing result and results past
    the plan all fail; a clean stream with a SKIP does not."""
    bad = {
        "failed subtest under ok parent":
            "KTAP version 1\n1..1\n  KTAP version 1\n  # Subtest: s\n  1..2\n"
            "  ok 1 x\n  not ok 2 y\nok 1 s\n",
        "duplicate number": "KTAP version 1\n1..2\nok 1 a\nok 1 b\n",
        "empty plan": "KTAP version 1\n1..0\n",
        "missing result": "KTAP version 1\n1..3\nok 1 a\nok 2 b\n",
        "past the plan": "KTAP version 1\n1..1\nok 1 a\nnot ok 2 b\n",
        "no plan": "KTAP version 1\nok 1 a\n",
        "no KTAP": "hello\n",
    }
    for what, text in bad.items():
        rep = ktap.parse(text)
        assert rep.count("fail") or rep.problems(), f"{what} passed: {rep.results}"
    rep = ktap.parse("TAP version 13\n1..2\n# note\nok 1 sis.a\nok 2 sis.b # SKIP no SMT\n")
    assert rep.results == [("pass", "sis.a", ""), ("skip", "sis.b", "no SMT")] \
        and not rep.problems(), (rep.results, rep.problems())


def test_check_prints_one_ktap_document_and_a_kcidb_report():
    """lab check over two stand-in suites: its stdout parses as one KTAP
    document with the suites nested, stderr stays out of the results, and
    --json writes a KCIDB report with a test per suite and per case."""
    import contextlib
    import json
    from lablib import check
    fake = {
        "good": ("stand-in", ["sh", "-c", "echo 'TAP version 13'; echo 1..2; echo 'ok 1 a';"
                                          "echo noise >&2; echo 'ok 2 b # SKIP why'"]),
        "bad": ("stand-in", ["sh", "-c", "echo 'KTAP version 1'; echo 1..1; echo 'not ok 1 c'"]),
    }
    saved = dict(check.SUITES), dict(check.EXPECTED_SKIPS)
    check.SUITES.clear()
    check.SUITES.update(fake)
    check.EXPECTED_SKIPS["good"] = {"b": "stand-in"}
    import tempfile
    tmp = tempfile.mkdtemp(prefix="lab-check-", dir=os.path.join(TOP, "build"))
    path = os.path.join(tmp, "kcidb.json")
    saved_logdir, check.LOGDIR = check.LOGDIR, tmp
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            status = check.main(["good", "bad"], json_path=path, accel="tcg")
        with open(path) as f:
            report = json.load(f)
    finally:
        check.SUITES.clear()
        check.SUITES.update(saved[0])
        check.EXPECTED_SKIPS.clear()
        check.EXPECTED_SKIPS.update(saved[1])
        check.LOGDIR = saved_logdir
        subprocess.run(["rm", "-rf", tmp])
    text = out.getvalue()
    assert status == 1 and text.splitlines()[-1] == "1 passed, 1 failed, 1 skipped", text
    assert text.startswith("KTAP version 1\n"), text[:200]
    rep = ktap.parse(text)
    assert not rep.problems(), rep.problems()
    assert rep.results == [("pass", "good.a", ""), ("skip", "good.b", "why"),
                           ("fail", "bad.c", "failure")], rep.results
    assert "  # noise" in text, "stderr not shown as a diagnostic"
    assert report["version"] == {"major": 5, "minor": 3}, report["version"]
    tests = {t["path"]: t["status"] for t in report["tests"]}
    assert tests == {"good": "PASS", "good.a": "PASS", "good.b": "SKIP",
                     "bad": "FAIL", "bad.c": "FAIL"}, tests
    build = report["builds"][0]["id"]
    assert all(t["build_id"] == build and t["origin"] == "lab" and t["id"].startswith("lab:")
               for t in report["tests"]), report["tests"]
    assert len({t["id"] for t in report["tests"]}) == len(report["tests"]), "ids repeat"
    assert report["builds"][0]["checkout_id"] == report["checkouts"][0]["id"]


def test_check_runs_suites_side_by_side_the_longest_first():
    """lab check -j 2 under TCG: two suites that share overlap, the longest
    of their last runs first; one of ALONE overlaps none and comes last;
    each suite's KTAP stays whole; the times of whole runs are kept for
    the next.  -j 1 runs them one at a time, in the order named."""
    import contextlib
    import json
    import tempfile
    from lablib import check
    tmp = tempfile.mkdtemp(prefix="lab-jobs-", dir=os.path.join(TOP, "build"))
    log = os.path.join(tmp, "times")
    body = ('echo "$0 $(date +%s.%N)" >> ' + log + '; sleep 1; echo "$0 $(date +%s.%N)" >> '
            + log + '; echo "KTAP version 1"; echo 1..2; echo "ok 1 a"; echo "ok 2 b"')
    fake = {n: ("stand-in", ["sh", "-c", body, n]) for n in ("x", "s1", "s2")}
    saved, saved_logdir, saved_alone = dict(check.SUITES), check.LOGDIR, set(check.ALONE)
    check.SUITES.update(fake)
    check.ALONE.add("x")
    check.LOGDIR = tmp
    try:
        runs = {}
        for jobs in (2, 1):
            open(log, "w").close()
            # s2 took longer last time, so it starts first.
            with open(os.path.join(tmp, check.DURATIONS), "w") as f:
                json.dump({"s1": 5.0, "s2": 50.0, "other": 7.0}, f)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                status = check.main(["x", "s1", "s2"], accel="tcg", jobs=jobs)
            spans = {}
            for line in open(log):
                name, t = line.split()
                spans.setdefault(name, []).append(float(t))
            with open(os.path.join(tmp, check.DURATIONS)) as f:
                kept = json.load(f)
            runs[jobs] = (status, out.getvalue(), spans, kept)
    finally:
        check.SUITES.clear()
        check.SUITES.update(saved)
        check.ALONE.clear()
        check.ALONE.update(saved_alone)
        check.LOGDIR = saved_logdir
        subprocess.run(["rm", "-rf", tmp])

    def overlap(spans, a, b):
        return spans[a][0] < spans[b][1] and spans[b][0] < spans[a][1]

    for jobs, order, both in ((2, ["s2", "s1", "x"], True), (1, ["x", "s1", "s2"], False)):
        status, text, spans, kept = runs[jobs]
        assert status == 0 and text.splitlines()[-1] == "6 passed, 0 failed", text
        rep = ktap.parse(text)
        assert not rep.problems(), rep.problems()
        assert [r[1] for r in rep.results] == [f"{n}.{t}" for n in order for t in "ab"], text
        assert overlap(spans, "s1", "s2") == both, (jobs, spans)
        assert not overlap(spans, "x", "s1") and not overlap(spans, "x", "s2"), (jobs, spans)
        assert kept["other"] == 7.0 and all(1 <= kept[n] < 5 for n in fake), kept


def test_check_kills_a_suite_past_its_time_limit():
    """A suite whose host process outlives its time limit is killed with
    everything it started, and fails as hung (124); the next one runs."""
    import contextlib
    import tempfile
    from lablib import check
    tmp = tempfile.mkdtemp(prefix="lab-limit-", dir=os.path.join(TOP, "build"))
    pidfile = os.path.join(tmp, "child")
    fake = {"hangs": ("stand-in", ["sh", "-c", f'echo "KTAP version 1"; echo 1..1; '
                                   f'sleep 300 & echo $! > {pidfile}; wait']),
            "fine": ("stand-in", ["sh", "-c", 'echo "KTAP version 1"; echo 1..1; echo ok 1 a'])}
    saved, saved_logdir, saved_limits = dict(check.SUITES), check.LOGDIR, dict(check.TIME_LIMITS)
    check.SUITES.update(fake)
    check.TIME_LIMITS["hangs"] = 2
    check.KERNELS.update({"hangs": [], "fine": []})
    check.LOGDIR = tmp
    try:
        out = io.StringIO()
        t0 = time.time()
        with contextlib.redirect_stdout(out):
            status = check.main(["hangs", "fine"], accel="tcg", jobs=1)
        took = time.time() - t0
        child = int(open(pidfile).read())
        alive = os.path.exists(f"/proc/{child}") and \
            open(f"/proc/{child}/stat").read().split()[2] != "Z"
    finally:
        check.SUITES.clear()
        check.SUITES.update(saved)
        check.TIME_LIMITS.clear()
        check.TIME_LIMITS.update(saved_limits)
        for name in fake:
            check.KERNELS.pop(name, None)
        check.LOGDIR = saved_logdir
        subprocess.run(["rm", "-rf", tmp])
    text = out.getvalue()
    assert status == 1 and took < 60, (status, took, text)
    assert "no end within its time limit of 2" in text and "exit 124" in text, text
    assert "ok 2 fine" in text and text.splitlines()[-1].startswith("1 passed, "), text
    assert not alive, "the suite's child outlived the kill"


def test_check_finds_the_run_directory_of_a_crash_a_splat_and_a_failure():
    """lab check names the run directory that lab kept, whatever lab's
    message: "full log in DIR):" for a crash, splat, hang or QEMU failure,
    "kept in DIR" for a command that failed.  Host only: stand-in suites
    print lab's messages (as lab prints them) and exit with its status."""
    import contextlib
    import tempfile
    from lablib import check
    rundir = "build/runs/20261204-120000-abc_123"
    lines = {  # stderr as lab prints it, and the exit status
        "crash": ("lab: the guest kernel crashed; exit 121. Console tail "
                  f"(full log in {rundir}-crash):", guest.EXIT_PANIC),
        "splat": (f"lab: the kernel warned (KASAN); exit 122. The splat "
                  f"(full log in {rundir}-splat):", guest.EXIT_WARN),
        "hang": ("lab: the guest hung (no exit within 300s); exit 124. Console tail "
                 f"(full log in {rundir}-hang):", guest.EXIT_TIMEOUT),
        "failed": ("lab: exit 1; run directory (console log, dmesg, QEMU command) "
                   f"kept in {rundir}-failed", 1),
    }
    tmp = tempfile.mkdtemp(prefix="lab-check-")
    saved_logdir, check.LOGDIR = check.LOGDIR, tmp
    saved = dict(check.SUITES)
    check.SUITES.update({name: ("stand-in", []) for name in lines})
    try:
        for name, (line, status) in lines.items():
            argv = ["sh", "-c", "echo 'KTAP version 1'; echo 1..1; echo 'not ok 1 a'; "
                    f"echo \"$1\" >&2; exit {status}", "sh", line]
            suite = check.Suite(name, 1)
            with contextlib.redirect_stdout(io.StringIO()):
                check.run_suite(suite, argv, dict(os.environ), "lab")
            assert suite.rundirs == [f"{rundir}-{name}"], (name, suite.rundirs)
    finally:
        check.SUITES.clear()
        check.SUITES.update(saved)
        check.LOGDIR = saved_logdir
        subprocess.run(["rm", "-rf", tmp])


def test_check_picks_tests_and_refuses_bad_names():
    from lablib import check
    argv, env = check.pick("lab", ["exit_*"])
    assert argv == [] and env == {"LAB_TEST_GLOB": "exit_*"}, (argv, env)
    argv, _ = check.pick("ftracetest", ["00basic/snapshot_h*"])
    assert argv == ["00basic/snapshot_history"], argv
    # Two globs of one suite make one run of both (the second used to win)
    specs = check.parse_specs(["ftracetest:00basic/snapshot_h*", "lab",
                               "ftracetest:trigger/trigger-snapshot-b*"])
    assert specs == [("ftracetest", ["00basic/snapshot_h*",
                                     "trigger/trigger-snapshot-b*"]),
                     ("lab", None)], specs
    argv, _ = check.pick(*specs[0])
    assert argv == ["00basic/snapshot_history",
                    "trigger/trigger-snapshot-burst"], argv
    assert check.parse_specs(["lab:exit_*", "lab"]) == [("lab", None)]
    for bad, words in (("nosuch", "unknown suite"), ("lab:", "empty test glob"),
                       ("lab:zzz*", "no test of lab matches"),
                       ("snapshot:x", "runs as one script")):
        try:
            specs = check.parse_specs([bad])
            check.pick(*specs[0])
        except check.CheckError as e:
            assert words in str(e), (bad, str(e))
        else:
            raise AssertionError(f"{bad} was accepted")


def test_check_without_a_tree_says_make_tree():
    """On a fresh clone, lab check names the missing step instead of a
    traceback from the thread that runs the first suite."""
    import contextlib
    from lablib import check, ktap
    saved = ktap.KUNIT_DIR
    err = io.StringIO()
    try:
        ktap.KUNIT_DIR = "/nonexistent/tools/testing/kunit"
        with contextlib.redirect_stderr(err):
            status = check.main(["sched-gates"], accel="tcg")
    finally:
        ktap.KUNIT_DIR = saved
    assert status == guest.EXIT_USAGE, (status, err.getvalue())
    assert "run 'make tree'" in err.getvalue(), err.getvalue()


def test_check_names_the_variants_of_a_harness_fixture():
    """A fixture with variants runs each test once per variant, and KTAP
    names them fixture.variant.test: SUITE:GLOB must see those names."""
    from lablib import check
    listing = (
        "# FIXTURE            VARIANT                   TEST\n"
        "global                                         \n"
        "                                               plain\n"
        "-------------------------------------------------------\n"
        "held                 top_level                 reads_on\n"
        "                     instance                  wakes\n")
    names = check.harness_names(listing)
    assert names == ["global.plain", "held.top_level.reads_on",
                     "held.top_level.wakes", "held.instance.reads_on",
                     "held.instance.wakes"], names


def test_stress_refuses_bad_arguments_and_the_host():
    """stress.sh rewrites kernel settings: it names a bad argument, and
    outside the guest (no LAB_OUT) it refuses to start at all."""
    stress = os.path.join(TOP, "tests/stress/stress.sh")
    env = {k: v for k, v in os.environ.items() if k != "LAB_OUT"}
    for args, words in ((["x"], "usage"), (["60", "some"], "usage"),
                        (["6x0"], "usage"), (["60"], "inside the lab guest"),
                        (["60", "all"], "inside the lab guest")):
        p = subprocess.run(["sh", stress, *args], env=env, capture_output=True,
                           text=True, timeout=10)
        assert p.returncode == 2 and words in p.stderr and not p.stdout, \
            (args, p.returncode, p.stdout, p.stderr)


def test_article_format_cases_fail_on_the_3_8_layout():
    """tests/article/article.sh against sched_switch's 3.8 format (with
    common_padding): its three format cases must fail."""
    res, out, _ = run(["sh", "-c", f"T={TOP}/tests/article/layout-3.8 "
                       f"{TOP}/tests/article/article.sh"], smp=1)
    for n in (1, 2, 3):
        assert re.search(rf"^not ok {n} ", out, re.M), out
    assert res.status == 1, res.status


def test_numa_layout_and_bad_numa_requests():
    """--numa N: one socket per node, memory split evenly; a request that
    would put a node boundary inside a package, or tiny nodes, is refused
    before anything boots."""
    sockets, args = guest.numa_layout(2, 4, 2, "2G")
    assert sockets == 2, sockets
    assert args == ["-object", "memory-backend-ram,id=node0,size=1024M",
                    "-numa", "node,nodeid=0,memdev=node0", "-numa", "cpu,node-id=0,socket-id=0",
                    "-object", "memory-backend-ram,id=node1,size=1024M",
                    "-numa", "node,nodeid=1,memdev=node1",
                    "-numa", "cpu,node-id=1,socket-id=1"], args
    for kw, words in (({"topology": "5x2", "numa": 2}, "divisible by 2"),
                      ({"topology": "4x2", "numa": 1}, "want 2..8"),
                      ({"topology": "4x2", "numa": 2, "mem": "200M"}, "at least 128M")):
        try:
            run(["true"], **kw)
        except guest.LabError as e:
            assert words in str(e), (kw, str(e))
        else:
            raise AssertionError(f"{kw} was accepted")


def test_qemu_command_is_unchanged():
    """GuestSpec.make() and qemu_command() build the command lines of
    tests/lab/qemu-commands.json, which guest.run() built before it was
    split into them: 10x2, --smp 2, --numa 2, --gdb, KVM with --pin, and
    lab shell.  Host only: nothing boots."""
    import dataclasses
    import difflib
    import json
    with open(os.path.join(TOP, "tests/lab/qemu-commands.json")) as f:
        cases = json.load(f)
    rundir = "/srv/lab/build/runs/20260101-000000-abcd1234"
    saved = guest.TOP
    try:
        for name, case in cases.items():
            opts = dict(case["options"])
            accel = opts.pop("accel", "tcg")
            # Any file passes for the bzImage; KVM comes after make(),
            # which would probe /dev/kvm.
            spec = guest.GuestSpec.make(kernel=os.path.join(TOP, "lab"), accel="tcg", **opts)
            spec = dataclasses.replace(spec, accel=accel, qemu="qemu-system-x86_64",
                                       image="/srv/lab/build/linux/.out/arch/x86/boot/bzImage")
            guest.TOP = case["top"]
            cmdline = guest.kernel_cmdline(spec, "/srv/lab/build/guest-init", rundir,
                                           case["interactive"])
            argv = guest.qemu_command(spec, rundir, cmdline, 5, 7, case["interactive"])
            assert argv == case["argv"], f"{name}:\n" + "\n".join(
                difflib.unified_diff(case["argv"], argv, "recorded", "built", lineterm=""))
    finally:
        guest.TOP = saved


def test_numa_guest_sees_two_nodes():
    res, out, _ = run(["sh", "-c", "cat /sys/devices/system/node/online "
                       "/sys/devices/system/node/node1/cpulist"],
                      topology="2x2", numa=2, mem="1G")
    assert res.status == 0 and out.split() == ["0-1", "2-3"], (res.status, out)


def test_kunit_documents_are_cut_at_their_plan():
    """lablib.kunit splits a kernel log into KTAP documents: the empty
    built-in run (1..0) goes, kernel lines after a document's last result
    are not part of it."""
    from lablib import kunit
    log = "\n".join(["boot line", "KTAP version 1", "1..0", "more boot",
                      "KTAP version 1", "1..1", "    KTAP version 1",
                      "    # Subtest: s", "    1..1", "    not ok 1 t", "not ok 1 s",
                      "ok 2 unrelated kernel line"])
    docs = kunit.documents(log)
    assert len(docs) == 1 and docs[0].startswith("KTAP version 1\n1..1\n"), docs
    assert "unrelated" not in docs[0], docs
    rep = ktap.parse(docs[0])
    assert rep.results == [("fail", "s.t", "failure")], rep.results


def test_lab_kunit_runs_a_built_in_suite_and_a_module():
    """./lab kunit: a built-in suite picked by glob, and a test module's
    suite; a glob that matches nothing is a failure, not a pass."""
    mod = os.path.join(TOP, "build/modules", KERNEL, "regmap/regmap_nobus_test.ko")
    p = subprocess.run([os.path.join(TOP, "lab"), "kunit", "--kernel", KERNEL, "--smp", "2",
                        "--module", mod, "regmap*.*_read_write"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    # regmap-kunit's basic_read_write (8 cache types) at boot, then the
    # module's nobus_read_write on load: two KTAP documents.
    assert re.search(r"^ok \d+ regmap$", p.stdout, re.M), p.stdout[-2000:]
    assert re.search(r"^    ok 1 nobus_read_write$", p.stdout, re.M), p.stdout[-2000:]
    assert "# kunit: 9 passed, 0 failed" in p.stdout, p.stdout[-500:]
    p = subprocess.run([os.path.join(TOP, "lab"), "kunit", "--kernel", KERNEL, "--smp", "2",
                        "no_such_suite"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 1 and "no KUnit output" in p.stdout, (p.returncode, p.stdout[-500:])


def main():
    return ktap.run_tests([(n[5:], f) for n, f in globals().items()
                           if n.startswith("test_")])


if __name__ == "__main__":
    sys.exit(main())
