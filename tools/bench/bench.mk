# SPDX-License-Identifier: GPL-2.0
#
# tools/bench: the benchmarks.  The guest program (tools/bench/*.c, the
# BPF programs tools/progs/bench_*.bpf.c as skeletons) goes into the root
# image as /usr/lib/kit/bench/bench, which init runs instead of the
# selftests with kit.run=bench.  The host side (tools/bench/host/
# bench-report, scripts/bench) boots each variant's kernel, interleaving
# variants round by round, and writes results/<date>/.

# Variants of BASE to compare, the first being the baseline of the
# ratios; 'all' is every known variant, vanilla first.  Each in FLAVOR, or
# in the base and flavor it names as TEST_RUNS do, VARIANT[@BASE][:FLAVOR]:
# VARIANTS='vanilla vanilla:preempt', VARIANTS='vanilla vanilla@6.12 vanilla@6.12:preempt'.
# Each entry is checked before anything is built, by the Makefile's
# resolver (make -s identity, as scripts/bench asks it).
VARIANTS ?= vanilla reuse-after-gp
BENCH_VARIANTS := $(if $(filter all,$(VARIANTS)),vanilla $(filter-out vanilla,$(KNOWN_VARIANTS)),$(VARIANTS))
ifneq ($(filter bench,$(MAKECMDGOALS)),)
BENCH_BAD_ENTRY := $(shell for v in $(BENCH_VARIANTS); do \
	out=$$($(MAKE) -s --no-print-directory identity SPEC="$$v" BASE=$(BASE) FLAVOR=$(FLAVOR) 2>&1 >/dev/null) || \
	{ printf '%s' "$$v: $$out" | sed 's/[^ ]*:[0-9]*: \*\*\* //; s/\.  Stop\.$$//'; break; }; done)
ifneq ($(BENCH_BAD_ENTRY),)
$(error VARIANTS entry $(BENCH_BAD_ENTRY), or VARIANTS=all (make variants))
endif
endif
# Benchmarks: comma-separated globs of their names (make bench-list).
BENCH ?= all
# Options of the bench program, e.g. "-w 1 -d 5" (warm-up, duration).
BENCH_ARGS ?=
# Boots per variant, interleaved: A B A B.
BENCH_ROUNDS ?= 2
# Guest memory: upstream's figures reach hundreds of MiB.
BENCH_MEM ?= 256M
BENCH_OUT ?= results

BENCH_BIN := $(R)/bench/bench
BENCH_REPORT := $(BUILD)/bench/bench-report
BENCH_SRCS := $(wildcard tools/bench/*.c)

$(BENCH_BIN): $(BENCH_SRCS) $(wildcard tools/bench/*.h) $(GUEST_LIB) $(wildcard tools/lib/*.h) $(SKELETONS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(GUEST_CFLAGS) -Itools/bench $(BENCH_SRCS) $(GUEST_LIB) -o $@ \
		$(GUEST_LDLIBS) -ljansson -lpthread -lm

# The host tool shares the statistics (stats.c) with the guest program.
BENCH_REPORT_SRCS := $(wildcard tools/bench/host/*.c) tools/bench/stats.c
BENCH_REPORT_HDRS := $(wildcard tools/bench/host/*.h) tools/bench/stats.h

$(BENCH_REPORT): $(BENCH_REPORT_SRCS) $(BENCH_REPORT_HDRS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  HOSTCC  $@"
	@$(CC) -O2 -g -Wall -Wextra -Wno-unused-parameter -Itools/bench $(BENCH_REPORT_SRCS) -o $@ -ljansson -lm

IMAGE_DIRS += usr/lib/kit/bench="$(BENCH_BIN)"
IMAGE_BINS += $(BENCH_BIN)

.PHONY: bench bench-list bench-help bench-help-targets bench-help-variables

# Kernels are not built here: scripts/bench names the command when one is missing.
bench: $(IMAGE) $(BENCH_BIN) $(BENCH_REPORT)
	scripts/bench --variants '$(BENCH_VARIANTS)' --base '$(BASE)' --flavor '$(FLAVOR)' \
		--bench '$(BENCH)' --args '$(BENCH_ARGS)' \
		--rounds '$(BENCH_ROUNDS)' --mem '$(BENCH_MEM)' --out '$(BENCH_OUT)'

bench-list: $(BENCH_BIN)
	@$(BENCH_BIN) --help

# make help's lines: its targets, then its variables.
bench-help: bench-help-targets bench-help-variables
bench-help-targets:
	@echo '  bench        boot each of VARIANTS BENCH_ROUNDS times (interleaved), run the benchmarks'
	@echo '               (tools/bench), write $(BENCH_OUT)/<date>/: JSON, tables as the patch threads print them, chart'
	@echo '  bench-list   the benchmarks and the options of the bench program'
bench-help-variables:
	@echo '  VARIANTS="$(VARIANTS)"  variants of BASE make bench compares (the first is the baseline), or all;'
	@echo '               each in FLAVOR, or VARIANT[@BASE][:FLAVOR] (VARIANTS="base vanilla@6.12 vanilla@6.12:preempt")'
	@echo '  BENCH=$(BENCH)  BENCH_ARGS="$(BENCH_ARGS)"  BENCH_ROUNDS=$(BENCH_ROUNDS)  BENCH_MEM=$(BENCH_MEM)'
	@echo '               workloads (globs), bench options (e.g. "-w 1 -d 5"), boots per variant, guest memory'

# tests/bench.sh checks the host tool and the guest program: build them first.
test test-matrix test-host: $(BENCH_REPORT) $(BENCH_BIN)
