#!/bin/sh
# In the guest: the same user-space busy loop (a shell loop: no system
# calls) on two CPUs at once for SECS seconds, and each CPU's local timer
# interrupts (LOC in /proc/interrupts) over that time.
#   nohz.sh HOUSEKEEPING_CPU NOHZ_CPU SECS
# Prints "nohz_full=<list> loc_<cpu>=<delta> ...".  Under nohz_full= the
# tick of a CPU running one user task stops; elsewhere it keeps going.
hk=$1 nz=$2 secs=${3:-10}
loc() { awk -v f=$(($1 + 2)) '$1 == "LOC:" { print $f }' /proc/interrupts; }
spin() { taskset -c "$1" sh -c 'while :; do :; done' & }

spin "$hk"; a=$!
spin "$nz"; b=$!
sleep 1		# let both loops settle on their CPUs
hk0=$(loc "$hk") nz0=$(loc "$nz")
sleep "$secs"
hk1=$(loc "$hk") nz1=$(loc "$nz")
kill "$a" "$b"
echo "nohz_full=$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null)" \
     "secs=$secs loc_$hk=$((hk1 - hk0)) loc_$nz=$((nz1 - nz0))"
