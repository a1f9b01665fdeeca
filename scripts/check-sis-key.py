#!/usr/bin/env python3
"""Check, in a kernel/sched/fair.o built with CONFIG_JUMP_LABEL, that the
default select_idle_sibling() policy pays only the static key: in
select_task_rq_fair() the sched_sis_legacy key is a jump-label site (a NOP
patched to a jump), and every load of sched_sis_policy sits at the key's
jump target, so that "modern" never loads the policy.

Usage: scripts/check-sis-key.py FAIR_O     exit 0 if so, 1 (saying why) if not
"""

import re
import subprocess
import sys

FUNC = "select_task_rq_fair"


def run(*argv, check=True):
    return subprocess.run(argv, capture_output=True, text=True, check=check).stdout


def main(obj):
    syms = {}
    for line in run("nm", "-S", obj).splitlines():
        parts = line.split()
        if len(parts) == 4:
            syms[parts[3]] = (int(parts[0], 16), int(parts[1], 16), parts[2])
    if FUNC not in syms or "sched_sis_legacy" not in syms:
        return f"{obj} has no {FUNC} or no sched_sis_legacy"
    start, size, _ = syms[FUNC]
    key_off, _, key_type = syms["sched_sis_legacy"]
    section = {"b": ".bss", "d": ".data"}.get(key_type.lower())
    if not section:
        return f"sched_sis_legacy is in an unexpected section ({key_type})"

    # __jump_table entries: code, target (.text+X) and key, one reloc each.
    # No such section (objdump fails) without CONFIG_JUMP_LABEL.
    relocs = re.findall(r"^[0-9a-f]+\s+\S+\s+(\S+)$",
                        run("objdump", "-r", "-j", "__jump_table", obj, check=False), re.M)
    sites = []
    for i in range(0, len(relocs) - 2, 3):
        code, target, key = relocs[i:i + 3]
        m = re.fullmatch(re.escape(section) + r"\+0x([0-9a-f]+)", key)
        if not m or not key_off <= int(m.group(1), 16) < key_off + 8:
            continue
        c, t = (int(x.split("+0x")[1], 16) if "+0x" in x else 0 for x in (code, target))
        if start <= c < start + size:
            sites.append((c, t))
    if not sites:
        return (f"no jump-label site of sched_sis_legacy in {FUNC}: built "
                "without CONFIG_JUMP_LABEL, or the key is not a static branch")

    dis = run("objdump", "-dr", "--no-show-raw-insn", obj)
    loads = [int(a, 16) for a in re.findall(r"^\s+([0-9a-f]+): R_X86_64_\S+\s+sched_sis_policy",
                                            dis, re.M)
             if start <= int(a, 16) < start + size]
    if not loads:
        return f"{FUNC} never loads sched_sis_policy: nothing to check"
    stray = [a for a in loads if not any(t <= a < t + 16 for _, t in sites)]
    if stray:
        return (f"{FUNC} loads sched_sis_policy at "
                f"{', '.join(hex(a - start) for a in stray)} (offsets in the function), "
                "outside the key's jump target: the default path pays for it")
    for c, t in sites:
        print(f"# {FUNC}+{c - start:#x}: sched_sis_legacy key, jump target "
              f"+{t - start:#x}; sched_sis_policy loaded at "
              f"{', '.join('+' + hex(a - start) for a in loads)}")
    return None


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    why = main(sys.argv[1])
    if why:
        print(f"check-sis-key: {why}")
        sys.exit(1)
