// SPDX-License-Identifier: GPL-2.0
/*
 * The device of the e2e boot's e2e_uio_maps suite (scripts/runs/e2e/uio_maps.c):
 * a UIO device, "uio-e2e-maps", whose maps 0 and 1 are logical memory
 * (UIO_MEM_LOGICAL) and maps 2 and 3 virtual memory (UIO_MEM_VIRTUAL),
 * MAP_PAGES pages each, every byte of page P of map M being
 * 0x10 * (M + 1) + P.  These are the maps whose pages the UIO core faults
 * in, and no driver in the tree that binds to a QEMU device has one.  The
 * module is loaded by the init and never unloaded.
 */
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/uio_driver.h>
#include <linux/vmalloc.h>

#define MAPS		4
#define MAP_PAGES	4
#define MAP_SIZE	(MAP_PAGES * PAGE_SIZE)

static struct platform_device *pdev;
static struct uio_info info = {
	.name = "uio-e2e-maps",
	.version = "0",
	.irq = UIO_IRQ_CUSTOM,
};

static void free_maps(void)
{
	int mi;

	for (mi = 0; mi < MAPS; mi++) {
		void *addr = (void *)(unsigned long)info.mem[mi].addr;

		if (!addr)
			continue;
		if (info.mem[mi].memtype == UIO_MEM_LOGICAL)
			free_pages((unsigned long)addr, get_order(MAP_SIZE));
		else
			vfree(addr);
	}
}

static int __init uio_maps_init(void)
{
	int mi, page, ret;

	for (mi = 0; mi < MAPS; mi++) {
		u8 *addr;

		if (mi < 2) {
			/* Compound: each page is mapped with a reference */
			addr = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_COMP,
						      get_order(MAP_SIZE));
			info.mem[mi].memtype = UIO_MEM_LOGICAL;
		} else {
			addr = vmalloc(MAP_SIZE);
			info.mem[mi].memtype = UIO_MEM_VIRTUAL;
		}
		if (!addr) {
			ret = -ENOMEM;
			goto err;
		}
		for (page = 0; page < MAP_PAGES; page++)
			memset(addr + page * PAGE_SIZE, 0x10 * (mi + 1) + page,
			       PAGE_SIZE);
		info.mem[mi].addr = (unsigned long)addr;
		info.mem[mi].size = MAP_SIZE;
	}
	pdev = platform_device_register_simple("uio-e2e-maps",
					       PLATFORM_DEVID_NONE, NULL, 0);
	if (IS_ERR(pdev)) {
		ret = PTR_ERR(pdev);
		goto err;
	}
	ret = uio_register_device(&pdev->dev, &info);
	if (ret) {
		platform_device_unregister(pdev);
		goto err;
	}
	return 0;

err:
	free_maps();
	return ret;
}

static void __exit uio_maps_exit(void)
{
	uio_unregister_device(&info);
	platform_device_unregister(pdev);
	free_maps();
}

module_init(uio_maps_init);
module_exit(uio_maps_exit);
MODULE_DESCRIPTION("A UIO device with maps of logical and virtual memory");
MODULE_LICENSE("GPL");
