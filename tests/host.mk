# SPDX-License-Identifier: GPL-2.0
#
# The kit's own C built for the host, for tests/sanitizers.sh: once with
# ASan and UBSan, once plain for Valgrind (memcheck).  Static binaries
# cannot carry ASan, so these link libbpf, libelf and jansson dynamically.
# Covered: the selftest programs that judge nothing but the bpf() API
# (htab_syscall, htab_xdp, with tools/lib), and bench-report.

H := $(BUILD)/host
HOST_SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
HOST_CFLAGS := -O1 -g -Wall -Wextra -Wno-unused-parameter -Itools/lib -I$(R)/gen
HOST_SELFTESTS := htab_syscall htab_xdp
HOST_LIB_SRCS := $(wildcard tools/lib/*.c)
HOST_BINS := $(foreach k,asan plain,$(patsubst %,$(H)/$(k)/%,$(HOST_SELFTESTS) bench-report))

$(H)/asan/%: tools/selftests/%.c $(HOST_LIB_SRCS) $(wildcard tools/lib/*.h) $(SKELETONS)
	@mkdir -p $(@D)
	@echo "  HOSTCC  $@"
	@$(CC) $(HOST_CFLAGS) $(HOST_SANITIZE) $< $(HOST_LIB_SRCS) -o $@ -lbpf -lelf -lz

$(H)/plain/%: tools/selftests/%.c $(HOST_LIB_SRCS) $(wildcard tools/lib/*.h) $(SKELETONS)
	@mkdir -p $(@D)
	@echo "  HOSTCC  $@"
	@$(CC) $(HOST_CFLAGS) $< $(HOST_LIB_SRCS) -o $@ -lbpf -lelf -lz

# Its sources: tools/bench/bench.mk.
$(H)/asan/bench-report: $(BENCH_REPORT_SRCS) $(BENCH_REPORT_HDRS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  HOSTCC  $@"
	@$(CC) $(HOST_CFLAGS) $(HOST_SANITIZE) -Itools/bench $(BENCH_REPORT_SRCS) -o $@ -ljansson -lm

$(H)/plain/bench-report: $(BENCH_REPORT_SRCS) $(BENCH_REPORT_HDRS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  HOSTCC  $@"
	@$(CC) $(HOST_CFLAGS) -Itools/bench $(BENCH_REPORT_SRCS) -o $@ -ljansson -lm

# The judge (JUDGE, JUDGE_ASAN) is built by tools/report/report.mk.

# make's check of a T= filter against an image's suites, in the grammar
# of tools/lib/filter.c, the one init and the suites use.
CHECK_FILTER := $(H)/check-filter
$(CHECK_FILTER): tools/report/check-filter.c tools/lib/filter.c tools/lib/filter.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  HOSTCC  $@"
	@$(CC) -O2 -g -Wall -Wextra -Itools/lib $< tools/lib/filter.c -o $@

.PHONY: host-bins
host-bins: $(HOST_BINS) $(JUDGE) $(JUDGE_ASAN) $(CHECK_FILTER) $(BENCH_REPORT)
