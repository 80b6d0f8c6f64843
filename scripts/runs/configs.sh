#!/usr/bin/env bash
# The configuration stage of make check-full: the series in the
# configurations people build, not only in ours.  For each ARCH given
# (um, x86_64, arm):
#   alltests  kunit.py's own default run (KUNIT_ALL_TESTS, no fragment of
#             ours) on baseline + series, compared case by case with the
#             expected results of the same run on the untouched baseline,
#             kunit/baseline/VERSION/ARCH.tsv (make baseline); where there
#             is no valid file of the installed package version, the
#             baseline run is made (and said so) and kept in
#             $CACHE/baseline/VERSION/
#   modules   (not um) our fragment with KUnit, aacraid and our suites as
#             modules: kernel and modules build, modpost says nothing
#   off       (not um) our fragment with every option the series adds off
#             (modules on, as in the modules configuration, whose build
#             directory starts as a copy of this one)
#   warnings  (not um) W=1 and sparse (C=2) on each .c file the series
#             touches that the modules configuration compiles, compared
#             with the same file and .config on the baseline
# and, given "host": tools/testing/scatterlist builds and ./main passes.
# "alltests-ARCH" runs the first alone, "builds-ARCH" (not um) the other
# three alone: a CI job each, so that no job builds more than two kernels
# (its budget is 45 minutes cold on two cores).  Items that overlap run
# once.
# TIER=check (make check, the default): host alone (the gate leaves the
# kernel configurations to make check-full; given um or x86_64 it builds
# alltests there, and modules and warnings on x86_64); TIER=full (make
# check-full): everything above on every ARCH given.
#
# Writes results/configs/* and results/configs.tsv (one line per
# configuration and arch), which check-results.py reads.
#
# usage: [TIER=check|full] scripts/runs/configs.sh [host] [[alltests-|builds-]ARCH...]
#        (default: host, and um x86_64 arm with TIER=full)
. "$(dirname "$0")/../common.sh"

TIER=${TIER:-check}
case "$TIER" in
check) [ $# -gt 0 ] || set -- host ;;
full) [ $# -gt 0 ] || set -- host um x86_64 arm ;;
*) die "unknown TIER '$TIER' (check or full)" ;;
esac
for item in "$@"; do
	case "$item" in
	host | um | x86_64 | arm | alltests-um | alltests-x86_64 | alltests-arm | builds-x86_64 | builds-arm) ;;
	*) die "unknown configuration item '$item' (host; um, x86_64, arm; alltests-ARCH; builds-x86_64, builds-arm)" ;;
	esac
done
out=$RESULTS/configs
tsv=$RESULTS/configs.tsv
rm -rf "$out" "$tsv"
mkdir -p "$out"
printf 'config\tarch\tbuilt\tbooted\tpassed\twarnings\tcases\tnote\n' >"$tsv"

lock shared
"$TOP/scripts/trees/apply.sh"
series=$(cat "$CACHE/linux.state")
# Only the options the tree defines (with TOPICS, of the topics applied).
KUNITCONFIG=$(topics_kunitconfig "${KUNITCONFIG:-$TOP/kunitconfig}")
export KUNITCONFIG
ver=$(source_version)
BASELINE_RESULTS=$CACHE/baseline/$ver
mkdir -p "$BASELINE_RESULTS" "$CACHE/build"
# The untouched tree, for the kernel configurations (not for host alone)
[ "$*" = host ] || base_worktree
record() {	# record CONFIG ARCH BUILT BOOTED PASSED WARNINGS CASES NOTE
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$tsv"
}

alltests() {	# alltests ARCH
	local arch=$1 b why
	# The expected results: the file of the installed package version,
	# else a baseline run of our own (kept per version in the cache).
	if b=$(python3 "$TOP/scripts/results/kunit_baseline.py" select \
		"$TOP/kunit/baseline" --version "$ver" --arch "$arch" 2>"$out/baseline-$arch.why"); then
		note "$arch: expected results from ${b#"$TOP"/}"
	else
		why=$(sed 's/^error: //' "$out/baseline-$arch.why")
		b=$BASELINE_RESULTS/$arch.tsv
		if python3 "$TOP/scripts/results/kunit_baseline.py" check "$b" \
			--version "$ver" --arch "$arch" 2>/dev/null; then
			note "$arch: $why; using the baseline run made earlier in this cache ($b)"
		else
			note "$arch: $why; recomputing the baseline (make baseline writes the file)"
			baseline_run "$arch" "$b" ||
				{ record alltests "$arch" no - - - - "the baseline run did not build or boot: $BASELINE_RESULTS/base-$arch.out"; return; }
		fi
	fi
	note "$arch: kunit.py's default run (KUNIT_ALL_TESTS) on baseline + series"
	local n=$out/alltests-$arch rc=0 bd=$CACHE/build/alltests-$arch sub=run key timeout=900
	key=$(build_key "$arch" /dev/null)
	if built_from "$bd" "$key"; then
		note "$arch: $bd is built from this series; not running make"
		sub=exec
	fi
	[ $sub = exec ] || mark_built "$bd" ""
	rm -f "$bd/test.log"
	kunit_in "$SRC" "$arch" $sub --timeout "$timeout" --build_dir "$bd" \
		--json="$n.json" >"$n.out" 2>&1 || rc=$?
	[ $sub = exec ] || [ ! -f "$bd/test.log" ] || mark_built "$bd" "$key"
	if [ ! -f "$bd/test.log" ]; then
		record alltests "$arch" no - - - - "$(build_error "$n.out")"
		return
	fi
	cp "$bd/test.log" "$n.log"
	python3 "$TOP/scripts/results/compare-runs.py" --config alltests --arch "$arch" \
		"$b" "$n.log" "$(series_symbols | tr '\n' ' ')" \
		"$bd/.config" >>"$tsv"
}

# The first compiler or kbuild error of a build log, and the patches of
# the series that touch the file it names ("make check-series" finds the
# first position that fails).
build_error() {
	local e f p by=
	e=$(grep -m1 -E 'error:|ERROR:|Error [0-9]' "$1" || true)
	f=$(echo "$e" | sed -n -E 's,^(\.\./|/[^ ]*/(linux|base)/)?([^: ]+):[0-9]+:.*,\3,p')
	if [ -n "$f" ]; then
		for p in $(series_files); do
			grep -q "^diff --git a/$f " "$p" && by="$by $(basename "$p")"
		done
	fi
	echo "build failed: ${e:-see $1}${f:+ ($f is touched by:${by:- no patch of the series})}"
}

buildonly() {	# buildonly modules|off ARCH
	local kind=$1 arch=$2 n=$out/$1-$2 bd=$CACHE/build/$1-$2
	note "$arch: build with $([ "$kind" = off ] && echo "every option the series adds off" || echo "KUnit and our suites as modules")"
	fragment "$kind" "$arch" >"$n.kunitconfig"
	# A new modules directory starts as a copy of the off one: the
	# same tree and options but the =m ones.
	if [ "$kind" = modules ] && [ ! -f "$bd/.config" ] &&
		[ -f "$CACHE/build/off-$arch/vmlinux" ]; then
		seed_build "$CACHE/build/off-$arch" "$bd"
	fi
	local key
	key=$(build_key "$arch" "$n.kunitconfig")
	if built_from "$bd" "$key" && [ -f "$bd/.dmatopics-build.out" ]; then
		note "$arch: $bd is built from this series and configuration; not running make"
		cp "$bd/.dmatopics-build.out" "$n.out"
	else
		mark_built "$bd" ""
		if ! kunit_in "$SRC" "$arch" build --build_dir "$bd" \
			--kunitconfig "$n.kunitconfig" >"$n.out" 2>&1; then
			record "$kind" "$arch" no - - - - "$(build_error "$n.out")"
			return 1
		fi
		cp "$n.out" "$bd/.dmatopics-build.out"
		mark_built "$bd" "$key"
	fi
	local mp note=
	mp=$(grep -c 'modpost' "$n.out" || true)
	[ "$mp" = 0 ] || note="modpost: $(grep -m1 modpost "$n.out")"
	if [ "$kind" = modules ]; then
		local want have
		want=$(grep -c '=m$' "$n.kunitconfig")
		have=$(grep -c -E '^CONFIG_[A-Z0-9_]+=m$' "$bd/.config" || true)
		[ "$have" -ge "$want" ] || note="${note:+$note; }only $have of $want options are =m"
		note="${note:-$(find "$bd" -name '*.ko' | wc -l) modules, modpost clean}"
	fi
	if [ "$mp" = 0 ]; then
		record "$kind" "$arch" yes - yes - - "${note:-builds}"
	else
		record "$kind" "$arch" yes - no - - "$note"
		return 1
	fi
}

# W=1 and sparse on the files the series touches, against the baseline.
warnings() {	# warnings ARCH
	local arch=$1 mod=$CACHE/build/modules-$arch cross f objs=() key
	cross=$(cross_of "$arch")
	[ -f "$mod/.config" ] || { record warnings "$arch" no - - - - "no modules build"; return 1; }
	# The objects this configuration links: the members of vmlinux.a and
	# built-in.a and the objects of each module of modules.order.  Not a
	# search for .o files: an incremental build directory keeps those of
	# files no longer built, and a .c file included by another (the test
	# at the end of mm/page_alloc.c) has none.
	local linked
	linked=$(cd "$mod" && {
		for a in vmlinux.a built-in.a; do [ ! -f "$a" ] || ar t "$a"; done
		# (modules.order names each module's .ko up to 6.1, its .o
		# since 6.2; its .mod lists the objects it links)
		[ ! -f modules.order ] || sed -E 's/\.(ko|o)$/.mod/' modules.order | xargs -r cat
	} | sort -u)
	while read -r f; do
		local o=${f%.c}.o
		grep -qxF "$o" <<<"$linked" && objs+=("$o")
	done < <(cgit diff --name-only baseline "$series" -- '*.c' ':!tools/')
	key=$( { echo "$series $arch ${objs[*]}"; cat "$mod/.config"; } | sha1sum | cut -c1-16)
	local n=$out/warnings-$arch cached=$CACHE/warnings/$key
	mkdir -p "$CACHE/warnings"
	if [ ! -f "$cached.new" ]; then
		note "$arch: W=1 and sparse on ${#objs[@]} file(s) the series touches"
		w1 "$SRC" "$CACHE/build/w1-$arch" "$arch" "${objs[@]}" >"$cached.series" 2>&1 ||
			{ record warnings "$arch" no - - - - "$(build_error "$cached.series")"; return 1; }
		local bobjs=() o
		for o in "${objs[@]}"; do [ -f "$BASE/${o%.o}.c" ] && bobjs+=("$o"); done
		local bkey
		bkey=$( { echo "$ver $arch ${bobjs[*]}"; cat "$mod/.config"; } | sha1sum | cut -c1-16)
		if [ ! -f "$CACHE/warnings/base-$bkey" ]; then
			w1 "$BASE" "$CACHE/build/base-w1-$arch" "$arch" "${bobjs[@]}" \
				>"$CACHE/warnings/base-$bkey.tmp" 2>&1 || true
			mv "$CACHE/warnings/base-$bkey.tmp" "$CACHE/warnings/base-$bkey"
		fi
		python3 "$TOP/scripts/results/new-warnings.py" "$CACHE/warnings/base-$bkey" \
			"$cached.series" >"$cached.new"
	fi
	cp "$cached.series" "$n.out"
	cp "$cached.new" "$n.new"
	local count
	count=$(grep -c . "$n.new" || true)
	record warnings "$arch" yes - "$([ "$count" = 0 ] && echo yes || echo no)" "$count" - \
		"W=1 C=2 on ${#objs[@]} file(s), $count new (results/configs/warnings-$arch.new)"
	[ "$count" = 0 ]
}

w1() {	# w1 TREE BUILD_DIR ARCH OBJ...: compile OBJs with W=1 C=2
	local tree=$1 bd=$2 arch=$3 cross linux_arch=$3
	shift 3
	cross=$(cross_of "$arch")
	case "$arch" in arm*) linux_arch=arm ;; esac
	# On the series tree, start from a copy of the modules build: the
	# same .config, so "prepare" has nothing left to do.
	if [ "$tree" = "$SRC" ] && [ ! -f "$bd/.config" ]; then
		seed_build "$CACHE/build/modules-$arch" "$bd"
	fi
	mkdir -p "$bd"
	cp "$CACHE/build/modules-$arch/.config" "$bd/.config"
	local m=(make -C "$tree" ARCH="$linux_arch" O="$bd" -j"$(nproc)")
	[ -n "$cross" ] && m+=(CROSS_COMPILE="$cross")
	"${m[@]}" olddefconfig >/dev/null
	"${m[@]}" prepare >/dev/null 2>&1 || "${m[@]}" prepare
	[ $# -gt 0 ] || return 0
	(cd "$bd" && rm -f "$@")
	"${m[@]}" W=1 C=2 "$@" 2>&1 >/dev/null
}

# In a copy of the files it uses, as it writes where it builds.
scatterlist() {
	note "tools/testing/scatterlist on baseline + series"
	local n=$out/scatterlist.out t
	t=$(mktemp -d)
	(cd "$SRC" && cp --parents -r tools/testing/scatterlist tools/include \
		lib/scatterlist.c include/linux/scatterlist.h "$t/")
	if make -C "$t/tools/testing/scatterlist" >"$n" 2>&1 &&
		(cd "$t/tools/testing/scatterlist" && ./main) >>"$n" 2>&1; then
		record scatterlist host yes yes yes - - "builds, ./main passes"
	else
		record scatterlist host no - no - - "$(build_error "$n")"
	fi
	rm -rf "$t"
}

# What each arch is asked for (all, alltests or builds), each arch once
declare -A asked=()
order=()
for item in "$@"; do
	arch=${item#alltests-} what=all
	arch=${arch#builds-}
	[ "$arch" = "$item" ] || what=${item%%-*}
	[ -n "${asked[$arch]:-}" ] || order+=("$arch")
	case "${asked[$arch]:-$what}" in "$what") asked[$arch]=$what ;; *) asked[$arch]=all ;; esac
done
rc=0
for arch in "${order[@]}"; do
	what=${asked[$arch]}
	case "$TIER:$arch" in
	*:host) scatterlist; continue ;;
	check:arm*) note "$arch: no configuration of the check tier (make check-full builds them)"; continue ;;
	esac
	[ "$what" = builds ] || alltests "$arch"
	case "$what:$arch" in *:um | alltests:*) continue ;; esac
	[ "$TIER" = check ] || buildonly off "$arch" || true
	buildonly modules "$arch" && warnings "$arch" || true
done
# A stage that failed left "no" or a note; check-results.py judges, and
# takes a file without this last line for a stage that stopped half-way.
echo "# complete" >>"$tsv"
exit 0
