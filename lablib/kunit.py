"""Run KUnit suites in the guest, as kunit.py runs them under UML or QEMU.

The lab kernels have CONFIG_KUNIT built in but off at boot
(KUNIT_DEFAULT_ENABLED=n).  run() boots with kunit.enable=1 and
kunit.filter_glob=GLOB, so the built-in suites that match run at boot;
then the guest loads each test module (whose suites KUnit runs on load,
under the same filter) and prints the kernel log.  Each KTAP document in
that log (the built-in run's, one per module) is parsed with the tree's
kunit_parser (lablib.ktap).
"""

import dataclasses
import io
import os
import re

from lablib import guest, ktap

# KUnit prints at KERN_INFO, below the console loglevel, and a large suite
# (regmap-kunit has hundreds of cases) outgrows tinyconfig's log buffer.
APPEND = "kunit.enable=1 log_buf_len=8M"
_TOP_VERSION = re.compile(r"^KTAP version 1$")
_TOP_PLAN = re.compile(r"^1\.\.(\d+)$")
_TOP_RESULT = re.compile(r"^(?:not )?ok (\d+) ")


def documents(log):
    """Split a kernel log into its top-level KTAP documents, each from its
    "KTAP version 1" to its last planned result, dropping the empty ones a
    filtered built-in run prints ("1..0")."""
    docs, cur, plan = [], None, None
    for line in log.splitlines():
        if _TOP_VERSION.match(line):
            cur, plan = [line], None
            docs.append(cur)
            continue
        if cur is None:
            continue
        cur.append(line)
        m = _TOP_PLAN.match(line) if plan is None else None
        if m:
            plan = int(m.group(1))
        m = _TOP_RESULT.match(line)
        if m and plan is not None and int(m.group(1)) >= plan:
            cur = None
    return ["\n".join(d) + "\n" for d in docs
            if not (len(d) > 1 and d[1].strip() == "1..0")]


def module_path(mod):
    if not os.path.isfile(mod):
        raise guest.LabError(f"no KUnit module at {mod}: build it against the "
                             "kernel you boot (scripts/kernel.sh builds the lab's)")
    return os.path.abspath(mod)


def check(glob=None, modules=()):
    """The modules' paths, once glob and the modules are good."""
    if glob is not None and (not glob or re.search(r"\s", glob)):
        raise guest.LabError(f"bad KUnit glob '{glob}': want SUITE[.TEST], e.g. 'regmap*'")
    return [module_path(m) for m in modules]


def run(spec, glob=None, modules=(), keep=False):
    """Boot spec's guest, run the suites matching glob (None: every
    built-in suite) and the modules' suites: (guest Result, [ktap.Report],
    KTAP text)."""
    mods = check(glob, modules)
    extra = APPEND + (f" kunit.filter_glob={glob}" if glob else "")
    spec = dataclasses.replace(spec, append=f"{extra} {spec.append}".strip())
    script = ('for m; do busybox insmod "$m" || { echo "# insmod $m failed" >&2; exit 3; }; done; '
              'dmesg -t')
    out = io.BytesIO()
    res = guest.run(spec, ["sh", "-c", script, "sh", *mods], stdout=out, keep=keep)
    log = out.getvalue().decode(errors="replace")
    docs = documents(log)
    return res, [ktap.parse(d) for d in docs], "".join(docs)
