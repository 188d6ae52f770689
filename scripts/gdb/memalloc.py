# SPDX-License-Identifier: GPL-2.0
#
# gdb commands for the BPF memory allocator (kernel/bpf/memalloc.c) on an
# ARCH=um kernel built by memalloc-uml.  Sourced by scripts/gdb/kit.gdb.
#
#   bpf-ma [-s] [EXPR]    state of a struct bpf_mem_alloc / bpf_mem_cache /
#                         bpf_mem_caches / bpf_reuse_batch / bpf_htab / bpf_map;
#                         without EXPR, the cache of the allocator RCU
#                         callback on the stack ($kit_cb_cache())
#   bpf-ma-map [NAME|ID]  the bpf_mem_allocs of a hash map found in map_idr;
#                         without an argument, list every map
#   rcu-tiny-cbs          pending Tiny RCU (and RCU Tasks Trace) callbacks
#   kit-current           the task the kernel runs now; $kit_current() is
#                         the same as a value (for `p $kit_current()->comm`)
#   kit-break FUNC...     break on every FUNC this kernel has (the variants
#                         differ: reuse_rcu exists on reuse-after-gp only)
#   kit-kill              kill the guest: UML's whole process group
#
# The commands read the kernel's own types, so they work on every variant:
# a field or list that a variant does not have is printed as "absent".

import os
import signal
import sys

import gdb

# Longest list walked before giving up (a corrupted list may loop).
LIST_LIMIT = 1 << 20

# The fields of struct bpf_mem_cache, in the order an object travels
# through the cache.  base (6.1): free_llist -> free_bulk() -> free_by_rcu
# -> waiting_for_gp -> call_rcu_tasks_trace + call_rcu -> __free_rcu() ->
# kfree.  reuse-after-gp: unit_free() -> free_by_rcu -> reuse_bulk() -> a
# bpf_reuse_batch in call_rcu (dyn_reuse_rcu), or waiting_for_gp
# (reuse_rcu) -> reuse_ready -> wait_for_free -> call_rcu_tasks_trace
# (free_rcu) -> kfree; alloc_bulk() takes from reuse_ready/wait_for_free.
# 6.12: bpf_mem_cache_free() -> free_llist -> free_bulk() ->
# free_by_rcu_ttrace -> waiting_for_gp_ttrace -> call_rcu_tasks_trace
# (__free_rcu_tasks_trace, __free_rcu) -> kfree; bpf_mem_cache_free_rcu()
# -> free_llist_extra_rcu -> free_by_rcu -> waiting_for_gp -> call_rcu_hurry
# (__free_by_rcu) -> free_by_rcu_ttrace, reused by alloc_bulk() from there.
CACHE_ROWS = [
    ["unit_size", "percpu_size", "active"],
    ["free_llist", "free_cnt", "free_llist_extra"],
    ["low_watermark", "high_watermark", "watermark", "batch", "prepare_reuse_cnt"],
    ["free_by_rcu", "waiting_for_gp", "reuse_ready", "wait_for_free"],
    ["call_rcu_in_progress", "reuse_rcu_in_progress", "free_rcu_in_progress",
     "dyn_reuse_rcu_cnt", "direct_free"],
    ["free_llist_extra_rcu", "free_by_rcu_ttrace", "waiting_for_gp_ttrace",
     "call_rcu_ttrace_in_progress", "draining"],
]
CACHE_LISTS = {"free_llist", "free_llist_extra", "free_llist_extra_rcu", "free_by_rcu",
               "waiting_for_gp", "reuse_ready", "wait_for_free", "free_by_rcu_ttrace",
               "waiting_for_gp_ttrace"}

# RCU callbacks of the allocator: function -> (struct, field of the
# rcu_head); a callback's rcu_head leads back to its bpf_mem_cache.
MA_CALLBACKS = {
    "__free_rcu": ("bpf_mem_cache", "rcu_ttrace|rcu"),
    "__free_rcu_tasks_trace": ("bpf_mem_cache", "rcu_ttrace|rcu"),
    "reuse_rcu": ("bpf_mem_cache", "reuse_rh"),
    "free_rcu": ("bpf_mem_cache", "free_rh"),
    "dyn_reuse_rcu": ("bpf_reuse_batch", "rcu"),
    "__free_by_rcu": ("bpf_mem_cache", "rcu"),
}

RCU_SEG_NAMES = ["done", "wait", "next-ready", "next"]


# --- small helpers -----------------------------------------------------------

def require_guest():
    """Fail unless gdb has a guest process (the commands read its memory;
    without one gdb would read the initial values from the binary)."""
    if gdb.selected_inferior().pid <= 0:
        raise gdb.GdbError("no guest: start one with `run`, or attach to it")


def lookup_struct(name):
    """struct NAME as a gdb.Type, or None if the kernel has no such struct."""
    try:
        return gdb.lookup_type("struct " + name)
    except gdb.error:
        return None


def has_field(stype, name):
    return any(f.name == name for f in stype.strip_typedefs().fields())


def field_offset(stype, name):
    return stype[name].bitpos // 8


def container_of(addr, struct_name, field):
    """Pointer to struct STRUCT_NAME whose FIELD is at ADDR, or None.
    FIELD may be "a|b": the first of them that the struct has (6.12 calls
    __free_rcu() on rcu_ttrace, 6.1 on rcu)."""
    stype = lookup_struct(struct_name)
    if stype is None:
        return None
    field = next((f for f in field.split("|") if has_field(stype, f)), None)
    if field is None:
        return None
    base = int(addr) - field_offset(stype, field)
    return gdb.Value(base).cast(stype.pointer())


def as_int(val):
    """An integer out of int, bool, enum, atomic_t, local_t, atomic_long_t."""
    t = val.type.strip_typedefs()
    # atomic_t { int counter; }, local_t { atomic_long_t a; }: descend.
    while t.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        val = val[t.fields()[0].name]
        t = val.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_BOOL:
        return int(bool(val))
    return int(val)


def plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def static_var(name):
    """A file-static (or global) kernel variable by name."""
    sym = gdb.lookup_static_symbol(name)
    if sym is None:
        sym = gdb.lookup_global_symbol(name)
    if sym is None:
        raise gdb.GdbError("no symbol %s in this kernel" % name)
    return sym.value()


def symbol_name(addr):
    """Name of the function at ADDR ("func" or "func+off"), or hex."""
    out = gdb.execute("info symbol 0x%x" % int(addr), to_string=True).strip()
    if out.startswith("No symbol"):
        return "0x%x" % int(addr)
    return out.split(" in section")[0].replace(" + ", "+")


def llist_len(head):
    """Length of a struct llist_head, or a short string saying why not."""
    node = head["first"]
    n = 0
    seen = set()
    try:
        while int(node):
            addr = int(node)
            if addr in seen:
                return "loop after %d" % n
            if n >= LIST_LIMIT:
                return ">%d" % LIST_LIMIT
            seen.add(addr)
            n += 1
            node = node.dereference()["next"]
    except gdb.MemoryError:
        return "unreadable at 0x%x after %d" % (int(node), n)
    return n


def llnode_chain_len(node):
    """Length of a NULL-terminated chain of struct llist_node."""
    return llist_len({"first": node})     # llist_len() only reads ["first"]


# --- per-cpu data -------------------------------------------------------------

def possible_cpus():
    """CPUs that have per-cpu data.  UML 6.1 is UP (no SMP): cpu 0 only."""
    try:
        gdb.parse_and_eval("__per_cpu_offset")
    except gdb.error:
        return [0]
    try:
        from linux import cpus  # the lx helpers of vmlinux-gdb.py
        return list(cpus.each_possible_cpu())
    except Exception:
        return [0]


def per_cpu(ptr, cpu):
    """per_cpu_ptr(ptr, cpu).  Without CONFIG_SMP (UML) per-cpu pointers
    are plain pointers; with it, add __per_cpu_offset[cpu]."""
    try:
        offset = gdb.parse_and_eval("__per_cpu_offset")[cpu]
    except gdb.error:
        return ptr
    return gdb.Value(int(ptr) + int(offset)).cast(ptr.type)


# --- Tiny RCU and RCU Tasks Trace callback queues ----------------------------

def tiny_rcu_callbacks():
    """[(rcu_head *, "done"|"waiting")] of rcu_ctrlblk, oldest first.

    Tiny RCU keeps one list: rcucblist -> ... with donetail pointing at
    the ->next of the last callback whose grace period has ended (or at
    rcucblist itself when none has) and curtail at the ->next of the last
    one.  rcu_process_callbacks() invokes the done part."""
    blk = static_var("rcu_ctrlblk")
    donetail = int(blk["donetail"])
    pp = blk["rcucblist"].address        # struct rcu_head ** being followed
    state = "done" if int(pp) != donetail else "waiting"
    out = []
    node = blk["rcucblist"]
    while int(node) and len(out) < LIST_LIMIT:
        out.append((node, state))
        pp = node["next"].address
        if int(pp) == donetail:
            state = "waiting"
        node = node["next"]
    return blk, out


def tasks_trace_callbacks():
    """[(cpu, rcu_head *, segment)] queued by call_rcu_tasks_trace(), or
    None if this kernel has no RCU Tasks Trace."""
    if gdb.lookup_static_symbol("rcu_tasks_trace") is None:
        return None
    rtp = static_var("rcu_tasks_trace")
    out = []
    for cpu in possible_cpus():
        cbl = per_cpu(rtp["rtpcpu"], cpu).dereference()["cblist"]
        tails = [int(cbl["tails"][i]) for i in range(len(RCU_SEG_NAMES))]
        pp = int(cbl["head"].address)
        seg = 0
        node = cbl["head"]
        while int(node) and len(out) < LIST_LIMIT:
            # The callback belongs to the first segment whose tail is
            # not yet passed.
            while seg < len(tails) - 1 and pp == tails[seg]:
                seg += 1
            out.append((cpu, node, RCU_SEG_NAMES[seg]))
            pp = int(node["next"].address)
            node = node["next"]
    return out


def invoking_now():
    """Callbacks rcu_process_callbacks() has taken off rcu_ctrlblk and not
    yet invoked (its local list), if a frame of it is on the stack."""
    try:
        frame = gdb.newest_frame()
    except gdb.error:       # running (attached, non-stop) or no registers
        return None
    while frame is not None:
        if frame.name() == "rcu_process_callbacks":
            try:
                node = frame.read_var("next")
            except ValueError:
                return None
            if node.is_optimized_out:
                return None
            out = []
            while int(node) and len(out) < LIST_LIMIT:
                out.append(node)
                node = node["next"]
            return out
        frame = frame.older()
    return None


def describe_callback(head, func_name):
    """What an allocator callback stands for: (cache address, text)."""
    base = func_name.split("+")[0]
    if base not in MA_CALLBACKS:
        return None, ""
    struct_name, field = MA_CALLBACKS[base]
    obj = container_of(head, struct_name, field)
    if obj is None:
        return None, ""
    try:
        if struct_name == "bpf_reuse_batch":
            c = obj["c"]
            n = llnode_chain_len(obj["head"])
            return int(c), "batch of %s objects for bpf_mem_cache 0x%x (unit_size %d)" % (
                n, int(c), as_int(c["unit_size"]))
        return int(obj), "bpf_mem_cache 0x%x (unit_size %d)" % (
            int(obj), as_int(obj["unit_size"]))
    except gdb.MemoryError:
        return None, "(owner unreadable)"


def running_callback():
    """The rcu_head of the allocator callback running on the stack (its
    ->func is already cleared, so note it by its frame), or None."""
    try:
        frame = gdb.newest_frame()
    except gdb.error:
        return None
    while frame is not None:
        if frame.name() in MA_CALLBACKS:
            head = frame_first_arg(frame)
            if head is None:
                return None
            # rcu_reclaim_tiny() zeroed ->func before the call: say who.
            return RunningHead(head, frame.name())
        frame = frame.older()
    return None


class RunningHead:
    """An rcu_head whose callback is running: its function is known from
    the frame, not from ->func (which rcu_reclaim_tiny() cleared)."""

    def __init__(self, head, func):
        self.head = head
        self.func = func

    def __int__(self):
        return int(self.head)


def callback_func(head):
    """The function of a queued rcu_head: (name, kvfree offset or None)."""
    if isinstance(head, RunningHead):
        return head.func, None
    func = int(head["func"])
    # kvfree_rcu() queues the offset of the rcu_head in the object
    # instead of a function (__is_kvfree_rcu_offset: < 4096).
    if func < 4096:
        return "kvfree", func
    return symbol_name(func), None


def allocator_callbacks():
    """{cache address: ["dyn_reuse_rcu (Tiny RCU, waiting, 48 objects)"...]}"""
    owners = {}

    def note(head, where):
        name, _ = callback_func(head)
        cache, text = describe_callback(head, name)
        if cache is None:
            return
        extra = ""
        if text.startswith("batch of "):
            extra = ", " + text.split(" for ")[0][len("batch of "):]
        owners.setdefault(cache, []).append("%s (%s%s)" % (name, where, extra))

    try:
        running = running_callback()
        if running:
            note(running, "running now")
        _, cbs = tiny_rcu_callbacks()
        for head, state in cbs:
            note(head, "Tiny RCU, " + state)
        for head in invoking_now() or []:
            note(head, "Tiny RCU, taken off for invocation")
        for cpu, head, seg in tasks_trace_callbacks() or []:
            note(head, "RCU Tasks Trace, " + seg)
    except (gdb.error, gdb.GdbError, gdb.MemoryError):
        pass
    return owners


# --- bpf_mem_cache / bpf_mem_alloc -------------------------------------------

def cache_fields(c):
    """{field: int | "absent" | text} for a struct bpf_mem_cache *."""
    stype = c.type.strip_typedefs().target().strip_typedefs()
    out = {}
    for names in CACHE_ROWS:
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
    return out


def cache_notes(f):
    """Remarks on a cache's numbers that a reader would otherwise puzzle over."""
    notes = []
    if f["direct_free"] == 1:
        notes.append("drained by bpf_mem_alloc_destroy() (direct_free): free_cnt is stale")
    elif isinstance(f["free_llist"], int) and f["free_cnt"] != f["free_llist"]:
        if f["free_llist"] == 0 and f["active"] == 0:
            notes.append("free_llist empty but free_cnt %s: drained by "
                         "bpf_mem_alloc_destroy(), which leaves free_cnt" % f["free_cnt"])
        else:
            notes.append("free_cnt != free_llist: stopped inside unit_alloc()/unit_free()?")
    return notes


def print_cache(c, label, callbacks, short=False):
    """LABEL (with its indentation) then the numbers of cache C, indented
    two more spaces."""
    f = cache_fields(c)
    indent = " " * (len(label) - len(label.lstrip()) + 2)
    if short:
        keep = [n for names in CACHE_ROWS for n in names
                if f[n] != "absent" and n not in ("percpu_size", "active")]
        print("%s 0x%x: %s" % (label, int(c), "  ".join(
            "%s %s" % (n, f[n]) for n in keep)))
        for note in cache_notes(f):
            print(indent + "note: " + note)
        return
    print("%s: (struct bpf_mem_cache *) 0x%x" % (label, int(c)))
    for names in CACHE_ROWS:
        print(indent + "  ".join("%s %s" % (n, f[n]) for n in names))
    cbs = callbacks.get(int(c))
    print(indent + "rcu callbacks: %s" % (", ".join(cbs) if cbs else "none queued"))
    for note in cache_notes(f):
        print(indent + "note: " + note)


def print_caches(cc, label, callbacks, short=False):
    """struct bpf_mem_caches *: the size-class caches of one cpu."""
    arr = cc["cache"]
    lo, hi = arr.type.strip_typedefs().range()
    for i in range(lo, hi + 1):
        print_cache(arr[i].address, "%s caches[%d]" % (label, i), callbacks, short)


def print_ma(ma, label, short=False):
    """struct bpf_mem_alloc (a value, not a pointer): its per-cpu cache
    (maps: one unit size) or per-cpu size-class caches."""
    callbacks = allocator_callbacks()
    cache = ma["cache"]
    caches = ma["caches"]
    indent = " " * (len(label) - len(label.lstrip()) + 2)
    print("%s: (struct bpf_mem_alloc *) 0x%x" % (label, int(ma.address)))
    if not int(cache) and not int(caches):
        print(indent + "not initialised (or already destroyed)")
        return
    for cpu in possible_cpus():
        if int(cache):
            print_cache(per_cpu(cache, cpu), "%scpu %d cache" % (indent, cpu), callbacks, short)
        if int(caches):
            print_caches(per_cpu(caches, cpu), "%scpu %d" % (indent, cpu), callbacks, short)


def print_htab(htab, short=False):
    m = htab["map"]
    print("map id %d name '%s' %s flags 0x%x key_size %d value_size %d max_entries %d" % (
        as_int(m["id"]), m["name"].string(), m["map_type"], as_int(m["map_flags"]),
        as_int(m["key_size"]), as_int(m["value_size"]), as_int(m["max_entries"])))
    percpu = "PERCPU" in str(m["map_type"])
    prealloc = not as_int(m["map_flags"]) & 1       # BPF_F_NO_PREALLOC
    for name in ("ma", "pcpu_ma"):
        if not has_field(htab.dereference().type, name):
            print("  htab->%s: absent" % name)
        elif prealloc:
            print("  htab->%s: unused (preallocated map: its elements come from the "
                  "map's own freelist)" % name)
        elif name == "pcpu_ma" and not percpu:
            print("  htab->pcpu_ma: unused (not a per-cpu hash)")
        else:
            print_ma(htab[name], "  htab->%s" % name, short)


HTAB_TYPES = ("BPF_MAP_TYPE_HASH", "BPF_MAP_TYPE_PERCPU_HASH", "BPF_MAP_TYPE_LRU_HASH",
              "BPF_MAP_TYPE_LRU_PERCPU_HASH", "BPF_MAP_TYPE_HASH_OF_MAPS")


def htab_of(map_ptr):
    if str(map_ptr["map_type"]) not in HTAB_TYPES:
        raise gdb.GdbError("map %d ('%s') is a %s, not a hash map: it has no bpf_mem_alloc" % (
            as_int(map_ptr["id"]), map_ptr["name"].string(), map_ptr["map_type"]))
    return container_of(map_ptr, "bpf_htab", "map")


def frame_first_arg(frame):
    """The first argument of FRAME's function (None if optimized out)."""
    block = frame.block()
    while block is not None and block.function is None:
        block = block.superblock
    if block is None:
        return None
    for sym in block:
        if sym.is_argument:
            val = frame.read_var(sym, block)
            return None if val.is_optimized_out else val
    return None


def callback_cache():
    """(function name, struct bpf_mem_cache *) of the innermost allocator
    RCU callback (__free_rcu, reuse_rcu, dyn_reuse_rcu, free_rcu...) on the
    stack, found from the callback's rcu_head argument as the callback
    itself does (container_of)."""
    try:
        frame = gdb.newest_frame()
    except gdb.error:
        raise gdb.GdbError("no frame: the guest is not stopped")
    while frame is not None:
        name = frame.name()
        if name in MA_CALLBACKS:
            struct_name, field = MA_CALLBACKS[name]
            head = frame_first_arg(frame)
            if head is None:
                raise gdb.GdbError("%s(): its rcu_head argument is optimized out here; "
                                   "use bpf-ma c (or the frame's variable)" % name)
            obj = container_of(head, struct_name, field)
            return name, obj["c"] if struct_name == "bpf_reuse_batch" else obj
        frame = frame.older()
    raise gdb.GdbError("no allocator RCU callback (%s) on the stack; give bpf-ma an expression"
                       % ", ".join(sorted(MA_CALLBACKS)))


class KitCbCache(gdb.Function):
    """$kit_cb_cache(): the struct bpf_mem_cache * of the allocator RCU
callback on the stack (what `bpf-ma` without an argument prints)."""

    def __init__(self):
        super().__init__("kit_cb_cache")

    def invoke(self):
        require_guest()
        return callback_cache()[1]


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
callbacks queued in RCU for it.  A field this variant lacks is "absent".
-s prints one line per cache."""

    def __init__(self):
        super().__init__("bpf-ma", gdb.COMMAND_DATA, gdb.COMPLETE_EXPRESSION)

    def invoke(self, arg, from_tty):
        require_guest()
        short = False
        if arg.startswith("-s"):
            short, arg = True, arg[2:].strip()
        if not arg:
            name, c = callback_cache()
            print_cache(c, "%s(): cache" % name, allocator_callbacks(), short)
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
            raise gdb.GdbError("%s is a %s; cast an address, e.g. bpf-ma (struct bpf_mem_cache *)0x..." % (arg, val.type))
        if ptr is None or not int(ptr):
            raise gdb.GdbError("%s is NULL" % arg)
        if tag == "bpf_mem_alloc":
            print_ma(ptr.dereference(), arg, short)
        elif tag == "bpf_mem_cache":
            print_cache(ptr, arg, allocator_callbacks(), short)
        elif tag == "bpf_mem_caches":
            print_caches(ptr, arg, allocator_callbacks(), short)
        elif tag == "bpf_reuse_batch":
            print("%s: (struct bpf_reuse_batch *) 0x%x: %s objects (head 0x%x) for cache 0x%x" % (
                arg, int(ptr), llnode_chain_len(ptr["head"]), int(ptr["head"]), int(ptr["c"])))
            print_cache(ptr["c"], "  batch->c", allocator_callbacks(), short)
        elif tag == "bpf_htab":
            print_htab(ptr, short)
        elif tag == "bpf_map":
            print_htab(htab_of(ptr), short)
        else:
            raise gdb.GdbError("bpf-ma: don't know a struct %s" % tag)


# --- map_idr: an xarray walk -------------------------------------------------

def xa_entries(xa):
    """(index, entry) of every present entry of a struct xarray, in order.

    An entry with the low two bits 10 is internal; above 4096 it is a
    pointer (+2) to a struct xa_node of 64 slots covering 64 << shift
    indices; below, a sibling/retry/zero marker (skipped: the IDR stores
    plain pointers)."""
    def is_node(e):
        return (e & 3) == 2 and e > 4096

    node_t = lookup_struct("xa_node").pointer()

    def walk(entry, base):
        e = int(entry)
        if not e:
            return
        if is_node(e):
            node = gdb.Value(e - 2).cast(node_t)
            shift = as_int(node["shift"])
            slots = node["slots"]
            lo, hi = slots.type.strip_typedefs().range()
            for i in range(lo, hi + 1):
                yield from walk(slots[i], base + (i << shift))
        elif (e & 3) == 2:
            return
        else:
            yield base, entry

    yield from walk(xa["xa_head"], 0)


def bpf_maps():
    idr = static_var("map_idr")
    map_t = lookup_struct("bpf_map").pointer()
    base = as_int(idr["idr_base"])
    for index, entry in xa_entries(idr["idr_rt"]):
        yield index + base, entry.cast(map_t)


class BpfMaMap(gdb.Command):
    """Print the bpf_mem_allocs of a BPF hash map, found by name or id.

Usage: bpf-ma-map [-s] [NAME|ID]

Walks the kernel's map_idr (kernel/bpf/syscall.c) and prints htab->ma and
htab->pcpu_ma of the matching map(s) like bpf-ma.  Without NAME or ID,
lists every map: id, name, type, flags."""

    def __init__(self):
        super().__init__("bpf-ma-map", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        require_guest()
        short = False
        if arg.startswith("-s"):
            short, arg = True, arg[2:].strip()
        maps = list(bpf_maps())
        if not arg:
            if not maps:
                print("no BPF maps")
            for mid, m in maps:
                print("%4d %-16s %-28s flags 0x%x value_size %d" % (
                    mid, m["name"].string(), m["map_type"], as_int(m["map_flags"]),
                    as_int(m["value_size"])))
            return
        if arg.isdigit():
            found = [m for mid, m in maps if mid == int(arg)]
        else:
            found = [m for mid, m in maps if m["name"].string() == arg]
        if not found:
            raise gdb.GdbError("no BPF map with %s %s (maps: %s)" % (
                "id" if arg.isdigit() else "name", arg,
                ", ".join("%d %s" % (mid, m["name"].string()) for mid, m in maps) or "none"))
        for m in found:
            print_htab(htab_of(m), short)


# --- rcu-tiny-cbs -------------------------------------------------------------

class RcuTinyCbs(gdb.Command):
    """List the RCU callbacks waiting in Tiny RCU (and RCU Tasks Trace).

Usage: rcu-tiny-cbs

Tiny RCU (UML, !SMP) keeps one list, rcu_ctrlblk.rcucblist: callbacks
before donetail are "done" (their grace period has ended; the next
rcu_process_callbacks() invokes them), the others wait.  When stopped
inside rcu_process_callbacks(), the callbacks it has already taken off
the list and not yet invoked are shown as "invoking".  Allocator
callbacks (dyn_reuse_rcu, reuse_rcu, free_rcu, __free_rcu...) show the
bpf_mem_cache they belong to, and dyn_reuse_rcu its batch size."""

    def __init__(self):
        super().__init__("rcu-tiny-cbs", gdb.COMMAND_DATA)

    @staticmethod
    def line(i, head, state):
        name, offset = callback_func(head)
        if offset is not None:
            what = "kvfree of the object at 0x%x" % (int(head) - offset)
        else:
            _, what = describe_callback(head, name)
        return "  #%-3d 0x%x  %-10s %-24s %s" % (i, int(head), state, name, what)

    def invoke(self, arg, from_tty):
        require_guest()
        blk, cbs = tiny_rcu_callbacks()
        ndone = sum(1 for _, s in cbs if s == "done")
        print("Tiny RCU: %s queued, %d done (gp_seq %d)" % (
            plural(len(cbs), "callback"), ndone, as_int(blk["gp_seq"])))
        for i, (head, state) in enumerate(cbs):
            print(self.line(i, head, state))
        now = invoking_now()
        if now:
            print("rcu_process_callbacks() is invoking a batch; not yet invoked:")
            for i, head in enumerate(now):
                print(self.line(i, head, "invoking"))
        tt = tasks_trace_callbacks()
        if tt is None:
            return
        print("RCU Tasks Trace: %s queued" % plural(len(tt), "callback"))
        for i, (cpu, head, seg) in enumerate(tt):
            print(self.line(i, head, seg))


# --- current task -------------------------------------------------------------

def thread_size():
    """THREAD_SIZE: the size of union thread_union (1 << KERNEL_STACK_ORDER pages)."""
    tu = gdb.lookup_type("union thread_union")
    return tu.sizeof


def current_task():
    """(task_struct *, how it was found).

    UML 6.1 keeps struct thread_info at the bottom of the kernel stack and
    current is current_thread_info()->task, from the stack pointer.  Every
    kernel thread runs on the one host process, so $sp of that process
    tells.  On a signal stack (or outside any task's stack) fall back to
    cpu_tasks[0].task, which UML's __switch_to() sets."""
    ti_t = gdb.lookup_type("struct thread_info").pointer()
    size = thread_size()
    try:
        sp = int(gdb.parse_and_eval("$sp"))
        ti = gdb.Value(sp & ~(size - 1)).cast(ti_t)
        task = ti["task"]
        if int(task) and int(task["stack"]) == int(ti):
            return task, "stack"
    except (gdb.error, gdb.MemoryError):
        pass
    return gdb.parse_and_eval("cpu_tasks[0].task"), "cpu_tasks[0]"


class KitCurrentFunction(gdb.Function):
    """$kit_current(): the current task_struct * (for UML, where
$lx_current() does not work)."""

    def __init__(self):
        super().__init__("kit_current")

    def invoke(self):
        require_guest()
        return current_task()[0]


class KitCurrent(gdb.Command):
    """Print the task the kernel is running: pid, comm, context.

Usage: kit-current"""

    def __init__(self):
        super().__init__("kit-current", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        require_guest()
        task, how = current_task()
        line = "current: pid %d comm \"%s\" (struct task_struct *) 0x%x, found from %s" % (
            as_int(task["pid"]), task["comm"].string(), int(task),
            "the stack pointer" if how == "stack" else how)
        try:
            # The host process whose address space is in use (a kernel
            # thread keeps the last one).
            ct = gdb.parse_and_eval("cpu_tasks[0]")
            line += "; host pid in cpu_tasks[0]: %d" % as_int(ct["pid"])
        except gdb.error:
            pass
        print(line)
        try:
            ti = gdb.Value(int(task["stack"])).cast(
                gdb.lookup_type("struct thread_info").pointer())
            pc = as_int(ti["preempt_count"])
            ctx = [name for name, mask in (("nmi", 0xf00000), ("hardirq", 0xf0000),
                                          ("softirq", 0xff00)) if pc & mask]
            print("preempt_count 0x%x (%s)" % (pc, ", ".join(ctx) or "task context"))
        except (gdb.error, gdb.MemoryError):
            pass


# --- breakpoints and the guest's processes ------------------------------------

class KitBreak(gdb.Command):
    """Break on every named function this kernel has.

Usage: kit-break FUNC[,FUNC...] [FUNC...]

The variants differ: reuse_rcu and dyn_reuse_rcu exist on
reuse-after-gp, __free_rcu on base.  Functions the kernel lacks are
named and skipped; it is an error if none exists."""

    def __init__(self):
        super().__init__("kit-break", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        names = arg.replace(",", " ").split()
        if not names:
            raise gdb.GdbError("usage: kit-break FUNC...")
        # Let gdb resolve each name (inlined functions too: reuse_bulk is
        # inlined in bpf_mem_refill), with no pending breakpoints.
        pending = gdb.parameter("breakpoint pending")
        gdb.execute("set breakpoint pending off")
        present, missing = [], []
        try:
            for n in names:
                try:
                    gdb.execute("break %s" % n)
                    present.append(n)
                except gdb.error:
                    missing.append(n)
        finally:
            gdb.execute("set breakpoint pending %s" % {True: "on", False: "off", None: "auto"}[pending])
        if missing:
            print("kit-break: not in this kernel: %s" % " ".join(missing))
        if not present:
            raise gdb.GdbError("kit-break: none of %s is a function of this kernel" % " ".join(names))


def kill_guest(inferior):
    """Kill UML's whole process group.

    The guest's processes are host processes ptraced by the UML kernel
    process.  If only that process dies (gdb's `kill` and gdb exiting
    kill just it), they are let go and run on as host processes: the
    guest's init and test programs making syscalls on the host.  So kill
    the group: UML calls setsid() first thing (and under gdb it already
    leads its process group), so the group is the kernel process's pid."""
    pid = inferior.pid
    if pid <= 0:
        return
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class KitKill(gdb.Command):
    """Kill the guest: SIGKILL to UML's whole process group.

Usage: kit-kill

`kill` runs this first (kit.gdb's hook-kill), and so does gdb when it
exits with a guest it started; an attached guest is detached instead."""

    def __init__(self):
        super().__init__("kit-kill", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        kill_guest(gdb.selected_inferior())


def on_gdb_exiting(event):
    # gdb kills the inferiors it started (only their first process) and
    # detaches from those it attached to.
    for inf in gdb.inferiors():
        if inf.pid > 0 and not inf.was_attached:
            kill_guest(inf)


# --- the lx-* helpers of the build directory ---------------------------------

loaded_lx = set()


def load_lx_helpers(objfile):
    """Source vmlinux-gdb.py next to the kernel binary (`linux`; gdb's own
    auto-load only looks for linux-gdb.py)."""
    if objfile is None or not objfile.filename:
        return
    path = os.path.realpath(objfile.filename)
    if os.path.basename(path) != "linux":
        return
    helper = os.path.join(os.path.dirname(path), "vmlinux-gdb.py")
    if helper in loaded_lx or not os.path.exists(helper):
        return
    loaded_lx.add(helper)
    objdir = os.path.dirname(path)
    gdb.execute("add-auto-load-safe-path %s" % objdir)
    # vmlinux-gdb.py is a symlink into the source tree and finds its
    # modules relative to its own path, which gdb has resolved: point it
    # at the build directory's scripts/gdb (where constants.py is made).
    if os.path.join(objdir, "scripts/gdb") not in sys.path:
        sys.path.insert(0, os.path.join(objdir, "scripts/gdb"))
    try:
        gdb.execute("source %s" % helper)
    except gdb.error as e:
        print("kit: %s: %s" % (helper, e))


BpfMa()
BpfMaMap()
RcuTinyCbs()
KitCurrentFunction()
KitCbCache()
KitCurrent()
KitBreak()
KitKill()
gdb.events.gdb_exiting.connect(on_gdb_exiting)
gdb.events.new_objfile.connect(lambda ev: load_lx_helpers(ev.new_objfile))
for _objfile in gdb.objfiles():
    load_lx_helpers(_objfile)
