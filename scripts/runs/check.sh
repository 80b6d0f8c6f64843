#!/usr/bin/env bash
# make check / make check-full [ARCH...]: checkpatch and lint-ci, then our
# KUnit suites on the arches given (x86_64, arm, arm-lpae: 32-bit ARM with
# LPAE, arm64), each but arm-lpae followed by its end-to-end boot
# (scripts/runs/e2e.sh); alongside them, the harness self-test and the
# configuration stage of the tier (scripts/runs/configs.sh); with TIER=full,
# the RFCs of kernel-patches/6.1/rfc/ on x86_64 (scripts/runs/rfc.sh), and the
# stages "kcsan" (scripts/runs/kcsan.sh) and "faults" (scripts/runs/faults.sh on
# x86_64 and arm64; "faults-ARCH" on one arch); then the results against
# kunit/plan.  TIER=check (make check, the gate; default arches x86_64 arm
# um) or TIER=full (make check-full; default every arch, um, kcsan and
# faults; a CI job runs each alone, e.g. ARCH=kcsan, ARCH=faults-arm64).
# The last line is "N passed, N failed, N skipped" over every KUnit run;
# the exit status is non-zero on any failure.
. "$(dirname "$0")/../common.sh"

export TIER=${TIER:-check}
# The tiers are 6.1's until the 6.12 port covers them (README, "Two
# trees"): there is no 6.12 baseline of kunit.py's default run yet, and
# no 6.12 RFC, fault-stage or KCSAN set-up.
[ "$TREE" = 6.1 ] || die "make check and make check-full cover TREE=6.1 only, for now; on $TREE: make kunit TREE=$TREE [ARCH=...]"
case "$TIER" in
check) [ $# -gt 0 ] || set -- x86_64 arm um ;;
full) [ $# -gt 0 ] || set -- $SUPPORTED_ARCHES um kcsan faults ;;
*) die "unknown TIER '$TIER' (check or full)" ;;
esac
[ -z "${TOPICS:-}" ] || note "topic series: $(topic_list | tr '\n' ' ')(TOPICS)"
note "tier: $TIER ($([ "$TIER" = check ] && echo "make check, the gate" || echo "make check-full, the whole matrix")), arches: $*"
kunit_arches=() config_arches=() runs=() stages=() faults_arches=() faults_all=0
for arch in "$@"; do
	case "$TIER:$arch" in
	full:kcsan) stages+=("$arch"); continue ;;
	# faults: its default arches; faults-ARCH: those named
	full:faults | full:faults-*)
		if [ "$arch" = faults ]; then
			faults_all=1
		else
			check_arch "${arch#faults-}"
			faults_arches+=("${arch#faults-}")
		fi
		[[ " ${stages[*]} " == *" faults "* ]] || stages+=(faults)
		continue ;;
	check:kcsan | check:faults | check:faults-*) die "$arch is a stage of make check-full, not of make check" ;;
	esac
	[ "$arch" = um ] || check_arch "$arch"
	case "$arch" in x86_64 | arm | arm-lpae | arm64) kunit_arches+=("$arch") runs+=("$arch") ;; esac
	case "$arch" in x86_64 | arm | arm64) runs+=("$arch-e2e") ;; esac
	# Configurations: make check on UML and x86_64, make check-full also
	# on arm (scripts/runs/configs.sh says which of them each tier builds).
	case "$TIER:$arch" in *:um | *:x86_64 | full:arm) config_arches+=("$arch") ;; esac
done
set -- "${kunit_arches[@]}"
mkdir -p "$RESULTS"
printf 'stage\tseconds\texit\n' >"$RESULTS/stages.tsv"
# Before anything else: no result of an earlier run may be read as this
# run's.
for arch in "${runs[@]}"; do
	rm -f "$RESULTS/$arch".{json,log,version,ktap,junit.xml}
	echo "not run: make check stopped before this arch ran" >"$RESULTS/$arch.status"
done
rm -rf "$RESULTS/configs" "$RESULTS/configs.tsv" "$RESULTS/rfc" "$RESULTS/rfc.tsv" "$RESULTS/summary.md"
for s in "${stages[@]}"; do rm -rf "$RESULTS/$s" "$RESULTS/$s.tsv"; done
"$TOP/scripts/trees/deps.sh" "$@" "${config_arches[@]}"

stage() {	# stage NAME COMMAND...: run and time one stage
	local t0=$SECONDS name=$1 rc=0
	shift
	"$@" || rc=$?
	[ $rc -eq 130 ] && interrupted
	printf '%s\t%s\t%s\n' "$name" $((SECONDS - t0)) "$rc" >>"$RESULTS/stages.tsv"
	note "stage $name: $((SECONDS - t0)) s"
	return $rc
}

declare -A bg	# the stages run alongside and not yet collected: name -> pgid
stop_alongside() {
	local p
	for p in "${bg[@]}"; do kill -TERM -- -"$p" 2>/dev/null || true; done
}
interrupted() {
	trap '' INT TERM
	stop_alongside
	echo "interrupted: make check stopped" >&2
	exit 130
}
trap interrupted INT TERM
trap stop_alongside EXIT	# none is left running, whatever stops this script

# alongside NAME [nice] COMMAND...: run a stage alongside the arch loop,
# in a process group of its own (stopped with this script), niced if asked
# so that the loop's boots, which have timeouts, keep the CPUs; its output
# goes to results/NAME.out and is shown by collect when it ends.  Its
# input is /dev/null: a background process group that touches the
# terminal (kunit.py's "stty sane") is stopped by SIGTTOU.
alongside() {
	local name=$1
	shift
	[ "$1" != nice ] || set -- nice -n 10 "${@:2}"
	set -m
	{ bg=(); stage "$name" "$@"; } </dev/null >"$RESULTS/$name.out" 2>&1 &
	bg[$name]=$!
	set +m
	note "stage $name: started alongside, its output in $RESULTS/$name.out"
}

collect() {	# collect NAME: wait for a stage run alongside, show its output
	local rc=0
	wait "${bg[$1]}" || rc=$?
	unset "bg[$1]"
	note "stage $1: its output"
	cat "$RESULTS/$1.out" >&2
	[ $rc -eq 130 ] && interrupted
	return $rc
}

rc=0
# The self-test works in directories of its own (it is light, and its
# lock tests wait for processes it starts: not niced), lint-ci reads the
# CI files, and the configuration stage shares nothing with the arch loop
# but the patched tree (apply.sh's lock) and ccache.  (Two arch loops side
# by side were slower: four vCPU threads on two cores.)
alongside selftest "$TOP/scripts/checks/selftest.sh"
alongside lint-ci "$TOP/scripts/checks/lint-ci.sh"
[ ${#config_arches[@]} -eq 0 ] ||
	alongside configs nice "$TOP/scripts/runs/configs.sh" "${config_arches[@]}"
stage checkpatch "$TOP/scripts/checks/checkpatch.sh" || rc=1
for arch in "$@"; do
	note "=== $arch ==="
	stage "kunit-$arch" "$TOP/scripts/runs/run-kunit.sh" "$arch" || rc=1
	# The end-to-end boot of the kernel that stage built (x86_64, arm,
	# arm64: arm-lpae's kernel is arm's with LPAE and HIGHMEM).
	case "$arch" in x86_64 | arm | arm64)
		stage "e2e-$arch" env E2E_BUILD=0 "$TOP/scripts/runs/e2e.sh" "$arch" || rc=1 ;;
	esac
done
collect selftest || rc=1
collect lint-ci || rc=1
[ ${#config_arches[@]} -eq 0 ] || collect configs || rc=1
# make check-full, where it runs x86_64: the RFCs of kernel-patches/6.1/rfc/
# on top of the series (scripts/runs/rfc.sh), after the stages that share the
# tree, as it changes the variants' worktree.
args=(--arch-list "${runs[*]}" --tier "$TIER" --absent-options "$(absent_symbols)")
if [ "$TIER" = full ] && [[ " $* " == *" x86_64 "* ]] && [ -z "${TOPICS:-}" ]; then
	stage rfc "$TOP/scripts/runs/rfc.sh" x86_64 || rc=1
	args+=(--rfc)
fi
# make check-full: KCSAN (x86_64) and fault injection (x86_64 and arm64,
# or the arch of faults-ARCH), each a kernel of its own per arch
# (scripts/runs/kcsan.sh, scripts/runs/faults.sh).
[ $faults_all = 0 ] || faults_arches=()
for s in "${stages[@]}"; do
	case "$s" in
	faults) stage faults "$TOP/scripts/runs/faults.sh" "${faults_arches[@]}" || rc=1 ;;
	*) stage "$s" "$TOP/scripts/runs/$s.sh" || rc=1 ;;
	esac
	args+=(--stage "$s")
done
[ $rc -eq 0 ] || echo "error: a stage failed (see above and $RESULTS/stages.tsv)"
"$TOP/scripts/results/check-results.py" "${args[@]}" \
	$([ ${#config_arches[@]} -eq 0 ] || echo --configs) || rc=1
exit $rc
