#!/bin/bash
# Static checks of the kernel driver, as TAP: checkpatch --strict on every
# driver, UAPI and compat file, kernel-doc on every driver and compat
# source, and docutils on its documentation.  The tools are the newest
# kernel's (linux-source-7.3, scripts/guest-kernel.sh), the one the driver
# is written for and its series is submitted to.  (sparse and W=1 -Werror
# run as builds of their own, see the Makefile's lint target.)  A file
# passes only if the tool reports nothing at all.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
src=$("$repo/scripts/guest-kernel.sh" 7.3)/build || exit 2
cd "$repo"

sources=(drivers/infiniband/hw/orca/*.[ch] compat/*.[ch] compat/probes/*.[ch] compat/include/rdma/*.h)
files=("${sources[@]}" drivers/infiniband/hw/orca/Kconfig
       drivers/infiniband/hw/orca/Makefile include/uapi/rdma/orca-abi.h)
n=0 failed=0

check() {	# name, command...
	local name=$1 out
	shift
	n=$((n + 1))
	if out=$("$@" 2>&1) && ! grep -qE "$pattern" <<< "$out"; then
		echo "ok $n - $name"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name"
		sed 's/^/# /' <<< "$out"
	fi
}

pattern='^(ERROR|WARNING|CHECK):'
for f in "${files[@]}"; do
	check "checkpatch --strict $f" \
		"$src/scripts/checkpatch.pl" --strict --no-tree --no-summary \
		--quiet -f "$f"
done
pattern='.'
for f in "${sources[@]}"; do
	check "kernel-doc $f" "$src/scripts/kernel-doc" -none "$f"
done
# the driver's documentation as docutils reads it (what make htmldocs
# would complain of first): any warning or error fails
check "docutils Documentation/infiniband/orca.rst" python3 -c '
import io, sys
import docutils.core
err = io.StringIO()
docutils.core.publish_doctree(open(sys.argv[1]).read(), source_path=sys.argv[1],
    settings_overrides={"warning_stream": err, "report_level": 2})
sys.stdout.write(err.getvalue())' Documentation/infiniband/orca.rst
echo "1..$n"
exit $((failed > 0))
