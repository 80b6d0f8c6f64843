#!/usr/bin/env bash
# make faults: the fault stage, on x86_64 and arm64 (or the arches
# given); not yet part of make check-full (README.md says why).  The kernel of the series with our kunitconfig and
# arch-qemu-configs/faults.config, the suites whose code allocates built
# as modules, boots the e2e init (scripts/e2e.sh) with e2e_faults=SETTINGS:
# for each setting, the first one without failures, it loads each module
# with failslab and fail_page_alloc failing every N-th allocation of the
# KUnit case threads, then does O_DIRECT I/O failing those of the init
# itself, then asks kmemleak (scripts/e2e/faults.c).
# scripts/faults-judge.py compares each setting with the one without
# failures, and fails the stage on a crash, a splat, a leak, wrong data,
# an attribute the guest refused, or a setting that injected nothing.
# Cases that fail under injected failures do not fail it: they are
# listed.  One line per arch and setting in results/faults.tsv (the
# columns of results/configs.tsv); each setting's console as
# results/ARCH-faults-iN.{log,ktap,junit.xml}.
# usage: scripts/faults.sh [ARCH...]   (default x86_64 arm64)
. "$(dirname "$0")/common.sh"

[ $# -gt 0 ] || set -- x86_64 arm64
# Every N-th allocation fails, N in turn (0: none).  The kernel offers no
# seed for its random "probability", so intervals.
SETTINGS=${FAULT_SETTINGS:-0,2,5,17}
# The suites whose code allocates: option and the module the build makes.
MODULES="SCSI_AACRAID_SCSI_CMD_KUNIT_TEST drivers/scsi/aacraid/aacraid_scsi_cmd_kunit.ko
SCATTERLIST_KUNIT_TEST lib/scatterlist_kunit.ko
PAGE_ORDER_KUNIT_TEST mm/page_order_kunit.ko
DMA_COHERENT_KUNIT_TEST kernel/dma/dma_coherent_kunit.ko"

out=$RESULTS/faults
tsv=$RESULTS/faults.tsv
rm -rf "$out" "$tsv"
rm -f "$RESULTS"/*-faults*.{log,ktap,junit.xml,status}
mkdir -p "$out"
printf 'config\tarch\tbuilt\tbooted\tpassed\twarnings\tcases\tnote\n' >"$tsv"
"$TOP/scripts/deps.sh" "$@" >/dev/null

kc=$out/faults.kunitconfig
{
	grep -E '^CONFIG_' "$TOP/kunitconfig" | while IFS='=' read -r k v; do
		if echo "$MODULES" | grep -q "^${k#CONFIG_} "; then
			echo "$k=m"
		else
			echo "$k=$v"
		fi
	done
	cat "$TOP/arch-qemu-configs/faults.config"
} >"$kc"
mods=$(echo "$MODULES" | awk '{ print $2 }' | tr '\n' ' ')

lock shared
rc=0
for arch in "$@"; do
	check_arch "$arch"
	bd=$CACHE/build/faults-$arch
	note "$arch: the series with fault injection (build in $bd), settings $SETTINGS"
	if ! KUNITCONFIG=$kc variant_build faults "$arch" >"$out/build-$arch.out" 2>&1; then
		printf 'faults\t%s\tno\t-\t-\t-\t-\tbuild failed: see %s\n' "$arch" "$out/build-$arch.out" >>"$tsv"
		rc=1
		continue
	fi
	E2E_NAME=$arch-faults E2E_BUILD=0 E2E_BUILD_DIR=$bd E2E_MODULES=$mods \
		E2E_ARGS="kunit.enable=1 e2e_faults=$SETTINGS" E2E_TIMEOUT=${FAULT_TIMEOUT:-2400} \
		"$TOP/scripts/e2e.sh" "$arch" >"$out/$arch.out" 2>&1 || true
	if [ ! -s "$RESULTS/$arch-faults.log" ]; then
		printf 'faults\t%s\tyes\tno\t-\t-\t-\tdid not boot: see %s\n' "$arch" "$out/$arch.out" >>"$tsv"
		rc=1
		continue
	fi
	python3 "$TOP/scripts/faults-judge.py" "$arch" "$SETTINGS" >>"$tsv" || rc=1
done
exit $rc
