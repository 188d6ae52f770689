/* SPDX-License-Identifier: GPL-2.0 */
/* One value in a file of a pseudo file system (cgroupfs, debugfs, sysfs). */
#ifndef KIT_SYSFS_H
#define KIT_SYSFS_H

/* Write @s to @path in one write(2); 0 or -errno. */
int sysfs_write(const char *path, const char *s);

/* The number at the start of @path, or -1 if it cannot be read. */
long long sysfs_read_ll(const char *path);

/* The kB figure of line @key ("VmallocUsed") of /proc/meminfo, or -1. */
long long meminfo_kb(const char *key);

#endif /* KIT_SYSFS_H */
