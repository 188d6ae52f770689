# SPDX-License-Identifier: GPL-2.0
# Bad input gets a clear error naming the thing and the fix, and leaves
# no partial state behind.

# make_n ARGS...: the kit's Makefile, dry-run, output in ./out.
make_n() {
	rc=0
	make -n -C "$KIT" "$@" >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "make $* succeeded"
}

test_unknown_variant() {
	make_n VARIANT=no-such-variant run
	expect_match out "unknown VARIANT 'no-such-variant' on base 6.1; its variants: .*vanilla"
	[ ! -e "$KIT/build/src/no-such-variant@6.1" ] || fail "a source tree was created"
}

test_variant_not_on_base() {
	make_n BASE=6.12 VARIANT=kmalloc-rcu run
	expect_match out "unknown VARIANT 'kmalloc-rcu' on base 6.12; its variants: reuse-after-gp vanilla"
	[ ! -e "$KIT/build/src/kmalloc-rcu@6.12" ] || fail "a source tree was created"
}

test_unknown_base() {
	make_n BASE=5.15 run
	expect_match out "unknown BASE '5.15'; known bases: 6.1 6.12"
}

test_kernel_src_of_an_unknown_base() {
	mkdir tree
	printf 'kernelversion:\n\t@echo 5.15.7\n' >tree/Makefile
	make_n KERNEL_SRC="$SCRATCH/tree" run
	expect_match out "KERNEL_SRC=$SCRATCH/tree is Linux '5.15.7'; the kit knows the bases 6.1 6.12"
}

# A base's matches= key: 7.2 takes a KERNEL_SRC tree of any 7.x.
test_kernel_src_of_7x_is_base_7_2() {
	mkdir tree
	printf 'kernelversion:\n\t@echo 7.5.1\n' >tree/Makefile
	out=$(make -s --no-print-directory -C "$KIT" KERNEL_SRC="$SCRATCH/tree" identity 2>&1) ||
		fail "make identity failed: $out"
	echo "$out" >id
	expect_match id '^base=7\.2$'
	expect_match id '^judge_args=.*--base 7\.2 '
	# A tree of its own: the base's tag and a hash of the path, never the
	# names of the Debian tree's builds.
	expect_match id '^tag=@7\.2-[0-9a-f]{8}$'
	expect_match id '^build=build/reuse-after-gp-default@7\.2-[0-9a-f]{8}$'
}

test_unknown_flavor() {
	make_n FLAVOR=no-such-flavor run
	expect_match out "unknown FLAVOR 'no-such-flavor' on base 6.1; its flavors: .*default"
}

test_missing_kernel_src() {
	make_n KERNEL_SRC=/no/such/tree run
	expect_match out 'KERNEL_SRC=/no/such/tree is not a kernel tree'
}

# A kit of its own in $SCRATCH (prepare-source finds patches next to itself)
# and a two-file "kernel tree" to patch.
fake_kit() {
	mkdir -p kit/kernel/patches/bad kit/uml/patches/6.1 tree/kernel/bpf
	copy_prepare_source
	: >kit/uml/patches/6.1/series
	printf 'kernelversion:\n\t@echo 6.1.0-fake\n' >tree/Makefile
	printf 'int a;\nint b;\n' >tree/kernel/bpf/memalloc.c
	cat >kit/kernel/patches/bad/0001-bad.patch <<'PATCH'
--- a/kernel/bpf/memalloc.c
+++ b/kernel/bpf/memalloc.c
@@ -1,2 +1,2 @@
-int x;
+int y;
 int b;
PATCH
	echo 0001-bad.patch >kit/kernel/patches/bad/series
}

test_patch_that_does_not_apply() {
	fake_kit
	cp -a tree tree.orig
	rc=0
	kit/kernel/prepare-source bad "$SCRATCH/src/bad" "$SCRATCH/tree" >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "prepare-source succeeded"
	expect_match out 'patch kernel/patches/bad/0001-bad.patch does not apply to kernel/bpf/memalloc.c'
	[ ! -e src/bad ] || fail "a half-patched tree was left in place"
	[ -z "$(ls src 2>/dev/null)" ] || fail "temporary trees left behind: $(ls src)"
	diff -r tree tree.orig || fail "KERNEL_SRC was modified"
}

test_failed_patch_keeps_the_old_tree() {
	fake_kit
	echo '# nothing' >kit/kernel/patches/bad/series
	kit/kernel/prepare-source bad "$SCRATCH/src/bad" "$SCRATCH/tree" >out 2>&1 || fail "empty series failed"
	echo 0001-bad.patch >kit/kernel/patches/bad/series
	! kit/kernel/prepare-source bad "$SCRATCH/src/bad" "$SCRATCH/tree" >out 2>&1 || fail "bad patch applied"
	[ -f src/bad/kernel/bpf/memalloc.c ] || fail "the previous tree is gone"
	[ "$(ls src)" = bad ] || fail "temporary trees left behind: $(ls src)"
}

test_series_names_missing_patch() {
	fake_kit
	echo 0002-missing.patch >kit/kernel/patches/bad/series
	! kit/kernel/prepare-source bad "$SCRATCH/src/bad" "$SCRATCH/tree" >out 2>&1 || fail "succeeded"
	expect_match out 'series lists 0002-missing.patch, which does not exist'
}

test_filter_matching_nothing() {
	printf 'htab_syscall\nreuse\n' >suites
	rc=0
	"$KIT/build/host/check-filter" 'reuse,nosuch*' suites >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "check-filter accepted a glob that matches nothing"
	expect_match out 'nosuch\* matches no test suite; suites are: htab_syscall reuse'
	"$KIT/build/host/check-filter" 'reuse.no_*,htab_*' suites || fail "good filter rejected"
}

# The one T= grammar (tools/lib/filter.c), as init hands a suite its
# cases and as the suite and the judge select them: every glob that
# names a suite adds its cases, a bare suite name selects them all.
test_filter_grammar() {
	cat >drv.c <<-'EOF'
	#include <stdio.h>
	#include "filter.h"
	int main(int argc, char **argv)
	{
		char cases[256];
		int r = filter_suite(argv[1], argv[2], cases, sizeof(cases));

		printf("%d [%s] %d\n", r, r > 0 ? cases : "", filter_selects(argv[1], argv[2], argv[3]));
		return 0;
	}
	EOF
	cc -Wall -I"$KIT/tools/lib" drv.c "$KIT/tools/lib/filter.c" -o drv || fail "cannot build the driver"
	check() {
		got=$(./drv "$1" "$2" "$3")
		[ "$got" = "$4" ] || fail "filter '$1', $2.$3: got '$got', expected '$4'"
	}
	check 'reuse.a*,reuse.b*' reuse b1 '1 [a*,b*] 1'
	check 'reuse.a*,reuse.b*' reuse c1 '1 [a*,b*] 0'
	check 'reuse.a*,reuse' reuse c1 '1 [] 1'
	check 'htab_*,reuse.a*' reuse a1 '1 [a*] 1'
	check 'htab_*' reuse a1 '0 [] 0'
	check '' reuse a1 '1 [] 1'
	check 'test_maps.!(*.map_parallel|*.map_stress)' test_maps test_maps.map_stress '1 [!(*.map_parallel|*.map_stress)] 0'
	check 'test_maps.!(*.map_parallel|*.map_stress)' test_maps test_maps.map_large '1 [!(*.map_parallel|*.map_stress)] 1'
	check '!(reuse)' htab_xdp x '1 [] 1'
}

test_missing_config_option_is_named() {
	tree=$(any_built src) || skip "no unpacked kernel tree (make kernel first)"
	# BPF_JIT cannot be enabled on UML: Kconfig drops it.
	printf 'CONFIG_64BIT=y\nCONFIG_BPF_SYSCALL=y\nCONFIG_BPF_JIT=y\n' >frag.config
	rc=0
	"$KIT/uml/configure" "$tree" obj frag.config >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "configure accepted a dropped option"
	expect_match out 'CONFIG_BPF_JIT: asked y, got n'
	[ ! -e obj/.config ] || fail "a .config without the option was left"
}

test_later_fragment_overrides() {
	tree=$(any_built src) || skip "no unpacked kernel tree (make kernel first)"
	# As merge_config.sh: the last fragment's word on an option is the
	# one asked (uml/configs/kasan-7.2.config turns KASAN_VMALLOC off).
	printf 'CONFIG_64BIT=y\nCONFIG_BPF_SYSCALL=y\n' >first.config
	printf '# CONFIG_BPF_SYSCALL is not set\n' >second.config
	"$KIT/uml/configure" "$tree" obj first.config second.config >out 2>&1 ||
		fail "configure refused a fragment overriding an earlier one: $(cat out)"
	expect_match obj/.config '# CONFIG_BPF_SYSCALL is not set'
}
