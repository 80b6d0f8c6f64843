// SPDX-License-Identifier: GPL-2.0
/*
 * e2e_faults, part of the e2e boot's init: the KUnit suites whose code
 * allocates, and O_DIRECT I/O, under the kernel's fault injection
 * (Documentation/fault-injection/fault-injection.rst), for the fault
 * stage of make check-full (scripts/faults.sh).
 *
 * The boot asks for it with e2e_faults=S1,S2,... (each an interval: every
 * S-th allocation of a chosen task fails; 0 for none).  The suites are
 * modules in /modules, loaded in the order of /modules/order.  For each
 * setting, the first one without failures:
 *  - failslab and fail_page_alloc are set to fail every S-th allocation
 *    (probability 100, interval S) of the tasks marked in make-it-fail
 *    only (task-filter), of any size, order and GFP flags;
 *  - each module is loaded with kthreadd marked (/proc/2/make-it-fail),
 *    so that the KUnit case threads it creates are marked; the loader
 *    itself is not, so that the module loads and its suites run.  Not
 *    good enough yet (why this is not part of make check-full): kthreadd's
 *    own allocations fail too, a case whose thread it cannot create
 *    passes without running in 6.1's KUnit, and every kthread created
 *    meanwhile stays marked;
 *  - O_DIRECT writes and reads of the disk are made with the init itself
 *    marked: each must return the whole length or an error, and data
 *    read back must be what was last written whole;
 *  - kmemleak scans for what the setting left behind.
 * The failures injected are counted with the attributes' "times", which
 * the kernel decrements on each failure it injects.  Each step prints a
 * "# e2e_faults:" line that scripts/faults-judge.py reads; the suites
 * print their KTAP on the console as they run.  A setting is a case of
 * the suite e2e_faults: it passes if nothing returned wrong data, no
 * attribute was refused, kmemleak found nothing, and, with failures, some
 * were injected.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEBUGFS		"/sys/kernel/debug/"
#define KMEMLEAK	DEBUGFS "kmemleak"
#define TIMES		1000000000L	/* "times" at the start of a step */
#define IO_CHUNK	(64 << 10)
#define IO_CHUNKS	64

int write_file(const char *path, const char *val);	/* odirect.c */

static const char *const attrs[] = { "failslab", "fail_page_alloc" };
static int refused;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	printf("    # e2e_faults: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Write one attribute of @attr; a refusal is named, never ignored. */
static void attr_set(const char *attr, const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), DEBUGFS "%s/%s", attr, name);
	if (write_file(path, val)) {
		say("error: %s refused %s: %s", path, val, strerror(errno));
		refused++;
	}
}

static long attr_times(const char *attr)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), DEBUGFS "%s/times", attr);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &v) != 1) {
		say("error: cannot read %s", path);
		refused++;
	}
	if (f)
		fclose(f);
	return v;
}

/* Fail every @interval-th allocation of the marked tasks (0: none). */
static void inject(unsigned int interval)
{
	char v[24];
	size_t i;

	for (i = 0; i < sizeof(attrs) / sizeof(*attrs); i++) {
		attr_set(attrs[i], "probability", "0");
		attr_set(attrs[i], "task-filter", "Y");
		attr_set(attrs[i], "ignore-gfp-wait", "N");
		attr_set(attrs[i], "verbose", "0");
		snprintf(v, sizeof(v), "%u", interval ? interval : 1);
		attr_set(attrs[i], "interval", v);
		snprintf(v, sizeof(v), "%ld", TIMES);
		attr_set(attrs[i], "times", v);
		if (interval)
			attr_set(attrs[i], "probability", "100");
	}
	attr_set("fail_page_alloc", "ignore-gfp-highmem", "N");
	attr_set("fail_page_alloc", "min-order", "0");
}

/* Stop injecting; the failures injected since inject(). */
static long injected(void)
{
	long n = 0;
	size_t i;

	for (i = 0; i < sizeof(attrs) / sizeof(*attrs); i++) {
		attr_set(attrs[i], "probability", "0");
		n += TIMES - attr_times(attrs[i]);
	}
	return n;
}

static void mark(const char *task, int on)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%s/make-it-fail", task);
	if (write_file(path, on ? "1" : "0")) {
		say("error: %s refused %d: %s", path, on, strerror(errno));
		refused++;
	}
}

static long load(const char *module, unsigned int interval)
{
	char path[256], name[128], *dot;
	long n;
	int fd, r;

	snprintf(path, sizeof(path), "/modules/%s", module);
	snprintf(name, sizeof(name), "%s", module);
	dot = strstr(name, ".ko");
	if (dot)
		*dot = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		say("error: open %s: %s", path, strerror(errno));
		refused++;
		return 0;
	}
	say("load %s interval %u", name, interval);
	inject(interval);
	mark("2", 1);
	r = syscall(SYS_finit_module, fd, "", 0);
	mark("2", 0);
	n = injected();
	say("loaded %s interval %u: %s, %ld failures injected", name, interval,
	    r ? strerror(errno) : "0", n);
	close(fd);
	if (!r && syscall(SYS_delete_module, name, O_NONBLOCK))
		say("unload %s: %s", name, strerror(errno));
	return n;
}

/*
 * O_DIRECT writes and reads of the disk with the init marked: each
 * returns the whole length or an error; data read back whole must be
 * what was last written whole to that chunk.  Returns the chunks read
 * back wrong.
 */
static int odirect(unsigned int interval, long *n)
{
	static unsigned char known[IO_CHUNKS];	/* 0: not written whole */
	unsigned char *buf;
	int fd, i, wrong = 0, werr = 0, rerr = 0;
	ssize_t r;

	buf = mmap(NULL, IO_CHUNK, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = open("/dev/vda", O_RDWR | O_DIRECT);
	if (buf == MAP_FAILED || fd < 0) {
		say("error: O_DIRECT set-up: %s", strerror(errno));
		refused++;
		return 0;
	}
	inject(interval);
	mark("self", 1);
	for (i = 0; i < IO_CHUNKS; i++) {
		unsigned char v = (unsigned char)(interval * 31 + i + 1) | 1;

		memset(buf, v, IO_CHUNK);
		r = pwrite(fd, buf, IO_CHUNK, (off_t)i * IO_CHUNK);
		known[i] = r == IO_CHUNK ? v : 0;
		if (r != IO_CHUNK)
			werr++;
		if (r >= 0 && r != IO_CHUNK)
			say("error: pwrite of chunk %d returned %zd", i, r);
	}
	for (i = 0; i < IO_CHUNKS; i++) {
		memset(buf, 0, IO_CHUNK);
		r = pread(fd, buf, IO_CHUNK, (off_t)i * IO_CHUNK);
		if (r != IO_CHUNK) {
			rerr++;
			if (r >= 0)
				say("error: pread of chunk %d returned %zd", i, r);
			continue;
		}
		if (known[i] && (buf[0] != known[i] ||
				 memcmp(buf, buf + 1, IO_CHUNK - 1))) {
			say("error: chunk %d read back wrong", i);
			wrong++;
		}
	}
	mark("self", 0);
	*n = injected();
	close(fd);
	munmap(buf, IO_CHUNK);
	say("odirect interval %u: %d of %d writes and %d of %d reads failed, %d chunks wrong, %ld failures injected",
	    interval, werr, IO_CHUNKS, rerr, IO_CHUNKS, wrong, *n);
	return wrong;
}

/* What kmemleak finds after two scans 7 s apart (see uio.c). */
static int kmemleak_leaks(void)
{
	char line[256];
	int n = 0, lines = 0;
	FILE *f;

	if (write_file(KMEMLEAK, "scan")) {
		say("error: no kmemleak scan (CONFIG_DEBUG_KMEMLEAK)");
		return -1;
	}
	sleep(7);
	if (write_file(KMEMLEAK, "scan"))
		return -1;
	f = fopen(KMEMLEAK, "r");
	if (!f) {
		say("error: open " KMEMLEAK ": %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "unreferenced object"))
			n++;
		line[strcspn(line, "\n")] = 0;
		if (lines++ < 40)
			say("kmemleak: %s", line);
	}
	fclose(f);
	write_file(KMEMLEAK, "clear");
	return n;
}

/* Runs the suite as subtest @n of the init's KTAP; returns 1 if it passed. */
int faults_suite(int n, const char *settings)
{
	char *list = strdup(settings), *tok, module[128];
	int all = 1, i = 0, count = 0, leaks;
	FILE *order;

	for (tok = list; *tok; tok++)
		count += *tok == ',';
	printf("    KTAP version 1\n    # Subtest: e2e_faults\n    1..%d\n",
	       count + 1);
	fflush(stdout);
	if (access(DEBUGFS "failslab/times", F_OK) ||
	    access(DEBUGFS "fail_page_alloc/times", F_OK)) {
		say("error: no " DEBUGFS "failslab or fail_page_alloc (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS)");
		refused++;
	}
	write_file(KMEMLEAK, "scan");
	write_file(KMEMLEAK, "clear");
	for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		unsigned int interval = (unsigned int)atoi(tok);
		int before = refused, wrong;
		long total = 0, io = 0;

		say("setting interval %u", interval);
		order = fopen("/modules/order", "r");
		if (!order) {
			say("error: no /modules/order");
			refused++;
		}
		while (order && fscanf(order, "%127s", module) == 1)
			total += load(module, interval);
		if (order)
			fclose(order);
		wrong = odirect(interval, &io);
		total += io;
		leaks = kmemleak_leaks();
		say("setting interval %u: %ld failures injected, %d chunks wrong, kmemleak %d",
		    interval, total, wrong, leaks);
		i++;
		if (wrong || leaks || refused != before || (interval && !total)) {
			all = 0;
			printf("    not ok %d interval_%u\n", i, interval);
		} else {
			printf("    ok %d interval_%u\n", i, interval);
		}
		fflush(stdout);
	}
	free(list);
	printf("%s %d e2e_faults\n", all ? "ok" : "not ok", n);
	fflush(stdout);
	return all;
}
