// SPDX-License-Identifier: GPL-2.0
/*
 * e2e_uio_maps, part of the e2e boot's init: the maps of a UIO device whose
 * pages the UIO core faults in, logical and virtual memory, mapped by a
 * real process and then split, moved and inherited as processes do.  The
 * device is "uio-e2e-maps" of the harness's module
 * scripts/runs/e2e/uio-maps (kernel-patches/TREE/e2e-drivers), which the
 * init loads: maps 0 and 1 are logical memory, 2 and 3 virtual memory,
 * MAP_PAGES pages each, every byte of page P of map M being
 * 0x10 * (M + 1) + P.
 *
 * Each mapping must keep showing the pages of the map it was made of.
 * The UIO core of 7.3 without "uio: fix the map of a mapping that munmap()
 * or mremap() has split" takes the map from the vm_pgoff of the vma, which
 * a split moves: the first five cases then read another map.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MODULE		"/e2e-drivers/uio_maps.ko"
#define UIO_NAME	"uio-e2e-maps"
#define MAP_PAGES	4

static long page;
static sigjmp_buf jump;

static void say(const char *fmt, ...)
{
	va_list ap;

	printf("    # e2e_uio_maps: ");
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

/* Whether the init has the module: the suite runs only then. */
int uio_maps_present(void)
{
	return !access(MODULE, F_OK);
}

/* Load the module and open the node of its device; -1 on failure. */
static int open_device(void)
{
	char path[PATH_MAX], name[64], node[NAME_MAX + 6] = "";
	struct dirent *d;
	DIR *dir;
	FILE *f;
	int fd;

	fd = open(MODULE, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || syscall(SYS_finit_module, fd, "", 0)) {
		say("error: loading " MODULE ": %s", strerror(errno));
		return -1;
	}
	close(fd);
	dir = opendir("/sys/class/uio");
	while (dir && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/sys/class/uio/%s/name", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(name, sizeof(name), f))
			name[0] = 0;
		fclose(f);
		name[strcspn(name, "\n")] = 0;
		if (!strcmp(name, UIO_NAME))
			snprintf(node, sizeof(node), "/dev/%s", d->d_name);
	}
	if (dir)
		closedir(dir);
	if (!node[0]) {
		say("error: no UIO device named " UIO_NAME);
		return -1;
	}
	fd = open(node, O_RDWR);
	if (fd < 0)
		say("error: open %s: %s", node, strerror(errno));
	return fd;
}

static unsigned char *map(int fd, int mi)
{
	unsigned char *p = mmap(NULL, MAP_PAGES * page, PROT_READ, MAP_SHARED,
				fd, mi * page);

	if (p == MAP_FAILED) {
		say("error: mmap of map %d: %s", mi, strerror(errno));
		return NULL;
	}
	return p;
}

/*
 * Whether every byte of the page at @pg is @want: 1 if so, 0 if not (the
 * first other byte in @got), -1 if reading it gets SIGBUS.
 */
static int page_holds(volatile unsigned char *pg, unsigned char want,
		      unsigned char *got)
{
	long j;

	if (sigsetjmp(jump, 1))
		return -1;
	for (j = 0; j < page; j++) {
		if (pg[j] != want) {
			*got = pg[j];
			return 0;
		}
	}
	return 1;
}

/* Whether @pages pages at @p are pages @first on of map @mi. */
static int shows_map(unsigned char *p, int mi, int first, int pages)
{
	unsigned char want, got = 0;
	int i, r;

	for (i = 0; i < pages; i++) {
		want = 0x10 * (mi + 1) + first + i;
		r = page_holds(p + (long)i * page, want, &got);
		if (r < 0)
			say("page %d of map %d: SIGBUS", first + i, mi);
		else if (!r)
			say("page %d of map %d holds %#x, not %#x",
			    first + i, mi, got, want);
		if (r != 1)
			return 0;
	}
	return 1;
}

/* munmap() of the first page leaves a vma at the offset of map mi + 1. */
static int a_split_mapping_stays_on_its_map(int fd, int mi)
{
	unsigned char *p = map(fd, mi);
	int ok;

	if (!p)
		return 0;
	if (munmap(p, page)) {
		say("error: munmap: %s", strerror(errno));
		return 0;
	}
	ok = shows_map(p + page, mi, 1, MAP_PAGES - 1);
	munmap(p + page, (MAP_PAGES - 1) * page);
	return ok;
}

/* mremap() of the last two pages moves them with a vm_pgoff of map 2. */
static int a_mapping_moved_by_mremap_stays_on_its_map(int fd)
{
	unsigned char *p = map(fd, 0), *to, *moved;
	int ok;

	if (!p)
		return 0;
	to = mmap(NULL, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (to == MAP_FAILED) {
		munmap(p, MAP_PAGES * page);
		return 0;
	}
	moved = mremap(p + 2 * page, 2 * page, 2 * page,
		       MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (moved == MAP_FAILED) {
		say("error: mremap: %s", strerror(errno));
		munmap(to, 2 * page);
		munmap(p, MAP_PAGES * page);
		return 0;
	}
	ok = shows_map(p, 0, 0, 2) && shows_map(moved, 0, 2, 2);
	munmap(moved, 2 * page);
	munmap(p, 2 * page);
	return ok;
}

/* mprotect() of page 1 leaves the vma of pages 2 on at the offset of map 2. */
static int a_mapping_split_by_mprotect_stays_on_its_map(int fd)
{
	unsigned char *p = map(fd, 0);
	int ok;

	if (!p)
		return 0;
	if (mprotect(p + page, page, PROT_NONE)) {
		say("error: mprotect: %s", strerror(errno));
		munmap(p, MAP_PAGES * page);
		return 0;
	}
	ok = shows_map(p, 0, 0, 1) && shows_map(p + 2 * page, 0, 2, 2);
	munmap(p, MAP_PAGES * page);
	return ok;
}

/* A child forked after the split reads the same map as its parent. */
static int a_forked_child_sees_the_map_of_a_split_mapping(int fd)
{
	unsigned char *p = map(fd, 0);
	int status;
	pid_t pid;

	if (!p || munmap(p, page))
		return 0;
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(shows_map(p + page, 0, 1, MAP_PAGES - 1) ? 0 : 1);
	munmap(p + page, (MAP_PAGES - 1) * page);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Each of these is refused with its errno, and maps nothing. */
static int refused(void *p, int want, const char *what)
{
	if (p != MAP_FAILED) {
		say("%s was not refused", what);
		return 0;
	}
	if (errno != want) {
		say("%s failed with %s, not %s", what, strerror(errno),
		    strerror(want));
		return 0;
	}
	return 1;
}

static int a_mapping_past_its_map_is_refused(int fd)
{
	unsigned char *p;
	int ok;

	ok = refused(mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 4 * page),
		     EINVAL, "a mapping of map 4, which does not exist");
	ok &= refused(mmap(NULL, (MAP_PAGES + 1) * page, PROT_READ,
			   MAP_SHARED, fd, 0),
		      EINVAL, "a mapping longer than map 0");
	p = map(fd, 0);
	if (!p)
		return 0;
	ok &= refused(mremap(p, MAP_PAGES * page, (MAP_PAGES + 1) * page, 0),
		      EFAULT, "mremap() growing a mapping of map 0");
	munmap(p, MAP_PAGES * page);
	return ok;
}

int uio_maps_suite(int n)
{
	static const char *const names[] = {
		"a_split_mapping_of_logical_memory_stays_on_its_map",
		"a_split_mapping_of_virtual_memory_stays_on_its_map",
		"a_mapping_moved_by_mremap_stays_on_its_map",
		"a_mapping_split_by_mprotect_stays_on_its_map",
		"a_forked_child_sees_the_map_of_a_split_mapping",
		"a_mapping_past_its_map_is_refused",
	};
	struct sigaction sa = { .sa_handler = on_sigbus };
	int ok[6] = { 0 }, fd, i, all = 1;

	page = sysconf(_SC_PAGESIZE);
	sigaction(SIGBUS, &sa, NULL);
	printf("    KTAP version 1\n    # Subtest: e2e_uio_maps\n    1..6\n");
	fflush(stdout);
	fd = open_device();
	if (fd >= 0) {
		ok[0] = a_split_mapping_stays_on_its_map(fd, 0);
		ok[1] = a_split_mapping_stays_on_its_map(fd, 2);
		ok[2] = a_mapping_moved_by_mremap_stays_on_its_map(fd);
		ok[3] = a_mapping_split_by_mprotect_stays_on_its_map(fd);
		ok[4] = a_forked_child_sees_the_map_of_a_split_mapping(fd);
		ok[5] = a_mapping_past_its_map_is_refused(fd);
		close(fd);
	}
	for (i = 0; i < 6; i++) {
		printf("    %s %d %s\n", ok[i] ? "ok" : "not ok", i + 1, names[i]);
		all &= ok[i];
	}
	printf("%s %d e2e_uio_maps\n", all ? "ok" : "not ok", n);
	fflush(stdout);
	return all;
}
