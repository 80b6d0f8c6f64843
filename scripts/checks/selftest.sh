#!/usr/bin/env bash
# make selftest: the harness's own tests (scripts/tests/test_harness.py),
# no kernel build.  KTAP is read with kunit.py's parser from the cached
# kernel tree, unpacked first if need be.
. "$(dirname "$0")/../common.sh"

"$TOP/scripts/trees/baseline.sh" >&2
KUNIT_TOOLS=$SRC/tools/testing/kunit python3 "$TOP/scripts/tests/test_harness.py"
