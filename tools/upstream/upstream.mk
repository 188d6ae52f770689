# SPDX-License-Identifier: GPL-2.0
#
# make selftests-upstream: the tree's own BPF selftests in the guest.
#
# The selftests' Makefile cannot be used for ARCH=um: it builds every
# BPF program of progs/ against a vmlinux.h dumped from the kernel's BTF
# (CONFIG_DEBUG_INFO_BTF, pahole), most of which need tracing, kfuncs or
# the JIT that UML 6.1 does not have.  So the kit drives the pieces
# test_maps, test_verifier and test_lru_map need with its own rules, from
# the variant's own tree:
#
#   - the tree's libbpf (tools/lib/bpf, its own Makefile), static;
#   - test_maps.c, map_tests/*.c and testing_helpers.c, unmodified,
#     compiled into tools/upstream/test_maps_ktap.c's per-case runner;
#     likewise test_verifier.c (with verifier/*.c) and test_lru_map.c;
#   - the BPF objects test_maps.c opens at run time, compiled with clang
#     like the selftests' Makefile does (they need no vmlinux.h);
#
# into an image of their own (the upstream programs come from the
# variant's tree, the kit's rootfs.img does not depend on the variant).
# Cases that cannot run on UML are listed, with the reason, in the base's
# denylist, tools/upstream/denylist/<base>.

UP := $(BUILD)/upstream/$(VARIANT)$(BASE_TAG)
# Each base its own denylist: what cannot run on that tree's UML differs.
UP_DENYLIST := tools/upstream/denylist/$(BASE)
UP_SELFTESTS := $(SRC)/tools/testing/selftests/bpf
UP_TOOLS := $(SRC)/tools
UP_IMAGE := $(UP)/rootfs.img
UP_SUITES_LIST := $(UP)/suites
# Each upstream program gets the time of the whole run, less a minute for
# booting and judging: test_maps takes minutes on UML (README).
UPSTREAM_TIMEOUT ?= 5400
# test_maps' map_large without preallocation holds 32768 elements of a
# 4 KiB key, each from kmalloc-8k: 256 MiB.  test_maps forks 100 writers
# at a time, and test_verifier's scale tests verify 1M-instruction
# programs (about 100M of verifier state).  The kernel's default 64M is
# far too little, 256M runs out in both; 1G leaves room for the debug
# and kasan flavors' overhead.  A base may need more (its upstream_mem
# key, kernel/bases/<base>: 7.2's verifier says why).  It comes after the
# flavor's own mem= (uml/configs/*.cmdline), so it wins.
UPSTREAM_MEM := $(or $(call base_key,upstream_mem,$(BASE)),1G)
UPSTREAM_ARGS := mem=$(UPSTREAM_MEM)

# As the selftests' Makefile orders them: the tree's tools/include (u8,
# __must_check, ...) before its uapi copy.
UP_CFLAGS := -O2 -g -Wall -Wno-unused-function -Wno-unused-variable \
	-I$(UP)/gen -I$(UP_SELFTESTS) -I$(UP)/root/include -I$(UP_TOOLS)/lib \
	-I$(UP_TOOLS)/include -I$(UP_TOOLS)/include/uapi -Itools/lib
UP_LDLIBS := -static -lelf -lz -lzstd -lpthread
UP_BPF_CFLAGS := -g -O2 -target bpf -mlittle-endian -Wall -Wno-unused-variable \
	-I$(UP)/root/include -I$(UP_SELFTESTS) -I$(UP_TOOLS)/include/uapi $(ARCH_INCLUDE)

$(UP)/libbpf/libbpf.a: $(SRC_STAMP)
	@mkdir -p $(@D)
	@echo "  LIBBPF  $@ (the tree's tools/lib/bpf)"
	+@$(MAKE) -s -C $(UP_TOOLS)/lib/bpf OUTPUT=$(KIT)/$(@D)/ DESTDIR=$(KIT)/$(UP)/root prefix= \
		$(KIT)/$@ install_headers

$(UP)/gen/stamp: tools/upstream/gen-test-maps $(UP_DENYLIST) $(SRC_STAMP)
	@echo "  GEN     $(@D) (test_maps cases)"
	@tools/upstream/gen-test-maps $(UP_SELFTESTS) $(UP_DENYLIST) $(@D)
	@touch $@

UP_RUNNER := tools/upstream/child.c tools/upstream/child.h tools/lib/ktap.c tools/lib/ktap.h \
	tools/lib/filter.c tools/lib/filter.h

$(UP)/bin/test_maps: tools/upstream/test_maps_ktap.c $(UP_RUNNER) \
		$(UP)/gen/stamp $(UP)/libbpf/libbpf.a
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(UP_CFLAGS) $< $$(cat $(UP)/gen/map_tests.list) $(UP_SELFTESTS)/testing_helpers.c \
		$(filter %.c,$(UP_RUNNER)) $(UP)/libbpf/libbpf.a -o $@ $(UP_LDLIBS)

# Link a runner whose case names are made at run time ($(1): its flags,
# $(2): more sources), then run it here, on the host (the binary is static
# and --check-denylist touches no BPF), to fail the build on a denylist
# entry that names no case, as gen-test-maps does for test_maps.
define up_link_checked
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(UP_CFLAGS) $(1) $< $(2) tools/upstream/denylist.c \
		$(filter %.c,$(UP_RUNNER)) $(UP)/libbpf/libbpf.a -o $@.tmp $(UP_LDLIBS)
	@$@.tmp --check-denylist || { rm -f $@.tmp; exit 1; }
	@mv $@.tmp $@
endef

# test_verifier: its verifier/tests.h as the selftests' Makefile makes it,
# the ARCH=um autoconf.h it reads under HAVE_GENHDR (gen-test-verifier
# says why), and its denylist entries.  The case names come from tests[]
# at run time, so the runner itself checks the entries (up_link_checked).
$(UP)/gen-verifier/stamp: tools/upstream/gen-test-verifier tools/upstream/gen-denylist \
		$(UP_DENYLIST) $(SRC_STAMP)
	@echo "  GEN     $(@D) (test_verifier tests.h, denylist)"
	@tools/upstream/gen-test-verifier $(UP_SELFTESTS) $(SRC) $(@D)
	@tools/upstream/gen-denylist test_verifier $(UP_DENYLIST) $(@D)/test_verifier_deny.h
	@touch $@

$(UP)/bin/test_verifier: tools/upstream/test_verifier_ktap.c $(UP_RUNNER) \
		tools/upstream/denylist.c tools/upstream/denylist.h \
		$(UP)/gen-verifier/stamp $(UP)/libbpf/libbpf.a
	$(call up_link_checked,-DHAVE_GENHDR -I$(UP)/gen-verifier,\
		$(UP_SELFTESTS)/cap_helpers.c $(UP_SELFTESTS)/testing_helpers.c \
		$(wildcard $(UP_SELFTESTS)/unpriv_helpers.c))

$(UP)/bpf/stamp: $(UP)/gen/stamp $(UP)/libbpf/libbpf.a
	@rm -rf $(@D) && mkdir -p $(@D)
	@for obj in $$(cat $(UP)/gen/bpf_objs.list); do \
		echo "  CLANG   $(@D)/$$obj"; \
		$(CLANG) $(UP_BPF_CFLAGS) -c $(UP_SELFTESTS)/progs/$${obj%.bpf.o}.c -o $(@D)/$$obj || exit 1; \
	done
	@touch $@

# test_lru_map: the calls of its main() as cases (gen-test-lru-map), and
# its denylist entries, checked by the runner as test_verifier's are.
$(UP)/gen-lru/stamp: tools/upstream/gen-test-lru-map tools/upstream/gen-denylist \
		$(UP_DENYLIST) $(SRC_STAMP)
	@echo "  GEN     $(@D) (test_lru_map cases, denylist)"
	@tools/upstream/gen-test-lru-map $(UP_SELFTESTS) $(@D)
	@tools/upstream/gen-denylist test_lru_map $(UP_DENYLIST) $(@D)/test_lru_map_deny.h
	@touch $@

$(UP)/bin/test_lru_map: tools/upstream/test_lru_map_ktap.c $(UP_RUNNER) \
		tools/upstream/denylist.c tools/upstream/denylist.h \
		$(UP)/gen-lru/stamp $(UP)/libbpf/libbpf.a
	$(call up_link_checked,-I$(UP)/gen-lru)

UP_PROGS := test_maps test_verifier test_lru_map

$(UP_SUITES_LIST): $(UP_PROGS:%=$(UP)/bin/%)
	@printf '%s\n' $(UP_PROGS) > $@

# test_verifier alone is 50M (tests[] holds 4096 instructions per test).
$(UP_IMAGE): rootfs/mkimage $(R)/init $(UP_PROGS:%=$(UP)/bin/%) $(UP)/bpf/stamp $(UP_SUITES_LIST)
	@IMAGE_SIZE=256M scripts/with-lock $@.lock rootfs/mkimage $@ $(R)/init \
		usr/lib/kit/upstream="$(UP_PROGS:%=$(UP)/bin/%)" \
		usr/share/kit/test_maps="$$(echo $(UP)/bpf/*.bpf.o)"

.PHONY: selftests-upstream upstream-image upstream-check-filter
upstream-image: $(UP_IMAGE)

upstream-check-filter: $(UP_SUITES_LIST) $(CHECK_FILTER)
	@$(CHECK_FILTER) '$(T)' $(UP_SUITES_LIST)

selftests-upstream: TIMEOUT := $(UPSTREAM_TIMEOUT)
selftests-upstream: $(KERNEL) $(UP_IMAGE) $(JUDGE) upstream-check-filter
	@scripts/max-map-count $(UPSTREAM_MEM)
	$(RUN) --producer upstream --suites $(UP_SUITES_LIST) $(KERNEL) $(UP_IMAGE) -- $(FLAVOR_ARGS) $(UPSTREAM_ARGS) kit.run=upstream \
		kit.timeout=$$(($(TIMEOUT) - 60))

# make test's size: all but test_maps' two fork-heavy cases, which fork
# 100 writers again and again and take minutes each on UML (README);
# make selftests-upstream runs them.
UPSTREAM_QUICK := test_maps.!(*.map_parallel|*.map_stress),test_verifier,test_lru_map

.PHONY: selftests-upstream-quick
selftests-upstream-quick:
	+@$(MAKE) --no-print-directory selftests-upstream T='$(UPSTREAM_QUICK)'
