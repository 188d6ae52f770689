# SPDX-License-Identifier: GPL-2.0
#
# rootfs.img: a static PID 1 (rootfs/init.c), the selftests
# (tools/selftests/*.c, one program per suite, BPF objects embedded as
# libbpf skeletons), and busybox, packed with mke2fs -d (no root needed).
# The image does not depend on the variant: expected outcomes live on the host.

R := $(BUILD)/rootfs
CLANG ?= clang
BPFTOOL ?= bpftool
ARCH_INCLUDE := -I/usr/include/$(shell gcc -dumpmachine)

GUEST_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -Itools/lib -I$(R)/gen
GUEST_LDLIBS := -static -lbpf -lelf -lz -lzstd

BPF_PROGS := $(wildcard tools/progs/*.bpf.c)
SKELETONS := $(patsubst tools/progs/%.bpf.c,$(R)/gen/%.skel.h,$(BPF_PROGS))
SUITES := $(patsubst tools/selftests/%.c,%,$(wildcard tools/selftests/*.c))
SUITE_BINS := $(patsubst %,$(R)/bin/%,$(SUITES))
STRESS_BINS := $(patsubst tools/stress/%.c,$(R)/stress/%,$(wildcard tools/stress/*.c))
# An archive, so each program links only the helpers it uses.
GUEST_LIB := $(R)/libkit.a
GUEST_OBJS := $(patsubst tools/lib/%.c,$(R)/obj/%.o,$(wildcard tools/lib/*.c))
ROOTFS_SUITES_LIST := $(R)/suites

$(R)/gen/%.bpf.o: tools/progs/%.bpf.c $(wildcard tools/progs/*.h) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CLANG   $@"
	@$(CLANG) -g -O2 -target bpf -Wall $(ARCH_INCLUDE) -c $< -o $@

$(R)/gen/%.skel.h: $(R)/gen/%.bpf.o
	@echo "  GENSKEL $@"
	@$(BPFTOOL) gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

$(R)/obj/%.o: tools/lib/%.c $(wildcard tools/lib/*.h) $(SKELETONS)
	@mkdir -p $(@D)
	@echo "  CC      $@"
	@$(CC) $(GUEST_CFLAGS) -c $< -o $@

$(GUEST_LIB): $(GUEST_OBJS)
	@rm -f $@
	@ar rcs $@ $^

$(R)/bin/%: tools/selftests/%.c $(GUEST_LIB) $(wildcard tools/lib/*.h) $(SKELETONS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(GUEST_CFLAGS) $< $(GUEST_LIB) -o $@ $(GUEST_LDLIBS)

$(R)/stress/%: tools/stress/%.c $(GUEST_LIB) $(wildcard tools/lib/*.h) $(SKELETONS)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) $(GUEST_CFLAGS) $< $(GUEST_LIB) -o $@ $(GUEST_LDLIBS)

$(R)/init: rootfs/init.c tools/lib/filter.c tools/lib/ktap.h tools/lib/filter.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	@$(CC) -O2 -g -Wall -Wextra -Itools/lib -static $< tools/lib/filter.c -o $@

$(ROOTFS_SUITES_LIST): $(SUITE_BINS)
	@printf '%s\n' $(SUITES) > $@

# Directories of the image and the programs in them; other make fragments
# (e.g. tools/bench) add theirs to IMAGE_DIRS and IMAGE_BINS.
IMAGE_DIRS += usr/lib/kit/selftests="$(SUITE_BINS)" usr/lib/kit/stress="$(STRESS_BINS)"
IMAGE_BINS += $(SUITE_BINS) $(STRESS_BINS)

.SECONDEXPANSION:
# One mkimage of an image at a time: two would write one $@.tmp.
$(IMAGE): rootfs/mkimage $(R)/init $$(IMAGE_BINS) $(ROOTFS_SUITES_LIST)
	scripts/with-lock $@.lock rootfs/mkimage $@ $(R)/init $(IMAGE_DIRS)

rootfs: $(IMAGE)
.SECONDARY:
