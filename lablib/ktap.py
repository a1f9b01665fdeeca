"""Parse the top level of a KTAP stream: the plan and the test results."""

import re

RESULT = re.compile(r"^(not ok|ok) (\d+)(?: -)? ?([^#]*?)\s*(?:#\s*(\S+)(.*))?$")
PLAN = re.compile(r"^1\.\.(\d+)")


class Report:
    def __init__(self):
        self.planned = None
        self.results = []  # (status, name, note); status: pass, fail, skip

    def count(self, status):
        return sum(1 for r in self.results if r[0] == status)

    def problems(self):
        """Why this stream is not a clean run, beyond its failed tests."""
        if self.planned is None:
            return ["no KTAP plan (1..N) in the output"]
        if self.planned != len(self.results):
            return [f"planned {self.planned} tests, saw {len(self.results)} results"]
        return []


def parse(text):
    """Read the top-level plan and results; indented subtests are ignored."""
    rep = Report()
    for line in text.splitlines():
        if line[:1] in (" ", "\t"):
            continue
        m = PLAN.match(line)
        if m and rep.planned is None:
            rep.planned = int(m.group(1))
            continue
        m = RESULT.match(line)
        if not m:
            continue
        ok, name = m.group(1) == "ok", m.group(3).strip()
        directive = (m.group(4) or "").upper()
        note = (m.group(5) or "").strip()
        if directive == "SKIP":
            rep.results.append(("skip", name, note))
        elif ok:
            rep.results.append(("pass", name, note))
        else:
            rep.results.append(("fail", name, note))
    return rep


def run_tests(tests):
    """Run host-side tests, [(name, fn)], printing KTAP; 1 if any failed.
    A test fails by raising, usually an AssertionError."""
    print("KTAP version 1")
    print(f"1..{len(tests)}", flush=True)
    failed = 0
    for i, (name, fn) in enumerate(tests, 1):
        try:
            fn()
            print(f"ok {i} {name}", flush=True)
        except Exception as e:  # a failed assertion, a lab error, missing output
            failed += 1
            for line in f"{type(e).__name__}: {e}".splitlines():
                print(f"# {line}")
            print(f"not ok {i} {name}", flush=True)
    return 1 if failed else 0
