// SPDX-License-Identifier: GPL-2.0
/*
 * init of the end-to-end boot (scripts/runs/e2e.sh): O_DIRECT I/O from a user
 * process through a virtio-blk disk, vda (and, in make bench, through the
 * disks of e2e_disks=, such as sda on AHCI), measured with events the
 * kernel already has, summed by hist triggers, no counter of our own:
 *
 *  - pages: the bytes of the block_rq_issue events of the disk
 *    (hist:keys=dev:vals=bytes), divided by the page size; every buffer
 *    is page-aligned and a whole number of pages long;
 *  - entries: the return value of __blk_rq_map_sg(), the scatterlist
 *    entries built for a request, through a kretprobe event of our own
 *    (r:e2e/map_sg __blk_rq_map_sg nsegs=$retval:s32), whose histogram
 *    is keyed by that count (hist:keys=nsegs).  The disks take their
 *    turns, so every request mapped is one of the disk's in turn;
 *  - DMA segments: what dma_map_sg() made of those entries, the device's
 *    view, from the dma:dma_map_sg tracepoint of the disk's PCI function
 *    (hist:keys=device:vals=full_nents,full_ents, filtered by device):
 *    full_nents the entries handed in, full_ents the segments returned.
 *    virtio never calls dma_map_sg() (it maps entry by entry), AHCI does
 *    for each request (ata_sg_setup()).  Without an IOMMU, dma-direct
 *    returns one segment per entry; behind one, the IOMMU's DMA ops merge
 *    entries that they map next to each other in I/O virtual addresses.
 *    A kernel without the tracepoint or its two counts (6.1) is reported,
 *    and the segments are not measured.
 *
 * The merge rate is (pages - entries) / pages, both summed over the same
 * requests: the share of pages that did not need an entry of their own.
 * The kretprobe's fetch argument ($retval) is the same on every arch.  A
 * probe or trigger the kernel refuses is an error, reported with the
 * lines of tracefs's error_log, never a rate of 0; so is a disk whose
 * driver never calls __blk_rq_map_sg() (7.3's NVMe maps its requests with
 * blk_rq_dma_map_iter_start()), named by the driver bound to it.
 *
 * The figures are exact only if no event was lost: the histograms report
 * the events they dropped, and kprobe_profile the returns the kretprobe
 * missed; both must be 0.
 *
 * For each fragmentation level of e2e_levels= (percent, default "0") it
 * first fragments free memory (level > 0): it fills free memory with
 * anonymous pages, then gives back a random (100 - level)% of them,
 * page by page, and keeps the rest until the level is done; so level 0 is
 * a freshly booted machine and level 75 leaves free memory in holes
 * between pages that stay allocated.  Then it sets the hist triggers,
 * writes e2e_mib= MiB (default 16) with O_DIRECT from a buffer it
 * allocated and touched page by page, as an application's buffer is
 * faulted in, reads them back into a second such buffer, reads the
 * histograms and removes the triggers.
 *
 * The levels run pinned to one CPU.  Before the I/O, the order of the
 * page frames of the two buffers is read from /proc/self/pagemap: of each
 * two neighbouring pages, whether the second frame follows the first,
 * comes right before it, or lies apart.
 *
 * With e2e_iommu=1 (make bench's IOMMU boot), a disk whose driver calls
 * dma_map_sg() must be behind the IOMMU, and one must be, or the suite
 * fails: its PCI
 * function has an iommu_group whose type translates (not "identity"), and
 * a dma:dma_map_sg event of it, read from the trace buffer, gives DMA
 * addresses none of which is one of its physical addresses.  Without
 * e2e_iommu=1 the same facts are printed, for the record.
 *
 * Output: KTAP, one suite "e2e_odirect" whose cases hold over every level
 * and disk, and "# bench:" diagnostic lines with the figures of each level
 * and disk.  Then it
 * runs the suite e2e_uio (uio.c) if the boot asks for it (e2e_uio=1),
 * e2e_faults (faults.c) with e2e_faults=INTERVALS, and the harness's
 * KUnit modules of /kmod (kmod.c), and powers the machine off.  It writes
 * nothing but the guest's own disk.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define TRACEFS		"/sys/kernel/tracing"
#define ISSUE		TRACEFS "/events/block/block_rq_issue"
#define MAP_SG		TRACEFS "/events/e2e/map_sg"
#define DMA_MAP_SG	TRACEFS "/events/dma/dma_map_sg"
#define MAX_DISKS	4
#define PROBE		"r:e2e/map_sg __blk_rq_map_sg nsegs=$retval:s32"
#define CHUNK		(512 << 10)	/* bytes per pwrite()/pread() */
#define RESERVE		(48 << 20)	/* free memory the filler leaves */

struct counters {
	uint64_t requests, bytes;	/* block_rq_issue, with data */
	uint64_t mapped, entries;	/* __blk_rq_map_sg() returns */
	uint64_t lost;	/* events dropped by a histogram or missed by the probe */
	uint64_t empty;	/* requests mapped into no entry */
	uint64_t dma_calls, dma_nents, dma_ents;	/* dma:dma_map_sg */
};

/* A disk of e2e_disks=, its device number and the PCI function it is on. */
struct disk {
	char name[16], path[32];
	char pci[16];			/* the DMA device: "0000:00:04.0" */
	char issue_trigger[128];	/* block_rq_issue, for the disk */
	char dma_filter[48];		/* dma:dma_map_sg, for its device */
	char dma_trigger[128];
};

static long page_size;
static int errors;
static int have_dma_event;	/* the kernel has dma:dma_map_sg */
static const char map_sg_trigger[] = "hist:keys=nsegs";

int uio_suite(int n);	/* uio.c */
int uio_maps_present(void);	/* uio_maps.c */
int uio_maps_suite(int n);
int faults_suite(int n, const char *settings);	/* faults.c */
int kmod_count(void);	/* kmod.c */
void kmod_suites(int first);	/* kmod.c */

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("    # ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void fail(const char *what)
{
	diag("error: %s: %s", what, strerror(errno));
	errors++;
}

/* The number after "@name: " in @line, or 0. */
static uint64_t value(const char *line, const char *name)
{
	const char *p = strstr(line, name);
	uint64_t v;

	if (p && sscanf(p + strlen(name), ": %" SCNu64, &v) == 1)
		return v;
	return 0;
}

/*
 * The returns of __blk_rq_map_sg() the kretprobe missed since boot (more
 * at once than its maxactive): "map_sg HITS MISSED" in kprobe_profile,
 * which names the event without its group.  No line is an error.
 */
static uint64_t probe_missed(void)
{
	FILE *f = fopen(TRACEFS "/kprobe_profile", "r");
	uint64_t hits, missed;
	char name[64], line[256];

	if (!f) {
		fail("open " TRACEFS "/kprobe_profile");
		return 0;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %" SCNu64 " %" SCNu64, name, &hits,
			   &missed) == 3 && !strcmp(name, "map_sg")) {
			fclose(f);
			return missed;
		}
	fclose(f);
	diag("error: no map_sg line in %s/kprobe_profile", TRACEFS);
	errors++;
	return 0;
}

/*
 * The sums of the histograms.  block_rq_issue's has one key, the disk:
 * "{ dev: N } hitcount: H bytes: B"; map_sg's one line per entry count:
 * "{ nsegs: S } hitcount: H".  No line, no hit.
 */
static int read_counters(const struct disk *d, struct counters *c)
{
	FILE *f = fopen(ISSUE "/hist", "r");
	char line[512];
	int keys = 0;

	memset(c, 0, sizeof(*c));
	if (!f) {
		fail("open " ISSUE "/hist");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		c->lost += value(line, "Dropped");
		if (strncmp(line, "{ dev:", 6))
			continue;
		keys++;
		c->requests += value(line, "hitcount");
		c->bytes += value(line, " bytes");
	}
	fclose(f);
	if (keys > 1) {
		diag("error: %s/hist: %d keys for one disk", ISSUE, keys);
		errors++;
		return -1;
	}
	f = fopen(MAP_SG "/hist", "r");
	if (!f) {
		fail("open " MAP_SG "/hist");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t hits;

		c->lost += value(line, "Dropped");
		if (strncmp(line, "{ nsegs:", 8))
			continue;
		hits = value(line, "hitcount");
		c->mapped += hits;
		c->entries += hits * value(line, "{ nsegs");
		/* A request mapped into no entry, or an error returned. */
		if (value(line, "{ nsegs") == 0 || strstr(line, "{ nsegs: -"))
			c->empty += hits;
	}
	fclose(f);
	if (!have_dma_event || !d->pci[0])
		return 0;
	/* One key, the device: "{ device: N } hitcount: H full_nents: .." */
	f = fopen(DMA_MAP_SG "/hist", "r");
	if (!f) {
		fail("open " DMA_MAP_SG "/hist");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		c->lost += value(line, "Dropped");
		if (strncmp(line, "{ device:", 9))
			continue;
		c->dma_calls += value(line, "hitcount");
		c->dma_nents += value(line, "full_nents");
		c->dma_ents += value(line, "full_ents");
	}
	fclose(f);
	return 0;
}

/* Also used by uio.c. */
int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t len = strlen(val);

	if (fd < 0 || write(fd, val, len) != len) {
		diag("error: write '%s' to %s: %s", val, path, strerror(errno));
		errors++;
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* What tracefs said about a command it refused. */
static void tracing_errors(void)
{
	FILE *f = fopen(TRACEFS "/error_log", "r");
	char line[256];

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		diag("%s", line);
	}
	if (f)
		fclose(f);
}

static int remove_trigger_of(const char *event, const char *trigger)
{
	char path[128], off[160];

	snprintf(path, sizeof(path), "%s/trigger", event);
	snprintf(off, sizeof(off), "!%s", trigger);
	return write_file(path, off);
}

/* Write @val to @path; a refusal is reported with tracefs's error_log. */
static int tracefs_write(const char *path, const char *val)
{
	if (!write_file(path, val))
		return 0;
	tracing_errors();
	return -1;
}

/* The kretprobe event on __blk_rq_map_sg(), defined once, disabled. */
static int define_probe(void)
{
	if (!access(MAP_SG, F_OK))
		return 0;
	if (access(TRACEFS "/kprobe_events", F_OK)) {
		diag("error: no %s/kprobe_events: a kernel without KPROBE_EVENTS",
		     TRACEFS);
		errors++;
		return -1;
	}
	return tracefs_write(TRACEFS "/kprobe_events", PROBE);
}

static int set_trigger(const struct disk *d)
{
	if (define_probe() || tracefs_write(ISSUE "/trigger", d->issue_trigger))
		return -1;
	if (tracefs_write(MAP_SG "/trigger", map_sg_trigger))
		goto no_map_sg;
	if (!d->dma_trigger[0] ||
	    !tracefs_write(DMA_MAP_SG "/trigger", d->dma_trigger))
		return 0;
	remove_trigger_of(MAP_SG, map_sg_trigger);
no_map_sg:
	remove_trigger_of(ISSUE, d->issue_trigger);
	return -1;
}

static int remove_trigger(const struct disk *d)
{
	return remove_trigger_of(ISSUE, d->issue_trigger) |
	       remove_trigger_of(MAP_SG, map_sg_trigger) |
	       (d->dma_trigger[0] ?
		remove_trigger_of(DMA_MAP_SG, d->dma_trigger) : 0);
}

/* An application's buffer: anonymous memory faulted in page by page. */
static unsigned char *touched_buffer(size_t size, unsigned int seed)
{
	unsigned char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (buf == MAP_FAILED) {
		fail("mmap buffer");
		return NULL;
	}
	/* Page by page: no transparent huge page (EINVAL without THP). */
	if (madvise(buf, size, MADV_NOHUGEPAGE) && errno != EINVAL)
		fail("madvise MADV_NOHUGEPAGE");
	for (i = 0; i < size; i += page_size)
		memset(buf + i, (seed + i / page_size) & 0xff, page_size);
	return buf;
}

/*
 * The order of the page frames of a buffer, from /proc/self/pagemap (the
 * init runs as root, so it reads the frame numbers): of each two pages
 * next to each other in the buffer, whether the second's frame follows
 * the first's (ascending), comes right before it (descending) or lies
 * elsewhere (apart).
 */
struct frames {
	uint64_t ascending, descending, apart;
};

static void frame_order(const unsigned char *buf, size_t size,
			struct frames *f)
{
	size_t n = size / page_size, i;
	uint64_t *map = malloc(n * sizeof(*map)), prev = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (!map || fd < 0 ||
	    pread(fd, map, n * sizeof(*map),
		  (off_t)((uintptr_t)buf / page_size * sizeof(*map))) !=
	    (ssize_t)(n * sizeof(*map))) {
		fail("read /proc/self/pagemap");
		goto out;
	}
	for (i = 0; i < n; i++) {
		/* bit 63: present; bits 0-54: the frame number */
		uint64_t pfn = map[i] & ((1ULL << 55) - 1);

		if (!(map[i] >> 63) || !pfn) {
			fail("a page of the buffer has no frame in pagemap");
			goto out;
		}
		if (i && pfn == prev + 1)
			f->ascending++;
		else if (i && pfn + 1 == prev)
			f->descending++;
		else if (i)
			f->apart++;
		prev = pfn;
	}
out:
	if (fd >= 0)
		close(fd);
	free(map);
}

static uint64_t mem_free_bytes(void)
{
	char line[128];
	uint64_t kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemFree: %" SCNu64 " kB", &kb) == 1)
			break;
	fclose(f);
	return kb << 10;
}

/*
 * Fill free memory but RESERVE with anonymous pages, then free all but
 * @level percent of them, chosen at random, one page at a time.
 */
static void *fragment(unsigned int level, size_t *len)
{
	uint64_t avail = mem_free_bytes();
	unsigned char *fill;
	uint32_t x = 2463534242u;	/* xorshift32, fixed seed */
	size_t i, kept = 0, pages;

	*len = 0;
	if (!level || avail <= RESERVE)
		return NULL;
	*len = (avail - RESERVE) & ~(size_t)(page_size - 1);
	fill = mmap(NULL, *len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fill == MAP_FAILED) {
		fail("mmap filler");
		*len = 0;
		return NULL;
	}
	/*
	 * Single pages, so that MADV_DONTNEED frees each page it is given
	 * (EINVAL without THP); then populated, page by page.
	 */
	if (madvise(fill, *len, MADV_NOHUGEPAGE) && errno != EINVAL)
		fail("madvise filler");
	for (i = 0; i < *len; i += page_size)
		fill[i] = 1;
	pages = *len / page_size;
	for (i = 0; i < pages; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		if (x % 100 < level)
			kept++;
		else
			madvise(fill + i * page_size, page_size, MADV_DONTNEED);
	}
	diag("bench: level %u: filled %zu pages, kept %zu allocated", level,
	     pages, kept);
	return fill;
}

struct result {
	int counted, mapped_ok, data_ok, nothing_lost;
};

/* The name of the driver bound to a device, from its sysfs @path. */
static const char *driver_of(const char *path)
{
	static char link[256];
	ssize_t n;

	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return "(unknown)";
	link[n] = 0;
	return strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
}

/* The driver of the disk's device. */
static const char *disk_driver(const struct disk *d)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/class/block/%.15s/device/driver",
		 d->name);
	return driver_of(path);
}

/*
 * Write the buffer @out to disk @d with O_DIRECT and read it back into
 * @in, counted by the hist triggers, and print the level's figures for
 * the disk.
 */
static void run_disk(struct disk *d, unsigned int level,
		     const unsigned char *out, unsigned char *in, size_t size,
		     struct result *r)
{
	uint64_t pages = 2 * (size / page_size);	/* written + read */
	uint64_t counted, missed;
	struct counters c;
	size_t off;
	int fd;

	fd = open(d->path, O_RDWR | O_DIRECT);
	if (fd < 0) {
		diag("error: open %s O_DIRECT: %s", d->path, strerror(errno));
		errors++;
		return;
	}
	if (set_trigger(d)) {
		close(fd);
		return;
	}
	missed = probe_missed();
	memset(in, 0, size);
	for (off = 0; off < size; off += CHUNK)
		if (pwrite(fd, out + off, CHUNK, off) != CHUNK) {
			fail("pwrite O_DIRECT");
			goto out;
		}
	for (off = 0; off < size; off += CHUNK)
		if (pread(fd, in + off, CHUNK, off) != CHUNK) {
			fail("pread O_DIRECT");
			goto out;
		}
	if (memcmp(out, in, size))
		r->data_ok = 0;
	if (read_counters(d, &c))
		goto out;
	c.lost += probe_missed() - missed;
	counted = c.bytes / page_size;
	if (c.bytes % page_size || counted != pages) {
		diag("level %u: %s: %" PRIu64 " bytes issued, %" PRIu64
		     " pages submitted", level, d->name, c.bytes, pages);
		r->counted = 0;
	}
	if (c.lost) {
		diag("level %u: %s: %" PRIu64 " events dropped or missed",
		     level, d->name, c.lost);
		r->nothing_lost = 0;
	}
	if (c.mapped != c.requests || c.empty || c.entries > counted) {
		diag("level %u: %s: %" PRIu64 " requests issued, %" PRIu64
		     " mapped into %" PRIu64 " entries, %" PRIu64
		     " into none", level, d->name, c.requests, c.mapped,
		     c.entries, c.empty);
		if (!c.mapped)
			diag("level %u: the driver of %s, %s, never called __blk_rq_map_sg(): no merge rate",
			     level, d->name, disk_driver(d));
		r->mapped_ok = 0;
	}
	/*
	 * A driver that calls dma_map_sg() does so once per request, with
	 * the entries __blk_rq_map_sg() built, and gets at most as many
	 * segments back.
	 */
	if (c.dma_calls && (c.dma_calls != c.requests ||
			    c.dma_nents != c.entries ||
			    c.dma_ents > c.dma_nents || !c.dma_ents)) {
		diag("level %u: %s: %" PRIu64 " requests of %" PRIu64
		     " entries, but %" PRIu64 " dma_map_sg() calls of %"
		     PRIu64 " entries into %" PRIu64 " segments", level,
		     d->name, c.requests, c.entries, c.dma_calls, c.dma_nents,
		     c.dma_ents);
		r->mapped_ok = 0;
	}
	/* Figures only from a level whose counts hold. */
	if (!r->counted || !r->mapped_ok || !r->nothing_lost || errors)
		goto out;
	diag("bench: level %u: disk %s: requests %" PRIu64 " pages %" PRIu64
	     " entries %" PRIu64 " merged %" PRIu64 " rate %" PRIu64
	     ".%01" PRIu64 "%%", level, d->name, c.requests, counted,
	     c.entries, counted - c.entries,
	     counted ? (counted - c.entries) * 100 / counted : 0,
	     counted ? (counted - c.entries) * 1000 / counted % 10 : 0);
	if (c.dma_calls)
		diag("bench: level %u: disk %s: dma_map_sg calls %" PRIu64
		     " entries %" PRIu64 " segments %" PRIu64 " rate %" PRIu64
		     ".%01" PRIu64 "%%", level, d->name, c.dma_calls,
		     c.dma_nents, c.dma_ents,
		     (counted - c.dma_ents) * 100 / counted,
		     (counted - c.dma_ents) * 1000 / counted % 10);
	else if (d->dma_trigger[0])
		diag("bench: level %u: disk %s: no dma_map_sg() call for its requests (driver %s)",
		     level, d->name, disk_driver(d));
out:
	remove_trigger(d);
	close(fd);
}

static void run_level(unsigned int level, struct disk *disks,
		      int ndisks, size_t size, struct result *r)
{
	unsigned char *out, *in;
	struct frames fr = { 0 };
	size_t fill_len;
	void *fill;
	int i;

	fill = fragment(level, &fill_len);
	out = touched_buffer(size, level);
	in = touched_buffer(size, level + 128);
	if (out && in) {
		frame_order(out, size, &fr);
		frame_order(in, size, &fr);
		/* The same buffers, so the same pages, for every disk. */
		for (i = 0; i < ndisks; i++)
			run_disk(&disks[i], level, out, in, size, r);
		if (!errors)
			diag("bench: level %u: frames ascending %" PRIu64
			     " descending %" PRIu64 " apart %" PRIu64, level,
			     fr.ascending, fr.descending, fr.apart);
	}
	if (out)
		munmap(out, size);
	if (in)
		munmap(in, size);
	if (fill)
		munmap(fill, fill_len);
}

/*
 * The PCI function a disk's requests are mapped for: the last component
 * of its device's sysfs path that is a PCI address.
 */
static void disk_pci(struct disk *d)
{
	char link[64], real[PATH_MAX], *tok, *save;
	unsigned int dom, bus, slot, fn;
	int n;

	snprintf(link, sizeof(link), "/sys/class/block/%.15s/device",
		 d->name);
	if (!realpath(link, real)) {
		fail(link);
		return;
	}
	for (tok = strtok_r(real, "/", &save); tok;
	     tok = strtok_r(NULL, "/", &save))
		if (sscanf(tok, "%4x:%2x:%2x.%1x%n", &dom, &bus, &slot, &fn,
			   &n) == 4 && !tok[n])
			snprintf(d->pci, sizeof(d->pci), "%s", tok);
	if (!d->pci[0]) {
		diag("error: %s: no PCI function in %s", d->name, link);
		errors++;
	}
}

/* Whether the kernel has dma:dma_map_sg with the counts of a whole call. */
static int dma_event_has_counts(void)
{
	FILE *f = fopen(DMA_MAP_SG "/format", "r");
	char line[256];
	int fields = 0;

	while (f && fgets(line, sizeof(line), f))
		fields += strstr(line, " full_nents;") || strstr(line, " full_ents;");
	if (f)
		fclose(f);
	return fields == 2;
}

/*
 * An AHCI disk's requests of at most 256 KiB: 64 pages, which an IOMMU's
 * DMA ops cannot make into more than 7 segments of at most 64 KiB (each
 * two neighbouring segments hold more than 64 KiB, or they would be one;
 * without an IOMMU, a segment per entry, in memory QEMU maps whole).
 * QEMU 7.2's AHCI maps a command's PRDT in one piece (hw/ide/ahci.c,
 * ahci_populate_sglist()), which behind an IOMMU ends at the IOMMU page:
 * Linux's AHCI puts the PRDTs of tags 14 and 30 128 bytes, 8 entries,
 * before a 4 KiB boundary, and QEMU fails a command there with more.
 * Set on every AHCI boot, with and without the IOMMU, so that both
 * measure the same requests.
 */
static void limit_ahci_requests(const struct disk *d)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", d->pci);
	if (strcmp(driver_of(path), "ahci"))
		return;
	snprintf(path, sizeof(path), "/sys/block/%.15s/queue/max_sectors_kb",
		 d->name);
	if (!write_file(path, "256"))
		diag("bench: disk %s: max_sectors_kb 256 (AHCI)", d->name);
}

/* The disks of e2e_disks= (default "vda"), set up for the triggers. */
static int setup_disks(const char *list, struct disk *disks)
{
	char *names = strdup(list ? list : "vda"), *tok, *save;
	struct stat st;
	int n = 0;

	if (!names) {
		fail("strdup");
		return 0;
	}
	for (tok = strtok_r(names, ",", &save); tok && n < MAX_DISKS;
	     tok = strtok_r(NULL, ",", &save)) {
		struct disk *d = &disks[n++];

		snprintf(d->name, sizeof(d->name), "%s", tok);
		snprintf(d->path, sizeof(d->path), "/dev/%s", tok);
		if (stat(d->path, &st)) {
			fail(d->path);
			continue;
		}
		/* The kernel's dev_t of the disk: major << 20 | minor. */
		snprintf(d->issue_trigger, sizeof(d->issue_trigger),
			 "hist:keys=dev:vals=bytes if dev == %u && bytes > 0",
			 major(st.st_rdev) << 20 | minor(st.st_rdev));
		disk_pci(d);
		if (!d->pci[0])
			continue;
		limit_ahci_requests(d);
		if (!have_dma_event)
			continue;
		snprintf(d->dma_filter, sizeof(d->dma_filter),
			 "device == \"%s\"", d->pci);
		snprintf(d->dma_trigger, sizeof(d->dma_trigger),
			 "hist:keys=device:vals=full_nents,full_ents if %s",
			 d->dma_filter);
	}
	if (tok) {
		diag("error: more than %d disks in e2e_disks=", MAX_DISKS);
		errors++;
	}
	free(names);
	return n;
}

/* The u64 list "name={a,b,...}" of an event line, into @v; how many. */
static int event_array(const char *line, const char *name, uint64_t *v,
		       int max)
{
	const char *p = strstr(line, name);
	char *end;
	int n = 0;

	if (!p || p[strlen(name)] != '{')
		return 0;
	for (p += strlen(name) + 1; n < max && *p && *p != '}'; p = end) {
		v[n++] = strtoull(p, &end, 0);
		if (end == p)
			return 0;
		if (*end == ',')
			end++;
	}
	return n;
}

/*
 * The IOMMU group of disk @d's PCI function and that group's default
 * domain type ("none" without a group), into @group and @type; whether
 * the type translates: "DMA" or "DMA-FQ" (not "identity", "blocked",
 * "unmanaged" or "unknown").
 */
static int iommu_translates(const struct disk *d, char *group, size_t glen,
			    char *type, size_t tlen)
{
	char path[128], link[128];
	ssize_t n;
	FILE *f;

	snprintf(group, glen, "none");
	snprintf(type, tlen, "none");
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group",
		 d->pci);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = 0;
	snprintf(group, glen, "%.31s",
		 strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	strncat(path, "/type", sizeof(path) - strlen(path) - 1);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%31s", type) != 1)
		snprintf(type, tlen, "unreadable");
	if (f)
		fclose(f);
	return !strcmp(type, "DMA") || !strcmp(type, "DMA-FQ");
}

/*
 * Whether the DMA of disk @d goes through an IOMMU: its PCI function's
 * IOMMU group must translate, and one dma_map_sg() event of it, from the
 * trace buffer, for a write of 16 pages from a new buffer, must give DMA
 * addresses none of which is one of its physical addresses.  Without the
 * event (have_dma_event 0), the group alone.  With @required
 * (e2e_iommu=1), a disk that calls it but is not translated is an error;
 * one whose driver does not call it is only named, and main() wants one
 * disk proven.  Checked before the levels (its write comes before level
 * 0), so that a boot that ends early keeps it with the figures of the
 * levels it did.  Whether the disk was proven.
 */
static int check_iommu(const struct disk *d, int required)
{
	char group[64], type[32], path[96], *line = NULL;
	uint64_t dma[128], phys[128];
	size_t len = 0, size = 16 * page_size;
	int fd = -1, i, j, ndma = 0, nphys = 0, same = 0, translates;
	unsigned char *buf = NULL;
	int proven = 0;
	FILE *f;

	translates = iommu_translates(d, group, sizeof(group), type,
				      sizeof(type));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", d->pci);
	if (!have_dma_event) {
		diag("bench: disk %s: %s (%s): iommu_group %s, type %s; no dma:dma_map_sg() to trace",
		     d->name, d->pci, driver_of(path), group, type);
		goto judge;
	}
	/* One traced write: its dma:dma_map_sg line, from the trace buffer. */
	buf = touched_buffer(size, 7);
	fd = open(d->path, O_RDWR | O_DIRECT);
	if (!buf || fd < 0) {
		fail("a traced write");
		goto out;
	}
	i = open(TRACEFS "/trace", O_WRONLY | O_TRUNC);	/* emptied */
	if (i < 0) {
		fail("empty " TRACEFS "/trace");
		goto out;
	}
	close(i);
	if (tracefs_write(DMA_MAP_SG "/filter", d->dma_filter))
		goto out;
	if (!tracefs_write(DMA_MAP_SG "/enable", "1")) {
		if (pwrite(fd, buf, size, 0) != (ssize_t)size)
			fail("pwrite O_DIRECT");
		write_file(DMA_MAP_SG "/enable", "0");
	}
	write_file(DMA_MAP_SG "/filter", "0");
	f = fopen(TRACEFS "/trace", "r");
	while (f && getline(&line, &len, f) > 0 && !ndma)
		if (strstr(line, "dma_map_sg:")) {
			ndma = event_array(line, "dma_addrs=", dma, 128);
			nphys = event_array(line, "phys_addrs=", phys, 128);
		}
	if (f)
		fclose(f);
	free(line);
	for (i = 0; i < ndma; i++)
		for (j = 0; j < nphys; j++)
			if (dma[i] == phys[j]) {
				same++;
				break;
			}
	if (!ndma && !nphys) {
		/* Not an error: main() wants one disk proven. */
		diag("bench: disk %s: %s (%s): iommu_group %s, type %s; no dma_map_sg() call for a write",
		     d->name, d->pci, driver_of(path), group, type);
		goto out;
	}
	diag("bench: disk %s: %s (%s): iommu_group %s, type %s; a traced dma_map_sg(): %d of %d DMA addresses are among its %d physical ones",
	     d->name, d->pci, driver_of(path), group, type, same, ndma, nphys);
	if (!ndma || !nphys) {
		diag("error: %s: a dma:dma_map_sg event without DMA or physical addresses in the trace buffer",
		     d->name);
		errors++;
		goto out;
	}
judge:
	if (required && (!translates || same)) {
		diag("error: disk %s bypasses the IOMMU: no figures of this boot are a merge rate behind it",
		     d->name);
		errors++;
	} else if (required) {
		diag("bench: disk %s: behind the IOMMU", d->name);
		proven = 1;
	}
out:
	if (fd >= 0)
		close(fd);
	if (buf)
		munmap(buf, size);
	return proven;
}

static void result(int n, int ok, const char *name)
{
	printf("    %s %d %s\n", ok ? "ok" : "not ok", n, name);
}

int main(void)
{
	const char *levels = getenv("e2e_levels");
	const char *mib = getenv("e2e_mib");
	const char *uio = getenv("e2e_uio");
	const char *faults = getenv("e2e_faults");
	const char *iommu = getenv("e2e_iommu");
	struct result r = { 1, 1, 1, 1 };
	struct disk disks[MAX_DISKS] = { 0 };
	size_t size;
	char *list, *tok;
	int with_uio = uio && !strcmp(uio, "1");
	int with_iommu = iommu && !strcmp(iommu, "1");
	int kmods, maps, ndisks, i, proven = 0;
	cpu_set_t cpus, one;

	page_size = sysconf(_SC_PAGESIZE);
	size = (size_t)(mib ? atoi(mib) : 16) << 20;
	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mkdir("/dev", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) && errno != EBUSY)
		fail("mount devtmpfs");

	/*
	 * e2e_odirect needs nothing of the series; e2e_uio runs where the
	 * boot asks for it (e2e_uio=1: the RFC stage of make check-full, on
	 * the device tree node of arch-qemu-configs/dtb.py); e2e_uio_maps
	 * where the boot has its driver (uio_maps.c); the suites of /kmod
	 * (kmod.c) run last.
	 */
	kmods = kmod_count();
	maps = uio_maps_present();
	printf("KTAP version 1\n1..%d\n",
	       1 + with_uio + !!faults + maps + kmods);
	printf("    KTAP version 1\n    # Subtest: e2e_odirect\n    1..4\n");
	diag("bench: %zu MiB written and read back with O_DIRECT, page size %ld",
	     size >> 20, page_size);
	have_dma_event = dma_event_has_counts();
	if (!have_dma_event)
		diag("bench: no dma:dma_map_sg event in this kernel (or none with full_nents and full_ents): DMA segments not measured");
	ndisks = setup_disks(getenv("e2e_disks"), disks);
	/* Whether the disks are translated, before the levels. */
	for (i = 0; i < ndisks && !errors; i++)
		if (disks[i].pci[0])
			proven += check_iommu(&disks[i], with_iommu);
	if (with_iommu && !proven && !errors) {
		diag("error: e2e_iommu=1, but no disk of e2e_disks= was proven behind the IOMMU");
		errors++;
	}
	/*
	 * The levels run on one CPU, the one the init is on, so that the
	 * buffers are faulted in from the per-CPU lists of that CPU alone;
	 * the suites after them get every CPU back.
	 */
	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		fail("sched_getaffinity");
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		fail("sched_setaffinity");
	list = strdup(levels ? levels : "0");
	for (tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
		run_level(atoi(tok), disks, ndisks, size, &r);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		fail("sched_setaffinity");
	if (errors)
		r.counted = r.mapped_ok = r.data_ok = r.nothing_lost = 0;
	result(1, r.counted, "pages_counted_equal_pages_submitted");
	result(2, r.mapped_ok, "each_request_is_mapped_once_into_at_most_its_pages");
	result(3, r.data_ok, "data_read_back_equals_data_written");
	result(4, r.nothing_lost, "no_event_was_dropped_or_missed");
	printf("%s 1 e2e_odirect\n",
	       r.counted && r.mapped_ok && r.data_ok && r.nothing_lost ?
	       "ok" : "not ok");
	fflush(stdout);
	if (with_uio)
		uio_suite(2);
	if (faults)
		faults_suite(2 + with_uio, faults);
	if (maps)
		uio_maps_suite(2 + with_uio + !!faults);
	if (kmods)
		kmod_suites(2 + with_uio + !!faults + maps);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
