#!/usr/bin/env bash
# make merge-results DIRS="d1 d2 ...": combine the results/ directories of
# CI jobs ("make check-full TREE=t ARCH=x" each, one tree) into this
# results/: one summary table and one closing line over all of them.
# Each directory's arches are checked against the plan again; a
# configuration stage that did not finish in one job fails the merge, as
# does a run of the RFC, KCSAN or fault stage that no job left a row of,
# where some job ran that stage (the fault stage: each of its arches), and half of the configuration stage of an
# arch (alltests-ARCH, builds-ARCH) without the other.  KCSAN reports judged without the baseline
# boot are compared with the kcsan-base job's (kcsan-judge.py
# --fill-baseline).
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
		# A stage split over jobs (faults-ARCH, kcsan-*, rfc-*): one
		# file, judged once.
		if [ ! -f "$merged/$st.tsv" ]; then
			head -n 1 "$d/$st.tsv" >"$merged/$st.tsv"
			case "$st" in rfc) stage_args+=(--rfc) ;; *) stage_args+=(--stage "$st") ;; esac
		fi
		tail -n +2 "$d/$st.tsv" | grep -v '^# complete$' >>"$merged/$st.tsv" || true
		[ "$(tail -n 1 "$d/$st.tsv")" = "# complete" ] || incomplete+=" $st"
		# The KCSAN reports of each job that ran a part of that stage
		if [ "$st" = kcsan ] && [ -f "$d/kcsan-reports.tsv" ]; then
			if [ -f "$merged/kcsan-reports.tsv" ]; then
				tail -n +2 "$d/kcsan-reports.tsv" >>"$merged/kcsan-reports.tsv"
			else
				cp "$d/kcsan-reports.tsv" "$merged/"
			fi
		fi
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
# A stage split over jobs (rfc-NAME-ARCH, kcsan-*) has a row of each of
# its runs: the results of a job that left none are missing, not passed.
rc=0 missing=()
if [ -f "$merged/rfc.tsv" ]; then
	while read -r name a; do
		grep -q "^rfc-$name	$a	" "$merged/rfc.tsv" ||
			missing+=("the RFC stage: RFC $name on $a (part rfc-$name-$a)")
	done < <(rfc_runs rfc)
fi
if [ -f "$merged/kcsan.tsv" ]; then
	for row in kcsan kcsan-e2e base-kcsan-e2e $(rfc_runs rfc | sed -n 's/^\(.*\) x86_64$/rfc-\1-kcsan/p'); do
		case "$row" in
		kcsan*) part=kcsan-series ;;
		base-*) part=kcsan-base ;;
		*) part=kcsan-${row%-kcsan} ;;
		esac
		cut -f1 "$merged/kcsan.tsv" | grep -qxF "$row" ||
			missing+=("the KCSAN stage: run $row (part $part)")
	done
fi
if [ -f "$merged/faults.tsv" ]; then
	for a in $FAULT_ARCHES; do
		awk -F '\t' -v a="$a" '$2 == a { found = 1 } END { exit !found }' "$merged/faults.tsv" ||
			missing+=("the fault stage: $a (part faults-$a)")
	done
fi
# The configuration stage on x86_64 and arm, split over alltests-ARCH and
# builds-ARCH: where one left rows of an arch, so did the other
for a in x86_64 arm; do
	have=$(awk -F '\t' -v a="$a" '$2 == a { print $1 }' "$merged/configs.tsv")
	[ -n "$have" ] || continue
	for c in alltests off modules warnings; do
		echo "$have" | grep -qxF "$c" ||
			missing+=("the configuration stage: $c on $a (part $([ $c = alltests ] && echo alltests || echo builds)-$a)")
	done
done
for m in "${missing[@]}"; do
	echo "error: no result of $m among the jobs merged"
	rc=1
done
rm -rf "$RESULTS/configs"
cp -r "$merged"/. "$RESULTS/"
# The KCSAN reports of the jobs without the baseline boot, against its
# reports (kcsan-base ran in a job of its own)
if [ -f "$RESULTS/kcsan.tsv" ]; then
	RESULTS=$RESULTS python3 "$TOP/scripts/results/kcsan-judge.py" --fill-baseline || rc=1
fi
"$TOP/scripts/results/check-results.py" "${arches[@]}" "${stage_args[@]}" --configs --tier full || rc=1
exit $rc
