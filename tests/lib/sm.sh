# shellcheck shell=bash disable=SC2154,SC2034  # dev, osm: the caller's; SM_MKEY: theirs
# The subnet manager of the two-host stages (scripts/vm2.sh --sm none):
# Debian's OpenSM on a port of either guest, and the port attributes the
# scripts judge it by.  Source after tap.sh and pair.sh; the caller sets
# dev (this host's device) and osm (OpenSM's cache and log directory,
# made on both hosts).  The other host's device is ORCA_PEER_DEV (orca0).

# the M_Key OpenSM protects the ports with in the tenant stage
# (vm-twohost-ece: tenant.sh, partition.sh)
SM_MKEY=0x0c0ffee15eed0001

# port 1's attribute NAME (sysfs) here and on the other host; empty if
# the file is not there
pattr() { cat "/sys/class/infiniband/$dev/ports/1/$1" 2> /dev/null; }
rattr() { peer "cat /sys/class/infiniband/${ORCA_PEER_DEV:-orca0}/ports/1/$1" 2> /dev/null; }
# "4: ACTIVE" -> ACTIVE; "0x2" -> 2
state_of() { printf '%s' "${1#*: }"; }
lid_of() { printf '%d' "${1:-0}"; }
# the port GUID of GID 0 here / there, as sminfo prints it: 0x..., no
# leading zeros
port_guid() { printf '0x%x' "0x$(pattr gids/0 | tr -d : | cut -c17-)"; }
rport_guid() { printf '0x%x' "0x$(rattr gids/0 | tr -d : | cut -c17-)"; }

# sm_start WHERE GUID LOG [CONF_LINE...]: OpenSM on port GUID of this
# host (WHERE here) or the other (peer), in the background in a session
# of its own, logging errors and info (SUBNET UP) to LOG, flushed at each
# line, its output to LOG.out; each CONF_LINE ("m_key 0x..") goes into
# its configuration file, LOG.conf
sm_start() {
    local where=$1 guid=$2 log=$3 cmd
    shift 3
    cmd="mkdir -p $osm; printf '%s\n' 'force_log_flush TRUE'"
    (($#)) && cmd+=$(printf " '%s'" "$@")
    cmd+=" > $log.conf; OSM_CACHE_DIR=$osm OSM_TMP_DIR=$osm setsid opensm -F $log.conf"
    cmd+=" -g $guid -D 0x03 -f $log > $log.out 2>&1 < /dev/null &"
    # one line: peer sends a command as one
    if [[ $where == here ]]; then eval "$cmd"; else peer "$cmd"; fi
}
# sm_up LOG: OpenSM logged SUBNET UP
sm_up() { grep -q 'SUBNET UP' "$1" 2> /dev/null; }
