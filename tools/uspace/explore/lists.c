// SPDX-License-Identifier: GPL-2.0
/*
 * The variant's memalloc.c itself, compiled into this file, so that the
 * explorer can name its lists: EXPLORE_LISTS is X(name) for each
 * struct llist_head of its struct bpf_mem_cache (uspace.mk reads them off
 * the source), MEMALLOC_C the file.
 */
#include MEMALLOC_C
#include <stdio.h>
#include <stdlib.h>
#include "explore.h"

const size_t xllist_node_sz = LLIST_NODE_SZ;

static const struct {
	const char *name;
	size_t off;
} lists[] = {
#define X(f) { #f, offsetof(struct bpf_mem_cache, f) },
	EXPLORE_LISTS
#undef X
};

static int ncaches(struct bpf_mem_alloc *ma)
{
	return ma->cache ? 1 : ma->caches ? NUM_CACHES : 0;
}

static struct bpf_mem_cache *cache_of(struct bpf_mem_alloc *ma, int cpu, int i)
{
	if (ma->cache)
		return per_cpu_ptr(ma->cache, cpu);
	return &per_cpu_ptr(ma->caches, cpu)->cache[i];
}

/* --- objects, sorted for lookups ----------------------------------------- */

static struct xblock **objs;
static int nr_objs, max_objs;

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(struct xblock *const *)a, y = (uintptr_t)*(struct xblock *const *)b;

	return x < y ? -1 : x > y;
}

void xobjs_collect(void)
{
	int i;

	if (max_objs < nr_xblocks) {
		max_objs = nr_xblocks + 1024;
		objs = realloc(objs, max_objs * sizeof(*objs));
	}
	nr_objs = 0;
	for (i = 0; i < nr_xblocks; i++) {
		xblocks[i]->mark = 0;
		if (xblocks[i]->kind == XK_OBJECT)
			objs[nr_objs++] = xblocks[i];
	}
	qsort(objs, nr_objs, sizeof(*objs), cmp_ptr);
}

/* The object whose block starts at @p (its llist_node), or NULL */
struct xblock *xobj_at(const void *p)
{
	int lo = 0, hi = nr_objs - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		const void *d = objs[mid]->data;

		if (d == p)
			return objs[mid];
		if ((uintptr_t)d < (uintptr_t)p)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

int xobjs_count(void)
{
	return nr_objs;
}

struct xblock *xobj(int i)
{
	return objs[i];
}

/* Mark every object of the chain at @node; -1: a node that is no object */
static int walk(struct llist_node *node, bool *cycle, const char *place, int cpu)
{
	int n = 0;

	for (; node; node = node->next) {
		struct xblock *b = xobj_at(node);

		if (!b)
			return -1;
		b->place = place;
		b->place_cpu = cpu;
		if (++b->mark > 1 || n > nr_objs) {
			*cycle = true;
			return n;
		}
		n++;
	}
	return n;
}

void xlists_mark(struct bpf_mem_alloc *ma, bool *bad)
{
	int cpu, i, l;

	for (cpu = 0; cpu < uspace_nr_cpus; cpu++)
		for (i = 0; i < ncaches(ma); i++)
			for (l = 0; l < (int)ARRAY_SIZE(lists); l++) {
				struct llist_head *h = (void *)((char *)cache_of(ma, cpu, i) + lists[l].off);

				if (walk(h->first, bad, lists[l].name, cpu) < 0) {
					xfail("one-place", "CPU %d cache %d %s holds a node that is no live object",
					      cpu, i, lists[l].name);
				}
			}
}

/* The allocator's own kmalloc() blocks (bpf_reuse_batch, ...): chains they hold */
void xlists_mark_kmalloc(bool *bad)
{
	int i;

	for (i = 0; i < nr_xblocks; i++) {
		struct xblock *b = xblocks[i];
		size_t w;

		if (b->kind != XK_KMALLOC)
			continue;
		for (w = 0; w + sizeof(void *) <= b->size; w += sizeof(void *)) {
			void *p = *(void **)((char *)b->data + w);

			if (p && xobj_at(p))
				walk(p, bad, "a kmalloc()ed block (batch)", -1);
		}
	}
}

int xlists_print(struct bpf_mem_alloc *ma, int cpu, char *buf, int len)
{
	int i, l, n = 0;

	for (l = 0; l < (int)ARRAY_SIZE(lists); l++) {
		long cnt = 0;

		for (i = 0; i < ncaches(ma); i++) {
			struct llist_head *h = (void *)((char *)cache_of(ma, cpu, i) + lists[l].off);
			struct llist_node *p;
			int guard = 0;

			for (p = h->first; p && guard < 100000; p = p->next, guard++)
				cnt++;
		}
		n += snprintf(buf + n, len > n ? len - n : 0, "%s%s=%ld", l ? " " : "", lists[l].name, cnt);
	}
	return n;
}

#ifdef EXPLORE_RELEASE
const bool xlists_release_tracked = true;

/*
 * Invariant release, for a memalloc.c whose struct bpf_mem_cache has
 * reuse_ready and free_rcu_in_progress (6.1's reuse-after-gp; uspace.mk
 * sets EXPLORE_RELEASE): a batch that arrives on reuse_ready while free_rh
 * is idle claims it, and the whole of reuse_ready goes back to slab after
 * an RCU tasks trace grace period, less what alloc_bulk() takes first.
 *
 * No single state shows a claim that did not happen: what arrives while
 * free_rh is busy stays on reuse_ready, legitimately, until the next
 * arrival.  A history does.  After every step each object on reuse_ready
 * learns since when it has been there without a break (an object cannot
 * leave reuse_ready and come back within one step: that takes a refill,
 * a grace period and a callback, each a command of its own).  With every
 * CPU idle, an object there since before the last such check, at which
 * free_rh was idle, beside one that arrived after it, is an arrival that
 * claimed nothing: any claim would have taken the first.
 */
static struct {
	unsigned long at;	/* the step of the last check with every CPU idle */
	bool idle;		/* free_rh was idle then, and no drain had begun */
} release_seen[XMAX_POOLS][NR_XCPUS][NUM_CACHES];

void xlists_release_check(struct bpf_mem_alloc *ma, int pool, unsigned long step, bool judge)
{
	int cpu, i;

	for (cpu = 0; cpu < uspace_nr_cpus; cpu++)
		for (i = 0; i < ncaches(ma); i++) {
			struct bpf_mem_cache *c = cache_of(ma, cpu, i);
			typeof(&release_seen[0][0][0]) seen = &release_seen[pool][cpu][i];
			struct xblock *kept = NULL, *arrived = NULL;
			struct llist_node *n;
			int guard = 0;

			for (n = c->reuse_ready.first; n && guard <= nr_objs; n = n->next, guard++) {
				struct xblock *b = xobj_at(n);

				if (!b)
					break;	/* one-place says so */
				if (b->seen_on != &c->reuse_ready || b->seen_at + 1 != step)
					b->since = step;
				b->seen_on = &c->reuse_ready;
				b->seen_at = step;
				if (b->since <= seen->at)
					kept = b;
				else
					arrived = b;
			}
			if (!judge)
				continue;
			if (seen->idle && kept && arrived && !c->direct_free)
				xfail("release", "CPU %d cache %d: object #%lu arrived on reuse_ready while free_rh was idle, and claimed nothing: object #%lu is still there",
				      cpu, i, arrived->serial, kept->serial);
			seen->at = step;
			seen->idle = !atomic_read(&c->free_rcu_in_progress) && !c->direct_free;
		}
}
#else
const bool xlists_release_tracked;	/* false */

void xlists_release_check(struct bpf_mem_alloc *ma, int pool, unsigned long step, bool judge)
{
}
#endif
