# SPDX-License-Identifier: GPL-2.0
#
# Generic helpers: types, fields, integers, symbols, llists, frames.
# container_of() is linux.utils' (scripts/gdb/linux of the kernel's own
# tree); what is here is what the kernel's helpers do not offer on all of
# 6.1, 6.12 and 7.2.

import gdb

from linux import utils as lx_utils

# Longest list walked before giving up (a corrupted list may loop).
LIST_LIMIT = 1 << 20


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


def container_of(addr, struct_name, fields):
    """Pointer to struct STRUCT_NAME whose member is at ADDR, or None.
    FIELDS is "a|b": the first member the struct has is used (6.12 and 7.2
    call __free_rcu() on rcu_ttrace, 6.1 on rcu), which is why this is not
    linux.utils.container_of() alone."""
    stype = lookup_struct(struct_name)
    if stype is None:
        return None
    field = next((f for f in fields.split("|") if has_field(stype, f)), None)
    if field is None:
        return None
    return lx_utils.container_of(gdb.Value(int(addr)), stype.pointer(), field)


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


def llnode_chain_len(node):
    """Length of a NULL-terminated chain of struct llist_node, or a short
    string saying why not (linux.lists walks list_head and hlist only)."""
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


def llist_len(head):
    """Length of a struct llist_head (see llnode_chain_len())."""
    return llnode_chain_len(head["first"])


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
