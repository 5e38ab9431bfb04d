# shellcheck shell=bash disable=SC2034  # PAIR_SPID: for the sourcing script
# Client/server pairs for the guest tests (perftest, pingpongs): both in
# this guest over 127.0.0.1, or, in the first guest of scripts/vm2.sh
# (ORCA_PEER set), the server on the other guest through tests/lib/peer
# and the client here, connecting over the guest link.  Source after
# tap.sh.

# where the client connects
pair_server_addr() { printf '%s' "${ORCA_PEER_ADDR:-127.0.0.1}"; }
pair_remote() { [[ -n ${ORCA_PEER:-} ]]; }

# pair_server OUT PORT CMD...: start the server in the background (PID in
# PAIR_SPID, its exit status is the server's) and wait until it listens
# on PORT (up to ORCA_WAIT s, tap.sh); with PAIR_RDMA_CM=1 (the other
# guest only) an rdma_cm ID listening on PORT.  On the other guest the wait runs
# there: the command line started through tests/lib/peer polls ss itself
# and prints one "# pair: ..." line into OUT once the server listens (or
# ended first), which this guest reads without another peer call (each
# costs a process on both guests).
_out_has() {   # _out_has FILE PREFIX: a line of FILE starts with PREFIX
    local l
    [[ -r $1 ]] || return 1
    while IFS= read -r l; do
        [[ $l == "$2"* ]] && return 0
    done < "$1"
    return 1
}
_peer_said() { _out_has "$1" '# pair: ' || ended "$2"; }
pair_server() {
    local out=$1 port=$2
    shift 2
    if pair_remote; then
        # one line (peer sends one): start, wait for the listener, say so
        local line
        line="$(printf '%q ' "$@") & s=\$!;"
        local probe="ss -Hltn 'sport = :$port'"
        # an rdma_cm listener (PAIR_RDMA_CM=1) is no socket: rdma res has it
        [[ -n ${PAIR_RDMA_CM:-} ]] &&
            probe="rdma res show cm_id | grep 'state LISTEN.*:$port '"
        line+=" until [[ \$($probe) ]]; do kill -0 \$s 2> /dev/null || break; sleep 0.1; done;"
        line+=" if kill -0 \$s 2> /dev/null; then echo '# pair: listening on $port';"
        line+=" else echo '# pair: ended before listening'; fi; wait \$s"
        : > "$out"   # now, or _peer_said may read the last pair's line
        peer "$line" > "$out" 2>&1 &
        PAIR_SPID=$!
        wait_until "$ORCA_WAIT" _peer_said "$out" "$PAIR_SPID"
        _out_has "$out" "# pair: listening on $port"
    else
        "$@" > "$out" 2>&1 &
        PAIR_SPID=$!
        wait_until "$ORCA_WAIT" listening_or_ended "$port" "$PAIR_SPID"
        listening "$port"
    fi
}

# hostctl_all LINE: the request to this guest's emulator, and to the
# other guest's too when there is one; the first failure's status
hostctl_all() {
    local rc=0
    hostctl "$@" || rc=$?
    if pair_remote; then
        peer hostctl "$@" || { ((rc)) || rc=$?; }
    fi
    return "$rc"
}

# emu_stats ARRAY: every counter of the emulator's statistics into the
# associative ARRAY, summed over both emulators when there are two (one
# request to each: a snapshot, where a request per counter would cost a
# process on each guest per counter)
emu_stats() {
    local -n _st=$1
    local line kv k
    _st=()
    line=$(hostctl stats) || return 1
    if pair_remote; then
        line+=" $(peer hostctl stats)" || return 1
    fi
    for kv in $line; do
        [[ $kv =~ ^([a-zA-Z0-9_]+)=([0-9]+)$ ]] || continue
        k=${BASH_REMATCH[1]}
        # shellcheck disable=SC2004  # an associative key needs its $
        _st[$k]=$((_st[$k] + BASH_REMATCH[2]))
    done
}

# emu_stat_on WHERE NAME: counter NAME of this guest's emulator (WHERE
# here) or of the other guest's (peer).  A failed query never reads as a
# number: if hostctl (or peer) fails, or the statistics have no counter
# NAME with a decimal value, nothing is printed and the status is 1.
emu_stat_on() {
    local s kv
    if [[ $1 == here ]]; then s=$(hostctl stats); else s=$(peer hostctl stats); fi || return 1
    for kv in $s; do
        [[ ${kv%%=*} == "$2" && ${kv#*=} =~ ^[0-9]+$ ]] && { printf '%s' "${kv#*=}"; return 0; }
    done
    return 1
}

# fabric_stat NAME [SWITCH]: the value of NAME in orca-fabric's statistics
# (hostctl fabric stats), or in those of switch SWITCH ("stats sN"), as it
# is written there (a number, or a word such as a port state).  If the
# request fails or has no NAME, nothing is printed and the status is 1.
fabric_stat() {
    local s kv
    s=$(hostctl fabric stats ${2:+"$2"}) || return 1
    for kv in $s; do
        [[ ${kv%%=*} == "$1" ]] && { printf '%s' "${kv#*=}"; return 0; }
    done
    return 1
}

# res_count WHERE TYPE PATTERN: how many lines of `rdma res show TYPE link
# $dev/1` on this guest (WHERE here) or the other (peer) match the extended
# regular expression PATTERN (bash's =~, no process per line).  A failed
# query never reads as 0: if rdma (or peer) fails, nothing is printed and
# the status is 1.  The caller sets dev:
# shellcheck disable=SC2154
res_count() {
    local c="rdma res show $2 link $dev/1" out n=0 l
    if [[ $1 == here ]]; then out=$($c); else out=$(peer "$c"); fi || return 1
    while IFS= read -r l; do
        [[ $l =~ $3 ]] && n=$((n + 1))
    done <<< "$out"
    printf '%d' "$n"
}

_pair_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib/klog.sh
. "$_pair_lib/klog.sh"
# klog_mark_both MARK: MARK into the kernel log of this guest and the other
klog_mark_both() {
    echo "$1" > /dev/kmsg
    pair_remote && peer "echo '$1' > /dev/kmsg"
}
# klog_oopses_both MARK: klog.sh's klog_oopses here and on the other guest
klog_oopses_both() {
    klog_oopses "$1"
    pair_remote && peer ". $_pair_lib/klog.sh && klog_oopses '$1'"
}
# ok_no_oopses_both MARK: one TAP test (tap.sh's ok): MARK is in the kernel
# log of either guest (else nothing after it was read) and no crash or
# kernel checker report follows it
ok_no_oopses_both() {
    local oops='' m
    dmesg | grep -qF -- "$1" || oops+="the mark '$1' is not in this guest's kernel log"$'\n'
    if pair_remote; then
        m=$(peer "dmesg | grep -cF -- '$1'")
        [[ $m =~ ^[1-9] ]] || oops+="the mark '$1' is not in the other guest's kernel log ($m)"$'\n'
    fi
    oops+=$(klog_oopses_both "$1")
    [[ -z $oops ]]
    ok $? "no kernel warning on either host"
    [[ -z $oops ]] || diag "$oops"
}
