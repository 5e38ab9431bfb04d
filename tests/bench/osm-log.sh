# shellcheck shell=bash
# OpenSM's log as a clock, for tests/bench/fabric-guest.sh and ibsim.sh:
# durations from the microsecond timestamps of its lines, not from when a
# poll saw them.  Source it; LOG is the path of OpenSM's log (-f).

# wait_for SECONDS CMD...: CMD true within SECONDS (polled every 0.1 s)
wait_for() {
    local end=$((SECONDS + $1))
    shift
    until "$@"; do
        ((SECONDS < end)) || return 1
        sleep 0.1
    done
}

# osm_ups LOG: how many sweeps have ended ("SUBNET UP": SYS level the
# first time, INFO after each heavy sweep; both at -D 0x03)
osm_ups() { local n; n=$(grep -c ' -> SUBNET UP' "$1" 2> /dev/null); echo "${n:-0}"; }
# osm_nth_up LOG N: the epoch of the Nth such line
osm_nth_up() { osm_line_epoch "$(grep ' -> SUBNET UP' "$1" | sed -n "${2}p")"; }
# osm_line_epoch LINE: "Mon DD HH:MM:SS USECS [...]", local time, no year
# (this one assumed: a run across New Year would be off)
osm_line_epoch() {
    local mon day hms usec
    read -r mon day hms usec _ <<< "$1"
    printf '%s.%s' "$(date -d "$mon $day $hms" +%s)" "$usec"
}
# osm_quiet LOG: 2 s without a new line (a sweep's traps, a port going
# ACTIVE, may bring another sweep: wait for them before timing one)
osm_quiet() { (($(date +%s) - $(stat -c %Y "$1") >= 2)); }
# osm_engine LOG: the routing engine OpenSM last configured the switches
# with ("<engine> tables configured on all switches"; a failed engine
# falls back to minhop), "none" if none
osm_engine() {
    local e
    e=$(sed -n 's/.* \([a-z_0-9]*\) tables configured on all switches.*/\1/p' "$1" | tail -n 1)
    echo "${e:-none}"
}
# secs_between A B: B - A, 3 decimals
secs_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
