#!/usr/bin/env bash
# make check-full: the KCSAN stage, on x86_64.  The kernel of the series
# with our kunitconfig and arch-qemu-configs/kcsan.config (KCSAN instead
# of KASAN, every other checker kept) runs:
#   x86_64-kcsan       our KUnit suites, among them the concurrent cases
#                      (commands to aac_scsi_cmd() from two CPUs, pages
#                      taken from a node by both CPUs);
#   x86_64-kcsan-e2e   the end-to-end boot (scripts/runs/e2e.sh);
#   rfc-NAME-kcsan     the suite of each RFC of kernel-patches/TREE/rfc/ that
#                      runs on x86_64 (uio: the revoke against faulting
#                      threads), on top of the series;
#   base-kcsan-e2e     the end-to-end boot of the untouched baseline with
#                      the same checkers, for the races that are already
#                      there.
# Each KUnit run must pass as the plan says for x86_64 (an RFC's: every
# case passes), with no splat but KCSAN's reports; each report is judged
# by scripts/results/kcsan-judge.py: a data race whose accesses lie in a file the
# series (or the RFC) changes fails the stage, any other is listed as
# pre-existing, with whether the baseline boot showed the same pair of
# functions.  One line per run in results/kcsan.tsv (the columns of
# results/configs.tsv), each report in results/kcsan-reports.tsv; the logs
# as results/NAME.{log,ktap,junit.xml}.
# PART: "kcsan" (all of the above, the default), "kcsan-series" (the
# series' kernel: its suites and e2e boot), "kcsan-rfc-NAME" (RFC NAME's
# kernel), "kcsan-base" (the baseline's kernel and boot): a kernel and a
# CI job each (two KCSAN kernels take about 45 minutes on two cores,
# cold).  A run judged without the baseline boot marks its reports "no
# baseline run"; make merge-results compares them with that boot's.
# usage: scripts/runs/kcsan.sh [PART...]
. "$(dirname "$0")/../common.sh"

arch=x86_64
# What the parts ask for: the series, the baseline, and which RFCs
[ $# -gt 0 ] || set -- kcsan
series=0 base=0 all=0 rfcs=()
for part in "$@"; do
	case "$part" in
	kcsan) series=1 base=1 all=1 ;;
	kcsan-series) series=1 ;;
	kcsan-base) base=1 ;;
	kcsan-rfc-*)
		kcsan_rfc_check "$part"
		name=${part#kcsan-rfc-}
		[[ " ${rfcs[*]} " == *" $name "* ]] || rfcs+=("$name") ;;
	*) die "unknown part '$part' of the KCSAN stage (kcsan, kcsan-series, kcsan-rfc-NAME, kcsan-base)" ;;
	esac
done

out=$RESULTS/kcsan
tsv=$RESULTS/kcsan.tsv
rm -rf "$out" "$tsv" "$RESULTS/kcsan-reports.tsv"
mkdir -p "$out"
printf 'config\tarch\tbuilt\tbooted\tpassed\twarnings\tcases\tnote\n' >"$tsv"
record() {	# record CONFIG BUILT BOOTED PASSED CASES NOTE
	printf '%s\t%s\t%s\t%s\t%s\t-\t%s\t%s\n' "$1" "$arch" "$2" "$3" "$4" "$5" "$6" >>"$tsv"
}
"$TOP/scripts/trees/deps.sh" "$arch" >/dev/null
# Our x86_64 qemu config boots without panic_on_warn for this stage:
# KCSAN's reports are WARN-level and would panic the kernel.
export DMATOPICS_KCSAN=1
rm -f "$RESULTS"/{base-kcsan-e2e,"$arch"-kcsan,"$arch"-kcsan-e2e,rfc-*-kcsan}.{log,ktap,junit.xml,status}

kc=$out/kcsan.kunitconfig
# with the tree's additions to our kunitconfig (kernel-patches/TREE/kunitconfig)
{ tree_kunitconfig "$TOP/kunitconfig"; cat "$TOP/arch-qemu-configs/kcsan.config"; } >"$kc"

# judge RUN BUILD TREE-COMMIT [--all-pass]: the verdict of results/RUN.log,
# as "OK<TAB>CASES<TAB>NOTE"
judge() {
	local run=$1 bd=$2 commit=$3
	shift 3
	python3 "$TOP/scripts/results/kcsan-judge.py" --run "$run" --vmlinux "$bd/vmlinux" \
		--diff <(cgit diff -U0 baseline "$commit") \
		--baseline "$RESULTS/base-kcsan-e2e.log" "$@"
}

# kunit RUN BUILD KUNITCONFIG [SUITE]: run the KUnit suites of the kernel
# in BUILD (built in the variants' worktree) into results/RUN.log.
kunit() {
	local run=$1 bd=$2
	rm -f "$bd/test.log" "$RESULTS/$run".{log,ktap,junit.xml}
	KUNITCONFIG=$3 our_kunit_args "$arch" "$bd"
	shift 3
	(cd "$CACHE/experiment" && PATH=$TOP/scripts/runs/kunit-path:$PATH python3 \
		tools/testing/kunit/kunit.py exec "${KARGS[@]}" --timeout 1200 "$@") \
		>"$out/$run.out" 2>&1 || true
	[ -f "$bd/test.log" ] || return 1
	cp "$bd/test.log" "$RESULTS/$run.log"
	echo ran >"$RESULTS/$run.status"
	/usr/bin/python3 "$TOP/scripts/results/export-results.py" "$run"
}

# e2e RUN BUILD: the end-to-end boot of the kernel in BUILD
e2e() {
	E2E_NAME=$1 E2E_BUILD=0 E2E_BUILD_DIR=$2 "$TOP/scripts/runs/e2e.sh" "$arch" \
		>"$out/$1.out" 2>&1 || true
	[ -s "$RESULTS/$1.log" ]
}

lock shared
rc=0
# The runs first, then their verdicts: each report is compared with the
# baseline's.  Each run to judge: "RUN BUILD COMMIT JUDGE-ARGS...".
judged=()

bd=$CACHE/build/kcsan-$arch
commit=$("$TOP/scripts/trees/apply.sh" --commit)
if [ $series = 1 ]; then
	note "$arch: the series with KCSAN (build in $bd)"
	if ! KUNITCONFIG=$kc variant_build kcsan "$arch" >"$out/build.out" 2>&1; then
		record kcsan no - - - "build failed: see $out/build.out"
		echo "# complete" >>"$tsv"	# the row says why it stopped
		exit 1
	fi
	if kunit "$arch-kcsan" "$bd" "$kc"; then
		judged+=("kcsan $arch-kcsan $bd $commit --plan $arch")
	else
		record kcsan yes no - - "did not boot: see $out/$arch-kcsan.out"
		rc=1
	fi
	if e2e "$arch-kcsan-e2e" "$bd"; then
		judged+=("kcsan-e2e $arch-kcsan-e2e $bd $commit --plan $arch-e2e")
	else
		record kcsan-e2e yes no - - "did not boot: see $out/$arch-kcsan-e2e.out"
		rc=1
	fi
fi

# The RFCs that run on x86_64 (those asked), each on top of the series.
[ $all = 0 ] || mapfile -t rfcs < <(rfc_list)
for name in "${rfcs[@]}"; do
	dir=$PATCHES/rfc/$name
	[[ " $(rfc_arches "$name") " == *" $arch "* ]] || continue
	run=rfc-$name-kcsan
	if ! files=$(rfc_files "$name"); then
		record "$run" no - - - "$PNAME/rfc/$name: a series or patch is missing"
		rc=1
		continue
	fi
	suite=$(rfc_field "$name" suite)
	if [ -z "$suite" ]; then
		record "$run" no - - - "$PNAME/rfc/$name/suite must name one KUnit suite"
		rc=1
		continue
	fi
	{ cat "$kc"; [ ! -f "$dir/config" ] || cat "$dir/config"; } >"$out/$name.kunitconfig"
	note "$arch: RFC $name with KCSAN, suite $suite"
	# shellcheck disable=SC2086 # one patch file per word
	if ! KUNITCONFIG=$out/$name.kunitconfig variant_build "$run" "$arch" $files \
		>"$out/$run-build.out" 2>&1; then
		record "$run" no - - - "build failed: see $out/$run-build.out"
		rc=1
		continue
	fi
	rbd=$CACHE/build/$run-$arch
	if kunit "$run" "$rbd" "$out/$name.kunitconfig" "$suite"; then
		judged+=("$run $run $rbd $(git -C "$CACHE/experiment" rev-parse HEAD) --all-pass $suite")
	else
		record "$run" yes no - - "did not boot: see $out/$run.out"
		rc=1
	fi
done

# The untouched baseline with the same checkers and our kunitconfig but
# what the baseline does not define (the options the series adds among
# them): its e2e boot.
bb=$CACHE/build/base-kcsan-$arch
if [ $base = 1 ]; then
	base_worktree
	note "$arch: the untouched baseline with KCSAN (build in $bb)"
	grep -E '^CONFIG_|^# CONFIG_.* is not set' "$kc" |
		defined_options "$BASE" >"$out/base.kunitconfig"
	KUNITCONFIG=$out/base.kunitconfig our_kunit_args "$arch" "$bb"
	if ! (cd "$BASE" && PATH=$TOP/scripts/runs/kunit-path:$PATH python3 tools/testing/kunit/kunit.py \
		build --jobs "$(nproc)" "${KARGS[@]}") >"$out/base-build.out" 2>&1; then
		record base-kcsan-e2e no - - - "the baseline did not build: see $out/base-build.out"
		rc=1
	elif ! e2e base-kcsan-e2e "$bb"; then
		record base-kcsan-e2e yes no - - "did not boot: see $out/base-kcsan-e2e.out"
		rc=1
	else
		IFS=$'\t' read -r ok cases why <<<"$(judge base-kcsan-e2e "$bb" baseline --no-baseline)"
		ok=${ok:-no} why=${why:-the judge failed (see the stage output)}
		# Not the series: its cases count in no total.
		record base-kcsan-e2e yes yes "$ok" - "$cases: $why"
		[ "$ok" = yes ] || rc=1
	fi
fi

for j in "${judged[@]}"; do
	read -r row run rbd c args <<<"$j"
	# shellcheck disable=SC2086 # the judge's arguments, one per word
	IFS=$'\t' read -r ok cases why <<<"$(judge "$run" "$rbd" "$c" $args)"
	ok=${ok:-no} cases=${cases:--} why=${why:-the judge failed (see the stage output)}
	record "$row" yes yes "$ok" "$cases" "$why"
	[ "$ok" = yes ] || rc=1
done
echo "# complete" >>"$tsv"
exit $rc
