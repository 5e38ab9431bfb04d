#!/bin/bash
# The real OpenSM over ibsim, OpenSM's own MAD simulator (ibsim-utils),
# on a net file (scripts/topo2ibnet.py TOPOLOGY > NETFILE): the yardstick
# for OpenSM over orca's emulated fabric (tests/bench/fabric-guest.sh
# runs this on the same topology, same OpenSM options).
#
# usage: ibsim.sh NETFILE       key=value lines on stdout, the rest on stderr
#   subnet_up_s       OpenSM's start to its first "SUBNET UP"
#   heavy_sweep_s     SIGHUP to the next "SUBNET UP": OpenSM 3.3.23's
#                     main loop sets force_heavy_sweep on SIGHUP and
#                     sweeps at once (its 10 s sleep ends on the signal);
#                     the sweep logs "HEAVY SWEEP COMPLETE" when discovery
#                     is done, but LIDs, routing and port activation come
#                     after, and "SUBNET UP" (INFO level, the default
#                     0x03; SYS the first time) is the line at its end
#   routing_engine, routing_engine_used   $ROUTING_ENGINE (ftree) and what
#                     OpenSM logged ("<engine> tables configured on all
#                     switches"; a failed engine falls back to minhop)
#   cas, switches     counted in NETFILE
#   ibsim_rss_kib, opensm_rss_kib         VmRSS at the end
#   ibsim_cpu_s       ibsim's time on a CPU over the whole run (schedstat)
#   ibsim_rss_per_port_kib, ibsim_cpu_ms_per_port   per CA port
# Durations come from the microsecond timestamps of OpenSM's log, not
# from when the poll saw the line.  An error is error=WHY and exit 1.
#
# OpenSM runs through umad2sim (LD_PRELOAD of libumad2sim0's
# libumad2sim.so), which gives it one simulated device, attached to the
# net file node $SIM_HOST names: the first CA of the file (where
# topo2ibnet.py puts the first `ca` line), as OpenSM runs on a CA port
# over orca.  ibsim and umad2sim talk over datagram sockets in the
# abstract Unix namespace (no file), named by $IBSIM_SOCKNAME: a private
# one here.  Everything else (OpenSM's config, log, OSM_CACHE_DIR and
# dump directory, umad2sim's fake sysfs, which it makes in the current
# directory) is in a mktemp -d directory under /tmp, removed at the end
# with both processes, so that a guest whose / is read-only but /tmp
# can run it too.  Knobs: IBSIM_BENCH_BOUND, seconds per wait (600);
# IBSIM_BENCH_KEEP=1 keeps that directory (logs) for a look.
set -u
export LC_ALL=C
# shellcheck source=tests/bench/osm-log.sh
. "$(dirname "${BASH_SOURCE[0]}")/osm-log.sh"
net=${1:?usage: ibsim.sh NETFILE}
engine=${ROUTING_ENGINE:-ftree}
bound=${IBSIM_BENCH_BOUND:-600}

fail() { echo "error=$*"; echo "ibsim.sh: $*" >&2; exit 1; }
put() { printf '%s=%s\n' "$1" "$2"; }

[[ -r $net ]] || fail "cannot read $net"
net=$(realpath "$net")
command -v ibsim > /dev/null || fail "no ibsim (apt-get install ibsim-utils)"
command -v opensm > /dev/null || fail "no opensm"
so=$(dpkg -L libumad2sim0 2> /dev/null | grep -m 1 '/libumad2sim\.so$')
[[ -n $so && -r $so ]] || fail "no libumad2sim.so (package libumad2sim0, with ibsim-utils)"

# What ibsim allocates is fixed at its start: -N nodes, -S switches and
# -P ports (a switch has its port 0 too; the ports array, and its alias
# table, the same size), each a panic ("no more ...") when the file holds
# more.  Sized from the file, so that its RSS is this fabric's.  LIDs:
# ibsim's LID table and every switch's LFT have -L entries (30720 by
# default, orca's 49152); one a node here (LMC 0).
grep -q '^include' "$net" && fail "$net includes other files: not counted here"
read -r cas switches nodes ports < <(awk '
    /^(Switch|Hca|Ca|Rt)/ { match($0, /[0-9]+/); n = substr($0, RSTART, RLENGTH) + 0
                            nodes++; ports += n }
    /^Switch/ { switches++; ports++ }
    /^(Hca|Ca)/ { cas++ }
    END { print cas + 0, switches + 0, nodes + 0, ports + 0 }' "$net")
((nodes > 0)) || fail "no node in $net"
lidcap=30720
((nodes + 1 > lidcap)) && lidcap=$((nodes + 1))
((lidcap <= 49152)) ||
    fail "$nodes nodes need more LIDs than the 49151 unicast ones (ibsim -L)"
sws=$((switches > 0 ? switches : 1))    # ibsim takes no -S 0
sim_host=$(sed -n 's/^\(Hca\|Ca\)[^"]*"\([^"]*\)".*/\2/p' "$net" | head -n 1)

tmp=$(mktemp -d /tmp/orca-ibsim.XXXXXX) || fail "mktemp failed"
sock=orca-ibsim-${tmp##*.}
sim_pid='' osm_pid=''
stop() {  # pid: TERM, 30 s to go, then KILL
    local pid=$1 i
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2> /dev/null || return 0
    for ((i = 0; i < 300; i++)); do
        kill -0 "$pid" 2> /dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2> /dev/null
}
cleanup() {
    stop "$osm_pid"
    stop "$sim_pid"
    [[ -n ${IBSIM_BENCH_KEEP:-} ]] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
cd "$tmp" || fail "cd $tmp"

alive() { kill -0 "$1" 2> /dev/null; }
# the Nth "SUBNET UP" is logged, or OpenSM is gone (checked after)
up_or_gone() { (($(osm_ups "$tmp/osm.log") >= $1)) || ! alive "$osm_pid"; }
# (/proc/net/unix shows an abstract name as @NAME, and ibsim's NUL
# ending it as another @)
sim_ready() { grep -qF "@$sock:ctl@" /proc/net/unix || ! alive "$sim_pid"; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
last_log() { tail -n "${2:-3}" "$1" 2> /dev/null | tr '\n' ' '; }

put routing_engine "$engine"
put cas "$cas"
put switches "$switches"
echo "ibsim.sh: $nodes nodes, $ports ports; ibsim -N $nodes -S $sws -P $ports -L $lidcap;" \
     "OpenSM on ${sim_host:-the first node}; libumad2sim: $so; in $tmp" >&2

# -s starts the net at once; -n: no console (on a stdin at its end,
# /dev/null, the console spins a CPU)
IBSIM_SOCKNAME=$sock ibsim -s -n -N "$nodes" -S "$sws" -P "$ports" -L "$lidcap" "$net" \
    > "$tmp/ibsim.out" 2> "$tmp/ibsim.err" < /dev/null &
sim_pid=$!
wait_for "$bound" sim_ready || fail "ibsim not ready within $bound s"
alive "$sim_pid" || fail "ibsim: $(last_log "$tmp/ibsim.err")"
if [[ -s $tmp/ibsim.err ]]; then
    echo "ibsim.sh: ibsim warned:" >&2
    head -n 5 "$tmp/ibsim.err" >&2
fi

# the options of fabric-guest.sh's OpenSM over orca (default sweep
# interval, log level 0x03), log flushed at each line for the polls;
# its own config, not the machine's /etc/opensm/opensm.conf
printf '%s\n' 'force_log_flush TRUE' "routing_engine $engine" \
    "dump_files_dir $tmp" > "$tmp/osm.conf"
t_start=$EPOCHREALTIME
LD_PRELOAD=$so IBSIM_SOCKNAME=$sock SIM_HOST=$sim_host \
    OSM_CACHE_DIR=$tmp OSM_TMP_DIR=$tmp \
    opensm -F "$tmp/osm.conf" -D 0x03 -f "$tmp/osm.log" > "$tmp/osm.out" 2>&1 < /dev/null &
osm_pid=$!
wait_for "$bound" up_or_gone 1 || fail "no SUBNET UP within $bound s: $(last_log "$tmp/osm.log")"
alive "$osm_pid" || fail "opensm ended: $(last_log "$tmp/osm.out") $(last_log "$tmp/osm.log")"
put subnet_up_s "$(secs_between "$t_start" "$(osm_nth_up "$tmp/osm.log" 1)")"

# Let OpenSM settle first (osm_quiet)
wait_for "$bound" osm_quiet "$tmp/osm.log" || fail "OpenSM still logging after $bound s"
n=$(osm_ups "$tmp/osm.log")
t_hup=$EPOCHREALTIME
kill -HUP "$osm_pid"
wait_for "$bound" up_or_gone $((n + 1)) ||
    fail "the heavy sweep did not end within $bound s: $(last_log "$tmp/osm.log")"
alive "$osm_pid" || fail "opensm ended: $(last_log "$tmp/osm.log")"
put heavy_sweep_s "$(secs_between "$t_hup" "$(osm_nth_up "$tmp/osm.log" $((n + 1)))")"

used=$(osm_engine "$tmp/osm.log")
put routing_engine_used "$used"
if [[ $used != "$engine" ]]; then
    echo "ibsim.sh: OpenSM did not route with $engine; its errors:" >&2
    grep -m 10 ' 0x01 -> ' "$tmp/osm.log" >&2
fi

sim_rss=$(rss "$sim_pid")
put ibsim_rss_kib "$sim_rss"
put opensm_rss_kib "$(rss "$osm_pid")"
# time on a CPU (schedstat, ns: ticks are too coarse for the small sizes)
read -r ns _ < "/proc/$sim_pid/schedstat"
sim_cpu=$(awk -v t="$ns" 'BEGIN { printf "%.3f", t / 1e9 }')
put ibsim_cpu_s "$sim_cpu"
if ((cas > 0)); then
    put ibsim_rss_per_port_kib "$(awk -v r="$sim_rss" -v n="$cas" 'BEGIN { printf "%.1f", r / n }')"
    put ibsim_cpu_ms_per_port "$(awk -v c="$sim_cpu" -v n="$cas" 'BEGIN { printf "%.2f", c * 1000 / n }')"
fi
