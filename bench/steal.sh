# Sourced by bench/run and bench/ab: the CPU time the host took from this (virtual) machine, from the `steal`
# column of /proc/stat.
# cpu_times: "total steal", both in jiffies since boot, over all cores.
cpu_times() { awk '/^cpu / { t = 0; for (i = 2; i <= 9; ++i) t += $i; print t, $9 }' /proc/stat; }
# steal_percent "BEFORE" "AFTER": the share of CPU time stolen between two cpu_times readings, in %.
steal_percent() { echo "$1 $2" | awk '{ d = $3 - $1; printf "%d", (d > 0 ? 100 * ($4 - $2) / d : 0) }'; }
