/* SPDX-License-Identifier: GPL-2.0 */
/* A loop that the verifier bounds at run time, for the kit's BPF programs. */
#ifndef KIT_LOOP_H
#define KIT_LOOP_H

/*
 * "while (kit_can_loop)": a loop the verifier bounds at run time
 * (may_goto, BPF_JMP | BPF_JCOND with src_reg BPF_MAY_GOTO: at most
 * BPF_MAX_LOOPS, 8M, taken per program run) instead of unrolling it,
 * so one program run can last long enough to span another CPU's
 * syscalls.  Without a JIT (every flavor but 7.2's jit) ARCH=um has
 * neither bpf_loop() (a callback) nor the open-coded iterators
 * (kfuncs); 6.1's and 6.12's verifiers do not know may_goto either.
 * clang 14 has no may_goto mnemonic, so the instruction is emitted as data; its BPF assembler
 * places a 2-byte data fixup off its field, so the 16-bit jump offset
 * is written as the low half of a 4-byte one.
 */
#define kit_can_loop							\
	({								\
		__label__ l_stop, l_go;					\
		int go = 1;						\
		asm volatile goto("1: .byte 0xe5, 0\n\t"		\
				  ".long ((%l[l_stop] - 1b - 8) / 8) & 0xffff\n\t" \
				  ".short 0"				\
				  :::: l_stop);				\
		goto l_go;						\
l_stop:	go = 0;								\
l_go:	go;								\
	})

#endif /* KIT_LOOP_H */
