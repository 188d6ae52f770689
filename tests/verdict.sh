# SPDX-License-Identifier: GPL-2.0
# tools/report/verdict on captured console logs (tests/fixtures/).

verdict() {
	rc=0
	"$KIT/tools/report/verdict" "$1" >out 2>&1 || rc=$?
	echo "$rc"
}

test_passing_run_passes() {
	r=$(fixture_run pass reuse-after-gp 0)
	[ "$(verdict "$r")" = 0 ] || fail "verdict failed a passing run"
	expect_match out '^8 passed, 0 failed, 0 skipped$'
}

test_failing_case_fails_the_run() {
	# The same log with one case turned into a failure.
	r=$(fixture_run pass reuse-after-gp 1)
	sed -i 's/^    ok 2 overwrite_replaces_value/    not ok 2 overwrite_replaces_value/' "$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "verdict passed a run with a failed case"
	expect_match out '^FAIL  htab_syscall.overwrite_replaces_value$'
	expect_match out '^7 passed, 1 failed, 0 skipped$'
}

test_expected_failure_on_base() {
	r=$(fixture_run reuse-base base 1)
	[ "$(verdict "$r")" = 0 ] || fail "the declared failure on base failed the run"
	expect_match out '^XFAIL reuse.no_immediate_reuse'
	expect_match out '1 expected failures on base'
}

test_same_failure_on_other_variant_fails() {
	r=$(fixture_run reuse-base reuse-after-gp 1)
	[ "$(verdict "$r")" = 1 ] || fail "immediate reuse passed on reuse-after-gp"
	expect_match out '^FAIL  reuse.no_immediate_reuse$'
}

test_unexpected_pass_fails() {
	r=$(fixture_run reuse-base base 0)
	sed -i 's/^    not ok 1 no_immediate_reuse/    ok 1 no_immediate_reuse/' "$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "XPASS did not fail the run"
	expect_match out '^XPASS reuse.no_immediate_reuse'
}

test_panic_fails_with_last_lines() {
	r=$(fixture_run panic reuse-after-gp 134)
	[ "$(verdict "$r")" = 1 ] || fail "a panic passed"
	expect_match out '^PROBLEM guest panicked'
	expect_match out '^  \| .*Kernel panic'
}

test_hang_fails_with_last_lines() {
	r=$(fixture_run hang reuse-after-gp timeout)
	[ "$(verdict "$r")" = 1 ] || fail "a hung guest passed"
	expect_match out '^PROBLEM guest hung: killed after 300 s'
	expect_match out '^  \| .*overwrite_memory_bounded'
	expect_match out 'report incomplete'
}

test_splat_fails_a_run_whose_tests_passed() {
	for s in kasan lockdep warning kmemleak; do
		r=$(fixture_run pass reuse-after-gp 0)
		# A splat of the kind, inserted after the first test's result,
		# where the kernel would print it.
		sed -i "/^ok 1 htab_syscall/r $TESTS/fixtures/splat-$s.txt" "$r/console.log"
		[ "$(verdict "$r")" = 1 ] || fail "a $s splat did not fail the run"
		expect_match out '^PROBLEM kernel splat on the console'
		expect_match out '^8 passed, 1 failed'
		rm -rf "$r"
	done
}

test_test_diagnostics_are_not_splats() {
	r=$(fixture_run pass reuse-after-gp 0)
	sed -i 's/^    ok 1 update_then_lookup/    # WARNING: a test may say this\n    ok 1 update_then_lookup/' "$r/console.log"
	[ "$(verdict "$r")" = 0 ] || fail "a test's diagnostic counted as a splat"
}

test_no_ktap_fails() {
	r=$(fixture_run panic reuse-after-gp 0)
	sed -i '/KTAP/d' "$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "a run with no KTAP passed"
	expect_match out 'no KTAP report'
}

test_kunit_parser_accepts_fixtures() {
	for f in pass reuse-base; do
		expect_kunit_parses "$f"
	done
}

test_suite_pattern_in_expected_failures() {
	printf 'other\treuse.*\tthe whole suite fails on other\n' >expected
	r=$(fixture_run reuse-base other 1)
	rc=0
	EXPECTED=$T/expected "$KIT/tools/report/verdict" "$r" >out 2>&1 || rc=$?
	[ $rc -eq 1 ] || fail "passing cases of an all-fail suite did not fail the run"
	expect_match out '^XFAIL reuse.no_immediate_reuse'
	expect_match out '^XPASS reuse.overwrite_memory_bounded'
}

test_real_kasan_report_fails_a_passing_run() {
	r=$(fixture_run kasan reuse-after-gp 0)
	[ "$(verdict "$r")" = 1 ] || fail "a run with a KASAN report passed"
	expect_match out '^PROBLEM kernel splat on the console'
	expect_match out '^  \| .*BUG: KASAN: use-after-free in kmalloc_uaf'
	expect_match out '^5 passed, 1 failed, 0 skipped$'
}

test_expected_failure_for_every_variant() {
	printf '*\treuse.no_immediate_reuse\tfails everywhere\n' >expected
	r=$(fixture_run reuse-base some-variant 1)
	rc=0
	EXPECTED=$T/expected "$KIT/tools/report/verdict" "$r" >out 2>&1 || rc=$?
	[ $rc -eq 0 ] || fail "a failure declared for every variant failed the run"
	expect_match out '^XFAIL reuse.no_immediate_reuse \(fails everywhere\)'
	printf '*\thtab_syscall.update_then_lookup\tfails everywhere\n' >expected
	r=$(fixture_run pass other-variant 0)
	rc=0
	EXPECTED=$T/expected "$KIT/tools/report/verdict" "$r" >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "a pass of a case declared to fail everywhere was accepted"
	expect_match out '^XPASS htab_syscall.update_then_lookup'
}
