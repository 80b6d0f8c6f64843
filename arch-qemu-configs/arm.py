# kunit.py --qemu_config for 32-bit ARM on QEMU "virt" (Cortex-A15, 1G of
# RAM at 0x40000000): the tree's own qemu_configs/arm.py plus the kernel's
# runtime checkers, so that every suite runs under them.  All of them build
# and boot on arm: KASAN is supported on 32-bit ARM since 5.11 (generic
# mode only).
#
# Device-local memory for the dma_coherent_pool suite: RAM the device tree
# describes but the kernel does not manage, so with no struct page, like
# memory on a device.  Without HIGHMEM (as here) the kernel manages only
# lowmem, below 0x70000000 with the 3G/1G split, and drops the rest of the
# 1G; mem=1023M keeps at least the top 1M out of the memory map should
# HIGHMEM be enabled.  The suite finds the region as the part of the
# device tree's memory above the last System RAM resource.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='''
CONFIG_ARCH_VIRT=y
CONFIG_PCI_HOST_GENERIC=y
CONFIG_SERIAL_AMBA_PL010=y
CONFIG_SERIAL_AMBA_PL010_CONSOLE=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
CONFIG_DEBUG_KERNEL=y
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_UBSAN=y
CONFIG_UBSAN_BOUNDS=y
CONFIG_UBSAN_SHIFT=y
CONFIG_DEBUG_SG=y
CONFIG_DMA_API_DEBUG=y
CONFIG_DEBUG_LIST=y
CONFIG_PROVE_LOCKING=y
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_DEBUG_FS=y''',
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyAMA0 mem=1023M',
			   extra_qemu_params=['-machine', 'virt'])
