/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TSan only: the known races of the variants' memalloc.c, each annotated
 * at its one access, in place of a suppression of the whole function.
 * A "race:FUNCTION" suppression hides every report with FUNCTION on
 * either stack (by substring: race:do_call_rcu_ttrace also matched
 * 7.2's __do_call_rcu_ttrace), so a new race in the same function, or in
 * anything it calls, went unseen.  Here each annotation names the
 * function it applies in (uspace_in(), compared with __func__ at compile
 * time) and wraps only the one call that races there; every other access
 * of that function is checked as before.  The tree's code is not edited:
 * the calls are the tree's llist.h helpers and the shim's atomic_set(),
 * redefined below as macros that pick the annotated form in that function
 * alone.  Without TSan (ASan, Valgrind, the explorer) none of this exists
 * and memalloc.c compiles as it is.
 *
 * The stand-in linux/bpf.h includes this file; every base's memalloc.c
 * includes <linux/bpf.h>.  The tree's llist.h comes first, so that the
 * macros below do not rename its definitions.
 */
#ifndef USPACE_RACES_H
#define USPACE_RACES_H

#include <stdbool.h>

/* Whether USPACE_TSAN_ASSUME_FIXED names @func (shim.c; see atomic_set() below) */
bool uspace_assume_fixed(const char *func);

#ifdef __SANITIZE_THREAD__
#include <linux/llist.h>

/* Whether the code being compiled is in function @fn (folded by GCC) */
#define uspace_in(fn)	(!__builtin_strcmp(__func__, (fn)))

/* TSan's dynamic annotations: no access of this thread is checked between them. */
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);

/*
 * The kernel's data_race(): @expr's accesses are neither checked nor
 * remembered, so no later access reports a race with them either.
 */
#define uspace_data_race(expr) ({					\
	AnnotateIgnoreReadsBegin(__FILE__, __LINE__);			\
	AnnotateIgnoreWritesBegin(__FILE__, __LINE__);			\
	typeof(expr) __v = (expr);					\
	AnnotateIgnoreWritesEnd(__FILE__, __LINE__);			\
	AnnotateIgnoreReadsEnd(__FILE__, __LINE__);			\
	__v; })

/*
 * reuse-after-gp (6.1): bpf_ma_get_reusable_obj() peeks at reuse_ready
 * and wait_for_free with llist_empty() before it takes c->lock, while a
 * callback on another CPU writes their heads under the lock with plain
 * stores: __llist_add_batch() and __llist_del_all() of llist.h, and
 * bpf_ma_start_free_locked()'s "c->wait_for_free.first = ...", which is
 * memalloc.c's own, so only the reader can be annotated here.  The patch
 * calls the peek racy on purpose (a stale answer costs one kmalloc() or
 * one more lock); KCSAN's default (CONFIG_KCSAN_ASSUME_PLAIN_WRITES_ATOMIC)
 * does not report an aligned word store against a marked read, C11 and
 * TSan do.  In the kernel this would be data_race() around the peek.
 * bpf_ma_get_reusable_obj() has no other llist_empty(); what it does under
 * the lock and on free_llist is checked as before.
 */
#define llist_empty(head)						\
	(uspace_in("bpf_ma_get_reusable_obj") ?				\
	 uspace_data_race(llist_empty(head)) : llist_empty(head))

/*
 * 6.12's do_call_rcu_ttrace(), 7.2's __do_call_rcu_ttrace() (from
 * do_call_rcu_ttrace() on the freeing CPU and from __free_rcu(), the
 * callback): it takes the target cache's free_by_rcu_ttrace with
 * llist_del_all(), outside c->lock, and re-adds each node to
 * waiting_for_gp_ttrace with llist_add(), whose llist_add_batch() stores
 * node->next plainly.  Meanwhile the owning CPU's alloc_bulk(), under
 * c->lock, may have loaded the same node as the head of
 * free_by_rcu_ttrace and reads node->next with READ_ONCE() in
 * llist_del_first(); its try_cmpxchg() then fails, since the head moved,
 * and the stale value is dropped.  The node cannot be back at that head
 * meanwhile: it would have to leave waiting_for_gp_ttrace first, through
 * alloc_bulk() or __free_rcu(), which both need c->lock.  KCSAN's default
 * takes that aligned word store as atomic; here it is marked, only in
 * this function's llist_add(): everything else that function does, and
 * a plain access to node->next racing this store, is still reported.
 * The same loop as the tree's llist_add_batch() (lib/llist.c up to 6.12,
 * llist.h on 7.2).
 */
static inline bool uspace_llist_add_marked(struct llist_node *new,
					   struct llist_head *head)
{
	struct llist_node *first = READ_ONCE(head->first);

	do {
		WRITE_ONCE(new->next, first);
	} while (!try_cmpxchg(&head->first, &first, new));
	return !first;
}

#define llist_add(new, head)						\
	(uspace_in("do_call_rcu_ttrace") || uspace_in("__do_call_rcu_ttrace") ? \
	 uspace_llist_add_marked((new), (head)) : llist_add((new), (head)))

/*
 * An expected TSan report (tools/report/expectations, "tool tsan:FUNC")
 * is checked in its case's own run.  The other cases run together, and
 * where the same bug could show in any of them, FUNC's one racy access
 * gets there the ordering that a fix would give it, instead of a
 * suppression of FUNC: tools/uspace/run lists the variant's expected
 * FUNCs in USPACE_TSAN_ASSUME_FIXED for that run only.
 *
 * vanilla's __free_rcu() (6.1, 6.12, and the variants that keep it)
 * clears call_rcu_in_progress (call_rcu_ttrace_in_progress on 6.12) with
 * a relaxed atomic_set() after its last access to the cache, and
 * bpf_mem_alloc_destroy() frees the cache once it reads 0: every case
 * destroys its caches, so any of them may show it.  Assumed fixed, that
 * atomic_set() is a release, as reuse-after-gp's bpf_ma_cb_done() is.
 * __free_by_rcu()'s expected race (c->tgt, plain on both sides, 6.12 and
 * 7.2) needs nothing: only its own case frees through *_free_rcu().
 */
#undef atomic_set
#define atomic_set(v, i) ({						\
	if (uspace_in("__free_rcu") && uspace_assume_fixed("__free_rcu")) \
		atomic_set_release(v, i);				\
	else								\
		uspace_atomic_set(v, i);				\
	})

#endif /* __SANITIZE_THREAD__ */
#endif /* USPACE_RACES_H */
