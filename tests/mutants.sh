# SPDX-License-Identifier: GPL-2.0
# The mutation tests' own machinery (kernel/mutants): every mutant names
# cases that exist and the evidence each producer's catch must show, and
# kernel/mutants/caught counts a catch only where that evidence was seen,
# from the judge's results.json (made up here, or judged from a captured
# console); kernel/mutants/run prints it and fails a mutant without it.

CAUGHT=$KIT/kernel/mutants/caught

# results DIR JSON: DIR/results.json
results() {
	mkdir -p "$1"
	printf '%s\n' "$2" >"$1/results.json"
}

test_every_mutant_names_cases_that_exist() {
	found=0
	"$KIT/kernel/mutants/run" --list >list || fail "kernel/mutants/run --list failed"
	tab=$(printf '\t')
	while IFS='|' read -r bm desc catches flavor blind evidence; do
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
		# The evidence: caught parses it (one evidence line an argument).
		[ "$catches" != none ] || continue
		set -f
		IFS=$tab
		# shellcheck disable=SC2086 # split at the tabs, no globbing
		set -- $evidence
		unset IFS
		set +f
		for e; do
			set -- "$@" --evidence "$e"
			shift
		done
		out=$("$CAUGHT" --check --catches "$catches" "$@") || fail "$s: ${out#*|error|}"
	done <list
	[ "$found" -gt 0 ] || fail "no mutants under kernel/mutants/<base>/<name>/series"
}

# caught CATCHES EVIDENCE... -- ARG...: kernel/mutants/caught's line in
# out, its exit status in rc.
caught() {
	catches=$1
	shift
	for e; do
		shift
		[ "$e" != -- ] || break
		set -- "$@" --evidence "$e"
	done
	rc=0
	"$CAUGHT" --catches "$catches" "$@" >out || rc=$?
}

# expect_caught BY REGEX, expect_missed REGEX: the verdict in out.
expect_caught() {
	[ "$rc" -eq 0 ] || fail "not caught (exit $rc): $(cat out)"
	expect_match out "^$1\|caught\|$2"
}

expect_missed() {
	[ "$rc" -eq 1 ] || fail "not missed (exit $rc): $(cat out)"
	expect_match out "^none\|missed\|$1"
}

REUSE='guest:reuse.no_immediate_reuse'
REUSED='guest: /deleted element reused within the same program run in [1-9]/'

# (a) The intended case failed with the evidence: caught, and the line is
# the detail.  (b) It failed saying something else: missed, "failed
# without its evidence".  Another case's failure catches nothing.
test_caught_only_with_its_evidence() {
	results intended '{"cases": [{"name": "reuse.no_immediate_reuse", "outcome": "fail",
		"diagnostics": ["first: the old pointer read 0x1", "tools/lib/reuse_checks.c:140: expected reused == 0: deleted element reused within the same program run in 100 of 100 runs"]}], "problems": []}'
	caught "$REUSE" "$REUSED" -- --guest intended
	expect_caught guest 'guest: reuse\.no_immediate_reuse: tools/lib/reuse_checks\.c:140: expected reused == 0: deleted element reused within the same program run in 100 of 100 runs$'

	results other_check '{"cases": [{"name": "reuse.no_immediate_reuse", "outcome": "fail",
		"diagnostics": ["tools/lib/reuse_checks.c:118: expected !err: insert probe key 3: Cannot allocate memory"]}], "problems": []}'
	caught "$REUSE" "$REUSED" -- --guest other_check
	expect_missed 'guest: failed without its evidence /deleted element reused within the same program run in \[1-9\]/: reuse\.no_immediate_reuse: tools/lib/reuse_checks\.c:118: expected !err: insert probe key 3'

	# A passing case's count is no evidence, nor is another case's failure.
	results other '{"cases": [{"name": "reuse.no_immediate_reuse", "outcome": "pass",
		"diagnostics": ["deleted element reused within the same program run in 0 of 100 runs"]},
		{"name": "reuse.overwrite_memory_bounded", "outcome": "fail",
		"diagnostics": ["deleted element reused within the same program run in 7 of 100 runs"]}], "problems": []}'
	caught "$REUSE" "$REUSED" -- --guest other
	expect_missed 'guest: reuse\.no_immediate_reuse: pass / guest also failed, not counted: reuse\.overwrite_memory_bounded'

	# An XPASS: the judge's note and the case's lines are its diagnostics.
	results xpass '{"cases": [{"name": "sleepable_maps.no_prealloc_hash_loads", "outcome": "xpass",
		"note": "passed, expected to fail on kmalloc-rcu: refused",
		"diagnostics": ["sleepable program using a BPF_F_NO_PREALLOC hash loads: the variant must keep its elements"]}], "problems": []}'
	caught guest:sleepable_maps.no_prealloc_hash_loads 'guest: /sleepable program using .+ loads/' -- --guest xpass
	expect_caught guest 'guest: sleepable_maps\.no_prealloc_hash_loads \(xpass\): sleepable program using'
}

# A kernel splat is evidence when the regular expression names it (a
# lockdep report in a case that passed); another splat is not.
test_splat_is_evidence_only_when_it_matches() {
	results splat '{"cases": [{"name": "map_in_map.fd_put_paths", "outcome": "pass"}],
		"problems": ["kernel splat on the console:\n  | 812:[    3.120000] [ BUG: Invalid wait context ]\n  | 813:[    3.120000] 6.1.192 #1 Not tainted"]}'
	caught guest:map_in_map.fd_put_paths 'guest: /BUG: Invalid wait context/' -- --guest splat
	expect_caught guest 'guest: splat: \[ BUG: Invalid wait context \]$'

	results kasan '{"cases": [{"name": "reuse.no_immediate_reuse", "outcome": "pass"}],
		"problems": ["kernel splat on the console:\n  | 93:[    0.110000] BUG: KASAN: use-after-free in kmalloc_uaf+0xe2/0x210"]}'
	caught "$REUSE" "$REUSED" -- --guest kasan
	expect_missed 'guest: failed without its evidence .*: splat: BUG: KASAN: use-after-free in kmalloc_uaf'
}

# (c) A hang or a panic the header does not name is no catch, whatever
# the intended case said before it; (d) one it names is.  On runs judged
# by tools/report/verdict from the captured consoles of a hang (after
# reuse.no_immediate_reuse failed) and of a panic.
test_hang_or_panic_only_where_named() {
	r=$(fixture_run hang reuse-after-gp timeout)
	"$KIT/tools/report/verdict" "$r" >/dev/null 2>&1 || true
	[ -s "$r/results.json" ] || fail "verdict wrote no results.json for the hang"
	caught "$REUSE" 'guest: /reused within a grace period/' -- --guest "$r"
	expect_missed 'guest: failed without its evidence /reused within a grace period/: reuse\.no_immediate_reuse: .*expected reused == 0: freed elements were reused before a grace period; hang: guest hung: killed after 300 s \(reuse: 2 of 7 planned cases reported'
	caught "$REUSE" 'guest: /reused within a grace period/' 'guest: hang' -- --guest "$r"
	expect_caught guest 'guest: hang: guest hung: killed after 300 s \(reuse: 2 of 7 planned cases reported; reuse: cut off: no result line for the suite\) / guest also failed without its evidence: reuse\.no_immediate_reuse'
	# The case's own evidence, the hang after it shown but not needed
	caught "$REUSE" 'guest: /freed elements were reused before a grace period/' -- --guest "$r"
	expect_caught guest 'guest: reuse\.no_immediate_reuse: tools/lib/reuse_checks\.c:76: expected reused == 0: freed elements were reused before a grace period / guest also failed without its evidence: hang: '
	# A hang is not a panic.
	caught "$REUSE" 'guest: panic' -- --guest "$r"
	expect_missed 'guest: failed without its evidence panic: '

	r=$(fixture_run panic reuse-after-gp 134)
	"$KIT/tools/report/verdict" "$r" >/dev/null 2>&1 || true
	caught "$REUSE" "$REUSED" -- --guest "$r"
	expect_missed 'guest: failed without its evidence /deleted element .*/: panic: Kernel panic - not syncing: Requested init /nonexistent failed'
	caught "$REUSE" "$REUSED" 'guest: panic' -- --guest "$r"
	expect_caught guest 'guest: panic: Kernel panic - not syncing: Requested init /nonexistent failed \(error -2\)\.$'
	# The exit status alone says "panicked" when the console has no panic line.
	results exit134 '{"cases": [], "problems": ["guest panicked (exit status 134)"]}'
	caught "$REUSE" 'guest: panic' -- --guest exit134
	expect_caught guest 'guest: panic: guest panicked \(exit status 134\)$'
}

# User space: a tool's failure of the intended case, or a tool's report
# (TOOL.report), is a catch only when it says the evidence.
test_uspace_and_explore_evidence() {
	results tools '{"cases": [{"name": "asan.no_reuse_before_gp", "outcome": "pass"},
		{"name": "tsan.no_reuse_before_gp", "outcome": "fail",
		 "diagnostics": ["tools/uspace/memalloc_test.c:280: expected uspace_mem_live() == (base): 96 bytes still allocated after destroy"]},
		{"name": "valgrind.no_reuse_before_gp", "outcome": "fail",
		 "diagnostics": ["tools/uspace/memalloc_test.c:598: expected !reuses: 12 objects handed out again inside the read section that freed them"]}], "problems": []}'
	ev='uspace: /[1-9][0-9]* objects handed out again inside the read section that freed them/'
	caught uspace:no_reuse_before_gp "$ev" -- --uspace tools
	expect_caught uspace 'uspace: no_reuse_before_gp \(valgrind\): tools/uspace/memalloc_test\.c:598: expected !reuses: 12 objects handed out again .* / uspace also failed without its evidence: no_reuse_before_gp \(tsan\): .*96 bytes still allocated after destroy'

	results report '{"cases": [{"name": "asan.report", "outcome": "fail",
		"diagnostics": ["asan reported (exit status 99; build/logs/x-asan.log):", "# ==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x1 at pc 0x2"]},
		{"name": "asan.destroy_in_flight", "outcome": "pass"}], "problems": []}'
	caught uspace:destroy_in_flight 'uspace: /AddressSanitizer: heap-use-after-free/' -- --uspace report
	expect_caught uspace 'uspace: asan report: ERROR: AddressSanitizer: heap-use-after-free$'
	caught uspace:destroy_in_flight 'uspace: /ThreadSanitizer: data race/' -- --uspace report
	expect_missed 'uspace: failed without its evidence /ThreadSanitizer: data race/: asan report: ERROR: AddressSanitizer: heap-use-after-free'

	# The explorer: an input that broke an intended invariant, saying the
	# evidence; one that broke another invariant is not counted.
	results explore '{"cases": [{"name": "gp-join", "outcome": "fail",
		"diagnostics": ["explore: FAIL (leak) at command 3: 96 bytes"]},
		{"name": "drain-window", "outcome": "fail",
		"diagnostics": ["==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1"]},
		{"name": "reuse-hold", "outcome": "pass"}], "problems": []}'
	caught explore:reuse 'explore: /FAIL \(reuse\)/' -- --explore explore
	expect_missed 'explore: reuse: no input of the corpus broke it / explore also failed, not counted: gp-join, drain-window'
	caught 'explore:reuse explore:leak' 'explore: /FAIL \((reuse|leak)\)/' -- --explore explore
	expect_caught explore 'explore: gp-join: explore: FAIL \(leak\) at command 3: 96 bytes / explore also failed, not counted: drain-window$'
	caught explore:asan 'explore: /AddressSanitizer: heap-use-after-free/' -- --explore explore
	expect_missed 'explore: failed without its evidence /AddressSanitizer: heap-use-after-free/: drain-window: ERROR: AddressSanitizer: heap-buffer-overflow'
}

# A header caught cannot judge is an error, before anything is run.
test_bad_evidence_is_an_error() {
	for bad in "guest:$REUSE|" "guest:$REUSE|uspace: /x/" "guest:$REUSE|guest: /(/" \
		"guest:$REUSE|guest: //" "guest:$REUSE|guest: crash" "uspace:destroy_in_flight|uspace: panic" \
		"$REUSE uspace:destroy_in_flight|guest: hang"; do
		c=${bad%%|*} e=${bad#*|}
		rc=0
		if [ -n "$e" ]; then
			"$CAUGHT" --check --catches "$c" --evidence "$e" >out || rc=$?
		else
			"$CAUGHT" --check --catches "$c" >out || rc=$?
		fi
		[ $rc -eq 2 ] || fail "catches '$c' evidence '$e': exit $rc, not 2: $(cat out)"
		expect_match out '^-\|error\|'
	done
	"$CAUGHT" --check --catches "$REUSE uspace:destroy_in_flight" --evidence 'guest: hang' \
		--evidence 'uspace: /a|b/' >out || fail "a good header refused: $(cat out)"
}

# make mutants itself, with a make that builds nothing and gives each
# mutant's guest run a results.json of this case's: a hang that the
# header names (destroy-refill-pending, as measured: teardown reported
# none of its cases) is caught and printed as such; the same hang where
# the header does not name it (never-release) fails make mutants.
test_run_prints_the_evidence_and_fails_without_it() {
	mkdir results
	printf '%s\n' '{"cases": [{"name": "teardown", "outcome": "fail", "note": "0 of 6 planned cases reported"}],
		"problems": ["guest hung: killed after 300 s"]}' >results/mutant-destroy-refill-pending.json
	cp results/mutant-destroy-refill-pending.json results/mutant-never-release.json
	cat >fake-make <<-'EOF'
		#!/bin/sh
		# A make for kernel/mutants/run: builds nothing; test-guest leaves
		# the results.json of the variant's in LOGS.
		for a; do
			case $a in
			VARIANT=*) v=${a#VARIANT=} ;;
			LOGS=*) logs=${a#LOGS=} ;;
			esac
		done
		for target; do :; done
		case $target in
		test-guest) mkdir -p "$logs/run" && cp "$FAKE_RESULTS/$v.json" "$logs/run/results.json" ;;
		esac
	EOF
	chmod +x fake-make
	rc=0
	FAKE_RESULTS=$SCRATCH/results MAKE=$SCRATCH/fake-make "$KIT/kernel/mutants/run" --no-uspace --out "$SCRATCH/out" \
		6.1/destroy-refill-pending 6.1/never-release >log 2>&1 || rc=$?
	[ $rc -eq 1 ] || { cat log; fail "make mutants exited $rc with a mutant missed, not 1"; }
	expect_match log '^  EVIDENCE guest: hang: guest hung: killed after 300 s \(teardown: 0 of 6 planned cases reported\) / not by explore: not run'
	expect_match log '^  caught by guest \('
	expect_match log '^  missed by none: guest: failed without its evidence /memory not given back while the map lives/: hang: guest hung'
	expect_match log '^\| mutant-destroy-refill-pending \| 6\.1 \| .* \| guest \| caught: guest: hang: guest hung: killed after 300 s'
	expect_match log '^\| mutant-never-release \| 6\.1 \| .* \| none \| \*\*missed\*\*: guest: failed without its evidence'
	expect_match log '^1 of 2 mutants caught, 1 missed \(1 failed without their evidence\), 0 errors'
	expect_match out/mutants.ktap '^# 6\.1/mutant-destroy-refill-pending: caught: guest: hang: '
	expect_match out/mutants.ktap '^not ok 2 6\.1/mutant-never-release$'
}

test_caught_without_results_is_an_error() {
	mkdir empty
	rc=0
	"$CAUGHT" --catches "$REUSE" --evidence "$REUSED" --guest empty >out || rc=$?
	[ $rc -eq 2 ] || fail "a run without results.json gave exit $rc: $(cat out)"
	expect_match out '^-\|error\|guest: no results'
	rc=0
	"$CAUGHT" --catches "$REUSE" --evidence "$REUSED" --guest - --blind 'guest: UP' >out || rc=$?
	[ $rc -eq 1 ] || fail "a producer not run caught the mutant (exit $rc)"
	expect_match out 'guest: not run \(UP\)'
}
