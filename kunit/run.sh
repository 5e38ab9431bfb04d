#!/bin/bash
# Run the orca KUnit suites on Debian's linux-source-7.3 under QEMU: the
# driver's source is in 7.3's form, in-tree, as the upstream series has it.
#
# The source tree and the build directory live outside the clone, in
# $ORCA_CACHE (default /var/cache/orca), keyed by the source package
# version and the kunitconfig, so a warm run only rebuilds what changed.
# The driver enters the tree as a symlink plus one Kconfig and one
# Makefile line; the UAPI header as a second symlink.  Nothing else in the
# tree is edited.
#
# make soak runs it (make kunit); make check's vm-debug boot loads a KUnit
# build of orca.ko into the 6.1 debug kernel instead (make
# driver-debug-kunit, tests/vm/kunit.sh), which costs no kernel build.
#
# Usage: kunit/run.sh [--json FILE] [extra kunit.py run args...]
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${ORCA_CACHE:-/var/cache/orca}
kunitconfig=$repo/kunit/.kunitconfig
json=

if [ "${1:-}" = "--json" ]; then
	json=$2
	shift 2
fi

src=$("$repo/scripts/linux-src.sh" 7.3)
srcver=$(cat "$src/.orca-srcver")
key=$(printf '%s\n' "$srcver" | cat - "$kunitconfig" | sha256sum | cut -c1-16)
build=$cache/kunit-build-$key

# Hook the driver into the tree (idempotent).
ln -sfn "$repo/drivers/infiniband/hw/orca" "$src/drivers/infiniband/hw/orca"
ln -sfn "$repo/include/uapi/rdma/orca-abi.h" "$src/include/uapi/rdma/orca-abi.h"
grep -q 'hw/orca/Kconfig' "$src/drivers/infiniband/Kconfig" ||
	sed -i 's|^endif # INFINIBAND$|source "drivers/infiniband/hw/orca/Kconfig"\n&|' \
		"$src/drivers/infiniband/Kconfig"
grep -q 'hw/orca/Kconfig' "$src/drivers/infiniband/Kconfig" ||
	{ echo "kunit: could not hook Kconfig" >&2; exit 2; }
grep -q 'CONFIG_INFINIBAND_ORCA' "$src/drivers/infiniband/hw/Makefile" ||
	echo 'obj-$(CONFIG_INFINIBAND_ORCA)	+= orca/' >> "$src/drivers/infiniband/hw/Makefile"

# Objects from a manual out-of-tree build in the source directory would be
# found through VPATH and mistaken for this build's (the Makefile builds
# the module under build/kmod instead).
find "$repo/drivers/infiniband/hw/orca" -maxdepth 1 \( -name '*.o' -o \
	-name '*.ko' -o -name '*.mod' -o -name '*.mod.c' -o -name '.*.cmd' -o \
	-name modules.order \) -delete

# QEMU under TCG, as every guest of the harness (scripts/vm.sh): kunit.py
# asks for "-accel kvm -accel hvf -accel tcg", and where /dev/kvm exists
# but runs no guest (nested virtualisation without it), KVM initialises
# and the kernel never prints: 300 s, then "Could not find any KTAP
# output".  A qemu first in PATH drops the kvm and hvf choices.
qemu=$(command -v qemu-system-x86_64) || { echo "kunit: no qemu-system-x86_64" >&2; exit 2; }
wrap=$(mktemp -d /tmp/orca-kunit-qemu.XXXXXX)
trap 'rm -rf "$wrap"' EXIT
cat > "$wrap/qemu-system-x86_64" <<EOF
#!/bin/bash
args=()
while ((\$#)); do
	if [[ \$1 == -accel && ( \${2:-} == kvm || \${2:-} == hvf ) ]]; then
		shift 2
		continue
	fi
	args+=("\$1")
	shift
done
exec $qemu "\${args[@]}"
EOF
chmod +x "$wrap/qemu-system-x86_64"
export PATH=$wrap:$PATH

args=(run --arch=x86_64 --kunitconfig="$kunitconfig" --build_dir="$build"
      --jobs="$(nproc)" --timeout=300
      --kernel_args=oops=panic --kernel_args=panic=-1)
[ -n "$json" ] && args+=(--json="$json")

cd "$src"
python3 tools/testing/kunit/kunit.py "${args[@]}" "$@"
