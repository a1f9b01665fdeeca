"""Boot a kernel under QEMU and run one command inside it.

The guest's root is the host's / over 9p, read-only, so host binaries and
this repository are usable unchanged.  guest/init.c runs the command with its
stdout and stderr on two virtio serial ports, which we relay, and writes the
exit status into a writable run directory shared over 9p.
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

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Exit statuses of `lab run` that are not the command's own.
EXIT_USAGE = 2      # bad arguments; nothing was booted
EXIT_PANIC = 121    # the guest kernel panicked or oopsed
EXIT_TIMEOUT = 124  # the guest did not finish within --timeout (a hang)
EXIT_QEMU = 125     # QEMU failed, or the guest died without an exit status

KERNELS = {
    "lab": os.path.join(TOP, "build/linux/.out/arch/x86/boot/bzImage"),
    "stock": os.path.join(TOP, "build/stock/.out/arch/x86/boot/bzImage"),
}

# Boot-time shortcuts under TCG: a known loops_per_jiffy skips the delay
# loop calibration; a reliable TSC skips the clocksource watchdog.
FAST_BOOT = "lpj=10000000 tsc=reliable"

CRASH_PATTERNS = re.compile(
    r"Kernel panic|BUG: |Oops: |general protection fault|"
    r"kernel BUG at|Unable to handle kernel")


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


def resolve_kernel(kernel):
    path = KERNELS.get(kernel, kernel)
    if not os.path.isfile(path):
        if kernel in KERNELS:
            raise LabError(f"no {kernel} kernel at {os.path.relpath(path)}: "
                           f"run 'make kernel-{kernel}'")
        raise LabError(f"--kernel {kernel}: no such file; "
                       "use lab, stock or the path of a bzImage")
    return path


def build_init():
    """Compile guest/init.c into a static binary when it is out of date."""
    src = os.path.join(TOP, "guest/init.c")
    exe = os.path.join(TOP, "build/guest-init")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        os.makedirs(os.path.dirname(exe), exist_ok=True)
        cc = subprocess.run(["gcc", "-static", "-O2", "-Wall", "-o", exe + ".tmp", src],
                            capture_output=True, text=True)
        if cc.returncode:
            raise LabError(f"cannot build guest/init.c:\n{cc.stderr}")
        os.replace(exe + ".tmp", exe)
    return exe


class Result:
    def __init__(self, status, kind, rundir, console):
        self.status = status    # what `lab run` exits with
        self.kind = kind        # "exit", "panic", "timeout" or "qemu"
        self.rundir = rundir
        self.console = console  # the guest's console log, as text

    def console_tail(self, lines=25):
        return "\n".join(self.console.rstrip("\n").split("\n")[-lines:])


def _relay(fd, sink):
    with os.fdopen(fd, "rb", buffering=0) as src:
        while True:
            data = src.read(65536)
            if not data:
                break
            sink.write(data)
            sink.flush()


def run(argv, kernel="lab", topology="10x2", smp=None, mem="2G",
        timeout=300, append="", stdout=None, stderr=None, keep=False,
        tcg="multi"):
    """Boot `kernel`, run argv in the guest and return a Result."""
    if not argv:
        raise LabError("no command given: lab run [OPTIONS] -- CMD [ARGS...]")
    image = resolve_kernel(kernel)
    if smp is not None:
        if smp < 1 or smp > 64:
            raise LabError(f"bad --smp {smp}: want 1..64")
        sockets, cores, threads = 1, smp, 1
    else:
        sockets, cores, threads = parse_topology(topology)
    if not re.fullmatch(r"\d+[MG]", mem):
        raise LabError(f"bad --mem '{mem}': want a size such as 512M or 2G")
    qemu = shutil.which("qemu-system-x86_64")
    if not qemu:
        raise LabError("qemu-system-x86_64 not found: run 'make deps'")

    stdout = stdout or sys.stdout.buffer
    stderr = stderr or sys.stderr.buffer
    os.makedirs(os.path.join(TOP, "build/runs"), exist_ok=True)
    rundir = tempfile.mkdtemp(prefix=time.strftime("%Y%m%d-%H%M%S-"),
                              dir=os.path.join(TOP, "build/runs"))
    with open(os.path.join(rundir, "cmd.sh"), "w") as f:
        f.write("exec " + shlex.join(argv) + "\n")
    with open(os.path.join(rundir, "cwd"), "w") as f:
        f.write(os.getcwd() + "\n")
    console = os.path.join(rundir, "console.log")

    cmdline = " ".join([
        "console=ttyS0", "loglevel=4", "panic=-1", "oops=panic",
        "root=/dev/root", "rootfstype=9p",
        "rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose",
        "ro", f"init={build_init()}", f"labtop={TOP}", f"labrun={rundir}",
        FAST_BOOT, append]).strip()

    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    ncpu = sockets * cores * threads
    qargs = [
        qemu, "-nodefaults", "-no-user-config", "-nographic", "-no-reboot",
        "-accel", f"tcg,thread={tcg}", "-cpu", "max,topoext=on",
        "-machine", "pc", "-bios", "qboot.rom", "-m", mem,
        "-smp", f"{ncpu},sockets={sockets},cores={cores},threads={threads}",
        "-kernel", image, "-append", cmdline,
        "-serial", f"file:{console}",
        "-fsdev", "local,id=root,path=/,security_model=none,multidevs=remap,readonly=on",
        "-device", "virtio-9p-pci,fsdev=root,mount_tag=/dev/root",
        "-fsdev", f"local,id=run,path={rundir},security_model=none",
        "-device", "virtio-9p-pci,fsdev=run,mount_tag=labrun",
        "-device", "virtio-serial-pci",
        "-chardev", f"file,id=out,path=/dev/fd/{out_w}",
        "-device", "virtserialport,chardev=out,nr=1",
        "-chardev", f"file,id=err,path=/dev/fd/{err_w}",
        "-device", "virtserialport,chardev=err,nr=2",
    ]
    if re.match(r"/(tmp|run|var)(/|$)", TOP):
        # guest/init.c remounts the repository over the guest's tmpfs.
        qargs += ["-fsdev", f"local,id=top,path={TOP},security_model=none,readonly=on",
                  "-device", "virtio-9p-pci,fsdev=top,mount_tag=labtop"]
    qlog = open(os.path.join(rundir, "qemu.log"), "wb")
    proc = subprocess.Popen(qargs, stdin=subprocess.DEVNULL, stdout=qlog,
                            stderr=subprocess.STDOUT, pass_fds=(out_w, err_w))
    os.close(out_w)
    os.close(err_w)
    relays = [threading.Thread(target=_relay, args=a, daemon=True)
              for a in ((out_r, stdout), (err_r, stderr))]
    for t in relays:
        t.start()
    try:
        proc.wait(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        timed_out = True
    except KeyboardInterrupt:
        proc.kill()
        proc.wait()
        raise
    for t in relays:
        t.join(timeout=5)
    qlog.close()

    text = ""
    if os.path.exists(console):
        with open(console, errors="replace") as f:
            text = f.read()
    status_file = os.path.join(rundir, "status")
    if CRASH_PATTERNS.search(text):
        res = Result(EXIT_PANIC, "panic", rundir, text)
    elif timed_out:
        res = Result(EXIT_TIMEOUT, "timeout", rundir, text)
    elif os.path.exists(status_file):
        with open(status_file) as f:
            res = Result(int(f.read().strip() or EXIT_QEMU), "exit", rundir, text)
    else:
        with open(os.path.join(rundir, "qemu.log"), errors="replace") as f:
            qtext = f.read()
        res = Result(EXIT_QEMU, "qemu", rundir, text + qtext)
    if res.kind == "exit" and not keep:
        shutil.rmtree(rundir, ignore_errors=True)
    return res
