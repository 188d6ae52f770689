# SPDX-License-Identifier: GPL-2.0
#
# The allocator's RCU callbacks: from an rcu_head (queued, or the argument
# of the callback running on the stack) to its bpf_mem_cache, as the
# callback itself does.  $bpf_ma_cb_cache() and bpf-ma-rcu.

import gdb

from memalloc import rcu
from memalloc.utils import (as_int, container_of, frame_first_arg, llnode_chain_len,
                            plural, require_guest)

# Function -> (struct, member that is the rcu_head; "a|b": the first the
# struct has).  Every base and variant: reuse_rcu, free_rcu, dyn_reuse_rcu
# are reuse-after-gp's (6.1), __free_by_rcu and __free_rcu_tasks_trace
# 6.12's and 7.2's.
MA_CALLBACKS = {
    "__free_rcu": ("bpf_mem_cache", "rcu_ttrace|rcu"),
    "__free_rcu_tasks_trace": ("bpf_mem_cache", "rcu_ttrace|rcu"),
    "reuse_rcu": ("bpf_mem_cache", "reuse_rh"),
    "free_rcu": ("bpf_mem_cache", "free_rh"),
    "dyn_reuse_rcu": ("bpf_reuse_batch", "rcu"),
    "__free_by_rcu": ("bpf_mem_cache", "rcu"),
}


def describe_callback(head, func_name):
    """What an allocator callback stands for: (cache address, text), or
    (None, "") for any other callback."""
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
            return rcu.RunningHead(head, frame.name())
        frame = frame.older()
    return None


def allocator_callbacks():
    """{cache address: ["dyn_reuse_rcu (Tiny RCU, waiting, 48 objects)"...]}"""
    owners = {}

    def note(head, where):
        name, _ = rcu.callback_func(head)
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
        if rcu.has_tiny_rcu():
            _, cbs = rcu.tiny_rcu_callbacks()
            for head, state in cbs:
                note(head, "Tiny RCU, " + state)
            for head in rcu.invoking_now() or []:
                note(head, "Tiny RCU, taken off for invocation")
        for cpu, head, seg in rcu.tasks_trace_callbacks() or []:
            note(head, "RCU Tasks Trace, " + seg)
    except (gdb.error, gdb.GdbError, gdb.MemoryError):
        pass
    return owners


def callback_cache():
    """(function name, struct bpf_mem_cache *) of the innermost allocator
    RCU callback on the stack, found from its rcu_head argument."""
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


class CbCache(gdb.Function):
    """$bpf_ma_cb_cache(): the struct bpf_mem_cache * of the allocator RCU
callback on the stack (what `bpf-ma` without an argument prints)."""

    def __init__(self):
        super().__init__("bpf_ma_cb_cache")

    def invoke(self):
        require_guest()
        return callback_cache()[1]


class Rcu(gdb.Command):
    """List the RCU callbacks waiting in Tiny RCU (and RCU Tasks Trace).

Usage: bpf-ma-rcu

Tiny RCU (UML, !SMP) keeps one list, rcu_ctrlblk.rcucblist: callbacks
before donetail are "done" (their grace period has ended; the next
rcu_process_callbacks() invokes them), the others wait.  When stopped
inside rcu_process_callbacks(), the callbacks it has already taken off
the list and not yet invoked are shown as "invoking".  Allocator
callbacks (dyn_reuse_rcu, reuse_rcu, free_rcu, __free_rcu...) show the
bpf_mem_cache they belong to, and dyn_reuse_rcu its batch size."""

    def __init__(self):
        super().__init__("bpf-ma-rcu", gdb.COMMAND_DATA)

    @staticmethod
    def line(i, head, state):
        name, offset = rcu.callback_func(head)
        if offset is not None:
            what = "kvfree of the object at 0x%x" % (int(head) - offset)
        else:
            _, what = describe_callback(head, name)
        return "  #%-3d 0x%x  %-10s %-24s %s" % (i, int(head), state, name, what)

    def tiny(self):
        blk, cbs = rcu.tiny_rcu_callbacks()
        ndone = sum(1 for _, s in cbs if s == "done")
        print("Tiny RCU: %s queued, %d done (gp_seq %d)" % (
            plural(len(cbs), "callback"), ndone, as_int(blk["gp_seq"])))
        for i, (head, state) in enumerate(cbs):
            print(self.line(i, head, state))
        now = rcu.invoking_now()
        if now:
            print("rcu_process_callbacks() is invoking a batch; not yet invoked:")
            for i, head in enumerate(now):
                print(self.line(i, head, "invoking"))

    def invoke(self, arg, from_tty):
        require_guest()
        if rcu.has_tiny_rcu():
            self.tiny()
        else:
            print("Tiny RCU: not in this kernel (SMP: Tree RCU, whose queues are not read)")
        tt = rcu.tasks_trace_callbacks()
        if tt is None:
            return
        print("RCU Tasks Trace: %s queued" % plural(len(tt), "callback"))
        for i, (cpu, head, seg) in enumerate(tt):
            print(self.line(i, head, seg))


CbCache()
Rcu()
