#!/usr/bin/env python3
"""Host suite: a short smoke run of the demo (a few seconds per case).
Checks that every case produced numbers, that results.json parses and that
placement.png is a valid PNG.  It asserts no timings.  Prints KTAP."""

import json
import os
import struct
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, TOP)

from lablib import ktap  # noqa: E402

OUT = os.path.join(TOP, "build/demo-smoke")

proc = subprocess.run([sys.executable, os.path.join(TOP, "demo/demo.py"), "--runs", "1",
                       "--duration", "3", "--out", OUT],
                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
for line in proc.stdout.splitlines():
    print(f"# {line}")

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
    assert cases == {"3.8", "3.9", "modern", "pinned", "stock"}, cases
    assert res["tcg"] is True and res["kernels"]["lab"].endswith("-lab"), res["kernels"]


@test("every_case_has_numbers")
def _():
    with open(os.path.join(OUT, "results.json")) as f:
        res = json.load(f)
    for c in res["cases"]:
        for key in ("tbench_mb_s", "pipe_ops_s", "moves_per_1000_round_trips", "distinct_cpus"):
            assert c[key] and c[key]["median"] is not None, (c["case"], key)
        assert c["kernel"] == "stock" or c["top_reasons"], (c["case"], "no placement reasons")


@test("headline_is_printed")
def _():
    assert "3.9 / 3.8 = " in proc.stdout and "(seed, on hardware: 16.6x)" in proc.stdout


@test("placement_png_is_a_valid_image")
def _():
    with open(os.path.join(OUT, "placement.png"), "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", head
    width, height = struct.unpack(">II", head[16:24])
    assert width >= 800 and height >= 5 * 200, (width, height)


sys.exit(ktap.run_tests(tests))
