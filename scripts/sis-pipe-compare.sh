#!/bin/sh
# perf bench sched pipe on stock 6.12 and on the upstream-bound series, with
# nothing attached and with a tracepoint probe event on
# sched_sis_decision_tp, booted alternately BOOTS times each, RUNS runs a
# mode a boot: scripts/sis-pipe-compare.sh [BOOTS] [RUNS] [LOOPS].  Prints
# the median usecs/op of each and its spread (min-max), and the ratios.
set -eu
boots=${1:-2} runs=${2:-5} loops=${3:-20000}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=0
while [ "$i" -lt "$boots" ]; do
	"$top/lab" run --kernel stock -- scripts/sis-pipe-bench.sh "$runs" "$loops" none |
		awk '$1 == "none" { print "stock", $2 }' >> "$out"
	"$top/lab" run --kernel upstream -- scripts/sis-pipe-bench.sh "$runs" "$loops" none probe |
		awk '$1 == "none" || $1 == "probe" { print "upstream-" $1, $2 }' >> "$out"
	i=$((i + 1))
done
python3 - "$out" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    runs.setdefault(k, []).append(float(v))
med = {k: statistics.median(v) for k, v in runs.items()}
for k in ("stock", "upstream-none", "upstream-probe"):
    v = runs.get(k, [])
    if v:
        print(f"{k:16} n={len(v):2} median {med[k]:7.2f} usecs/op  spread {min(v):.2f}-{max(v):.2f}")
if "stock" in med:
    for k in ("upstream-none", "upstream-probe"):
        if k in med:
            print(f"{k} / stock = {med[k] / med['stock']:.3f}")
PY
