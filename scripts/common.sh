# Shared settings and helpers for the dmatopics scripts.  Sourced, not run.
#
# Cache layout of a tree (everything outside the repository, override
# with CACHE=; TREE below says where each tree's is):
#   $CACHE/linux      git repo: baseline commit (tag "baseline") + applied
#                     series; its work tree is the tree kunit.py builds
#   $CACHE/apply      scratch worktree where "git am" runs, so that the
#                     build tree only ever sees finished results
#   $CACHE/tree       developer worktree made by "make tree" (branch "dev")
#   $CACHE/build/ARCH kunit.py build directories (O=)
#   $CACHE/ccache     compiler cache
#   $CACHE/lock       the lock of the trees above (see lock())

set -eu

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SUPPORTED_ARCHES="x86_64 arm arm-lpae arm64"

die() {
	echo "error: $*" >&2
	exit 1
}

# The trees the series is kept for: every kernel-patches/TREE/ that has a
# linux-source.pin (the Debian package version linux-source-TREE is tested
# at), and, where the package is not in Debian 12's own suites, an
# apt-source (the deb822 stanza it comes from).  Adding a tree is adding
# that directory.  7.3, the current release, is the tree the series is
# written for and the default; 6.1 and 6.12 are its backports.  A tree has
# its own series, its own expected results (kunit/baseline/VERSION/ names
# the package version) and its own cache: 6.1's is $CACHE, another tree's
# $CACHE-TREE.  The scripts a script runs inherit the tree's cache as
# CACHE (DMATOPICS_TREE says which tree it is the cache of,
# DMATOPICS_CACHE_ROOT the $CACHE it was made from), unless they are run
# for another tree.
DEFAULT_TREE=7.3
KNOWN_TREES=$(for d in "$TOP"/kernel-patches/*/linux-source.pin; do
	[ -f "$d" ] && basename "$(dirname "$d")"
done | sort -V | tr '\n' ' ' | sed 's/ $//')
tree_cache() {	# tree_cache ROOT TREE: the cache of TREE made from ROOT
	if [ "$2" = 6.1 ]; then echo "$1"; else echo "$1-$2"; fi
}
TREE=${TREE:-$DEFAULT_TREE}
case " $KNOWN_TREES " in
*" $TREE "*) ;;
*) die "unknown TREE '$TREE'; the trees are: $KNOWN_TREES" ;;
esac
if [ "${DMATOPICS_TREE:-}" != "$TREE" ]; then
	if [ -n "${DMATOPICS_TREE:-}" ]; then
		CACHE=${DMATOPICS_CACHE_ROOT:-}
	fi
	unset LOCK_FD	# an inherited lock is of another cache
	CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dmatopics}
	DMATOPICS_CACHE_ROOT=$CACHE
	CACHE=$(tree_cache "$CACHE" "$TREE")
fi
DMATOPICS_TREE=$TREE
export TREE CACHE DMATOPICS_TREE DMATOPICS_CACHE_ROOT
PACKAGE=linux-source-$TREE
TARBALL=/usr/src/$PACKAGE.tar.xz
# The series of the tree, and how messages name it
PATCHES=${PATCHES:-$TOP/kernel-patches/$TREE}
PNAME=kernel-patches/$TREE
PIN=$TOP/kernel-patches/$TREE/linux-source.pin
# What the tree's suites need beyond our kunitconfig (optional)
TREE_KUNITCONFIG=$TOP/kernel-patches/$TREE/kunitconfig
APT_SOURCE=$TOP/kernel-patches/$TREE/apt-source
SRC=$CACHE/linux
APPLY=$CACHE/apply
DEVTREE=$CACHE/tree
RESULTS=$(realpath -m "${RESULTS:-$TOP/results}")

note() {
	echo ">>> $*" >&2
}

check_arch() {
	local a
	for a in $SUPPORTED_ARCHES; do
		[ "$1" = "$a" ] && return 0
	done
	die "unknown ARCH '$1'; supported: $SUPPORTED_ARCHES"
}

# One lock on the cache, taken with flock(1): a step that changes a shared
# tree ($CACHE/linux, apply/, base/, tree/) holds it exclusive; a build or
# run that only reads the build tree holds it shared, so that builds of
# different arches run in parallel.  The descriptor is inherited by the
# scripts a script runs (LOCK_FD), which convert the same lock rather
# than wait for their parent.  A run that has to wait says so.
lock() {	# lock shared|exclusive
	local mode=-s
	[ "$1" = exclusive ] && mode=-x
	if [ -z "${LOCK_FD:-}" ]; then
		mkdir -p "$CACHE"
		exec {LOCK_FD}>>"$CACHE/lock"
		export LOCK_FD
	fi
	flock -n $mode "$LOCK_FD" && return 0
	note "waiting for another run that uses $CACHE (lock $CACHE/lock, $1)"
	flock $mode "$LOCK_FD"
	note "got the lock of $CACHE"
}

# lock_to_change TEST...: is the tree as wanted, or must this run change
# it?  Under the shared lock, TEST (a command) says whether the tree is
# already as wanted: then return 1, holding the lock shared.  Else return
# 0 holding it exclusive, TEST still failing; the caller changes the tree
# and takes the lock shared again.  A run never queues for the exclusive
# lock for long: a queued request would wait for every build that holds
# the tree shared, even when one of them has already put the tree where
# this run wants it.  It waits a second at a time, holding the lock
# shared again in between to look.  (Converting the shared lock lets it
# go first, so two runs that both want to change the tree wait for it
# together, holding nothing, and one of them gets it.)
lock_to_change() {
	local said=
	lock shared
	while ! "$@"; do
		if flock -w 1 -x "$LOCK_FD"; then
			"$@" || return 0
			flock -s "$LOCK_FD"
			return 1
		fi
		[ -n "$said" ] || note "waiting for another run that uses $CACHE (lock $CACHE/lock) to change it"
		said=1
		flock -s "$LOCK_FD"	# waits only for a run that changes the tree
	done
	return 1
}

# The lock of the scratch worktree $CACHE/apply and of the series refs,
# apart from the lock of the build tree: applying a series never waits
# for the builds that hold the build tree shared.  Taken exclusive,
# never while waiting for the exclusive lock of the build tree.
lock_apply() {
	mkdir -p "$CACHE"
	exec {APPLY_FD}>>"$CACHE/apply.lock"
	flock -n -x "$APPLY_FD" && return 0
	note "waiting for another run that applies the series (lock $CACHE/apply.lock)"
	flock -x "$APPLY_FD"
}
unlock_apply() {
	[ -n "${APPLY_FD:-}" ] || return 0
	exec {APPLY_FD}>&-
	APPLY_FD=
}

# The cross compiler prefix of an arch ("" for a native build).
cross_of() {
	case "$1" in
	arm | arm-lpae) echo arm-linux-gnueabihf- ;;
	arm64) echo aarch64-linux-gnu- ;;
	esac
}

# kunit.py's --make_options for ccache (CCACHE=0 turns it off), as an
# array KMAKE; exports CCACHE_DIR.  usage: ccache_opts CROSS
ccache_opts() {
	KMAKE=()
	if [ "${CCACHE:-1}" = 1 ] && command -v ccache >/dev/null; then
		export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
		KMAKE=(--make_options "CC=ccache ${1}gcc" --make_options "HOSTCC=ccache gcc")
	fi
}

# kunit.py's arguments for our configuration of ARCH in build directory
# BUILD, as an array KARGS (after the subcommand; "build" and "run" add
# --jobs, which "exec" does not take).  usage: our_kunit_args ARCH BUILD
our_kunit_args() {
	local cross
	cross=$(cross_of "$1")
	KARGS=(--build_dir "$2"
	       --kunitconfig "${KUNITCONFIG:-$TOP/kunitconfig}"
	       --qemu_config "$TOP/arch-qemu-configs/$1.py")
	[ -n "$cross" ] && KARGS+=(--cross_compile "$cross")
	ccache_opts "$cross"
	KARGS+=("${KMAKE[@]}")
}

# git in the cache repo, with a fixed identity so that commits made while
# applying the series do not depend on the user's configuration, and no
# automatic gc (it detaches into the background holding the cache lock
# it inherited).
cgit() {
	git -C "$SRC" -c user.name=dmatopics -c user.email=dmatopics@localhost \
		-c advice.detachedHead=false -c gc.auto=0 "$@"
}

# The baseline commit is made with a fixed identity and date, so that its
# id depends only on the tarball: the cover letter's base-commit is the
# same on every machine.  usage: baseline_git ARGS... (a git command run
# with that identity and date)
baseline_git() {
	GIT_AUTHOR_NAME=dmatopics GIT_AUTHOR_EMAIL=dmatopics@localhost \
	GIT_COMMITTER_NAME=dmatopics GIT_COMMITTER_EMAIL=dmatopics@localhost \
	GIT_AUTHOR_DATE='1970-01-01T00:00:00Z' \
	GIT_COMMITTER_DATE='1970-01-01T00:00:00Z' git "$@"
}

# The message of the baseline commit.  usage: baseline_message VERSION
baseline_message() {
	printf '%s %s\n\nUntouched %s.\n' "$PACKAGE" "$1" "$TARBALL"
}

# The package version the tree's series is tested on (its linux-source.pin), or
# the one LINUX_SOURCE_VERSION names (make rebase).
pinned_version() {
	if [ -n "${LINUX_SOURCE_VERSION:-}" ]; then
		echo "$LINUX_SOURCE_VERSION"
		return
	fi
	local v
	[ -f "$PIN" ] || die "$PNAME/linux-source.pin is missing: no series is kept for tree $TREE"
	v=$(grep -v -E '^(#|[[:space:]]*$)' "$PIN" 2>/dev/null | head -n 1)
	[ -n "$v" ] || die "$PNAME/linux-source.pin names no version"
	echo "$v"
}

# The Debian package version of the tree, e.g. "6.1.192-3".
source_version() {
	dpkg-query -W -f='${Version}' "$PACKAGE" 2>/dev/null || echo unknown
}

# "make rebase", with TREE=... unless the tree is the default one
rebase_cmd() {
	echo "make rebase$([ "$TREE" = "$DEFAULT_TREE" ] || echo " TREE=$TREE")"
}

# The suite of the tree's apt-source (kernel-patches/TREE/apt-source), or
# nothing when the tree's package comes from the machine's own sources.
apt_source_suite() {
	[ -f "$APT_SOURCE" ] || return 0
	awk '/^Suites:/ { print $2; exit }' "$APT_SOURCE"
}

# For a tree with an apt-source: fetch that source's index alone (the
# machine's other sources untouched, their lists kept), then put the
# source in /etc/apt/sources.list.d/ with a preference that takes from it
# only $PACKAGE, and only at VERSION.  If the source cannot be reached,
# or lacks VERSION, stop naming it, having added nothing to /etc/apt.
# As root only.  usage: apt_source_add VERSION [WHAT NAMES IT]
apt_source_add() {
	[ -f "$APT_SOURCE" ] || return 0
	local want=$1 who=${2:-"the version $PNAME/linux-source.pin names"}
	local suite name list prefs tmp out have
	suite=$(apt_source_suite)
	[ -n "$suite" ] || die "$PNAME/apt-source names no Suites:"
	name=dmatopics-$PACKAGE
	list=/etc/apt/sources.list.d/$name.sources
	prefs=/etc/apt/preferences.d/$name
	tmp=$(mktemp -d)
	grep -v '^#' "$APT_SOURCE" >"$tmp/$name.sources"	# stanzas kept apart
	note "fetching the index of $suite ($PNAME/apt-source) for $PACKAGE"
	out=$(apt-get -o DPkg::Lock::Timeout=600 update -q \
		-o Dir::Etc::sourcelist="$tmp/$name.sources" \
		-o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0 2>&1) || {
		rm -rf "$tmp"
		die "apt-get update of $suite ($PNAME/apt-source) failed:
$out"; }
	if echo "$out" | grep -q -E '^(W: Failed to fetch|E:|Err:)'; then
		rm -rf "$tmp"
		die "cannot reach $suite, the source of $PACKAGE ($PNAME/apt-source):
$(echo "$out" | grep -E '^(W: Failed to fetch|E:|Err:)')
Nothing was installed or changed; the other trees do not need it."
	fi
	have=$(apt-cache -o Dir::Etc::sourcelist="$tmp/$name.sources" \
		-o Dir::Etc::sourceparts=- madison "$PACKAGE" | awk '{ print $3 }')
	if ! echo "$have" | grep -qxF -- "$want"; then
		rm -rf "$tmp"
		die "$PACKAGE $want, $who, is not in $suite;
it has: ${have:-no version of $PACKAGE}$(echo; newest=$(echo "$have" | head -n 1)
			[ -z "$newest" ] || echo "Move the series to the newest:  $(rebase_cmd) VERSION=$newest")
Nothing was installed or changed."
	fi
	cp "$tmp/$name.sources" "$list"
	cat >"$prefs" <<-EOF
	# dmatopics: only $PACKAGE, at the version of $PNAME/linux-source.pin,
	# from $suite; nothing else is taken from it (from any source of that
	# suite on this machine).
	Package: $PACKAGE
	Pin: release n=$suite
	Pin-Priority: 500

	Package: *
	Pin: release n=$suite
	Pin-Priority: -1
	EOF
	rm -rf "$tmp"
}

# The series is one topic series per tree (kernel-patches/TREE/topics lists
# them in the order they are applied, each with the files of the tree it
# owns); each topic is a directory kernel-patches/TREE/TOPIC/ with its series,
# its patches and its cover letter.  TOPICS (space-separated) applies only
# those, in the order of kernel-patches/TREE/topics.

# The topics, in the order they are applied.
topic_list() {
	local f=$PATCHES/topics all t
	[ -f "$f" ] || die "$PNAME/topics is missing (it lists the topic series in the order they are applied)"
	all=$(grep -v -E '^(#|[[:space:]]*$)' "$f" | awk '{ print $1 }')
	[ -n "$all" ] || die "$PNAME/topics lists no topic"
	for t in ${TOPICS:-}; do
		echo "$all" | grep -qxF -- "$t" ||
			die "TOPICS names '$t', which $PNAME/topics does not list (it lists: $(echo $all))"
	done
	for t in $all; do
		[ -z "${TOPICS:-}" ] || [[ " $TOPICS " == *" $t "* ]] || continue
		echo "$t"
	done
}

# The file prefixes a topic owns (kernel-patches/TREE/topics).  usage: topic_paths TOPIC
topic_paths() {
	awk -v t="$1" '$1 == t { for (i = 2; i <= NF; i++) print $i }' "$PATCHES/topics"
}

# Patch files in the order they are applied, topic by topic (comments and
# blank lines of each series skipped).  A topic without a directory or a
# series, or a series naming a missing file, stops here with its name.
series_files() {
	local topics t
	topics=$(topic_list) || exit 1
	for t in $topics; do
		[ -d "$PATCHES/$t" ] || die "$PNAME/topics lists $t, but $PNAME/$t/ does not exist"
		series_in "$t" "topic $t"
	done
}

# The patch files kernel-patches/TREE/DIR/series lists, in its order (comments
# and blank lines skipped).  A missing series or patch stops here, named
# as WHAT.  usage: series_in DIR WHAT
series_in() {
	local d=$PATCHES/$1 p
	[ -f "$d/series" ] || die "$2: $PNAME/$1/series is missing"
	while read -r p; do
		case "$p" in '' | '#'*) continue ;; esac
		[ -f "$d/$p" ] || die "$2: its series lists $p, but $PNAME/$1/$p does not exist"
		echo "$d/$p"
	done <"$d/series"
}

# Whether TREE has the set-up of a stage of make check-full that not every
# tree has: the RFCs (kernel-patches/TREE/rfc/) and the fault stage (its
# kernel patches, kernel-patches/TREE/faults/).  The KCSAN stage needs
# none: every tree has it.  usage: tree_has_stage rfc|faults|kcsan
tree_has_stage() {
	case "$1" in
	kcsan) return 0 ;;
	rfc | faults) [ -d "$PATCHES/$1" ] ;;
	*) return 1 ;;
	esac
}

# The stage whose set-up a part of make check-full needs: rfc for rfc,
# rfc-* and kcsan-rfc-* (an RFC's KCSAN kernel), kcsan for the other
# kcsan parts, faults for faults and faults-*; nothing for the others.
# usage: stage_of_part PART
stage_of_part() {
	case "$1" in
	rfc | rfc-* | kcsan-rfc-*) echo rfc ;;
	kcsan | kcsan-*) echo kcsan ;;
	faults | faults-*) echo faults ;;
	esac
}

# The arches of the fault stage (make faults, make check-full's
# "faults"; a CI job each, faults-ARCH)
FAULT_ARCHES="x86_64 arm64"

# The RFCs: the directories of kernel-patches/TREE/rfc/, each with its series
# of patches that go on top of the merge set and are never part of it.
rfc_list() {
	local d
	for d in "$PATCHES"/rfc/*/; do
		[ -d "$d" ] && basename "$d"
	done
	return 0
}

# The patch files of RFC NAME, in the order of its series.
# usage: rfc_files NAME
rfc_files() {
	series_in "rfc/$1" "RFC $1"
}

# The words of kernel-patches/TREE/rfc/NAME/FILE (suite, arches) on one line,
# without comments and blank lines; nothing if the file is missing.
# usage: rfc_field NAME FILE
rfc_field() {
	grep -v -E '^(#|[[:space:]]*$)' "$PATCHES/rfc/$1/$2" 2>/dev/null | tr '\n' ' ' | sed 's/ $//' || true
}

# The arches RFC NAME's suite runs on: its "arches" file, else x86_64.
# usage: rfc_arches NAME
rfc_arches() {
	local a
	a=$(rfc_field "$1" arches)
	echo "${a:-x86_64}"
}

# The runs that parts of make check-full name, one "NAME ARCH" per line,
# in the order of rfc_list and each RFC's arches: "rfc" every RFC on each
# of its arches, "rfc-NAME" that RFC on each of its arches, "rfc-NAME-ARCH"
# that RFC on one of them (a CI job each).  Dies naming a part that names
# no run.  usage: rfc_runs PART...
rfc_runs() {
	local part spec name a found
	local -A asked=()
	for part in "$@"; do
		case "$part" in
		rfc) spec= ;;
		rfc-?*) spec=${part#rfc-} ;;
		*) die "not a part of the RFC stage: '$part' (rfc, rfc-NAME, rfc-NAME-ARCH)" ;;
		esac
		found=0
		for name in $(rfc_list); do
			for a in $(rfc_arches "$name"); do
				case "$spec" in
				"" | "$name" | "$name-$a") asked["$name $a"]=1 found=1 ;;
				esac
			done
		done
		[ $found = 1 ] || [ -z "$spec" ] || [ -n "$(rfc_list)" ] ||
			die "no RFC run '$part': $PNAME has no RFC (no $PNAME/rfc/NAME/)"
		[ $found = 1 ] || [ -z "$spec" ] ||
			die "no RFC run '$part': the RFCs are: $(rfc_list | tr '\n' ' ')(rfc-NAME, or rfc-NAME-ARCH for one of its arches)"
	done
	# Each run once, in the order above
	for name in $(rfc_list); do
		for a in $(rfc_arches "$name"); do
			[ -z "${asked["$name $a"]:-}" ] || echo "$name $a"
		done
	done
	return 0
}

# Die unless PART, "kcsan-rfc-NAME", names an RFC whose suite runs on
# x86_64, the KCSAN stage's arch.  usage: kcsan_rfc_check PART
kcsan_rfc_check() {
	local name=${1#kcsan-rfc-} n ok=
	for n in $(rfc_list); do
		[[ " $(rfc_arches "$n") " == *" x86_64 "* ]] || continue
		ok+="$n "
		[ "$n" != "$name" ] || return 0
	done
	die "no KCSAN run '$1': the RFCs whose suite runs on x86_64 are: ${ok:-none }(kcsan-rfc-NAME)"
}

# The name of a patch file as kernel-patches/ names it: TOPIC/FILE.
patch_name() {
	echo "${1#"$PATCHES"/}"
}

# A key naming exactly baseline + series: the hash of the series contents.
series_key() {
	{
		source_version
		series_files | while read -r f; do
			patch_name "$f"
			cat "$f"
		done
	} | sha1sum | cut -c1-16
}

# KUNITCONFIG, and with our kunitconfig the tree's additions to it
# (TREE_KUNITCONFIG), on stdout.  usage: tree_kunitconfig KUNITCONFIG
tree_kunitconfig() {
	cat "$1"
	if [ "$1" = "$TOP/kunitconfig" ] && [ -f "$TREE_KUNITCONFIG" ]; then
		cat "$TREE_KUNITCONFIG"
	fi
}

# Our kunitconfig and the tree's additions, less the options that the
# tree, at the series, does not define: the kunitconfig serves every
# tree, whose series may name a suite's option differently (the plan
# check still fails a suite that did not run), and with TOPICS the suites
# of the other topics are not defined either.  Written to a file in the
# cache whose name is printed.  Run with the build tree at the series.
# usage: topics_kunitconfig KUNITCONFIG
topics_kunitconfig() {
	local in=$1 out
	out=$CACHE/kunitconfig-topics-$( { echo "${TOPICS:-}"; tree_kunitconfig "$in"; cat "$CACHE/linux.state"; } |
		sha1sum | cut -c1-16)
	if [ ! -f "$out" ]; then
		local tmp
		tmp=$(mktemp "$out.XXXXXX")
		tree_kunitconfig "$in" | defined_options >"$tmp"
		mv -f "$tmp" "$out"
	fi
	echo "$out"
}

# A kunitconfig on stdin less the options that the build tree (or the
# work tree DIR), as it is checked out, does not define; the rest as it
# is.  usage: defined_options [DIR]
defined_options() {
	local line sym dir=${1:-$SRC}
	while IFS= read -r line; do
		sym=$(expr "$line" : 'CONFIG_\([A-Za-z0-9_]*\)=') ||
			{ echo "$line"; continue; }
		if git -C "$dir" grep -q -E "^(menu)?config $sym\$" -- '*Kconfig*'; then
			echo "$line"
		fi
	done
}

# The options the topics that TOPICS leaves out would add (none without
# TOPICS): their suites are not in the plan of this run.
absent_symbols() {
	[ -n "${TOPICS:-}" ] || return 0
	comm -23 <(TOPICS= series_symbols) <(series_symbols)
}

# Symbols the series adds ("+config X" in its patches).
series_symbols() {
	series_files | xargs grep -h -E '^\+(menu)?config ' | awk '{ print $2 }' | sort -u
}

# kunit.py SUBCOMMAND in TREE for ARCH ("um": no --arch).
kunit_in() {	# kunit_in TREE ARCH SUBCOMMAND ARGS...
	local tree=$1 arch=$2 sub=$3 cross
	shift 3
	cross=$(cross_of "$arch")
	ccache_opts "$cross"
	local a=("$sub" "${KMAKE[@]}")
	case "$sub" in run | build) a+=(--jobs "$(nproc)") ;; esac
	[ "$arch" = um ] || a+=(--arch "$arch")
	[ -n "$cross" ] && a+=(--cross_compile "$cross")
	(cd "$tree" && PATH=$TOP/scripts/runs/kunit-path:$PATH \
		python3 tools/testing/kunit/kunit.py "${a[@]}" "$@")
}

# A build directory remembers what it was last built from, so that a run
# with nothing changed boots it without running make over the whole tree
# (kunit.py exec instead of run).  The key covers the tree (the commit of
# baseline + series in $CACHE/linux), the given configuration files and
# the compiler; the stamp also holds vmlinux's mtime and size at the end
# of that build, so that a build by anything else in the directory
# (check-series, make by hand) voids it.
build_key() {	# build_key ARCH FILE...: key of the tree, FILEs and compiler
	local arch=$1 cross
	shift
	cross=$(cross_of "$arch")
	[ "$arch" = um ] && cross=
	{
		echo "$arch"
		cat "$CACHE/linux.state"
		cat "$@"
		"${cross}gcc" --version | head -n 1
	} | sha1sum | cut -c1-40
}

built_from() {	# built_from DIR KEY: DIR holds a finished build of KEY
	[ -f "$1/vmlinux" ] && [ -f "$1/.dmatopics-built" ] &&
		[ "$(cat "$1/.dmatopics-built")" = "$2 $(stat -c %Y.%s "$1/vmlinux")" ]
}

mark_built() {	# mark_built DIR KEY (KEY empty: forget the stamp)
	rm -f "$1/.dmatopics-built"
	[ -n "$2" ] && [ -f "$1/vmlinux" ] &&
		echo "$2 $(stat -c %Y.%s "$1/vmlinux")" >"$1/.dmatopics-built"
	return 0
}

# Start build directory DST as a copy of FROM, a build of the same tree
# whose configuration is close: kbuild's per-option dependencies then
# rebuild only what the configurations differ in.  usage: seed_build FROM DST
seed_build() {
	rm -rf "$2" "$2.tmp"
	cp -a --reflink=auto "$1" "$2.tmp" && mv "$2.tmp" "$2"
}

fragment() {	# fragment modules|off ARCH: our kunitconfig, changed
	local kind=$1 arch=$2 syms
	syms=" $(series_symbols | tr '\n' ' ') "
	{
		echo "# generated by scripts/runs/configs.sh: $kind configuration"
		# Modules on in both, as distributions build: the modules
		# configuration then differs from the off one only in the
		# options it turns to =m, and configs.sh starts its build
		# directory as a copy of the off one.
		printf 'CONFIG_MODULES=y\nCONFIG_MODULE_UNLOAD=y\n'
		# Our checkers.config turns DEBUG_FS on; kunit.py's own arch
		# configs do not.
		echo CONFIG_DEBUG_FS=y
		case "$arch" in arm*) echo CONFIG_PCI_HOST_GENERIC=y ;; esac
		grep -E '^CONFIG_' "${KUNITCONFIG:-$TOP/kunitconfig}" | while IFS='=' read -r k v; do
			s=${k#CONFIG_}
			case "$kind:$syms" in
			off:*" $s "*) echo "# $k is not set" ;;
			modules:*" $s "*) echo "$k=m" ;;
			modules:*) case "$s" in KUNIT | SCSI_AACRAID) echo "$k=m" ;; *) echo "$k=$v" ;; esac ;;
			*) echo "$k=$v" ;;
			esac
		done
	}
}

# $CACHE/base: a worktree of the untouched baseline that nothing changes
# once it is set up (the baseline runs of kunit.py's default run, the
# baseline W=1 build).  Set up under a lock of its own ($CACHE/base.lock),
# never the lock of the build tree.
BASE=$CACHE/base
base_worktree() {
	[ "$(cat "$BASE.state" 2>/dev/null)" != "$(cgit rev-parse baseline)" ] || return 0
	local fd
	exec {fd}>>"$CACHE/base.lock"
	flock -x "$fd"
	if [ "$(cat "$BASE.state" 2>/dev/null)" != "$(cgit rev-parse baseline)" ]; then
		rm -f "$BASE.state"
		if ! git -C "$BASE" rev-parse --git-dir >/dev/null 2>&1; then
			rm -rf "$BASE"
			cgit worktree prune
			cgit worktree add -q --detach "$BASE" baseline
		fi
		git -C "$BASE" checkout -q -f --detach baseline
		git -C "$BASE" clean -ffdxq
		cgit rev-parse baseline >"$BASE.state"
	fi
	exec {fd}>&-
}

# The kernel of the series with PATCH... on top, for ARCH, in
# $CACHE/build/NAME-ARCH.  A patch that does not apply is named.
# usage: variant_build NAME ARCH PATCH...
variant_build() {
	local name=$1 arch=$2 exp=$CACHE/experiment commit p
	shift 2
	commit=$("$TOP/scripts/trees/apply.sh" --commit)
	lock exclusive
	if ! git -C "$exp" rev-parse --git-dir >/dev/null 2>&1; then
		rm -rf "$exp"
		cgit worktree prune
		cgit worktree add -q --detach "$exp" "$commit"
	fi
	local egit=(git -C "$exp" -c user.name=dmatopics
		    -c user.email=dmatopics@localhost -c advice.detachedHead=false)
	"${egit[@]}" am --abort >/dev/null 2>&1 || true
	"${egit[@]}" checkout -q -f --detach "$commit"
	for p in "$@"; do
		if ! "${egit[@]}" am -q "$p"; then
			"${egit[@]}" am --abort >/dev/null 2>&1 || true
			lock shared
			echo "error: $PNAME/$(patch_name "$p") does not apply to baseline + series" >&2
			return 1
		fi
	done
	lock shared
	# A new build directory starts as a copy of another variant's (built
	# in the same worktree, so kbuild rebuilds only what differs), else
	# of make kunit's (another tree: kbuild rebuilds it all).
	local seed
	if [ ! -d "$CACHE/build/$name-$arch" ]; then
		for seed in "$CACHE"/build/*-"$arch"/.dmatopics-variant "$CACHE/build/$arch/."; do
			[ -e "$seed" ] || continue
			seed_build "$(dirname "$seed")" "$CACHE/build/$name-$arch"
			break
		done
	fi
	: >"$CACHE/build/$name-$arch/.dmatopics-variant" 2>/dev/null ||
		{ mkdir -p "$CACHE/build/$name-$arch" && : >"$CACHE/build/$name-$arch/.dmatopics-variant"; }
	# The kunitconfig serves every tree: less the options that this tree,
	# with these patches, does not define (the plan check still fails a
	# suite that did not run).
	local kc=$CACHE/build/$name-$arch/.dmatopics-kunitconfig
	defined_options "$exp" <"${KUNITCONFIG:-$TOP/kunitconfig}" >"$kc"
	KUNITCONFIG=$kc our_kunit_args "$arch" "$CACHE/build/$name-$arch"
	(cd "$exp" && PATH=$TOP/scripts/runs/kunit-path:$PATH \
		python3 tools/testing/kunit/kunit.py build --jobs "$(nproc)" "${KARGS[@]}")
}

# kunit.py's default run (KUNIT_ALL_TESTS, no fragment of ours) on the
# untouched tree for ARCH, its results written as a baseline file
# (scripts/results/kunit_baseline.py) to FILE; its output in FILE.out.
# usage: baseline_run ARCH FILE
baseline_run() {
	local arch=$1 file=$2 bd=$CACHE/build/base-alltests-$1 cmd out
	out=$CACHE/baseline/$(source_version)/base-$arch.out
	base_worktree
	cmd="tools/testing/kunit/kunit.py run --timeout 900"
	[ "$arch" = um ] || cmd="$cmd --arch $arch"
	note "$arch: kunit.py's default run on the untouched baseline ($PACKAGE $(source_version)), output in $out"
	rm -f "$bd/test.log"
	mkdir -p "$(dirname "$file")" "$(dirname "$out")" "$CACHE/build"
	kunit_in "$BASE" "$arch" run --timeout 900 --build_dir "$bd" \
		>"$out" 2>&1 || true
	[ -f "$bd/test.log" ] || { echo "error: the baseline run did not build or boot: $out" >&2; return 1; }
	python3 "$TOP/scripts/results/kunit_baseline.py" write "$bd/test.log" "$file" \
		--version "$(source_version)" --arch "$arch" --command "$cmd"
}
