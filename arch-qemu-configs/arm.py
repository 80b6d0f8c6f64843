# kunit.py --qemu_config for 32-bit ARM on QEMU "virt" (Cortex-A15, 1G of
# RAM at 0x40000000): the tree's own qemu_configs/arm.py, PCI for aacraid,
# plus the kernel's runtime checkers (checkers.config) and what the
# end-to-end boot needs (e2e.config), two CPUs and
# panic_on_warn=1, so that any WARN fails the run by itself.
#
# Device-local memory for the dma_coherent_pool suite: RAM the device tree
# describes but the kernel does not manage, so with no struct page, like
# memory on a device.  Without HIGHMEM (as here) the kernel manages only
# lowmem, below 0x70000000 with the 3G/1G split, and drops the rest of the
# 1G; mem=1023M keeps at least the top 1M out of the memory map should
# HIGHMEM be enabled.  The suite finds the region as the part of the
# device tree's memory above the last System RAM resource.
#
# highmem=off: QEMU's default places the PCIe ECAM above 4G, which a
# kernel without LPAE cannot map ("can't claim ECAM area"), and the PCI
# host, with the virtio-blk disk of the e2e boot, would not probe.
import os

from ..qemu_config import QemuArchParams

with open(os.path.join(os.path.dirname(__file__), 'checkers.config')) as f:
	CHECKERS = f.read()
with open(os.path.join(os.path.dirname(__file__), 'e2e.config')) as f:
	E2E = f.read()

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='''
CONFIG_ARCH_VIRT=y
CONFIG_SMP=y
# the e2e boot's init is an armhf program: hard-float, so VFP
CONFIG_VFP=y
CONFIG_PCI_HOST_GENERIC=y
CONFIG_SERIAL_AMBA_PL010=y
CONFIG_SERIAL_AMBA_PL010_CONSOLE=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
''' + CHECKERS + E2E,
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyAMA0 mem=1023M panic_on_warn=1',
			   extra_qemu_params=['-machine', 'virt,highmem=off',
					      '-smp', '2'])
