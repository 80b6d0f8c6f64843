#!/usr/bin/env bash
# The RFCs of kernel-patches/rfc/ (make check-full): each directory holds
# the series of an RFC, patches that go on top of the merge set and are
# never part of it, and "suite", the KUnit suite it changes (a kunit.py
# filter glob: one, as 6.1's kunit.filter_glob takes one).  Each RFC
# is applied to baseline + series in the worktree of the variants
# (variant_build, $CACHE/experiment), built for ARCH with our kunitconfig
# and its runtime checkers, and its suite run there: it must apply and
# build, and every case must pass, none skipped, with no splat.  One line
# per RFC in results/rfc.tsv (the columns of results/configs.tsv), which
# check-results.py --rfc judges.
# usage: scripts/rfc.sh [ARCH]   (default x86_64)
. "$(dirname "$0")/common.sh"

arch=${1:-x86_64}
check_arch "$arch"
out=$RESULTS/rfc
tsv=$RESULTS/rfc.tsv
rm -rf "$out" "$tsv"
mkdir -p "$out"
printf 'config\tarch\tbuilt\tbooted\tpassed\twarnings\tcases\tnote\n' >"$tsv"
record() {	# record CONFIG BUILT BOOTED PASSED CASES NOTE
	printf '%s\t%s\t%s\t%s\t%s\t-\t%s\t%s\n' "$1" "$arch" "$2" "$3" "$4" "$5" "$6" >>"$tsv"
}

lock shared
rc=0
for name in $(rfc_list); do
	n=$out/$name-$arch bd=$CACHE/build/rfc-$name-$arch
	if ! files=$(rfc_files "$name"); then
		record "rfc-$name" no - - - "kernel-patches/rfc/$name: a series or patch is missing (see the stage's output)"
		rc=1
		continue
	fi
	suite=$(grep -v -E '^(#|[[:space:]]*$)' "$PATCHES/rfc/$name/suite" 2>/dev/null || true)
	if [ -z "$suite" ] || [ "$(echo "$suite" | wc -w)" != 1 ]; then
		record "rfc-$name" no - - - "kernel-patches/rfc/$name/suite must name one KUnit suite"
		rc=1
		continue
	fi
	note "$arch: RFC $name on top of the series ($(echo "$files" | wc -l) patch(es)), suite: $suite"
	# shellcheck disable=SC2086 # one patch file per word
	if ! variant_build "rfc-$name" "$arch" $files >"$n.out" 2>&1; then
		record "rfc-$name" no - - - "$(grep -m1 -o 'kernel-patches/.* does not apply to baseline + series' "$n.out" ||
			echo "build failed: see $n.out")"
		rc=1
		continue
	fi
	our_kunit_args "$arch" "$bd"
	rm -f "$bd/test.log"
	(cd "$CACHE/experiment" && PATH=$TOP/scripts/tty:$PATH python3 \
		tools/testing/kunit/kunit.py exec "${KARGS[@]}" --timeout 600 \
		"$suite") >>"$n.out" 2>&1 || true
	if [ ! -f "$bd/test.log" ]; then
		record "rfc-$name" yes no - - "did not boot: see $n.out"
		rc=1
		continue
	fi
	cp "$bd/test.log" "$n.log"
	line=$(PYTHONPATH=$TOP/scripts python3 - "$n.log" "$suite" <<'PY'
import fnmatch, sys
from ktap import SPLAT, parse_cases, status_counts
log = open(sys.argv[1], errors='replace').read()
cases, crashed = parse_cases(log)
counts = status_counts(cases)
problems = [f'{".".join(k)} {s.lower()}' for k, s in sorted(cases.items()) if s != 'SUCCESS']
if not any(fnmatch.fnmatch(k[0], sys.argv[2]) for k in cases):
    problems.append(f'suite {sys.argv[2]} did not run')
if crashed:
    problems.append('the run crashed or timed out')
splat = SPLAT.search(log)
if splat:
    line = log[log.rfind('\n', 0, splat.start()) + 1:].split('\n', 1)[0]
    problems.append(f'splat: {line.strip()[:80]}')
ok = 'no' if problems or not cases else 'yes'
note = '; '.join(problems[:5]) or f'{len(cases)} cases, every one passed'
print('\t'.join([ok, '/'.join(map(str, counts)), note]))
PY
)
	IFS=$'\t' read -r ok cases why <<<"$line"
	record "rfc-$name" yes yes "$ok" "$cases" "$why"
	[ "$ok" = yes ] || rc=1
done
exit $rc
