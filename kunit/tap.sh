#!/bin/bash
# make kunit's stage: run kunit/run.sh (its log goes to stderr) and print
# one TAP line per KUnit case from its JSON results.  (make check runs the
# same suites in its vm-debug boot instead, tests/vm/kunit.sh, which names
# the cases the same way: "kunit <suite>.<case>".)  A build error or
# a crash before any result leaves no test lines and a non-zero status,
# which the aggregator counts as a failure.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
json=$(mktemp /tmp/orca-kunit.XXXXXX.json)
trap 'rm -f "$json"' EXIT

"$repo/kunit/run.sh" --json "$json" "$@" >&2
rc=$?
[ -s "$json" ] || { echo "kunit: no results (exit $rc)" >&2; exit $((rc ? rc : 1)); }

python3 - "$json" <<'PY' || rc=1
import json, sys

n = 0
def walk(group, path):
    global n
    for case in group.get("test_cases", []):
        n += 1
        status = case.get("status", "FAIL")
        name = "%s.%s" % (path, case["name"]) if path else case["name"]
        if status == "PASS":
            print("ok %d - kunit %s" % (n, name))
        elif status == "SKIPPED":
            print("ok %d - kunit %s # SKIP" % (n, name))
        else:
            print("not ok %d - kunit %s (%s)" % (n, name, status))
    for sub in group.get("sub_groups", []):
        walk(sub, sub["name"])

walk(json.load(open(sys.argv[1])), "")
if not n:
    # no case ran (a kernel that never printed KTAP): a failure, not a skip
    n = 1
    print("not ok 1 - kunit: no test case ran (kunit.py's log above)")
print("1..%d" % n)
PY
exit "$rc"
