"""Read KTAP with the tree's own parser, and print it.

parse() runs tools/testing/kunit/kunit_parser.py (what `kunit.py parse`
uses) over a suite's stdout and flattens the tree it returns into leaf
results: a failing subtest fails even under an `ok` parent.  Whatever the
parser reports as an error (a duplicate or missing test number, a missing
result, `1..0`) becomes a problem of the suite, as do result lines after the
plan is used up.
"""

import fnmatch
import io
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KUNIT_DIR = os.path.join(TOP, "build/linux/tools/testing/kunit")


def _kunit():
    """The tree's kunit_parser module, printing into a buffer."""
    if not os.path.isfile(os.path.join(KUNIT_DIR, "kunit_parser.py")):
        raise RuntimeError("no tools/testing/kunit/kunit_parser.py under build/linux: "
                           "run 'make tree'")
    if KUNIT_DIR not in sys.path:
        sys.path.insert(0, KUNIT_DIR)
    import kunit_parser
    import kunit_printer
    return kunit_parser, kunit_printer


class Report:
    def __init__(self):
        self.planned = None
        self.results = []   # (status, name, note); status: pass, fail, skip
        self.errors = []    # the parser's complaints

    def count(self, status):
        return sum(1 for r in self.results if r[0] == status)

    def problems(self):
        """Why this stream is not a clean run, beyond its failed tests."""
        return list(self.errors)


_ERROR = re.compile(r"\[ERROR\] Test: (.*)$")
_RESULT = re.compile(r"^\s*(ok|not ok) \d+")
_SKIP_LINE = re.compile(r"^\s*(?:ok|not ok) \d+ (?:- )?(.*?) # SKIP(.*)$", re.M)


def parse(text):
    """Parse a KTAP (or TAP 13) stream into a Report of leaf results."""
    kp, printer = _kunit()
    buf = io.StringIO()
    saved = kp.stdout
    kp.stdout = printer.Printer(buf)
    try:
        lines = kp.extract_tap_lines(text.splitlines())
        rep = Report()
        if not lines:
            rep.errors.append("no KTAP output (no 'KTAP version 1' or 'TAP version 13' line)")
            return rep
        main = kp.parse_test(lines, 0, [], False)
        leftover = []
        while lines:
            line = lines.pop()
            if _RESULT.match(line):
                leftover.append(line.strip())
    finally:
        kp.stdout = saved
    rep.planned = main.expected_count
    for line in buf.getvalue().splitlines():
        m = _ERROR.search(line)
        if m:
            rep.errors.append(f"KTAP: {m.group(1)}")
    if main.expected_count is None:
        rep.errors.append("no KTAP plan (1..N) in the output")
    if leftover:
        rep.errors.append(f"{len(leftover)} result line(s) beyond the plan, "
                          f"first: {leftover[0]}")
    notes = {m.group(1).strip(): m.group(2).strip() for m in _SKIP_LINE.finditer(text)}
    _leaves(kp, main, "", rep, notes)
    if main.expected_count is not None and not rep.results and \
            "KTAP: main: 0 tests run!" not in rep.errors:
        rep.errors.append("no test results")
    return rep


def _leaves(kp, test, prefix, rep, notes):
    for sub in test.subtests:
        name = f"{prefix}{sub.name or '(missing result)'}"
        if sub.subtests:
            _leaves(kp, sub, name + ".", rep, notes)
            if sub.status == kp.TestStatus.FAILURE and \
                    not any(s.status == kp.TestStatus.FAILURE for s in sub.subtests):
                rep.results.append(("fail", name, "the parent failed, its subtests did not"))
            continue
        if sub.status == kp.TestStatus.SUCCESS:
            rep.results.append(("pass", name, ""))
        elif sub.status == kp.TestStatus.SKIPPED:
            rep.results.append(("skip", name, notes.get(sub.name, "")))
        elif sub.status == kp.TestStatus.NO_TESTS:
            rep.results.append(("fail", name, "no tests ran"))
        else:
            rep.results.append(("fail", name, sub.status.name.lower()))


def selected(name):
    """Whether a host test runs under $LAB_TEST_GLOB (all when unset) and
    $LAB_TEST_EXCLUDE (none when unset), each a comma-separated list of
    globs."""
    globs = [g for g in os.environ.get("LAB_TEST_GLOB", "").split(",") if g]
    excludes = [g for g in os.environ.get("LAB_TEST_EXCLUDE", "").split(",") if g]
    return (not globs or any(fnmatch.fnmatchcase(name, g) for g in globs)) and \
        not any(fnmatch.fnmatchcase(name, g) for g in excludes)


def run_tests(tests):
    """Run host-side tests, [(name, fn)], printing KTAP; 1 if any failed.
    A test fails by raising, usually an AssertionError.  With
    $LAB_TEST_LIST set, list the names instead; $LAB_TEST_GLOB picks."""
    if os.environ.get("LAB_TEST_LIST"):
        for name, _ in tests:
            if selected(name):
                print(name)
        return 0
    tests = [(n, f) for n, f in tests if selected(n)]
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
