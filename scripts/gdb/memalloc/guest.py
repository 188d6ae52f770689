# SPDX-License-Identifier: GPL-2.0
#
# The guest as gdb's inferior: breakpoints on the functions a kernel has
# (bpf-ma-break), and killing UML's whole process group (bpf-ma-kill) for
# gdb's `kill` and `run`, while gdb goes on.  When gdb itself ends, its
# launcher (uml/run --gdb) kills what is left of the guest, as for any
# run; so does the kernel itself when gdb kills it (a traced process dies
# with gdb, PTRACE_O_EXITKILL, and takes its guest's processes along).

import os
import signal

import gdb


class Break(gdb.Command):
    """Break on every named function this kernel has.

Usage: bpf-ma-break FUNC[,FUNC...] [FUNC...]

The variants differ (make print-break shows a variant's defaults, from
kernel/patches/<variant>/break).  Functions the kernel lacks are named
and skipped; it is an error if none exists."""

    def __init__(self):
        super().__init__("bpf-ma-break", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        names = arg.replace(",", " ").split()
        if not names:
            raise gdb.GdbError("usage: bpf-ma-break FUNC...")
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
            gdb.execute("set breakpoint pending %s" %
                        {True: "on", False: "off", None: "auto"}[pending])
        if missing:
            print("bpf-ma-break: not in this kernel: %s" % " ".join(missing))
        if not present:
            raise gdb.GdbError("bpf-ma-break: none of %s is a function of this kernel"
                               % " ".join(names))


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


class Kill(gdb.Command):
    """Kill the guest: SIGKILL to UML's whole process group.

Usage: bpf-ma-kill

`kill` and `run` run this first (kit.gdb's hooks).  When gdb exits,
uml/run --gdb kills what is left (an attached guest is detached)."""

    def __init__(self):
        super().__init__("bpf-ma-kill", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        kill_guest(gdb.selected_inferior())


Break()
Kill()
