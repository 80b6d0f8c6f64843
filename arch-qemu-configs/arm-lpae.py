# kunit.py --qemu_config for 32-bit ARM with the Large Physical Address
# Extension, as KernelCI builds it: arm.py plus CONFIG_ARM_LPAE and
# HIGHMEM (64-bit phys_addr_t, three-level page tables) on QEMU "virt"
# (Cortex-A15), with 3G of RAM at 0x40000000, all of it below 4G.
#
# Not above 4G: with -m 4G the memory reaches 0x13fffffff and the kernel
# boots and uses it, but the first user page-table walk through a PTE
# table above 4G (HIGHPTE) ends in "Unhandled fault: synchronous abort
# (translation table walk) (0x217)" in QEMU 7.2 (Debian 12) under TCG,
# which stops the run; the cause is not known here.
#
# The top 4M stay out of the memory map (mem=3068M) for the device pool
# without struct pages at the end of RAM (dtb.py): ARM keeps struct pages
# for every pageblock (4M) that memory overlaps, so a smaller hole would
# still have them.
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

QEMU_PARAMS = ['-machine', 'virt', '-m', '3G', '-smp', '2']
# The DTB describes the machine these parameters make.
DTB = dtb.make_dtb('arm', QEMU_PARAMS, 0x100000000)

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='''
CONFIG_ARCH_VIRT=y
CONFIG_SMP=y
# the e2e boot's init is an armhf program: hard-float, so VFP
CONFIG_VFP=y
CONFIG_ARM_LPAE=y
CONFIG_HIGHMEM=y
CONFIG_PCI_HOST_GENERIC=y
CONFIG_SERIAL_AMBA_PL010=y
CONFIG_SERIAL_AMBA_PL010_CONSOLE=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
''' + CHECKERS + E2E,
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyAMA0 mem=3068M panic_on_warn=1',
			   extra_qemu_params=QEMU_PARAMS + ['-dtb', DTB])
