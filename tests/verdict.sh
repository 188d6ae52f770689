# SPDX-License-Identifier: GPL-2.0
# tools/report/verdict and the judge on captured console logs
# (tests/fixtures/, captured anew by tests/fixtures/regen).  The judge
# runs with ASan and UBSan here.
JUDGE=$KIT/build/host/asan/judge
export JUDGE
# shellcheck source=scripts/ktap.sh
. "$KIT/scripts/ktap.sh"

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

test_run_conf_with_the_old_where_key_is_refused() {
	# A stress run's directory from before the key was renamed: judged
	# by default as selftests, it would pass on the wrong expectations.
	r=$(fixture_run pass reuse-after-gp 0)
	sed -i 's/^producer=selftests$/where=stress/' "$r/run.conf"
	[ "$(verdict "$r")" = 2 ] || fail "verdict judged a run.conf with where="
	expect_match out 'run.conf has where=, now producer=: rename the key$'
}

test_failing_case_fails_the_run() {
	# The same log with one case turned into a failure.
	r=$(fixture_run pass reuse-after-gp 1)
	sed -i 's/^    ok 2 overwrite_replaces_value/    not ok 2 overwrite_replaces_value/
		s/^ok 1 htab_syscall/not ok 1 htab_syscall/' "$r/console.log"
	announce "$r" 1
	[ "$(verdict "$r")" = 1 ] || fail "verdict passed a run with a failed case"
	expect_match out '^FAIL  htab_syscall.overwrite_replaces_value$'
	expect_match out '^7 passed, 1 failed, 0 skipped$'
}

test_expected_failure_on_vanilla() {
	r=$(fixture_run reuse-vanilla vanilla 1)
	[ "$(verdict "$r")" = 0 ] || fail "the declared failure on vanilla failed the run"
	expect_match out '^XFAIL reuse.no_immediate_reuse'
	expect_match out '2 expected failures on vanilla'
}

test_same_failure_on_other_variant_fails() {
	r=$(fixture_run reuse-vanilla reuse-after-gp 1)
	[ "$(verdict "$r")" = 1 ] || fail "immediate reuse passed on reuse-after-gp"
	expect_match out '^FAIL  reuse.no_immediate_reuse$'
}

test_unexpected_pass_fails() {
	r=$(fixture_run reuse-vanilla vanilla 0)
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
	expect_match out '^FAIL  report: 0 of 1 planned suites reported'
	expect_match out '^FAIL  reuse: cut off: no result line for the suite'
}

test_splat_fails_a_run_whose_tests_passed() {
	for s in kasan lockdep warning kmemleak wait-context; do
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
	# Nor any other kernel words in a test's or init's diagnostics, or
	# in the diagnostics of a KUnit case (printed by the kernel).
	cat >diagnostics <<-'EOF'
	    # BUG kmalloc-96 (Not tainted): a test quoting SLUB
	    # refcount_t: underflow, as a test's words
	    # page allocation failure: order:0 is what this case provokes
	    #
	[    0.110000]     # kasan_test: WARNING: a KUnit case's diagnostic
	EOF
	sed -i "/^    ok 2 overwrite_replaces_value/r diagnostics" "$r/console.log"
	echo '# kmemleak: Kernel memory leak detector disabled, init quoting it' >top
	sed -i "/^ok 1 htab_syscall/r top" "$r/console.log"
	[ "$(verdict "$r")" = 0 ] || fail "a diagnostic counted as a splat: $(grep -A 3 PROBLEM out)"
	[ ! -s "$r/splats" ] || fail "splats not empty: $(cat "$r/splats")"
}

# pass.log with the console lines of FILE inserted after the first
# suite's result, where the kernel would print them.
with_console_lines() {
	r=$(fixture_run pass reuse-after-gp 0)
	sed -i "/^ok 1 htab_syscall/r $1" "$r/console.log"
	echo "$r"
}

test_every_kind_of_splat_fails_a_run() {
	# One line of each family tools/report/splats knows, alone.
	grep -v '^#' "$TESTS/fixtures/splat-lines.txt" >lines
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		printf '%s\n' "$line" >line
		r=$(with_console_lines line)
		[ "$(verdict "$r")" = 1 ] || fail "a run whose console shows this passed: $line"
		expect_match out '^PROBLEM kernel splat on the console'
		expect_match out '^8 passed, 1 failed'
		grep -qF -- "$line" "$r/splats" || fail "not in splats: $line"
		rm -rf "$r"
	done <lines
	[ "$n" -ge 40 ] || fail "only $n lines in tests/fixtures/splat-lines.txt"
}

test_slub_report_fails_a_run() {
	# What slub_debug=FZP prints for a write after free (6.1's slab_bug()).
	cat >slub <<-'EOF'
	[    1.230000] =============================================================================
	[    1.230000] BUG kmalloc-96 (Not tainted): Poison overwritten
	[    1.230000] -----------------------------------------------------------------------------
	[    1.230000]
	[    1.230000] 0x000000006d2f1e48-0x000000006d2f1e4f @offset=8. First byte 0x0 instead of 0x6b
	[    1.230000] Slab 0x000000006e9b4a00 objects=42 used=42 fp=0x0000000000000000 flags=0x200(slab|zone=0)
	[    1.230000] Object 0x000000006d2f1e40 @offset=3648 fp=0x000000006d2f1ea0
	[    1.230000] FIX kmalloc-96: Restoring Poison 0x000000006d2f1e48-0x000000006d2f1e4f=0x6b
	[    1.230000] FIX kmalloc-96: Marking all objects used
	EOF
	r=$(with_console_lines slub)
	[ "$(verdict "$r")" = 1 ] || fail "a SLUB report passed"
	expect_match out '^PROBLEM kernel splat on the console'
	expect_match out '^  \| [0-9]+:\[ *1\.230000\] BUG kmalloc-96 \(Not tainted\): Poison overwritten$'
}

test_splat_interleaved_into_a_test_line_fails() {
	# printk put a report's header into the middle of a case's result
	# line; the test's output resumes on the next line.
	r=$(fixture_run pass reuse-after-gp 0)
	sed -i 's/^\(    ok 2 overwrite_\)\(replaces_value\)/\1[    1.230000] BUG kmalloc-96 (Not tainted): Poison overwritten\n\2/' "$r/console.log"
	grep -q '^    ok 2 overwrite_\[' "$r/console.log" || fail "no line to interleave into"
	[ "$(verdict "$r")" = 1 ] || fail "a SLUB report inside a result line passed"
	expect_match out '^  \| [0-9]+:    ok 2 overwrite_\[ *1\.230000\] BUG kmalloc-96'
	# Into a diagnostic, which alone would not count.
	r=$(fixture_run pass reuse-after-gp 0)
	sed -i 's/^    ok 1 update_then_lookup/    # updated 1024 keys, [    1.230000] refcount_t: addition on 0; use-after-free.\nlooked up 1024\n&/' "$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "a refcount_t warning inside a diagnostic passed"
	expect_match out '^PROBLEM kernel splat on the console'
	expect_match out '^  \| [0-9]+:    # updated 1024 keys, \[ *1\.230000\] refcount_t: addition on 0'
	expect_match out '^8 passed, 1 failed'
}

# pass.log as a kernel with kmemleak prints it: kmemleak initialised at
# boot, then the lines of FILE after the last suite (init's report).
kmemleak_run() {
	r=$(fixture_run pass reuse-after-gp 0)
	sed -i '/Run \/sbin\/init as init process/i [    0.070000] kmemleak: Kernel memory leak detector initialized (mem pool available: 15782)' "$r/console.log"
	sed -i "/^ok 2 htab_xdp/r $1" "$r/console.log"
	echo "$r"
}

test_kmemleak_report_missing_fails() {
	echo '# kmemleak: 0 leaks after the tests' >report
	r=$(kmemleak_run report)
	[ "$(verdict "$r")" = 0 ] || fail "a clean kmemleak run failed: $(grep -A 3 -E '^(FAIL|PROBLEM)' out)"
	# init printed nothing about kmemleak.
	: >report
	r=$(kmemleak_run report)
	[ "$(verdict "$r")" = 1 ] || fail "a kmemleak kernel without init's kmemleak line passed"
	expect_match out '^PROBLEM kmemleak was on, but init printed no "# kmemleak: N leaks after the tests"'
	# kmemleak switched itself off mid-run: init's scan is refused.
	echo '[    1.230000] kmemleak: Kernel memory leak detector disabled' >off
	echo '# init: kmemleak scan: Operation not permitted' >report
	r=$(kmemleak_run report)
	sed -i "/^ok 1 htab_syscall/r off" "$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "kmemleak disabling itself passed"
	expect_match out '^PROBLEM kernel splat on the console'
	expect_match out '^  \| [0-9]+:\[ *1\.230000\] kmemleak: Kernel memory leak detector disabled$'
	expect_match out '^PROBLEM kmemleak was on'
	expect_match out '^  \| # init: kmemleak scan: Operation not permitted$'
	# A guest killed mid-run fails for that, not for kmemleak.
	r=$(fixture_run hang reuse-after-gp timeout)
	sed -i '/Run \/sbin\/init as init process/i [    0.070000] kmemleak: Kernel memory leak detector initialized (mem pool available: 15782)' "$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "a hung guest passed"
	expect_no_match out 'kmemleak was on'
}

test_no_ktap_fails() {
	r=$(fixture_run panic reuse-after-gp 0)
	sed -i '/KTAP/d' "$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "a run with no KTAP passed"
	expect_match out 'no KTAP report'
}

test_kunit_parser_accepts_fixtures() {
	for f in pass reuse-vanilla; do
		expect_kunit_parses "$f"
	done
}

test_suite_pattern_in_expectations() {
	printf 'case reuse.*\nproducer selftests\nvariant other\nshows .\nwhy the whole suite fails on other\n' >expected
	r=$(fixture_run reuse-vanilla other 1)
	rc=0
	EXPECT=$SCRATCH/expected "$KIT/tools/report/verdict" "$r" >out 2>&1 || rc=$?
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

# The fallback cases' skips of reuse-vanilla.log, allowed everywhere.
fallback_skips() {
	printf '\ncase reuse.*_fallback\nproducer selftests\nvariant *\nskip fail_bpf_reuse_batch\nwhy no knob\n'
}

test_expected_failure_for_every_variant() {
	{
		printf 'case reuse.no_immediate_*reuse\nproducer selftests\nvariant *\nshows reused\nwhy fails everywhere\n'
		fallback_skips
	} >expected
	r=$(fixture_run reuse-vanilla some-variant 1)
	rc=0
	EXPECT=$SCRATCH/expected "$KIT/tools/report/verdict" "$r" >out 2>&1 || rc=$?
	[ $rc -eq 0 ] || fail "a failure declared for every variant failed the run"
	expect_match out '^XFAIL reuse.no_immediate_reuse \(fails everywhere\)'
	printf 'case htab_syscall.update_then_lookup\nproducer selftests\nvariant *\nshows .\nwhy fails everywhere\n' >expected
	r=$(fixture_run pass other-variant 0)
	rc=0
	EXPECT=$SCRATCH/expected "$KIT/tools/report/verdict" "$r" >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "a pass of a case declared to fail everywhere was accepted"
	expect_match out '^XPASS htab_syscall.update_then_lookup'
}

# --- the holes the judge once had, each a run it must fail -----------------

# reuse-vanilla cut to its first case (the expected failure), then the
# suite killed by a signal, as init reports it.
crashed_after_xfail() {
	sed -n '1,/^    not ok 1 no_immediate_reuse/p' "$TESTS/fixtures/reuse-vanilla.log" >"$1/console.log"
	{
		ktap_diag "reuse: killed by signal 11"
		ktap_result "not ok" 1 reuse
	} >>"$1/console.log"
}

test_crash_after_expected_failure_fails() {
	r=$(fixture_run reuse-vanilla vanilla 1)
	crashed_after_xfail "$r"
	[ "$(verdict "$r")" = 1 ] || fail "a suite killed after its expected failure passed"
	expect_match out '^XFAIL reuse.no_immediate_reuse'
	expect_match out '^FAIL  reuse: 1 of [0-9]+ planned cases reported'
	expect_match out '^FAIL  reuse: killed by signal 11'
}

test_cut_off_test_verifier_fails() {
	r=$(fixture_run upstream-verifier reuse-after-gp 1 producer=upstream tests=test_verifier,test_lru_map)
	# The first 500 cases of test_verifier, then its per-suite timeout.
	awk '/^    (not )?ok [0-9]+ / && ++n > 500 { exit } { print }' \
		"$TESTS/fixtures/upstream-verifier.log" >"$r/console.log"
	ktap_result "not ok" 2 test_verifier "timeout after 840 s" >>"$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "a test_verifier cut off after 500 cases passed"
	expect_match out '^FAIL  test_verifier: [0-9]+ of [0-9]+ planned cases reported'
	expect_match out '^FAIL  test_verifier: timed out'
}

test_expected_failure_for_the_wrong_reason_fails() {
	r=$(fixture_run reuse-vanilla vanilla 1)
	# The case failed, but because its program did not load.
	sed -i '/deleted element reused within the same program run/d; /first: the old pointer/d' "$r/console.log"
	sed -i 's/^\(    # .*expected reused == 0.*\)$/    # reuse_checks.c:40: expected skel: cannot load the program/' "$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "an expected failure without its diagnostic passed"
	expect_match out '^FAIL  reuse.no_immediate_reuse: expected to fail showing /.*deleted element reused.*/'
	expect_no_match out '^XFAIL'
}

# reuse-vanilla as if no_immediate_reuse and no_immediate_percpu_reuse (the
# cases vanilla is expected to fail) were gone from the suite's table: two
# cases fewer in the plan, each with the lines it printed, the suite passed.
without_expected_case() {
	tr -d '\r' <"$TESTS/fixtures/reuse-vanilla.log" | awk '
		/^    # Subtest: reuse$/ { in_reuse = 1; print; next }
		in_reuse && /^    1\.\.[0-9]+$/ { print "    1.." substr($0, 8) - 2; next }
		in_reuse && /^    # / { held = held $0 "\n"; next }
		in_reuse && /^    not ok [0-9]+ no_immediate_(percpu_)?reuse$/ { held = ""; dropped++; next }
		in_reuse && /^    (not )?ok [0-9]+ / {
			n = $0; sub(/^    (not )?ok /, "", n); sub(/ .*/, "", n)
			sub(" " n " ", " " n - dropped " ")
			printf "%s", held; held = ""; print; next
		}
		/^(not )?ok / { in_reuse = 0; printf "%s", held; held = "" }
		/^not ok [0-9]+ reuse$/ { sub(/^not ok/, "ok") }
		{ print }' >"$1/console.log"
	announce "$1" 0
}

test_expected_case_that_did_not_run_fails() {
	r=$(fixture_run reuse-vanilla vanilla 0)
	without_expected_case "$r"
	[ "$(verdict "$r")" = 1 ] || fail "a run without its expected case passed"
	expect_match out '^FAIL  reuse.no_immediate_reuse: expected to fail .*but did not run'
	# Unless the run's filter left it out.
	r=$(fixture_run reuse-vanilla vanilla 0 'tests=reuse.!(no_immediate_*reuse)')
	without_expected_case "$r"
	[ "$(verdict "$r")" = 0 ] || fail "a case the filter left out was missed: $(grep FAIL out)"
}

test_identity_keys_keep_expectations() {
	# KERNEL_SRC: the variant's name is plain, the base its own key.
	r=$(fixture_run reuse-vanilla vanilla 1 base=6.1)
	[ "$(verdict "$r")" = 0 ] || fail "vanilla's expected failure was lost with KERNEL_SRC"
	expect_match out '^XFAIL reuse.no_immediate_reuse'
	# Stock ARCH=um: every variant has the irq_work expectations.
	for v in vanilla reuse-after-gp; do
		r=$(fixture_run stock-irq "$v" 1 uml=no tests=irq_work)
		rc=0
		"$KIT/tools/report/verdict" "$r" >out 2>&1 || rc=$?
		[ $rc -eq 0 ] || fail "stock UML's irq_work failures were not expected on $v: $(grep -E '^(FAIL|PROBLEM)' out | head -n 3)"
		expect_match out '^XFAIL irq_work.xdp_updates_8 '
		expect_no_match out '^FAIL'
	done
	# The same log with uml/patches applied is a plain failure.
	r=$(fixture_run stock-irq vanilla 1 uml=yes tests=irq_work)
	[ "$(verdict "$r")" = 1 ] || fail "irq_work failures passed with uml/patches"
}

test_odd_exit_status_fails() {
	for status in 139 1 137; do
		r=$(fixture_run pass reuse-after-gp "$status")
		[ "$(verdict "$r")" = 1 ] || fail "./linux exit status $status passed a run whose suites passed"
		expect_match out "^PROBLEM ./linux exited with $status, but init announced 0"
		rm -rf "$r"
	done
	# A guest that stopped before init's last line: no announced status.
	r=$(fixture_run pass reuse-after-gp 0)
	sed -i '/^# init: exit status/d' "$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "a run without init's exit status passed"
	expect_match out "^PROBLEM ./linux exited with 0, but init never announced an exit status"
	r=$(fixture_run reuse-vanilla vanilla 0)
	[ "$(verdict "$r")" = 1 ] || fail "exit status 0 with a failed suite passed"
}

test_suite_status_disagreeing_with_cases_fails() {
	r=$(fixture_run pass reuse-after-gp 1)
	sed -i 's/^ok 1 htab_syscall/not ok 1 htab_syscall/' "$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "a suite that failed after its cases passed was accepted"
	expect_match out '^FAIL  htab_syscall: exited with a failure after its cases passed'
}

test_fixtures_are_current() {
	# Every suite of a fixture has today's cases, in today's order.
	for f in pass reuse-vanilla stock-irq sleepable-loads sleepable-refused; do
		for suite in $(sed -n 's/^    # Subtest: //p' "$TESTS/fixtures/$f.log" | tr -d '\r'); do
			bin=$KIT/build/rootfs/bin/$suite
			[ -x "$bin" ] || skip "$bin not built (make rootfs)"
			"$bin" --list >today || fail "$bin --list failed"
			tr -d '\r' <"$TESTS/fixtures/$f.log" | awk -v s="$suite" '
				$0 == "    # Subtest: " s { on = 1; next }
				on && /^    (not )?ok [0-9]+ / { sub(/^    (not )?ok [0-9]+ /, ""); sub(/ #.*/, ""); print }
				on && /^(not )?ok / { exit }' >captured
			cmp -s today captured ||
				fail "tests/fixtures/$f.log: $suite's cases are not today's (tests/fixtures/regen $f): $(diff captured today | head -n 4 | tr '\n' ' ')"
		done
	done
}

test_sum_adds_every_run() {
	mkdir -p a b
	r=$(fixture_run pass reuse-after-gp 0)
	"$KIT/tools/report/verdict" "$r" >/dev/null
	r2=$(fixture_run reuse-vanilla vanilla 1)
	"$KIT/tools/report/verdict" "$r2" >/dev/null
	rc=0
	"$JUDGE" --sum "$r" "$r2" >out || rc=$?
	[ $rc -eq 0 ] || fail "two passing runs did not add up to a pass"
	expect_match out '^13 passed, 0 failed, 3 skipped \(2 expected failures\)$'
	rc=0
	"$JUDGE" --sum "$r" missing-dir >out || rc=$?
	[ $rc -eq 1 ] || fail "a run without results added up to a pass"
	expect_match out '^FAIL  missing-dir: no results'
	# The total names the failed case of a failed run, and where it ran.
	r3=$(fixture_run reuse-vanilla reuse-after-gp 1)
	"$KIT/tools/report/verdict" "$r3" >/dev/null || true
	rc=0
	"$JUDGE" --sum "$r" "$r3" >out || rc=$?
	[ $rc -eq 1 ] || fail "a failed run added up to a pass"
	expect_match out "^FAIL  $r3: reuse.no_immediate_reuse"
}

# --- the holes an expected failure once hid, each a run the judge must fail

test_expected_failure_is_its_failed_check_alone() {
	# tools/uspace's no_reuse_before_gp on vanilla, three ways: the evidence
	# in the failed check (asan), the evidence printed before a leak check
	# that failed (tsan: reuse_check() before 91f00c1), and the evidence with a
	# Valgrind report in the case (valgrind).
	rc=0
	"$JUDGE" --producer uspace --base 6.1 --variant vanilla --expect "$KIT/tools/report/expectations" \
		"$TESTS/fixtures/uspace-xfail.ktap" >out 2>&1 || rc=$?
	[ $rc -eq 1 ] || fail "judge exited $rc, not 1"
	expect_match out '^XFAIL asan.no_reuse_before_gp '
	expect_match out '^FAIL  tsan.no_reuse_before_gp: expected to fail showing .* in its failed check, but it said: .*expected uspace_mem_live\(\) == \(base\): 4096 bytes still allocated'
	expect_match out '^FAIL  valgrind.no_reuse_before_gp: .* but a tool reported: ==4242== Invalid read of size 8$'
}

test_expected_failure_with_another_failed_check_fails() {
	r=$(fixture_run reuse-vanilla vanilla 1)
	sed -i 's|^\(    #   first: the old pointer.*\)$|\1\n    # tools/lib/reuse_checks.c:80: expected !leaked: 2 elements still allocated|' "$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "an expected failure with a second failed check passed"
	expect_match out '^FAIL  reuse.no_immediate_reuse: expected to fail .* on one failed check, but another failed too: tools/lib/reuse_checks.c:80: expected !leaked'
}

test_evidence_before_the_failed_check_is_none() {
	# The guest's format before this rule: the count printed, then a
	# check whose message does not show it.
	r=$(fixture_run reuse-vanilla vanilla 1)
	sed -i 's|^    # tools/lib/reuse_checks.c:[0-9]*: expected reused == 0: \(deleted element reused .*runs\)\(\r*\)$|    # \1\2\n    # tools/lib/reuse_checks.c:76: expected reused == 0: freed elements were reused before a grace period\2|' "$r/console.log"
	grep -q 'freed elements were reused' "$r/console.log" || fail "the fixture did not change"
	[ "$(verdict "$r")" = 1 ] || fail "evidence printed before the failed check counted"
	expect_match out '^FAIL  reuse.no_immediate_reuse: expected to fail showing /.*deleted element reused.*/ .* in its failed check, but it said: .*freed elements were reused'
}

test_run_of_no_suite_fails() {
	# init prints 1..0 and exits 1; whatever it exits, the run fails.
	for status in 1 0; do
		r=$(fixture_run empty-run reuse-after-gp "$status")
		[ "$(verdict "$r")" = 1 ] || fail "a run of no suite passed (exit $status)"
		expect_match out '^FAIL  report: no suite ran \(the report.s plan is 1\.\.0\)$'
		rm -rf "$r"
	done
}

test_suite_of_the_image_that_did_not_run_fails() {
	# pass.log ran htab_syscall and htab_xdp; the image had six suites.
	for filter in all 'htab_*' 'reuse.no_*,htab_syscall,htab_xdp'; do
		r=$(fixture_run pass reuse-after-gp 0 "tests=$filter")
		cp "$TESTS/fixtures/rootfs-suites" "$r/suites"
		echo "suites=$r/suites" >>"$r/run.conf"
		[ "$(verdict "$r")" = 1 ] || fail "a suite missing from the report passed (filter $filter)"
		case $filter in
		reuse*) expect_match out '^FAIL  reuse: built into the image .* and chosen by the filter .*, but did not run$' ;;
		*) expect_match out '^FAIL  htab_spin_lock: built into the image .*, but did not run$' ;;
		esac
		expect_no_match out '^FAIL  htab_(syscall|xdp)'
		rm -rf "$r"
	done
	# Those the filter left out need not run.
	for filter in htab_syscall,htab_xdp 'htab_sys*,htab_xdp.prog_*'; do
		r=$(fixture_run pass reuse-after-gp 0 "tests=$filter")
		cp "$TESTS/fixtures/rootfs-suites" "$r/suites"
		echo "suites=$r/suites" >>"$r/run.conf"
		[ "$(verdict "$r")" = 0 ] || fail "filter $filter: $(grep -E '^(FAIL|PROBLEM)' out | head -n 3)"
		rm -rf "$r"
	done
}

judge_kit() {
	rc=0
	"$JUDGE" --producer kit --expect "$KIT/tools/report/expectations" "$@" >out 2>&1 || rc=$?
	echo $rc
}

test_repeated_test_numbers_fail() {
	[ "$(judge_kit "$TESTS/fixtures/dup-numbers.ktap")" = 1 ] || fail "1..3; ok 1 a; ok 1 a; ok 1 a passed"
	expect_match out '^FAIL  a: numbered 1 where 2 comes'
	expect_match out '^FAIL  a: numbered 1 where 3 comes'
}

test_not_ok_skip_is_a_failure() {
	[ "$(judge_kit "$TESTS/fixtures/not-ok-skip.ktap")" = 1 ] || fail "not ok # SKIP passed"
	expect_match out '^FAIL  suite.b: not ok with a SKIP directive \(not ready\): a failure$'
	expect_no_match out '^SKIP'
}

test_undeclared_skip_fails() {
	r=$(fixture_run pass reuse-after-gp 0)
	sed -i 's/^    ok 2 overwrite_replaces_value/    ok 2 overwrite_replaces_value # SKIP not today/' "$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "an undeclared skip passed"
	expect_match out "^FAIL  htab_syscall.overwrite_replaces_value: skipped \(not today\), but no skip of it is declared for producer selftests, variant reuse-after-gp, base 6.1"
	# reuse-after-gp on 6.1 has the fallback knob: its fallback cases may
	# not skip, where vanilla's may.
	r=$(fixture_run reuse-vanilla reuse-after-gp 1)
	verdict "$r" >/dev/null
	expect_match out '^FAIL  reuse.no_immediate_reuse_fallback: skipped \(no /sys/kernel/debug/fail_bpf_reuse_batch'
	r=$(fixture_run reuse-vanilla vanilla 1)
	[ "$(verdict "$r")" = 0 ] || fail "vanilla's fallback skips failed: $(grep FAIL out | head -n 2)"
	expect_match out '^SKIP  reuse.no_immediate_reuse_fallback # no /sys/kernel/debug/fail_bpf_reuse_batch'
}

test_skip_stanza_names_several_cases() {
	# A 'skip' stanza may list its cases, a 'case' line each (the tree's
	# own skips of tools/upstream); a case it does not list may not skip.
	printf '%s\n' 'KTAP version 1' '1..1' '    KTAP version 1' '    # Subtest: s' '    1..3' \
		'    ok 1 a # SKIP no such type' '    ok 2 b # SKIP no such type' \
		'    ok 3 c # SKIP no such type' 'ok 1 s' >skips.ktap
	printf 'case s.a\ncase s.b\nproducer kit\nvariant *\nskip ^no such type$\nwhy listed\n' >expected
	rc=0
	"$JUDGE" --producer kit --expect expected skips.ktap >out 2>&1 || rc=$?
	[ $rc -eq 1 ] || fail "judge exited $rc, not 1"
	expect_match out '^SKIP  s\.a # no such type$'
	expect_match out '^SKIP  s\.b # no such type$'
	expect_match out '^FAIL  s\.c: skipped \(no such type\), but no skip of it is declared'
	# An expected failure is a stanza of its own, so that each one that
	# did not run is named.
	printf 'case s.a\ncase s.b\nproducer kit\nvariant *\nshows .\nwhy two\n' >expected
	rc=0
	"$JUDGE" --producer kit --expect expected skips.ktap >out 2>&1 || rc=$?
	[ $rc -eq 2 ] || fail "several cases in a failure stanza were accepted (exit $rc)"
	expect_match out "s\.b: several 'case' lines are for a 'skip' stanza"
}

test_every_kit_skip_is_declared() {
	# Each skip "REASON" of tests/, its $variables made words, must be
	# allowed for producer "kit": an undeclared one would fail make test.
	grep -h -E '(^|[[:space:]])skip "' "$TESTS"/*.sh | grep -v "sed -n" |
		sed -n 's/.*skip "\([^"]*\)".*/\1/p' | grep -vx REASON |
		sed 's/\$([^)]*)/x/g; s/\${[^}]*}/x/g; s/\$[A-Za-z_0-9]*/x/g' | sort -u >reasons
	[ "$(wc -l <reasons)" -gt 10 ] || fail "found only $(wc -l <reasons) skip reasons in tests/"
	{
		echo "KTAP version 1"
		echo "1..$(wc -l <reasons)"
		awk '{ print "ok " NR " case_" NR " # SKIP " $0 }' reasons
	} >skips.ktap
	[ "$(judge_kit skips.ktap)" = 0 ] || fail "undeclared kit skips: $(grep '^FAIL' out | head -n 3)"
}

test_two_headers_at_one_level_keep_the_first() {
	[ "$(judge_kit "$TESTS/fixtures/two-headers.ktap")" = 1 ] || fail "a suite lost to a second KTAP header passed"
	expect_match out '^FAIL  first.fails$'
	expect_match out '^FAIL  first: cut off: no result line for the suite before the next KTAP header'
}

test_suite_of_no_cases_is_no_pass() {
	[ "$(judge_kit "$TESTS/fixtures/empty-suite.ktap")" = 1 ] || fail "a suite of no cases passed"
	expect_match out '^FAIL  lib: planned no cases \(1\.\.0\)$'
	expect_match out '^1 passed, 1 failed'
}

test_sleepable_maps_outcome_pinned_per_variant() {
	# Every variant and base not in tools/report/expectations must load.
	for id in reuse-after-gp:6.1 vanilla:6.1 percpu-marks:6.1 vanilla:6.12 reuse-after-gp:6.12; do
		r=$(fixture_run sleepable-loads "${id%:*}" 0 "base=${id#*:}" tests=sleepable_maps)
		[ "$(verdict "$r")" = 0 ] || fail "sleepable programs loading failed $id: $(grep -E '^(FAIL|XPASS)' out | head -n 2)"
	done
	# kmalloc-rcu and free-after-gp must refuse: a load there is an XPASS.
	for v in kmalloc-rcu free-after-gp; do
		r=$(fixture_run sleepable-loads "$v" 0 tests=sleepable_maps)
		[ "$(verdict "$r")" = 1 ] || fail "$v loading sleepable users of a no-prealloc hash passed"
		expect_match out '^XPASS sleepable_maps\.no_prealloc_hash_loads '
		expect_match out '^XPASS sleepable_maps\.no_prealloc_percpu_hash_loads '
		expect_match out '^XPASS sleepable_maps\.no_prealloc_hash_of_maps_loads '
		r=$(fixture_run sleepable-refused "$v" 1 tests=sleepable_maps)
		[ "$(verdict "$r")" = 0 ] || fail "$v refusing sleepable users failed: $(grep -E '^(FAIL|XPASS)' out | head -n 2)"
		expect_match out '3 expected failures on '"$v"
	done
	# A refusal anywhere else fails, and so does one for another reason.
	r=$(fixture_run sleepable-refused reuse-after-gp 1 tests=sleepable_maps)
	[ "$(verdict "$r")" = 1 ] || fail "reuse-after-gp refusing sleepable users passed"
	expect_match out '^FAIL  sleepable_maps\.no_prealloc_hash_loads$'
	r=$(fixture_run sleepable-refused kmalloc-rcu 1 tests=sleepable_maps)
	sed -i 's/refused (-22): Sleepable programs can only use preallocated hash maps/refused (-7): log without the refusal/' "$r/console.log"
	[ "$(verdict "$r")" = 1 ] || fail "a refusal without the verifier's reason passed on kmalloc-rcu"
	expect_match out '^FAIL  sleepable_maps\.no_prealloc_hash_loads: expected to fail showing'
}
