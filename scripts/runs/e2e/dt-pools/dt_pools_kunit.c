// SPDX-License-Identifier: GPL-2.0
/*
 * e2e_dt_shared_dma_pool: a check of the harness, not a patch for mainline.
 * The device tree that arch-qemu-configs/dtb.py gives the ARM and arm64
 * guests declares three "shared-dma-pool" regions, named in the
 * memory-region of /dma-kunit-bus/dma-coherent-kunit, a node on a bus
 * whose dma-ranges put device address 0 at the start of RAM, 1G up:
 *   0  no-map, at the end of RAM, which the guest leaves out of the
 *      memory it manages: no memmap;
 *   1  no-map, at RAM + 256M: a memmap, no linear mapping;
 *   2  without no-map, at RAM + 258M: RAM the kernel maps.
 * The series' own suites build their pools themselves; this module checks
 * that real pools, set up from the device tree through dma-ranges, do what
 * the series says: allocations the device sees 1G below the CPU, and
 * dma_get_sgtable() with the pool's pages or refused without a memmap.
 *
 * Built against the e2e boot's kernel as an external module
 * (scripts/runs/e2e.sh) and run by its init (scripts/runs/e2e/kmod.c)
 * through the suite's debugfs "run" file.
 */
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/of_reserved_mem.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/utsname.h>

#define NODE		"/dma-kunit-bus/dma-coherent-kunit"
#define DRIVER		"dt-shared-dma-pool-kunit"
#define BUS_OFFSET	SZ_1G	/* dtb.py: device address 0 is RAM_BASE */
#define BUF_SIZE	(4 * PAGE_SIZE)

struct pool_param {
	int index;		/* in NODE's memory-region */
	bool memmap;		/* what dtb.py and mem= make of it */
	const char *desc;
};

static const struct pool_param pools[] = {
	{ 0, false, "pool outside the memory map" },
	{ 1, true, "no-map pool with a memmap" },
};

static void pool_desc(const struct pool_param *p, char *desc)
{
	strscpy(desc, p->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pool, pools, pool_desc);

struct pool_dev {
	struct platform_device *pdev;
	struct reserved_mem *rmem;
	bool has_pool;
};

static void pool_dev_release(void *data)
{
	struct pool_dev *d = data;

	if (d->has_pool)
		of_reserved_mem_device_release(&d->pdev->dev);
	platform_device_unregister(d->pdev);
}

/*
 * A platform device of NODE with pool @index: the test driver binds to it
 * by name, and binding configures its DMA from the node (dma-ranges);
 * the pool is then given to it as a driver gives one.
 */
static struct pool_dev *pool_dev_add(struct kunit *test, int index)
{
	struct device_node *np, *region;
	struct pool_dev *d;
	int ret;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	np = of_find_node_by_path(NODE);
	KUNIT_ASSERT_NOT_NULL_MSG(test, np, "no %s in the device tree", NODE);
	region = of_parse_phandle(np, "memory-region", index);
	if (region) {
		d->rmem = of_reserved_mem_lookup(region);
		of_node_put(region);
	}
	if (d->rmem)
		d->pdev = platform_device_alloc(DRIVER, PLATFORM_DEVID_AUTO);
	if (!d->pdev)
		of_node_put(np);
	KUNIT_ASSERT_NOT_NULL_MSG(test, d->rmem, "memory-region %d of %s",
				  index, NODE);
	KUNIT_ASSERT_NOT_NULL(test, d->pdev);
	/* the device keeps the reference: its release puts its fwnode */
	device_set_node(&d->pdev->dev, of_fwnode_handle(np));
	ret = platform_device_add(d->pdev);
	if (ret)
		platform_device_put(d->pdev);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = kunit_add_action_or_reset(test, pool_dev_release, d);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_NOT_NULL_MSG(test, d->pdev->dev.driver,
				  "%s did not bind", DRIVER);
	ret = of_reserved_mem_device_init_by_idx(&d->pdev->dev, np, index);
	KUNIT_ASSERT_EQ(test, ret, 0);
	d->has_pool = true;
	kunit_info(test, "pool %d: %pa, %pa bytes\n", index, &d->rmem->base,
		   &d->rmem->size);
	return d;
}

struct coherent {
	struct device *dev;
	void *cpu;
	dma_addr_t handle;
};

static void coherent_free(void *data)
{
	struct coherent *c = data;

	dma_free_coherent(c->dev, BUF_SIZE, c->cpu, c->handle);
}

static struct coherent *coherent_alloc(struct kunit *test, struct device *dev)
{
	struct coherent *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->dev = dev;
	c->cpu = dma_alloc_coherent(dev, BUF_SIZE, &c->handle, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->cpu);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, coherent_free, c),
			0);
	return c;
}

static void the_pool_has_a_memmap_as_the_device_tree_places_it(struct kunit *test)
{
	const struct pool_param *p = test->param_value;
	struct pool_dev *d = pool_dev_add(test, p->index);
	unsigned long pfn = PHYS_PFN(d->rmem->base);
	unsigned long last = PHYS_PFN(d->rmem->base + d->rmem->size - 1);

	KUNIT_EXPECT_EQ(test, pfn_valid(pfn), p->memmap);
	KUNIT_EXPECT_EQ(test, pfn_valid(last), p->memmap);
}

static void an_allocation_is_seen_by_the_device_below_the_cpu(struct kunit *test)
{
	const struct pool_param *p = test->param_value;
	struct pool_dev *d = pool_dev_add(test, p->index);
	struct coherent *c = coherent_alloc(test, &d->pdev->dev);
	phys_addr_t phys = (phys_addr_t)c->handle + BUS_OFFSET;
	u32 *cpu = c->cpu, *alias;
	size_t i, n = BUF_SIZE / sizeof(u32);

	KUNIT_ASSERT_GE(test, phys, d->rmem->base);
	KUNIT_ASSERT_LE(test, phys + BUF_SIZE, d->rmem->base + d->rmem->size);

	/* The memory at the handle's CPU address is the buffer. */
	alias = memremap(phys, BUF_SIZE, MEMREMAP_WC);
	KUNIT_ASSERT_NOT_NULL(test, alias);
	for (i = 0; i < n; i++)
		WRITE_ONCE(cpu[i], 0x5a000000 | i);
	/* drain the write-combining buffer before the alias reads */
	wmb();
	for (i = 0; i < n; i++)
		if (READ_ONCE(alias[i]) != (0x5a000000 | i))
			break;
	memunmap(alias);
	KUNIT_EXPECT_EQ_MSG(test, i, n, "word %zu differs", i);
}

static void get_sgtable_gives_the_pages_of_the_pool_or_refuses(struct kunit *test)
{
	const struct pool_param *p = test->param_value;
	struct pool_dev *d = pool_dev_add(test, p->index);
	struct coherent *c = coherent_alloc(test, &d->pdev->dev);
	phys_addr_t phys = (phys_addr_t)c->handle + BUS_OFFSET;
	struct sg_table sgt;
	int ret;

	ret = dma_get_sgtable(c->dev, &sgt, c->cpu, c->handle, BUF_SIZE);
	if (!p->memmap) {
		KUNIT_EXPECT_EQ(test, ret, -ENXIO);
		if (!ret)
			sg_free_table(&sgt);
		return;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, sgt.orig_nents, 1);
	KUNIT_EXPECT_EQ(test, sg_phys(sgt.sgl), phys);
	KUNIT_EXPECT_EQ(test, sgt.sgl->length, BUF_SIZE);
	sg_free_table(&sgt);
}

/*
 * memory-region 2 has no "no-map": the kernel keeps it in its linear map.
 * 32-bit ARM refuses such a pool when it sets up reserved memory
 * (rmem_dma_setup(), kernel/dma/coherent.c), and gives the region back;
 * arm64 takes it, and then WARNs when a device gets it: memremap() will
 * not map RAM write-combined (kernel/iomem.c).
 */
static void a_pool_without_no_map_is_refused_on_32_bit_arm(struct kunit *test)
{
	struct device_node *np, *region;
	struct platform_device *pdev;
	struct reserved_mem *rmem;
	int ret;

	if (!IS_ENABLED(CONFIG_ARM))
		kunit_skip(test, "%s: a pool without no-map WARNs in memremap()",
			   utsname()->machine);
	np = of_find_node_by_path(NODE);
	KUNIT_ASSERT_NOT_NULL_MSG(test, np, "no %s in the device tree", NODE);
	region = of_parse_phandle(np, "memory-region", 2);
	if (!region)
		of_node_put(np);
	KUNIT_ASSERT_NOT_NULL_MSG(test, region, "no memory-region 2 in %s", NODE);
	rmem = of_reserved_mem_lookup(region);
	of_node_put(region);
	pdev = platform_device_alloc(DRIVER, PLATFORM_DEVID_AUTO);
	if (!pdev)
		of_node_put(np);
	KUNIT_ASSERT_NOT_NULL(test, pdev);
	device_set_node(&pdev->dev, of_fwnode_handle(np));
	ret = platform_device_add(pdev);
	if (ret)
		platform_device_put(pdev);
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = of_reserved_mem_device_init_by_idx(&pdev->dev, np, 2);
	if (!ret)
		of_reserved_mem_device_release(&pdev->dev);
	platform_device_unregister(pdev);
	KUNIT_EXPECT_NULL(test, rmem);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
}

static struct kunit_case dt_shared_dma_pool_cases[] = {
	KUNIT_CASE_PARAM(the_pool_has_a_memmap_as_the_device_tree_places_it,
			 pool_gen_params),
	KUNIT_CASE_PARAM(an_allocation_is_seen_by_the_device_below_the_cpu,
			 pool_gen_params),
	KUNIT_CASE_PARAM(get_sgtable_gives_the_pages_of_the_pool_or_refuses,
			 pool_gen_params),
	KUNIT_CASE(a_pool_without_no_map_is_refused_on_32_bit_arm),
	{}
};

static int dt_pool_probe(struct platform_device *pdev)
{
	return 0;
}

static struct platform_driver dt_pool_driver = {
	.probe = dt_pool_probe,
	.driver = { .name = DRIVER },
};

static int dt_shared_dma_pool_init(struct kunit_suite *suite)
{
	return platform_driver_register(&dt_pool_driver);
}

static void dt_shared_dma_pool_exit(struct kunit_suite *suite)
{
	platform_driver_unregister(&dt_pool_driver);
}

static struct kunit_suite dt_shared_dma_pool_suite = {
	.name = "e2e_dt_shared_dma_pool",
	.suite_init = dt_shared_dma_pool_init,
	.suite_exit = dt_shared_dma_pool_exit,
	.test_cases = dt_shared_dma_pool_cases,
};

kunit_test_suite(dt_shared_dma_pool_suite);

MODULE_DESCRIPTION("Harness check: the device tree's shared-dma-pool regions");
MODULE_LICENSE("GPL");
