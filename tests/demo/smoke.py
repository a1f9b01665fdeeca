#!/usr/bin/env python3
"""Host suite: a short smoke run of the demo (a few seconds per case).
Checks that every case produced numbers, that results.json parses and
carries what reproduces the run, that the placement metric holds its
invariants, and that placement.png is a valid PNG drawn by this run (an
earlier run's is removed first).  It asserts no timings.  Prints KTAP."""

import json
import os
import struct
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, TOP)

from lablib import ktap  # noqa: E402

OUT = os.path.join(TOP, "build/demo-smoke")
# LAB_DEMO_STOCK=0 (the quick tier): the lab kernel's cases only.
STOCK = os.environ.get("LAB_DEMO_STOCK", "1") != "0"
KERNELS = ("lab", "stock") if STOCK else ("lab",)
PNG = os.path.join(OUT, "placement.png")

if os.environ.get("LAB_TEST_LIST"):
    proc = None
else:
    # The picture of an earlier run must not pass for this one's.
    if os.path.exists(PNG):
        os.remove(PNG)
    started = time.time()
    proc = subprocess.run([sys.executable, os.path.join(TOP, "demo/demo.py"), "--runs", "1",
                           "--duration", "3", "--out", OUT] + ([] if STOCK else ["--no-stock"]),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout.splitlines():
        print(f"# {line}")


def results():
    with open(os.path.join(OUT, "results.json")) as f:
        return json.load(f)

tests = []


def test(name):
    def wrap(fn):
        tests.append((name, fn))
        return fn
    return wrap


@test("demo_exits_zero")
def _():
    assert proc.returncode == 0, proc.returncode


@test("results_json_parses_with_every_case")
def _():
    with open(os.path.join(OUT, "results.json")) as f:
        res = json.load(f)
    cases = {c["case"] for c in res["cases"]}
    want = {"3.8", "3.9", "modern", "pinned"} | ({"stock"} if STOCK else set())
    assert cases == want, cases
    assert res["kernels"]["lab"].endswith("-lab"), res["kernels"]


@test("results_json_says_how_to_reproduce_the_run")
def _():
    res = results()
    assert res["accelerator"] in ("kvm", "tcg"), res["accelerator"]
    assert (res["tcg_threads"] == "multi") == (res["accelerator"] == "tcg"), res
    assert res["series"] and res["qemu"].startswith("QEMU emulator"), res
    for k in KERNELS:
        topo = res["topology_booted"][k]
        assert (topo["cpus"], topo["threads_per_core"]) == (20, 2), (k, topo)
    assert res["pipe_loops"] == 3000 and res["trace_buffer_size_kb"] > 0, res
    assert "tcg" not in res, "the old key with a second meaning is back"
    tcg_label = "TCG (emulated)" in proc.stdout
    assert tcg_label == (res["accelerator"] == "tcg"), "TCG label on a KVM run or missing"


@test("pinned_pair_never_changes_cpu")
def _():
    pinned = next(c for c in results()["cases"] if c["case"] == "pinned")
    for run in pinned["runs"]:
        assert run["cpu_changes_per_1000_wakeups"] == 0, run["cpu_changes_per_1000_wakeups"]
        assert run["distinct_cpus"] == 2, run["distinct_cpus"]


@test("v3_8_changes_cpu_ten_times_as_often_as_modern")
def _():
    by = {c["case"]: c for c in results()["cases"]}
    old = by["3.8"]["cpu_changes_per_1000_wakeups"]["median"]
    new = by["modern"]["cpu_changes_per_1000_wakeups"]["median"]
    assert old >= 10 * max(new, 1), (old, new)
    assert old <= 1000, f"{old} changes per 1,000 wake-ups: more than one per wake-up"


@test("no_snapshot_lost_events")
def _():
    lost = [(c["case"], r["lost_events"]) for c in results()["cases"] for r in c["runs"]
            if r["lost_events"]]
    assert not lost, lost


@test("every_case_has_numbers")
def _():
    with open(os.path.join(OUT, "results.json")) as f:
        res = json.load(f)
    for c in res["cases"]:
        for key in ("tbench_mb_s", "pipe_ops_s", "cpu_changes_per_1000_wakeups", "distinct_cpus"):
            assert c[key] and c[key]["median"] is not None, (c["case"], key)
        assert c["kernel"] == "stock" or c["top_reasons"], (c["case"], "no placement reasons")


@test("headline_is_printed")
def _():
    assert "3.9 / 3.8 = " in proc.stdout and "(seed, on hardware: 16.6x)" in proc.stdout


@test("placement_png_is_drawn_by_this_run")
def _():
    assert os.path.exists(PNG), "no placement.png: the demo did not draw it"
    mtime = os.stat(PNG).st_mtime
    assert mtime >= started, f"placement.png is {started - mtime:.0f}s older than this run"


@test("placement_png_is_a_valid_image")
def _():
    with open(PNG, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", head
    width, height = struct.unpack(">II", head[16:24])
    assert width >= 800 and height >= 5 * 200, (width, height)


sys.exit(ktap.run_tests(tests))
