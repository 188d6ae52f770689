// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "memcg.h"
#include "sysfs.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

static char cg_dir[256];

/* A file of the caller's cgroup. */
static long long read_ll(const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", cg_dir, file);
	return sysfs_read_ll(path);
}

int memcg_enter(const char *name)
{
	char path[512];
	int err;

	/* The memory controller may already be on; then this is a no-op. */
	sysfs_write(CGROUP_ROOT "/cgroup.subtree_control", "+memory");
	snprintf(cg_dir, sizeof(cg_dir), "%s/%s", CGROUP_ROOT, name);
	if (mkdir(cg_dir, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg_dir);
	err = sysfs_write(path, "0");
	if (err)
		return err;
	return read_ll("memory.current") < 0 ? -ENOENT : 0;
}

void memcg_leave(const char *name)
{
	char path[512];

	sysfs_write(CGROUP_ROOT "/cgroup.procs", "0");
	snprintf(path, sizeof(path), "%s/%s", CGROUP_ROOT, name);
	rmdir(path);
}

long long memcg_current(void)
{
	return read_ll("memory.current");
}

long long memcg_peak(void)
{
	return read_ll("memory.peak");
}

long long memcg_wait_below(long long limit, int ms)
{
	struct timespec step = { 0, 20 * 1000 * 1000 };
	long long cur = memcg_current();

	for (; ms > 0 && cur > limit; ms -= 20) {
		nanosleep(&step, NULL);
		cur = memcg_current();
	}
	return cur;
}
