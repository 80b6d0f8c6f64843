// SPDX-License-Identifier: GPL-2.0
/*
 * e2e_coherent_buf, part of the e2e boot's init: the sample driver of
 * struct dma_coherent_buf (samples/dma, built in by our kunitconfig) used
 * from real processes.  Its device maps a 64K coherent buffer through
 * /dev/dma-coherent-buf-sample; unbinding the driver in sysfs revokes
 * every mapping, which then gets SIGBUS.  The KUnit suite dma_coherent_buf
 * covers what a kernel thread can do; this covers fork() and mremap(),
 * which need a process, and the unbind from sysfs.
 *
 * Its last case asks kmemleak (CONFIG_DEBUG_KMEMLEAK) whether the suite
 * left an object that nothing points to any more: a buffer, a file or a
 * mapping whose last reference was never put.  Suspects from before the
 * suite are cleared when it starts, so that only its own objects count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEV	"/dev/dma-coherent-buf-sample"
#define DRIVER	"/sys/bus/platform/drivers/dma-coherent-buf-sample/"
#define NAME	"dma-coherent-buf-sample"
#define KMEMLEAK	"/sys/kernel/debug/kmemleak"

static long page;
static __thread sigjmp_buf jump;	/* each thread catches its own SIGBUS */

int write_file(const char *path, const char *val);	/* odirect.c */

static void say(const char *fmt, ...)
{
	va_list ap;

	printf("    # e2e_coherent_buf: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(jump, 1);
}

/* The byte at @p, or -1 if reading it gets SIGBUS. */
static int peek(volatile unsigned char *p)
{
	if (sigsetjmp(jump, 1))
		return -1;
	return *p;
}

static unsigned char *map(int fd, size_t len, off_t off)
{
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
				fd, off);

	if (p == MAP_FAILED) {
		say("error: mmap of %zu bytes at %ld: %s", len, (long)off,
		    strerror(errno));
		return NULL;
	}
	return p;
}

/* A child reads what the parent wrote after the parent unmapped. */
static int fork_keeps_the_mapping_in_the_child(int fd)
{
	unsigned char *p = map(fd, page, 0);
	int go[2], status;
	pid_t pid;

	if (!p || pipe(go))
		return 0;
	p[0] = 0x5a;
	pid = fork();
	if (pid == 0) {
		char c;

		if (read(go[0], &c, 1) != 1)
			_exit(2);
		if (p[0] != 0x5a)
			_exit(3);
		p[1] = 0xa5;
		_exit(0);
	}
	munmap(p, page);
	if (write(go[1], "x", 1) != 1 || waitpid(pid, &status, 0) != pid)
		return 0;
	close(go[0]);
	close(go[1]);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		say("the child ended with status %#x", status);
		return 0;
	}
	p = map(fd, page, 0);	/* the child's write is in the buffer */
	if (!p)
		return 0;
	status = p[1] == 0xa5;
	munmap(p, page);
	return status;
}

/*
 * mremap() moves the mapping with the buffer, and cannot make it larger
 * than the vma the driver set up.
 */
static int mremap_moves_but_never_grows(int fd)
{
	unsigned char *p = map(fd, 2 * page, 0), *to, *moved;
	int ok;

	if (!p)
		return 0;
	p[page + 7] = 0x3c;
	to = mmap(NULL, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (to == MAP_FAILED)
		return 0;
	moved = mremap(p, 2 * page, 2 * page, MREMAP_MAYMOVE | MREMAP_FIXED,
		       to);
	if (moved != to) {
		say("error: mremap: %s", strerror(errno));
		return 0;
	}
	ok = moved[page + 7] == 0x3c;
	if (mremap(moved, 2 * page, 3 * page, MREMAP_MAYMOVE) != MAP_FAILED) {
		say("mremap() grew the mapping");
		ok = 0;
	}
	munmap(moved, 2 * page);
	return ok;
}

/* munmap() of the middle page leaves both ends mapped. */
static int partial_munmap_keeps_the_rest(int fd)
{
	unsigned char *p = map(fd, 3 * page, 0);
	int ok;

	if (!p)
		return 0;
	p[0] = 1;
	p[2 * page] = 3;
	munmap(p + page, page);
	ok = peek(p) == 1 && peek(p + 2 * page) == 3;
	munmap(p, page);
	munmap(p + 2 * page, page);
	return ok;
}

/*
 * Unbinding the driver revokes the mappings of every process, touched or
 * not, and the open file maps nothing more.
 */
static int unbind_revokes_every_mapping(int fd)
{
	unsigned char *touched = map(fd, page, 0), *untouched = map(fd, page, 0);
	int go[2], done[2], status, ok;
	pid_t pid;
	char c;

	if (!touched || !untouched || pipe(go) || pipe(done))
		return 0;
	touched[0] = 0x11;
	pid = fork();
	if (pid == 0) {
		if (touched[0] != 0x11 || write(done[1], "r", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(peek(touched) == -1 ? 0 : 3);
	}
	if (read(done[0], &c, 1) != 1 || write_file(DRIVER "unbind", NAME))
		return 0;
	ok = peek(touched) == -1 && peek(untouched) == -1;
	if (!ok)
		say("a mapping was still readable after the unbind");
	if (write(go[1], "x", 1) != 1 || waitpid(pid, &status, 0) != pid)
		return 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		say("the child ended with status %#x", status);
		ok = 0;
	}
	if (mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0) != MAP_FAILED ||
	    errno != ENODEV) {
		say("mmap() after the unbind did not fail with ENODEV");
		ok = 0;
	}
	munmap(touched, page);
	munmap(untouched, page);
	return ok;
}

/* Bound again, the driver has a fresh buffer. */
static int rebind_maps_a_new_buffer(void)
{
	unsigned char *p;
	int fd, ok;

	if (write_file(DRIVER "bind", NAME))
		return 0;
	fd = open(DEV, O_RDWR);
	if (fd < 0) {
		say("error: open " DEV ": %s", strerror(errno));
		return 0;
	}
	p = map(fd, page, 0);
	ok = p && peek(p) >= 0;
	if (p)
		munmap(p, page);
	close(fd);
	return ok;
}

/*
 * Threads fault the mapping, writing page after page, while the driver is
 * unbound under them; once the unbind has returned, every access of every
 * thread gets SIGBUS.  Repeated, with the unbind at different moments, so
 * that faults run into the revoke at different points (KASAN, lockdep and
 * the kmemleak case after this one watch the kernel side).
 */
#define RACE_THREADS	3
#define RACE_ROUNDS	20
#define RACE_LEN	(64 << 10)	/* the sample's buffer */

struct racer {
	pthread_t thread;
	volatile unsigned char *p;
	size_t pages;
	int ok;
};

static volatile int revoked;

static void *race(void *arg)
{
	struct racer *r = arg;
	unsigned long i = 0;

	while (!__atomic_load_n(&revoked, __ATOMIC_ACQUIRE)) {
		volatile unsigned char *q = r->p + (i++ % r->pages) * page;

		if (!sigsetjmp(jump, 1))
			*q = *q + 1;
	}
	r->ok = peek(r->p) == -1 && peek(r->p + (r->pages - 1) * page) == -1;
	return NULL;
}

static int faults_race_the_revoke(void)
{
	struct racer r[RACE_THREADS];
	int round, t, fd, ok = 1;
	unsigned char *p;

	for (round = 0; round < RACE_ROUNDS && ok; round++) {
		fd = open(DEV, O_RDWR);
		if (fd < 0) {
			say("error: open " DEV ": %s", strerror(errno));
			return 0;
		}
		p = map(fd, RACE_LEN, 0);
		if (!p) {
			close(fd);
			return 0;
		}
		revoked = 0;
		for (t = 0; t < RACE_THREADS; t++) {
			r[t].p = p;
			r[t].pages = RACE_LEN / page;
			r[t].ok = 0;
			if (pthread_create(&r[t].thread, NULL, race, &r[t])) {
				say("error: pthread_create");
				return 0;
			}
		}
		usleep(1000 * (round % 5));
		if (write_file(DRIVER "unbind", NAME))
			ok = 0;
		__atomic_store_n(&revoked, 1, __ATOMIC_RELEASE);
		for (t = 0; t < RACE_THREADS; t++) {
			pthread_join(r[t].thread, NULL);
			if (!r[t].ok) {
				say("round %d: thread %d could still reach the buffer after the unbind",
				    round, t);
				ok = 0;
			}
		}
		munmap(p, RACE_LEN);
		close(fd);
		if (write_file(DRIVER "bind", NAME))
			ok = 0;
	}
	return ok;
}

/*
 * kmemleak reports an object that no scan found a pointer to only if it
 * was older than 5 s (MSECS_MIN_AGE) when the scan started and its
 * contents did not change since the previous scan.  Scan and clear before
 * the suite, so that what the boot left is never reported.  At the end,
 * scan twice, the second time once the suite's last objects are old
 * enough: the first scan takes the checksums, and finds a pointer that
 * was only in flight during the other.
 */
static int kmemleak_clear(void)
{
	return !write_file(KMEMLEAK, "scan") && !write_file(KMEMLEAK, "clear");
}

static int kmemleak_finds_nothing_left_behind(void)
{
	struct timespec end, t;
	char line[256];
	int n = 0, lines = 0;
	FILE *f;

	clock_gettime(CLOCK_MONOTONIC, &end);
	if (write_file(KMEMLEAK, "scan"))
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (t.tv_sec - end.tv_sec < 7)	/* 6 s or more since the suite ended */
		sleep(7 - (t.tv_sec - end.tv_sec));
	if (write_file(KMEMLEAK, "scan"))
		return 0;
	f = fopen(KMEMLEAK, "r");
	if (!f) {
		say("error: open " KMEMLEAK ": %s", strerror(errno));
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "unreferenced object"))
			n++;
		line[strcspn(line, "\n")] = 0;
		if (lines++ < 60)	/* the first reports, with their backtraces */
			say("kmemleak: %s", line);
	}
	fclose(f);
	if (n)
		say("error: kmemleak found %d unreferenced object(s)", n);
	return n == 0;
}

/* Whether the kernel has the sample driver's device. */
int coherent_buf_present(void)
{
	return !access(DEV, F_OK);
}

/* Runs the suite as subtest @n of the init's KTAP; returns 1 if it passed. */
int coherent_buf_suite(int n)
{
	static const char *const names[] = {
		"fork_keeps_the_mapping_in_the_child",
		"mremap_moves_but_never_grows",
		"partial_munmap_keeps_the_rest",
		"unbind_revokes_every_mapping",
		"rebind_maps_a_new_buffer",
		"faults_race_the_revoke",
		"kmemleak_finds_nothing_left_behind",
	};
	struct sigaction sa = { .sa_handler = on_sigbus };
	int ok[7] = { 0 }, fd, i, all = 1, kmemleak, cleared = 0;

	page = sysconf(_SC_PAGESIZE);
	sigaction(SIGBUS, &sa, NULL);
	printf("    KTAP version 1\n    # Subtest: e2e_coherent_buf\n    1..7\n");
	fflush(stdout);
	kmemleak = !access(KMEMLEAK, F_OK);
	if (kmemleak)
		cleared = kmemleak_clear();
	fd = open(DEV, O_RDWR);
	if (fd < 0) {
		say("error: open " DEV ": %s", strerror(errno));
	} else {
		ok[0] = fork_keeps_the_mapping_in_the_child(fd);
		ok[1] = mremap_moves_but_never_grows(fd);
		ok[2] = partial_munmap_keeps_the_rest(fd);
		ok[3] = unbind_revokes_every_mapping(fd);
		close(fd);
		ok[4] = ok[3] && rebind_maps_a_new_buffer();
		ok[5] = ok[4] && faults_race_the_revoke();
	}
	for (i = 0; i < 6; i++) {
		printf("    %s %d %s\n", ok[i] ? "ok" : "not ok", i + 1, names[i]);
		all &= ok[i];
	}
	fflush(stdout);
	if (!kmemleak) {
		printf("    ok 7 %s # SKIP kmemleak is not on (CONFIG_DEBUG_KMEMLEAK)\n",
		       names[6]);
	} else {
		ok[6] = cleared && kmemleak_finds_nothing_left_behind();
		printf("    %s 7 %s\n", ok[6] ? "ok" : "not ok", names[6]);
		all &= ok[6];
	}
	printf("%s %d e2e_coherent_buf\n", all ? "ok" : "not ok", n);
	fflush(stdout);
	return all;
}
