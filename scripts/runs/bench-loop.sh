#!/usr/bin/env bash
# Measure the edit-build-run loop (a benchmark, not a test: nothing is
# asserted).  Wall time of:
#   make check     every tree (CHECK_TREES, as .ci/run), nothing changed,
#                  and one patch changed (a comment line in the last patch
#                  of TREE's series that adds a file, edited in a scratch
#                  copy of kernel-patches/TREE; the repository is not
#                  touched; that run checks TREE alone);
#                  with BENCH_COLD=1 also cold: an empty cache of its own
#                  (packages installed), which takes about an hour here;
#                  BENCH_COLD=only measures that row alone.  The cold
#                  cache is a scratch directory, or BENCH_COLD_CACHE
#                  (emptied first, and kept warm afterwards: give it
#                  $CACHE to measure and warm the real cache at once)
#   make check-full  with BENCH_FULL=all: cold, the whole matrix; with
#                  BENCH_FULL="ARCH...": cold, each "make check-full
#                  ARCH=x" alone (a CI matrix job), each in an empty cache
#                  of its own (these rows alone: hours)
#   per arch       build + QEMU run of "make kunit" for ARCH...: cold with
#                  no ccache, cold with the warm ccache, unchanged, one
#                  patch changed (BENCH_ARCHES=0 skips them)
# The table goes to stdout and results/bench-loop.md; the stage times of
# each make check to results/bench-loop-stages-*.tsv.  Cold runs throw
# the build directory away.
#
# usage: scripts/runs/bench-loop.sh [ARCH...]
. "$(dirname "$0")/../common.sh"

[ $# -gt 0 ] || set -- x86_64 arm
mkdir -p "$RESULTS"
out=$RESULTS/bench-loop.md
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

secs() {	# secs LOG COMMAND...: wall seconds of one command
	local log=$1 t0=$SECONDS
	shift
	"$@" >"$log" 2>&1 || echo "warning: '$*' failed, see $log" >&2
	echo $((SECONDS - t0))
}

# A copy of the series whose last new-file patch has one comment changed.
cp -r "$PATCHES" "$scratch/patches"
victim=$(grep -l '^new file mode' "$scratch"/patches/*/*.patch | grep -v /experiments/ | tail -n 1)
[ -n "$victim" ] || die "no patch adds a file; nothing to change"
sed -i '0,/^+ \* /s//+ * (bench-loop edit) /' "$victim"

check_row() {	# check_row LABEL [env...] [-- ARCH...]: one make check, its stages kept
	local label=$1 s envs=() args=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	[ $# -eq 0 ] || { shift; args=("$@"); }
	note "make check: $label"
	s=$(secs "$scratch/check-$label.log" env CHECK_TREES="$DEFAULT_TREE $(echo " $KNOWN_TREES " | sed "s/ $DEFAULT_TREE / /")" "${envs[@]}" \
		RESULTS="$scratch/r-$label" "$TOP/scripts/runs/check.sh" "${args[@]}")
	local t
	for t in $KNOWN_TREES; do
		cp "$scratch/r-$label/$t/stages.tsv" "$RESULTS/bench-loop-stages-$label-$t.tsv" 2>/dev/null ||
			cp "$scratch/r-$label/stages.tsv" "$RESULTS/bench-loop-stages-$label.tsv" 2>/dev/null || true
	done
	echo "| make check, $label | ${s}s | $(grep -E '^[0-9]+ passed, [0-9]+ failed' "$scratch/check-$label.log" | tail -n 1) |" >>"$out"
}

{
	echo "| run | wall time | closing line |"
	echo "|---|---|---|"
} >"$out"
cold_cache() {	# cold_cache NAME: an empty cache directory (and its trees' siblings)
	local c=${BENCH_COLD_CACHE:-$scratch/cache-$1} t d
	# Never throw away work of "make tree" that "make refresh" has not
	# exported, nor a cache another run is using.
	for d in $(tree_caches "$c"); do
		t=$d/tree
		if git -C "$t" rev-parse --git-dir >/dev/null 2>&1; then
			[ -z "$(git -C "$t" status --porcelain --ignored)" ] &&
				[ "$(git -C "$t" rev-parse HEAD)" = "$(git -C "$t" rev-parse -q --verify refs/dmatopics/exported)" ] ||
				die "$t holds work that make refresh has not exported: export it (or remove the tree) before measuring a cold run in $c"
		fi
		if [ -f "$d/lock" ]; then
			exec {cfd}>>"$d/lock"
			flock -n -x "$cfd" || die "another run uses $d: not emptying it"
		fi
	done
	# shellcheck disable=SC2046
	rm -rf $(tree_caches "$c")
	echo "$c"
}
tree_caches() {	# tree_caches ROOT: the cache of each tree made from ROOT
	local t
	for t in $KNOWN_TREES; do tree_cache "$1" "$t"; done
}
if [ -n "${BENCH_FULL:-}" ]; then
	if [ "$BENCH_FULL" = all ]; then
		c=$(cold_cache full) || exit 1
		check_row "check-full, cold" TIER=full DMATOPICS_TREE= CACHE="$c"
	else
		for a in $BENCH_FULL; do
			c=$(cold_cache "full-$a") || exit 1
			check_row "check-full ARCH=$a, cold" TIER=full DMATOPICS_TREE= CACHE="$c" -- "$a"
			# A scratch cache holds a few kernels' builds: one at
			# a time.
			# shellcheck disable=SC2046
			[ -n "${BENCH_COLD_CACHE:-}" ] || rm -rf $(tree_caches "$c")
		done
	fi
	cat "$out"
	exit 0
fi
case ${BENCH_COLD:-0} in
1 | only)
	c=$(cold_cache check) || exit 1
	check_row cold DMATOPICS_TREE= CACHE="$c"
	[ "$BENCH_COLD" = 1 ] || { cat "$out"; exit 0; } ;;
esac
check_row unchanged
check_row one-patch CHECK_TREES="$TREE" PATCHES="$scratch/patches"
check_row restored	# the build directories back at the real series

if [ "${BENCH_ARCHES:-1}" = 1 ]; then
	{
		echo
		echo "| arch | cold, no ccache | cold, warm ccache | unchanged | one patch changed |"
		echo "|---|---|---|---|---|"
	} >>"$out"
	for arch in "$@"; do
		check_arch "$arch"
		note "$arch: cold (no build dir, no ccache)"
		rm -rf "$CACHE/build/$arch"
		nocc=$(secs "$scratch/$arch-cold.log" env CCACHE=0 "$TOP/scripts/runs/run-kunit.sh" "$arch")
		note "$arch: cold with the warm ccache"
		rm -rf "$CACHE/build/$arch"
		warm=$(secs "$scratch/$arch-warm.log" "$TOP/scripts/runs/run-kunit.sh" "$arch")
		same=$(secs "$scratch/$arch-same.log" "$TOP/scripts/runs/run-kunit.sh" "$arch")
		one=$(secs "$scratch/$arch-one.log" env PATCHES="$scratch/patches" \
			"$TOP/scripts/runs/run-kunit.sh" "$arch")
		secs "$scratch/$arch-restore.log" "$TOP/scripts/runs/run-kunit.sh" "$arch" >/dev/null
		echo "| $arch | ${nocc}s | ${warm}s | ${same}s | ${one}s |" >>"$out"
	done
fi
cat "$out"
