# SPDX-License-Identifier: GPL-2.0
#
# memalloc-uml: build a BPF memory allocator variant into an ARCH=um kernel,
# boot it on a tiny root image and run the allocator's selftests.
# `make help` lists the targets and variables.

# The build is named by VARIANT, BASE and FLAVOR, or by one spec
# SPEC=VARIANT[@BASE][:FLAVOR] (as make test's TEST_RUNS name them, parsed
# below and nowhere else; `make -s identity SPEC=...` prints what it
# resolves to).  The base tree (kernel/bases/<base>) is a Debian
# linux-source package; KERNEL_SRC= picks the base of the tree's version.
SPEC ?=
DEFAULT_BASE := 6.1
DEFAULT_FLAVOR := default
BASE ?= $(DEFAULT_BASE)
FLAVOR ?= $(DEFAULT_FLAVOR)
KERNEL_SRC ?=
T ?=
TIMEOUT ?= 300
# Length of each long suite of `make stress`.
STRESS_SECONDS ?= 180
# UML_PATCHES=no leaves out uml/patches: stock ARCH=um, to show what they fix.
UML_PATCHES ?= yes
JOBS ?= $(shell nproc)
# The builds `make test` runs the selftests on, as VARIANT@BASE:FLAVOR
# (expected outcomes: tools/report/expectations).
# tests/ then boots the kasan one for its positive control.  Every variant
# of each base boots once at the default flavor: a second variant of a
# base costs about a minute of ccache hits.  A flavor's first build is
# cold (6-10 minutes here, 7.2's the longest), and a cold `make test` must
# stay under an hour on a 2-core machine: six cold builds (6.1's default
# and kasan, 6.12's default, 7.2's default, kasan and debug) fit because
# tests/run-all builds each ahead while guests run.  7.2, the base with
# two CPUs, runs under KASAN and the debug flavor (lockdep with the
# raw-lock nesting check, kmemleak, slab poisoning) here; every other
# base x variant x flavor is left to test-matrix, and so are the upstream
# selftests of vanilla@6.1 and vanilla@6.12 (the variants' own trees are
# what a change can break).
TEST_RUNS ?= reuse-after-gp@6.1:default vanilla@6.1:default kmalloc-rcu@6.1:default \
	free-after-gp@6.1:default percpu-marks@6.1:default reuse-after-gp@6.1:kasan \
	reuse-after-gp@6.12:default vanilla@6.12:default \
	reuse-after-gp@7.2:default vanilla@7.2:default \
	reuse-after-gp@7.2:kasan reuse-after-gp@7.2:debug
# The builds `make test` runs the tree's own selftests on, at make test's
# size (tools/upstream/upstream.mk: all but test_maps' fork-heavy cases).
UPSTREAM_TEST_RUNS ?= reuse-after-gp@6.1:default

BUILD := build
KIT := $(CURDIR)
KNOWN_BASES := $(sort $(notdir $(wildcard kernel/bases/*)))

# --- the spec -------------------------------------------------------------

# SPEC=VARIANT[@BASE][:FLAVOR]: each part given sets that variable, each
# part left out keeps it (VARIANT=, BASE=, FLAVOR= or their defaults).
ifneq ($(SPEC),)
SPEC_PARTS := $(shell printf '%s\n' '$(SPEC)' | sed -n \
	's/^\([A-Za-z0-9._+-]*\)\(@\([A-Za-z0-9._+-]*\)\)\{0,1\}\(:\([A-Za-z0-9._+-]*\)\)\{0,1\}$$/v=\1 b=\3 f=\5/p')
ifeq ($(SPEC_PARTS),)
$(error bad SPEC '$(SPEC)': give VARIANT[@BASE][:FLAVOR], e.g. SPEC=reuse-after-gp@6.12:kasan (make bases, make variants))
endif
spec_part = $(patsubst $(1)=%,%,$(filter $(1)=%,$(SPEC_PARTS)))
ifneq ($(call spec_part,v),)
override VARIANT := $(call spec_part,v)
endif
ifneq ($(call spec_part,b),)
override BASE := $(call spec_part,b)
endif
ifneq ($(call spec_part,f),)
override FLAVOR := $(call spec_part,f)
endif
# A make run from a recipe gets the spec's parts, not the spec: its own
# VARIANT= (make uspace-trees' loop) must not lose to the spec.
unexport SPEC
MAKEOVERRIDES := $(filter-out SPEC=%,$(MAKEOVERRIDES)) BASE=$(BASE) FLAVOR=$(FLAVOR) \
	$(if $(VARIANT),VARIANT=$(VARIANT))
endif

# --- the base tree ------------------------------------------------------------

# A tree given as KERNEL_SRC is of the base its version names.
ifneq ($(KERNEL_SRC),)
KERNEL_SRC := $(abspath $(KERNEL_SRC))
ifeq ($(wildcard $(KERNEL_SRC)/Makefile),)
$(error KERNEL_SRC=$(KERNEL_SRC) is not a kernel tree (no Makefile); give the path of a Linux source tree, or leave it unset for Debian's linux-source-$(BASE))
endif
KERNEL_SRC_VERSION := $(shell make -s --no-print-directory -C $(KERNEL_SRC) kernelversion 2>/dev/null)
# Its major.minor, or the base whose 'matches' key (make patterns) takes it:
# 7.2 takes every 7.x.
KERNEL_SRC_MM := $(shell echo '$(KERNEL_SRC_VERSION)' | cut -d. -f1,2)
override BASE := $(or $(firstword $(foreach b,$(KNOWN_BASES),$(if $(filter \
	$(shell sed -n 's/^matches=//p' kernel/bases/$(b)),$(KERNEL_SRC_MM)),$(b)))),$(KERNEL_SRC_MM))
ifeq ($(filter $(BASE),$(KNOWN_BASES)),)
$(error KERNEL_SRC=$(KERNEL_SRC) is Linux '$(KERNEL_SRC_VERSION)'; the kit knows the bases $(KNOWN_BASES) (kernel/bases/): their UML patches, variants and expectations)
endif
endif
ifeq ($(filter $(BASE),$(KNOWN_BASES)),)
$(error unknown BASE '$(BASE)'; known bases: $(KNOWN_BASES) (each is kernel/bases/<base>; make bases))
endif
base_key = $(shell sed -n 's/^$(1)=//p' kernel/bases/$(2))
# A base's variants are the directories of its patches with a series.
base_variants = $(patsubst kernel/patches/$(1)/%/series,%,$(wildcard kernel/patches/$(1)/*/series))
BASE_PACKAGE := $(call base_key,package,$(BASE))
BASE_TARBALL := $(call base_key,tarball,$(BASE))
# Suites to fetch the package from when the machine's own have none (7.2).
BASE_FETCH := $(call base_key,fetch,$(BASE))
FLAVORS := $(call base_key,flavors,$(BASE))
DEFAULT_VARIANT := $(call base_key,default_variant,$(DEFAULT_BASE))
VARIANT ?= $(call base_key,default_variant,$(BASE))
UML_PATCH_DIR := uml/patches/$(BASE)
PATCHES := kernel/patches/$(BASE)
export PATCHES
# The base's test-only mutants: kernel/mutants/<base>/<name>/series.
MUTANTS_DIR := kernel/mutants/$(BASE)
export MUTANTS_DIR

KNOWN_VARIANTS := $(call base_variants,$(BASE))
# Test-only variants mutant-<name> ($(MUTANTS_DIR)/<name>/series): MUTANT_VARIANTS, make mutants.
include kernel/mutants/mutants.mk

# --- input checks: fail before doing anything, naming the fix -----------

ifeq ($(filter $(VARIANT),$(KNOWN_VARIANTS) $(MUTANT_VARIANTS)),)
$(error unknown VARIANT '$(VARIANT)' on base $(BASE); its variants: $(KNOWN_VARIANTS) (each is $(PATCHES)/<variant>/series; make variants BASE=$(BASE)))
endif
# The series files and patches of VARIANT, its includes resolved.
VARIANT_FILES := $(shell PATCHES='$(PATCHES)' MUTANTS_DIR='$(MUTANTS_DIR)' kernel/prepare-source --files $(VARIANT) 2>/dev/null || echo '?')
ifneq ($(filter ?,$(VARIANT_FILES)),)
$(error $(shell PATCHES='$(PATCHES)' MUTANTS_DIR='$(MUTANTS_DIR)' kernel/prepare-source --files $(VARIANT) 2>&1 >/dev/null))
endif
ifeq ($(filter $(FLAVOR),$(FLAVORS)),)
$(error unknown FLAVOR '$(FLAVOR)' on base $(BASE); its flavors: $(FLAVORS) (kernel/bases/$(BASE); each is uml/configs/<flavor>.config))
endif

# --- where things go ------------------------------------------------------

# Each base, and each tree from KERNEL_SRC, gets its own source and build
# directories, so switching base trees never mixes objects: every name
# ends in the tree's tag, @<base>, then -<hash of the path> for a
# KERNEL_SRC tree and -stock-um without uml/patches.
BASE_TAG := @$(BASE)$(if $(KERNEL_SRC),-$(shell printf '%s' '$(KERNEL_SRC)' | sha256sum | cut -c1-8))
ifeq ($(UML_PATCHES),no)
BASE_TAG := $(BASE_TAG)-stock-um
else ifneq ($(UML_PATCHES),yes)
$(error UML_PATCHES must be yes or no, not '$(UML_PATCHES)')
endif
# variant_src VARIANT: the source tree of VARIANT of this base.
variant_src = $(BUILD)/src/$(1)$(BASE_TAG)
SRC := $(call variant_src,$(VARIANT))
# The build directory is a direct child of its tree, so Kbuild names the
# tree "..": every variant of a base then compiles a file with the same
# command line, and ccache (which ignores the directory, CCACHE_NOHASHDIR)
# serves a new variant's unchanged files from another variant's build.
# $(OBJ) is a link to it, the name everything else uses.
OBJ_DIR := $(SRC)/.build-$(FLAVOR)
OBJ := $(BUILD)/$(VARIANT)-$(FLAVOR)$(BASE_TAG)
KERNEL := $(OBJ)/linux
STAMPS := $(BUILD)/stamps
IMAGE := rootfs.img
LOGS := $(BUILD)/logs

# A fragment named <flavor>-<base>.config adds what that base needs; the
# base's UML patches may bring options of their own ($(UML_PATCH_DIR)/config).
FRAGMENTS := uml/configs/base.config $(wildcard uml/configs/base-$(BASE).config) \
	$(if $(filter yes,$(UML_PATCHES)),$(wildcard $(UML_PATCH_DIR)/config)) \
	uml/configs/$(FLAVOR).config $(wildcard uml/configs/$(FLAVOR)-$(BASE).config) \
	$(wildcard $(PATCHES)/$(VARIANT)/config)

# Stamps are keyed on the content of their inputs: edit a patch and the
# tree is rebuilt; touch nothing and nothing happens.
key = $(shell cat $(1) /dev/null | { cat; printf '%s' '$(2)'; } | sha256sum | cut -c1-16)
SERIES_FILES := $(wildcard $(if $(filter yes,$(UML_PATCHES)),$(UML_PATCH_DIR)/*) $(PATCHES)/$(VARIANT)/config) \
	$(VARIANT_FILES)
SRC_KEY := $(call key,$(SERIES_FILES) kernel/prepare-source,$(KERNEL_SRC))
SRC_STAMP := $(STAMPS)/src-$(VARIANT)$(BASE_TAG)-$(SRC_KEY)
CONFIG_KEY := $(call key,$(FRAGMENTS) uml/configure,$(SRC_KEY))
CONFIG_STAMP := $(STAMPS)/config-$(VARIANT)-$(FLAVOR)$(BASE_TAG)-$(CONFIG_KEY)

export CCACHE_DIR ?= $(HOME)/.cache/ccache
# Hash paths relative to the kit, so that another clone of it (CI's) hits
# the cache this one filled.
export CCACHE_BASEDIR := $(KIT)
export CCACHE_NOHASHDIR := 1
# scripts/deps installs ccache before anything is built, so the compiler's
# command line is the same from the first build on: deciding here with
# `command -v ccache` would see a fresh machine without it, and Kbuild would
# recompile everything once ccache appeared.
KBUILD_CC := ccache gcc
KMAKE = $(MAKE) -C $(SRC) ARCH=um O=$(KIT)/$(OBJ_DIR) CC="$(KBUILD_CC)" -j$(JOBS)

.PHONY: help bases variants deps kernel rootfs run shell test test-host test-guest \
	test-matrix stress loop-time clean distclean tree-clean FORCE
.DEFAULT_GOAL := help

# --- dependencies -----------------------------------------------------------

# The base's linux-source package only for the base in use, and not for
# a KERNEL_SRC tree.
BASE_NEEDS := $(if $(KERNEL_SRC),,$(BASE_PACKAGE):$(BASE_TARBALL)$(if $(BASE_FETCH),:$(BASE_FETCH)))
DEPS_STAMP := $(STAMPS)/deps-$(call key,scripts/deps,$(BASE_NEEDS))
deps: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/deps
	scripts/deps $(BASE_NEEDS)
	@mkdir -p $(@D) && touch $@

# --- kernel -----------------------------------------------------------------

# One lock per source tree, for everything that writes the tree or one of
# its build directories: a second command waits for the first.
LOCK = scripts/with-lock $(SRC).lock

# The steps print Kbuild-style lines of their own; V=1 shows the commands.
Q := $(if $(filter 1,$(V)),,@)

$(SRC_STAMP): | $(DEPS_STAMP)
	$(Q)UML_PATCHES=$(UML_PATCHES) UML_PATCH_DIR=$(UML_PATCH_DIR) TARBALL=$(BASE_TARBALL) \
		$(LOCK) kernel/prepare-source $(VARIANT) $(SRC) $(KERNEL_SRC)
	@mkdir -p $(@D) && rm -f $(STAMPS)/src-$(VARIANT)$(BASE_TAG)-* && touch $@

# A tree for user space only (a mutant's, make mutants-uspace): the files
# the harness compiles and those the series patches (prepare-source,
# PARTIAL).  A whole tree of the same series serves as well; a kernel
# build of the variant prepares the whole tree over it.
USRC_STAMP := $(STAMPS)/usrc-$(VARIANT)$(BASE_TAG)-$(SRC_KEY)
$(USRC_STAMP): | $(DEPS_STAMP)
	$(Q)[ -e $(SRC_STAMP) ] || PARTIAL=yes UML_PATCHES=$(UML_PATCHES) UML_PATCH_DIR=$(UML_PATCH_DIR) \
		TARBALL=$(BASE_TARBALL) $(LOCK) kernel/prepare-source $(VARIANT) $(SRC) $(KERNEL_SRC)
	@mkdir -p $(@D) && rm -f $(STAMPS)/usrc-$(VARIANT)$(BASE_TAG)-* && touch $@

$(CONFIG_STAMP): $(SRC_STAMP)
	$(Q)$(LOCK) uml/configure $(SRC) $(OBJ_DIR) $(FRAGMENTS)
	@[ -L $(OBJ) ] || rm -rf $(OBJ)
	@ln -sfn src/$(VARIANT)$(BASE_TAG)/.build-$(FLAVOR) $(OBJ)
	@rm -f $(STAMPS)/config-$(VARIANT)-$(FLAVOR)$(BASE_TAG)-* && touch $@

# Kbuild knows which objects are stale; ask it unless nothing it reads
# changed since its last good run began (scripts/kernel-is-current: its
# own walk of an up-to-date tree takes seconds).  The default build is
# also ./linux, so `./linux ubd0=rootfs.img` needs no wrapper.
$(KERNEL): $(CONFIG_STAMP) FORCE
	+@scripts/kernel-is-current $@ $(SRC) $(OBJ_DIR) || { \
		echo "  KERNEL  $(OBJ) ($(VARIANT), $(FLAVOR))"; \
		$(LOCK) scripts/kbuild-progress $(OBJ_DIR) $(KMAKE) $(if $(filter 1,$(V)),V=1,-s) linux scripts_gdb; }
ifeq ($(VARIANT)-$(FLAVOR)$(BASE_TAG),$(DEFAULT_VARIANT)-$(DEFAULT_FLAVOR)@$(DEFAULT_BASE))
	@ln -sfn $(OBJ)/linux linux
endif

kernel: $(KERNEL)

# Forget this variant's source tree: the tree, every flavor's build of
# it and their stamps (a config stamp left behind would skip the next
# configure of the emptied build), so that the next make prepares and
# builds it again (from ccache).  kernel/mutants/run, once a mutant is judged.
tree-clean:
	$(Q)$(LOCK) rm -rf $(SRC) $(foreach f,$(FLAVORS),$(BUILD)/$(VARIANT)-$(f)$(BASE_TAG)) \
		$(STAMPS)/src-$(VARIANT)$(BASE_TAG)-* $(STAMPS)/usrc-$(VARIANT)$(BASE_TAG)-* \
		$(foreach f,$(FLAVORS),$(STAMPS)/config-$(VARIANT)-$(f)$(BASE_TAG)-*)

# --- root image -------------------------------------------------------------

include rootfs/rootfs.mk
include tools/bench/bench.mk
include scripts/gdb/gdb.mk
include tools/report/report.mk
include tests/host.mk
include tools/uspace/uspace.mk
include tools/upstream/upstream.mk
include scripts/check.mk

# --- running ----------------------------------------------------------------

# A flavor may need boot arguments too (uml/configs/<flavor>.cmdline).
# NCPUS=N boots N CPUs (ncpus=N) where the base's UML runs SMP, up to its
# max_cpus (kernel/bases/<base>: CONFIG_NR_CPUS); unset, the kernel's own
# number (CONFIG_UML_NCPUS on 7.2, one elsewhere).
NCPUS ?=
MAX_CPUS := $(or $(call base_key,max_cpus,$(BASE)),1)
ifneq ($(NCPUS),)
ifneq ($(shell [ "$(NCPUS)" -ge 1 ] 2>/dev/null && [ "$(NCPUS)" -le $(MAX_CPUS) ] && echo ok),ok)
$(error NCPUS=$(NCPUS): $(if $(filter 1,$(MAX_CPUS)),base $(BASE)'s ARCH=um runs one CPU (no max_cpus in kernel/bases/$(BASE)); leave NCPUS unset or use BASE=7.2,base $(BASE) boots 1 to $(MAX_CPUS) CPUs (kernel/bases/$(BASE): max_cpus); give NCPUS in that range))
endif
endif
FLAVOR_ARGS := $(shell sed 's/#.*//' $(wildcard uml/configs/$(FLAVOR).cmdline) /dev/null) \
	$(if $(NCPUS),ncpus=$(NCPUS))
# Who the run is, for the judge: each key apart, never a suffix of a name.
# A mutant is judged as the variant it breaks (its series' include): what
# that variant is expected to fail it may fail, and what it is expected
# to refuse it must refuse (an XPASS fails).
MUTANT_OF := $(if $(filter $(VARIANT),$(MUTANT_VARIANTS)),$(firstword $(shell sed -n 's/^[[:space:]]*include[[:space:]]\{1,\}\([^#[:space:]]*\).*/\1/p' $(MUTANTS_DIR)/$(VARIANT:mutant-%=%)/series)))
RUN_ID = --variant $(or $(MUTANT_OF),$(VARIANT)) --base $(BASE) --uml $(UML_PATCHES)
# The run directory's name (build/logs/<date>-<name>-<pid>): the build's,
# so that runs of one variant on different trees sort apart.
RUN_NAME := $(VARIANT)$(BASE_TAG)
# A slowed flavor (kit.slowdown=N in its .cmdline: KASAN, lockdep) gives
# each suite N times its budget in the guest (rootfs/init.c), and the
# whole run N times TIMEOUT here.
SLOWDOWN := $(or $(lastword $(patsubst kit.slowdown=%,%,$(filter kit.slowdown=%,$(FLAVOR_ARGS)))),1)
RUN = uml/run --timeout $$(($(TIMEOUT) * $(SLOWDOWN))) --logdir $(LOGS) --name $(RUN_NAME) $(RUN_ID) \
	$(if $(T),--tests '$(T)')

run: $(KERNEL) $(IMAGE) $(JUDGE) check-filter
	$(RUN) --suites $(ROOTFS_SUITES_LIST) $(KERNEL) $(IMAGE) -- $(FLAVOR_ARGS)

shell: $(KERNEL) $(IMAGE)
	uml/run --shell --logdir $(LOGS) --name $(RUN_NAME) $(KERNEL) $(IMAGE) -- $(FLAVOR_ARGS)

# A T= filter that matches no suite is a mistake, not an empty pass.
.PHONY: check-filter
check-filter: $(ROOTFS_SUITES_LIST) $(CHECK_FILTER)
	@$(CHECK_FILTER) '$(T)' $(ROOTFS_SUITES_LIST)

# --- tests ------------------------------------------------------------------

test: deps host-bins
	@tests/run-all $(TEST_RUNS) $(addprefix upstream/,$(UPSTREAM_TEST_RUNS)) mutants/uspace mutants/7.2

test-host: deps host-bins
	tests/run

# One variant's selftests (tests/run-all's name for make run).
test-guest: run

# The long suites (tools/stress/), KTAP like the rest: not part of `make test`.
stress: $(KERNEL) $(IMAGE) $(JUDGE)
	uml/run --timeout $$(($(STRESS_SECONDS) + 300)) --logdir $(LOGS) --name $(RUN_NAME) $(RUN_ID) --producer stress \
		$(KERNEL) $(IMAGE) -- $(FLAVOR_ARGS) kit.run=stress kit.env.KIT_STRESS_SECONDS=$(STRESS_SECONDS) \
		kit.timeout=$$(($(STRESS_SECONDS) + 240))

# Every base x variant x flavor, and every variant's upstream selftests
# (quick) at the default flavor: long; not part of `make test`.
MATRIX_RUNS := $(foreach b,$(KNOWN_BASES),$(foreach v,$(call base_variants,$(b)),\
	$(foreach f,$(call base_key,flavors,$(b)),$(v)@$(b):$(f)))) \
	$(foreach b,$(KNOWN_BASES),$(foreach v,$(call base_variants,$(b)),upstream/$(v)@$(b):default))
test-matrix: deps host-bins
	@tests/run-all $(MATRIX_RUNS) mutants/all

# The edit loop: touch memalloc.c, rebuild, boot, results (README figures).
loop-time: $(KERNEL) $(IMAGE)
	scripts/loop-time $(VARIANT)@$(BASE):$(FLAVOR)

# --- housekeeping -----------------------------------------------------------

clean:
	rm -rf $(BUILD)/rootfs $(BUILD)/upstream $(LOGS) $(IMAGE) linux

distclean:
	rm -rf $(BUILD) $(IMAGE) linux

FORCE:

# Every identity fact of a build, as key=value lines: this Makefile is
# the one place that knows them, and every script asks it
# (scripts/identity.sh: make -s identity SPEC=VARIANT[@BASE][:FLAVOR]).
# make_args are the variables that name this build to make again.
IDENTITY_MAKE_ARGS := BASE=$(BASE) VARIANT=$(VARIANT) FLAVOR=$(FLAVOR) \
	$(if $(KERNEL_SRC),KERNEL_SRC=$(KERNEL_SRC)) $(if $(filter no,$(UML_PATCHES)),UML_PATCHES=no)
.PHONY: identity
identity:
	@printf '%s\n' 'spec=$(VARIANT)@$(BASE):$(FLAVOR)' 'base=$(BASE)' 'variant=$(VARIANT)' \
		'flavor=$(FLAVOR)' 'tag=$(BASE_TAG)' 'kernel_src=$(KERNEL_SRC)' 'uml_patches=$(UML_PATCHES)' \
		'src=$(SRC)' 'build=$(OBJ)' 'kernel=$(KERNEL)' 'run_name=$(RUN_NAME)' 'logs=$(LOGS)' \
		'judge_args=$(RUN_ID)' 'flavor_args=$(strip $(FLAVOR_ARGS))' 'slowdown=$(SLOWDOWN)' \
		'image=$(IMAGE)' 'upstream_image=$(UP_IMAGE)' 'upstream_mem=$(UPSTREAM_MEM)' 'uspace=$(US)' 'mutant_of=$(MUTANT_OF)' \
		'uspace_test=$(or $(call base_key,uspace_test,$(BASE)),yes)' \
		'uspace_explore=$(or $(call base_key,uspace_explore,$(BASE)),no)' \
		'make_args=$(strip $(IDENTITY_MAKE_ARGS))'

# Each base with its package and variants: adding a base is adding a file
# to kernel/bases/, its UML patches to uml/patches/<base>/, its variants
# to kernel/patches/<base>/<variant>/ and its denylist to
# tools/upstream/denylist/<base>.
bases:
	@$(foreach b,$(KNOWN_BASES),printf '  %-6s %s (%s)\n         variants: %s; flavors: %s\n' $(b) \
		"$$(sed -n 's/^package=//p' kernel/bases/$(b))" "$$(sed -n 's/^description=//p' kernel/bases/$(b))" \
		'$(call base_variants,$(b))' '$(call base_key,flavors,$(b))';)

# Each variant with the first comment line of its series: adding a
# variant is adding a directory.
variants:
	@for v in $(KNOWN_VARIANTS); do \
		d=$$(sed -n 's/^#[[:space:]]*//p' $(PATCHES)/$$v/series | head -n 1); \
		i=$$(sed -n 's/^[[:space:]]*include[[:space:]]\{1,\}\([^#[:space:]]*\).*/\1/p' $(PATCHES)/$$v/series | tr '\n' ' '); \
		printf '  %-15s %s%s\n' "$$v" "$${d:-(no description: start $(PATCHES)/$$v/series with a # line)}" \
			"$${i:+ [includes: $${i% }]}"; \
	done

help:
	@echo 'memalloc-uml: the BPF memory allocator on ARCH=um'
	@echo
	@echo 'Targets:'
	@echo '  run          build the kernel and rootfs.img, boot, run the selftests (KTAP + summary)'
	@echo '  test         the selftests on $(TEST_RUNS), the upstream ones (quick) on $(UPSTREAM_TEST_RUNS),'
	@echo '               then the kit'"'"'s own tests'
	@echo '  test-host    only the kit'"'"'s own host-side tests (tests/)'
	@echo '  test-guest   only the selftests on VARIANT/FLAVOR'
	@echo '  test-matrix  every variant x flavor (long; not part of test)'
	@echo '  stress       the long mixed reuse run (tools/stress/, STRESS_SECONDS each)'
	@echo '  selftests-upstream  the tree'"'"'s own test_maps, test_verifier, test_lru_map in the guest, minus'
	@echo '               tools/upstream/denylist/$(BASE) (T=test_maps.CASE; long: test_maps alone takes ~30 min on UML)'
	@echo '  selftests-upstream-quick  the same at make test'"'"'s size (without test_maps'"'"' map_parallel, map_stress)'
	@echo '  shell        boot into a busybox shell in the guest'
	@echo '  gdb          boot VARIANT/FLAVOR under gdb, stop in the allocator'"'"'s RCU callbacks (BREAK=, T=, KARGS=)'
	@echo '  attach       attach gdb to the newest running guest (make run/shell); detach leaves it running'
	@echo '  bases        every base tree with its package, variants and flavors'
	@echo '  identity     every identity fact of SPEC (or VARIANT/BASE/FLAVOR) as key=value lines:'
	@echo '               source tree, build directory, kernel, run name, judge and flavor arguments, images'
	@echo '  variants     every variant with the description its series starts with'
	@echo '  kernel       build the kernel of VARIANT/FLAVOR ($(OBJ)/linux; the default one is also ./linux)'
	@echo '  rootfs       build rootfs.img'
	@echo '  loop-time    time touch memalloc.c -> rebuild -> boot -> results'
	@echo '  mutants      build each test-only mutant of every base, run the case meant to catch it: a table'
	@$(MAKE) -s --no-print-directory bench-help-targets
	@$(MAKE) -s --no-print-directory uspace-help
	@echo '  deps         install the Debian packages the kit needs (root), or print the command'
	@echo '  clean        remove the root image, logs and ./linux; keep kernels'
	@echo '  distclean    remove everything built, kernels and source trees included'
	@echo '  tree-clean   forget the source tree of VARIANT and every build in it (rebuilt from ccache)'
	@echo
	@echo 'Variants of base $(BASE) (kernel/patches/$(BASE)/<variant>/series; VARIANT= to build one, VARIANTS= to bench several):'
	@$(MAKE) -s --no-print-directory variants
	@echo
	@echo 'Variables:'
	@echo '  VARIANT=$(VARIANT)   patch series: $(KNOWN_VARIANTS) (make variants)'
	@echo '  FLAVOR=$(FLAVOR)     config flavor: $(FLAVORS)'
	@echo '  BASE=$(BASE)            base tree: $(KNOWN_BASES) (make bases), Debian'"'"'s linux-source-<base>'
	@echo '  SPEC=VARIANT[@BASE][:FLAVOR]  the three at once, as TEST_RUNS name builds (e.g. SPEC=vanilla@6.12:preempt)'
	@echo '  KERNEL_SRC=<tree>     base tree instead of the tarball (copied, never modified); its version picks BASE'
	@echo '  T=<glob>[,<glob>]     run only suites (or suite.case) matching, e.g. T=reuse or T=irq_work.xdp_*'
	@echo '  TIMEOUT=$(TIMEOUT)         seconds before a hung guest is killed (times the flavor'"'"'s kit.slowdown, here $(SLOWDOWN))'
	@echo '  STRESS_SECONDS=$(STRESS_SECONDS)  length of each suite of make stress'
	@echo '  UML_PATCHES=$(UML_PATCHES)     no: leave out uml/patches (stock ARCH=um, to compare)'
	@echo '  JOBS=$(JOBS)             parallel kernel build jobs'
	@echo '  TEST_RUNS="$(TEST_RUNS)"'
	@echo '               variant@base:flavor builds make test boots (every other variant: make test-matrix)'
	@echo '  UPSTREAM_TEST_RUNS="$(UPSTREAM_TEST_RUNS)"'
	@echo '               variant@base:flavor builds make test runs the upstream selftests (quick) on'
	@echo '  UPSTREAM_TIMEOUT=$(UPSTREAM_TIMEOUT) seconds before make selftests-upstream'"'"'s guest is killed'
	@echo '  BREAK=<funcs>         gdb/attach breakpoints (default: the variant'"'"'s kernel/patches/<base>/<variant>/break, here $(BREAK); those the kernel has)'
	@echo '  KARGS=<args>          make gdb: more kernel arguments, e.g. fail_bpf_reuse_batch=1,100,0,-1'
	@echo '  NCPUS=<n>             boot n CPUs (ncpus=n; run, bench, gdb) on a base whose UML runs SMP (7.2: up to 8)'
	@$(MAKE) -s --no-print-directory bench-help-variables
