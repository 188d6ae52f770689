# SPDX-License-Identifier: GPL-2.0
#
# tools/uspace: each variant's kernel/bpf/memalloc.c, compiled in place
# from its patched tree (build/src/<variant>@<base>) against the shim in
# tools/uspace, run by memalloc_test with one thread per "CPU", built
# three ways: ASan+UBSan, TSan, and plain for Valgrind memcheck.
#
#   make uspace-test     every variant x {asan, tsan, valgrind}, full size
#   make uspace-quick    the same at USPACE_QUICK_SCALE (make test: uspace-test-quick)
#   make uspace-bench    peak memory of add_del_on_diff_cpu per variant (plain -O2)

# Variants to run: every variant of the base (kernel/patches/<base>/*/series).
USPACE_VARIANTS ?= $(KNOWN_VARIANTS)
USPACE_TOOLS ?= asan tsan valgrind
# CPUs (threads) of the model; add_del_on_diff_cpu pairs them up.
USPACE_CPUS ?= 4
# Percent of the full iteration counts for make uspace-quick.
USPACE_QUICK_SCALE ?= 10
# Iterations of 64 operations per producer for uspace-bench.
USPACE_BENCH_ITERS ?= 20000

# Each base its own binaries and results (BASE_TAG: "@6.1", "@6.12", ...).
US := $(BUILD)/uspace$(BASE_TAG)
US_DIR := tools/uspace
US_SHIM := $(US_DIR)/shim.c $(US_DIR)/rcu.c $(US_DIR)/debugfs.c
US_DEPS := $(US_SHIM) $(US_DIR)/memalloc_test.c $(wildcard $(US_DIR)/include/*.h \
	$(US_DIR)/include/*/*.h) tools/lib/ktap.c tools/lib/ktap.h tools/lib/filter.c tools/lib/filter.h $(US_DIR)/uspace.mk
# The kernel builds with -Wno-maybe-uninitialized too; TSan ignores fences
# (-Wtsan), which is why atomic_dec() is a release (uspace.h).
US_WARN := -Wall -Wno-unused-parameter -Wno-unused-function -Wno-maybe-uninitialized
US_CFLAGS_asan := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
US_CFLAGS_tsan := -O1 -g -fsanitize=thread -Wno-tsan
US_CFLAGS_valgrind := -O1 -g
US_CFLAGS_bench := -O2 -g
US_LIBS := -lurcu-memb -lurcu-mb -lurcu-common -lpthread

# A test-only mutant (tests/uspace.sh): US_INJECT=WHAT:CASE-GLOB builds the
# binaries with a fault injected at the start of those cases (leak, warn,
# invalid_read: memalloc_test.c, inject()).  Only with US= elsewhere, so
# that no mutant takes the place of the kit's own binaries.
US_INJECT ?=
# own_build_dir VAR: a test-only fault VAR set with the kit's own US is an error.
own_build_dir = $(if $(and $($(1)),$(filter $(BUILD)/uspace$(BASE_TAG),$(US))),\
	$(error $(1) needs a build directory of its own: US=DIR))
$(call own_build_dir,US_INJECT)

# us_src VARIANT: the variant's patched tree (made by $(MAKE) VARIANT=v uspace-src)
us_src = $(call variant_src,$(1))
# The tree's own memalloc.c, llist.c, llist.h, bpf_mem_alloc.h and
# kconfig.h; everything else from tools/uspace/include, which comes first.
us_cc = $(CC) $(US_WARN) $(US_CFLAGS_$(2)) -I$(US_DIR)/include -Itools/lib \
	-idirafter $(call us_src,$(1))/include -include $(call us_src,$(1))/include/linux/kconfig.h \
	$(if $(US_INJECT),-DUSPACE_INJECT='"$(US_INJECT)"')

US_BINS := $(foreach v,$(USPACE_VARIANTS),$(foreach k,$(USPACE_TOOLS) bench,$(US)/$(v)/$(k)/memalloc_test))

define us_bin_rule
$(US)/$(1)/$(2)/memalloc_test: $(call us_src,$(1))/kernel/bpf/memalloc.c $(US_DEPS)
	@mkdir -p $$(@D)
	@echo "  USPACE  $$@"
	@if grep -qs rcu_trace_implies_rcu_gp $(call us_src,$(1))/include/linux/rcupdate.h; then \
		implies=; else implies=-DUSPACE_TRACE_GP_IMPLIES_RCU_GP; fi; \
	$(call us_cc,$(1),$(2)) $$$$implies $(call us_src,$(1))/kernel/bpf/memalloc.c \
		$(call us_src,$(1))/lib/llist.c $(US_SHIM) $(US_DIR)/memalloc_test.c \
		tools/lib/ktap.c tools/lib/filter.c -o $$@ $(US_LIBS)
endef
$(foreach v,$(USPACE_VARIANTS),$(foreach k,$(USPACE_TOOLS) bench,$(eval $(call us_bin_rule,$(v),$(k)))))

.PHONY: uspace-src uspace-trees uspace-bins uspace-test uspace-quick uspace-bench uspace-help

# The patched tree of $(VARIANT) only (no kernel build): a mutant's holds
# what user space compiles and no more (USRC_STAMP); make test builds
# every other variant's kernel from its tree anyway.
uspace-src: $(if $(filter mutant-%,$(VARIANT)),$(USRC_STAMP),$(SRC_STAMP))

# Every variant's tree, through its own make (SRC_STAMP is per VARIANT).
uspace-trees: | $(DEPS_STAMP)
	@for v in $(USPACE_VARIANTS); do $(MAKE) -s --no-print-directory VARIANT=$$v uspace-src || exit 1; done

uspace-bins: uspace-trees
	@$(MAKE) -s --no-print-directory $(US_BINS)

# One run per build directory at a time: two would write the same logs
# and results (make test beside a make uspace-test in another terminal).
US_LOCK = scripts/with-lock $(US).lock
US_RUN = $(US_LOCK) $(US_DIR)/run --build $(US) --src '$(BUILD)/src' --tag '$(BASE_TAG)' --base $(BASE) --cpus $(USPACE_CPUS) \
	--variants '$(USPACE_VARIANTS)' --tools '$(USPACE_TOOLS)'

uspace-test: uspace-bins $(JUDGE)
	@$(US_RUN) --scale 100

uspace-quick: uspace-bins $(JUDGE)
	@$(US_RUN) --scale $(USPACE_QUICK_SCALE)

uspace-bench: uspace-bins
	@$(US_LOCK) $(US_DIR)/bench --build $(US) --cpus $(USPACE_CPUS) --iters $(USPACE_BENCH_ITERS) \
		--variants '$(USPACE_VARIANTS)'

uspace-help:
	@echo '  uspace-test  each variant'"'"'s memalloc.c in user space (tools/uspace): N threads, ASan+UBSan, TSan, Valgrind'
	@echo '  uspace-quick the same, smaller (part of make test: uspace-test-quick); uspace-bench: diff-CPU peak memory'
	@echo '  uspace-fuzz  explore interleavings of VARIANT'"'"'s memalloc.c on simulated CPUs (FUZZ_RUNS= executions, libFuzzer)'
	@echo '  uspace-replay replay one explorer input with a trace (FILE=); uspace-explore-test: corpus + EXPLORE_TEST_RUNS of a new seed (EXPLORE_SEED=n repeats one)'

# make test's share (tests/run-all): the quick size on the variants make
# test builds anyway, whose trees are unpacked; make uspace-test runs every
# variant (unpacking each tree takes a minute or two on a fresh machine).
# TEST_RUNS names VARIANT@BASE:FLAVOR: the variants of those of this BASE,
# as the resolver reads each (make -s identity).
USPACE_TEST_VARIANTS ?= $(sort $(shell for r in $(TEST_RUNS); do \
	$(MAKE) -s --no-print-directory identity SPEC="$$r" | \
	awk -F= '$$1 == "base" { b = $$2 } $$1 == "variant" { v = $$2 } END { if (b == "$(BASE)") print v }'; done))

.PHONY: uspace-test-quick
uspace-test-quick:
	+@$(MAKE) -s --no-print-directory uspace-quick USPACE_VARIANTS='$(USPACE_TEST_VARIANTS)'

# --- the interleaving explorer (tools/uspace/explore) --------------------
#
# The variant's memalloc.c on simulated CPUs under a deterministic
# scheduler (explore/sched.c), its schedule read from a libFuzzer input
# (explore/explore.c), built with Debian's clang and libFuzzer, ASan and
# UBSan: build/uspace[@BASE]/<variant>/explore/explore.
#
#   make uspace-fuzz VARIANT=v [BASE=b] [FUZZ_RUNS=n]   explore n executions from the corpus
#   make uspace-replay VARIANT=v FILE=input             replay one input with a trace
#   make uspace-minimize VARIANT=v FILE=input           shrink a failing input (FILE.min)
#   make uspace-pct VARIANT=v [FILE=input] [PCT_DEPTH=3 PCT_RUNS=100 PCT_SEED=1]
#                                                       PCT schedules of each input (default: the corpus)
#   make uspace-replay VARIANT=v FILE=input PCT='depth=D seed=S steps=K'   one PCT schedule
#   make uspace-explore-test [EXPLORE_SEED=n]           corpus + EXPLORE_TEST_RUNS + EXPLORE_TEST_PCT_RUNS per variant

EXPLORE_CC ?= clang
FUZZ_RUNS ?= 20000
FUZZ_SEED ?= 1
FUZZ_MAX_LEN ?= 256
# FUZZ_SEEDS=no: start from nothing instead of tools/uspace/corpus
FUZZ_SEEDS ?= yes
EXPLORE_TEST_RUNS ?= 1000
# PCT (EXPLORE_PCT, explore.c): schedules of each input, depth, first seed
PCT_RUNS ?= 100
PCT_DEPTH ?= 3
PCT_SEED ?= 1
# uspace-replay/uspace-minimize of one PCT schedule: PCT='depth=D seed=S steps=K'
PCT ?=
EXPLORE_TEST_PCT_RUNS ?= 30
# uspace-explore-test's seed: libFuzzer's -seed of its executions and the
# first of its PCT schedules.  Unset, a new one each run, so that make
# test's runs add up to more than one run's interleavings; the run prints
# it (its KTAP, $(EXPLORE_RESULTS)/seed) with the command that repeats it:
# EXPLORE_SEED=N gives the same executions again.  The corpus replay
# needs none (each input once, a run a function of its input).
EXPLORE_SEED ?=
# Where the variants' patched trees are (<variant>[@base] under it): the
# kit's own by default, prepared on demand; another kit's prepared trees
# (EXPLORE_SRC=/path/build/src) are only read, never prepared or written.
EXPLORE_SRC ?= $(BUILD)/src
# A test-only fault (tests/uspace.sh): EXPLORE_INJECT=rcu_free_at_once makes
# the workload's rcu frees plain ones, which rcu-reuse must catch.  Only
# with US= elsewhere, like US_INJECT.
EXPLORE_INJECT ?=
$(call own_build_dir,EXPLORE_INJECT)
EXPLORE_DIR := $(US_DIR)/explore
EXPLORE_CORPUS := $(US_DIR)/corpus
EXPLORE_DEPS := $(EXPLORE_DIR)/explore.c $(EXPLORE_DIR)/sched.c $(EXPLORE_DIR)/hb.c $(EXPLORE_DIR)/lists.c \
	$(US_DIR)/debugfs.c \
	$(EXPLORE_DIR)/explore.h $(wildcard $(US_DIR)/include/*.h $(US_DIR)/include/*/*.h) $(US_DIR)/uspace.mk
EXPLORE_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer -DUSPACE_EXPLORE $(US_WARN) -Wno-unknown-warning-option -Wno-gnu-variable-sized-type-not-at-end
# The definition of struct bpf_mem_cache in the memalloc.c $(1), for a recipe's shell
ex_cache = awk '/^struct bpf_mem_cache \{/,/^\};/' $(1)
# Its struct llist_head members, as X(name)
ex_lists = $$($(call ex_cache,$(1)) | sed -n 's/^[[:space:]]*struct llist_head \([a-z_0-9]*\);.*/X(\1)/p' | tr '\n' ' ')
# -DEXPLORE_RELEASE when the cache has reuse_ready and free_rcu_in_progress
# (6.1's reuse-after-gp): lists.c's invariant release
ex_release = $$(test "$$($(call ex_cache,$(1)) | \
	grep -cE '(struct llist_head reuse_ready|atomic_t free_rcu_in_progress);')" = 2 && echo -DEXPLORE_RELEASE)
# What the tree's rcu_trace_implies_rcu_gp() returns (7.2 dropped it: its grace period implies one)
ex_implies = $$(grep -qs 'rcu_trace_implies_rcu_gp(void) { return false; }' $(1)/include/linux/rcupdate.h && echo 0 || echo 1)

# lists.c (which includes memalloc.c) alone reports its loads and stores
# to hb.c (-fsanitize-coverage=trace-loads,trace-stores): the accesses
# whose order the happens-before check judges.  hb.c itself is no
# target of libFuzzer's: its comparisons, called on every such access,
# would only slow the search down.
$(US)/%/explore/explore: $(EXPLORE_SRC)/%$(BASE_TAG)/kernel/bpf/memalloc.c $(EXPLORE_DEPS)
	@mkdir -p $(@D)
	@echo "  EXPLORE $@"
	@src=$(EXPLORE_SRC)/$*$(BASE_TAG); \
	flags="$(EXPLORE_CFLAGS) -I$(US_DIR)/include -I$(EXPLORE_DIR) -idirafter $$src/include \
		-include $$src/include/linux/kconfig.h \
		-DUSPACE_TRACE_IMPLIES_RCU_GP=$(call ex_implies,$$src) \
		$(if $(EXPLORE_INJECT),-DEXPLORE_INJECT_$(EXPLORE_INJECT)) \
		-DEXPLORE_FREE_RCU=$$(grep -qs '^void .*bpf_mem_cache_free_rcu(struct' $$src/kernel/bpf/memalloc.c && echo 1 || echo 0) \
		-DEXPLORE_DTOR=$$(grep -qs '^void bpf_mem_alloc_set_dtor(struct' $$src/kernel/bpf/memalloc.c && echo 1 || echo 0)"; \
	$(EXPLORE_CC) $$flags -fsanitize-coverage=trace-loads,trace-stores \
		-DMEMALLOC_C="\"$$(cd $$src && pwd)/kernel/bpf/memalloc.c\"" \
		-DEXPLORE_LISTS="$(call ex_lists,$$src/kernel/bpf/memalloc.c)" \
		$(call ex_release,$$src/kernel/bpf/memalloc.c) \
		-c $(EXPLORE_DIR)/lists.c -o $@.lists.o && \
	$(EXPLORE_CC) $$flags -fno-sanitize=fuzzer -c $(EXPLORE_DIR)/hb.c -o $@.hb.o && \
	$(EXPLORE_CC) $$flags $(EXPLORE_DIR)/explore.c $(EXPLORE_DIR)/sched.c $@.hb.o \
		$@.lists.o $(US_DIR)/debugfs.c $$src/lib/llist.c -o $@ && rm -f $@.lists.o $@.hb.o

# What reaches an explorer again, the start of the replay commands a
# failure prints (explore/run --make)
EXPLORE_MAKE = $(strip make BASE=$(BASE) $(if $(filter-out $(BUILD)/src,$(EXPLORE_SRC)),EXPLORE_SRC=$(EXPLORE_SRC)) \
	$(if $(filter-out $(US_DIR)/corpus,$(EXPLORE_CORPUS)),EXPLORE_CORPUS=$(EXPLORE_CORPUS)))
EXPLORE_RUN = $(EXPLORE_DIR)/run --bin $(US)/$(VARIANT)/explore/explore --variant $(VARIANT) \
	--src '$(EXPLORE_SRC)' --tag '$(BASE_TAG)' --base $(BASE) --corpus $(EXPLORE_CORPUS) --judge $(JUDGE) \
	--make '$(EXPLORE_MAKE)'

.PHONY: uspace-fuzz uspace-replay uspace-minimize uspace-explore-test uspace-explore-bin uspace-pct

uspace-explore-bin: $(if $(filter $(BUILD)/src,$(EXPLORE_SRC)),uspace-src) $(JUDGE)
	@[ -f $(EXPLORE_SRC)/$(VARIANT)$(BASE_TAG)/kernel/bpf/memalloc.c ] || { echo "make uspace-explore-bin: no $(EXPLORE_SRC)/$(VARIANT)$(BASE_TAG)/kernel/bpf/memalloc.c; prepare it there (make VARIANT=$(VARIANT) BASE=$(BASE) uspace-src in that kit) or leave EXPLORE_SRC unset" >&2; exit 2; }
	@$(MAKE) -s --no-print-directory $(US)/$(VARIANT)/explore/explore

uspace-fuzz: uspace-explore-bin
	@$(EXPLORE_RUN) fuzz --runs $(FUZZ_RUNS) --seed $(FUZZ_SEED) --max-len $(FUZZ_MAX_LEN) \
		$(if $(filter no,$(FUZZ_SEEDS)),--no-seeds)

uspace-pct: uspace-explore-bin
	@$(EXPLORE_RUN) pct --depth $(PCT_DEPTH) --runs $(PCT_RUNS) --seed $(PCT_SEED) $(FILE)

uspace-replay: uspace-explore-bin
	@[ -n "$(FILE)" ] || { echo "make uspace-replay: FILE=input (a crash-* or corpus file)" >&2; exit 2; }
	@EXPLORE_PCT='$(PCT)' $(EXPLORE_RUN) replay $(FILE)

# A failing input shrunk by libFuzzer (-minimize_crash, MIN_RUNS attempts): FILE.min
MIN_RUNS ?= 2000
uspace-minimize: uspace-explore-bin
	@[ -n "$(FILE)" ] || { echo "make uspace-minimize: FILE=input" >&2; exit 2; }
	@EXPLORE_PCT='$(PCT)' $(EXPLORE_RUN) minimize $(FILE) $(MIN_RUNS)

# The corpus replayed, EXPLORE_TEST_RUNS executions (a count) and
# EXPLORE_TEST_PCT_RUNS PCT schedules of each input on each variant, of
# one seed (EXPLORE_SEED, a new one unless given) for them all (a run is
# a function of the input and memalloc.c: a variant whose memalloc.c is
# vanilla's, kmalloc-rcu's on 6.1, is a skip beside vanilla): one KTAP
# case a variant, its run's lines as diagnostics, judged like every other
# producer (results in $(EXPLORE_RESULTS), listed for make test's total).
EXPLORE_RESULTS := $(US)/explore-results
uspace-explore-test: $(JUDGE) $(if $(filter $(BUILD)/src,$(EXPLORE_SRC)),uspace-trees)
	+@rm -rf $(EXPLORE_RESULTS) && mkdir -p $(EXPLORE_RESULTS) && \
	. scripts/ktap.sh; ktap=$(EXPLORE_RESULTS)/results.ktap n=0 seed='$(EXPLORE_SEED)'; \
	[ -n "$$seed" ] || seed=$$(($$(od -An -N4 -tu4 /dev/urandom) % 2147483647 + 1)); \
	echo $$seed >$(EXPLORE_RESULTS)/seed; \
	{ ktap_header; ktap_plan $(words $(USPACE_VARIANTS)); } >$$ktap; \
	ktap_diag "explore: seed $$seed; the same executions again: $(EXPLORE_MAKE) USPACE_VARIANTS='$(USPACE_VARIANTS)' EXPLORE_SEED=$$seed EXPLORE_TEST_RUNS=$(EXPLORE_TEST_RUNS) EXPLORE_TEST_PCT_RUNS=$(EXPLORE_TEST_PCT_RUNS) uspace-explore-test" >>$$ktap; \
	for v in $(USPACE_VARIANTS); do \
		n=$$((n + 1)); result='not ok'; \
		if [ $$v != vanilla ] && [ -n "$(filter vanilla,$(USPACE_VARIANTS))" ] && \
		   cmp -s $(EXPLORE_SRC)/$$v$(BASE_TAG)/kernel/bpf/memalloc.c $(EXPLORE_SRC)/vanilla$(BASE_TAG)/kernel/bpf/memalloc.c; then \
			ktap_skip $$n $$v "its memalloc.c is vanilla's, explored there" >>$$ktap; \
			continue; \
		fi; \
		if $(MAKE) -s --no-print-directory VARIANT=$$v uspace-explore-bin && \
		   $(EXPLORE_DIR)/run --bin $(US)/$$v/explore/explore --variant $$v --src '$(EXPLORE_SRC)' \
			--tag '$(BASE_TAG)' --base $(BASE) --corpus $(EXPLORE_CORPUS) --judge $(JUDGE) --make '$(EXPLORE_MAKE)' \
			test --runs $(EXPLORE_TEST_RUNS) --pct-runs $(EXPLORE_TEST_PCT_RUNS) --seed $$seed \
			>$(EXPLORE_RESULTS)/$$v.log 2>&1; then \
			result=ok; \
		fi; \
		cat $(EXPLORE_RESULTS)/$$v.log 2>/dev/null | ktap_diag_lines >>$$ktap; \
		ktap_result "$$result" $$n $$v >>$$ktap; \
	done; \
	cat $$ktap; \
	$(JUDGE) --out $(abspath $(EXPLORE_RESULTS)) --expect $${KIT_EXPECTATIONS:-tools/report/expectations} \
		--producer explore --base $(BASE) $$ktap

# make test's share (tests/run-all, on the bases whose file says
# uspace_explore=yes): the variants uspace-test-quick runs.
.PHONY: uspace-explore-test-quick
uspace-explore-test-quick:
	+@$(MAKE) -s --no-print-directory uspace-explore-test USPACE_VARIANTS='$(USPACE_TEST_VARIANTS)'
