#!/usr/bin/env python3
"""In the guest: what a user sees of the tracing and sched files, one row
a line, "NAME<TAB>RESULT", for tests/stock/compare.py to hold against
another kernel.

Every row starts from the same state (reset()): no snapshot allocated,
nop tracer, no trigger or probe, tracing on, empty buffers.  A row's
result is what the user got (the write's errno or byte count, poll's
answer) and then what the files show after it (state()), so that a write
that succeeds but does something else differs too.  Nothing here reads a
time, a pid or a count that varies from run to run.
"""

import errno
import os
import re
import select
import subprocess
import sys
import threading
import time

T = "/sys/kernel/tracing"
ROWS = []


def row(name, result):
    ROWS.append(name)
    print(f"{name}\t{result}", flush=True)


def path(rel):
    return os.path.join(T, rel)


def write(rel, data, fd=None):
    """One write(2) of the bytes data, as `echo` does: "ok N" or the
    errno's name (at open or at write)."""
    try:
        f = os.open(path(rel), os.O_WRONLY | os.O_TRUNC) if fd is None else fd
    except OSError as e:
        return f"open:{errno.errorcode.get(e.errno, e.errno)}"
    try:
        n = os.write(f, data)
        return f"ok {n}"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    finally:
        if fd is None:
            os.close(f)


def quiet(rel, data):
    """A set-up write whose failure is the row's business, not ours."""
    try:
        with open(path(rel), "wb", buffering=0) as f:
            f.write(data)
    except OSError:
        pass


def read(rel):
    try:
        with open(path(rel), "rb") as f:
            return f.read().decode(errors="replace")
    except OSError as e:
        return f"read:{errno.errorcode.get(e.errno, e.errno)}"


def markers(text):
    """The trace_marker strings (m1, m2, ...) in a trace, in order."""
    return ",".join(re.findall(r"tracing_mark_write: (m\d+)", text)) or "-"


def snap_state(rel="snapshot"):
    text = read(rel)
    if text.startswith("read:"):
        return text
    if "Snapshot is freed" in text:
        return "freed"
    if "Snapshot is allocated" in text:
        return "empty"
    return markers(text)


def state():
    """What the files show: the snapshot, the live buffer, tracing_on."""
    return (f"snap={snap_state()} live={markers(read('trace'))} "
            f"on={read('tracing_on').strip()}")


def mark(name):
    quiet("trace_marker", name.encode())


def reset():
    quiet("current_tracer", b"nop")
    for ev in ("sched/sched_switch", "sched/sched_waking", "ftrace/print"):
        trig = read(f"events/{ev}/trigger")
        for line in trig.splitlines():
            if line and not line.startswith("#"):
                quiet(f"events/{ev}/trigger", b"!" + line.split(" [")[0].encode())
        quiet(f"events/{ev}/enable", b"0")
    quiet("set_ftrace_filter", b"!*:snapshot")
    quiet("set_ftrace_filter", b"")
    quiet("snapshot", b"0")
    quiet("trace", b"")
    quiet("tracing_on", b"1")
    quiet("buffer_size_kb", b"1408")


# Values written to each file: what 6.12 accepts and what it refuses, as
# echo, printf and programs write them.
VALUES = {
    "0": b"0\n", "1": b"1\n", "2": b"2\n", "3": b"3\n", "neg": b"-1\n",
    "word": b"abc\n", "empty": b"", "newline": b"\n", "nul": b"1\0",
    "pad64": b"1\n" + b"\0" * 62, "lead_space": b" 1\n", "trail_space": b"1 \n",
    "tab": b"\t1\n", "hex": b"0x1\n", "octal": b"01\n", "plus": b"+1\n",
    "two_newlines": b"1\n\n", "no_newline": b"1", "big": b"18446744073709551616\n",
    "0_nul": b"0\0", "2_pad64": b"2\n" + b"\0" * 62,
}


def writes():
    """Every value into the snapshot files, from a freed and from an
    allocated snapshot."""
    for start in ("freed", "allocated"):
        for name, data in VALUES.items():
            reset()
            mark("m1")
            if start == "allocated":
                quiet("snapshot", b"1")
                mark("m2")
            got = write("snapshot", data)
            row(f"write.snapshot.{start}.{name}", f"{got} {state()}")
    for name in ("0", "1", "2", "nul", "pad64", "word", "neg", "lead_space"):
        reset()
        mark("m1")
        quiet("snapshot", b"1")
        mark("m2")
        got = write("per_cpu/cpu0/snapshot", VALUES[name])
        row(f"write.per_cpu_snapshot.{name}", f"{got} {state()}")
        reset()
        got = write("per_cpu/cpu0/snapshot_raw", VALUES[name])
        row(f"write.snapshot_raw.{name}", f"{got} {state()}")
    sizes = {"1024": b"1024\n", "7": b"7\n", "0": b"0\n", "word": b"abc\n",
             "nul": b"1024\0", "pad64": b"1024\n" + b"\0" * 59, "lead_space": b" 1024\n",
             "neg": b"-1\n", "empty": b""}
    for alloc in ("freed", "allocated"):
        for name, data in sizes.items():
            reset()
            if alloc == "allocated":
                quiet("snapshot", b"1")
            got = write("buffer_size_kb", data)
            row(f"write.buffer_size_kb.{alloc}.{name}",
                f"{got} size={read('buffer_size_kb').strip()} "
                f"cpu0={read('per_cpu/cpu0/buffer_size_kb').strip()} "
                f"total={read('buffer_total_size_kb').strip()} snap={snap_state()}")
    for name, data in sizes.items():
        reset()
        got = write("per_cpu/cpu1/buffer_size_kb", data)
        row(f"write.per_cpu_buffer_size_kb.{name}",
            f"{got} size={read('buffer_size_kb').strip()} "
            f"cpu1={read('per_cpu/cpu1/buffer_size_kb').strip()} "
            f"total={read('buffer_total_size_kb').strip()}")
    reset()
    for name, data in {"4": b"4\n", "8": b"8\n", "3": b"3\n", "word": b"abc\n",
                       "nul": b"8\0", "0": b"0\n"}.items():
        quiet("snapshot", b"1")
        got = write("buffer_subbuf_size_kb", data)
        row(f"write.buffer_subbuf_size_kb.{name}",
            f"{got} subbuf={read('buffer_subbuf_size_kb').strip()} snap={snap_state()}")
        quiet("buffer_subbuf_size_kb", b"4")
        reset()
    for name, data in {"f": b"f\n", "1": b"1\n", "nul": b"f\0", "word": b"xyz\n",
                       "empty": b"\n"}.items():
        reset()
        got = write("tracing_cpumask", data)
        row(f"write.tracing_cpumask.{name}", f"{got} mask={read('tracing_cpumask').strip()}")
        quiet("tracing_cpumask", b"f")
    for name, data in {"0": b"0\n", "100": b"100\n", "word": b"abc\n"}.items():
        got = write("tracing_max_latency", data)
        row(f"write.tracing_max_latency.{name}",
            f"{got} max={read('tracing_max_latency').strip()}")
    reset()


def under(what, arm, disarm, look=None):
    """echo 0, 1 and 2 into snapshot while `what` holds it, then after
    it is gone.  look: what the files show (state())."""
    look = look or state
    for value in (b"0\n", b"1\n", b"2\n"):
        reset()
        mark("m1")
        quiet("snapshot", b"1")
        mark("m2")
        armed = arm()
        got = write("snapshot", value)
        after = look()
        disarm()
        row(f"under.{what}.echo_{value[:1].decode()}",
            f"arm={armed} {got} {after} then={look()}")


def alloc_state():
    """Only whether a snapshot is allocated, and tracing_on: for the rows
    whose probe fires at times of its own."""
    snap = snap_state()
    kind = snap if snap in ("freed",) or snap.startswith("read:") else "allocated"
    return f"snap={kind} on={read('tracing_on').strip()}"


def conditions():
    # Armed triggers that never fire (the filter matches no task): they
    # hold the snapshot as any trigger does, and the rows stay exact.
    trig = "events/sched/sched_switch/trigger"
    never = b' if prev_comm == "no-such-task"'
    under("event_trigger", lambda: write(trig, b"snapshot" + never + b"\n"),
          lambda: quiet(trig, b"!snapshot" + never))
    under("event_trigger_count", lambda: write(trig, b"snapshot:1" + never + b"\n"),
          lambda: quiet(trig, b"!snapshot:1" + never))
    # A trigger that fires when we say: on the trace_marker's event.
    # After "echo 0", the next hit finds no snapshot.
    mtrig = "events/ftrace/print/trigger"
    for value in (b"0\n", b"1\n", b"2\n"):
        reset()
        armed = write(mtrig, b"snapshot\n")
        mark("m1")
        fired = snap_state()
        got = write("snapshot", value)
        mark("m2")
        row(f"fire.marker_trigger.echo_{value[:1].decode()}",
            f"arm={armed} fired={fired} {got} {alloc_state()} "
            f"not_allocated={'yes' if 'SNAPSHOT NOT ALLOCATED' in read('trace') else 'no'}")
        quiet(mtrig, b"!snapshot")
    hist = "events/sched/sched_waking/trigger"
    under("hist_snapshot_action",
          lambda: write(hist, b"hist:keys=pid:v=prio:onmax($v).snapshot() if comm==\"nosuch\"\n"),
          lambda: quiet(hist, b"!hist:keys=pid:v=prio:onmax($v).snapshot() if comm==\"nosuch\""))
    # A latency tracer swaps its buffer at each new maximum, at times of
    # its own: only whether a snapshot is there, not what it holds.
    under("irqsoff_tracer", lambda: write("current_tracer", b"irqsoff\n"),
          lambda: quiet("current_tracer", b"nop"), alloc_state)
    under("wakeup_tracer", lambda: write("current_tracer", b"wakeup\n"),
          lambda: quiet("current_tracer", b"nop"), alloc_state)

    def open_trace():
        open_trace.f = open(path("trace"), "rb")
        open_trace.f.read(64)
        return "open"
    under("trace_open", open_trace, lambda: open_trace.f.close())

    # With the pause-on-trace option (off by default), an open "trace"
    # stops tracing, and 6.12 took no snapshot but said it did.
    def open_trace_paused():
        quiet("options/pause-on-trace", b"1")
        return open_trace()

    def close_trace_paused():
        open_trace.f.close()
        quiet("options/pause-on-trace", b"0")
    under("trace_open_paused", open_trace_paused, close_trace_paused)

    # A function probe: added, then removed, then the snapshot written.
    # Two probes removed together, as trace-cmd and users do with '!*'.
    for probes in ((b"schedule:snapshot",), (b"schedule:snapshot", b"schedule_timeout:snapshot")):
        name = "+".join(p.split(b":")[0].decode() for p in probes)
        for value in (b"0\n", b"1\n", b"2\n"):
            reset()
            mark("m1")
            quiet("snapshot", b"1")
            armed = ",".join(write("set_ftrace_filter", p + b"\n") for p in probes)
            during = write("snapshot", value)
            # A sleep calls schedule(): the probes hit at least once
            # before they go, whatever the timing.
            time.sleep(0.05)
            removed = write("set_ftrace_filter", b"!*:snapshot\n")
            left = sum("snapshot" in ln for ln in read("set_ftrace_filter").splitlines())
            got = write("snapshot", value)
            # The probes fire on every schedule(): only whether a
            # snapshot is left, not what it holds.
            row(f"probe.{name}.echo_{value[:1].decode()}",
                f"arm={armed} during={during} removed={removed} left={left} "
                f"after={got} {alloc_state()}")
    reset()


def readiness(rel, data_first, snap_while_open=False):
    """poll, select and epoll on a file: ready at once or not, with the
    buffer empty or with an event in it."""
    reset()
    if data_first:
        quiet("snapshot", b"1")
        mark("m1")
    out = []
    try:
        fd = os.open(path(rel), os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        return f"open:{errno.errorcode.get(e.errno, e.errno)}"
    try:
        if snap_while_open:
            # 6.12 refuses it (EBUSY) when the open reader holds the
            # unallocated buffer, which then cannot be resized.
            out.append(f"snap={write('snapshot', b'1')}")
        p = select.poll()
        p.register(fd, select.POLLIN | select.POLLPRI | select.POLLERR)
        ev = p.poll(0)
        out.append(f"poll={ev[0][1] if ev else 0}")
        r, _, x = select.select([fd], [], [fd], 0)
        out.append(f"select={'r' if r else '-'}{'x' if x else '-'}")
        try:
            ep = select.epoll()
            ep.register(fd, select.EPOLLIN | select.EPOLLPRI)
            ev = ep.poll(0)
            out.append(f"epoll={ev[0][1] if ev else 0}")
            ep.close()
        except OSError as e:
            out.append(f"epoll:{errno.errorcode.get(e.errno, e.errno)}")
    finally:
        os.close(fd)
    return " ".join(out)


def wakes(rel, action):
    """Whether a poll() for POLLIN on rel, waiting up to 10 s, returns
    when another thread does action after 0.3 s."""
    reset()
    quiet("buffer_percent", b"0")
    fd = os.open(path(rel), os.O_RDONLY | os.O_NONBLOCK)
    t = threading.Timer(0.3, action)
    t.start()
    p = select.poll()
    p.register(fd, select.POLLIN)
    t0 = time.monotonic()
    ev = p.poll(10000)
    waited = time.monotonic() - t0
    t.join()
    os.close(fd)
    quiet("buffer_percent", b"50")
    # Whether it returned before the deadline, not how soon: TCG is slow.
    return f"ready={ev[0][1] if ev else 0} early={'yes' if waited < 9.5 else 'no'}"


def polls():
    for rel in ("snapshot", "trace_pipe", "per_cpu/cpu0/trace_pipe_raw",
                "per_cpu/cpu0/snapshot", "trace"):
        for data in (False, True):
            row(f"poll.{rel.replace('/', '_')}.{'data' if data else 'empty'}",
                readiness(rel, data))
    row("poll.snapshot.snapped_while_open", readiness("snapshot", False, True))
    row("wake.trace_pipe.on_marker", wakes("trace_pipe", lambda: mark("m1")))
    row("wake.snapshot.on_marker", wakes("snapshot", lambda: mark("m1")))
    reset()


def sizes():
    reset()
    row("read.buffer_size_kb", read("buffer_size_kb").strip())
    row("read.buffer_total_size_kb", read("buffer_total_size_kb").strip())
    quiet("snapshot", b"1")
    row("read.buffer_total_size_kb.allocated", read("buffer_total_size_kb").strip())
    row("read.per_cpu_buffer_size_kb.allocated",
        read("per_cpu/cpu0/buffer_size_kb").strip())
    reset()


def history():
    """Two snapshots: what the live buffer and the snapshot then show."""
    reset()
    mark("m1")
    quiet("snapshot", b"1")
    mark("m2")
    quiet("snapshot", b"1")
    mark("m3")
    row("twice.live_and_snapshot", state())
    reset()
    mark("m1")
    quiet("snapshot", b"1")
    mark("m2")
    quiet("snapshot", b"2")
    row("twice.clear_then_snapshot", f"{state()}")
    # The comment lines of snapshot and trace after a snapshot, numbers
    # masked (times, sizes, CPUs).
    reset()
    mark("m1")
    quiet("snapshot", b"1")
    for rel in ("snapshot", "trace"):
        head = [re.sub(r"\d+", "N", ln) for ln in read(rel).splitlines() if ln.startswith("#")]
        row(f"header.{rel}", " | ".join(head))
    reset()


def sh(cmd):
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout


def trace_cmd():
    for args, setup in (("-s", ""), ("-r", ""), ("-r", "1"), ("-s -c 0", ""), ("-f", "1"),
                        ("-f", ""), ("-r -s", "")):
        reset()
        mark("m1")
        if setup:
            quiet("snapshot", b"1")
            mark("m2")
        rc, _ = sh(f"trace-cmd snapshot {args} >/dev/null 2>&1")
        row(f"trace-cmd.snapshot_{args.replace(' ', '_')}{'.allocated' if setup else ''}",
            f"rc={rc} {state()}")
    reset()
    rc, out = sh("cd /tmp && trace-cmd record -q -e sched:sched_switch -e sched:sched_wakeup "
                 "-o /tmp/stock.dat sleep 0.3 >/dev/null 2>&1 && "
                 "trace-cmd report -i /tmp/stock.dat 2>/dev/null | "
                 "grep -o 'sched_switch\\|sched_wakeup' | sort -u | tr '\\n' ,")
    row("trace-cmd.record_report_sched", f"rc={rc} events={out}")
    reset()


def listings():
    with open("/proc/schedstat") as f:
        head = f.read().splitlines()
    row("schedstat.version", head[0])
    cpu0 = next(ln for ln in head if ln.startswith("cpu0 "))
    dom0 = next((ln for ln in head if ln.startswith("domain0 ")), "")
    row("schedstat.cpu_fields", str(len(cpu0.split())))
    row("schedstat.domain_fields", str(len(dom0.split())))
    row("files.debug_sched", " ".join(sorted(os.listdir("/sys/kernel/debug/sched"))))
    row("files.tracing", " ".join(sorted(os.listdir(T))))
    row("files.per_cpu", " ".join(sorted(os.listdir(path("per_cpu/cpu0")))))
    row("files.sched_events", " ".join(sorted(os.listdir(path("events/sched")))))
    events = read("available_events").split()
    row("events.available", f"{len(events)} events, sched: "
        + " ".join(sorted(e for e in events if e.startswith("sched:"))))
    row("tracers.available", read("available_tracers").strip())
    row("read.snapshot_head", read("snapshot").splitlines()[0] if read("snapshot") else "")


def read_until(fd, want, timeout):
    """What fd gives until its markers end with want, or timeout."""
    got, end = b"", time.time() + timeout
    while not markers(got.decode(errors="replace")).endswith(want):
        left = end - time.time()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        got += chunk
    return got.decode(errors="replace")


def readers():
    """A trace_pipe reader asleep across a snapshot: which of the events
    written after the snapshot it gets."""
    reset()
    quiet("snapshot", b"1")
    quiet("trace", b"")
    cat = subprocess.Popen(["cat", path("trace_pipe")], stdout=subprocess.PIPE)
    fd = cat.stdout.fileno()
    mark("m1")
    before = markers(read_until(fd, "m1", 10))
    # cat is asleep again, in the live buffer's queue
    time.sleep(0.5)
    snap = write("snapshot", b"1")
    mark("m2")
    mark("m3")
    after = markers(read_until(fd, "m3", 3))
    cat.kill()
    cat.wait()
    row("read.trace_pipe_asleep_across_a_snapshot",
        f"before={before} {snap} after={after}")
    reset()


def main():
    if not os.path.isdir(T):
        print("probe: no tracefs at " + T, file=sys.stderr)
        return 2
    # On CPU 0 throughout: the markers and per_cpu/cpu0 then meet.
    os.sched_setaffinity(0, {0})
    # conditions last: a leak there (an arm count left behind) would
    # change every row after it.
    only = sys.argv[1:] or ["listings", "sizes", "writes", "history", "polls",
                            "readers", "trace_cmd", "conditions"]
    for part in only:
        globals()[part]()
    print(f"# {len(ROWS)} rows", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
