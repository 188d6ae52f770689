// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the kit's root image.
 *
 * Mounts what the tests need, runs every selftest program in
 * /usr/lib/kit/selftests (or those chosen on the kernel command line),
 * prints one KTAP v1 report with each program's own KTAP nested in it,
 * writes the number of failed programs plus kmemleak's leaks to
 * /proc/exitcode so that ./linux exits with it, says so on the console
 * ("# init: exit status N ..."), and powers off.  That line is the exit
 * protocol: tools/report/verdict holds ./linux's real exit status to it,
 * so a guest killed or crashed after its last suite cannot pass.  Options come from /proc/cmdline so that a bare
 * `./linux ubd0=rootfs.img` does the default job:
 *
 *   kit.t=GLOB[,GLOB...]  run the suites matching a glob; "suite.case"
 *                         globs also pick cases inside a suite
 *   kit.timeout=SECONDS   each suite's budget on an unslowed kernel (default 120)
 *   kit.slowdown=FACTOR   how many times slower this kernel runs the suites
 *                         (the flavor's, uml/configs/<flavor>.cmdline); a
 *                         suite is killed after timeout x slowdown seconds
 *   kit.shell             start a busybox shell instead of the tests
 *   kit.run=DIR           run the programs of /usr/lib/kit/DIR instead of
 *                         the selftests (e.g. stress, bench)
 *   kit.env.NAME=VALUE    set NAME=VALUE in the programs' environment
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "filter.h"
#include "ktap.h"	/* KSFT_SKIP */

#define PROGRAM_DIR	"/usr/lib/kit"
#define MAX_SUITES	64

struct options {
	const char *filter;	/* kit.t=, tools/lib/filter.h */
	int timeout;
	int slowdown;
	bool shell;
	char dir[256];
};

static void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# init: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
}

static void mount_one(const char *type, const char *dir, const char *opts)
{
	mkdir(dir, 0755);
	if (mount(type, dir, type, 0, opts) && errno != EBUSY)
		warn("mount %s on %s: %s", type, dir, strerror(errno));
}

/*
 * Bring up the loopback device, as any booted system has it: the
 * upstream selftests (test_maps' sockmap and sk_storage tests) bind
 * and connect sockets on 127.0.0.1.
 */
static void loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		goto fail;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr))
		goto fail;
	close(fd);
	return;
fail:
	warn("bringing up lo: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void mount_all(void)
{
	mount_one("proc", "/proc", NULL);
	mount_one("sysfs", "/sys", NULL);
	mount_one("devtmpfs", "/dev", NULL);
	mount_one("tmpfs", "/tmp", "mode=1777");
	mount_one("tmpfs", "/run", "mode=0755");
	mount_one("bpf", "/sys/fs/bpf", NULL);
	mount_one("debugfs", "/sys/kernel/debug", NULL);
	mount_one("cgroup2", "/sys/fs/cgroup", NULL);
}

static void parse_cmdline(struct options *opt)
{
	static char buf[4096];
	char *tok, *save;
	FILE *f;

	opt->timeout = 120;
	opt->slowdown = 1;
	snprintf(opt->dir, sizeof(opt->dir), "%s/selftests", PROGRAM_DIR);
	f = fopen("/proc/cmdline", "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		warn("cannot read /proc/cmdline, using defaults");
		if (f)
			fclose(f);
		return;
	}
	fclose(f);

	for (tok = strtok_r(buf, "\n ", &save); tok; tok = strtok_r(NULL, "\n ", &save)) {
		if (!strncmp(tok, "kit.t=", 6)) {
			opt->filter = tok + 6;
		} else if (!strncmp(tok, "kit.timeout=", 12)) {
			opt->timeout = atoi(tok + 12);
			if (opt->timeout <= 0)
				opt->timeout = 120;
		} else if (!strncmp(tok, "kit.slowdown=", 13)) {
			opt->slowdown = atoi(tok + 13);
			if (opt->slowdown <= 0)
				opt->slowdown = 1;
		} else if (!strcmp(tok, "kit.shell")) {
			opt->shell = true;
		} else if (!strncmp(tok, "kit.run=", 8) && !strchr(tok + 8, '/')) {
			snprintf(opt->dir, sizeof(opt->dir), "%s/%s", PROGRAM_DIR, tok + 8);
		} else if (!strncmp(tok, "kit.env.", 8) && strchr(tok + 8, '=')) {
			char *eq = strchr(tok + 8, '=');

			*eq = '\0';
			setenv(tok + 8, eq + 1, 1);
		}
	}
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_suites(const char *dir, char **names)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		warn("%s: %s", dir, strerror(errno));
		return 0;
	}
	while ((de = readdir(d)) && n < MAX_SUITES) {
		if (de->d_name[0] == '.')
			continue;
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	return n;
}

/* Copy the child's output to the console, each line indented as a subtest. */
static void relay(int fd, char *line, size_t *len, size_t size, bool flush)
{
	char buf[1024];
	ssize_t n = flush ? 0 : read(fd, buf, sizeof(buf));
	ssize_t i;

	for (i = 0; i < n; i++) {
		if (buf[i] != '\n' && *len < size - 1) {
			line[(*len)++] = buf[i];
			continue;
		}
		if (buf[i] == '\n') {
			line[*len] = '\0';
			printf("    %s\n", line);
			*len = 0;
		}
	}
	if (flush && *len) {
		line[*len] = '\0';
		printf("    %s\n", line);
		*len = 0;
	}
	fflush(stdout);
}

enum outcome { PASSED, FAILED, SKIPPED, TIMED_OUT };

static int ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int)((now.tv_sec - start->tv_sec) * 1000 +
		     (now.tv_nsec - start->tv_nsec) / 1000000);
}

static enum outcome run_suite(const char *dir, const char *name, const char *case_glob,
			      int timeout, int *status, int *elapsed_ms)
{
	char path[512], line[4096];
	struct timespec start;
	size_t len = 0;
	bool timed_out = false;
	int pfd[2];
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (pipe(pfd))
		return FAILED;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return FAILED;
	if (!pid) {
		setpgid(0, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execl(path, name, case_glob, (char *)NULL);
		printf("# exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int left, r;

		left = timeout * 1000 - ms_since(&start);
		if (left <= 0) {
			timed_out = true;
			kill(-pid, SIGKILL);
			break;
		}
		r = poll(&p, 1, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		if (p.revents & POLLIN) {
			relay(pfd[0], line, &len, sizeof(line), false);
			continue;
		}
		break;	/* POLLHUP: every writer is gone */
	}
	relay(pfd[0], line, &len, sizeof(line), true);
	close(pfd[0]);
	/* The suite's own children, if any, go with it. */
	kill(-pid, SIGKILL);
	waitpid(pid, status, 0);
	*elapsed_ms = ms_since(&start);
	if (timed_out)
		return TIMED_OUT;
	if (WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
		return PASSED;
	if (WIFEXITED(*status) && WEXITSTATUS(*status) == KSFT_SKIP)
		return SKIPPED;
	return FAILED;
}

static int run_tests(const struct options *opt)
{
	static char case_filters[MAX_SUITES][1024];
	char *names[MAX_SUITES], *chosen[MAX_SUITES];
	int n, i, nr_chosen = 0, failed = 0;
	int budget = opt->timeout * opt->slowdown;

	n = list_suites(opt->dir, names);
	for (i = 0; i < n; i++)
		switch (filter_suite(opt->filter, names[i], case_filters[nr_chosen],
				     sizeof(case_filters[0]))) {
		case 1:
			chosen[nr_chosen++] = names[i];
			break;
		case -1:
			warn("kit.t=%s: the case filter of %s is too long", opt->filter, names[i]);
			return 1;
		}

	printf("KTAP version 1\n1..%d\n", nr_chosen);
	if (!nr_chosen)
		warn("no suite matches the kit.t= filter");
	for (i = 0; i < nr_chosen; i++) {
		int status = 0, ms = 0;
		const char *cases = case_filters[i][0] ? case_filters[i] : NULL;
		enum outcome o = run_suite(opt->dir, chosen[i], cases, budget, &status, &ms);

		/*
		 * Every suite's time against its budget, so that a slow
		 * machine shows as a slow pass, and a budget that grows
		 * tight shows before it is missed.
		 */
		printf("# %s: %d.%d s of a %d s budget\n", chosen[i], ms / 1000, ms % 1000 / 100,
		       budget);
		switch (o) {
		case PASSED:
			printf("ok %d %s\n", i + 1, chosen[i]);
			break;
		case SKIPPED:
			printf("ok %d %s # SKIP\n", i + 1, chosen[i]);
			break;
		case TIMED_OUT:
			printf("not ok %d %s # timeout after %d s\n", i + 1, chosen[i], budget);
			failed++;
			break;
		case FAILED:
			if (WIFSIGNALED(status))
				printf("# %s: killed by signal %d\n", chosen[i], WTERMSIG(status));
			printf("not ok %d %s\n", i + 1, chosen[i]);
			failed++;
			break;
		}
		fflush(stdout);
	}
	/* No suite ran at all is a failure, not a quiet success. */
	return nr_chosen ? failed : 1;
}

/*
 * With CONFIG_DEBUG_KMEMLEAK (FLAVOR=debug): kmemleak_forget_boot()
 * before the tests, kmemleak_report() after them.  kmemleak ignores
 * objects younger than 5 s, hence the waits, and recommends a second
 * scan to drop transient false positives.
 */
#define KMEMLEAK "/sys/kernel/debug/kmemleak"

static bool kmemleak_command(const char *cmd)
{
	FILE *f = fopen(KMEMLEAK, "w");

	if (!f || fputs(cmd, f) < 0 || fclose(f)) {
		warn("kmemleak %s: %s", cmd, strerror(errno));
		return false;
	}
	return true;
}

/* Leaks from before the tests (the boot's own) are not theirs to report. */
static void kmemleak_forget_boot(void)
{
	if (access(KMEMLEAK, W_OK))
		return;
	sleep(6);
	if (kmemleak_command("scan") && kmemleak_command("scan"))
		kmemleak_command("clear");
}

/*
 * Scan for leaks once the tests are done and print what kmemleak
 * reports, as it prints it, so that the host sees "unreferenced object"
 * lines on the console.  Returns the number of leaks.
 */
static int kmemleak_report(void)
{
	char line[512];
	int leaks = 0;
	FILE *f;

	if (access(KMEMLEAK, W_OK))
		return 0;
	sleep(6);
	if (!kmemleak_command("scan") || !kmemleak_command("scan"))
		return 0;
	f = fopen(KMEMLEAK, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		fputs(line, stdout);
		leaks += !strncmp(line, "unreferenced object", 19);
	}
	fclose(f);
	printf("# kmemleak: %d leaks after the tests\n", leaks);
	return leaks;
}

static void run_shell(void)
{
	pid_t pid = fork();

	if (!pid) {
		setsid();
		execl("/bin/sh", "sh", "-l", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/*
 * End the run with exit status failed + leaks, capped below the shell's
 * signal range.  The status is announced before it is written: a ./linux
 * that exits with anything else did not end here (a signal, a panic, the
 * launcher's timeout), whatever the report says.
 */
static void power_off(int failed, int leaks)
{
	int status = failed + leaks > 125 ? 125 : failed + leaks;
	FILE *f;

	printf("# init: exit status %d (%d failed, %d kmemleak leaks)\n",
	       status, failed, leaks);
	fflush(stdout);
	f = fopen("/proc/exitcode", "w");
	if (f) {
		fprintf(f, "%d\n", status);
		fclose(f);
	} else {
		warn("/proc/exitcode: %s", strerror(errno));
	}
	sync();
	reboot(RB_POWER_OFF);
	/* Not reached unless reboot() failed: PID 1 must never exit. */
	for (;;)
		pause();
}

int main(void)
{
	struct options opt = { 0 };
	int failed = 0, leaks = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mount_all();
	loopback_up();
	parse_cmdline(&opt);
	setenv("PATH", "/bin:/sbin:/usr/bin:/usr/sbin", 1);

	if (opt.shell)
		run_shell();
	else {
		kmemleak_forget_boot();
		failed = run_tests(&opt);
		leaks = kmemleak_report();
	}
	power_off(failed, leaks);
	return 0;
}
