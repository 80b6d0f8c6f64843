// SPDX-License-Identifier: GPL-2.0
/*
 * e2e_uio, part of the e2e boot's init: a UIO device used from real
 * processes, and unbound under them.  uio_pdrv_genirq binds, through its
 * of_id parameter (uio_pdrv_genirq.of_id=dmatopics,uio-e2e on the kernel
 * command line), to the uio-e2e node that arch-qemu-configs/dtb.py adds
 * to the device tree of the ARM guests: 64K of RAM kept out of the
 * kernel's use (a no-map reserved-memory region) as the device's memory,
 * its map 0, and an interrupt that never fires, so that read() blocks.
 *
 * Once the driver is unbound in sysfs, no process may reach the device's
 * memory: every access of a mapping made before gets SIGBUS.  The UIO
 * core leaves the mappings in place; the RFC of kernel-patches/7.3/rfc/uio
 * revokes them, and make check-full boots this suite on both kernels
 * (scripts/runs/rfc.sh).  The RFC's cases of the KUnit suite uio cover
 * the memory types a kernel thread can test; this covers fork(),
 * mremap(), a read() in flight and the unbind from sysfs, which need a
 * process.
 *
 * Its last case asks kmemleak (CONFIG_DEBUG_KMEMLEAK) whether the suite
 * left an object that nothing points to any more.  Suspects from before
 * the suite are cleared when it starts, so that only its own objects count.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UIO_NAME	"uio-e2e"	/* the node's name, uio_pdrv_genirq's */
#define DRIVER	"/sys/bus/platform/drivers/uio_pdrv_genirq/"
#define MAP_LEN	(64 << 10)	/* the node's reg */
#define KMEMLEAK	"/sys/kernel/debug/kmemleak"

static char dev[NAME_MAX + 6];	/* /dev/uioN of the bound device */
static char pdev[NAME_MAX + 1];	/* its platform device */
static long page;
static __thread sigjmp_buf jump;	/* each thread catches its own SIGBUS */

int write_file(const char *path, const char *val);	/* odirect.c */
int uio_rebind(void);	/* below */

static void say(const char *fmt, ...)
{
	va_list ap;

	printf("    # e2e_uio: ");
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

/*
 * Find the UIO device named UIO_NAME: its node in /dev and its platform
 * device.  Its number may change when the driver is bound again.
 */
/*
 * uio_pdrv_genirq names the device after its node: "uio-e2e" where it
 * prints the node with %pOFn (6.1), "uio-e2e@<unit address>" where with
 * %pfwP (6.12, 7.3).
 */
static int is_uio_name(const char *name)
{
	size_t n = strlen(UIO_NAME);

	return !strncmp(name, UIO_NAME, n) && (!name[n] || name[n] == '@');
}

static int find_uio(void)
{
	char path[PATH_MAX], name[64], link[PATH_MAX];
	struct dirent *d;
	ssize_t n;
	DIR *dir;
	FILE *f;

	dir = opendir("/sys/class/uio");
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, "uio", 3))
			continue;
		snprintf(path, sizeof(path), "/sys/class/uio/%s/name", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(name, sizeof(name), f))
			name[0] = 0;
		fclose(f);
		name[strcspn(name, "\n")] = 0;
		if (!is_uio_name(name))
			continue;
		snprintf(path, sizeof(path), "/sys/class/uio/%s/device", d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = 0;
		snprintf(dev, sizeof(dev), "/dev/%s", d->d_name);
		snprintf(pdev, sizeof(pdev), "%s", strrchr(link, '/') + 1);
		closedir(dir);
		return 1;
	}
	closedir(dir);
	return 0;
}

static int open_uio(void)
{
	int fd = open(dev, O_RDWR);

	if (fd < 0)
		say("error: open %s: %s", dev, strerror(errno));
	return fd;
}

static int unbind(void)
{
	return !write_file(DRIVER "unbind", pdev);
}

static int bind(void)
{
	if (write_file(DRIVER "bind", pdev))
		return 0;
	if (!find_uio()) {
		say("error: no " UIO_NAME " device after binding %s", pdev);
		return 0;
	}
	return 1;
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
	volatile unsigned char *p = map(fd, page, 0);
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
	munmap((void *)p, page);
	if (write(go[1], "x", 1) != 1 || waitpid(pid, &status, 0) != pid)
		return 0;
	close(go[0]);
	close(go[1]);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		say("the child ended with status %#x", status);
		return 0;
	}
	p = map(fd, page, 0);	/* the child's write is in the memory */
	if (!p)
		return 0;
	status = p[1] == 0xa5;
	munmap((void *)p, page);
	return status;
}

/*
 * mremap() moves the mapping with the memory, and cannot make it larger
 * than the vma the core set up.
 */
static int mremap_moves_but_never_grows(int fd)
{
	volatile unsigned char *p = map(fd, 2 * page, 0), *moved;
	void *to;
	int ok;

	if (!p)
		return 0;
	p[page + 7] = 0x3c;
	to = mmap(NULL, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (to == MAP_FAILED)
		return 0;
	moved = mremap((void *)p, 2 * page, 2 * page,
		       MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (moved != to) {
		say("error: mremap: %s", strerror(errno));
		return 0;
	}
	ok = moved[page + 7] == 0x3c;
	if (mremap((void *)moved, 2 * page, 3 * page, MREMAP_MAYMOVE) != MAP_FAILED) {
		say("mremap() grew the mapping");
		ok = 0;
	}
	munmap((void *)moved, 2 * page);
	return ok;
}

/* munmap() of the first half of the map leaves the rest mapped. */
static int partial_munmap_keeps_the_rest(int fd)
{
	volatile unsigned char *p = map(fd, MAP_LEN, 0);
	size_t half = MAP_LEN / page / 2 * page;
	int ok;

	if (!p || !half)
		return 0;
	p[half] = 3;
	p[MAP_LEN - page] = 4;
	munmap((void *)p, MAP_LEN);
	p = map(fd, MAP_LEN, 0);
	if (!p)
		return 0;
	munmap((void *)p, half);	/* the rest faults after the split */
	ok = peek(p + half) == 3 && peek(p + MAP_LEN - page) == 4;
	munmap((void *)(p + half), MAP_LEN - half);
	return ok;
}

/*
 * Unbinding the driver revokes the mappings of every process, touched or
 * not, and the open file maps nothing more.
 */
static int unbind_revokes_every_mapping(int fd)
{
	volatile unsigned char *touched = map(fd, page, 0);
	volatile unsigned char *untouched = map(fd, page, 0);
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
	if (read(done[0], &c, 1) != 1 || !unbind())
		return 0;
	ok = 1;
	if (peek(touched) != -1) {
		say("the touched page still reads %#x after the unbind",
		    peek(touched));
		ok = 0;
	}
	if (peek(untouched) != -1) {
		say("an untouched page still reads %#x after the unbind",
		    peek(untouched));
		ok = 0;
	}
	if (write(go[1], "x", 1) != 1 || waitpid(pid, &status, 0) != pid)
		return 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		say("the child ended with status %#x (3: it could still read)",
		    status);
		ok = 0;
	}
	if (mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0) != MAP_FAILED) {
		say("mmap() after the unbind succeeded");
		ok = 0;
	}
	munmap((void *)touched, page);
	munmap((void *)untouched, page);
	return ok;
}

/* Bound again, the device maps its memory again. */
static int rebind_maps_the_device_again(void)
{
	volatile unsigned char *p;
	int fd, ok;

	if (!bind())
		return 0;
	fd = open_uio();
	if (fd < 0)
		return 0;
	p = map(fd, page, 0);
	ok = p && peek(p) >= 0;
	if (p)
		munmap((void *)p, page);
	close(fd);
	return ok;
}

/*
 * Threads of one process use the device while the driver is unbound
 * under them: two fault its mapping, page after page; one maps, touches
 * and unmaps it in a loop; one moves its mapping with mremap(); one forks
 * children that touch the mapping they inherit; one writes to the device
 * (irqcontrol) in a loop; one waits in read() for an interrupt.  Once the
 * unbind has returned, every access of every mapping, a new child's
 * included, gets SIGBUS, mmap() and write() fail, and the read returns.  Repeated, with the
 * unbind at different moments, so that they run into the revoke at
 * different points (KASAN, lockdep and the kmemleak case after this one
 * watch the kernel side).
 */
#define RACE_ROUNDS	20
#define JOIN_TIMEOUT	20	/* s: how long the unbind may take to end a thread */

enum role { FAULTER, FAULTER2, MAPPER, MOVER, FORKER, WRITER, READER, ROLES };

struct racer {
	pthread_t thread;
	enum role role;
	int fd;
	volatile unsigned char *p;	/* the mapping of the faulters */
	int ok;
};

static volatile int revoked;
static pthread_barrier_t started;	/* every racer set up, and the unbinder */
static int racers_left;	/* a racer did not end: it may still run */

static int is_revoked(void)
{
	return __atomic_load_n(&revoked, __ATOMIC_ACQUIRE);
}

static void fault_until_revoked(volatile unsigned char *p)
{
	unsigned long i = 0;

	while (!is_revoked()) {
		volatile unsigned char *q = p + (i++ % (MAP_LEN / page)) * page;

		if (!sigsetjmp(jump, 1))
			*q = *q + 1;
	}
}

static int all_sigbus(volatile unsigned char *p)
{
	return peek(p) == -1 && peek(p + MAP_LEN - page) == -1;
}

/* A child that touches @p: its exit status is 1 if that got SIGBUS. */
static int child_touch(volatile unsigned char *p)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(peek(p) == -1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void *race(void *arg)
{
	struct racer *r = arg;
	volatile unsigned char *p, *q, *t;
	int32_t n;

	switch (r->role) {
	case FAULTER:
	case FAULTER2:
		pthread_barrier_wait(&started);
		fault_until_revoked(r->p);
		r->ok = all_sigbus(r->p);
		break;
	case MAPPER:
		/*
		 * Maps the device again and again over its own range, never
		 * leaving a hole there that another thread's mmap() could
		 * take; once mmap() fails, the unbind has cleared the device.
		 */
		q = mmap(NULL, MAP_LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		pthread_barrier_wait(&started);
		if (q == MAP_FAILED)
			break;
		while (!is_revoked()) {
			p = mmap((void *)q, MAP_LEN, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED, r->fd, 0);
			if (p == MAP_FAILED)
				continue;
			if (!sigsetjmp(jump, 1))
				p[0] = 1;
		}
		p = mmap((void *)q, MAP_LEN, PROT_READ, MAP_SHARED | MAP_FIXED,
			 r->fd, 0);
		r->ok = p == MAP_FAILED;
		munmap((void *)q, MAP_LEN);
		break;
	case MOVER:
		/*
		 * Moves its mapping between two ranges of its own, reserving
		 * the range it leaves again at once.
		 */
		p = map(r->fd, MAP_LEN, 0);
		q = mmap(NULL, MAP_LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		pthread_barrier_wait(&started);
		if (!p || q == MAP_FAILED)
			break;
		while (!is_revoked()) {
			if (!sigsetjmp(jump, 1))
				p[0]++;
			t = mremap((void *)p, MAP_LEN, MAP_LEN,
				   MREMAP_MAYMOVE | MREMAP_FIXED, q);
			if (t != q)
				break;
			if (mmap((void *)p, MAP_LEN, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
				 -1, 0) != p)
				break;
			q = p;
			p = t;
		}
		r->ok = is_revoked() && all_sigbus(p);
		munmap((void *)p, MAP_LEN);
		munmap((void *)q, MAP_LEN);
		break;
	case FORKER:
		pthread_barrier_wait(&started);
		while (!is_revoked())
			child_touch(r->p);
		r->ok = child_touch(r->p) == 1;
		break;
	case WRITER:
		/* uio_pdrv_genirq's irqcontrol: enable the interrupt. */
		n = 1;
		pthread_barrier_wait(&started);
		while (!is_revoked())
			if (write(r->fd, &n, sizeof(n)) != sizeof(n))
				break;
		r->ok = write(r->fd, &n, sizeof(n)) == -1;
		break;
	case READER:
		/* The interrupt never fires: only the unbind ends the read. */
		pthread_barrier_wait(&started);
		r->ok = read(r->fd, &n, sizeof(n)) == -1 && errno == EIO;
		break;
	case ROLES:
		break;
	}
	return NULL;
}

static int faults_race_the_revoke(void)
{
	static const char *const roles[] = {
		"faulting", "faulting", "mapping", "mremap()ing", "forking",
		"writing", "reading",
	};
	struct racer r[ROLES];
	struct timespec deadline;
	int round, t, fd, ok = 1;
	unsigned char *p;

	for (round = 0; round < RACE_ROUNDS && ok; round++) {
		fd = open_uio();
		if (fd < 0)
			return 0;
		p = map(fd, MAP_LEN, 0);
		if (!p) {
			close(fd);
			return 0;
		}
		revoked = 0;
		pthread_barrier_init(&started, NULL, ROLES + 1);
		for (t = 0; t < ROLES; t++) {
			r[t].role = t;
			r[t].fd = fd;
			r[t].p = p;
			r[t].ok = 0;
			if (pthread_create(&r[t].thread, NULL, race, &r[t])) {
				say("error: pthread_create");
				return 0;
			}
		}
		pthread_barrier_wait(&started);
		usleep(1000 * (round % 5));
		if (!unbind())
			ok = 0;
		__atomic_store_n(&revoked, 1, __ATOMIC_RELEASE);
		/*
		 * Each thread ends once the unbind has reached it; one that
		 * has not within JOIN_TIMEOUT s (the reader, if the wake-up of
		 * its read() was lost) fails the case instead of hanging the
		 * boot, and is left blocked.
		 */
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_sec += JOIN_TIMEOUT;
		for (t = 0; t < ROLES; t++) {
			if (pthread_timedjoin_np(r[t].thread, NULL, &deadline)) {
				say("round %d: the %s thread did not end within %d s of the unbind",
				    round, roles[t], JOIN_TIMEOUT);
				racers_left = 1;
				return 0;
			}
			if (!r[t].ok) {
				say("round %d: the %s thread could still reach the device after the unbind",
				    round, roles[t]);
				ok = 0;
			}
		}
		pthread_barrier_destroy(&started);
		munmap(p, MAP_LEN);
		close(fd);
		if (!bind())
			return 0;
	}
	return ok;
}

/*
 * Threads open the device again and again while the driver is unbound.
 * Each open either gives a file or is refused with an errno (EINVAL once
 * the device's info is cleared, ENODEV once its minor is freed, ENOENT
 * once its node is gone, as soon as during the unbind); never a crash or
 * a splat, which the console check of the boot catches.  Once the unbind
 * has returned, no open succeeds, and the last file each thread opened,
 * during the unbind or before it, can no longer use the device: write()
 * and mmap() fail.  Repeated, with the unbind at different moments.
 */
#define OPENERS	2

struct opener {
	pthread_t thread;
	int fd;			/* the last file it opened, or -1 */
	unsigned long opened, late;	/* late: begun after the unbind returned */
	unsigned long refused[2];	/* before and after the unbind returned */
	int first_errno[2];
};

static pthread_barrier_t openers_started;
static volatile int unbound;	/* the unbind of this round has returned */

static void *open_until_refused(void *arg)
{
	struct opener *o = arg;
	int fd, after;

	pthread_barrier_wait(&openers_started);
	do {
		after = __atomic_load_n(&unbound, __ATOMIC_ACQUIRE);
		fd = open(dev, O_RDWR);
		if (fd < 0) {
			if (!o->refused[after]++)
				o->first_errno[after] = errno;
			continue;
		}
		o->opened++;
		o->late += after;
		if (o->fd >= 0)
			close(o->fd);
		o->fd = fd;
	} while (!after);
	return NULL;
}

static int opens_racing_the_unbind_are_refused_or_fail_later(void)
{
	unsigned long opened = 0, refused[2] = { 0 };
	struct opener o[OPENERS];
	int round, t, ok = 1, n = 1, after_errno = 0, bound = 1;
	unsigned char *p;

	if (racers_left) {
		say("threads of faults_race_the_revoke are still running: not run");
		return 0;
	}
	if (!uio_rebind())
		return 0;
	for (round = 0; round < RACE_ROUNDS && ok; round++) {
		unbound = 0;
		pthread_barrier_init(&openers_started, NULL, OPENERS + 1);
		for (t = 0; t < OPENERS; t++) {
			memset(&o[t], 0, sizeof(o[t]));
			o[t].fd = -1;
			if (pthread_create(&o[t].thread, NULL, open_until_refused,
					   &o[t])) {
				say("error: pthread_create");
				return 0;
			}
		}
		pthread_barrier_wait(&openers_started);
		usleep(1000 * (round % 5));
		if (!unbind())
			ok = bound = 0;
		__atomic_store_n(&unbound, 1, __ATOMIC_RELEASE);
		for (t = 0; t < OPENERS; t++) {
			pthread_join(o[t].thread, NULL);
			if (!bound) {
				/* still bound: what the threads saw says nothing */
				if (o[t].fd >= 0)
					close(o[t].fd);
				continue;
			}
			opened += o[t].opened;
			refused[0] += o[t].refused[0];
			refused[1] += o[t].refused[1];
			if (o[t].refused[1] && !after_errno)
				after_errno = o[t].first_errno[1];
			if (o[t].refused[0] && round < 5)
				say("round %d: an open during the unbind was refused: %s",
				    round, strerror(o[t].first_errno[0]));
			if (o[t].late) {
				say("round %d: %lu opens begun after the unbind succeeded",
				    round, o[t].late);
				ok = 0;
			}
			if (o[t].fd < 0)
				continue;
			if (write(o[t].fd, &n, sizeof(n)) != -1) {
				say("round %d: write() to a file opened as the driver went succeeded",
				    round);
				ok = 0;
			}
			p = mmap(NULL, page, PROT_READ, MAP_SHARED, o[t].fd, 0);
			if (p != MAP_FAILED) {
				say("round %d: mmap() of a file opened as the driver went succeeded",
				    round);
				munmap(p, page);
				ok = 0;
			}
			close(o[t].fd);
		}
		pthread_barrier_destroy(&openers_started);
		if (!bound || !bind())
			return 0;
	}
	say("%lu opens succeeded, %lu were refused during the unbinds and %lu after them (%s)",
	    opened, refused[0], refused[1], strerror(after_errno));
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

/* Write @v at @p; 0, or -1 if that gets SIGBUS. */
static int poke(volatile unsigned char *p, unsigned char v)
{
	if (sigsetjmp(jump, 1))
		return -1;
	*p = v;
	return 0;
}

/* Find the UIO device of this suite (for faults.c); 1 if there is one. */
int uio_find(void)
{
	return find_uio();
}

/*
 * For the e2e_faults suite (faults.c), run by a child whose allocations
 * fail as its setting says, once uio_find() found the device: map it,
 * write, fork a child that reads what was written, unmap half, unbind
 * the driver and check that nothing is left mapped.  A call may fail
 * with an error; a wrong result is a byte read back other than written,
 * a live mapping that gets SIGBUS (a failed page-table allocation makes
 * the fault retry, never SIGBUS), or memory still reachable after the
 * unbind.  @mark marks the child.  Returns the wrong results, or -1 if
 * the set-up or @mark fails.
 */
int uio_faults_workload(int (*mark)(void))
{
	/*
	 * The SIGBUS handler's frame goes on a stack faulted in before the
	 * child is marked: the kernel writes it with a user copy, which does
	 * not retry a failed page allocation, and a frame it cannot write
	 * turns the signal into SIGSEGV.
	 */
	static char altstack[64 << 10];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa = { .sa_handler = on_sigbus, .sa_flags = SA_ONSTACK };
	volatile unsigned char *p;
	int fd, wrong = 0, status;
	size_t half;
	pid_t pid;

	page = sysconf(_SC_PAGESIZE);
	memset(altstack, 0, sizeof(altstack));
	if (sigaltstack(&ss, NULL) || sigaction(SIGBUS, &sa, NULL))
		return -1;
	half = MAP_LEN / page / 2 * page;
	if (mark())
		return -1;
	fd = open(dev, O_RDWR);
	if (fd < 0)
		return 0;	/* an error, as allowed */
	p = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return 0;
	}
	if (poke(p, 0x6b) || poke(p + half, 0x6c)) {
		say("error: a write to the live mapping got SIGBUS");
		wrong++;
	} else {
		pid = fork();
		if (pid == 0)
			_exit(peek(p) == 0x6b && peek(p + half) == 0x6c ? 0 : 1);
		if (pid > 0 && waitpid(pid, &status, 0) == pid &&
		    (!WIFEXITED(status) || WEXITSTATUS(status))) {
			say("error: the forked child read other bytes (status %#x)",
			    status);
			wrong++;
		}
		if (!munmap((void *)p, half) && peek(p + half) != 0x6c) {
			say("error: the rest of a split mapping reads %d",
			    peek(p + half));
			wrong++;
		}
	}
	if (unbind()) {
		if (peek(p + half) != -1) {
			say("error: the mapping still reads after the unbind");
			wrong++;
		}
		if (mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0) != MAP_FAILED) {
			say("error: mmap() after the unbind succeeded");
			wrong++;
		}
	}
	munmap((void *)p, MAP_LEN);
	close(fd);
	return wrong;
}

/* Bind the driver again if a workload left it unbound; 0 if it cannot. */
int uio_rebind(void)
{
	char path[PATH_MAX];

	if (!pdev[0] && !find_uio())
		return 0;
	snprintf(path, sizeof(path), DRIVER "%s", pdev);
	if (!access(path, F_OK))
		return 1;
	return bind();
}

/* Runs the suite as subtest @n of the init's KTAP; returns 1 if it passed. */
int uio_suite(int n)
{
	static const char *const names[] = {
		"fork_keeps_the_mapping_in_the_child",
		"mremap_moves_but_never_grows",
		"partial_munmap_keeps_the_rest",
		"unbind_revokes_every_mapping",
		"rebind_maps_the_device_again",
		"faults_race_the_revoke",
		"opens_racing_the_unbind_are_refused_or_fail_later",
		"kmemleak_finds_nothing_left_behind",
	};
	struct sigaction sa = { .sa_handler = on_sigbus };
	int ok[8] = { 0 }, fd, i, all = 1, kmemleak, cleared = 0;

	page = sysconf(_SC_PAGESIZE);
	sigaction(SIGBUS, &sa, NULL);
	printf("    KTAP version 1\n    # Subtest: e2e_uio\n    1..8\n");
	fflush(stdout);
	kmemleak = !access(KMEMLEAK, F_OK);
	if (kmemleak)
		cleared = kmemleak_clear();
	if (!find_uio()) {
		say("error: no UIO device named " UIO_NAME
		    " (uio_pdrv_genirq.of_id=dmatopics,uio-e2e and dtb.py's node)");
	} else if ((fd = open_uio()) >= 0) {
		ok[0] = fork_keeps_the_mapping_in_the_child(fd);
		ok[1] = mremap_moves_but_never_grows(fd);
		ok[2] = partial_munmap_keeps_the_rest(fd);
		ok[3] = unbind_revokes_every_mapping(fd);
		close(fd);
		ok[4] = rebind_maps_the_device_again();
		ok[5] = ok[4] && faults_race_the_revoke();
		ok[6] = ok[4] && opens_racing_the_unbind_are_refused_or_fail_later();
	}
	for (i = 0; i < 7; i++) {
		printf("    %s %d %s\n", ok[i] ? "ok" : "not ok", i + 1, names[i]);
		all &= ok[i];
	}
	fflush(stdout);
	if (!kmemleak) {
		printf("    ok 8 %s # SKIP kmemleak is not on (CONFIG_DEBUG_KMEMLEAK)\n",
		       names[7]);
	} else {
		ok[7] = cleared && kmemleak_finds_nothing_left_behind();
		printf("    %s 8 %s\n", ok[7] ? "ok" : "not ok", names[7]);
		all &= ok[7];
	}
	printf("%s %d e2e_uio\n", all ? "ok" : "not ok", n);
	fflush(stdout);
	return all;
}
