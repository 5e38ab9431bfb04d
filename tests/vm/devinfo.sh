#!/bin/bash
# Guest test: the orca device as userspace sees it, against the emulator's
# configuration.  Prints TAP; exit status = number of failures.
#
# Expected values (defaults = orca-emu defaults, see /work/orca-notes or
# emulator docs); `make vmtest` overrides them for the non-default boot:
#   ORCA_EXPECT_FW_VER     (1.4.7)
#   ORCA_EXPECT_NODE_GUID  (0x00ca7afffe000001)
#   ORCA_EXPECT_MAX_QP     (1024)
#   ORCA_EXPECT_LID        (0x11)
#   ORCA_EXPECT_VENDOR_ID  (0x00ca7a)
#   ORCA_DEV               (orca0)
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

dev=${ORCA_DEV:-orca0}
want_fw=${ORCA_EXPECT_FW_VER:-1.4.7}
want_guid=${ORCA_EXPECT_NODE_GUID:-0x00ca7afffe000001}
want_max_qp=$((${ORCA_EXPECT_MAX_QP:-1024}))
want_lid=$((${ORCA_EXPECT_LID:-0x11}))
want_vendor=$((${ORCA_EXPECT_VENDOR_ID:-0x00ca7a}))

# 0x00ca7afffe000001 -> 00ca7afffe000001 (ibv_devices) and 00ca:7aff:fe00:0001 (ibv_devinfo)
g=${want_guid#0x}
g=${g,,}
while ((${#g} < 16)); do g=0$g; done
want_guid_plain=$g
want_guid_colon=${g:0:4}:${g:4:4}:${g:8:4}:${g:12:4}

plan 14

# --- ibv_devices
out=$(ibv_devices 2>&1)
rc=$?
found=0 guid=''
while read -r name gd _; do
    if [[ $name == "$dev" ]]; then found=1 guid=$gd; fi
done <<< "$out"
if ((rc == 0 && found)); then pass "ibv_devices lists $dev"; else fail "ibv_devices lists $dev"; diag "rc=$rc" "$out"; fi
is "$guid" "$want_guid_plain" "ibv_devices shows node GUID $want_guid_plain"

# --- ibv_devinfo -v
t0=$(now_us)
out=$(ibv_devinfo -v -d "$dev" 2> /tmp/devinfo.err)
rc=$?
ok "$rc" "ibv_devinfo -v -d $dev succeeds ($(secs_since "$t0") s)"
((rc == 0)) || diag "$out" "$(< /tmp/devinfo.err)"
declare -A v=()
while IFS= read -r line; do
    [[ $line =~ ^[[:space:]]*([A-Za-z_0-9]+):[[:space:]]*(.*[^[:space:]])[[:space:]]*$ ]] || continue
    k=${BASH_REMATCH[1]}
    [[ -n ${v[$k]+x} ]] || v[$k]=${BASH_REMATCH[2]}
done <<< "$out"

is "${v[fw_ver]:-}" "$want_fw" "fw_ver is $want_fw"
is "${v[node_guid]:-}" "$want_guid_colon" "node_guid is $want_guid_colon"
is "${v[max_qp]:-}" "$want_max_qp" "max_qp is $want_max_qp"
vid=${v[vendor_id]:-none}
if [[ $vid =~ ^(0x)?[0-9a-fA-F]+$ ]] && (( vid == want_vendor )); then
    pass "vendor_id is $(printf '0x%x' "$want_vendor")"
else
    fail "vendor_id is $(printf '0x%x' "$want_vendor")"; diag "got: '$vid'"
fi
is "${v[phys_port_cnt]:-}" "1" "phys_port_cnt is 1"
st=${v[state]:-}
is "${st%% *}" "PORT_ACTIVE" "port 1 state is PORT_ACTIVE"
is "${v[link_layer]:-}" "InfiniBand" "port 1 link_layer is InfiniBand"
lid=${v[port_lid]:-none}
if [[ $lid =~ ^[0-9]+$ ]] && ((lid != 0 && lid == want_lid)); then
    pass "port_lid is $want_lid (non-zero)"
else
    fail "port_lid is $want_lid (non-zero)"; diag "got: '$lid'"
fi
sm=${v[sm_lid]:-none}
if [[ $sm =~ ^[0-9]+$ ]] && ((sm != 0)); then pass "sm_lid is non-zero ($sm)"; else fail "sm_lid is non-zero"; diag "got: '$sm'"; fi
if [[ ${v[active_mtu]:-} == 4096* && ${v[max_mtu]:-} == 4096* ]]; then
    pass "max_mtu and active_mtu are 4096"
else
    fail "max_mtu and active_mtu are 4096"; diag "max_mtu='${v[max_mtu]:-}' active_mtu='${v[active_mtu]:-}'"
fi

# --- rdma tool (netlink)
out=$(rdma dev 2>&1)
rc=$?
if ((rc == 0)) && [[ $out =~ (^|$'\n')[0-9]+:\ $dev: ]]; then
    pass "rdma dev lists $dev"
else
    fail "rdma dev lists $dev"; diag "rc=$rc" "$out"
fi

done_testing
