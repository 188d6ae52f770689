/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configuration memalloc.c is compiled with (read by the tree's own
 * include/linux/kconfig.h).  FAULT_INJECTION and DEBUG_FS are on so that
 * the tests can drive a variant's fault-injection knobs and read its
 * debugfs counters through the shim's registry; MEMCG is off, so the
 * allocator charges nobody; PREEMPT_RT is off.
 */
#define CONFIG_SMP 1
#define CONFIG_NR_CPUS 64
#define CONFIG_64BIT 1
#define CONFIG_FAULT_INJECTION 1
#define CONFIG_FAULT_INJECTION_DEBUG_FS 1
#define CONFIG_DEBUG_FS 1
#define CONFIG_BPF_SYSCALL 1
