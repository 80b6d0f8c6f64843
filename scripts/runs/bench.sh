#!/usr/bin/env bash
# make bench: benchmarks, reported and never asserted, in results/bench.md.
#
# The merge rate of real I/O: the e2e boot (scripts/runs/e2e.sh) at the
# fragmentation levels BENCH_LEVELS, counted with the kernel's own events
# (hist triggers on block_rq_issue and on a kretprobe event on
# __blk_rq_map_sg), BENCH_BOOTS times (default 3) on the series' kernel
# (the one "make kunit" builds) and on the same kernel with the 2004
# allocator of kernel-patches/TREE/experiments/ (BENCH_2004=0 leaves it out,
# BENCH_SERIES=0 runs only it): a table of ranges over the boots beside
# the 2004 figures, and results/merge-rate.svg (gnuplot).
#
# Each boot also has a second disk on AHCI, whose driver maps each request
# with dma_map_sg(), counted with the dma:dma_map_sg tracepoint: the
# segments the device is given.  On x86_64 (q35) and arm64 each kernel is
# booted as many times again with the arch's IOMMU in front of that disk
# (x86_64: QEMU's intel-iommu; arm64: virt's SMMUv3),
# where the init proves the disk is translated or fails (BENCH_IOMMU=0
# leaves these boots out).  32-bit ARM has no IOMMU boot: Linux drives
# none of QEMU's IOMMU models there (ARM_SMMU_V3 and VIRTIO_IOMMU depend on
# ARM64 or X86).  Table and results/merge-rate-iommu.svg in bench.md.
#
# The 2004 kernel is built in a worktree of its own, $CACHE/experiment,
# into $CACHE/build/2004-ARCH; it is never part of the series.
#
# usage: scripts/runs/bench.sh [ARCH...]
. "$(dirname "$0")/../common.sh"
if [ "${BENCH_2004:-1}" != 0 ] && ! ls "$PATCHES"/experiments/*.patch >/dev/null 2>&1; then
	[ -z "${BENCH_2004:-}" ] ||
		die "BENCH_2004=$BENCH_2004, but there is no $PNAME/experiments/*.patch: no 2004 allocator for this tree"
	note "no $PNAME/experiments/*.patch: no 2004 allocator for $TREE, only the kernel's own order is booted"
	export BENCH_2004=0
fi

[ $# -gt 0 ] || set -- $SUPPORTED_ARCHES
# Each tree's logs apart: a run that boots only one kernel
# (BENCH_SERIES=0, BENCH_2004=0) keeps the other kernel's logs of its tree
# for the table, never those of the other tree.
bench=$RESULTS/bench/$TREE
mkdir -p "$bench"
rc=0
levels=${BENCH_LEVELS:-0,25,50,75,90,95,99}
boots=${BENCH_BOOTS:-3}

# Boot ARCH's kernel with the e2e init at LEVELS, as E2E_NAME: the series'
# kernel of make kunit (BUILD=1 builds it first), or the one in BUILD_DIR.
# With IOMMU=1 in the environment, the machine has its IOMMU and only the
# AHCI disk is measured.
# usage: boot BUILD ARCH LEVELS E2E_NAME [BUILD_DIR]
boot() {
	local ahci=1 disks=vda,sda
	[ "${IOMMU:-0}" = 0 ] || disks=sda
	# The kernels with AHCI (arch-qemu-configs/ARCH.py)
	case "$2" in x86_64 | arm | arm64) ;; *) ahci=0 disks=vda ;; esac
	# Each level fills and frees most of memory: more time than one
	# level of make check's boot gets.
	RESULTS=$bench E2E_BUILD=$1 E2E_BUILD_DIR=${5:-} \
		E2E_TIMEOUT=${BENCH_TIMEOUT:-900} E2E_AHCI=$ahci \
		E2E_IOMMU=${IOMMU:-0} E2E_DISKS=$disks \
		E2E_NAME=$4 "$TOP/scripts/runs/e2e.sh" "$2" "$3"
}

# The arches whose QEMU machine has an IOMMU that Linux drives.
has_iommu() {
	case "$1" in x86_64 | arm64) return 0 ;; esac
	return 1
}

# Whether ARCH's IOMMU boots run: BENCH_IOMMU is not 0, and QEMU has the
# model (named when it does not).
iommu_boots() {
	[ "${BENCH_IOMMU:-1}" != 0 ] && has_iommu "$1" || return 1
	local qemu model
	case "$1" in
	x86_64)
		qemu=qemu-system-x86_64 model=intel-iommu
		"$qemu" -device help 2>/dev/null | grep -q "name \"$model\"" ;;
	arm64)
		qemu=qemu-system-aarch64 model="virt's iommu=smmuv3"
		"$qemu" -machine virt,help 2>/dev/null | grep -q '^ *iommu=' ;;
	esac && return 0
	echo "error: $1: $(command -v "$qemu" || echo "$qemu") has no $model: no IOMMU boot, its figures are not measured" >&2
	rc=1
	return 1
}

"$TOP/scripts/trees/deps.sh" bench "$@"
for arch in "$@"; do
	check_arch "$arch"
	# What runs of the tracepoint design left behind.
	rm -f "$bench/$arch"-e2e.* "$bench/$arch"-e2e-2004.* "$bench/$arch"-cost-*
	iommu=0
	iommu_boots "$arch" && iommu=1
	if [ "${BENCH_SERIES:-1}" = 1 ]; then
		rm -f "$bench/$arch"-e2e-[0-9].* "$bench/$arch"-e2e-[0-9][0-9].* \
			"$bench/$arch"-e2e-iommu-*.*
		# The first boot builds make kunit's kernel if needed; the
		# others boot only a kernel that boot built.
		for i in $(seq "$boots"); do
			if ! boot "$((i == 1))" "$arch" "$levels" "$arch-e2e-$i"; then
				rc=1
				if grep -q '^not run' "$bench/$arch-e2e-$i.status"; then
					echo "error: $arch: the series' kernel did not build or boot" >&2
					break
				fi
			fi
			[ "$iommu" = 0 ] || IOMMU=1 boot 0 "$arch" "$levels" \
				"$arch-e2e-iommu-$i" || rc=1
		done
	fi
	[ "${BENCH_2004:-1}" = 1 ] || continue
	rm -f "$bench/$arch"-e2e-2004-*.*
	# Only the options the tree defines, as for the series' kernel:
	# kunitconfig also names the suites of other trees.
	if KUNITCONFIG=$(topics_kunitconfig "$TOP/kunitconfig") &&
		KUNITCONFIG=$KUNITCONFIG variant_build 2004 "$arch" "$PATCHES"/experiments/*.patch; then
		for i in $(seq "$boots"); do
			boot 0 "$arch" "$levels" "$arch-e2e-2004-$i" \
				"$CACHE/build/2004-$arch" || rc=1
			[ "$iommu" = 0 ] || IOMMU=1 boot 0 "$arch" "$levels" \
				"$arch-e2e-2004-iommu-$i" "$CACHE/build/2004-$arch" || rc=1
		done
	else
		echo "error: $arch: the 2004-allocator kernel did not build" >&2
		rc=1
	fi
done

rm -f "$RESULTS/bench.md" "$RESULTS"/merge-rate.* "$RESULTS"/merge-rate-iommu.*
/usr/bin/python3 "$TOP/scripts/runs/bench-e2e.py" "$bench" "$RESULTS" "$@" || rc=1
echo "written: $(cd "$RESULTS" && ls bench.md merge-rate*.svg 2>/dev/null | tr '\n' ' ')(in $RESULTS; logs in $bench/)"
exit $rc
