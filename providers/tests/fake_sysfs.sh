#!/bin/sh
# Run a command against a fake sysfs tree and a fake /dev/infiniband (private
# mount namespace, needs root and unshare -m), so that libibverbs' sysfs
# enumeration finds "RDMA devices" and runs the provider's matching.  Nothing
# outside $FAKE_DIR is modified.  The uverbs nodes are /dev/null (1:3).
#   usage: FAKE_DIR=/abs/dir fake_sysfs.sh cmd args...
set -e
: "${FAKE_DIR:?}"
H=$FAKE_DIR/sys
rm -rf "$H"
mkdir -p "$H/class/infiniband_verbs"
echo 6 > "$H/class/infiniband_verbs/abi_version"

# mkdev uverbsN ibdev driver_abi uevent_driver|-   (- = no device/uevent)
mkdev() {
	u=$H/class/infiniband_verbs/$1
	d=$H/class/infiniband/$2
	mkdir -p "$u" "$d/device"
	echo "$2" > "$u/ibdev"
	echo "1:3" > "$u/dev"
	echo "$3" > "$u/abi_version"
	echo 1 > "$d/node_type"
	echo "0002:c9ff:fe0a:0001" > "$d/node_guid"
	if [ "$4" != - ]; then
		printf 'DRIVER=%s\nPCI_CLASS=50000\nPCI_ID=1AF4:1110\n' "$4" \
			> "$d/device/uevent"
	fi
}
mkdev uverbs0 orca0  1 orca      # name + driver
mkdev uverbs1 ibp0s4 1 orca      # renamed by udev: matched by DRIVER=orca
mkdev uverbs2 orca7  1 otherdrv  # orca-like name, other kernel driver
mkdev uverbs3 orca5  1 -         # parent names no driver: name fallback
mkdev uverbs4 other0 1 otherdrv  # not ours
mkdev uverbs5 orca9  3 orca      # ours, wrong uverbs ABI -> rejected

export SYSFS_PATH=$H
exec unshare -m --propagation private sh -c '
	mount -t tmpfs tmpfs /dev
	mknod -m 666 /dev/null c 1 3
	mkdir /dev/infiniband
	for i in 0 1 2 3 4 5; do mknod -m 666 /dev/infiniband/uverbs$i c 1 3; done
	exec "$@"' sh "$@"
