#!/bin/sh
# In the guest: the NUMA layout, then perf bench numa mem with one
# process bound to each node, its CPUs and its memory (-C, -M).
#   numa.sh CPU_ON_NODE0 CPU_ON_NODE1
set -e
echo "nodes_online=$(cat /sys/devices/system/node/online)"
for n in /sys/devices/system/node/node[0-9]*; do
	echo "${n##*/}_cpus=$(cat "$n/cpulist")" \
	     "${n##*/}_mem_kb=$(awk '/MemTotal/ { print $4 }' "$n/meminfo")"
done
perf bench numa mem -p 2 -t 1 -P 64 -s 3 -C "$1,$2" -M 0,1 -d 2>&1
