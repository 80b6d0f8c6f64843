#!/usr/bin/env bash
# Run the tree's scripts/checkpatch.pl --strict on every patch of the series,
# of the RFCs (kernel-patches/TREE/rfc/) and of the fault stage
# (kernel-patches/TREE/faults/).
# Fails on any error, warning or check, except the message types listed for
# a patch in kernel-patches/TREE/checkpatch-exceptions ("<topic>/<patch> <TYPE>
# <why>", the patch also rfc/NAME/PATCH or faults/PATCH), and checks that
# every topic has a cover letter of its own.
. "$(dirname "$0")/../common.sh"

# A missing topic, series or patch stops here, named.
series_files >/dev/null
topics=$(topic_list)
lock shared
"$TOP/scripts/trees/baseline.sh"
exceptions=$PATCHES/checkpatch-exceptions
bad=0
n=0
# A patch found clean is remembered by the hash of what checkpatch reads:
# the patch, its exceptions and checkpatch's own files in the tree.
mkdir -p "$CACHE/checkpatch"
tool=$(cd "$SRC" && cat scripts/checkpatch.pl scripts/spelling.txt \
	scripts/const_structs.checkpatch scripts/spdxcheck.py | sha1sum | cut -c1-40)
while read -r f; do
	n=$((n + 1))
	p=$(patch_name "$f")
	ignore=
	if [ -f "$exceptions" ]; then
		ignore=$(awk -v p="$p" '!/^#/ && $1 == p { printf "%s,", $2 }' "$exceptions")
	fi
	key=$( { echo "$tool $p $ignore"; cat "$f"; } | sha1sum | cut -c1-40)
	if [ -f "$CACHE/checkpatch/$key" ]; then
		echo "checkpatch: ok      $p (unchanged since it was found clean)"
	# /usr/bin first: checkpatch runs scripts/spdxcheck.py with "python3",
	# which needs Debian's python3-ply and python3-git.
	elif out=$(cd "$SRC" && PATH=/usr/bin:/bin:$PATH perl scripts/checkpatch.pl --strict \
		--show-types ${ignore:+--ignore "${ignore%,}"} "$f" 2>&1); then
		echo "checkpatch: ok      $p"
		: >"$CACHE/checkpatch/$key"
	else
		echo "checkpatch: FAILED  $p"
		echo "$out" | sed 's/^/    /'
		bad=$((bad + 1))
	fi
done < <(series_files; for r in $(rfc_list); do rfc_files "$r"; done
	for f in "$PATCHES"/faults/*.patch; do [ ! -f "$f" ] || echo "$f"; done)
# An exception for a patch that is no longer in the series is stale.
if [ -f "$exceptions" ]; then
	for p in $(awk '!/^#/ && NF { print $1 }' "$exceptions"); do
		# faults/ has no series file: its patches are its *.patch
		d=$PATCHES/$(dirname "$p")
		if [ -f "$d/series" ]; then
			grep -q -F -x "$(basename "$p")" "$d/series"
		else
			[ "$(dirname "$p")" = faults ] && [ -f "$PATCHES/$p" ]
		fi || {
			echo "checkpatch: $PNAME/checkpatch-exceptions names $p, which is not in the series"
			bad=$((bad + 1))
		}
	done
fi
for t in $topics; do
	cover=$PATCHES/$t/0000-cover-letter.patch
	if [ ! -f "$cover" ]; then
		echo "checkpatch: $PNAME/$t/0000-cover-letter.patch is missing (make refresh writes it)"
		bad=$((bad + 1))
	elif grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE \*\*\*' "$cover"; then
		echo "checkpatch: $PNAME/$t/0000-cover-letter.patch still has format-patch's placeholders: write its subject and text"
		bad=$((bad + 1))
	fi
done
[ $bad -eq 0 ] || die "checkpatch: $bad of $n patch(es) have errors, warnings or checks"
echo "checkpatch: $n patch(es) clean (--strict)"
