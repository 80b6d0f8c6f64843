// SPDX-License-Identifier: GPL-2.0
/*
 * Part of the e2e boot's init: KUnit suites of the harness, built as
 * external modules against the booted kernel (scripts/runs/e2e.sh puts
 * them in /kmod, and their suite names in /kmod/suites, "MODULE SUITE" a
 * line).  The boot has kunit.autorun=0, so a module's suite only
 * registers when it loads; the init then runs it through its debugfs
 * "run" file and prints its debugfs "results" as its own subtest, which
 * makes the suite a suite of the init's KTAP.  The console's log level is
 * lowered to 5 (KERN_WARNING and above) before the first module loads and
 * stays so, as these suites run last: the kernel's copy of the same KTAP
 * (KERN_INFO), which its consoles may print after the suite has ended,
 * does not interleave with the init's, while a WARN, an error or an oops
 * still reaches the console.  The suite's line is taken as KUnit wrote it:
 * a suite whose cases all skipped reads "ok", and the plan check
 * (scripts/results/check-results.py) judges each case, skipped or not.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KUNIT_DEBUGFS "/sys/kernel/debug/kunit/"

int write_file(const char *path, const char *val);	/* odirect.c */

/* Whether @line of /kmod/suites names a module and its suite. */
static int kmod_line(const char *line, char *module, char *suite)
{
	return line[0] != '#' &&
	       sscanf(line, "%127s %127s", module, suite) == 2;
}

/* How many suites /kmod/suites lists: subtests of the init's KTAP. */
int kmod_count(void)
{
	FILE *f = fopen("/kmod/suites", "r");
	char line[256], module[128], suite[128];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += kmod_line(line, module, suite);
	if (f)
		fclose(f);
	return n;
}

static void not_ok(int n, const char *suite, const char *why)
{
	printf("    # %s: %s\nnot ok %d %s\n", suite, why, n, suite);
}

/* Runs one suite as subtest @n; returns 1 if it passed. */
static int kmod_suite(int n, const char *module, const char *suite)
{
	char path[512], line[1024];
	int fd, r, ok = 0, seen = 0, header = 2;
	FILE *f;

	snprintf(path, sizeof(path), "/kmod/%s", module);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		not_ok(n, suite, "no module in /kmod");
		return 0;
	}
	fflush(stdout);
	r = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	snprintf(path, sizeof(path), KUNIT_DEBUGFS "%s/run", suite);
	if (!r)
		r = write_file(path, "1");
	if (r) {
		not_ok(n, suite, "could not load the module or run the suite");
		return 0;
	}
	snprintf(path, sizeof(path), KUNIT_DEBUGFS "%s/results", suite);
	f = fopen(path, "r");
	if (!f) {
		not_ok(n, suite, "no debugfs results");
		return 0;
	}
	/*
	 * The results are a KTAP document of one suite: drop its header
	 * ("KTAP version 1", "1..1") and number the suite's line @n.
	 */
	while (fgets(line, sizeof(line), f)) {
		char *name;

		if (header && (!strncmp(line, "KTAP version", 12) ||
			       !strncmp(line, "1..", 3))) {
			header--;
			continue;
		}
		if (!strncmp(line, "ok 1 ", 5) || !strncmp(line, "not ok 1 ", 9)) {
			ok = line[0] == 'o';
			seen = 1;
			name = strstr(line, " 1 ") + 3;
			printf("%s %d %s", ok ? "ok" : "not ok", n, name);
			continue;
		}
		fputs(line, stdout);
	}
	fclose(f);
	if (!seen)
		not_ok(n, suite, "its debugfs results have no result line");
	fflush(stdout);
	return ok;
}

/* Runs the suites of /kmod/suites as subtests @first on. */
void kmod_suites(int first)
{
	FILE *f = fopen("/kmod/suites", "r");
	char line[256], module[128], suite[128];
	int n = first;

	write_file("/proc/sys/kernel/printk", "5");
	while (f && fgets(line, sizeof(line), f)) {
		if (!kmod_line(line, module, suite))
			continue;
		kmod_suite(n++, module, suite);
	}
	if (f)
		fclose(f);
}
