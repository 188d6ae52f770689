# SPDX-License-Identifier: GPL-2.0
#
# Readers of the RCU callback queues a UML kernel has: Tiny RCU's
# rcu_ctrlblk, the batch rcu_process_callbacks() is invoking, and RCU
# Tasks Trace's per-cpu lists.  They know RCU, not the allocator.

import gdb

from memalloc import percpu
from memalloc.utils import LIST_LIMIT, static_var, symbol_name

# The segments of a struct rcu_segcblist, in order.
RCU_SEG_NAMES = ["done", "wait", "next-ready", "next"]


def has_tiny_rcu():
    """Tiny RCU is !SMP's: UML 6.1 and 6.12; SMP UML (7.2) has Tree RCU."""
    return gdb.lookup_static_symbol("rcu_ctrlblk") is not None


def tiny_rcu_callbacks():
    """(rcu_ctrlblk, [(rcu_head *, "done"|"waiting")]), oldest first.

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
    for cpu in percpu.possible_cpus():
        cbl = percpu.per_cpu_ptr(rtp["rtpcpu"], cpu)["cblist"]
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


class RunningHead:
    """An rcu_head whose callback is running: its function is known from
    the frame, not from ->func (which rcu_reclaim_tiny() cleared)."""

    def __init__(self, head, func):
        self.head = head
        self.func = func

    def __int__(self):
        return int(self.head)


def callback_func(head):
    """The function of a queued rcu_head (or a RunningHead): (name, kvfree
    offset or None)."""
    if isinstance(head, RunningHead):
        return head.func, None
    func = int(head["func"])
    # kvfree_rcu() queues the offset of the rcu_head in the object
    # instead of a function (__is_kvfree_rcu_offset: < 4096).
    if func < 4096:
        return "kvfree", func
    return symbol_name(func), None
