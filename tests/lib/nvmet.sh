# shellcheck shell=bash
# NVMe over RDMA for the guest tests and the bench (tests/vm/nvme.sh,
# teardown.sh, tests/bench/ulp.sh).  Source it.
#   nvmet_up_line NQN FILE SIZE SVCID PORTID:ADDR...
#       one shell line (for tests/lib/peer) that loads nvmet-rdma and
#       makes subsystem NQN, its namespace 1 a SIZE file FILE (tmpfs,
#       so buffered_io), and port PORTID on ADDR:SVCID for each
#       PORTID:ADDR, linked to it
#   nvmet_down_line NQN FILE PORTID...
#       the line that takes all of that down and unloads nvmet-rdma
#   nvme_ns_of NQN
#       this guest's block device of NQN's namespace: under its NVMe
#       subsystem (with native multipath a controller's nvmeXcYnZ is a
#       path, not a device); status 1 and nothing if there is none
NVMET_CFS=/sys/kernel/config/nvmet

nvmet_up_line() {
    local nqn=$1 file=$2 size=$3 svc=$4 pa
    local s=$NVMET_CFS/subsystems/$nqn l
    shift 4
    l="set -e; modprobe nvmet-rdma; mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config;"
    l+=" truncate -s $size $file; mkdir $s; echo 1 > $s/attr_allow_any_host; mkdir $s/namespaces/1;"
    l+=" echo $file > $s/namespaces/1/device_path; echo 1 > $s/namespaces/1/buffered_io;"
    l+=" echo 1 > $s/namespaces/1/enable;"
    for pa; do
        local p=$NVMET_CFS/ports/${pa%%:*}
        l+=" mkdir $p; echo rdma > $p/addr_trtype; echo ipv4 > $p/addr_adrfam;"
        l+=" echo ${pa#*:} > $p/addr_traddr; echo $svc > $p/addr_trsvcid; ln -s $s $p/subsystems/$nqn;"
    done
    printf '%s' "$l"
}

nvmet_down_line() {
    local nqn=$1 file=$2 s=$NVMET_CFS/subsystems/$1 l='' id
    shift 2
    for id; do
        l+="rm -f $NVMET_CFS/ports/$id/subsystems/$nqn; rmdir $NVMET_CFS/ports/$id; "
    done
    l+="echo 0 > $s/namespaces/1/enable; rmdir $s/namespaces/1 $s; rm -f $file; modprobe -r nvmet-rdma nvmet"
    printf '%s' "$l"
}

nvme_ns_of() {
    local s n
    for s in /sys/class/nvme-subsystem/*; do
        [[ -e $s/subsysnqn && $(< "$s/subsysnqn") == "$1" ]] || continue
        for n in "$s"/nvme*n*; do
            [[ -b /dev/${n##*/} ]] && printf '/dev/%s' "${n##*/}" && return 0
        done
    done
    return 1
}
