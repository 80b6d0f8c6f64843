// SPDX-License-Identifier: GPL-2.0
/*
 * e2e_faults, part of the e2e boot's init: the KUnit suites whose code
 * allocates, and O_DIRECT I/O, under the kernel's fault injection
 * (Documentation/fault-injection/fault-injection.rst), for the fault
 * stage of make check-full (scripts/runs/faults.sh).
 *
 * The boot asks for it with e2e_faults=S1,S2,... (each an interval: every
 * S-th allocation of a chosen task fails; 0 for none).  The suites are
 * modules in /modules, loaded in the order of /modules/order.  For each
 * setting, the first one without failures:
 *  - failslab and fail_page_alloc are set to fail every S-th allocation
 *    (probability 100, interval S) of the tasks marked in make-it-fail
 *    only (task-filter), of any size, order and GFP flags;
 *  - each module is loaded with kunit.make_it_fail set, so that the
 *    thread of each KUnit case starts marked (a kernel patch for this
 *    stage, kernel-patches/TREE/faults/); the loader and the suites' init and
 *    exit stay unmarked, so that the module loads and its suites run.
 *    A module listed as "NAME plain" in /modules/order is loaded only in
 *    the setting without failures;
 *  - a child of the init, marked from its start, makes O_DIRECT writes
 *    and reads of the disk: each must return the whole length or an
 *    error, and a chunk written whole must read back whole as written;
 *  - where the boot has the UIO device of uio.c (e2e_uio), a child,
 *    marked once it has found the device, maps it, forks, unmaps half,
 *    and unbinds the driver: every call returns a result or an error,
 *    the bytes read are those written, and nothing stays reachable
 *    after the unbind; the init binds the driver again, unmarked;
 *  - kmemleak scans for what the setting left behind.
 * The failures injected are counted with the attributes' "times", which
 * the kernel decrements on each failure it injects.  Each step prints a
 * "# e2e_faults:" line that scripts/results/faults-judge.py reads; the suites
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEBUGFS		"/sys/kernel/debug/"
#define KMEMLEAK	DEBUGFS "kmemleak"
#define TIMES		1000000000L	/* "times" at the start of a step */
#define IO_CHUNK	(64 << 10)
#define IO_CHUNKS	64

int write_file(const char *path, const char *val);	/* odirect.c */
int uio_find(void);	/* uio.c */
int uio_faults_workload(int (*mark)(void));
int uio_rebind(void);

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

/* Mark the KUnit case threads created from now on, or stop marking them. */
static void mark_cases(int on)
{
	const char *path = "/sys/module/kunit/parameters/make_it_fail";

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
	mark_cases(1);
	r = syscall(SYS_finit_module, fd, "", 0);
	mark_cases(0);
	n = injected();
	say("loaded %s interval %u: %s, %ld failures injected", name, interval,
	    r ? strerror(errno) : "0", n);
	close(fd);
	if (!r && syscall(SYS_delete_module, name, O_NONBLOCK))
		say("unload %s: %s", name, strerror(errno));
	return n;
}

/* Mark the calling process: its allocations fail as the setting says. */
static int mark_self(void)
{
	return write_file("/proc/self/make-it-fail", "1");
}

/*
 * O_DIRECT writes and reads of the disk in a child marked from its
 * start (the init itself stays unmarked: it could not unmark itself, as
 * that open() could fail): each returns the whole length or an error; a
 * chunk written whole must read back whole as written.  Returns the
 * chunks read back wrong, with a wrong return counted as one.
 */
static int odirect_child(unsigned int interval)
{
	unsigned char known[IO_CHUNKS];	/* 0: not written whole */
	unsigned char *buf;
	int fd, i, wrong = 0, werr = 0, rerr = 0, err = 0;
	ssize_t r;

	buf = mmap(NULL, IO_CHUNK, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = open("/dev/vda", O_RDWR | O_DIRECT);
	if (buf == MAP_FAILED || fd < 0) {
		say("error: O_DIRECT set-up: %s", strerror(errno));
		return -1;
	}
	/* Faulted in unmarked: a failed page fault is not what is tested. */
	memset(buf, 0, IO_CHUNK);
	memset(known, 0, sizeof(known));
	if (mark_self()) {
		say("error: /proc/self/make-it-fail refused 1: %s",
		    strerror(errno));
		return -1;
	}
	for (i = 0; i < IO_CHUNKS; i++) {
		unsigned char v = (unsigned char)(interval * 31 + i + 1) | 1;

		memset(buf, v, IO_CHUNK);
		r = pwrite(fd, buf, IO_CHUNK, (off_t)i * IO_CHUNK);
		known[i] = r == IO_CHUNK ? v : 0;
		if (r != IO_CHUNK)
			werr++;
		if (r < 0 && !err)
			err = errno;
		if (r >= 0 && r != IO_CHUNK) {
			say("error: pwrite of chunk %d returned %zd", i, r);
			wrong++;
		}
	}
	for (i = 0; i < IO_CHUNKS; i++) {
		memset(buf, 0, IO_CHUNK);
		r = pread(fd, buf, IO_CHUNK, (off_t)i * IO_CHUNK);
		if (r != IO_CHUNK) {
			rerr++;
			if (r < 0 && !err)
				err = errno;
			if (r >= 0) {
				say("error: pread of chunk %d returned %zd",
				    i, r);
				wrong++;
			}
			continue;
		}
		if (known[i] && (buf[0] != known[i] ||
				 memcmp(buf, buf + 1, IO_CHUNK - 1))) {
			say("error: chunk %d read back wrong", i);
			wrong++;
		}
	}
	say("odirect child interval %u: %d of %d writes and %d of %d reads failed (first: %s), %d wrong",
	    interval, werr, IO_CHUNKS, rerr, IO_CHUNKS,
	    err ? strerror(err) : "none", wrong);
	return wrong;
}

/*
 * Run @fn(@interval) in a child of the init, the setting's injection
 * on; the wrong results it counted (its exit status), or 1 if a signal
 * killed it.  A child whose set-up failed exits 255.
 */
static int in_child(const char *what, int (*fn)(unsigned int),
		    unsigned int interval)
{
	int status;
	pid_t pid;

	inject(interval);
	pid = fork();
	if (pid == 0) {
		int r = fn(interval);

		_exit(r < 0 ? 255 : r > 254 ? 254 : r);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		say("error: no %s child: %s", what, strerror(errno));
		refused++;
		return 0;
	}
	if (!WIFEXITED(status)) {
		say("error: the %s child died of signal %d", what,
		    WTERMSIG(status));
		return 1;
	}
	if (WEXITSTATUS(status) == 255) {
		say("error: the %s child could not set itself up", what);
		refused++;
		return 0;
	}
	return WEXITSTATUS(status);
}

static int odirect(unsigned int interval, long *n)
{
	int wrong = in_child("O_DIRECT", odirect_child, interval);

	*n = injected();
	say("odirect interval %u: child done, %d chunks wrong, %ld failures injected",
	    interval, wrong, *n);
	return wrong;
}

static int uio_child(unsigned int interval)
{
	(void)interval;
	return uio_faults_workload(mark_self);
}

/* Whether the kernel command line has @word. */
static int cmdline_has(const char *word)
{
	char line[4096];
	FILE *f = fopen("/proc/cmdline", "r");
	int has = 0;

	if (f && fgets(line, sizeof(line), f))
		has = strstr(line, word) != NULL;
	if (f)
		fclose(f);
	return has;
}

/*
 * The UIO device of the e2e boot (uio.c), found by the init, then mapped,
 * forked, split and unbound by a marked child; then bound again by the
 * init, unmarked.  Returns the wrong results, or -1 if the boot has no
 * such device (an error if its command line binds one).
 */
static int uio(unsigned int interval, long *n)
{
	int wrong;

	if (!uio_find()) {
		if (cmdline_has("uio_pdrv_genirq.of_id=")) {
			say("error: no UIO device, though the kernel command line binds one");
			refused++;
		}
		return -1;
	}
	wrong = in_child("UIO", uio_child, interval);
	*n = injected();
	if (!uio_rebind()) {
		say("error: the UIO device could not be bound again");
		refused++;
	}
	say("uio interval %u: child done, %d wrong, %ld failures injected",
	    interval, wrong, *n);
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
		if (lines++ < 400)
			say("kmemleak: %s", line);
	}
	fclose(f);
	write_file(KMEMLEAK, "clear");
	return n;
}

/* Runs the suite as subtest @n of the init's KTAP; returns 1 if it passed. */
int faults_suite(int n, const char *settings)
{
	char *list = strdup(settings), *tok, line[256];
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
		int before = refused, wrong, uwrong;
		long total = 0, io = 0, uio_n = 0;

		say("setting interval %u", interval);
		order = fopen("/modules/order", "r");
		if (!order) {
			say("error: no /modules/order");
			refused++;
		}
		while (order && fgets(line, sizeof(line), order)) {
			char module[128], mode[16] = "";

			if (sscanf(line, "%127s %15s", module, mode) < 1)
				continue;
			/* "plain": loaded only without failures */
			if (!interval || strcmp(mode, "plain"))
				total += load(module, interval);
		}
		if (order)
			fclose(order);
		wrong = odirect(interval, &io);
		total += io;
		uwrong = uio(interval, &uio_n);
		if (uwrong > 0)
			wrong += uwrong;
		if (uwrong >= 0)
			total += uio_n;
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
