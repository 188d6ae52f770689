# SPDX-License-Identifier: GPL-2.0
# The mutation tests' own machinery (kernel/mutants): every mutant names
# cases that exist, and kernel/mutants/caught counts only those (or a
# splat), from the judge's results.json.

CAUGHT=$KIT/kernel/mutants/caught

# results DIR JSON: DIR/results.json
results() {
	mkdir -p "$1"
	printf '%s\n' "$2" >"$1/results.json"
}

test_every_mutant_names_cases_that_exist() {
	found=0
	"$KIT/kernel/mutants/run" --list >list || fail "kernel/mutants/run --list failed"
	while IFS='|' read -r bm desc catches flavor blind; do
		found=$((found + 1))
		base=${bm%%/*} name=${bm#*/}
		s=kernel/mutants/$bm/series
		[ -f "$KIT/kernel/bases/$base" ] || fail "$s: '$base' is not a base (kernel/bases/)"
		[ -n "$desc" ] || fail "$s: no description (its first line)"
		flavor=${flavor:-default}
		[ -f "$KIT/uml/configs/$flavor.config" ] ||
			fail "$s: '# flavor: $flavor' is not a flavor (uml/configs/<flavor>.config)"
		id=$(kit_identity "mutant-$name@$base:$flavor" 2>err) || fail "$s does not resolve: $(cat err)"
		[ -n "$(kit_fact mutant_of "$id")" ] || fail "$s: the kit does not judge it as the variant it includes"
		[ -n "$catches" ] || fail "$s has no '# catches:' line"
		[ "$catches" != none ] || [ -n "$blind" ] || fail "$s: '# catches: none' without a '# blind:' line saying why"
		for c in $catches; do
			case $c in
			none) [ "$catches" = none ] || fail "$s: 'none' with other cases" ;;
			guest:*.*)
				suite=${c#guest:} suite=${suite%%.*} case=${c#*.}
				[ -f "$KIT/tools/selftests/$suite.c" ] || fail "$s: no suite $suite (tools/selftests/$suite.c)"
				grep -q "{ \"$case\"," "$KIT/tools/selftests/$suite.c" ||
					fail "$s: suite $suite has no case $case" ;;
			uspace:*)
				grep -q "{ \"${c#uspace:}\"," "$KIT/tools/uspace/memalloc_test.c" ||
					fail "$s: tools/uspace/memalloc_test.c has no case ${c#uspace:}" ;;
			explore:*)
				# the invariants the explorer's xfail() names, and ASan's report
				case ${c#explore:} in
				asan) ;;
				*) cat "$KIT"/tools/uspace/explore/*.c | grep -q "\"${c#explore:}\"" ||
					fail "$s: no tools/uspace/explore/*.c names the invariant ${c#explore:}" ;;
				esac ;;
			*) fail "$s: '$c' is neither guest:SUITE.CASE, uspace:CASE, explore:INVARIANT nor none" ;;
			esac
		done
	done <list
	[ "$found" -gt 0 ] || fail "no mutants under kernel/mutants/<base>/<name>/series"
}

test_caught_only_by_the_intended_case_or_a_splat() {
	results other '{"cases": [{"name": "reuse.no_immediate_reuse", "outcome": "pass"},
		{"name": "reuse.overwrite_memory_bounded", "outcome": "fail"}], "problems": []}'
	rc=0
	out=$("$CAUGHT" --catches 'guest:reuse.no_immediate_reuse' --guest other) || rc=$?
	[ $rc -eq 1 ] || fail "another case's failure caught the mutant (exit $rc): $out"
	case $out in none\|missed\|*"reuse.no_immediate_reuse: pass"*"not counted: reuse.overwrite_memory_bounded"*) ;;
	*) fail "missed without its reason: $out" ;; esac

	results intended '{"cases": [{"name": "reuse.no_immediate_reuse", "outcome": "fail"}], "problems": []}'
	out=$("$CAUGHT" --catches 'guest:reuse.no_immediate_reuse' --guest intended) ||
		fail "the intended case failed, yet not caught: $out"
	case $out in guest\|caught\|*) ;; *) fail "not caught by the guest: $out" ;; esac

	results splat '{"cases": [{"name": "reuse.no_immediate_reuse", "outcome": "pass"}],
		"problems": ["kernel splat on the console:\nBUG: KASAN: use-after-free"]}'
	"$CAUGHT" --catches 'guest:reuse.no_immediate_reuse' --guest splat >out || fail "a splat is not counted: $(cat out)"

	results tool '{"cases": [{"name": "tsan.report", "outcome": "fail",
		"diagnostics": ["# WARNING: ThreadSanitizer: data race (pid=1)"]},
		{"name": "tsan.destroy_in_flight", "outcome": "pass"}], "problems": []}'
	"$CAUGHT" --catches 'uspace:destroy_in_flight' --uspace tool >out || fail "a TSan report is not counted: $(cat out)"

	results report '{"cases": [{"name": "asan.report", "outcome": "fail",
		"diagnostics": ["# ==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x1"]},
		{"name": "asan.destroy_in_flight", "outcome": "pass"}], "problems": []}'
	"$CAUGHT" --catches 'uspace:destroy_in_flight' --uspace report >out || fail "a TOOL.report case is not counted: $(cat out)"
	expect_match out 'asan report: ERROR: AddressSanitizer: heap-use-after-free'

	results tools '{"cases": [{"name": "asan.no_reuse_before_gp", "outcome": "pass"},
		{"name": "valgrind.no_reuse_before_gp", "outcome": "fail"}], "problems": []}'
	out=$("$CAUGHT" --catches 'uspace:no_reuse_before_gp' --uspace tools) ||
		fail "a tool's failure of the intended case is not counted: $out"
	case $out in *"no_reuse_before_gp (valgrind)"*) ;; *) fail "the tool is not named: $out" ;; esac

	# The explorer: an input that broke the named invariant catches; one
	# that broke another does not.
	results explore '{"cases": [{"name": "gp-join", "outcome": "fail",
		"diagnostics": ["# explore: FAIL (leak) at command 3: 96 bytes"]},
		{"name": "reuse-hold", "outcome": "pass"}], "problems": []}'
	rc=0
	out=$("$CAUGHT" --catches 'explore:reuse' --explore explore) || rc=$?
	[ $rc -eq 1 ] || fail "another invariant's failure caught the mutant (exit $rc): $out"
	"$CAUGHT" --catches 'explore:reuse explore:leak' --explore explore >out ||
		fail "the intended invariant failed, yet not caught: $(cat out)"
	expect_match out '^explore\|caught\|explore: gp-join: explore: FAIL \(leak\) at command 3'
}

test_caught_without_results_is_an_error() {
	mkdir empty
	rc=0
	"$CAUGHT" --catches 'guest:reuse.no_immediate_reuse' --guest empty >out || rc=$?
	[ $rc -eq 2 ] || fail "a run without results.json gave exit $rc: $(cat out)"
	rc=0
	"$CAUGHT" --catches 'guest:reuse.no_immediate_reuse' --guest - --blind 'guest: UP' >out || rc=$?
	[ $rc -eq 1 ] || fail "a producer not run caught the mutant (exit $rc)"
	expect_match out 'guest: not run \(UP\)'
}
