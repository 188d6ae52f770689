# SPDX-License-Identifier: GPL-2.0
#
# make selftests-upstream: the tree's own BPF selftests in the guest.
#
# The selftests' Makefile cannot be used for ARCH=um: it builds every
# BPF program of progs/ against a vmlinux.h dumped from the kernel's BTF
# (CONFIG_DEBUG_INFO_BTF, pahole), most of which need tracing, kfuncs or
# the JIT that UML 6.1 does not have.  So the kit drives the pieces
# test_maps needs with its own rules, from the variant's own tree:
#
#   - the tree's libbpf (tools/lib/bpf, its own Makefile), static;
#   - test_maps.c, map_tests/*.c and testing_helpers.c, unmodified,
#     compiled into tools/upstream/test_maps_ktap.c's per-case runner;
#   - the BPF objects test_maps.c opens at run time, compiled with clang
#     like the selftests' Makefile does (they need no vmlinux.h);
#
# into an image of their own (the upstream programs come from the
# variant's tree, the kit's rootfs.img does not depend on the variant).
# Cases that cannot run on UML are listed, with the reason, in
# tools/upstream/DENYLIST.

UP := $(BUILD)/upstream/$(VARIANT)$(BASE_TAG)
UP_SELFTESTS := $(SRC)/tools/testing/selftests/bpf
UP_TOOLS := $(SRC)/tools
UP_IMAGE := $(UP)/rootfs.img
UP_SUITES_LIST := $(UP)/suites
# Each upstream program gets the time of the whole run, less a minute for
# booting and judging: test_maps takes minutes on UML (README).
UPSTREAM_TIMEOUT ?= 5400
# test_maps forks 100 writers at a time: the kernel's default 64M is not
# enough.  A flavor's own mem= (uml/configs/*.cmdline) comes later and wins.
UPSTREAM_ARGS := mem=256M

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

$(UP)/gen/stamp: tools/upstream/gen-test-maps tools/upstream/DENYLIST $(SRC_STAMP)
	@echo "  GEN     $(@D) (test_maps cases)"
	@tools/upstream/gen-test-maps $(UP_SELFTESTS) tools/upstream/DENYLIST $(@D)
	@touch $@

$(UP)/bin/test_maps: tools/upstream/test_maps_ktap.c tools/lib/ktap.c tools/lib/ktap.h \
		$(UP)/gen/stamp $(UP)/libbpf/libbpf.a
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(UP_CFLAGS) $< $$(cat $(UP)/gen/map_tests.list) $(UP_SELFTESTS)/testing_helpers.c \
		tools/lib/ktap.c $(UP)/libbpf/libbpf.a -o $@ $(UP_LDLIBS)

$(UP)/bpf/stamp: $(UP)/gen/stamp $(UP)/libbpf/libbpf.a
	@rm -rf $(@D) && mkdir -p $(@D)
	@for obj in $$(cat $(UP)/gen/bpf_objs.list); do \
		echo "  CLANG   $(@D)/$$obj"; \
		$(CLANG) $(UP_BPF_CFLAGS) -c $(UP_SELFTESTS)/progs/$${obj%.bpf.o}.c -o $(@D)/$$obj || exit 1; \
	done
	@touch $@

$(UP_SUITES_LIST): $(UP)/bin/test_maps
	@echo test_maps > $@

$(UP_IMAGE): rootfs/mkimage $(R)/init $(UP)/bin/test_maps $(UP)/bpf/stamp $(UP_SUITES_LIST)
	@rootfs/mkimage $@ $(R)/init usr/lib/kit/upstream=$(UP)/bin/test_maps \
		usr/share/kit/test_maps="$$(echo $(UP)/bpf/*.bpf.o)"

.PHONY: selftests-upstream upstream-image upstream-check-filter
upstream-image: $(UP_IMAGE)

upstream-check-filter: $(UP_SUITES_LIST)
	@tools/report/check-filter '$(T)' $(UP_SUITES_LIST)

selftests-upstream: TIMEOUT := $(UPSTREAM_TIMEOUT)
selftests-upstream: $(KERNEL) $(UP_IMAGE) upstream-check-filter
	$(RUN) $(KERNEL) $(UP_IMAGE) -- $(UPSTREAM_ARGS) $(FLAVOR_ARGS) kit.run=upstream \
		kit.timeout=$$(($(TIMEOUT) - 60))
