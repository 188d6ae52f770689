/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks of the reuse-after-RCU-GP allocator semantics
 * (kernel/patches/reuse-after-gp): a freed element is not handed out
 * again while a BPF program that may still hold a pointer to it runs,
 * freed memory is reused after a grace period, and destroying a map with
 * reuse and free callbacks in flight leaks nothing.  Each returns a
 * KTAP result and explains a failure with diagnostics.
 */
#ifndef KIT_REUSE_CHECKS_H
#define KIT_REUSE_CHECKS_H

#include <stdbool.h>

#include "ktap.h"

/* The kmalloc cache bpf_mem_alloc serves a unit of @size bytes from. */
long bpf_ma_unit(long size);

/*
 * What one object of kmalloc-@cache costs in the slab (its slab_size,
 * larger with red zones and KASAN), without the memory cgroup's pointer.
 */
long slab_obj_size(long cache);

/* Inside one program run, a deleted element is not reused. */
enum ktap_result reuse_no_immediate_reuse(void);
enum ktap_result reuse_no_immediate_percpu_reuse(void);

/* A steady overwrite keeps the map's memory cgroup bounded. */
enum ktap_result reuse_overwrite_memory_bounded(void);

/* Maps destroyed with frees in flight give all their memory back. */
enum ktap_result reuse_destroy_with_callbacks_in_flight(void);

/* BPF and syscall updates/deletes for every size class. */
enum ktap_result reuse_update_delete_all_sizes(void);

/* Whether the variant has fail_bpf_reuse_batch (the reuse_rcu() fallback). */
bool reuse_fallback_available(void);

/* Make every struct bpf_reuse_batch allocation fail, or stop doing so. */
int reuse_fail_batches(bool on);

/*
 * Run @test with every batch allocation failing and check that the
 * reuse_rcu() fallback was taken; KTAP_SKIP without the fallback knob.
 */
enum ktap_result reuse_through_fallback(enum ktap_result (*test)(void));

#endif /* KIT_REUSE_CHECKS_H */
