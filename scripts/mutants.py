#!/usr/bin/env python3
"""make mutants: break the kernel on purpose, one line at a time, and
check that the suites notice.

  scripts/mutants.py [--list] [--file FILE] [NAME_GLOB...]

Each mutant of tests/mutants/mutants.txt names a file of the kernel tree,
a block of lines in it and their replacement, the kernel it goes into
(lab: build/linux; upstream: build/upstream; debug: build/linux
under the debug config) and the suites expected to
kill it.  For each: patch the tree, rebuild that kernel (no ccache: about a
minute), run `./lab check` on those suites, put the file back.  A mutant
is killed when a suite fails, survives when all pass, and is "broken"
when it does not build.  Last, the kernels are rebuilt clean, a table is
printed, and the exit status is 1 if any mutant survived or broke.
Too slow for CI: run it for each kernel issue.
"""

import argparse
import fnmatch
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTANTS = os.path.join(TOP, "tests/mutants/mutants.txt")
# debug: the lab tree under the debug config (lockdep, KASAN, fault
# injection), for the suites that only run there.
TREES = {"lab": "build/linux", "upstream": "build/upstream", "debug": "build/linux"}
LOGDIR = os.path.join(TOP, "build/mutants")


@dataclass
class Mutant:
    name: str
    line: int
    file: str = ""
    kernel: str = "lab"
    suites: list = field(default_factory=list)
    why: str = ""
    old: list = field(default_factory=list)
    new: list = field(default_factory=list)


def parse(path):
    """The mutants of a file; ValueError names the line of a bad one."""
    mutants, cur = [], None
    with open(path) as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if line.startswith("#"):
            continue
        if not line.strip():
            cur = None
            continue
        key, _, rest = line.partition(" ")
        if key == "mutant":
            cur = Mutant(rest.strip(), n)
            mutants.append(cur)
        elif cur is None:
            raise ValueError(f"{path}:{n}: '{key}' outside a mutant (a 'mutant NAME' line first)")
        elif key == "file":
            cur.file = rest.strip()
        elif key == "kernel":
            cur.kernel = rest.strip()
        elif key == "suites":
            cur.suites = rest.split()
        elif key == "why":
            cur.why = rest.strip()
        elif line.startswith("- ") or line == "-":
            cur.old.append(line[2:])
        elif line.startswith("+ ") or line == "+":
            cur.new.append(line[2:])
        else:
            raise ValueError(f"{path}:{n}: unknown line {line!r}")
    names = set()
    for m in mutants:
        where = f"{path}:{m.line}: mutant {m.name}"
        if not (m.file and m.suites and m.why and m.old):
            raise ValueError(f"{where}: needs file, suites, why and '-' lines")
        if m.kernel not in TREES:
            raise ValueError(f"{where}: kernel {m.kernel}: want {' or '.join(TREES)}")
        if m.old == m.new:
            raise ValueError(f"{where}: the '+' lines are the '-' lines")
        if m.name in names:
            raise ValueError(f"{where}: a second mutant of that name")
        names.add(m.name)
    return mutants


def source(m):
    return os.path.join(TOP, TREES[m.kernel], m.file)


def mutate(m, text):
    """text with m's block of whole lines replaced; ValueError unless it
    occurs once."""
    old = "\n" + "\n".join(m.old) + "\n"
    hay = "\n" + text
    count = hay.count(old)
    if count != 1:
        raise ValueError(f"mutant {m.name}: its '-' lines occur {count} times in {m.file}")
    return hay.replace(old, "\n" + "".join(ln + "\n" for ln in m.new))[1:]


def run(argv, log, env=None):
    with open(log, "w") as f:
        return subprocess.run(argv, cwd=TOP, stdout=f, stderr=subprocess.STDOUT,
                              env=env).returncode


def build(kernel, log):
    steps = [["scripts/tree.sh", "upstream"]] if kernel == "upstream" else []
    # Without ccache: a mutant's object once came back from the cache for
    # the restored source (a clean kernel with a mutant's fair.o), and a
    # rebuild of the one file a mutant touches needs no cache.
    env = dict(os.environ, CCACHE_DISABLE="1")
    for step in steps + [["scripts/kernel.sh", kernel]]:
        if run(step, log, env):
            return False
    return True


def summary_line(log):
    """The 'N passed, N failed' line of a lab check log."""
    try:
        with open(log, errors="replace") as f:
            lines = [ln.strip() for ln in f if " passed, " in ln]
        return lines[-1] if lines else "no summary"
    except OSError:
        return "no log"


def failing(log):
    """The names of the suites and tests that failed, from the summary."""
    out = []
    try:
        with open(log, errors="replace") as f:
            for ln in f:
                ln = ln.rstrip()
                if ln.startswith("#     failed: ") or ln.startswith("#     problem: "):
                    out.append(ln[6:].strip())
    except OSError:
        pass
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    p.add_argument("--file", default=MUTANTS, help="the mutants file")
    p.add_argument("globs", nargs="*", metavar="NAME_GLOB", help="run only these")
    args = p.parse_args()
    try:
        mutants = parse(args.file)
    except (OSError, ValueError) as e:
        print(f"mutants: {e}", file=sys.stderr)
        return 2
    if args.globs:
        mutants = [m for m in mutants if any(fnmatch.fnmatchcase(m.name, g) for g in args.globs)]
        if not mutants:
            print(f"mutants: no mutant matches {' '.join(args.globs)}", file=sys.stderr)
            return 2
    if args.list:
        for m in mutants:
            print(f"{m.name:<40} {m.kernel:<8} {' '.join(m.suites):<30} {m.why}")
        return 0
    # The upstream tree may sit at another commit (build/upstream follows
    # build/linux only when asked): move it first, so that each mutant is
    # checked against, and written into, the source it is built from.
    if any(m.kernel == "upstream" for m in mutants):
        r = subprocess.run([os.path.join(TOP, "scripts/tree.sh"), "upstream"], cwd=TOP,
                           capture_output=True, text=True)
        if r.returncode:
            print(f"mutants: scripts/tree.sh upstream failed: {r.stderr.strip()}", file=sys.stderr)
            return 2
    # Every mutant must apply before the first build: a typo is found now.
    for m in mutants:
        try:
            with open(source(m)) as f:
                mutate(m, f.read())
        except (OSError, ValueError) as e:
            print(f"mutants: {e}", file=sys.stderr)
            return 2
    for k in sorted({m.kernel for m in mutants}):
        tree = os.path.join(TOP, TREES[k])
        dirty = subprocess.run(["git", "-C", tree, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout
        if dirty:
            print(f"mutants: {TREES[k]} has uncommitted changes; commit or stash them first",
                  file=sys.stderr)
            return 2
    os.makedirs(LOGDIR, exist_ok=True)
    results = []
    print(f"mutants: {len(mutants)} from {os.path.relpath(args.file, TOP)}; logs in "
          f"{os.path.relpath(LOGDIR, TOP)}/", flush=True)
    built = set()
    try:
        for i, m in enumerate(mutants, 1):
            t0 = time.time()
            path = source(m)
            with open(path) as f:
                orig = f.read()
            blog = os.path.join(LOGDIR, f"{m.name}.build.log")
            clog = os.path.join(LOGDIR, f"{m.name}.check.log")
            try:
                with open(path, "w") as f:
                    f.write(mutate(m, orig))
                built.add(m.kernel)
                if not build(m.kernel, blog):
                    verdict, detail = "broken", f"does not build: {os.path.relpath(blog, TOP)}"
                else:
                    rc = run([os.path.join(TOP, "lab"), "check", "--kernel", m.kernel,
                              *m.suites], clog)
                    if rc == 0:
                        verdict, detail = "SURVIVED", summary_line(clog)
                    else:
                        fails = failing(clog)
                        verdict = "killed"
                        detail = f"{summary_line(clog)}; first: {fails[0] if fails else '?'}"
            finally:
                with open(path, "w") as f:
                    f.write(orig)
            secs = time.time() - t0
            results.append((m, verdict, detail, secs))
            print(f"[{i}/{len(mutants)}] {m.name}: {verdict} in {secs:.0f}s ({detail})",
                  flush=True)
    finally:
        # The trees are clean again; so must the kernels be.
        for k in sorted(built):
            print(f"mutants: rebuilding the clean {k} kernel", flush=True)
            if not build(k, os.path.join(LOGDIR, f"clean-{k}.build.log")):
                print(f"mutants: the clean {k} kernel does not build!", file=sys.stderr)
    print()
    print(f"{'mutant':<40} {'kernel':<8} {'suites':<28} {'verdict':<9} detail")
    for m, verdict, detail, secs in results:
        print(f"{m.name:<40} {m.kernel:<8} {' '.join(m.suites):<28} {verdict:<9} {detail}")
    killed = sum(v == "killed" for _, v, _, _ in results)
    bad = len(results) - killed
    print(f"\n{killed} killed, {bad} survived or broken, of {len(results)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
