# SPDX-License-Identifier: GPL-2.0
# The positive control of the kasan flavor: KASAN is live in that build,
# and a KASAN report fails a run even when every selftest passed.

test_kasan_report_fails_a_passing_run() {
	k=$(kernel reuse-after-gp kasan) || exit $?
	[ -f "$KIT/rootfs.img" ] || skip "no rootfs.img (make rootfs)"
	rc=0
	# The kernel's own KASAN KUnit case for a use-after-free of kmalloc'ed
	# memory, run at boot; the kit's selftests then pass as usual.
	# shellcheck disable=SC2046 # the flavor's boot arguments are words
	"$KIT/uml/run" --timeout 300 --logdir logs --variant reuse-after-gp --tests htab_syscall \
		"$k" "$KIT/rootfs.img" -- $(sed "s/#.*//" "$KIT/uml/configs/kasan.cmdline") \
		kunit.enable=1 kunit.filter_glob=kasan.kmalloc_uaf >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "a run with a KASAN report passed"
	expect_match out '^PROBLEM kernel splat on the console'
	expect_match out '^  \| .*BUG: KASAN: .*use-after-free'
	expect_match out '^    ok 5 full_map_rejects_new_key'
	expect_match out '^5 passed, 1 failed, 0 skipped$'
}
