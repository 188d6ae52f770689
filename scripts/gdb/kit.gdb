# SPDX-License-Identifier: GPL-2.0
#
# gdb set-up for an ARCH=um kernel of memalloc-uml, then the kit's
# commands (memalloc.py: bpf-ma, bpf-ma-map, rcu-tiny-cbs, kit-current,
# $kit_current(), kit-break, kit-kill).  `make gdb` and `make attach` load
# it; by hand, from the top of the kit:
#
#   gdb -x scripts/gdb/kit.gdb --args build/base-default/linux \
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

# Every guest address space is a host process forked by the kernel
# process: gdb stays with the kernel and says nothing about each fork.
set follow-fork-mode parent
set detach-on-fork on
set print inferior-events off

# A panic stops here instead of ending the session.
break panic

# memalloc.py sits next to this file.  gdb cannot tell a sourced script
# its own path, so: $KIT_GDB_DIR (set by scripts/gdb/boot and attach),
# else scripts/gdb under the current directory, else the kit that holds
# the kernel binary (build/<variant>-<flavor>/linux).
python
import os
import gdb

def _kit_gdb_dir():
    candidates = [os.environ.get("KIT_GDB_DIR", ""), os.path.join(os.getcwd(), "scripts/gdb")]
    prog = gdb.current_progspace().filename
    if prog:
        candidates.append(os.path.join(os.path.dirname(os.path.realpath(prog)), "../../scripts/gdb"))
    for d in candidates:
        if d and os.path.exists(os.path.join(d, "memalloc.py")):
            return os.path.realpath(d)
    raise gdb.GdbError("kit.gdb: cannot find memalloc.py; set KIT_GDB_DIR=<kit>/scripts/gdb")

# memalloc.py also sources the lx-* helpers (vmlinux-gdb.py of the
# kernel's build directory) and adds that directory to the auto-load
# safe path.
gdb.execute("source %s/memalloc.py" % _kit_gdb_dir())
end

# `kill` (and `run` again) would kill only the kernel process and leave
# the guest's processes running natively on the host: kill the group.
define hook-kill
kit-kill
end
define hook-run
kit-kill
end
