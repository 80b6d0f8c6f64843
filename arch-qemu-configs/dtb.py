# The device tree an ARM guest boots with: QEMU "virt"'s own, dumped with
# the guest's machine options, plus device-local memory declared as boards
# declare it: three "shared-dma-pool" reserved-memory regions, referenced
# by the "memory-region" of the node that the harness's check of them
# (scripts/runs/e2e/dt-pools/, in the e2e boot) gives its devices with
# of_reserved_mem_device_init_by_idx():
#   0  1M with "no-map" at the end of RAM, which the guest leaves out of
#      the memory it manages: memory with no struct page;
#   1  1M with "no-map" at RAM + 256M, in the memory map but not mapped:
#      struct pages (not at RAM + 128M: QEMU puts its own DTB there on
#      32-bit ARM);
#   2  1M without "no-map" at RAM + 258M, which the kernel maps: 32-bit
#      ARM refuses such a pool; arm64 takes it and WARNs when a device gets
#      it, so the check gives it to no device there.
# The node sits on a bus whose dma-ranges put the device's view of memory
# 1G below the CPU's, so DMA addresses differ from physical ones.
#
# And a device for the e2e boot's UIO suite (scripts/runs/e2e/uio.c): "uio-e2e",
# compatible "dmatopics,uio-e2e", which uio_pdrv_genirq binds to when the
# boot names it in uio_pdrv_genirq.of_id; its memory is 64K of RAM at
# RAM + 257M kept out of the kernel's use (no-map), its interrupt an SPI
# nothing raises.
#
# Used by the per-arch --qemu_config files (extra_qemu_params: -dtb PATH).
# Needs dtc (Debian: device-tree-compiler).  The DTB is made once per QEMU
# command and kept in $XDG_CACHE_HOME/dmatopics-dtb.
import hashlib
import os
import shutil
import subprocess
import tempfile

RAM_BASE = 0x40000000	# QEMU virt, 32- and 64-bit
POOL_SIZE = 0x100000
UIO_BASE = RAM_BASE + 0x10100000	# after the pool with struct pages
UIO_SIZE = 0x10000
MAPPED_BASE = RAM_BASE + 0x10200000	# after the UIO device's memory
UIO_SPI = 100			# QEMU virt's GIC has 256 interrupts; 100 is free

OVERLAY = '''
/ {{
	reserved-memory {{
		#address-cells = <2>;
		#size-cells = <2>;
		ranges;

		dma_kunit_nopage: pool@{nopage:x} {{
			compatible = "shared-dma-pool";
			reg = <{nopage_hi:#x} {nopage_lo:#x} 0x0 {size:#x}>;
			no-map;
		}};

		dma_kunit_paged: pool@{paged:x} {{
			compatible = "shared-dma-pool";
			reg = <{paged_hi:#x} {paged_lo:#x} 0x0 {size:#x}>;
			no-map;
		}};

		dma_kunit_mapped: pool@{mapped:x} {{
			compatible = "shared-dma-pool";
			reg = <0x0 {mapped:#x} 0x0 {size:#x}>;
		}};

		uio-e2e-memory@{uio:x} {{
			reg = <0x0 {uio:#x} 0x0 {uio_size:#x}>;
			no-map;
		}};
	}};

	uio-e2e@{uio:x} {{
		compatible = "dmatopics,uio-e2e";
		reg = <0x0 {uio:#x} 0x0 {uio_size:#x}>;
		interrupts = <0x0 {uio_spi} 0x4>;	/* GIC SPI, level high */
	}};

	dma-kunit-bus {{
		#address-cells = <2>;
		#size-cells = <2>;
		ranges;
		/* device address 0 is CPU address {base:#x}, for 4G */
		dma-ranges = <0x0 0x0 0x0 {base:#x} 0x1 0x0>;

		dma-coherent-kunit {{
			memory-region = <&dma_kunit_nopage>, <&dma_kunit_paged>,
					<&dma_kunit_mapped>;
		}};
	}};
}};
'''


def _run(cmd):
	try:
		subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
			       stderr=subprocess.PIPE, text=True)
	except FileNotFoundError:
		raise SystemExit(f'dtb.py: {cmd[0]} not found (Debian: '
				 f'{"device-tree-compiler" if cmd[0] == "dtc" else "qemu-system-arm"})')
	except subprocess.CalledProcessError as e:
		raise SystemExit(f'dtb.py: {" ".join(cmd)} failed: {e.stderr.strip()}')


def make_dtb(qemu_arch, qemu_params, ram_end):
	"""The path of the DTB for `qemu-system-QEMU_ARCH QEMU_PARAMS` (after
	kunit.py's own -nodefaults -m 1024) whose RAM ends at RAM_END."""
	nopage, paged = ram_end - POOL_SIZE, RAM_BASE + 0x10000000
	overlay = OVERLAY.format(nopage=nopage, nopage_hi=nopage >> 32,
				 nopage_lo=nopage & 0xffffffff, paged=paged,
				 paged_hi=paged >> 32, paged_lo=paged & 0xffffffff,
				 size=POOL_SIZE, base=RAM_BASE, uio=UIO_BASE,
				 uio_size=UIO_SIZE, uio_spi=UIO_SPI, mapped=MAPPED_BASE)
	# Debian's QEMU, not the harness's TCG wrapper of the same name
	# (scripts/runs/kunit-path/), whose date says nothing of QEMU's
	qemu = f'/usr/bin/qemu-system-{qemu_arch}'
	if not os.path.exists(qemu):
		qemu = shutil.which(f'qemu-system-{qemu_arch}') or qemu
	cmd = [qemu, '-nodefaults', '-m', '1024'] + list(qemu_params)
	key = hashlib.sha256(repr((cmd, os.path.getmtime(qemu) if os.path.exists(qemu) else 0,
				   overlay)).encode()).hexdigest()[:16]
	cache = os.path.join(os.environ.get('XDG_CACHE_HOME') or
			     os.path.expanduser('~/.cache'), 'dmatopics-dtb')
	out = os.path.join(cache, f'{qemu_arch}-{key}.dtb')
	if os.path.exists(out):
		return out
	os.makedirs(cache, exist_ok=True)
	with tempfile.TemporaryDirectory(dir=cache) as tmp:
		virt = os.path.join(tmp, 'virt.dtb')
		dts = os.path.join(tmp, 'guest.dts')
		_run(cmd + ['-machine', f'dumpdtb={virt}', '-display', 'none'])
		_run(['dtc', '-q', '-I', 'dtb', '-O', 'dts', '-o', dts, virt])
		with open(dts, 'a') as f:
			f.write(overlay)
		_run(['dtc', '-q', '-I', 'dts', '-O', 'dtb', '-o',
		      os.path.join(tmp, 'guest.dtb'), dts])
		os.replace(os.path.join(tmp, 'guest.dtb'), out)
	return out
