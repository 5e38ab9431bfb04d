#!/bin/bash
# Write the orca patch series for upstream, with cover letters:
#
#   OUT/linux-7.3/       the kernel driver for Linux 7.3 (linux-rdma), the
#                        newest kernel, the form the driver is written in
#   OUT/rdma-core-v65/   the libibverbs provider for rdma-core v65, the
#                        newest release, the form the provider is written in
#
# usage: scripts/upstream.sh [--out DIR] [--rev REV] [linux|rdma-core|all]
#   --out   default $BUILD/upstream ($BUILD defaults to ./build)
#   --rev   the commit to take the sources from (default HEAD)
# environment:
#   LINUX_SRC      a Linux 7.3 tree to take the base files from instead of
#                  Debian's linux-source-7.3 (scripts/guest-kernel.sh 7.3)
#   RDMA_CORE_SRC  an rdma-core v65 tree to take the base files from
#                  instead of Debian's 65 source (scripts/rdma-core.sh 65)
#
# Everything comes from the committed tree of REV (git archive), never from
# the working tree, so the output is reproducible and uncommitted work does
# not leak into it.  Each series is made in a scratch git repository whose
# base commit holds only the upstream files the series modifies, copied from
# the pristine upstream tree; one commit per patch description in
# scripts/upstream/<series>/NN-*.txt; then git format-patch.  Commit dates
# are REV's, so the same REV gives byte-identical patches.
#
# Patch descriptions: header lines up to the first empty line, then the
# commit message (subject, empty line, body).  Headers:
#   files: PATH...   files of REV, globs allowed, each must match
#   rest: DIR        every file of REV under DIR no earlier patch took
#   map: DEST=SRC    file SRC of REV added as DEST (rdma-core)
#   edit: NAME       a hunk in an upstream file, see edit_* below
# Every file of the series must land in exactly one patch.  The kernel's
# MAINTAINERS entry is the repository's MAINTAINERS file; each patch adds
# the F: lines that cover the files it adds, so the entry grows with them.
#
# rdma-core: the base is the upstream v65 source (the .orig.tarball of
# Debian's rdma-core 65 source package, fetched once into the cache by
# scripts/rdma-core.sh); the series adds the new files (providers/orca,
# kernel-headers/rdma/orca-abi.h) and the hunks in rdma-core's own files
# (CMake lists, driver id, MAINTAINERS, README, packaging).  The provider's
# source is already in PABI 65's form: what older rdma-cores need lives in
# providers/compat/, which the series does not carry.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
up=$repo/scripts/upstream
out=${BUILD:-$repo/build}/upstream
rev=HEAD
what=all
while (($#)); do
	case $1 in
	--out) out=$2; shift 2 ;;
	--rev) rev=$2; shift 2 ;;
	linux|rdma-core|all) what=$1; shift ;;
	*) echo "usage: $0 [--out DIR] [--rev REV] [linux|rdma-core|all]" >&2; exit 2 ;;
	esac
done
case $out in /*) ;; *) out=$PWD/$out ;; esac

die() { echo "upstream: $*" >&2; exit 1; }
edit() { python3 "$up/edit.py" "$@"; }

commit=$(git -C "$repo" rev-parse --verify -q "$rev^{commit}") || die "no commit '$rev'"
short=$(git -C "$repo" rev-parse --short=12 "$commit")
subject=$(git -C "$repo" show -s --format=%s "$commit")
date=$(git -C "$repo" show -s --format=%cI "$commit")

mkdir -p "$out"
work=$(mktemp -d "$out/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/head"
git -C "$repo" archive "$commit" | tar -x -C "$work/head"
H=$work/head

# The kernel MAINTAINERS entry (the repository's MAINTAINERS file) and the
# identity patches are written and signed off by: its first M: line.
[ -s "$H/MAINTAINERS" ] || die "MAINTAINERS missing in $short"
entry_title=$(sed -n '1p' "$H/MAINTAINERS")
ident=$(sed -n 's/^M:\t//p' "$H/MAINTAINERS" | head -n 1)
[[ $ident =~ ^(.+)\ \<(.+)\>$ ]] || die "MAINTAINERS: no 'M:<tab>Name <address>' line"
export GIT_AUTHOR_NAME=${BASH_REMATCH[1]} GIT_AUTHOR_EMAIL=${BASH_REMATCH[2]}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
# The device's name as the Kconfig prompt gives it, for package descriptions.
devname=$(sed -n 's/^[[:space:]]*tristate "\(orca [^"]*\)"$/\1/p' \
	"$H/drivers/infiniband/hw/orca/Kconfig" | head -n 1)
[ -n "$devname" ] || die "no 'tristate \"orca ...\"' prompt in the driver's Kconfig"

# ------------------------------------------------------------------ scratch repo
scratch_init() {	# dir: base commit of the files already in dir
	git -C "$1" init -q
	git -C "$1" add -A
	git -C "$1" commit -q --allow-empty -m base
	git -C "$1" tag base
}

# Parse one patch description into the globals files=() maps=() edits=()
# and msg (commit message, signed off).
parse_desc() {
	local f=$1 line k v hdr=1 words
	files=() rests=() maps=() edits=() msg=
	while IFS= read -r line || [ -n "$line" ]; do
		if ((hdr)); then
			[ -z "$line" ] && { hdr=0; continue; }
			k=${line%%:*} v=${line#*: }
			case $k in
			files) read -ra words <<< "$v"; files+=("${words[@]}") ;;
			rest) rests+=("$v") ;;
			map) maps+=("$v") ;;
			edit) edits+=("$v") ;;
			*) die "$f: unknown header '$k'" ;;
			esac
		else
			msg+=$line$'\n'
		fi
	done < "$f"
	[ -n "$msg" ] || die "$f: no commit message"
	msg+=$'\n'"Signed-off-by: $GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"$'\n'
}

# Copy the files of a description into the scratch tree; claimed[] keeps
# every file to exactly one patch; "rest:" leaves out the files that any
# description names (explicit[], from a first pass).
declare -A claimed explicit
scan_explicit() {	# series dir
	local d g p
	explicit=()
	for d in "$1"/[0-9]*.txt; do
		parse_desc "$d"
		for g in "${files[@]}"; do
			for p in $(cd "$H" && compgen -G "$g" || true); do explicit[$p]=1; done
		done
		for g in "${maps[@]}"; do explicit[${g#*=}]=1; done
	done
}
take() {	# scratch dest src
	local s=$1 dest=$2 src=$3
	[ -f "$H/$src" ] || die "$desc: '$src' is not a file of $short"
	[ -z "${claimed[$src]:-}" ] || die "$desc: '$src' is already in ${claimed[$src]}"
	claimed[$src]=${desc##*/}
	mkdir -p "$(dirname "$s/$dest")"
	cp "$H/$src" "$s/$dest"
}
take_files() {	# scratch
	local s=$1 g p m n
	for g in "${files[@]}"; do
		n=0
		for p in $(cd "$H" && compgen -G "$g" || true); do
			take "$s" "$p" "$p"
			n=$((n + 1))
		done
		((n)) || die "$desc: '$g' matches no file of $short"
	done
	for g in "${rests[@]}"; do
		while IFS= read -r p; do
			[ -n "${claimed[$p]:-}${explicit[$p]:-}" ] || take "$s" "$p" "$p"
		done < <(cd "$H" && find "$g" -type f | sort)
	done
	for m in "${maps[@]}"; do
		take "$s" "${m%%=*}" "${m#*=}"
	done
}

commit_patch() {	# scratch
	git -C "$1" add -A
	git -C "$1" diff --cached --quiet && die "$desc: the patch is empty"
	git -C "$1" commit -q -F - <<< "$msg"
}

# format-patch, then the cover letter's subject and blurb from cover.txt
# (@COMMIT@ @SUBJECT@ @SRCVER@ @MODE@ substituted).
format_series() {	# scratch outdir prefix cover.txt mode-text
	local s=$1 o=$2 prefix=$3 cover=$4 mode=$5
	rm -rf "$o"
	git -C "$s" -c core.abbrev=12 format-patch -q --cover-letter --no-signature \
		--subject-prefix="$prefix" -o "$o" base..HEAD
	COMMIT=$short SUBJECT=$subject SRCVER=${srcver:-} MODE=$mode python3 - "$o"/0000-cover-letter.patch "$cover" <<'PY'
import os, sys
path, cover = sys.argv[1], sys.argv[2]
text = open(cover).read()
for k in ("COMMIT", "SUBJECT", "SRCVER", "MODE"):
    text = text.replace("@%s@" % k, os.environ[k])
title, _, blurb = text.partition("\n\n")
letter = open(path).read()
if "*** SUBJECT HERE ***" not in letter or "*** BLURB HERE ***" not in letter:
    sys.exit("upstream: unexpected cover letter template")
letter = letter.replace("*** SUBJECT HERE ***", title.strip())
letter = letter.replace("*** BLURB HERE ***", blurb.strip())
open(path, "w").write(letter)
PY
}

# ------------------------------------------------------------------ Linux 7.3
linux_base_files=(MAINTAINERS Documentation/infiniband/index.rst drivers/infiniband/Kconfig
		  drivers/infiniband/hw/Makefile include/uapi/rdma/ib_user_ioctl_verbs.h)

# The pristine versions of the files the series modifies: from LINUX_SRC,
# or from Debian's linux-source-7.3 as scripts/guest-kernel.sh unpacked it
# (configuring and preparing that tree changed none of these files).
linux_base() {	# dest
	local d=$1 f src=${LINUX_SRC:-}
	mkdir -p "$d"
	if [ -z "$src" ]; then
		src=$("$repo/scripts/guest-kernel.sh" 7.3)/build || die "no linux-source-7.3 tree"
	fi
	srcver="$(make -s -C "$src" kernelversion 2>/dev/null || echo unknown)"
	for f in "${linux_base_files[@]}"; do
		install -D -m 0644 "$src/$f" "$d/$f"
	done
}

# The orca entry as far as the files present in the scratch tree need it:
# the repository's entry with only the F: lines that match something.
linux_maintainers() {	# scratch
	local s=$1 line pat n=0
	: > "$work/entry"
	while IFS= read -r line; do
		if [[ $line == F:$'\t'* ]]; then
			pat=${line#F:$'\t'}
			if [[ $pat == */ ]]; then [ -d "$s/$pat" ] || continue
			else compgen -G "$s/$pat" > /dev/null || continue
			fi
			n=$((n + 1))
		fi
		[ -n "$line" ] && echo "$line" >> "$work/entry"
	done < "$H/MAINTAINERS"
	((n)) || return 0
	edit sorted-paragraph "$s/MAINTAINERS" '^[A-Z0-9]' "$work/entry" $'^[A-Z]:\t'
}

linux_edit() {	# scratch name
	local s=$1
	case $2 in
	driver-id)
		edit enum-append "$s/include/uapi/rdma/ib_user_ioctl_verbs.h" \
			rdma_driver_id RDMA_DRIVER_ORCA ;;
	build-hooks)
		edit sorted-line "$s/drivers/infiniband/Kconfig" \
			'^source "drivers/infiniband/hw/' 'source "drivers/infiniband/hw/orca/Kconfig"'
		edit after-last "$s/drivers/infiniband/hw/Makefile" \
			'^obj-\$\(CONFIG_' $'obj-$(CONFIG_INFINIBAND_ORCA)\t\t+= orca/' ;;
	doc-index)
		edit sorted-line "$s/Documentation/infiniband/index.rst" \
			'^   [a-z0-9_]+$' '   orca' ;;
	*) die "$desc: unknown edit '$2'" ;;
	esac
}

series_linux() {
	local s=$work/linux e p
	claimed=()
	scan_explicit "$up/linux"
	linux_base "$s"
	scratch_init "$s"
	for desc in "$up"/linux/[0-9]*.txt; do
		parse_desc "$desc"
		take_files "$s"
		for e in "${edits[@]}"; do linux_edit "$s" "$e"; done
		linux_maintainers "$s"
		commit_patch "$s"
	done
	# every file of the driver, its UAPI header and its documentation
	for p in $(cd "$H" && find drivers/infiniband/hw/orca include/uapi/rdma/orca-abi.h \
			Documentation/infiniband/orca.rst -type f | sort); do
		[ -n "${claimed[$p]:-}" ] || die "$p is in no patch of scripts/upstream/linux"
	done
	cmp -s <(grep -v '^$' "$H/MAINTAINERS") \
		<(awk -v t="$entry_title" '$0 == t { p = 1 } p && $0 == "" { exit } p' "$s/MAINTAINERS") ||
		die "the series' MAINTAINERS entry differs from MAINTAINERS"
	format_series "$s" "$out/linux-7.3" PATCH "$up/linux/cover.txt" ""
	echo "upstream: $out/linux-7.3: $(ls "$out/linux-7.3" | wc -l) files (base: linux-source-7.3 $srcver)"
}

# ------------------------------------------------------------------ rdma-core v65
rc_base_files=(CMakeLists.txt kernel-headers/CMakeLists.txt kernel-headers/rdma/ib_user_ioctl_verbs.h
	       MAINTAINERS README.md debian/control debian/copyright redhat/rdma-core.spec
	       suse/rdma-core.spec)

rc_check_src() {
	local v
	[ -f "$RDMA_CORE_SRC/CMakeLists.txt" ] && [ -d "$RDMA_CORE_SRC/providers" ] ||
		die "RDMA_CORE_SRC=$RDMA_CORE_SRC is not an rdma-core tree"
	v=$(sed -n 's/^set(PACKAGE_VERSION "\([0-9.]*\)")$/\1/p' "$RDMA_CORE_SRC/CMakeLists.txt")
	[[ $v == 65.* ]] || die "RDMA_CORE_SRC is rdma-core '$v', not v65"
	rcver=$v
}

rc_edit() {	# scratch name
	local s=$1 blk=$work/block
	case $2 in
	driver-id)
		edit enum-append "$s/kernel-headers/rdma/ib_user_ioctl_verbs.h" \
			rdma_driver_id RDMA_DRIVER_ORCA ;;
	kernel-headers-cmake)
		edit sorted-line "$s/kernel-headers/CMakeLists.txt" '^  rdma/[a-z0-9_-]+\.h$' \
			'  rdma/orca-abi.h' --in '^publish_internal_headers\(rdma$'
		edit sorted-line "$s/kernel-headers/CMakeLists.txt" '^  rdma/[a-z0-9_-]+\.h$' \
			'  rdma/orca-abi.h' --in '^rdma_kernel_provider_abi\($' ;;
	cmake-subdir)
		edit sorted-line "$s/CMakeLists.txt" '^add_subdirectory\(providers/' \
			'add_subdirectory(providers/orca)' --in '^if \(HAVE_COHERENT_DMA\)$' ;;
	maintainers)
		printf 'ORCA USERSPACE PROVIDER (for orca.ko)\nM:\t%s <%s>\nS:\tSupported\nF:\tproviders/orca/\n' \
			"$GIT_AUTHOR_NAME" "$GIT_AUTHOR_EMAIL" > "$blk"
		edit sorted-paragraph "$s/MAINTAINERS" '^[A-Z0-9]' "$blk" $'^[A-Z]:\t' ;;
	readme)
		edit sorted-line "$s/README.md" '^ - [a-z0-9_-]+\.ko$' ' - orca.ko' ;;
	debian)
		edit sorted-line "$s/debian/control" '^  - [a-z0-9_]+: ' "  - orca: $devname"
		# the provider is Linux-OpenIB (BSD-MIT here); orca_hw_io.h BSD-2-Clause
		printf 'Files: providers/orca/*\nCopyright: %s, %s\nLicense: BSD-MIT or GPL-2\n' \
			"${date:0:4}" "$GIT_AUTHOR_NAME" > "$blk"
		edit sorted-paragraph "$s/debian/copyright" '^Files: providers/' "$blk"
		printf 'Files: providers/orca/orca_hw_io.h\nCopyright: %s, %s\nLicense: BSD-2-clause or GPL-2\n' \
			"${date:0:4}" "$GIT_AUTHOR_NAME" > "$blk"
		edit sorted-paragraph "$s/debian/copyright" '^Files: providers/' "$blk" ;;
	redhat)
		edit sorted-line "$s/redhat/rdma-core.spec" '^- lib[a-z0-9_]+: ' "- liborca: $devname" ;;
	suse)
		edit sorted-line "$s/suse/rdma-core.spec" '^- lib[a-z0-9_]+: ' "- liborca: $devname" ;;
	*) die "$desc: unknown edit '$2'" ;;
	esac
}

series_rdma_core() {
	local s=$work/rdma-core e f p mode
	claimed=()
	scan_explicit "$up/rdma-core"
	mkdir -p "$s"
	if [ -z "${RDMA_CORE_SRC:-}" ]; then
		RDMA_CORE_SRC=$("$repo/scripts/rdma-core.sh" 65)/src ||
			die "no rdma-core 65 source (scripts/rdma-core.sh 65)"
	fi
	rc_check_src
	for f in "${rc_base_files[@]}"; do
		install -D -m 0644 "$RDMA_CORE_SRC/$f" "$s/$f"
	done
	mode="Against rdma-core $rcver: the new files and the hunks in rdma-core's
CMake lists, kernel headers, MAINTAINERS, README and packaging."
	scratch_init "$s"
	for desc in "$up"/rdma-core/[0-9]*.txt; do
		parse_desc "$desc"
		take_files "$s"
		for e in "${edits[@]}"; do rc_edit "$s" "$e"; done
		git -C "$s" add -A
		git -C "$s" diff --cached --quiet && die "$desc: the patch is empty"
		commit_patch "$s"
	done
	# one source: every provider file of the project is in the series
	for p in $(cd "$H" && find providers/orca -type f | sort); do
		[ -n "${claimed[$p]:-}" ] || die "$p is in no patch of scripts/upstream/rdma-core"
	done
	format_series "$s" "$out/rdma-core-v65" "PATCH rdma-core" "$up/rdma-core/cover.txt" "$mode"
	echo "upstream: $out/rdma-core-v65: $(ls "$out/rdma-core-v65" | wc -l) files (base: $RDMA_CORE_SRC, rdma-core $rcver)"
}

case $what in
linux) series_linux ;;
rdma-core) series_rdma_core ;;
all) series_linux; series_rdma_core ;;
esac
