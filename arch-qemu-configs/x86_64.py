# kunit.py --qemu_config for x86_64: the tree's own qemu_configs/x86_64.py
# plus the kernel's runtime checkers (checkers.config), two CPUs and
# panic_on_warn=1, so that any WARN fails the run by itself.
import os

from ..qemu_config import QemuArchParams

with open(os.path.join(os.path.dirname(__file__), 'checkers.config')) as f:
	CHECKERS = f.read()

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SMP=y
CONFIG_SERIAL_8250_CONSOLE=y
''' + CHECKERS,
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 panic_on_warn=1',
			   # qboot is faster than SeaBIOS and doesn't mess up
			   # the terminal.
			   extra_qemu_params=['-bios', 'qboot.rom', '-smp', '2'])
