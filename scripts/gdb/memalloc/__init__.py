# SPDX-License-Identifier: GPL-2.0
#
# gdb commands for the BPF memory allocator (kernel/bpf/memalloc.c) on an
# ARCH=um kernel built by memalloc-uml; scripts/gdb/kit.gdb imports this
# package.  One module per concern, as the kernel's scripts/gdb/linux/:
#
#   utils      generic helpers (types, integers, llists, frames)
#   percpu     per-cpu data, through linux.cpus
#   rcu        readers of the Tiny RCU and RCU Tasks Trace queues
#   callbacks  the allocator's RCU callbacks: bpf-ma-rcu, $bpf_ma_cb_cache()
#   cache      the allocator's printers: bpf-ma
#   maps       map_idr's maps (an xarray walk): bpf-ma-map
#   task       UML's current task: bpf-ma-current, $bpf_ma_current()
#   guest      bpf-ma-break, bpf-ma-kill and the group kill when gdb exits
#   lx         loads the kernel's own gdb scripts (linux.*), which the
#              other modules use: they are imported once those are there
#
# Every command is bpf-ma or starts with bpf-ma-; `help bpf-ma...` and
# scripts/gdb/README.md say more.

import importlib

import gdb

from memalloc import lx

COMMAND_MODULES = ("callbacks", "cache", "maps", "task", "guest")
registered = False


def on_objfile(objfile):
    """Once the kernel's binary is loaded and its linux.* helpers with it,
    register the commands."""
    global registered
    if registered or not lx.load(objfile):
        return
    for name in COMMAND_MODULES:
        importlib.import_module("memalloc." + name)
    registered = True


gdb.events.new_objfile.connect(lambda event: on_objfile(event.new_objfile))
for _objfile in gdb.objfiles():
    on_objfile(_objfile)
