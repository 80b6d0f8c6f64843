#!/usr/bin/env bash
# Build and run the suites at every position of the series, so that each
# patch is checked to build, boot and pass on top of the ones before it
# ("make check-series", slow: one incremental build per patch and arch),
# and so that "git bisect" works in any configuration, not only ours: at
# each position the .c files the series has touched so far are also
# compiled with every option the series adds off (the "off" configuration
# of scripts/runs/configs.sh, build directory $CACHE/build/off-ARCH).
#
# Only the suites that exist at a position run there: a position before
# the first suite passes when it builds and boots.  A position fails on a
# build error (named with the first compiler error), a failed or crashed
# case ("not ok") or a kunit.py timeout; the plan and the splat scan are
# "make check"'s job on the whole series.  The kunitconfig is cut down at
# each position to the symbols that exist there.
#
# FROM=K starts at the K-th patch (the positions before it are taken as
# checked), for a series whose first K-1 patches did not change.  TOPICS
# checks those topic series only, applied in the order of
# kernel-patches/TREE/topics (one topic: each of its patches on the baseline
# and the ones before it).
#
# usage: [FROM=K] scripts/checks/check-series.sh [ARCH...]    (default: x86_64 arm)
. "$(dirname "$0")/../common.sh"

[ $# -gt 0 ] || set -- x86_64 arm
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mapfile -t all < <(series_files)
mkdir -p "$RESULTS"
rc=0

# Compile the touched .c files of positions 1..k with the options off.
build_off() {	# build_off ARCH K
	local arch=$1 k=$2 bd=$CACHE/build/off-$arch cross linux_arch=arm objs=() f
	cross=$(cross_of "$arch")
	[ "$arch" = x86_64 ] && linux_arch=x86_64
	while read -r f; do
		local o=${f%.c}.o
		[ -f "$bd/$(dirname "$o")/.$(basename "$o").cmd" ] && objs+=("$o")
	done < <(cgit diff --name-only baseline HEAD -- '*.c' ':!tools/')
	[ ${#objs[@]} -gt 0 ] || return 0
	ccache_opts "$cross"
	local m=(make -C "$SRC" ARCH="$linux_arch" O="$bd" -j"$(nproc)")
	[ -n "$cross" ] && m+=(CROSS_COMPILE="$cross")
	[ "${CCACHE:-1}" = 1 ] && command -v ccache >/dev/null &&
		m+=(CC="ccache ${cross}gcc")
	"${m[@]}" olddefconfig >/dev/null 2>&1 && "${m[@]}" "${objs[@]}" >/dev/null
}

for arch in "$@"; do
	check_arch "$arch"
	off=$CACHE/build/off-$arch
	if [ ! -f "$off/.config" ]; then
		note "$arch: building the options-off configuration once"
		# As scripts/runs/configs.sh builds it: the tree's additions in,
		# the options the tree at the series does not define (those of
		# the topics TOPICS leaves out) left out.
		"$TOP/scripts/trees/apply.sh" >/dev/null 2>&1
		KUNITCONFIG=$(topics_kunitconfig "$TOP/kunitconfig") \
			fragment off "$arch" >"$work/off.kunitconfig"
		kunit_in "$SRC" "$arch" build --build_dir "$off" \
			--kunitconfig "$work/off.kunitconfig" >"$work/off.out" 2>&1 ||
			{ cat "$work/off.out"; die "$arch: the options-off configuration does not build"; }
	fi
	for ((k = ${FROM:-1}; k <= ${#all[@]}; k++)); do
		# A copy of kernel-patches/ whose topic series stop at
		# the k-th patch.
		p=$work/p$k
		mkdir -p "$p"
		cp "$PATCHES/topics" "$p/"
		for t in $(topic_list); do
			mkdir -p "$p/$t"
			: >"$p/$t/series"
		done
		for f in "${all[@]:0:k}"; do
			t=$(dirname "$(patch_name "$f")")
			mkdir -p "$p/$t"
			cp "$f" "$p/$t/"
			basename "$f" >>"$p/$t/series"
		done
		name=$(patch_name "${all[k - 1]}")
		PATCHES=$p "$TOP/scripts/trees/apply.sh" >"$work/apply$k.out" 2>&1 ||
			{ cat "$work/apply$k.out"; die "$arch $k $name: the series up to this patch does not apply"; }
		# Only the kunitconfig symbols that exist at this position.
		tree_kunitconfig "$TOP/kunitconfig" | defined_options >"$work/kunitconfig$k"
		ok=1 why=
		out=$work/r$k-$arch.out
		PATCHES=$p RESULTS=$work/r$k KUNITCONFIG=$work/kunitconfig$k \
			"$TOP/scripts/runs/run-kunit.sh" "$arch" >"$out" 2>&1 ||
			grep -q 'Ran 0 tests' "$out" || { ok=0; why=run; }
		[ -f "$work/r$k/$arch.log" ] || { ok=0; why="no boot"; }
		grep -Eq '^\s*not ok|terminating on signal' "$work/r$k/$arch.log" \
			2>/dev/null && { ok=0; why="a case failed"; }
		if ! build_off "$arch" "$k" >>"$out" 2>&1; then
			ok=0 why="options off: $(grep -m1 -E 'error:' "$out" || echo 'build failed')"
		fi
		if [ $ok = 1 ]; then
			echo "series: ok      $arch $k $name"
		else
			e=$(grep -m1 -E 'error:' "$out" || true)
			echo "series: FAILED  $arch $k $name: $why${e:+: $e} (log: $RESULTS/series-$arch-$k.out)"
			cp "$out" "$RESULTS/series-$arch-$k.out"
			rc=1
		fi
	done
done
# Leave the build tree and directories at the whole series again.
"$TOP/scripts/trees/apply.sh" >/dev/null
exit $rc
