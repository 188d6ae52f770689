# SPDX-License-Identifier: GPL-2.0
#
# The kernel's own gdb scripts (vmlinux-gdb.py and its linux/ package,
# made by the scripts_gdb target of `make kernel`) for an ARCH=um kernel:
# gdb's auto-load looks for linux-gdb.py next to a binary called linux,
# so source vmlinux-gdb.py ourselves.  The kit's commands use linux.utils
# and linux.cpus; the lx-* commands come with them.

import os
import sys

import gdb

loaded = set()


def kernel_helpers(objfile):
    """The vmlinux-gdb.py of OBJFILE if it is an ARCH=um kernel (a binary
    named linux), else None."""
    if objfile is None or not objfile.filename:
        return None
    path = os.path.realpath(objfile.filename)
    if os.path.basename(path) != "linux":
        return None
    return os.path.join(os.path.dirname(path), "vmlinux-gdb.py")


def load(objfile):
    """Source the lx helpers of OBJFILE; True once they are loaded."""
    helper = kernel_helpers(objfile)
    if helper is None:
        return False
    if helper in loaded:
        return True
    objdir = os.path.dirname(helper)
    if not os.path.exists(helper):
        print("memalloc: no %s: the kit's gdb commands need the kernel's gdb scripts; "
              "build them with: make kernel (its scripts_gdb target)" % helper)
        return False
    gdb.execute("add-auto-load-safe-path %s" % objdir)
    # vmlinux-gdb.py is a link into the source tree and finds its modules
    # relative to its own path, which gdb has resolved: point it at the
    # build directory's scripts/gdb (where constants.py is made).
    if os.path.join(objdir, "scripts/gdb") not in sys.path:
        sys.path.insert(0, os.path.join(objdir, "scripts/gdb"))
    try:
        gdb.execute("source %s" % helper)
    except gdb.error as e:
        print("memalloc: %s: %s" % (helper, e))
        return False
    loaded.add(helper)
    return True
