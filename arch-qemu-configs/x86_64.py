# kunit.py --qemu_config for x86_64: the tree's own qemu_configs/x86_64.py
# plus the kernel's runtime checkers (checkers.config) and what the
# end-to-end boot needs (e2e.config), two CPUs and
# panic_on_warn=1, so that any WARN fails the run by itself.
#
# Two NUMA nodes (ACPI SRAT): node 0 with both CPUs and 768M, node 1 with
# the other 256M of kunit.py's 1024M and no CPU, which the kernel uses
# when asked for that node or when node 0 runs short: the suites run on a
# NUMA machine here, and on kunit.py's own one-node machine elsewhere.
#
# make bench's second disk (scripts/runs/bench.sh) sits on an AHCI
# controller, whose driver maps its requests with dma_map_sg(); its boots
# (DMATOPICS_AHCI=1) run on q35, and with DMATOPICS_IOMMU=1 QEMU's
# intel-iommu is in front of it (the DMAR table reaches the guest through
# qboot's ACPI table loader), as the first device, as QEMU wants it: the
# boots with and without the IOMMU differ by the IOMMU alone.
import os

from ..qemu_config import QemuArchParams

with open(os.path.join(os.path.dirname(__file__), 'checkers.config')) as f:
	CHECKERS = f.read()
with open(os.path.join(os.path.dirname(__file__), 'e2e.config')) as f:
	E2E = f.read()
# panic_on_warn=1, but for the KCSAN stage (scripts/runs/kcsan.sh), whose
# kernel would panic on its first data race report: there each report is
# judged, and any other splat still fails the run.
PANIC_ON_WARN = '' if os.environ.get('DMATOPICS_KCSAN') else ' panic_on_warn=1'
IOMMU = (['-machine', 'q35', '-device', 'intel-iommu']
	 if os.environ.get('DMATOPICS_IOMMU') == '1' else
	 ['-machine', 'q35'] if os.environ.get('DMATOPICS_AHCI') == '1' else [])

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SMP=y
CONFIG_SERIAL_8250_CONSOLE=y
# virtio-blk of the e2e boot: QEMU's PC (qboot) routes no legacy PCI
# interrupt to it here (ACPI _PRT evaluation fails, and there is no PIRQ
# table), so it needs MSI-X
CONFIG_PCI_MSI=y
CONFIG_NUMA=y
# make bench's AHCI disk, and the IOMMU it is measured behind
CONFIG_ATA=y
CONFIG_SATA_AHCI=y
CONFIG_BLK_DEV_SD=y
CONFIG_INTEL_IOMMU=y
''' + CHECKERS + E2E,
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0' + PANIC_ON_WARN,
			   # qboot is faster than SeaBIOS and doesn't mess up
			   # the terminal.
			   extra_qemu_params=IOMMU + ['-bios', 'qboot.rom', '-smp', '2',
					      '-object', 'memory-backend-ram,id=m0,size=768M',
					      '-object', 'memory-backend-ram,id=m1,size=256M',
					      '-numa', 'node,nodeid=0,cpus=0-1,memdev=m0',
					      '-numa', 'node,nodeid=1,memdev=m1'])
