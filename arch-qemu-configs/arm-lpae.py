# kunit.py --qemu_config for 32-bit ARM with the Large Physical Address
# Extension, as KernelCI builds it: arm.py plus CONFIG_ARM_LPAE and
# HIGHMEM, and 4G of RAM at 0x40000000 on QEMU "virt" (Cortex-A15), so
# that memory and physical addresses reach above 4G (0x13fffffff).  The
# top 1M, above 4G, stays out of the memory map (mem=4095M) for the
# dma_coherent_pool suite, which finds it as in arm.py.
import os

from ..qemu_config import QemuArchParams

with open(os.path.join(os.path.dirname(__file__), 'checkers.config')) as f:
	CHECKERS = f.read()

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='''
CONFIG_ARCH_VIRT=y
CONFIG_SMP=y
CONFIG_ARM_LPAE=y
CONFIG_HIGHMEM=y
CONFIG_PCI_HOST_GENERIC=y
CONFIG_SERIAL_AMBA_PL010=y
CONFIG_SERIAL_AMBA_PL010_CONSOLE=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
''' + CHECKERS,
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyAMA0 mem=4095M panic_on_warn=1',
			   extra_qemu_params=['-machine', 'virt,highmem=on', '-m', '4G',
					      '-smp', '2'])
