#!/bin/bash
# Guest side of tests/bench/fabric.sh: the real OpenSM on this guest's
# port brings up a fat tree of orca-fabric switches and guest-less CA
# ports (scripts/fattree.py), then the same fabric simulated by OpenSM's
# own MAD simulator, ibsim (tests/bench/ibsim.sh), on this guest too,
# so that both run on the same (emulated) CPU.
#
# usage: fabric-guest.sh CAS SWITCHES NETFILE OUT
#   CAS, SWITCHES  what the fabric holds (this guest's port included)
#   NETFILE        the same topology in ibsim's format (topo2ibnet.py);
#                  "-": no ibsim run
#   OUT            key=value lines go here (on the host's job dir)
# Keys: the epochs of OpenSM's start, SUBNET UP, the forced heavy sweep's
# start and end (SIGHUP to the next SUBNET UP, once OpenSM's log is
# quiet; the ends from its log's timestamps, tests/bench/osm-log.sh; host
# and guest clocks agree under TCG, so that the host can charge the
# emulators' CPU to that window), what ibnetdiscover found (switches,
# CAs, CAs with a LID), the routing engine OpenSM logged, and ibsim's
# figures (tests/bench/ibsim.sh) prefixed ibsim_.  Exit status 0 when the whole fabric
# came up with every CA port given a LID; 1 otherwise (the keys say how
# far it got).
set -u
export LC_ALL=C
# shellcheck source=tests/bench/osm-log.sh
. "$(dirname "${BASH_SOURCE[0]}")/osm-log.sh"
cas=$1 switches=$2 net=$3 out=$4
dev=${ORCA_DEV:-orca0}
engine=${ROUTING_ENGINE:-ftree}
bound=${ORCA_FABRIC_BOUND:-1800}     # seconds, per wait
osm=$(mktemp -d /tmp/orca-fabric-scale.XXXXXX)
trap 'pkill -TERM -x opensm; rm -rf "$osm"' EXIT
: > "$out"
put() { printf '%s=%s\n' "$1" "$2" >> "$out"; }
now() { printf '%s' "$EPOCHREALTIME"; }
more_ups() { (($(osm_ups "$osm/log") > $1)); }

modprobe ib_umad || { put error "modprobe ib_umad failed"; exit 1; }
guid=$(printf '0x%s' "$(tr -d : < "/sys/class/infiniband/$dev/ports/1/gids/0" | cut -c17-)")
printf '%s\n' 'force_log_flush TRUE' "routing_engine $engine" > "$osm/conf"
put cas "$cas"
put switches "$switches"
put t_start "$(now)"
OSM_CACHE_DIR=$osm OSM_TMP_DIR=$osm setsid opensm -F "$osm/conf" -g "$guid" \
    -D 0x03 -f "$osm/log" > "$osm/out" 2>&1 < /dev/null &
if ! wait_for "$bound" more_ups 0; then
    put error "no SUBNET UP within $bound s: $(tail -n 3 "$osm/log" | tr '\n' ' ')"
    exit 1
fi
put t_up "$(osm_nth_up "$osm/log" 1)"
put routing_engine_used "$(osm_engine "$osm/log")"

# what the SM found, as a user sees it
ibnetdiscover > "$osm/net" 2> /dev/null
put found_switches "$(grep -c '^Switch' "$osm/net")"
put found_cas "$(grep -c '^Ca' "$osm/net")"
put found_ca_lids "$(awk '/^Ca/ { ca = 1; next } /^$/ { ca = 0 }
    ca && /^\[1\]/ && match($0, /# lid [0-9]+/) {
        split(substr($0, RSTART, RLENGTH), w, " "); if (w[3] > 0) n++ } END { print n + 0 }' "$osm/net")"

# a heavy sweep on demand: OpenSM sets force_heavy_sweep on SIGHUP and
# sweeps at once, and logs SUBNET UP at its end
wait_for "$bound" osm_quiet "$osm/log"
n=$(osm_ups "$osm/log")
put t_sweep "$(now)"
pkill -HUP -x opensm
if wait_for "$bound" more_ups "$n"; then
    put t_swept "$(osm_nth_up "$osm/log" $((n + 1)))"
else
    put error "the heavy sweep did not end within $bound s"
fi
put opensm_rss_kib "$(awk '/^VmRSS/ { print $2 }' "/proc/$(pgrep -x opensm)/status")"
pkill -TERM -x opensm
wait_for 60 eval '! pgrep -x opensm > /dev/null'

if [[ $net != - ]]; then
    if command -v ibsim > /dev/null; then
        "$(dirname "${BASH_SOURCE[0]}")/ibsim.sh" "$net" 2> "$osm/ibsim.err" |
            sed '/^ibsim_/!s/^/ibsim_/' >> "$out"
        grep -q '^ibsim_subnet_up_s=' "$out" ||
            put ibsim_error "$(tail -n 3 "$osm/ibsim.err" | tr '\n' ' ')"
    else
        put ibsim_error "ibsim is not installed (ibsim-utils)"
    fi
fi
grep -q '^error=' "$out" && exit 1
[[ $(sed -n 's/^found_cas=//p' "$out") == "$cas" &&
   $(sed -n 's/^found_ca_lids=//p' "$out") == "$cas" &&
   $(sed -n 's/^found_switches=//p' "$out") == "$switches" ]]
