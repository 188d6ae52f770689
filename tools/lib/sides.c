// SPDX-License-Identifier: GPL-2.0
/*
 * The sides of a case that needs several CPUs: processes pinned to one
 * CPU each, forked by the case, meeting at barriers in shared memory and
 * reporting their first failed check there (sides.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "sides.h"

bool two_cpus(const char *what)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n >= 2)
		return true;
	ktap_skip_reason("needs 2 CPUs (%s), this kernel has %ld", what, n);
	return false;
}

int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	sched_yield();
	return sched_getcpu() == cpu ? 0 : -EXDEV;
}

struct shared *shared_new(void)
{
	struct shared *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return s == MAP_FAILED ? NULL : s;
}

int side_fail(struct shared *s, int side, const char *fmt, ...)
{
	va_list ap;

	if (!s->err[side][0]) {
		va_start(ap, fmt);
		vsnprintf(s->err[side], sizeof(s->err[side]), fmt, ap);
		va_end(ap);
	}
	__atomic_store_n(&s->failed, 1, __ATOMIC_SEQ_CST);
	return -1;
}

bool barrier(struct shared *s, int n)
{
	int gen = __atomic_load_n(&s->gen, __ATOMIC_SEQ_CST);

	if (__atomic_add_fetch(&s->arrived, 1, __ATOMIC_SEQ_CST) == n) {
		__atomic_store_n(&s->arrived, 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&s->gen, gen + 1, __ATOMIC_SEQ_CST);
		return true;
	}
	while (__atomic_load_n(&s->gen, __ATOMIC_SEQ_CST) == gen) {
		if (__atomic_load_n(&s->failed, __ATOMIC_SEQ_CST))
			return false;
		sched_yield();
	}
	return true;
}

pid_t side_start(struct shared *s, int side, int cpu, int (*fn)(void *, int), void *arg)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	if (pin_to(cpu))
		_exit(side_fail(s, side, "cannot run side %d on CPU %d: %s", side, cpu,
				strerror(errno)) ? 1 : 0);
	_exit(fn(arg, side) ? 1 : 0);
}

bool side_wait(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

const char *first_failure(struct shared *s)
{
	int i;

	for (i = 0; i < MAX_SIDES; i++)
		if (s->err[i][0])
			return s->err[i];
	return NULL;
}
