# SPDX-License-Identifier: GPL-2.0
# The upstream selftests' runner (tools/upstream): the case table made
# from the tree's test_maps.c, the denylist, and the per-case runner,
# on a stand-in tree (fixtures/upstream-tree) built and run on the host;
# then the real run's KTAP, captured (fixtures/upstream-test_maps.log).

FIXTURE_TREE=$TESTS/fixtures/upstream-tree

denylist() {
	printf '%s\n' '# comment' \
		'test_maps.*.denied	the reason it cannot run' \
		'test_maps.map_tests.needs_btf	needs kernel BTF' >DENYLIST
}

gen() {
	"$KIT/tools/upstream/gen-test-maps" "$FIXTURE_TREE" DENYLIST gen
}

# Build the runner on the stand-in tree, for the host (libbpf-dev).
build_runner() {
	gen
	cc -O1 -g -Wall -Wno-unused-function -Igen -I"$FIXTURE_TREE" -I"$KIT/tools/lib" \
		-DTEST_MAPS_DATA_DIR='"."' "$KIT/tools/upstream/test_maps_ktap.c" \
		$(cat gen/map_tests.list) "$KIT/tools/lib/ktap.c" -o test_maps -lbpf ||
		fail "the runner does not build on the stand-in tree"
}

test_cases_come_from_run_all_tests_twice() {
	denylist
	gen
	[ "$(grep -c '^CASE(prealloc_' gen/cases.h)" = 5 ] || fail "not 5 prealloc cases"
	[ "$(grep -c '^CASE(no_prealloc_' gen/cases.h)" = 5 ] || fail "not 5 no_prealloc cases"
	expect_match gen/cases.h '^CASE\(prealloc_1, "prealloc\.passes", 0, test_passes\(0, NULL\)\)$'
	expect_match gen/cases.h '"no_prealloc\.prints_flags", BPF_F_NO_PREALLOC, test_prints_flags\(\)'
	expect_match gen/cases.h '^MAP_TEST\(map_tests_one_crashes, "map_tests\.one_crashes", test_one_crashes\)$'
}

test_denylisted_cases_are_reported_and_not_built() {
	denylist
	gen
	expect_match gen/cases.h '^DENIED\(prealloc_6, "prealloc\.denied", "the reason it cannot run"\)$'
	expect_match gen/cases.h '^DENIED\(no_prealloc_6, "no_prealloc\.denied"'
	expect_match gen/cases.h '^DENIED\(map_tests_needs_btf, "map_tests\.needs_btf", "needs kernel BTF"\)$'
	expect_no_match gen/map_tests/tests.h 'needs_btf'
	expect_no_match gen/map_tests.list 'needs_btf\.c'
	expect_match gen/map_tests.list '/map_tests/one\.c$'
}

test_stale_denylist_entry_is_an_error() {
	denylist
	printf 'test_maps.prealloc.gone\tremoved upstream\n' >>DENYLIST
	rc=0
	gen >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "a denylist entry matching nothing was accepted"
	expect_match out 'test_maps\.prealloc\.gone matches no test_maps case'
}

test_not_a_selftests_tree_is_an_error() {
	denylist
	rc=0
	"$KIT/tools/upstream/gen-test-maps" "$T" DENYLIST gen >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "a directory without test_maps.c was accepted"
	expect_match out 'test_maps\.c not found'
}

test_runner_reports_each_case() {
	denylist
	build_runner
	rc=0
	./test_maps >out 2>&1 || rc=$?
	[ $rc -eq 1 ] || fail "a run with failing cases exited with $rc, not 1"
	expect_match out '^1\.\.15$'
	expect_match out '^# a line of upstream output$'
	expect_match out '^ok 1 prealloc\.passes$'
	expect_match out '^# map_flags=0x0$'
	expect_match out '^# map_flags=0x1$'
	expect_match out '^not ok 3 prealloc\.asserts$'
	expect_match out '^# killed by signal 6'
	expect_match out '^# test_checks\([0-9]+\):FAIL:check failed on purpose$'
	expect_match out '^not ok 4 prealloc\.checks$'
	expect_match out '^ok 5 prealloc\.skips # SKIP skipped by the upstream test$'
	expect_match out '^ok 6 prealloc\.denied # SKIP denylisted: the reason it cannot run$'
	expect_match out '^ok 13 map_tests\.needs_btf # SKIP denylisted: needs kernel BTF$'
	expect_match out '^ok 14 map_tests\.one_passes$'
	expect_match out '^# killed by signal 11'
	expect_match out '^not ok 15 map_tests\.one_crashes$'
	# Every line is KTAP: a result, a plan, a header or a diagnostic.
	! grep -Ev '^(ok |not ok |# |1\.\.|KTAP version )' out ||
		fail "lines of the runner's output above are not KTAP"
}

test_runner_case_filter() {
	denylist
	build_runner
	./test_maps 'no_prealloc.pass*' >out 2>&1 || fail "the one passing case failed"
	expect_match out '^1\.\.1$'
	expect_match out '^ok 1 no_prealloc\.passes$'
	# All but some, as make test runs test_maps (extended globs).
	./test_maps '!(*.asserts|*.checks|*.one_crashes)' >out 2>&1 || fail "excluding the failing cases did not pass"
	expect_match out '^1\.\.10$'
	expect_no_match out 'asserts|checks|crashes'
	rc=0
	./test_maps 'nothing*' >out 2>&1 || rc=$?
	[ $rc -eq 1 ] || fail "a filter matching no case did not fail"
	expect_match out 'no case of test_maps matches'
}

test_real_run_log_is_judged_and_parsed() {
	r=$(fixture_run upstream-test_maps reuse-after-gp 0)
	"$KIT/tools/report/verdict" "$r" >out 2>&1 || fail "the captured upstream run did not pass"
	expect_match out '^[0-9]+ passed, 0 failed, [0-9]+ skipped'
	sed 's/^\(    \)ok \(.* prealloc\.hashmap\)$/\1not ok \2/' "$r/console.log" >bad.log
	cp bad.log "$r/console.log"
	rc=0
	"$KIT/tools/report/verdict" "$r" >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "a failed upstream case did not fail the run"
	kunit=$(kunit_tool) || skip "no unpacked kernel tree with kunit.py (make kernel first)"
	tr -d '\r' <"$TESTS/fixtures/upstream-test_maps.log" >log
	python3 "$kunit" parse log >parsed 2>&1 || true
	expect_match parsed 'Testing complete\. Ran [0-9]+ tests'
	expect_no_match parsed 'ERROR|could not find|invalid KTAP'
}
