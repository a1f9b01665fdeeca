#!/usr/bin/env python3
"""Check, in a kernel/sched/fair.o built with CONFIG_JUMP_LABEL, that the
default wake-up path pays for the select_idle_sibling() instrumentation
only with patched-out jumps:

- in select_task_rq_fair() (which inlines select_idle_sibling()), the
  static key of the sched_sis_decision_tp tracepoint is a jump-label site
  (a NOP patched to a jump), and so is each other key the series puts in
  front of the traced path (sched_sis_legacy, the lab's trace event,
  schedstats), where the object has them;
- every call to select_idle_sibling_traced(), the out-of-line copy that
  works out the reason, sits in the out-of-line code those jumps lead to;
- sched_sis_policy (the lab's policy) is loaded only there, if at all;
- no key is read other than through its jump-label site on the default
  path (a static_key_enabled() there would be a load and a branch).
A reason stored on the default path has no symbol to find: the size
budget (bloat-o-meter, 64 bytes) is what catches that.

Usage: scripts/check-sis-key.py FAIR_O     exit 0 if so, 1 (saying why) if not
"""

import re
import subprocess
import sys

FUNC = "select_task_rq_fair"
TRACED = "select_idle_sibling_traced"
TP_KEY = "__tracepoint_sched_sis_decision_tp"
OTHER_KEYS = ("sched_sis_legacy", "__tracepoint_sched_select_idle_sibling",
              "sched_schedstats")
# A jump target's out-of-line block sets up the call's arguments first.
REACH = 64


def run(*argv, check=True):
    return subprocess.run(argv, capture_output=True, text=True, check=check).stdout


def main(obj):
    syms, undefined = {}, set()
    for line in run("nm", "-S", obj).splitlines():
        parts = line.split()
        if len(parts) == 4:
            syms[parts[3]] = (int(parts[0], 16), int(parts[1], 16), parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
    if FUNC not in syms:
        return f"{obj} has no {FUNC}"
    start, size, _ = syms[FUNC]
    keys = [k for k in (TP_KEY,) + OTHER_KEYS if k in syms or k in undefined]
    if TP_KEY not in keys:
        return f"{obj} does not use {TP_KEY}: not the series' fair.o"

    def key_of(reloc):
        """The key a __jump_table key reloc names, or None."""
        for k in keys:
            if re.fullmatch(re.escape(k) + r"(\+0x[0-9a-f]+)?", reloc):
                return k
            if k in syms:
                off, ksize, ktype = syms[k]
                section = {"b": ".bss", "d": ".data"}.get(ktype.lower())
                m = section and re.fullmatch(re.escape(section) + r"\+0x([0-9a-f]+)", reloc)
                if m and off <= int(m.group(1), 16) < off + max(ksize, 8):
                    return k
        return None

    # __jump_table entries: code, target (.text+X) and key, one reloc each.
    # No such section (objdump fails) without CONFIG_JUMP_LABEL.
    relocs = re.findall(r"^[0-9a-f]+\s+\S+\s+(\S+)$",
                        run("objdump", "-r", "-j", "__jump_table", obj, check=False), re.M)
    sites = {}
    for i in range(0, len(relocs) - 2, 3):
        code, target, key = relocs[i:i + 3]
        k = key_of(key)
        if not k:
            continue
        c, t = (int(x.split("+0x")[1], 16) if "+0x" in x else 0 for x in (code, target))
        if start <= c < start + size:
            sites.setdefault(k, []).append((c, t))
    missing = [k for k in keys if k not in sites]
    if TP_KEY in missing:
        return (f"no jump-label site of {TP_KEY} in {FUNC}: built without "
                "CONFIG_JUMP_LABEL, or the tracepoint is not behind its key")
    targets = [t for s in sites.values() for _, t in s]

    dis = run("objdump", "-dr", "--no-show-raw-insn", obj)
    refs = {}
    for name in (TRACED, "sched_sis_policy"):
        refs[name] = [int(a, 16) for a in re.findall(
            r"^\s+([0-9a-f]+): R_X86_64_\S+\s+" + re.escape(name) + r"\b", dis, re.M)
            if start <= int(a, 16) < start + size]
    if TRACED in syms and syms[TRACED][2].lower() == "t" and not refs[TRACED]:
        # A local call needs no relocation: find it in the disassembly.
        off = syms[TRACED][0]
        refs[TRACED] = [int(a, 16) for a, dest in re.findall(
            r"^\s+([0-9a-f]+):\s+call\s+([0-9a-f]+) <", dis, re.M)
            if start <= int(a, 16) < start + size and int(dest, 16) == off]
    if not refs[TRACED]:
        return f"{FUNC} never calls {TRACED}: nothing to check"
    # A key tested other than by a jump label (static_key_enabled(), a
    # plain load) leaves a relocation to it in the function's own code,
    # where the jump-label sites have none (theirs are in __jump_table).
    # A RIP-relative reference (PC32) carries the -4 of its displacement:
    # .bss+0x1c for a key at .bss+0x20.
    def at(reloc, pcrel):
        m = re.fullmatch(r"(\S+?)([+-]0x[0-9a-f]+)?", reloc)
        off = int(m.group(2) or "0", 16) + (4 if pcrel else 0)
        return m.group(1) + (f"+{off:#x}" if off >= 0 else f"-{-off:#x}")

    for a, rtype, reloc in re.findall(r"^\s+([0-9a-f]+): R_X86_64_(\S+)\s+(\S+)$", dis, re.M):
        k = key_of(at(reloc, rtype in ("PC32", "PLT32")))
        if k and start <= int(a, 16) < start + size:
            refs.setdefault(k, []).append(int(a, 16))
    for name, addrs in refs.items():
        stray = [a for a in addrs if not any(t <= a < t + REACH for t in targets)]
        if stray:
            return (f"{FUNC} reaches {name} at "
                    f"{', '.join(hex(a - start) for a in stray)} (offsets in the "
                    "function), outside the keys' jump targets: the default path "
                    "pays for it")
    for k, s in sites.items():
        for c, t in s:
            print(f"# {FUNC}+{c - start:#x}: {k} key, jump target +{t - start:#x}")
    for name, addrs in refs.items():
        if addrs:
            print(f"# {name} at " + ", ".join(f"+{a - start:#x}" for a in addrs))
    if missing:
        print(f"# keys with no site in {FUNC}: {', '.join(missing)}")
    return None


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    why = main(sys.argv[1])
    if why:
        print(f"check-sis-key: {why}")
        sys.exit(1)
