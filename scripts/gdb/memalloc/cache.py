# SPDX-License-Identifier: GPL-2.0
#
# The allocator's printers: struct bpf_mem_cache, bpf_mem_caches,
# bpf_mem_alloc, and the bpf_htab that owns them.  bpf-ma.
#
# They read the kernel's own types, so they work on every base and
# variant: each design's fields (CACHE_LAYOUTS), and "absent" for one that
# a tree (a KERNEL_SRC, say) lacks.

import gdb

from memalloc import callbacks, percpu
from memalloc.utils import (as_int, container_of, has_field, llist_len, llnode_chain_len,
                            require_guest)

# The fields of struct bpf_mem_cache, one table per design, each in the
# order an object travels through the cache; the first table whose marker
# field the kernel's struct has is used (None: any), so a cache prints
# its own design's fields and no other's.
CACHE_LAYOUTS = [
    # 6.12 and 7.2: bpf_mem_cache_free() -> free_llist -> free_bulk() ->
    # free_by_rcu_ttrace -> waiting_for_gp_ttrace -> call_rcu_tasks_trace
    # (__free_rcu_tasks_trace, __free_rcu) -> kfree; bpf_mem_cache_free_rcu()
    # -> free_llist_extra_rcu -> free_by_rcu -> waiting_for_gp -> call_rcu_hurry
    # (__free_by_rcu) -> free_by_rcu_ttrace, reused by alloc_bulk() from there.
    ("free_by_rcu_ttrace", [
        ["unit_size", "percpu_size", "active"],
        ["free_llist", "free_cnt", "free_llist_extra"],
        ["low_watermark", "high_watermark", "batch"],
        ["free_by_rcu", "waiting_for_gp", "call_rcu_in_progress"],
        ["free_llist_extra_rcu", "free_by_rcu_ttrace", "waiting_for_gp_ttrace",
         "call_rcu_ttrace_in_progress", "draining"],
    ]),
    # reuse-after-gp (6.1): unit_free() -> free_by_rcu -> reuse_bulk() -> a
    # bpf_reuse_batch in call_rcu (dyn_reuse_rcu), or waiting_for_gp
    # (reuse_rcu) -> reuse_ready -> wait_for_free -> call_rcu_tasks_trace
    # (free_rcu) -> kfree; alloc_bulk() takes from reuse_ready/wait_for_free.
    ("reuse_ready", [
        ["unit_size", "percpu_size", "active"],
        ["free_llist", "free_cnt", "free_llist_extra"],
        ["watermark", "batch", "prepare_reuse_cnt"],
        ["free_by_rcu", "waiting_for_gp", "reuse_ready", "wait_for_free"],
        ["reuse_rcu_in_progress", "free_rcu_in_progress", "dyn_reuse_rcu_cnt", "direct_free"],
    ]),
    # 6.1 as shipped (and its variants that keep its allocator):
    # free_llist -> free_bulk() -> free_by_rcu -> waiting_for_gp ->
    # call_rcu_tasks_trace + call_rcu -> __free_rcu() -> kfree.
    (None, [
        ["unit_size", "percpu_size", "active"],
        ["free_llist", "free_cnt", "free_llist_extra"],
        ["low_watermark", "high_watermark", "batch"],
        ["free_by_rcu", "waiting_for_gp", "call_rcu_in_progress"],
    ]),
]
CACHE_LISTS = {"free_llist", "free_llist_extra", "free_llist_extra_rcu", "free_by_rcu",
               "waiting_for_gp", "reuse_ready", "wait_for_free", "free_by_rcu_ttrace",
               "waiting_for_gp_ttrace"}

HTAB_TYPES = ("BPF_MAP_TYPE_HASH", "BPF_MAP_TYPE_PERCPU_HASH", "BPF_MAP_TYPE_LRU_HASH",
              "BPF_MAP_TYPE_LRU_PERCPU_HASH", "BPF_MAP_TYPE_HASH_OF_MAPS")


def cache_rows(stype):
    """The rows of CACHE_LAYOUTS that struct bpf_mem_cache STYPE is laid out by."""
    return next(rows for marker, rows in CACHE_LAYOUTS
                if marker is None or has_field(stype, marker))


def cache_fields(c):
    """(rows, {field: int | "absent" | text}) for a struct bpf_mem_cache *;
    "absent" only where the tree differs from its design's table."""
    stype = c.type.strip_typedefs().target().strip_typedefs()
    rows = cache_rows(stype)
    out = {}
    for names in rows:
        for name in names:
            if not has_field(stype, name):
                out[name] = "absent"
                continue
            try:
                if name in CACHE_LISTS:
                    out[name] = llist_len(c[name])
                else:
                    out[name] = as_int(c[name])
            except gdb.MemoryError:
                out[name] = "unreadable"
    return rows, out


def cache_notes(f):
    """Remarks on a cache's numbers that a reader would otherwise puzzle over."""
    notes = []
    if f.get("direct_free") == 1:
        notes.append("drained by bpf_mem_alloc_destroy() (direct_free): free_cnt is stale")
    elif isinstance(f["free_llist"], int) and f["free_cnt"] != f["free_llist"]:
        if f["free_llist"] == 0 and f["active"] == 0:
            notes.append("free_llist empty but free_cnt %s: drained by "
                         "bpf_mem_alloc_destroy(), which leaves free_cnt" % f["free_cnt"])
        else:
            notes.append("free_cnt != free_llist: stopped inside unit_alloc()/unit_free()?")
    return notes


def print_cache(c, label, cbs, short=False):
    """LABEL (with its indentation) then the numbers of cache C, indented
    two more spaces; CBS is callbacks.allocator_callbacks()."""
    rows, f = cache_fields(c)
    indent = " " * (len(label) - len(label.lstrip()) + 2)
    if short:
        keep = [n for names in rows for n in names
                if f[n] != "absent" and n not in ("percpu_size", "active")]
        print("%s 0x%x: %s" % (label, int(c), "  ".join(
            "%s %s" % (n, f[n]) for n in keep)))
        for note in cache_notes(f):
            print(indent + "note: " + note)
        return
    print("%s: (struct bpf_mem_cache *) 0x%x" % (label, int(c)))
    for names in rows:
        print(indent + "  ".join("%s %s" % (n, f[n]) for n in names))
    queued = cbs.get(int(c))
    print(indent + "rcu callbacks: %s" % (", ".join(queued) if queued else "none queued"))
    for note in cache_notes(f):
        print(indent + "note: " + note)


def print_caches(cc, label, cbs, short=False):
    """struct bpf_mem_caches *: the size-class caches of one cpu."""
    arr = cc["cache"]
    lo, hi = arr.type.strip_typedefs().range()
    for i in range(lo, hi + 1):
        print_cache(arr[i].address, "%s caches[%d]" % (label, i), cbs, short)


def print_ma(ma, label, short=False):
    """struct bpf_mem_alloc (a value, not a pointer): its per-cpu cache
    (maps: one unit size) or per-cpu size-class caches."""
    cbs = callbacks.allocator_callbacks()
    cache = ma["cache"]
    caches = ma["caches"]
    indent = " " * (len(label) - len(label.lstrip()) + 2)
    print("%s: (struct bpf_mem_alloc *) 0x%x" % (label, int(ma.address)))
    if not int(cache) and not int(caches):
        print(indent + "not initialised (or already destroyed)")
        return
    for cpu in percpu.possible_cpus():
        if int(cache):
            print_cache(percpu.per_cpu_ptr(cache, cpu), "%scpu %d cache" % (indent, cpu),
                        cbs, short)
        if int(caches):
            print_caches(percpu.per_cpu_ptr(caches, cpu), "%scpu %d" % (indent, cpu),
                         cbs, short)


def print_htab(htab, short=False):
    """struct bpf_htab *: the map, then its ma and pcpu_ma."""
    m = htab["map"]
    print("map id %d name '%s' %s flags 0x%x key_size %d value_size %d max_entries %d" % (
        as_int(m["id"]), m["name"].string(), m["map_type"], as_int(m["map_flags"]),
        as_int(m["key_size"]), as_int(m["value_size"]), as_int(m["max_entries"])))
    percpu_map = "PERCPU" in str(m["map_type"])
    prealloc = not as_int(m["map_flags"]) & 1       # BPF_F_NO_PREALLOC
    for name in ("ma", "pcpu_ma"):
        if not has_field(htab.dereference().type, name):
            print("  htab->%s: absent" % name)
        elif prealloc:
            print("  htab->%s: unused (preallocated map: its elements come from the "
                  "map's own freelist)" % name)
        elif name == "pcpu_ma" and not percpu_map:
            print("  htab->pcpu_ma: unused (not a per-cpu hash)")
        else:
            print_ma(htab[name], "  htab->%s" % name, short)


def htab_of(map_ptr):
    """The struct bpf_htab * of a struct bpf_map * of a hash map."""
    if str(map_ptr["map_type"]) not in HTAB_TYPES:
        raise gdb.GdbError("map %d ('%s') is a %s, not a hash map: it has no bpf_mem_alloc" % (
            as_int(map_ptr["id"]), map_ptr["name"].string(), map_ptr["map_type"]))
    return container_of(map_ptr, "bpf_htab", "map")


def print_batch(batch, label, short=False):
    """struct bpf_reuse_batch * (reuse-after-gp): its objects and cache."""
    print("%s: (struct bpf_reuse_batch *) 0x%x: %s objects (head 0x%x) for cache 0x%x" % (
        label, int(batch), llnode_chain_len(batch["head"]), int(batch["head"]),
        int(batch["c"])))
    print_cache(batch["c"], "  batch->c", callbacks.allocator_callbacks(), short)


class BpfMa(gdb.Command):
    """Print the state of the BPF memory allocator.

Usage: bpf-ma [-s] [EXPR]

Without EXPR: the cache of the allocator RCU callback on the stack
(__free_rcu, reuse_rcu, dyn_reuse_rcu, free_rcu...), from its rcu_head.
EXPR is a struct bpf_mem_alloc, bpf_mem_cache, bpf_mem_caches,
bpf_reuse_batch (reuse-after-gp), bpf_htab or bpf_map (value or pointer),
e.g. `bpf-ma c` inside reuse_rcu() or __free_rcu(), `bpf-ma &htab->ma`.
For each per-cpu cache: unit_size, the length of every list the variant
has, free_cnt, watermark(s), batch, in-flight counters, and the allocator
callbacks queued in RCU for it: the fields of the variant's design.
-s prints one line per cache."""

    def __init__(self):
        super().__init__("bpf-ma", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg, from_tty):
        require_guest()
        short = False
        if arg.startswith("-s"):
            short, arg = True, arg[2:].strip()
        if not arg:
            name, c = callbacks.callback_cache()
            print_cache(c, "%s(): cache" % name, callbacks.allocator_callbacks(), short)
            return
        val = gdb.parse_and_eval(arg)
        t = val.type.strip_typedefs()
        if t.code == gdb.TYPE_CODE_PTR:
            ptr = val
            tag = t.target().strip_typedefs().tag
        elif t.code == gdb.TYPE_CODE_STRUCT:
            ptr = val.address
            tag = t.tag
        else:
            raise gdb.GdbError("%s is a %s; cast an address, e.g. "
                               "bpf-ma (struct bpf_mem_cache *)0x..." % (arg, val.type))
        if ptr is None or not int(ptr):
            raise gdb.GdbError("%s is NULL" % arg)
        if tag == "bpf_mem_alloc":
            print_ma(ptr.dereference(), arg, short)
        elif tag == "bpf_mem_cache":
            print_cache(ptr, arg, callbacks.allocator_callbacks(), short)
        elif tag == "bpf_mem_caches":
            print_caches(ptr, arg, callbacks.allocator_callbacks(), short)
        elif tag == "bpf_reuse_batch":
            print_batch(ptr, arg, short)
        elif tag == "bpf_htab":
            print_htab(ptr, short)
        elif tag == "bpf_map":
            print_htab(htab_of(ptr), short)
        else:
            raise gdb.GdbError("bpf-ma: don't know a struct %s" % tag)


BpfMa()
