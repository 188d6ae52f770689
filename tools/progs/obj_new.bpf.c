// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF side of tools/selftests/obj_new.c: the allocator's kfunc users.
 * bpf_obj_new() and bpf_percpu_obj_new() take their memory from the
 * any-size allocators bpf_global_ma and bpf_global_percpu_ma
 * (kernel/bpf/memalloc.c: the class is bpf_mem_cache_idx() of the size,
 * plus the 8-byte llist_node for a plain object), and bpf_obj_drop() and
 * bpf_percpu_obj_drop() give it back through bpf_mem_free_rcu(), which
 * finds the class again from the unit's cache.
 *
 * Objects are held across program runs as local kptrs stashed with
 * bpf_kptr_xchg() in map values.  Every 4-byte word of an object holds
 * its owner's stamp (type size, round, slot, CPU), written when it is
 * allocated and checked when the next round takes it out to drop it: an
 * object that shares memory with another one, or that was handed out
 * while stashed, shows another owner's stamp.
 *
 * kfunc calls need a JIT and kernel BTF: the programs load only on 7.2's
 * default flavor, and the cases skip elsewhere before opening them.  They
 * are SEC("tc") for the reason tools/progs/htab_timers.bpf.c gives (a
 * JITed XDP test run rewrites the dispatcher under stop_machine()).
 *
 * The kfunc declarations are the kit's own, from 7.2's kernel/bpf/helpers.c:
 * the _impl forms, whose meta argument the verifier fills in.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

/*
 * A referenced local kptr is a pointer tagged btf_type_tag("kptr"), a
 * per-cpu one "percpu_kptr" (7.2's names), written out where used.  In
 * the macros below the pointee is a pasted typedef name, which checkpatch
 * cannot tell from a factor: "T attr * p" keeps it from reading a
 * product.
 */

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void *bpf_percpu_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_percpu_obj_drop_impl(void *kptr, void *meta) __ksym;

#define kit_obj_new(T)							\
	((struct T *)bpf_obj_new_impl(bpf_core_type_id_local(struct T), NULL))
#define kit_percpu_obj_new(T)						\
	((struct T __attribute__((btf_type_tag("percpu_kptr"))) *)bpf_percpu_obj_new_impl(bpf_core_type_id_local(struct T), NULL))

/* Objects per type and round: several refills of a small class's cache. */
#define SLOTS		32

/* The stamp of every word of an object (tools/selftests/obj_new.c). */
#define STAMP(size, rnd, slot, cpu)					\
	(((__u32)(size) << 16) | (((rnd) & 0xff) << 8) | ((slot) << 1) | (cpu))

/* Set by user space before each run. */
__u32 cur_round;		/* this run's round; its objects' stamps */
__u32 keep;		/* 0: the last round, only take out, check and drop */

/* Results, for the whole run of cases; user space reads and resets them. */
__u64 allocated;
__u64 alloc_failed;
__u64 dropped;
__u64 bad_objects;
/* The first object whose stamp was wrong. */
__u32 bad_size;
__u32 bad_slot;
__u32 bad_word;
__u32 bad_cpu;
__u32 bad_read;
__u32 bad_want;

static __always_inline void note_bad(__u32 size, __u32 slot, __u32 word, __u32 cpu,
				     __u32 read, __u32 want)
{
	if (!bad_objects++) {
		bad_size = size;
		bad_slot = slot;
		bad_word = word;
		bad_cpu = cpu;
		bad_read = read;
		bad_want = want;
	}
}

/*
 * One type of SIZE bytes (a multiple of 4), an array of SLOTS stashed
 * objects, and one program that takes each slot's object of the last
 * round out, checks every word and drops it, and (when keep is set)
 * puts a new one, stamped with this round, in its place.  A word is
 * checked where it was written, at a constant offset, for the verifier
 * takes no variable offset into an object.
 */
#define PLAIN_TYPE(SIZE)						\
struct obj_##SIZE {							\
	__u32 w[(SIZE) / 4];						\
};									\
typedef struct obj_##SIZE obj_##SIZE##_t;				\
struct slot_##SIZE {							\
	obj_##SIZE##_t __attribute__((btf_type_tag("kptr"))) * p;	\
};									\
struct {								\
	__uint(type, BPF_MAP_TYPE_ARRAY);				\
	__uint(max_entries, SLOTS);					\
	__type(key, __u32);						\
	__type(value, struct slot_##SIZE);				\
} slots_##SIZE SEC(".maps");						\
									\
SEC("tc")								\
int cycle_##SIZE(struct __sk_buff *skb)					\
{									\
	__u32 i, j, last = cur_round - 1;					\
									\
	for (i = 0; i < SLOTS; i++) {					\
		struct obj_##SIZE *o = NULL, *old;			\
		struct slot_##SIZE *s;					\
		__u32 k = i, want, acc = 0;				\
									\
		s = bpf_map_lookup_elem(&slots_##SIZE, &k);		\
		if (!s)							\
			return TC_ACT_SHOT;				\
		if (keep) {						\
			o = kit_obj_new(obj_##SIZE);			\
			if (o) {					\
				want = STAMP(SIZE, cur_round, i, 0);	\
				_Pragma("unroll")			\
				for (j = 0; j < (SIZE) / 4; j++)	\
					o->w[j] = want;			\
				allocated++;				\
			} else {					\
				alloc_failed++;				\
			}						\
		}							\
		old = bpf_kptr_xchg(&s->p, o);				\
		if (!old)						\
			continue;					\
		want = STAMP(SIZE, last, i, 0);				\
		_Pragma("unroll")					\
		for (j = 0; j < (SIZE) / 4; j++)			\
			acc |= old->w[j] ^ want;			\
		if (acc) {						\
			_Pragma("unroll")				\
			for (j = 0; j < (SIZE) / 4; j++)		\
				if (old->w[j] != want) {		\
					note_bad(SIZE, i, j, 0, old->w[j], want); \
					break;				\
				}					\
		}							\
		bpf_obj_drop_impl(old, NULL);				\
		dropped++;						\
	}								\
	return TC_ACT_OK;						\
}

/*
 * bpf_global_ma's classes (memalloc.c's sizes[]: 16, 32, 64, 96, 128,
 * 192, 256, 512, 1024, 2048, 4096) hold the object and its 8-byte
 * llist_node: for each class C, a type whose unit is exactly C (C - 8
 * bytes) and the smallest one over it (C - 4: 4-byte words).
 */
PLAIN_TYPE(8)
PLAIN_TYPE(12)
PLAIN_TYPE(24)
PLAIN_TYPE(28)
PLAIN_TYPE(56)
PLAIN_TYPE(60)
PLAIN_TYPE(88)
PLAIN_TYPE(92)
PLAIN_TYPE(120)
PLAIN_TYPE(124)
PLAIN_TYPE(184)
PLAIN_TYPE(188)
PLAIN_TYPE(248)
PLAIN_TYPE(252)
PLAIN_TYPE(504)
PLAIN_TYPE(508)
PLAIN_TYPE(1016)
PLAIN_TYPE(1020)
PLAIN_TYPE(2040)
PLAIN_TYPE(2044)
PLAIN_TYPE(4088)

/*
 * One word over the largest class (a unit of 4100 bytes): bpf_mem_alloc()
 * has no class for it and must return NULL, never a smaller unit.
 */
struct obj_4092 {
	__u32 w[4092 / 4];
};

__u64 too_big_served;

SEC("tc")
int too_big(struct __sk_buff *skb)
{
	struct obj_4092 *o = kit_obj_new(obj_4092);

	if (o) {
		too_big_served++;
		bpf_obj_drop_impl(o, NULL);
	}
	return TC_ACT_OK;
}

/*
 * Per-cpu objects, from bpf_global_percpu_ma, whose class is that of
 * the size itself (no llist_node in the per-cpu area): for each class up
 * to the verifier's limit of 512 bytes, a type of exactly C bytes and
 * one 4 bytes over.  Every CPU's copy is stamped with its CPU, through
 * bpf_per_cpu_ptr() once the object is stashed (the helper takes the
 * stashed, RCU-protected pointer).
 */
#define NR_CPUS_MAX	2

#define PCPU_TYPE(SIZE)							\
struct pobj_##SIZE {							\
	__u32 w[(SIZE) / 4];						\
};									\
typedef struct pobj_##SIZE pobj_##SIZE##_t;				\
struct pslot_##SIZE {							\
	pobj_##SIZE##_t __attribute__((btf_type_tag("percpu_kptr"))) * p; \
};									\
struct {								\
	__uint(type, BPF_MAP_TYPE_ARRAY);				\
	__uint(max_entries, SLOTS);					\
	__type(key, __u32);						\
	__type(value, struct pslot_##SIZE);				\
} pslots_##SIZE SEC(".maps");						\
									\
SEC("tc")								\
int pcycle_##SIZE(struct __sk_buff *skb)				\
{									\
	__u32 i, j, cpu, last = cur_round - 1;				\
									\
	for (i = 0; i < SLOTS; i++) {					\
		struct pobj_##SIZE __attribute__((btf_type_tag("percpu_kptr"))) *o = NULL, *old;	\
		struct pobj_##SIZE *v;					\
		struct pslot_##SIZE *s;					\
		__u32 k = i, want, acc;					\
									\
		s = bpf_map_lookup_elem(&pslots_##SIZE, &k);		\
		if (!s)							\
			return TC_ACT_SHOT;				\
		/* Check the last cur_round's object where it is stashed. */ \
		old = s->p;						\
		for (cpu = 0; old && cpu < NR_CPUS_MAX; cpu++) {	\
			v = bpf_per_cpu_ptr(old, cpu);			\
			if (!v)						\
				break;					\
			want = STAMP(SIZE, last, i, cpu);		\
			acc = 0;					\
			_Pragma("unroll")				\
			for (j = 0; j < (SIZE) / 4; j++)		\
				acc |= v->w[j] ^ want;			\
			if (acc) {					\
				_Pragma("unroll")			\
				for (j = 0; j < (SIZE) / 4; j++)	\
					if (v->w[j] != want) {		\
						note_bad(SIZE, i, j, cpu, v->w[j], want); \
						break;			\
					}				\
			}						\
		}							\
		if (keep) {						\
			o = kit_percpu_obj_new(pobj_##SIZE);		\
			if (o)						\
				allocated++;				\
			else						\
				alloc_failed++;				\
		}							\
		old = bpf_kptr_xchg(&s->p, o);				\
		if (old) {						\
			bpf_percpu_obj_drop_impl(old, NULL);		\
			dropped++;					\
		}							\
		if (!o)							\
			continue;					\
		o = s->p;						\
		for (cpu = 0; o && cpu < NR_CPUS_MAX; cpu++) {		\
			v = bpf_per_cpu_ptr(o, cpu);			\
			if (!v)						\
				break;					\
			want = STAMP(SIZE, cur_round, i, cpu);		\
			_Pragma("unroll")				\
			for (j = 0; j < (SIZE) / 4; j++)		\
				v->w[j] = want;				\
		}							\
	}								\
	return TC_ACT_OK;						\
}

PCPU_TYPE(8)
PCPU_TYPE(16)
PCPU_TYPE(20)
PCPU_TYPE(64)
PCPU_TYPE(68)
PCPU_TYPE(96)
PCPU_TYPE(100)
PCPU_TYPE(128)
PCPU_TYPE(132)
PCPU_TYPE(192)
PCPU_TYPE(196)
PCPU_TYPE(256)
PCPU_TYPE(260)
PCPU_TYPE(512)

/*
 * One byte over the verifier's limit (BPF_GLOBAL_PERCPU_MA_MAX_SIZE,
 * 512): loaded alone by percpu_objects, which expects the verifier to
 * refuse it with its message.  "?tc": not loaded with the others.
 */
struct pobj_513 {
	__u8 b[513];
};

SEC("?tc")
int percpu_over_limit(struct __sk_buff *skb)
{
	struct pobj_513 __attribute__((btf_type_tag("percpu_kptr"))) *o =
		kit_percpu_obj_new(pobj_513);

	if (o)
		bpf_percpu_obj_drop_impl(o, NULL);
	return TC_ACT_OK;
}
