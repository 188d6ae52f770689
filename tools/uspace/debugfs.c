// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs files and fault attributes memalloc.c creates, kept in a
 * registry that the tests look up by name: one for the threaded shim
 * (shim.c) and the interleaving explorer (explore/sched.c), which differ
 * only in how a fault attribute decides to fail (should_fail_ex()).
 */
#include <string.h>

#include "uspace_test.h"

#define MAX_ENTRIES 32

static struct {
	const char *name;
	atomic_t *counter;
	struct fault_attr *attr;
} registry[MAX_ENTRIES];
static int nr_entries;

/* Initcalls (constructors) register before main(), so no lock is needed. */
static void registry_add(const char *name, atomic_t *counter, struct fault_attr *attr)
{
	BUG_ON(nr_entries == MAX_ENTRIES);
	registry[nr_entries].name = name;
	registry[nr_entries].counter = counter;
	registry[nr_entries].attr = attr;
	nr_entries++;
}

struct dentry *debugfs_create_dir(const char *name, struct dentry *parent)
{
	return (struct dentry *)name;
}

void debugfs_create_atomic_t(const char *name, unsigned short mode,
			     struct dentry *parent, atomic_t *value)
{
	registry_add(name, value, NULL);
}

/* Not read by the tests: accepted so that a variant may create them. */
void debugfs_create_u64(const char *name, unsigned short mode,
			struct dentry *parent, u64 *value)
{
}

void debugfs_create_u32(const char *name, unsigned short mode,
			struct dentry *parent, u32 *value)
{
}

struct dentry *fault_create_debugfs_attr(const char *name, struct dentry *parent,
					 struct fault_attr *attr)
{
	registry_add(name, NULL, attr);
	return (struct dentry *)name;
}

struct fault_attr *uspace_fault_attr(const char *name)
{
	int i;

	for (i = 0; i < nr_entries; i++)
		if (registry[i].attr && !strcmp(registry[i].name, name))
			return registry[i].attr;
	return NULL;
}

long uspace_debugfs_read(const char *name)
{
	int i;

	for (i = 0; i < nr_entries; i++)
		if (registry[i].counter && !strcmp(registry[i].name, name))
			return atomic_read(registry[i].counter);
	return -1;
}
