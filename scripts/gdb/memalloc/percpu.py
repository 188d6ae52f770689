# SPDX-License-Identifier: GPL-2.0
#
# Per-cpu data, through linux.cpus (UML 6.1 and 6.12 are !SMP: it reads
# cpu 0 with offset 0 there).

import gdb

from linux import cpus as lx_cpus


def possible_cpus():
    """The CPUs that have per-cpu data (__cpu_possible_mask)."""
    return list(lx_cpus.each_possible_cpu())


def per_cpu_ptr(ptr, cpu):
    """per_cpu_ptr(PTR, CPU).  linux.cpus.per_cpu() returns the object on
    6.1 and 6.12 and a pointer to it on 7.2: return the pointer either way."""
    val = lx_cpus.per_cpu(ptr, cpu)
    if val.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
        return val
    return val.address
