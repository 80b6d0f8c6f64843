// SPDX-License-Identifier: GPL-2.0
/*
 * init of the end-to-end boot (scripts/e2e.sh): O_DIRECT I/O from a user
 * process through a virtio-blk disk, measured with the kernel's own
 * aggregation of the block_rq_map_sg tracepoint: hist triggers on
 * /sys/kernel/tracing/events/block/block_rq_map_sg that sum its pages,
 * nsegs and merged fields for the disk (two histograms: a 6.1 histogram
 * has room for two values beside its hit count).
 *
 * It first checks that nothing is counted while nothing listens: the
 * tracepoint is disabled at boot, one O_DIRECT write and read go through
 * it, and a hist trigger set after them has no hit.
 *
 * For each fragmentation level of e2e_levels= (percent, default "0") it
 * first fragments free memory (level > 0): it fills free memory with
 * anonymous pages, then gives back a random (100 - level)% of them,
 * page by page, and keeps the rest until the level is done; so level 0 is
 * a freshly booted machine and level 75 leaves free memory in holes
 * between pages that stay allocated.  Then it sets the hist trigger,
 * writes e2e_mib= MiB (default 16) with O_DIRECT from a buffer it
 * allocated and touched page by page, as an application's buffer is
 * faulted in, reads them back into a second such buffer, reads the
 * histogram and removes the trigger.
 *
 * Output: KTAP, one suite "e2e_odirect" whose cases hold over every level,
 * and "# bench:" diagnostic lines with the figures of each level.  Then it
 * runs the suite e2e_coherent_buf (coherent_buf.c) and powers the machine
 * off.  It writes nothing but the guest's own disk.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

#define DISK		"/dev/vda"
#define TRACEFS		"/sys/kernel/tracing"
#define EVENT		TRACEFS "/events/block/block_rq_map_sg"
#define CHUNK		(512 << 10)	/* bytes per pwrite()/pread() */
#define RESERVE		(48 << 20)	/* free memory the filler leaves */

struct counters {
	uint64_t hits, pages, nsegs, merged;
};

static long page_size;
static int errors;
static char trigger[2][128];	/* the hist triggers, for the disk */

int coherent_buf_suite(int n);	/* coherent_buf.c */
int coherent_buf_present(void);

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

/* The number after "@name: " in @line, added to @sum. */
static void add_value(const char *line, const char *name, uint64_t *sum)
{
	const char *p = strstr(line, name);
	uint64_t v;

	if (p && sscanf(p + strlen(name), ": %" SCNu64, &v) == 1)
		*sum += v;
}

/*
 * The sums of the histograms: each has one key (the disk), a line
 * "{ dev: N } hitcount: H pages: P nsegs: S" in the first and
 * "{ dev: N } hitcount: H merged: M" in the second; no line, no hit.
 */
static int read_counters(struct counters *c)
{
	FILE *f = fopen(EVENT "/hist", "r");
	char line[512];
	int keys = 0;

	memset(c, 0, sizeof(*c));
	if (!f) {
		fail("open " EVENT "/hist");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "{ dev:", 6))
			continue;
		keys++;
		if (strstr(line, " pages:"))
			add_value(line, "hitcount", &c->hits);
		add_value(line, " pages", &c->pages);
		add_value(line, " nsegs", &c->nsegs);
		add_value(line, " merged", &c->merged);
	}
	fclose(f);
	if (keys > 2) {
		diag("error: %s/hist: %d keys for one disk", EVENT, keys);
		errors++;
		return -1;
	}
	return 0;
}

/* Also used by coherent_buf.c. */
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

/* Hist triggers of its own on the tracepoint, for the disk only. */
static int set_trigger(void)
{
	if (!write_file(EVENT "/trigger", trigger[0]) &&
	    !write_file(EVENT "/trigger", trigger[1]))
		return 0;
	tracing_errors();
	return -1;
}

static int remove_trigger(void)
{
	char off[sizeof(trigger) + 1];
	int i, ret = 0;

	for (i = 0; i < 2; i++) {
		snprintf(off, sizeof(off), "!%s", trigger[i]);
		ret |= write_file(EVENT "/trigger", off);
	}
	return ret;
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
	for (i = 0; i < size; i += page_size)
		memset(buf + i, (seed + i / page_size) & 0xff, page_size);
	return buf;
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
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (fill == MAP_FAILED) {
		fail("mmap filler");
		*len = 0;
		return NULL;
	}
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
	int counted, merged_ok, data_ok, off_ok;
};

/*
 * Nobody listens at boot: the tracepoint is disabled, and one chunk
 * written and read back with O_DIRECT leaves nothing for a hist trigger
 * set after it.
 */
static void check_nothing_counted_while_nobody_listens(struct result *r)
{
	unsigned char *buf = touched_buffer(CHUNK, 7);
	struct counters c;
	char state[8] = "";
	int fd = -1;
	FILE *f;

	r->off_ok = 0;
	if (!buf)
		return;
	f = fopen(EVENT "/enable", "r");
	if (!f || !fgets(state, sizeof(state), f))
		fail("read " EVENT "/enable");
	if (f)
		fclose(f);
	if (state[0] != '0') {
		diag("block_rq_map_sg is enabled at boot: %s", state);
		goto out;
	}
	fd = open(DISK, O_RDWR | O_DIRECT);
	if (fd < 0) {
		fail("open " DISK " O_DIRECT");
		goto out;
	}
	if (pwrite(fd, buf, CHUNK, 0) != CHUNK ||
	    pread(fd, buf, CHUNK, 0) != CHUNK) {
		fail("O_DIRECT I/O while nobody listens");
		goto out;
	}
	if (set_trigger())
		goto out;
	if (!read_counters(&c)) {
		if (c.hits)
			diag("nobody listening: %" PRIu64 " requests, %" PRIu64
			     " pages counted", c.hits, c.pages);
		else
			r->off_ok = 1;
	}
	remove_trigger();
out:
	if (fd >= 0)
		close(fd);
	munmap(buf, CHUNK);
}

static void run_level(unsigned int level, size_t size, struct result *r)
{
	uint64_t pages = 2 * (size / page_size);	/* written + read */
	unsigned char *out, *in;
	struct counters c;
	size_t fill_len, off;
	int fd, listening = 0;
	void *fill;

	fill = fragment(level, &fill_len);
	out = touched_buffer(size, level);
	in = touched_buffer(size, level + 128);
	fd = open(DISK, O_RDWR | O_DIRECT);
	if (fd < 0)
		fail("open " DISK " O_DIRECT");
	if (!out || !in || fd < 0 || set_trigger())
		goto out;
	listening = 1;

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
	if (read_counters(&c))
		goto out;
	if (c.pages != pages) {
		diag("level %u: %" PRIu64 " pages counted, %" PRIu64
		     " pages submitted", level, c.pages, pages);
		r->counted = 0;
	}
	if (c.nsegs > c.pages || c.merged != c.pages - c.nsegs)
		r->merged_ok = 0;
	diag("bench: level %u: pieces %" PRIu64 " entries %" PRIu64
	     " merged %" PRIu64 " rate %" PRIu64 ".%01" PRIu64 "%%", level,
	     c.pages, c.nsegs, c.merged,
	     c.pages ? c.merged * 100 / c.pages : 0,
	     c.pages ? c.merged * 1000 / c.pages % 10 : 0);
out:
	if (listening)
		remove_trigger();
	if (fd >= 0)
		close(fd);
	if (out)
		munmap(out, size);
	if (in)
		munmap(in, size);
	if (fill)
		munmap(fill, fill_len);
}

static void result(int n, int ok, const char *name)
{
	printf("    %s %d %s\n", ok ? "ok" : "not ok", n, name);
}

int main(void)
{
	const char *levels = getenv("e2e_levels");
	const char *mib = getenv("e2e_mib");
	struct result r = { 1, 1, 1, 1 };
	struct stat st;
	size_t size;
	char *list, *tok;
	int odirect, buf;

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
	 * A suite runs where the kernel has what it checks: a kernel built
	 * with only some of the topic series ("make check TOPICS=...") has
	 * no block_rq_map_sg tracepoint, or no sample driver, and its plan
	 * lists no such case.
	 */
	odirect = !access(EVENT "/trigger", F_OK);
	buf = coherent_buf_present();
	printf("KTAP version 1\n1..%d\n", odirect + buf);
	if (odirect) {
		printf("    KTAP version 1\n    # Subtest: e2e_odirect\n    1..4\n");
		diag("bench: %zu MiB written and read back with O_DIRECT, page size %ld",
		     size >> 20, page_size);
		/* The kernel's dev_t of the disk: major << 20 | minor. */
		if (stat(DISK, &st))
			fail("stat " DISK);
		snprintf(trigger[0], sizeof(trigger[0]),
			 "hist:keys=dev:vals=pages,nsegs if dev == %u",
			 major(st.st_rdev) << 20 | minor(st.st_rdev));
		snprintf(trigger[1], sizeof(trigger[1]),
			 "hist:keys=dev:vals=merged if dev == %u",
			 major(st.st_rdev) << 20 | minor(st.st_rdev));
		check_nothing_counted_while_nobody_listens(&r);
		list = strdup(levels ? levels : "0");
		for (tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
			run_level(atoi(tok), size, &r);
		if (errors)
			r.counted = r.merged_ok = r.data_ok = r.off_ok = 0;
		result(1, r.counted, "pieces_counted_equal_pages_submitted");
		result(2, r.merged_ok, "entries_and_merges_add_up_to_pieces");
		result(3, r.data_ok, "data_read_back_equals_data_written");
		result(4, r.off_ok, "nothing_counted_while_nothing_listens");
		printf("%s 1 e2e_odirect\n",
		       r.counted && r.merged_ok && r.data_ok && r.off_ok ?
		       "ok" : "not ok");
		fflush(stdout);
	}
	if (buf)
		coherent_buf_suite(odirect + 1);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
