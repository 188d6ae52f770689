# SPDX-License-Identifier: GPL-2.0
#
# The kernel's BPF maps, from map_idr: an xarray walk of our own (the
# kernel's linux/radixtree.py walks one on 6.12 and 7.2, 6.1 has none),
# and bpf-ma-map.

import gdb

from memalloc import cache
from memalloc.utils import as_int, lookup_struct, require_guest, static_var


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
    """(id, struct bpf_map *) of every map in map_idr, by id."""
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
            cache.print_htab(cache.htab_of(m), short)


BpfMaMap()
