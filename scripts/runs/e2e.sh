#!/usr/bin/env bash
# make e2e [ARCH=...]: the end-to-end boot.  Boots the kernel of our
# configuration for ARCH (the one "make kunit ARCH=..." builds and runs)
# in QEMU with a virtio-blk disk (a sparse file in the cache, made anew for
# every boot, removed after it) and an initramfs whose init is
# scripts/runs/e2e/odirect.c (with uio.c), built static with Debian's
# libc for that arch.  init writes and reads back E2E_MIB MiB (default 16)
# with O_DIRECT at each fragmentation level of LEVELS (percent of filled
# memory that stays allocated, default "0"), counts pages and scatterlist
# entries with hist triggers on block_rq_issue and on a kretprobe event on
# __blk_rq_map_sg, prints KTAP (suite e2e_odirect) and "# bench:" lines,
# and powers off.  With E2E_ARGS="e2e_uio=1 uio_pdrv_genirq.of_id=..."
# (scripts/runs/rfc.sh, on arm64), it then maps, forks, mremaps and unbinds a
# UIO device (suite e2e_uio, scripts/runs/e2e/uio.c).
#
# Results, like those of run-kunit.sh, under the name ARCH-e2e (E2E_NAME=
# overrides): results/NAME.{status,log,ktap,junit.xml}; check-results.py
# checks them against the e2e_odirect rows of kunit/plan.
#
# E2E_BUILD=0 boots the build directory as it is (make check, right after
# that arch's KUnit stage built it); E2E_BUILD_DIR= another build directory
# of the same arch (make bench: the experiment kernel; scripts/runs/rfc.sh: an
# RFC's).  E2E_ARGS= more words for the kernel command line; E2E_MODULES=
# modules of the build (paths under it) for the e2e_faults suite
# (scripts/runs/e2e/faults.c, scripts/runs/faults.sh); E2E_KMOD=0 leaves
# out the harness's KUnit modules (kernel-patches/TREE/e2e-kmod).
# E2E_AHCI=1 (make bench) adds a second disk on an AHCI controller, sda
# (DMATOPICS_AHCI=1 for arch-qemu-configs/ARCH.py: x86_64 boots q35), and
# measures E2E_DISKS (default "vda,sda", "sda" with E2E_IOMMU=1); E2E_IOMMU=1 (x86_64 and arm64)
# boots the machine with its IOMMU in front of the disks
# (arch-qemu-configs/ARCH.py, DMATOPICS_IOMMU) and has the init prove that
# the AHCI disk is translated.
#
# usage: scripts/runs/e2e.sh ARCH [LEVELS]
. "$(dirname "$0")/../common.sh"

arch=${1:?usage: e2e.sh ARCH [LEVELS]}
levels=${2:-0}
check_arch "$arch"
name=${E2E_NAME:-$arch-e2e}
build=${E2E_BUILD_DIR:-$CACHE/build/$arch}

mkdir -p "$RESULTS"
status=$RESULTS/$name.status
rm -f "$RESULTS/$name".{log,ktap,junit.xml}
echo "not run: the e2e boot stopped before the guest started" >"$status"
interrupted() {
	trap '' INT TERM
	echo "not run: interrupted" >"$status"
	echo "interrupted: the $name boot stopped" >&2
	exit 130
}
trap interrupted INT TERM
fail() {
	echo "not run: $1" >"$status"
	die "$name: $1"
}

"$TOP/scripts/trees/deps.sh" "$arch" || fail "installing the packages failed"
lock shared
if [ "${E2E_BUILD:-1}" = 1 ]; then
	"$TOP/scripts/trees/apply.sh" || fail "the series does not apply (see above)"
	# Only the options the tree defines (with TOPICS, of the topics applied).
	KUNITCONFIG=$(topics_kunitconfig "${KUNITCONFIG:-$TOP/kunitconfig}")
	export KUNITCONFIG
	our_kunit_args "$arch" "$build"
	(cd "$SRC" && PATH=$TOP/scripts/runs/kunit-path:$PATH \
		python3 tools/testing/kunit/kunit.py build --jobs "$(nproc)" "${KARGS[@]}") ||
		fail "the kernel did not build (see above)"
fi
[ -f "$build/.config" ] || fail "no kernel in $build (make kunit ARCH=$arch)"

# A directory of this boot's own: two runs of one arch (make check and
# make bench) may boot at the same time.
mkdir -p "$CACHE/e2e"
work=$(mktemp -d "$CACHE/e2e/$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
cross=$(cross_of "$arch")
"${cross}gcc" -static -pthread -O2 -Wall -Wextra -Werror -o "$work/init" \
	"$TOP/scripts/runs/e2e/odirect.c" "$TOP/scripts/runs/e2e/uio.c" "$TOP/scripts/runs/e2e/faults.c" \
	"$TOP/scripts/runs/e2e/kmod.c" "$TOP/scripts/runs/e2e/uio_maps.c" ||
	fail "the init program did not build"
gcc -O2 -o "$work/gen_init_cpio" "$SRC/usr/gen_init_cpio.c" ||
	fail "usr/gen_init_cpio did not build"
cat >"$work/initramfs.list" <<EOF
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0555 0 0
dir /sys 0555 0 0
file /init $work/init 0755 0 0
EOF
# E2E_MODULES: modules of the build, by path under it, loaded in that
# order by the e2e_faults suite (scripts/runs/faults.sh); PATH:plain, only
# without failures.
if [ -n "${E2E_MODULES:-}" ]; then
	echo "dir /modules 0755 0 0" >>"$work/initramfs.list"
	for m in $E2E_MODULES; do
		f=${m%%:*}
		[ -f "$build/$f" ] || fail "no module $f in $build"
		echo "file /modules/${f##*/} $build/$f 0644 0 0" >>"$work/initramfs.list"
		if [ "$m" = "$f:plain" ]; then
			echo "${f##*/} plain" >>"$work/order"
		else
			echo "${f##*/}" >>"$work/order"
		fi
	done
	echo "file /modules/order $work/order 0644 0 0" >>"$work/initramfs.list"
fi
# build_module LIST DIR: builds the external module scripts/runs/e2e/DIR
# (named in kernel-patches/TREE/LIST) against the booted kernel, in
# $work/kmod/DIR, and sets kos to the .ko files it built.
build_module() {
	local list=$1 dir=$2 karch
	[ -d "$TOP/scripts/runs/e2e/$dir" ] || fail "$PNAME/$list: no scripts/runs/e2e/$dir"
	mkdir -p "$work/kmod"
	cp -r "$TOP/scripts/runs/e2e/$dir" "$work/kmod/$dir"
	case "$arch" in arm | arm-lpae) karch=arm ;; *) karch=$arch ;; esac
	make -s -C "$SRC" O="$build" M="$work/kmod/$dir" ARCH="$karch" \
		${cross:+CROSS_COMPILE="$cross"} modules >"$work/kmod/$dir.out" 2>&1 || {
		cat "$work/kmod/$dir.out" >&2
		fail "the module of scripts/runs/e2e/$dir did not build against $build"
	}
	kos=("$work/kmod/$dir"/*.ko)
	[ -f "${kos[0]}" ] || fail "scripts/runs/e2e/$dir built no module"
}
# The harness's KUnit modules for this tree and arch (kernel-patches/TREE/
# e2e-kmod), built against the booted kernel, in /kmod for kmod.c; the
# boot then has kunit.autorun=0, so that they run when the init asks.
# Not with E2E_KMOD=0 (the fault stage, whose suites run as their modules
# load).
kmod_args=()
if [ -f "$PATCHES/e2e-kmod" ] && [ "${E2E_KMOD:-1}" != 0 ]; then
	while read -r dir suite arches; do
		case "$dir" in '' | '#'*) continue ;; esac
		case " $arches " in *" $arch "*) ;; *) continue ;; esac
		build_module e2e-kmod "$dir"
		for ko in "${kos[@]}"; do
			echo "file /kmod/${ko##*/} $ko 0644 0 0" >>"$work/kmod/list"
			echo "${ko##*/} $suite" >>"$work/kmod/suites"
		done
	done <"$PATCHES/e2e-kmod"
	if [ -f "$work/kmod/suites" ]; then
		{
			echo "dir /kmod 0755 0 0"
			cat "$work/kmod/list"
			echo "file /kmod/suites $work/kmod/suites 0644 0 0"
		} >>"$work/initramfs.list"
		kmod_args=(kunit.enable=1 kunit.autorun=0)
	fi
fi
# The harness's device drivers for this tree and arch (kernel-patches/TREE/
# e2e-drivers), built against the booted kernel, in /e2e-drivers, where
# the topic whose fixes their suite checks is applied: a suite of the init
# runs where its driver is there (uio-maps: uio_maps.c).
if [ -f "$PATCHES/e2e-drivers" ]; then
	echo "dir /e2e-drivers 0755 0 0" >>"$work/initramfs.list"
	applied=" $(topic_list | tr '\n' ' ') "
	while read -r dir topic arches; do
		case "$dir" in '' | '#'*) continue ;; esac
		case " $arches " in *" $arch "*) ;; *) continue ;; esac
		case "$applied" in *" $topic "*) ;; *) continue ;; esac
		build_module e2e-drivers "$dir"
		for ko in "${kos[@]}"; do
			echo "file /e2e-drivers/${ko##*/} $ko 0644 0 0" >>"$work/initramfs.list"
		done
	done <"$PATCHES/e2e-drivers"
fi
"$work/gen_init_cpio" "$work/initramfs.list" >"$work/initramfs.cpio" ||
	fail "the initramfs could not be made"
mib=${E2E_MIB:-16}
truncate -s $((mib + 16))M "$work/disk.img"
ahci=() disk_args=()
if [ "${E2E_AHCI:-0}" = 1 ]; then
	truncate -s $((mib + 16))M "$work/ahci.img"
	ahci=(--ahci-disk "$work/ahci.img")
	disk_args=("e2e_disks=${E2E_DISKS:-$([ "${E2E_IOMMU:-0}" = 1 ] && echo sda || echo vda,sda)}")
	export DMATOPICS_AHCI=1
fi
if [ "${E2E_IOMMU:-0}" = 1 ]; then
	case "$arch" in
	x86_64 | arm64) ;;
	*) fail "no IOMMU boot on $arch: Linux drives none of QEMU's IOMMU models there" ;;
	esac
	export DMATOPICS_IOMMU=1
	disk_args+=(e2e_iommu=1)
fi

# x86_64: acpi=noirq.  The disk's virtio-pci function is driven by MSI-X
# (arch-qemu-configs/x86_64.py), yet enabling it evaluates the _PRT of
# QEMU's PCI host bridge in the ACPI interpreter; under TCG with KASAN,
# lockdep and kmemleak that takes over a minute and trips an RCU stall.
kargs=()
case "$arch" in
x86_64) timeout=${E2E_TIMEOUT:-120} kargs=(acpi=noirq) ;;
*) timeout=${E2E_TIMEOUT:-300} ;;
esac
note "$name: booting with init scripts/runs/e2e/odirect.c, $mib MiB, levels $levels"
rc=0
# kunit-path/: QEMU under TCG only, as for the KUnit runs (e2e-boot.py
# starts it through the tree's kunit.py code, which asks for KVM first
# in 7.3, not in 6.12)
PATH=$TOP/scripts/runs/kunit-path:$PATH \
/usr/bin/python3 "$TOP/scripts/runs/e2e-boot.py" --tree "$SRC" --build-dir "$build" \
	--qemu-config "$TOP/arch-qemu-configs/$arch.py" ${cross:+--cross "$cross"} \
	--initrd "$work/initramfs.cpio" --disk "$work/disk.img" "${ahci[@]}" \
	--log "$work/console.log" --timeout "$timeout" \
	"${kargs[@]}" "${kmod_args[@]}" "${disk_args[@]}" ${E2E_ARGS:-} \
	"e2e_mib=$mib" "e2e_levels=$levels" || rc=$?
[ -s "$work/console.log" ] || fail "QEMU printed nothing (exit $rc)"
cp "$work/console.log" "$RESULTS/$name.log"
echo ran >"$status"
/usr/bin/python3 "$TOP/scripts/results/export-results.py" "$name" ||
	echo "error: $name: could not write the KTAP and JUnit files" >&2
exit $rc
