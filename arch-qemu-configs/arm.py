# kunit.py --qemu_config for 32-bit ARM on QEMU "virt" (Cortex-A15, 1G of
# RAM at 0x40000000): the tree's own qemu_configs/arm.py, PCI for aacraid,
# plus the kernel's runtime checkers (checkers.config) and what the
# end-to-end boot needs (e2e.config), two CPUs and
# panic_on_warn=1, so that any WARN fails the run by itself.
#
# Device-local memory for the harness's check of device tree pools (the
# e2e boot's e2e_dt_shared_dma_pool, scripts/runs/e2e/dt-pools/), declared
# as boards declare it: the guest boots with QEMU's own device tree plus
# "shared-dma-pool" reserved-memory regions (dtb.py).
# The first is the top 1M of RAM, which the kernel does not manage, so it
# has no struct page: without HIGHMEM (as here) the kernel manages only
# lowmem, below 0x70000000 with the 3G/1G split, and mem=1023M keeps the
# top 1M out of the RAM it manages (with HIGHMEM and FLATMEM that would
# not be enough: ARM keeps struct pages for every 4M pageblock that
# memory overlaps, which is why arm-lpae.py leaves 4M out).  With
# SPARSEMEM (below) that memory is in a section with no memory map at
# all.  The second lies in lowmem, with struct pages.
#
# highmem=off: QEMU's default places the PCIe ECAM above 4G, which a
# kernel without LPAE cannot map ("can't claim ECAM area"), and the PCI
# host, with the virtio-blk disk of the e2e boot, would not probe.
import importlib.util
import os

from ..qemu_config import QemuArchParams

_here = os.path.dirname(__file__)
_spec = importlib.util.spec_from_file_location('dmatopics_dtb',
					       os.path.join(_here, 'dtb.py'))
dtb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dtb)

with open(os.path.join(_here, 'checkers.config')) as f:
	CHECKERS = f.read()
with open(os.path.join(_here, 'e2e.config')) as f:
	E2E = f.read()

QEMU_PARAMS = ['-machine', 'virt,highmem=off', '-smp', '2']
# The DTB describes the machine these parameters make.
DTB = dtb.make_dtb('arm', QEMU_PARAMS, 0x80000000)

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='''
CONFIG_ARCH_VIRT=y
CONFIG_SMP=y
# SPARSEMEM, not FLATMEM: 256M sections, so that the top of RAM the kernel
# does not manage (above lowmem, with the first pool) has no memory map
# at all, and a struct page made up for it points at nothing
CONFIG_SPARSEMEM_MANUAL=y
# the e2e boot's init is an armhf program: hard-float, so VFP
CONFIG_VFP=y
CONFIG_PCI_HOST_GENERIC=y
CONFIG_SERIAL_AMBA_PL010=y
CONFIG_SERIAL_AMBA_PL010_CONSOLE=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
# make bench's AHCI disk (no IOMMU: Linux drives none of QEMU's models on
# 32-bit ARM)
CONFIG_ATA=y
CONFIG_SATA_AHCI=y
CONFIG_BLK_DEV_SD=y
''' + CHECKERS + E2E,
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyAMA0 mem=1023M panic_on_warn=1',
			   extra_qemu_params=QEMU_PARAMS + ['-dtb', DTB])
