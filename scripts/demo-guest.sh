#!/bin/sh
# In the guest: show what the demo machine looks like (until the
# bouncing-cow demo lands).
echo "kernel: $(uname -r), $(nproc) CPUs"
echo "SMT siblings of cpu0: $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)"
echo "LLC shared by: $(cat "$(ls -d /sys/devices/system/cpu/cpu0/cache/index* | tail -n 1)/shared_cpu_list")"
echo "tracers: $(cat /sys/kernel/tracing/available_tracers)"
echo "tracing files: $(ls /sys/kernel/tracing | tr '\n' ' ')"
