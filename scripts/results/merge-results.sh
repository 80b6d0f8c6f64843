#!/usr/bin/env bash
# make merge-results DIRS="d1 d2 ...": combine the results/ directories of
# per-arch jobs ("make check ARCH=x" each) into this results/: one summary
# table and one closing line over all of them.  Each directory's arches
# are checked against the plan again; a configuration stage that did not
# finish in one job fails the merge.
#
# usage: scripts/results/merge-results.sh DIR...
. "$(dirname "$0")/../common.sh"

[ $# -gt 0 ] || die "usage: make merge-results DIRS=\"results-x86_64 results-arm ...\""
# kunit.py's parser comes from the tree; a merge job that built nothing
# (a CI merge job) takes it from the package's tarball instead.
if [ -z "${KUNIT_TOOLS:-}" ] && [ ! -f "$SRC/tools/testing/kunit/kunit_parser.py" ]; then
	"$TOP/scripts/trees/deps.sh" um
	export KUNIT_TOOLS=$CACHE/kunit-tools/$(source_version)
	if [ ! -f "$KUNIT_TOOLS/kunit_parser.py" ]; then
		note "taking kunit.py's parser from $TARBALL"
		rm -rf "$KUNIT_TOOLS" && mkdir -p "$KUNIT_TOOLS"
		tar -xJf "$TARBALL" -C "$KUNIT_TOOLS" --strip-components=4 \
			$PACKAGE/tools/testing/kunit ||
			die "could not extract tools/testing/kunit from $TARBALL"
	fi
fi
mkdir -p "$RESULTS"
merged=$(mktemp -d)
trap 'rm -rf "$merged"' EXIT
arches=() stage_args=()
printf 'config\tarch\tbuilt\tbooted\tpassed\twarnings\tcases\tnote\n' >"$merged/configs.tsv"
complete=1 incomplete=
for d in "$@"; do
	[ -d "$d" ] || die "no results directory $d"
	for s in "$d"/*.status; do
		[ -e "$s" ] || continue
		a=$(basename "$s" .status)
		cp "$d/$a".* "$merged/"
		# The runs of the arches; those of the stages (rfc, kcsan,
		# faults) are judged through their .tsv.
		case "$a" in x86_64 | arm | arm-lpae | arm64 | *[a-z0-9]-e2e)
			case "$a" in rfc-* | *-kcsan* | base-*) ;; *) arches+=(--arch "$a") ;; esac ;;
		esac
	done
	for st in rfc kcsan faults; do
		[ -f "$d/$st.tsv" ] || continue
		# A stage split over jobs (faults-ARCH): one file, judged once.
		if [ ! -f "$merged/$st.tsv" ]; then
			head -n 1 "$d/$st.tsv" >"$merged/$st.tsv"
			case "$st" in rfc) stage_args+=(--rfc) ;; *) stage_args+=(--stage "$st") ;; esac
		fi
		tail -n +2 "$d/$st.tsv" | grep -v '^# complete$' >>"$merged/$st.tsv" || true
		[ "$(tail -n 1 "$d/$st.tsv")" = "# complete" ] || incomplete+=" $st"
		[ -f "$d/kcsan-reports.tsv" ] && [ "$st" = kcsan ] && cp "$d/kcsan-reports.tsv" "$merged/"
	done
	if [ -f "$d/configs.tsv" ]; then
		tail -n +2 "$d/configs.tsv" | grep -v '^# complete$' >>"$merged/configs.tsv" || true
		[ "$(tail -n 1 "$d/configs.tsv")" = "# complete" ] || complete=0
		[ -d "$d/configs" ] && cp -r "$d/configs" "$merged/"
	fi
done
[ $complete = 1 ] && echo "# complete" >>"$merged/configs.tsv"
# A stage ran to its end only if it did in every job that ran it.
for st in rfc kcsan faults; do
	[ -f "$merged/$st.tsv" ] || continue
	[[ " $incomplete " == *" $st "* ]] || echo "# complete" >>"$merged/$st.tsv"
done
[ ${#arches[@]} -gt 0 ] || die "no arch results in $*"
rm -rf "$RESULTS/configs"
cp -r "$merged"/. "$RESULTS/"
exec "$TOP/scripts/results/check-results.py" "${arches[@]}" "${stage_args[@]}" --configs --tier full
