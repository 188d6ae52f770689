// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "child.h"

/* Relay the child's output as KTAP diagnostics, line by line. */
static void relay_output(int fd)
{
	FILE *f = fdopen(fd, "r");
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ktap_diag("%s", line);
	}
	fclose(f);
}

enum ktap_result run_in_child(int (*body)(void *arg), void *arg, unsigned int timeout)
{
	struct timespec start, end;
	int pfd[2], status;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &start);

	if (pipe(pfd)) {
		ktap_diag("pipe: %s", strerror(errno));
		return KTAP_FAIL;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		ktap_diag("fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return KTAP_FAIL;
	}
	if (!pid) {
		int ret;

		close(pfd[0]);
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		close(pfd[1]);
		setvbuf(stdout, NULL, _IOLBF, 0);
		alarm(timeout);
		ret = body(arg);
		fflush(stdout);
		_exit(ret);
	}
	close(pfd[1]);
	relay_output(pfd[0]);
	if (waitpid(pid, &status, 0) < 0) {
		ktap_diag("waitpid: %s", strerror(errno));
		return KTAP_FAIL;
	}
	/* Some cases take minutes on UML: say which (README figures). */
	clock_gettime(CLOCK_MONOTONIC, &end);
	ktap_diag("duration: %.1f s", (end.tv_sec - start.tv_sec) +
		  (end.tv_nsec - start.tv_nsec) / 1e9);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return KTAP_PASS;
	if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_SKIP) {
		ktap_skip_reason("skipped by the upstream test");
		return KTAP_SKIP;
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM && timeout)
		ktap_diag("timed out after %u s", timeout);
	else if (WIFSIGNALED(status))
		ktap_diag("killed by signal %d (%s)", WTERMSIG(status),
			  strsignal(WTERMSIG(status)));
	else
		ktap_diag("exited with %d", WEXITSTATUS(status));
	return KTAP_FAIL;
}
