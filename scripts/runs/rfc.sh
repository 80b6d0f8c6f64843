#!/usr/bin/env bash
# The RFCs of kernel-patches/TREE/rfc/ (make check-full): each directory holds
# the series of an RFC, patches that go on top of the merge set and are
# never part of it, and:
#   suite   the KUnit suite it changes (a kunit.py filter glob: one, as
#           6.1's kunit.filter_glob takes one);
#   arches  (optional) the arches its suite runs on, default x86_64;
#   config  (optional) kconfig lines added to our kunitconfig, for its
#           suite's own option;
#   e2e     (optional) an e2e boot that shows the RFC from a real process:
#           "arch A" (one of its arches), "args WORDS" (kernel command line
#           words, e.g. e2e_uio=1), and "fails-before SUITE.CASE" for each
#           case that shows the bug: it must fail on the series alone and
#           pass with the RFC.
# Each RFC is applied to baseline + series in the worktree of the variants
# (variant_build, $CACHE/experiment), built for each arch with our
# kunitconfig and its runtime checkers, and its suite run there: it must
# apply and build, and every case must pass, none skipped, with no splat.
# Its e2e boots twice: the kernel of the series alone (make kunit's build
# of that arch, $CACHE/build/A, built by e2e.sh unless check-full's arch
# stage has just built it), where exactly the fails-before cases fail, and the RFC's kernel,
# where every case passes; neither may splat.  One line per run in
# results/rfc.tsv (the columns of results/configs.tsv), which
# check-results.py --rfc judges.
# PART: "rfc" (every RFC on each of its arches, the default), "rfc-NAME"
# (that RFC), "rfc-NAME-ARCH" (that RFC on one of its arches: a CI job
# each, e.g. rfc-uio-arm64, whose e2e boots build two kernels).
# usage: scripts/runs/rfc.sh [PART...]
. "$(dirname "$0")/../common.sh"

[ $# -gt 0 ] || set -- rfc
runs=$(rfc_runs "$@") || exit 1
out=$RESULTS/rfc
tsv=$RESULTS/rfc.tsv
rm -rf "$out" "$tsv"
mkdir -p "$out"
printf 'config\tarch\tbuilt\tbooted\tpassed\twarnings\tcases\tnote\n' >"$tsv"
ra=x86_64
record() {	# record CONFIG BUILT BOOTED PASSED CASES NOTE (on arch $ra)
	printf '%s\t%s\t%s\t%s\t%s\t-\t%s\t%s\n' "$1" "$ra" "$2" "$3" "$4" "$5" "$6" >>"$tsv"
}

# Judge a KUnit or e2e log: prints "OK<TAB>CASES<TAB>NOTE".
# usage: judge LOG GLOB [FAILS-BEFORE...]: the cases of suites matching
# GLOB; with FAILS-BEFORE, those cases must fail and every other pass.
judge() {
	PYTHONPATH=$TOP/scripts/results python3 - "$@" <<'PY'
import fnmatch, sys
from ktap import SPLAT, parse_cases, status_counts
log = open(sys.argv[1], errors='replace').read()
glob, before = sys.argv[2], set(sys.argv[3:])
cases, crashed = parse_cases(log)
counts = status_counts(cases)
problems = []
for k, s in sorted(cases.items()):
    name = '.'.join(k)
    want = 'FAILURE' if name in before else 'SUCCESS'
    if s != want:
        problems.append(f'{name} {s.lower()}' + (' (it shows the bug: it must fail)' if before and want == 'FAILURE' else ''))
problems += [f'{b} did not run' for b in sorted(before)
             if tuple(b.split('.', 1)) not in cases]
if not any(fnmatch.fnmatch(k[0], glob) for k in cases):
    problems.append(f'suite {glob} did not run')
if crashed:
    problems.append('the run crashed or timed out')
splat = SPLAT.search(log)
if splat:
    line = log[log.rfind('\n', 0, splat.start()) + 1:].split('\n', 1)[0]
    problems.append(f'splat: {line.strip()[:80]}')
ok = 'no' if problems or not cases else 'yes'
note = '; '.join(problems[:5]) or (
    f'{len(cases)} cases: the {len(before)} that show the bug failed, the others passed'
    if before else f'{len(cases)} cases, every one passed')
print('\t'.join([ok, '/'.join(map(str, counts)), note]))
PY
}

# The e2e boot of RFC NAME on ARCH, of the kernel in build directory BD
# (WHEN: before or after the RFC).  usage: rfc_e2e NAME ARCH WHEN BD
rfc_e2e() {
	local name=$1 when=$2 bd=$3 e2e=$PATCHES/rfc/$1/e2e en line ok cases why
	local args before=() build=0
	args=$(sed -n 's/^args //p' "$e2e")
	[ "$when" = before ] && mapfile -t before < <(sed -n 's/^fails-before //p' "$e2e")
	en=rfc-$name-e2e-$when-$ra
	# Before: the series' own kernel of that arch, which e2e.sh builds
	# (make, nothing to do when the arch stage has built it; a CI job
	# of the RFCs alone has not)
	[ "$when" = after ] || build=1
	if [ $build = 0 ] && [ ! -f "$bd/.config" ]; then
		record "rfc-$name-e2e-$when" no - - - "no kernel in $bd"
		return 1
	fi
	note "$ra: e2e boot of RFC $name, $when it ($args)"
	# Without the harness's KUnit modules (e2e-kmod): they check the
	# harness's set-up, not what the RFC changes.
	E2E_NAME=$en E2E_BUILD=$build E2E_BUILD_DIR=$bd E2E_ARGS=$args E2E_KMOD=0 \
		"$TOP/scripts/runs/e2e.sh" "$ra" >"$out/$en.out" 2>&1 || true
	if [ ! -s "$RESULTS/$en.log" ]; then
		record "rfc-$name-e2e-$when" "$([ $build = 1 ] && echo - || echo yes)" no - - \
			"did not $([ $build = 1 ] && echo "build or ")boot: see $out/$en.out"
		return 1
	fi
	line=$(judge "$RESULTS/$en.log" 'e2e_*' "${before[@]}")
	IFS=$'\t' read -r ok cases why <<<"$line"
	# The kernel without the RFC is not one the series ships: its cases
	# (passed/failed/skipped in the note) count in no total.
	[ "$when" = after ] || { why="$cases: $why"; cases=-; }
	record "rfc-$name-e2e-$when" yes yes "$ok" "$cases" "$why"
	[ "$ok" = yes ]
}

lock shared
rc=0
for name in $(echo "$runs" | cut -d' ' -f1 | uniq); do
	dir=$PATCHES/rfc/$name
	ra=$(echo "$runs" | sed -n "s/^$name //p" | head -n 1)
	if ! files=$(rfc_files "$name"); then
		record "rfc-$name" no - - - "$PNAME/rfc/$name: a series or patch is missing (see the stage's output)"
		rc=1
		continue
	fi
	suite=$(rfc_field "$name" suite)
	if [ -z "$suite" ] || [ "$(echo "$suite" | wc -w)" != 1 ]; then
		record "rfc-$name" no - - - "$PNAME/rfc/$name/suite must name one KUnit suite"
		rc=1
		continue
	fi
	arches=$(rfc_arches "$name")
	e2e_arch=$(sed -n 's/^arch //p' "$dir/e2e" 2>/dev/null || true)
	if [ -f "$dir/e2e" ] && [[ " $arches " != *" $e2e_arch "* ]]; then
		record "rfc-$name-e2e" no - - - "$PNAME/rfc/$name/e2e: arch '$e2e_arch' is not one of its arches ($arches)"
		rc=1
		continue
	fi
	kc=$out/$name.kunitconfig
	# with the tree's additions (kernel-patches/TREE/kunitconfig)
	{ tree_kunitconfig "$TOP/kunitconfig"; [ ! -f "$dir/config" ] || cat "$dir/config"; } >"$kc"
	for ra in $(echo "$runs" | sed -n "s/^$name //p"); do
		check_arch "$ra"
		n=$out/$name-$ra bd=$CACHE/build/rfc-$name-$ra
		note "$ra: RFC $name on top of the series ($(echo "$files" | wc -l) patch(es)), suite: $suite"
		# shellcheck disable=SC2086 # one patch file per word
		if ! KUNITCONFIG=$kc variant_build "rfc-$name" "$ra" $files >"$n.out" 2>&1; then
			record "rfc-$name" no - - - "$(grep -m1 -o "$PNAME/.* does not apply to baseline + series" "$n.out" ||
				echo "build failed on $ra: see $n.out")"
			rc=1
			continue
		fi
		KUNITCONFIG=$kc our_kunit_args "$ra" "$bd"
		rm -f "$bd/test.log"
		(cd "$CACHE/experiment" && PATH=$TOP/scripts/runs/kunit-path:$PATH python3 \
			tools/testing/kunit/kunit.py exec "${KARGS[@]}" --timeout 600 \
			"$suite") >>"$n.out" 2>&1 || true
		if [ ! -f "$bd/test.log" ]; then
			record "rfc-$name" yes no - - "did not boot on $ra: see $n.out"
			rc=1
			continue
		fi
		cp "$bd/test.log" "$n.log"
		IFS=$'\t' read -r ok cases why <<<"$(judge "$n.log" "$suite")"
		record "rfc-$name" yes yes "$ok" "$cases" "$why"
		[ "$ok" = yes ] || rc=1
		[ "$ra" = "$e2e_arch" ] || continue
		rfc_e2e "$name" before "$CACHE/build/$ra" || rc=1
		rfc_e2e "$name" after "$bd" || rc=1
	done
done
echo "# complete" >>"$tsv"
exit $rc
