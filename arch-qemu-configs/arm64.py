# kunit.py --qemu_config for arm64 on QEMU "virt" (Cortex-A57, 1G of RAM
# at 0x40000000): the tree's own qemu_configs/arm64.py, PCI for aacraid,
# plus the kernel's runtime checkers (checkers.config) and what the
# end-to-end boot needs (e2e.config), two CPUs and
# panic_on_warn=1, so that any WARN fails the run by itself.  KASAN runs in
# generic mode, as on the other arches: SW_TAGS would build with GCC 12,
# but it finds a bad access only with high probability (8-bit tags) and at
# 16-byte granularity, while generic mode checks every access against
# byte-exact shadow memory.
#
# Device-local memory for the harness's check of device tree pools (the
# e2e boot's e2e_dt_shared_dma_pool, scripts/runs/e2e/dt-pools/): arm64 selects
# OF_EARLY_FLATTREE, which selects DMA_DECLARE_COHERENT and gives
# OF_RESERVED_MEM, and the pools are declared in the device tree as on
# arm (dtb.py).  mem=896M keeps the top 128M of the 1G out of the memory
# map: arm64 (SPARSEMEM_VMEMMAP) has
# struct pages, and pfn_valid(), for whole 128M sections of early memory,
# so the hole must be a whole section for the pool at its top to have no
# struct page.
#
# Two NUMA nodes (numa-node-id in QEMU's device tree): node 0 with both
# CPUs and the first 768M, node 1 with the rest and no CPU, of which
# mem=896M leaves 128M: the suites run on a NUMA machine here.
#
# make bench's second disk (scripts/runs/bench.sh) sits on an AHCI
# controller, whose driver maps its requests with dma_map_sg(); with
# DMATOPICS_IOMMU=1 the machine has QEMU's SMMUv3 (virt's iommu=smmuv3,
# which translates the devices of its PCIe host), in the DTB too.
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

MACHINE = ('virt,iommu=smmuv3' if os.environ.get('DMATOPICS_IOMMU') == '1'
	   else 'virt')
QEMU_PARAMS = ['-machine', MACHINE, '-cpu', 'cortex-a57', '-m', '1G',
	       '-smp', '2',
	       '-object', 'memory-backend-ram,id=m0,size=768M',
	       '-object', 'memory-backend-ram,id=m1,size=256M',
	       '-numa', 'node,nodeid=0,cpus=0-1,memdev=m0',
	       '-numa', 'node,nodeid=1,memdev=m1']
# The DTB describes the machine these parameters make.
DTB = dtb.make_dtb('aarch64', QEMU_PARAMS, 0x80000000)

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_SMP=y
CONFIG_NUMA=y
CONFIG_PCI_HOST_GENERIC=y
CONFIG_SERIAL_AMBA_PL010=y
CONFIG_SERIAL_AMBA_PL010_CONSOLE=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
# make bench's AHCI disk, and the IOMMU it is measured behind
CONFIG_ATA=y
CONFIG_SATA_AHCI=y
CONFIG_BLK_DEV_SD=y
CONFIG_ARM_SMMU_V3=y
''' + CHECKERS + E2E,
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image.gz',
			   kernel_command_line='console=ttyAMA0 mem=896M panic_on_warn=1',
			   extra_qemu_params=QEMU_PARAMS + ['-dtb', DTB])
