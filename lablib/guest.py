"""Boot a kernel under QEMU and run one command inside it.

The guest's root is the host's / over 9p, read-only, so host binaries and
this repository are usable unchanged.  guest/init.c runs the command with its
stdout and stderr on two virtio serial ports, which we relay, and writes the
exit status into a writable run directory shared over 9p.

GuestSpec.make() checks the options once and plans the guest; run(spec,
argv) composes the steps: make_rundir(), kernel_cmdline() and
qemu_command() (QEMU's argv, nothing else), boot() (QEMU, to its end) and
collect() (the Result).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

from lablib import accel as accel_mod

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Exit statuses of `lab run` that are not the command's own.
EXIT_USAGE = 2      # bad arguments; nothing was booted
EXIT_PANIC = 121    # the guest kernel panicked or oopsed
EXIT_TIMEOUT = 124  # the guest did not finish within --timeout (a hang)
EXIT_WARN = 122     # the kernel warned: WARNING, KASAN, lockdep, stall, ...
EXIT_QEMU = 125     # QEMU failed, or the guest died without an exit status

KERNELS = {
    "lab": os.path.join(TOP, "build/linux/.out/arch/x86/boot/bzImage"),
    "stock": os.path.join(TOP, "build/stock/.out/arch/x86/boot/bzImage"),
    "upstream": os.path.join(TOP, "build/upstream/.out/arch/x86/boot/bzImage"),
    "debug": os.path.join(TOP, "build/linux/.out-debug/arch/x86/boot/bzImage"),
}

# Every kernel skips ACPI's PCI interrupt routing (acpi=noirq), and virtio
# takes its interrupts by MSI-X (CONFIG_PCI_MSI in config/lab.config).
# Evaluating _PRT cost about 2 s of a 20 vCPU boot under TCG, and on the
# debug kernel it timed out.  A bzImage given by path gets it too: it
# needs CONFIG_PCI_MSI.
KERNEL_APPEND = "acpi=noirq"

# Boot-time shortcuts under TCG: a known loops_per_jiffy skips the delay
# loop calibration; a reliable TSC skips the clocksource watchdog;
# no_timer_check skips the IO-APIC timer test, which panics ("IO-APIC +
# timer doesn't work!") when a loaded host starves the vCPU for its 10 ms.
FAST_BOOT = "lpj=10000000 tsc=reliable no_timer_check"

# Kernel splats, by the line that opens them.  The first one in the log
# decides the exit status: a crash (121) or a warning (122).  With
# panic_on_warn a WARNING ends in "Kernel panic", but it is the WARNING that
# comes first.  Order matters: the first pattern that matches a line names it.
SPLATS = [
    ("crash", "panic", r"Kernel panic - not syncing"),
    ("crash", "oops", r"Oops: |BUG: unable to handle|BUG: kernel NULL pointer|"
                      r"^general protection fault|kernel BUG at|Unable to handle kernel"),
    ("warn", "KASAN", r"BUG: KASAN: |KASAN: .*(out-of-bounds|use-after-free|double-free|invalid-free)"),
    ("warn", "UBSAN", r"UBSAN: "),
    ("warn", "lockdep", r"WARNING: (possible circular locking dependency|inconsistent lock state|"
                        r"possible recursive locking|suspicious RCU usage|bad unlock balance|"
                        r"held lock freed|lock held when returning|possible irq lock inversion|"
                        r".*lock.* detected)|BUG: (lock held|held lock|looking up invalid subclass)|"
                        r"INFO: trying to register non-static key|DEBUG_LOCKS_WARN_ON\(|"
                        r"^\[ BUG: "),
    ("warn", "RCU stall", r"rcu: INFO: \S+ (self-)?detected (expedited )?stalls?|"
                          r"INFO: rcu_\S+ (self-)?detected (expedited )?stall"),
    ("warn", "kmemleak", r"kmemleak: \d+ new suspected memory leaks?"),
    ("warn", "hung task", r"INFO: task \S+ blocked for more than \d+ seconds"),
    ("warn", "soft lockup", r"BUG: soft lockup|watchdog: BUG: soft lockup"),
    ("warn", "hard lockup", r"Watchdog detected hard LOCKUP"),
    ("warn", "WARNING", r"^WARNING: "),
    ("warn", "BUG", r"^BUG: |Bad page (state|map)"),
    ("warn", "list corruption", r"list_(add|del) corruption"),
]
_SPLAT_RE = [(sev, name, re.compile(rx)) for sev, name, rx in SPLATS]
# What printk puts before a message: a timestamp, a caller ID (T123 for a
# task, C1 for a CPU, with CONFIG_PRINTK_CALLER), or both.
_STAMP = re.compile(r"^(\[\s*\d+\.\d+\])?\s*(\[\s*[TC]\d+\])?\s*")


def find_splat(text):
    """The first splat in a kernel log: (severity, name, index of its
    line, its line) or None.  severity is "crash" or "warn"."""
    for i, line in enumerate(text.splitlines()):
        body = _STAMP.sub("", line)
        for sev, name, rx in _SPLAT_RE:
            if rx.search(body):
                return sev, name, i, line
    return None


def splat_excerpt(text, index, before=2, after=40):
    """The splat's lines: a little context, then the report itself."""
    lines = text.splitlines()
    return "\n".join(lines[max(0, index - before):index + after])


class LabError(Exception):
    """A problem with the request; the message says how to fix it."""


def parse_topology(spec):
    """'10x2' -> (sockets, cores, threads)."""
    m = re.fullmatch(r"(\d+)x(\d+)", spec or "")
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise LabError(f"bad --topology '{spec}': want CORESxTHREADS, e.g. 10x2")
    cores, threads = int(m.group(1)), int(m.group(2))
    if cores * threads > 64:
        raise LabError(f"--topology {spec} asks for {cores * threads} CPUs; "
                       "the lab kernel has NR_CPUS=64")
    return 1, cores, threads


def numa_layout(nodes, cores, threads, mem):
    """--numa N over CORES cores: (sockets, QEMU arguments).  Each node is
    one socket with its share of the cores and of the memory: a node
    boundary inside a package (LLC) is a firmware bug to Linux, which
    warns about it."""
    if nodes < 2 or nodes > 8:
        raise LabError(f"bad --numa {nodes}: want 2..8 nodes")
    if cores % nodes:
        raise LabError(f"--numa {nodes} needs a core count divisible by {nodes}; "
                       f"the topology has {cores} cores (e.g. --topology 4x2)")
    mb = int(mem[:-1]) * (1024 if mem.endswith("G") else 1)
    if mb % nodes or mb // nodes < 128:
        raise LabError(f"--numa {nodes} needs --mem divisible into {nodes} nodes "
                       f"of at least 128M; --mem is {mem}")
    args = []
    for n in range(nodes):
        args += ["-object", f"memory-backend-ram,id=node{n},size={mb // nodes}M",
                 "-numa", f"node,nodeid={n},memdev=node{n}",
                 "-numa", f"cpu,node-id={n},socket-id={n}"]
    return nodes, args


def resolve_kernel(kernel):
    path = KERNELS.get(kernel, kernel)
    if not os.path.isfile(path):
        if kernel in KERNELS:
            raise LabError(f"no {kernel} kernel at {os.path.relpath(path)}: "
                           f"run 'make kernel-{kernel}'")
        raise LabError(f"--kernel {kernel}: no such file; "
                       "use lab, stock, upstream, debug or the path of a bzImage")
    return path


def vmlinux(kernel):
    """The vmlinux with symbols next to a kernel's bzImage, for gdb."""
    path = KERNELS.get(kernel, kernel)
    return os.path.join(os.path.dirname(path), "../../../vmlinux")


def build_init():
    """Compile guest/init.c into a static binary when it is out of date."""
    src = os.path.join(TOP, "guest/init.c")
    exe = os.path.join(TOP, "build/guest-init")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        if not shutil.which("gcc"):
            raise LabError("gcc not found, and guest/init.c needs building: run 'make deps'")
        os.makedirs(os.path.dirname(exe), exist_ok=True)
        # A temporary name of this process's own: lab check starts several
        # guests at once, and on a fresh clone each builds the init.
        tmp = f"{exe}.{os.getpid()}.{threading.get_ident()}.tmp"
        cc = subprocess.run(["gcc", "-static", "-O2", "-Wall", "-o", tmp, src],
                            capture_output=True, text=True)
        if cc.returncode:
            raise LabError(f"cannot build guest/init.c:\n{cc.stderr}")
        os.replace(tmp, exe)
    return exe


class Result:
    def __init__(self, status, kind, rundir, console, splat=None):
        self.status = status    # what `lab run` exits with
        self.kind = kind        # "exit", "panic", "warn", "timeout" or "qemu"
        self.rundir = rundir    # kept unless the command exited 0 (and not keep)
        self.console = console  # the guest's console log, then its dmesg
        self.splat = splat      # (name, excerpt) of the first splat, or None
        self.accel = None       # "kvm" or "tcg"
        self.pinned = []        # [(vcpu, host thread id, host cpu)] with pin

    def console_tail(self, lines=25):
        return "\n".join(self.console.rstrip("\n").split("\n")[-lines:])


class _SplatWatch(threading.Thread):
    """Stop the guest soon after the console shows a splat: let the report
    finish printing (the console quiet for `quiet` seconds, `most` at the
    outside), then kill QEMU.  A WARNING stops sooner by itself
    (panic_on_warn); this covers lockdep, KASAN, stalls and hung tasks,
    which only print."""

    def __init__(self, console, proc, quiet=2.0, most=15.0):
        super().__init__(daemon=True)
        self.console, self.proc = console, proc
        self.quiet, self.most = quiet, most
        self.done = threading.Event()

    def run(self):
        pos, buf, seen_at, last_growth = 0, "", None, time.time()
        while not self.done.wait(0.5) and self.proc.poll() is None:
            try:
                with open(self.console, "rb") as f:
                    f.seek(pos)
                    raw = f.read()
            except OSError:
                continue
            now = time.time()
            data = raw.decode(errors="replace")
            if raw:
                pos += len(raw)
                last_growth = now
                if seen_at is None:
                    buf = (buf + data)[-65536:]
                    if find_splat(buf):
                        seen_at = now
            if seen_at is not None and (now - last_growth >= self.quiet or
                                        now - seen_at >= self.most):
                self.proc.kill()
                return


def _relay(fd, sink):
    with os.fdopen(fd, "rb", buffering=0) as src:
        while True:
            data = src.read(65536)
            if not data:
                break
            sink.write(data)
            sink.flush()


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_env(pairs):
    """['VAR=VALUE', ...] -> [(VAR, VALUE)]; LabError names a bad one."""
    out = []
    for pair in pairs or []:
        name, eq, value = pair.partition("=")
        if not eq or not _ENV_NAME.fullmatch(name) or "\0" in value:
            raise LabError(f"bad --env '{pair}': want VAR=VALUE, VAR a shell "
                           "variable name")
        out.append((name, value))
    return out


def check_command(cmd):
    """The guest's / is the host's, so a command given by path must exist
    here too (except under the guest's own tmpfs mounts)."""
    if "/" not in cmd or re.match(r"/(tmp|run|var|proc|sys|dev)(/|$)", cmd):
        return
    if os.path.exists(cmd):
        return
    hint = ""
    if "build/selftests/" in cmd:
        hint = ": run 'make selftests'"
    elif cmd.startswith(("build/", os.path.join(TOP, "build/"))):
        hint = ": it is built by make (see 'make help')"
    raise LabError(f"no such command {cmd}{hint}")


def resolve_accel(accel):
    """--accel (None: $LAB_ACCEL, else auto) -> ("kvm" | "tcg", note)."""
    try:
        return accel_mod.select(accel or os.environ.get("LAB_ACCEL") or "auto")
    except accel_mod.AccelError as e:
        raise LabError(str(e)) from None


def _tell(note, notes=None):
    """A one-line note for the user: on stderr, or into the list notes."""
    if not note:
        return
    if notes is None:
        print(f"lab: {note}", file=sys.stderr, flush=True)
    else:
        notes.append(note)


@dataclass(frozen=True)
class GuestSpec:
    """The guest to boot, as QemuArchParams is to kunit.py.  Make it with
    GuestSpec.make(), which checks the options once; run() boots it."""
    kernel: str             # as asked: lab, stock, debug or a path
    image: str              # the bzImage booted
    qemu: str               # the path of qemu-system-x86_64
    accel: str              # "kvm" or "tcg"
    accel_note: str | None  # why auto fell back to TCG, or None
    sockets: int
    cores: int              # per socket
    threads: int            # per core
    mem: str                # e.g. "2G"
    numa_args: tuple = ()   # QEMU's -object and -numa arguments
    tcg: str = "multi"      # TCG threading: "multi" or "single"
    pin: bool = False       # pin each vCPU thread to a host CPU
    gdb: int | None = None  # the TCP port of QEMU's gdb stub
    timeout: int = 300      # seconds; 0: none
    append: str = ""        # extra kernel command line
    env: tuple = ()         # ((VAR, VALUE), ...) for the command
    qemu_args: tuple = ()   # extra QEMU arguments

    @classmethod
    def make(cls, kernel="lab", topology="10x2", smp=None, mem="2G", timeout=300,
             append="", tcg="multi", accel=None, pin=False, env=None,
             qemu_args=None, gdb=None, numa=None):
        """Check the options of `lab run` and plan the guest; a LabError
        says what is wrong.  accel: "auto", "kvm", "tcg" or None
        ($LAB_ACCEL, else auto).  env: ["VAR=VALUE"] for the command.
        numa: split the CPUs and memory into that many NUMA nodes, one
        socket each."""
        image = resolve_kernel(kernel)
        env = parse_env(env)
        use, note = resolve_accel(accel)
        try:
            if pin and use == "tcg" and tcg == "single":
                raise LabError("--pin with single-threaded TCG: every vCPU is one "
                               "host thread; use --tcg multi or KVM")
            if gdb is not None and not 1 <= gdb <= 65535:
                raise LabError(f"bad --gdb port {gdb}: want 1..65535")
            if smp is not None:
                if smp < 1 or smp > 64:
                    raise LabError(f"bad --smp {smp}: want 1..64")
                sockets, cores, threads = 1, smp, 1
            else:
                sockets, cores, threads = parse_topology(topology)
            if not re.fullmatch(r"\d+[MG]", mem):
                raise LabError(f"bad --mem '{mem}': want a size such as 512M or 2G")
            numa_args = []
            if numa is not None:
                sockets, numa_args = numa_layout(numa, cores, threads, mem)
                cores //= numa
            qemu = find_qemu()
        except LabError:
            # The note before these errors, as ever (it says why TCG); when
            # the guest boots, run() gives it.
            _tell(note)
            raise
        return cls(kernel=kernel, image=image, qemu=qemu, accel=use, accel_note=note,
                   sockets=sockets, cores=cores, threads=threads, mem=mem,
                   numa_args=tuple(numa_args), tcg=tcg, pin=pin, gdb=gdb,
                   timeout=timeout, append=append, env=tuple(env),
                   qemu_args=tuple(qemu_args or ()))


# QEMU 10 of bookworm-backports, unpacked by scripts/qemu.sh (make deps):
# the lab's QEMU when it is there, since bookworm's 7.2 oopses on live
# text patching under multi-threaded TCG.  LAB_QEMU=system picks the
# system's QEMU, LAB_QEMU=PATH another binary.
LOCAL_QEMU_ROOT = os.path.join(TOP, "build/qemu/root")


def find_qemu():
    """The path of the QEMU to run; LabError if there is none."""
    want = os.environ.get("LAB_QEMU", "")
    local = os.path.join(LOCAL_QEMU_ROOT, "usr/bin/qemu-system-x86_64")
    if want and want != "system":
        if not os.access(want, os.X_OK):
            raise LabError(f"LAB_QEMU={want}: not an executable")
        return want
    if not want and os.access(local, os.X_OK):
        return local
    qemu = shutil.which("qemu-system-x86_64")
    if not qemu:
        raise LabError("qemu-system-x86_64 not found: run 'make deps'")
    return qemu


def qemu_root(qemu):
    """The unpacked tree of a QEMU binary under build/qemu, or None."""
    root = LOCAL_QEMU_ROOT
    return root if os.path.abspath(qemu).startswith(root + os.sep) else None


def need_command(argv):
    """LabError unless argv has a command."""
    if not argv:
        raise LabError("no command given: lab run [OPTIONS] -- CMD [ARGS...]")


def kernel_cmdline(spec, init, rundir, interactive=False):
    """The guest kernel's command line; init: guest/init's binary."""
    cmdline = " ".join([
        # loglevel=5 shows KERN_WARNING and up (a WARN splat); panic_on_warn
        # stops the run on the first WARN; the rest of the log is in dmesg.
        "console=ttyS0", "loglevel=5", "panic=-1", "oops=panic", "panic_on_warn=1",
        "root=/dev/root", "rootfstype=9p",
        "rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose",
        "ro", f"init={init}", f"labtop={TOP}", f"labrun={rundir}",
        FAST_BOOT if spec.accel == "tcg" else "",
        "labshell=1 quiet" if interactive else "",
        "nokaslr" if spec.gdb is not None else "",
        KERNEL_APPEND, spec.append])
    return " ".join(cmdline.split())


def qemu_command(spec, rundir, cmdline, out_fd, err_fd, interactive=False):
    """QEMU's argv for spec's guest.  out_fd and err_fd: the write ends of
    the pipes that get the command's stdout and stderr."""
    console = os.path.join(rundir, "console.log")
    ncpu = spec.sockets * spec.cores * spec.threads
    qargs = [
        spec.qemu, "-nodefaults", "-no-user-config", "-nographic", "-no-reboot",
        *(["-accel", "kvm", "-cpu", "host"] if spec.accel == "kvm" else
          ["-accel", f"tcg,thread={spec.tcg}", "-cpu", "max,topoext=on"]),
        "-machine", "pc", "-bios", "qboot.rom", "-m", spec.mem,
        "-smp", f"{ncpu},sockets={spec.sockets},cores={spec.cores},threads={spec.threads}",
        *spec.numa_args,
        "-kernel", spec.image, "-append", cmdline,
        # The console: a log file; with `lab shell` also the terminal.
        *(["-chardev", f"stdio,id=con,signal=off,logfile={console}",
           "-serial", "chardev:con"] if interactive else
          ["-serial", f"file:{console}"]),
        "-fsdev", "local,id=root,path=/,security_model=none,multidevs=remap,readonly=on",
        "-device", "virtio-9p-pci,fsdev=root,mount_tag=/dev/root",
        "-fsdev", f"local,id=run,path={rundir},security_model=none",
        "-device", "virtio-9p-pci,fsdev=run,mount_tag=labrun",
        "-device", "virtio-serial-pci",
        "-chardev", f"file,id=out,path=/dev/fd/{out_fd}",
        "-device", "virtserialport,chardev=out,nr=1",
        "-chardev", f"file,id=err,path=/dev/fd/{err_fd}",
        "-device", "virtserialport,chardev=err,nr=2",
    ]
    if re.match(r"/(tmp|run|var)(/|$)", TOP):
        # guest/init.c remounts the repository over the guest's tmpfs.
        qargs += ["-fsdev", f"local,id=top,path={TOP},security_model=none,readonly=on",
                  "-device", "virtio-9p-pci,fsdev=top,mount_tag=labtop"]
    if spec.pin:
        qargs += ["-qmp", f"unix:{os.path.join(rundir, 'qmp.sock')},server=on,wait=off"]
    if spec.gdb is not None:
        qargs += ["-gdb", f"tcp::{spec.gdb}"]
    root = qemu_root(spec.qemu)
    if root:
        # Its firmware (qboot.rom) and keymaps, not the system QEMU's.
        qargs[1:1] = ["-L", os.path.join(root, "usr/share/qemu")]
    return qargs + list(spec.qemu_args)


def make_rundir(argv, env):
    """A new run directory with the command, its cwd and its environment
    for guest/init.c."""
    os.makedirs(os.path.join(TOP, "build/runs"), exist_ok=True)
    rundir = tempfile.mkdtemp(prefix=time.strftime("%Y%m%d-%H%M%S-"),
                              dir=os.path.join(TOP, "build/runs"))
    with open(os.path.join(rundir, "cmd.sh"), "w") as f:
        f.write("exec " + shlex.join(argv) + "\n")
    with open(os.path.join(rundir, "cwd"), "w") as f:
        f.write(os.getcwd() + "\n")
    if env:
        # NUL-separated VAR=VALUE, set by guest/init.c after its defaults.
        with open(os.path.join(rundir, "env"), "w") as f:
            f.write("".join(f"{k}={v}\0" for k, v in env))
    return rundir


def boot(spec, qargs, rundir, out, err, stdout, stderr, interactive=False):
    """Run QEMU's argv qargs to the end: relay the pipes out and err
    ((read fd, write fd)) to stdout and stderr, pin the vCPUs, stop the
    guest soon after a splat or at spec.timeout.  (timed_out, pinned)."""
    out_r, out_w = out
    err_r, err_w = err
    qlog = open(os.path.join(rundir, "qemu.log"), "wb")
    env = None
    root = qemu_root(qargs[0])
    if root:
        env = dict(os.environ, QEMU_MODULE_DIR=os.path.join(root, "usr/lib/x86_64-linux-gnu/qemu"))
    proc = subprocess.Popen(qargs, stdin=None if interactive else subprocess.DEVNULL,
                            stdout=None if interactive else qlog,
                            stderr=qlog, pass_fds=(out_w, err_w), env=env)
    os.close(out_w)
    os.close(err_w)
    pinned = []
    if spec.pin:
        try:
            plan = accel_mod.pin_plan(spec.cores, spec.threads, accel_mod.host_cpus_by_core())
            pinned = accel_mod.pin_vcpus(os.path.join(rundir, "qmp.sock"), plan)
        except (accel_mod.AccelError, OSError) as e:
            proc.kill()
            proc.wait()
            raise LabError(f"--pin: cannot pin the vCPU threads: {e}") from None
        with open(os.path.join(rundir, "pinning"), "w") as f:
            f.writelines(f"vcpu {v} thread {t} host-cpu {c}\n" for v, t, c in pinned)
    relays = [threading.Thread(target=_relay, args=a, daemon=True)
              for a in ((out_r, stdout), (err_r, stderr))]
    for t in relays:
        t.start()
    watch = _SplatWatch(os.path.join(rundir, "console.log"), proc)
    watch.start()
    try:
        proc.wait(timeout=spec.timeout or None)
        timed_out = False
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        timed_out = True
    except KeyboardInterrupt:
        proc.kill()
        proc.wait()
        raise
    watch.done.set()
    for t in relays:
        t.join(timeout=5)
    qlog.close()
    return timed_out, pinned


def collect(rundir, timed_out):
    """The Result of a finished guest, from its run directory."""
    text = ""
    console = os.path.join(rundir, "console.log")
    if os.path.exists(console):
        with open(console, errors="replace") as f:
            text = f.read()
    dmesg = os.path.join(rundir, "dmesg")
    if os.path.exists(dmesg):
        with open(dmesg, errors="replace") as f:
            kmsg = f.read()
        # The console decides when it has the splat; dmesg adds lines below
        # loglevel (and splats printed only there).
        text += "\n--- dmesg (every level), saved by guest/init at exit ---\n" + kmsg
    status_file = os.path.join(rundir, "status")
    splat = find_splat(text)
    if splat:
        sev, name, index, _ = splat
        kind, status = ("panic", EXIT_PANIC) if sev == "crash" else ("warn", EXIT_WARN)
        return Result(status, kind, rundir, text, (name, splat_excerpt(text, index)))
    if timed_out:
        return Result(EXIT_TIMEOUT, "timeout", rundir, text)
    if os.path.exists(status_file):
        with open(status_file) as f:
            return Result(int(f.read().strip() or EXIT_QEMU), "exit", rundir, text)
    with open(os.path.join(rundir, "qemu.log"), errors="replace") as f:
        qtext = f.read()
    return Result(EXIT_QEMU, "qemu", rundir, text + qtext)


def qemu_version(qemu):
    """(major, minor) of `qemu --version`, or None if it says none."""
    try:
        out = subprocess.run([qemu, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"version (\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


# Multi-threaded TCG before QEMU 10 can run a stale translation of code
# the kernel has just patched: "Oops: int3" at func+0x1 after a tracer
# switch, seen on QEMU 7.2 and not on 10.0 (docs/lab.md).
MTTCG_TEXT_POKE_FIXED = (10, 0)


def text_poke_note(spec):
    """The note for a user who may switch tracers in this guest, or None."""
    if spec.accel != "tcg" or spec.tcg != "multi":
        return None
    version = qemu_version(spec.qemu)
    if version is None or version >= MTTCG_TEXT_POKE_FIXED:
        return None
    return (f"QEMU {version[0]}.{version[1]}'s multi-threaded TCG can oops on "
            "live text patching ('Oops: int3' after switching tracers); "
            "--tcg single avoids it, and so does QEMU 10 (bookworm-backports)")


def run(spec, argv, stdout=None, stderr=None, keep=False, interactive=False,
        notes=None):
    """Boot spec's guest, run argv in it and return a Result.

    interactive: the command gets the terminal (the guest's serial console)
    as stdin, stdout and stderr, as `lab shell` does.  keep: keep the run
    directory when the command exits 0 too.  notes: a list that gets the
    one-line notes for the user (TCG fallback), which are printed on stderr
    when it is None."""
    need_command(argv)
    check_command(argv[0])
    _tell(spec.accel_note, notes)
    if interactive:
        _tell(text_poke_note(spec), notes)
    stdout = stdout or sys.stdout.buffer
    stderr = stderr or sys.stderr.buffer
    rundir = make_rundir(argv, spec.env)
    cmdline = kernel_cmdline(spec, build_init(), rundir, interactive)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    qargs = qemu_command(spec, rundir, cmdline, out_w, err_w, interactive)
    with open(os.path.join(rundir, "qemu.cmd"), "w") as f:
        f.write(shlex.join(qargs) + "\n")
    timed_out, pinned = boot(spec, qargs, rundir, (out_r, out_w), (err_r, err_w),
                             stdout, stderr, interactive)
    res = collect(rundir, timed_out)
    res.accel, res.pinned = spec.accel, pinned
    if res.kind == "exit" and res.status == 0 and not keep:
        shutil.rmtree(rundir, ignore_errors=True)
    return res
