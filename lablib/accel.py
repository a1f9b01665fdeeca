"""Choose QEMU's accelerator: KVM when the host can run a VM, else TCG.

`/dev/kvm` existing is not enough: in many containers and nested VMs it
opens but cannot create a VM, or is not there at all.  probe_kvm() asks the
kernel the two questions that matter (the API version, then KVM_CREATE_VM)
and says why not when it cannot.
"""

import fcntl
import os

KVM_DEV = "/dev/kvm"
KVM_GET_API_VERSION = 0xAE00
KVM_CREATE_VM = 0xAE01
KVM_API_VERSION = 12

CHOICES = ("auto", "kvm", "tcg")


class AccelError(Exception):
    """--accel asked for what this host cannot give; the message says why."""


def probe_kvm(dev=KVM_DEV):
    """None when a VM can be created through dev, else the reason why not."""
    try:
        fd = os.open(dev, os.O_RDWR | os.O_CLOEXEC)
    except OSError as e:
        return f"cannot open {dev}: {e.strerror}"
    try:
        version = fcntl.ioctl(fd, KVM_GET_API_VERSION, 0)
        if version != KVM_API_VERSION:
            return f"{dev} speaks KVM API {version}, not {KVM_API_VERSION}"
        os.close(fcntl.ioctl(fd, KVM_CREATE_VM, 0))
    except OSError as e:
        return f"{dev} opens, but cannot create a VM: {e.strerror}"
    finally:
        os.close(fd)
    return None


def select(requested, probe=probe_kvm):
    """The accelerator for --accel `requested`: ("kvm" | "tcg", note).
    note is None, or the one line to tell the user why auto fell back to
    TCG.  Raises AccelError for a bad name or for kvm on a host without a
    usable KVM."""
    if requested not in CHOICES:
        raise AccelError(f"bad --accel '{requested}': want one of {', '.join(CHOICES)}")
    if requested == "tcg":
        return "tcg", None
    why = probe()
    if why is None:
        return "kvm", None
    if requested == "kvm":
        raise AccelError(f"--accel kvm: KVM is not usable here ({why}); "
                         "use --accel tcg, or auto to fall back by itself")
    return "tcg", f"KVM is not usable ({why}); using TCG (emulation, slower)"


def host_cpus_by_core():
    """The host CPUs this process may run on, SMT siblings next to each
    other: [[cpu, sibling], [cpu, sibling], ...], one list per core."""
    allowed = sorted(os.sched_getaffinity(0))
    cores, seen = [], set()
    for cpu in allowed:
        if cpu in seen:
            continue
        path = f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list"
        try:
            with open(path) as f:
                sibs = parse_cpulist(f.read())
        except OSError:
            sibs = [cpu]
        core = [c for c in sibs if c in allowed] or [cpu]
        seen.update(core)
        cores.append(core)
    return cores


def parse_cpulist(text):
    """'0-3,8' -> [0, 1, 2, 3, 8]."""
    out = []
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def pin_plan(cores, threads, host_cores):
    """Host CPU for each vCPU index of a guest with `cores` x `threads`
    (vCPU i is thread i % threads of core i // threads): guest SMT siblings
    on host SMT siblings where the host has enough of them, guest cores on
    host cores, wrapping round when the guest is bigger than the host."""
    host_threads = min(len(c) for c in host_cores)
    plan = []
    if threads > 1 and host_threads >= threads:
        for i in range(cores * threads):
            core = host_cores[(i // threads) % len(host_cores)]
            plan.append(core[i % threads])
    else:
        # First every host core's first thread, then the second threads.
        width = max(len(c) for c in host_cores)
        flat = [core[t] for t in range(width) for core in host_cores if t < len(core)]
        plan = [flat[i % len(flat)] for i in range(cores * threads)]
    return plan


def qmp_vcpu_threads(sock_path, timeout=10.0):
    """{vCPU index: host thread id} from a QEMU QMP socket."""
    import json
    import socket
    import time

    deadline = time.time() + timeout
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sock_path)
            break
        except OSError:
            s.close()
            if time.time() > deadline:
                raise AccelError(f"no QMP socket at {sock_path} after {timeout:.0f}s")
            time.sleep(0.05)
    with s, s.makefile("rw") as f:
        def call(cmd):
            f.write(json.dumps({"execute": cmd}) + "\n")
            f.flush()
            while True:
                msg = json.loads(f.readline() or "{}")
                if "return" in msg:
                    return msg["return"]
                if "error" in msg or not msg:
                    raise AccelError(f"QMP {cmd} failed: {msg}")
        json.loads(f.readline())          # the greeting
        call("qmp_capabilities")
        return {c["cpu-index"]: c["thread-id"] for c in call("query-cpus-fast")}


def pin_vcpus(sock_path, plan):
    """Pin each vCPU thread to its host CPU; [(vcpu, tid, host cpu)]."""
    threads = qmp_vcpu_threads(sock_path)
    done = []
    if len(threads) != len(plan):
        raise AccelError(f"QMP lists {len(threads)} vCPUs, want {len(plan)}")
    if len(set(threads.values())) != len(threads):
        raise AccelError("the vCPUs share host threads (single-threaded TCG?)")
    for vcpu, tid in sorted(threads.items()):
        os.sched_setaffinity(tid, {plan[vcpu]})
        if os.sched_getaffinity(tid) != {plan[vcpu]}:
            raise AccelError(f"vCPU {vcpu} (thread {tid}) did not take CPU {plan[vcpu]}")
        done.append((vcpu, tid, plan[vcpu]))
    return done
