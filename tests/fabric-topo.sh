#!/bin/bash
# The topology tools of make bench's fabric rows, on the host:
#  - scripts/fattree.py CAS: the shape its doc promises, counted here from
#    the numbers alone (leaves of D CA ports, D / 2 spines, one cable from
#    each leaf to each spine, every CA in a leaf, no port used twice);
#  - orca-fabric loads it: its switches and links, as `stats` counts them;
#  - scripts/topo2ibnet.py: the same nodes and cables in ibsim's format,
#    each cable listed from both ends; and the real OpenSM over ibsim
#    (tests/bench/ibsim.sh) brings that subnet up with ftree, which
#    needs the CAs on the leaves and the spines above them.
# Prints TAP; exit status = number of failures.
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
# shellcheck source=tests/lib/tap.sh
. "$REPO/tests/lib/tap.sh"
BUILD=${BUILD:-$REPO/build}
tmp=$(mktemp -d)
fpid=
trap '[[ -n $fpid ]] && kill "$fpid" 2> /dev/null; rm -rf "$tmp"' EXIT
plan 11

# shape CAS DOWN: "leaves spines links cas" as fattree.py's doc says
shape() { local l=$(((($1) + $2 - 1) / $2)) s=$(($2 / 2)); echo "$l $s $((l * s)) $1"; }
counts() {  # counts TOPO: the same, read from the file
    awk '/^switch leaf/ { l++ } /^switch spine/ { s++ } /^link / { k++ } /^ca / { c++ }
         END { print l + 0, s + 0, k + 0, c + 0 }' "$1"
}
# every port at most once; every ca in a leaf; every link leaf to spine
sound() {
    awk '/^(link|ca) / { for (i = 2; i <= NF; i++) if ($i ~ /:/) { if (u[$i]++) bad = bad " twice:" $i } }
         /^ca / && $3 !~ /^leaf/ { bad = bad " ca-off-leaf:" $3 }
         /^link / && !($2 ~ /^leaf/ && $3 ~ /^spine/) { bad = bad " link:" $2 "-" $3 }
         END { print bad; exit bad != "" }' "$1"
}

for spec in "17 8" "200 16" "1025 32"; do
    read -r cas down <<< "$spec"
    "$REPO/scripts/fattree.py" "$cas" --first 0x00ca7afffe0000a2 > "$tmp/t$cas" 2> "$tmp/err"
    got=$(counts "$tmp/t$cas") want=$(shape "$cas" "$down")
    bad=$(sound "$tmp/t$cas")
    [[ $got == "$want" && -z $bad ]] && grep -q '^ca 0x00ca7afffe0000a2 leaf1:1$' "$tmp/t$cas"
    ok $? "fattree.py $cas: leaves spines links CAs $got (want $want), the first CA in leaf1:1, every port once${bad:+:$bad}"
done

# orca-fabric takes the largest; its stats count what it built
sock=$tmp/f.sock ctl=$tmp/f.ctl
"$BUILD/orca-fabric" --socket "$sock" --ctl "$ctl" --sm none --topology "$tmp/t1025" &
fpid=$!
for ((i = 0; i < 100; i++)); do [[ -S $ctl ]] && break; sleep 0.1; done
s=$("$BUILD/orca-emu" --ctl-send "$ctl" stats 2> /dev/null)
read -r l sp k _ <<< "$(shape 1025 32)"
[[ $s == *" switches=$((l + sp)) links=$k "* ]]
ok $? "orca-fabric --topology (fattree.py 1025): $(grep -o 'switches=[0-9]* links=[0-9]*' <<< "$s")"
s=$("$BUILD/orca-emu" --ctl-send "$ctl" "stats spine16" 2> /dev/null)
[[ $s == *" switch_ports=$l "* ]]
ok $? "its spine16 has a port for each of the $l leaves: $(grep -o 'switch_ports=[0-9]*' <<< "$s")"
kill "$fpid"
wait "$fpid"
fpid=

# the converter: nodes, and each cable from both ends
for cas in 17 1025; do
    "$REPO/scripts/topo2ibnet.py" "$tmp/t$cas" > "$tmp/n$cas" 2> "$tmp/err"
    rc=$?
    read -r l sp k c <<< "$(counts "$tmp/t$cas")"
    nsw=$(grep -c '^Switch' "$tmp/n$cas") nca=$(grep -c '^Ca' "$tmp/n$cas")
    ((rc == 0 && nsw == l + sp && nca == c))
    ok $? "topo2ibnet.py of fattree.py $cas: $nsw switches, $nca CAs (want $((l + sp)), $c)"
    # the cables as ibsim reads them: "S-x"[p] -- "S-y"[q], each sorted,
    # from the switch sections; every topology link is there twice
    awk '/^Switch/ { match($0, /"S-[0-9a-f]+"/); me = substr($0, RSTART, RLENGTH) }
         /^Switch/, /^$/ { if ($0 ~ /^\[[0-9]+\]\t"S-/) { p = $1; gsub(/[][]/, "", p)
             match($0, /"S-[0-9a-f]+"\[[0-9]+\]/); peer = substr($0, RSTART, RLENGTH)
             a = me "[" p "]"; print (a < peer ? a " " peer : peer " " a) } }' "$tmp/n$cas" |
        sort | uniq -c > "$tmp/cables"
    both=$(awk '$1 == 2' "$tmp/cables" | wc -l) all=$(wc -l < "$tmp/cables")
    ((both == k && all == k))
    ok $? "  its $k cables each listed from both ends: $both of $all"
done

# OpenSM over ibsim on it: SUBNET UP, with ftree
if command -v ibsim > /dev/null; then
    out=$(IBSIM_BENCH_BOUND=120 "$REPO/tests/bench/ibsim.sh" "$tmp/n1025" 2> "$tmp/err")
    up=$(sed -n 's/^subnet_up_s=//p' <<< "$out") eng=$(sed -n 's/^routing_engine_used=//p' <<< "$out")
    [[ -n $up && $eng == ftree ]]
    ok $? "OpenSM over ibsim on it (tests/bench/ibsim.sh): SUBNET UP after ${up:-never} s, routing engine $eng"
    ((rc)) || [[ -n $up ]] || diag "$(tail -n 5 "$tmp/err")"
    sweep=$(sed -n 's/^heavy_sweep_s=//p' <<< "$out")
    [[ -n $sweep ]]
    ok $? "  and a heavy sweep on SIGHUP ended with SUBNET UP after ${sweep:-never} s"
else
    ok 1 "OpenSM over ibsim: no ibsim (ibsim-utils; make deps)"
    ok 1 "  and a heavy sweep: no ibsim"
fi
done_testing
