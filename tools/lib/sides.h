/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cases that need several CPUs run their sides in processes pinned with
 * sched_setaffinity(): UML SMP runs different processes on different
 * CPUs, while the threads of one process share one host stub.
 */
#ifndef KIT_SIDES_H
#define KIT_SIDES_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Memory the processes of a case share (MAP_SHARED, set up before
 * fork()): a barrier, and each child's first failed check.
 */
#define MAX_SIDES	8
struct shared {
	int gen;
	int arrived;
	int failed;
	int sync[4];
	unsigned long long count[MAX_SIDES][8];
	char err[MAX_SIDES][400];
};

struct shared *shared_new(void);

/* KTAP_SKIP unless the kernel runs two CPUs; @what says what needs them. */
bool two_cpus(const char *what);

/* Pin the caller to @cpu and check it runs there; 0 or -errno. */
int pin_to(int cpu);

/* Record side @side's failed check (the first one) and fail the case's other sides; -1. */
int side_fail(struct shared *s, int side, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define SIDE_EXPECT(s, side, cond, fmt, ...)				\
	do {								\
		if (!(cond))						\
			return side_fail(s, side, "%s:%d: expected %s: " fmt, \
					 __FILE__, __LINE__, #cond, ##__VA_ARGS__); \
	} while (0)

/* Wait for all @n sides; false when another side failed meanwhile. */
bool barrier(struct shared *s, int n);

/*
 * Fork a process pinned to @cpu that runs @fn(@arg, @side) and exits
 * with its result; its pid, or -1.
 */
pid_t side_start(struct shared *s, int side, int cpu, int (*fn)(void *, int), void *arg);

/* Wait for @pid; true when it exited 0. */
bool side_wait(pid_t pid);

/* The first side's failed check, or NULL. */
const char *first_failure(struct shared *s);

#endif /* KIT_SIDES_H */
