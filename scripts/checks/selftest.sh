#!/usr/bin/env bash
# make selftest: the harness's own tests (scripts/tests/test_harness.py),
# no kernel build.  KTAP is read with kunit.py's parser from the cached
# kernel tree, unpacked first if need be.
. "$(dirname "$0")/../common.sh"

"$TOP/scripts/trees/baseline.sh" >&2
# The runs under test are of 6.1 (test_harness.py sets TREE=6.1), and
# their scripts install 6.1's packages where they are missing: install
# them here, first, so that on a fresh machine no test waits, with a
# deadline, on apt.  LINUX_SOURCE_VERSION belongs to another tree's run.
if [ "$TREE" = 6.1 ]; then
	"$TOP/scripts/trees/deps.sh" x86_64 arm >&2
else
	env -u LINUX_SOURCE_VERSION -u CACHE -u DMATOPICS_CACHE_ROOT TREE=6.1 \
		"$TOP/scripts/trees/deps.sh" x86_64 arm >&2
fi
KUNIT_TOOLS=$SRC/tools/testing/kunit python3 "$TOP/scripts/tests/test_harness.py"
