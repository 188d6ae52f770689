# SPDX-License-Identifier: GPL-2.0
#
# gdb set-up for an ARCH=um kernel of memalloc-uml, then the kit's
# commands (the memalloc package next to this file: bpf-ma, bpf-ma-map,
# bpf-ma-rcu, bpf-ma-current, bpf-ma-break, bpf-ma-kill, $bpf_ma_cb_cache(),
# $bpf_ma_current()).  `make gdb` and `make attach` load it; by hand,
# from the top of the kit:
#
#   gdb -x scripts/gdb/kit.gdb --args build/vanilla-default@6.1/linux \
#       ubd0=/tmp/x.cow,rootfs.img kit.t=reuse
#
# (always boot through a copy-on-write file: ubd0=COW,IMAGE).

set pagination off
set confirm off

# UML takes its own page faults (vmalloc area, copy_from_user) as SIGSEGV
# and uses SIGUSR1 internally: normal, pass them on silently.  SIGALRM,
# SIGIO, SIGVTALRM, SIGWINCH and SIGCHLD are silent by default.
handle SIGSEGV nostop noprint pass
handle SIGUSR1 nostop noprint pass
# SMP UML (7.2) sends its inter-processor interrupts as SIGRTMIN (IPI_SIGNAL,
# which gdb calls SIG34) between the CPUs' host threads.
handle SIG34 nostop noprint pass

# Every guest address space is a host process forked by the kernel
# process: gdb stays with the kernel and says nothing about each fork.
set follow-fork-mode parent
set detach-on-fork on
set print inferior-events off

# A panic stops here instead of ending the session.
break panic

# The memalloc package sits next to this file.  gdb cannot tell a sourced
# script its own path, so: $KIT_GDB_DIR (set by uml/run --gdb and
# attach), else scripts/gdb under the current directory, else that of the
# kit that holds the kernel binary (build/src/<tree>/.build-<flavor>/linux,
# or a kernel of a kit linked there).  The package
# loads the kernel's own gdb scripts (vmlinux-gdb.py of the build
# directory) and registers its commands once the kernel binary is loaded.
python
import os
import sys
import gdb

def _kit_gdb_dir():
    candidates = [os.environ.get("KIT_GDB_DIR", ""), os.path.join(os.getcwd(), "scripts/gdb")]
    prog = gdb.current_progspace().filename
    d = os.path.dirname(os.path.realpath(prog)) if prog else "/"
    while d != "/":
        candidates.append(os.path.join(d, "scripts/gdb"))
        d = os.path.dirname(d)
    for d in candidates:
        if d and os.path.exists(os.path.join(d, "memalloc", "__init__.py")):
            return os.path.realpath(d)
    raise gdb.GdbError("kit.gdb: cannot find the memalloc package; set KIT_GDB_DIR=<kit>/scripts/gdb")

if _kit_gdb_dir() not in sys.path:
    sys.path.insert(0, _kit_gdb_dir())
# A run writes nothing into the kit's sources (no __pycache__ there).
sys.dont_write_bytecode = True
import memalloc
end

# `kill` (and `run` again) would kill only the kernel process and leave
# the guest's processes running natively on the host: kill the group.
define hook-kill
bpf-ma-kill
end
define hook-run
bpf-ma-kill
end
