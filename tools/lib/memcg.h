/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cgroup v2 memory cgroup for the calling process, so that the memory
 * of the maps it creates (charged to their creator's memcg) can be read.
 */
#ifndef KIT_MEMCG_H
#define KIT_MEMCG_H

/* Create /sys/fs/cgroup/@name and move the caller into it; 0 or -errno. */
int memcg_enter(const char *name);

/* Move the caller back to the root cgroup and remove @name (its charges stay). */
void memcg_leave(const char *name);

/* memory.current / memory.peak of the caller's cgroup in bytes, or -1. */
long long memcg_current(void);
long long memcg_peak(void);

/* Wait until memory.current <= @limit, for at most @ms; returns the last reading. */
long long memcg_wait_below(long long limit, int ms);

#define MiB(x) ((double)(x) / (1 << 20))

#endif /* KIT_MEMCG_H */
