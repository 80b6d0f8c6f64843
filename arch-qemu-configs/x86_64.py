# kunit.py --qemu_config for x86_64: the tree's own qemu_configs/x86_64.py
# plus the kernel's runtime checkers, so that every suite runs under them.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
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
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0',
			   # qboot is faster than SeaBIOS and doesn't mess up
			   # the terminal.
			   extra_qemu_params=['-bios', 'qboot.rom'])
