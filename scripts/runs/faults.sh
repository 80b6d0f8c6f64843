#!/usr/bin/env bash
# make faults: the fault stage of make check-full, on x86_64 and arm64
# (or the arches given).  The kernel of the series plus the patches of
# kernel-patches/TREE/faults/ (applied for this stage only:
# kunit.make_it_fail, and what KUnit itself needs under injection: no
# leak in a kunit_alloc_resource() whose init callback fails (6.12, 7.3)
# or in a failed kunit_kzalloc() (6.1), module suites run once the
# module is live (6.1), and a case whose set-up fails either skipped by
# the suite, naming the allocation (6.1, 6.12), or reported as failed
# without injection into its report (7.3)), with our kunitconfig and
# arch-qemu-configs/faults.config and every suite of
# kernel-patches/TREE/faults/modules as a module, boots the e2e init
# (scripts/runs/e2e.sh) with e2e_faults=SETTINGS: for each setting, the first
# one without failures, it loads each module with failslab and
# fail_page_alloc failing every N-th allocation of the KUnit case
# threads, then has a child do O_DIRECT I/O with its own allocations
# failing, then, on the arch with the UIO RFC, a child map, fork, split
# and unbind the UIO device, then asks kmemleak (scripts/runs/e2e/faults.c).
# scripts/results/faults-judge.py compares each setting with the one without
# failures, and fails the stage on a crash, a splat, a leak, wrong data,
# an attribute the guest refused, or a setting that injected nothing.
# Cases that fail under injected failures do not fail it: they are
# listed.  One line per arch and setting in results/faults.tsv (the
# columns of results/configs.tsv); each setting's console as
# results/ARCH-faults-iN.{log,ktap,junit.xml}.
# usage: scripts/runs/faults.sh [ARCH...]   (default x86_64 arm64)
. "$(dirname "$0")/../common.sh"

harness=("$PATCHES"/faults/*.patch)
[ -f "${harness[0]}" ] || die "no $PNAME/faults/*.patch: the fault stage's kernel patches are missing"

# shellcheck disable=SC2086 # one arch per word
[ $# -gt 0 ] || set -- $FAULT_ARCHES
# Every N-th allocation fails, N in turn (0: none).  The kernel offers no
# seed for its random "probability", so intervals.
SETTINGS=${FAULT_SETTINGS:-0,2,5,17}
# The suites of the series the list names (kernel-patches/TREE/faults/
# modules: option and the module the build makes), as modules.  Those
# marked ":plain" load only in the run without failures, so that every
# suite listed is seen to load and pass as a module.
[ -f "$PATCHES/faults/modules" ] || die "no $PNAME/faults/modules: the fault stage's list of modules is missing"
# Option and module of each line, without comments (a line with an
# option and no module stops the stage).
MODULES=$(awk '$1 !~ /^#/ && NF { print $1, ($2 ~ /^#/ ? "" : $2) }' "$PATCHES/faults/modules")
bad=$(echo "$MODULES" | awk 'NF == 1 { print $1 }')
[ -z "$bad" ] || die "$PNAME/faults/modules: $bad names no module"

out=$RESULTS/faults
tsv=$RESULTS/faults.tsv
rm -rf "$out" "$tsv"
rm -f "$RESULTS"/*-faults*.{log,ktap,junit.xml,status}
mkdir -p "$out"
printf 'config\tarch\tbuilt\tbooted\tpassed\twarnings\tcases\tnote\n' >"$tsv"
"$TOP/scripts/trees/deps.sh" "$@" >/dev/null

# Our kunitconfig with the tree's additions, cut to the options the tree
# defines (so the series is applied first, and kept there); the modules
# of the options left.
lock shared
"$TOP/scripts/trees/apply.sh" >/dev/null ||
	die "the series does not apply (scripts/trees/apply.sh)"

kc=$out/faults.kunitconfig
{
	tree_kunitconfig "$TOP/kunitconfig" | grep -E '^CONFIG_' | defined_options |
		while IFS='=' read -r k v; do
			if echo "$MODULES" | awk -v o="${k#CONFIG_}" '$1 == o { f = 1 } END { exit !f }'; then
				echo "$k=m"
			else
				echo "$k=$v"
			fi
		done
	cat "$TOP/arch-qemu-configs/faults.config"
} >"$kc"
mods=$(echo "$MODULES" | while read -r opt mod; do
	if grep -q "^CONFIG_$opt=m\$" "$kc"; then echo "$mod"; fi
done | tr '\n' ' ')
[ -n "${mods// /}" ] || die "no module of $PNAME/faults/modules is an option of this tree's series"

# The UIO RFC's e2e workload (mapping, fork, split, unbind of a UIO
# device: scripts/runs/e2e/uio.c) needs its device, which the device tree of
# the arch its e2e file names has: there the kernel also carries the RFC
# (kernel-patches/TREE/rfc/uio, where the tree has it), its options and
# its command line.
# Not its e2e_uio suite: the stage runs its own workload on the device.
uio_arch=$(sed -n 's/^arch //p' "$PATCHES/rfc/uio/e2e" 2>/dev/null || true)
uio_args=$(sed -n 's/^args //p' "$PATCHES/rfc/uio/e2e" 2>/dev/null |
	tr ' ' '\n' | grep -v '^e2e_uio=' | tr '\n' ' ' || true)

rc=0
for arch in "$@"; do
	check_arch "$arch"
	bd=$CACHE/build/faults-$arch
	akc=$kc patches=() args=
	if [ "$arch" = "$uio_arch" ]; then
		files=$(rfc_files uio) || die "$PNAME/rfc/uio: a series or patch is missing"
		[ -z "$files" ] || mapfile -t patches <<<"$files"
		# Its options, but not its KUnit suite, which is not loaded.
		akc=$out/faults-uio.kunitconfig
		{ cat "$kc"; grep -v -e '^#' -e '_KUNIT_TEST=' "$PATCHES/rfc/uio/config" || true; } >"$akc"
		args=$uio_args
	fi
	note "$arch: the series$([ -z "$args" ] || echo " and the UIO RFC") with fault injection (build in $bd), settings $SETTINGS"
	if ! KUNITCONFIG=$akc variant_build faults "$arch" "${patches[@]}" "${harness[@]}" >"$out/build-$arch.out" 2>&1; then
		printf 'faults\t%s\tno\t-\t-\t-\t-\tbuild failed: see %s\n' "$arch" "$out/build-$arch.out" >>"$tsv"
		rc=1
		continue
	fi
	# A module the build did not make (its option off on this arch, or a
	# wrong path in the list): named, before the boot.
	missing=
	for m in $mods; do
		[ -f "$bd/${m%%:*}" ] || missing="$missing ${m%%:*}"
	done
	if [ -n "$missing" ]; then
		printf 'faults\t%s\tyes\t-\t-\t-\t-\tnot built:%s (see %s/.config)\n' "$arch" "$missing" "$bd" >>"$tsv"
		rc=1
		continue
	fi
	E2E_NAME=$arch-faults E2E_BUILD=0 E2E_BUILD_DIR=$bd E2E_MODULES=$mods E2E_KMOD=0 \
		E2E_ARGS="kunit.enable=1 e2e_faults=$SETTINGS $args" E2E_TIMEOUT=${FAULT_TIMEOUT:-2400} \
		"$TOP/scripts/runs/e2e.sh" "$arch" >"$out/$arch.out" 2>&1 || true
	if [ ! -s "$RESULTS/$arch-faults.log" ]; then
		printf 'faults\t%s\tyes\tno\t-\t-\t-\tdid not boot: see %s\n' "$arch" "$out/$arch.out" >>"$tsv"
		rc=1
		continue
	fi
	python3 "$TOP/scripts/results/faults-judge.py" "$arch" "$SETTINGS" >>"$tsv" || rc=1
done
echo "# complete" >>"$tsv"
exit $rc
