#!/usr/bin/env python3
"""Boot a kernel that kunit.py built, with an initramfs and a disk.

The QEMU command is kunit.py's own: the same --qemu_config file, loaded and
started by the tree's kunit_kernel (its QEMU parameters, kernel path and
command line), with the initramfs and a virtio-blk disk added as extra
QEMU arguments and KUnit's own suites turned off (kunit.enable=0); with
--ahci-disk, a second disk on an AHCI controller (QEMU's ich9-ahci), which
the guest names sda.  The
console goes to stdout and to LOG.  Exit status 0 when the guest powered
off by itself, 3 on a timeout (QEMU is stopped), else QEMU's status.

usage: e2e-boot.py --tree T --build-dir B --qemu-config C [--cross X]
                   --initrd I --disk D [--ahci-disk D2] --log LOG
                   [--timeout S] [ARG...]
(ARG: kernel command line parameters for the init program)
"""
import argparse
import os
import sys
import threading


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    for opt in ('--tree', '--build-dir', '--qemu-config', '--initrd',
                '--disk', '--log'):
        ap.add_argument(opt, required=True)
    ap.add_argument('--cross', default=None)
    ap.add_argument('--ahci-disk', default=None)
    ap.add_argument('--timeout', type=int, default=120)
    ap.add_argument('args', nargs='*')
    a = ap.parse_args()

    sys.path.insert(0, os.path.join(a.tree, 'tools', 'testing', 'kunit'))
    import kunit_kernel  # noqa: E402  (kunit.py's own, from the tree)

    extra = ['-initrd', a.initrd,
             '-drive', f'file={a.disk},format=raw,if=none,id=e2e',
             '-device', 'virtio-blk-pci,drive=e2e']
    if a.ahci_disk:
        extra += ['-drive', f'file={a.ahci_disk},format=raw,if=none,id=e2e-sata',
                  '-device', 'ich9-ahci,id=e2e-ahci',
                  '-device', 'ide-hd,drive=e2e-sata,bus=e2e-ahci.0']
    _, ops = kunit_kernel._get_qemu_ops(a.qemu_config, extra, a.cross)
    # kunit.py's command line ends with kunit_shutdown=reboot, which would
    # reboot as soon as the (disabled) KUnit executor is done, before init.
    ops._kernel_command_line = ops._kernel_command_line.replace(
        'kunit_shutdown=reboot', '').strip()
    # panic=-1: a guest that panics (init killed) ends the boot at once.
    proc = ops.start(['kunit.enable=0', 'panic=-1'] + a.args, a.build_dir)
    proc.stdin.close()

    timed_out = threading.Event()

    def stop():
        timed_out.set()
        proc.terminate()
    timer = threading.Timer(a.timeout, stop)
    timer.daemon = True	# an interrupt must not wait for it
    timer.start()
    try:
        with open(a.log, 'w') as log:
            for line in proc.stdout:
                log.write(line)
                sys.stdout.write(line)
        rc = proc.wait()
    except KeyboardInterrupt:
        print('interrupted: the guest was stopped', file=sys.stderr)
        return 130
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if timed_out.is_set():
        print(f'timeout: the guest did not power off within {a.timeout} s',
              file=sys.stderr)
        return 3
    return rc


if __name__ == '__main__':
    sys.exit(main())
