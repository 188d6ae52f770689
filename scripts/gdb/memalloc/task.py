# SPDX-License-Identifier: GPL-2.0
#
# UML's current task: bpf-ma-current and $bpf_ma_current().  The kernel's
# $lx_current() does not work on UML (it knows x86's and arm64's per-cpu
# current_task only), so find it here.

import gdb

from linux import tasks as lx_tasks
from memalloc.utils import as_int, require_guest


def current_cpu():
    """The CPU of gdb's selected thread: SMP UML (7.2) runs each CPU on a
    host thread of its own, which knows its number (__curr_cpu, a thread
    variable); !SMP UML (6.1, 6.12) has cpu 0 only."""
    try:
        return int(gdb.parse_and_eval("__curr_cpu"))
    except gdb.error:
        return 0


def current_task():
    """(task_struct *, how it was found).

    UML 6.1 and 6.12 keep struct thread_info at the bottom of the kernel
    stack and current is current_thread_info()->task, from the stack
    pointer.  Every kernel thread runs on the one host process, so $sp
    of that process tells.  On a signal stack (or outside any task's
    stack) fall back to cpu_tasks[cpu], which UML's __switch_to() sets: a
    struct holding .task on 6.1 and 6.12, current itself on 7.2 (whose
    thread_info is in the task, THREAD_INFO_IN_TASK: no stack to read)."""
    try:
        ti_t = gdb.lookup_type("struct thread_info").pointer()
        size = gdb.lookup_type("union thread_union").sizeof     # THREAD_SIZE
        sp = int(gdb.parse_and_eval("$sp"))
        ti = gdb.Value(sp & ~(size - 1)).cast(ti_t)
        task = ti["task"]
        if int(task) and int(task["stack"]) == int(ti):
            return task, "stack"
    except (gdb.error, gdb.MemoryError):
        pass
    cpu = current_cpu()
    ct = gdb.parse_and_eval("cpu_tasks[%d]" % cpu)
    if ct.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
        return ct, "cpu_tasks[%d]" % cpu
    return ct["task"], "cpu_tasks[%d]" % cpu


class CurrentFunction(gdb.Function):
    """$bpf_ma_current(): the current task_struct * (for UML, where
$lx_current() does not work)."""

    def __init__(self):
        super().__init__("bpf_ma_current")

    def invoke(self):
        require_guest()
        return current_task()[0]


class Current(gdb.Command):
    """Print the task the kernel is running: pid, comm, context.

Usage: bpf-ma-current"""

    def __init__(self):
        super().__init__("bpf-ma-current", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        require_guest()
        task, how = current_task()
        line = "current: pid %d comm \"%s\" (struct task_struct *) 0x%x, found from %s" % (
            as_int(task["pid"]), task["comm"].string(), int(task),
            "the stack pointer" if how == "stack" else how)
        try:
            # The host process whose address space is in use (a kernel
            # thread keeps the last one); 7.2's cpu_tasks[] holds no pid.
            ct = gdb.parse_and_eval("cpu_tasks[0]")
            if ct.type.strip_typedefs().code == gdb.TYPE_CODE_STRUCT:
                line += "; host pid in cpu_tasks[0]: %d" % as_int(ct["pid"])
        except gdb.error:
            pass
        print(line)
        try:
            pc = as_int(lx_tasks.get_thread_info(task.dereference())["preempt_count"])
            ctx = [name for name, mask in (("nmi", 0xf00000), ("hardirq", 0xf0000),
                                          ("softirq", 0xff00)) if pc & mask]
            print("preempt_count 0x%x (%s)" % (pc, ", ".join(ctx) or "task context"))
        except (gdb.error, gdb.MemoryError):
            pass


CurrentFunction()
Current()
