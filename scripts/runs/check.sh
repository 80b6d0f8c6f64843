#!/usr/bin/env bash
# make check / make check-full [ARCH...]: for each tree of CHECK_TREES (the
# Makefile's: every tree, or the TREE given), checkpatch, then our KUnit suites
# on the arches given (x86_64, arm, arm-lpae: 32-bit ARM with LPAE, arm64),
# each but arm-lpae followed by its end-to-end boot (scripts/runs/e2e.sh);
# alongside them, the harness self-test and CI lint (once) and the
# configuration stage of the tier (scripts/runs/configs.sh: "host" is
# tools/testing/scatterlist, um kunit.py's default run on UML); with
# TIER=full, the stage "kcsan" (scripts/runs/kcsan.sh) and, where the
# tree has their set-up, the RFCs of kernel-patches/TREE/rfc/ on their
# arches (scripts/runs/rfc.sh) and the stage "faults"
# (scripts/runs/faults.sh on x86_64 and arm64; "faults-ARCH" on one
# arch); then the results against kunit/plan (with kunit/plan-TREE).
#   TIER=check (make check, the gate): 7.3 on x86_64 and arm, and
#     checkpatch and tools/testing/scatterlist on each tree
#   TIER=full (make check-full): every arch, um and every configuration
#     on each tree, kcsan, and the RFCs and faults where the tree has
#     them (so far 6.1); a CI job runs
#     a part of at most two kernels alone, e.g. ARCH=builds-x86_64,
#     ARCH=rfc-uio-arm64, ARCH=kcsan-base, ARCH=faults-arm64
# With one tree its results go to RESULTS, with more to RESULTS/TREE/.
# The last line is "N passed, N failed, N skipped" over every KUnit run
# of every tree; the exit status is non-zero on any failure.
. "$(dirname "$0")/../common.sh"

# One run at a time writes RESULTS: each first clears the results it is
# about to produce, which would wipe those of another run still going.
# The outermost run takes the lock, once its arguments are known good;
# the runs it starts for each tree (CHECK_MULTI) hold it with it.
lock_results() {
	mkdir -p "$RESULTS"
	[ -z "${CHECK_MULTI:-}" ] || return 0
	exec {results_fd}>>"$RESULTS/.lock"
	flock -n -x "$results_fd" && return 0
	note "waiting for another make check or check-full that writes $RESULTS (lock $RESULTS/.lock)"
	flock -x "$results_fd" || die "could not lock $RESULTS/.lock"
	note "got the lock of $RESULTS"
}

# More than one tree: each in turn, in a run of its own (its own cache,
# series, plan and results), then one closing line over them all.
read -r -a trees <<<"${CHECK_TREES:-$TREE}"
if [ ${#trees[@]} -gt 1 ]; then
	for t in "${trees[@]}"; do
		case " $KNOWN_TREES " in *" $t "*) ;; *) die "unknown tree '$t' in CHECK_TREES; the trees are: $KNOWN_TREES" ;; esac
	done
	# A series given as PATCHES is one tree's
	[ -z "$(printenv PATCHES)" ] || die "PATCHES names one tree's series: give TREE= with it"
	lock_results
	rm -f "$RESULTS/summary.md" "$RESULTS/totals"
	rc=0 common=1 child=
	# Each tree's run in a process group of its own, which an interrupt
	# or a SIGTERM to this script alone (make's, CI's) stops whole: that
	# run's traps then stop its stages.  Its input is /dev/null, as that
	# of a background group must be (see alongside() below).
	stop_tree() {
		[ -n "$child" ] || return 0
		kill -TERM -- -"$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
		child=
	}
	trap 'trap "" INT TERM; stop_tree; echo "interrupted: make check stopped" >&2; exit 130' INT TERM
	trap stop_tree EXIT
	for t in "${trees[@]}"; do
		note "=== tree $t (linux-source-$t), results in $RESULTS/$t ==="
		rm -f "$RESULTS/$t/totals"
		set -m
		CHECK_TREES=$t CHECK_MULTI=1 TREE=$t RESULTS=$RESULTS/$t CHECK_COMMON=$common \
			"$0" "$@" </dev/null &
		child=$!
		set +m
		r=0
		wait "$child" || r=$?
		child=
		[ $r -ne 130 ] || exit 130
		[ $r -eq 0 ] || rc=1
		common=0
	done
	"$TOP/scripts/results/check-results.py" --combine "${trees[@]}" || rc=1
	[ $rc -eq 0 ] || exit 1
	exit 0
fi

export TIER=${TIER:-check}
# The stages of the full tier that only some trees have the set-up for
# (kernel-patches/TREE/rfc/, faults/): tree_has_stage in common.sh.
stages_of_tree() {
	local st
	for st in rfc kcsan faults; do
		! tree_has_stage "$st" || echo "$st"
	done
}
case "$TIER" in
check)
	# The tree the series is written for: its suites and e2e boots on
	# x86_64 and arm; the backports: their checkpatch and
	# tools/testing/scatterlist (their kernels in make check-full)
	[ $# -gt 0 ] || case "$TREE" in
		"$DEFAULT_TREE") set -- x86_64 arm host ;;
		*) set -- host ;;
	esac ;;
full)
	[ $# -gt 0 ] || set -- $SUPPORTED_ARCHES host um configs-x86_64 configs-arm \
		$(stages_of_tree) ;;
*) die "unknown TIER '$TIER' (check or full)" ;;
esac
[ -z "${TOPICS:-}" ] || note "topic series: $(topic_list | tr '\n' ' ')(TOPICS)"
note "tree: $TREE; tier: $TIER ($([ "$TIER" = check ] && echo "make check, the gate" || echo "make check-full, the whole matrix")); runs: $*"
kunit_arches=() config_arches=() runs=() stages=() faults_arches=() faults_all=0
rfc_parts=() kcsan_parts=()
for arch in "$@"; do
	case "$arch" in
	rfc | rfc-* | kcsan | kcsan-* | faults | faults-*)
		[ "$TIER" = full ] || die "$arch is a stage of make check-full, not of make check"
		st=$(stage_of_part "$arch")
		if ! tree_has_stage "$st"; then
			# Asked of every tree: run where it exists
			[ "${CHECK_MULTI:-0}" = 0 ] || { note "$arch: $TREE has no $PNAME/$st/, not run on $TREE"; continue; }
			die "$arch is a stage that TREE=$TREE has no set-up for: there is no $PNAME/$st/ (see docs/reference.md, \"Trees: 7.3 and its backports\")"
		fi ;;
	esac
	case "$arch" in
	# rfc: every RFC; rfc-NAME, rfc-NAME-ARCH: one RFC, on one arch
	rfc | rfc-*) rfc_runs "$arch" >/dev/null; rfc_parts+=("$arch"); continue ;;
	# kcsan: all; kcsan-series, kcsan-rfc-NAME, kcsan-base: the series',
	# an RFC's, the baseline's kernel (scripts/runs/kcsan.sh)
	kcsan | kcsan-series | kcsan-base | kcsan-rfc-*)
		[ "${arch#kcsan-rfc-}" = "$arch" ] || kcsan_rfc_check "$arch"
		kcsan_parts+=("$arch")
		[[ " ${stages[*]} " == *" kcsan "* ]] || stages+=(kcsan)
		continue ;;
	kcsan-*) die "no KCSAN part '$arch' (kcsan, kcsan-series, kcsan-rfc-NAME, kcsan-base)" ;;
	# faults: its default arches; faults-ARCH: those named
	faults | faults-*)
		if [ "$arch" = faults ]; then
			faults_all=1
		else
			check_arch "${arch#faults-}"
			faults_arches+=("${arch#faults-}")
		fi
		[[ " ${stages[*]} " == *" faults "* ]] || stages+=(faults)
		continue ;;
	# The configuration stage (scripts/runs/configs.sh): host
	# (tools/testing/scatterlist), um (kunit.py's default run on UML),
	# configs-ARCH (x86_64 and arm: that run and the builds of the tier),
	# alltests-ARCH (that run alone) and builds-ARCH (the builds alone)
	host | um) config_arches+=("$arch"); continue ;;
	configs-x86_64 | configs-arm)
		[ "$TIER:$arch" != check:configs-arm ] || die "configs-arm is a part of make check-full, not of make check"
		config_arches+=("${arch#configs-}"); continue ;;
	alltests-x86_64 | alltests-arm | builds-x86_64 | builds-arm)
		[ "$TIER" = full ] || die "$arch is a part of make check-full, not of make check"
		config_arches+=("$arch"); continue ;;
	configs-* | alltests-* | builds-*)
		die "no configuration part '$arch' (um, configs-x86_64, configs-arm, alltests-x86_64, alltests-arm, builds-x86_64, builds-arm)" ;;
	esac
	check_arch "$arch"
	kunit_arches+=("$arch") runs+=("$arch")
	case "$arch" in x86_64 | arm | arm64) runs+=("$arch-e2e") ;; esac
done
set -- "${kunit_arches[@]}"
lock_results
printf 'stage\tseconds\texit\n' >"$RESULTS/stages.tsv"
# Before anything else: no result of an earlier run may be read as this
# run's.
for arch in "${runs[@]}"; do
	rm -f "$RESULTS/$arch".{json,log,version,ktap,junit.xml}
	echo "not run: make check stopped before this arch ran" >"$RESULTS/$arch.status"
done
rm -rf "$RESULTS/configs" "$RESULTS/configs.tsv" "$RESULTS/rfc" "$RESULTS/rfc.tsv" "$RESULTS/summary.md"
for s in "${stages[@]}"; do rm -rf "$RESULTS/$s" "$RESULTS/$s.tsv"; done
deps=(um)	# the packages every run needs
for a in "${config_arches[@]}"; do
	a=${a#alltests-}
	[ "$a" = host ] || deps+=("${a#builds-}")
done
deps+=("${rfc_parts[@]}")	# the arches of the RFC runs asked
"$TOP/scripts/trees/deps.sh" "$@" "${deps[@]}"

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
# (Over two trees, the first tree's run runs them: CHECK_COMMON=0.)
common=${CHECK_COMMON:-1}
if [ "$common" = 1 ]; then
	alongside selftest "$TOP/scripts/checks/selftest.sh"
	alongside lint-ci "$TOP/scripts/checks/lint-ci.sh"
fi
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
if [ "$common" = 1 ]; then
	collect selftest || rc=1
	collect lint-ci || rc=1
fi
[ ${#config_arches[@]} -eq 0 ] || collect configs || rc=1
# make check-full where the tree has RFCs (rfc, rfc-NAME[-ARCH]): those of
# kernel-patches/TREE/rfc/ on top of the series (scripts/runs/rfc.sh), after
# the stages that share the tree, as it changes the variants' worktree.
args=(--arch-list "${runs[*]}" --tier "$TIER" --absent-options "$(absent_symbols)")
if [ ${#rfc_parts[@]} -gt 0 ] && [ -z "${TOPICS:-}" ]; then
	stage rfc "$TOP/scripts/runs/rfc.sh" "${rfc_parts[@]}" || rc=1
	args+=(--rfc)
fi
# make check-full: KCSAN (x86_64) and fault injection (x86_64 and arm64,
# or the arch of faults-ARCH), each a kernel of its own per arch
# (scripts/runs/kcsan.sh, scripts/runs/faults.sh).
[ $faults_all = 0 ] || faults_arches=()
for s in "${stages[@]}"; do
	case "$s" in
	faults) stage faults "$TOP/scripts/runs/faults.sh" "${faults_arches[@]}" || rc=1 ;;
	kcsan) stage kcsan "$TOP/scripts/runs/kcsan.sh" "${kcsan_parts[@]}" || rc=1 ;;
	esac
	args+=(--stage "$s")
done
[ $rc -eq 0 ] || echo "error: a stage failed (see above and $RESULTS/stages.tsv)"
"$TOP/scripts/results/check-results.py" "${args[@]}" \
	$([ ${#config_arches[@]} -eq 0 ] || echo --configs) || rc=1
# A stage that failed fails this tree in a run over several (its counts'
# last field)
[ $rc -eq 0 ] || [ ! -f "$RESULTS/totals" ] || sed -i 's/ [01]$/ 1/' "$RESULTS/totals"
exit $rc
