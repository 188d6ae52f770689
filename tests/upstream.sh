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
	# shellcheck disable=SC2046 # one source a line, no spaces
	cc -O1 -g -Wall -Wno-unused-function -Igen -I"$FIXTURE_TREE" -I"$KIT/tools/lib" \
		-DTEST_MAPS_DATA_DIR='"."' "$KIT/tools/upstream/test_maps_ktap.c" \
		$(cat gen/map_tests.list) "$KIT/tools/upstream/child.c" "$KIT/tools/lib/ktap.c" "$KIT/tools/lib/filter.c" -o test_maps -lbpf ||
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
	"$KIT/tools/upstream/gen-test-maps" "$SCRATCH" DENYLIST gen >out 2>&1 || rc=$?
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
	r=$(fixture_run upstream-test_maps reuse-after-gp 0 producer=upstream 'tests=test_maps.!(*.map_parallel|*.map_stress)')
	"$KIT/tools/report/verdict" "$r" >out 2>&1 || fail "the captured upstream run did not pass"
	expect_match out '^[0-9]+ passed, 0 failed, [0-9]+ skipped'
	sed 's/^\(    \)ok \([0-9]* prealloc\.hashmap\)\(\r*\)$/\1not ok \2\3/' "$r/console.log" >bad.log
	cmp -s bad.log "$r/console.log" && fail "the fixture has no prealloc.hashmap result to break"
	cp bad.log "$r/console.log"
	rc=0
	"$KIT/tools/report/verdict" "$r" >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "a failed upstream case did not fail the run"
	expect_kunit_parses upstream-test_maps
}

# --- test_verifier and test_lru_map ------------------------------------------

# An ARCH=um stand-in for the kernel tree: $1 says whether it selects
# HAVE_EFFICIENT_UNALIGNED_ACCESS.
um_tree() {
	mkdir -p tree/arch/um tree/arch/x86/um
	echo 'config UML' >tree/arch/um/Kconfig
	if [ "$1" = efficient ]; then
		printf 'config UML_X86\n\tselect HAVE_EFFICIENT_UNALIGNED_ACCESS\n' >tree/arch/x86/um/Kconfig
	else
		printf 'config UML_X86\n\tselect ARCH_HAS_SG_CHAIN\n' >tree/arch/x86/um/Kconfig
	fi
}

verifier_denylist() {
	printf '%s\n' '# comment' \
		'test_maps.prealloc.denied	not for test_verifier' \
		'test_verifier.needs_kernel_BTF/*	needs kernel BTF' >DENYLIST
}

# Build the test_verifier runner on the stand-in tree, for the host.
build_verifier_runner() {
	"$KIT/tools/upstream/gen-test-verifier" "$FIXTURE_TREE" tree gen ||
		fail "gen-test-verifier failed"
	"$KIT/tools/upstream/gen-denylist" test_verifier DENYLIST gen/test_verifier_deny.h ||
		fail "gen-denylist failed"
	cc -O1 -g -Wall -Wno-unused-function -DHAVE_GENHDR -Igen -I"$FIXTURE_TREE" \
		-I"$KIT/tools/lib" "$KIT/tools/upstream/test_verifier_ktap.c" \
		"$KIT/tools/upstream/child.c" "$KIT/tools/upstream/denylist.c" \
		"$KIT/tools/lib/ktap.c" "$KIT/tools/lib/filter.c" -o test_verifier -lbpf ||
		fail "the test_verifier runner does not build on the stand-in tree"
}

test_verifier_tests_h_is_upstreams_list() {
	um_tree strict
	"$KIT/tools/upstream/gen-test-verifier" "$FIXTURE_TREE" tree gen || fail "gen-test-verifier failed"
	# In upstream's order (ls *.c), each named through the selftests directory.
	grep '^#include' gen/verifier/tests.h >includes
	printf '#include "verifier/a.c"\n#include "verifier/b.c"\n' | cmp -s - includes ||
		fail "tests.h does not include verifier/a.c then verifier/b.c: $(cat includes)"
	expect_match gen/verifier/tests.h '^#ifdef FILL_ARRAY$'
	expect_no_match gen/autoconf.h 'define CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS'
	um_tree efficient
	"$KIT/tools/upstream/gen-test-verifier" "$FIXTURE_TREE" tree gen || fail "gen-test-verifier failed"
	expect_match gen/autoconf.h '^#define CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS 1$'
	rm -r tree/arch/um
	rc=0
	"$KIT/tools/upstream/gen-test-verifier" "$FIXTURE_TREE" tree gen >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "a kernel tree without arch/um/Kconfig was accepted"
	expect_match out 'arch/um/Kconfig not found'
}

test_gen_denylist_takes_the_programs_entries() {
	printf '%s\n' 'test_verifier.a*b/p	no "JIT" here' 'test_maps.x	other program' \
		'test_verifierx.y	not a dot' 'test_lru_map.lru_hash.*	lru' >DENYLIST
	"$KIT/tools/upstream/gen-denylist" test_verifier DENYLIST deny.h || fail "gen-denylist failed"
	[ "$(grep -c '^DENY(' deny.h)" = 1 ] || fail "not exactly the one test_verifier entry: $(cat deny.h)"
	expect_match deny.h '^DENY\("a\*b/p", "no \\"JIT\\" here"\)$'
	"$KIT/tools/upstream/gen-denylist" test_lru_map DENYLIST deny.h || fail "gen-denylist failed"
	expect_match deny.h '^DENY\("lru_hash\.\*", "lru"\)$'
}

test_verifier_case_names_are_unique_and_safe() {
	um_tree strict
	verifier_denylist
	build_verifier_runner
	./test_verifier --list >names || fail "--list failed"
	# The description, made safe; /u before /p where upstream runs both;
	# a repeated name gets _2, _3... in table order.
	printf '%s\n' same_name/u same_name/p same_name_2/p odd_chars_1_x/u odd_chars_1_x/p \
		same_name_3/p crashes/p skips/p needs_kernel_BTF/u needs_kernel_BTF/p |
		cmp -s - names || fail "unexpected case names: $(tr '\n' ' ' <names)"
	[ -z "$(sort names | uniq -d)" ] || fail "repeated case names"
	! grep -v '^[A-Za-z0-9_-]*/[up]$' names || fail "names above are not KTAP/kit.t-safe"
}

test_verifier_runner_reports_each_case() {
	um_tree strict
	verifier_denylist
	build_verifier_runner
	rc=0
	./test_verifier >out 2>&1 || rc=$?
	[ $rc -eq 1 ] || fail "a run with failing cases exited with $rc, not 1"
	expect_match out '^1\.\.10$'
	expect_match out '^# unprivileged run of same name$'
	expect_match out '^# strict alignment$'
	expect_match out '^ok 1 same_name/u$'
	expect_match out '^# privileged run of odd: chars, #1 <x>$'
	expect_match out '^not ok 5 odd_chars_1_x/p$'
	expect_match out '^# killed by signal 6'
	expect_match out '^not ok 7 crashes/p$'
	expect_match out '^ok 8 skips/p # SKIP skipped by the upstream test$'
	expect_match out '^ok 9 needs_kernel_BTF/u # SKIP denylisted: needs kernel BTF$'
	expect_match out '^ok 10 needs_kernel_BTF/p # SKIP denylisted: needs kernel BTF$'
	! grep -Ev '^(ok |not ok |# |1\.\.|KTAP version )' out ||
		fail "lines of the runner's output above are not KTAP"
	./test_verifier 'same_name*/p' >out 2>&1 || fail "the passing cases failed"
	expect_match out '^1\.\.3$'
}

test_verifier_stale_denylist_entry_is_an_error() {
	um_tree strict
	verifier_denylist
	printf 'test_verifier.gone/p\tremoved upstream\n' >>DENYLIST
	build_verifier_runner
	rc=0
	./test_verifier --check-denylist >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "a denylist entry matching nothing was accepted"
	expect_match out 'test_verifier\.gone/p matches no test_verifier case'
	expect_no_match out 'needs_kernel_BTF'
}

# A stand-in of test_lru_map.c's main(), as upstream writes it.
lru_main() {
	cat <<'EOC'
static int test_lru_sanity0(int t, int f) { return 0; }
int main(int argc, char **argv)
{
	int map_types[] = {BPF_MAP_TYPE_LRU_HASH,
			     BPF_MAP_TYPE_LRU_PERCPU_HASH};
	int map_flags[] = {0, BPF_F_NO_COMMON_LRU};
	int t, f;

	for (f = 0; f < ARRAY_SIZE(map_flags); f++) {
		unsigned int tgt_free = (map_flags[f] & BPF_F_NO_COMMON_LRU) ?
			PERCPU_FREE_TARGET : LOCAL_FREE_TARGET;

		for (t = 0; t < ARRAY_SIZE(map_types); t++) {
			test_lru_sanity0(map_types[t], map_flags[f]);
			test_lru_sanity1(map_types[t], map_flags[f], tgt_free);
			printf("\n");
		}
	}
	return 0;
}
EOC
}

test_lru_cases_come_from_main() {
	mkdir lru
	lru_main >lru/test_lru_map.c
	"$KIT/tools/upstream/gen-test-lru-map" lru gen || fail "gen-test-lru-map failed"
	[ "$(grep -c '^CASE(' gen/lru_cases.h)" = 8 ] || fail "not 2 flags x 2 types x 2 tests"
	expect_match gen/lru_cases.h '^#define LRU_MAP_TYPES \{ BPF_MAP_TYPE_LRU_HASH, +BPF_MAP_TYPE_LRU_PERCPU_HASH \}$'
	expect_match gen/lru_cases.h '^#define LRU_LOOP_LOCALS unsigned int tgt_free = \(map_flags\[f\]'
	# Upstream's order: flags outside, types inside.
	expect_match gen/lru_cases.h '^CASE\(lru_0_0_1, "lru_hash\.sanity0", 0, 0, test_lru_sanity0\(map_types\[t\], map_flags\[f\]\)\)$'
	expect_match gen/lru_cases.h '^CASE\(lru_1_1_2, "lru_percpu_hash\.no_common_lru\.sanity1", 1, 1, test_lru_sanity1\(map_types\[t\], map_flags\[f\], tgt_free\)\)$'
	sed -n 's/^CASE([^,]*, "\([^"]*\)".*/\1/p' gen/lru_cases.h | sort | uniq -d >dups
	[ ! -s dups ] || fail "repeated lru case names: $(cat dups)"
	sed 's/tgt_free = /tgt_free_gone = /' lru/test_lru_map.c >lru/x && mv lru/x lru/test_lru_map.c
	rc=0
	"$KIT/tools/upstream/gen-test-lru-map" lru gen >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "a main() without tgt_free was accepted"
	expect_match out 'no tgt_free in main\(\)'
}

# The captured guest run of test_verifier and test_lru_map on
# reuse-after-gp: every denylisted case is reported as such, and what
# fails is the six /u cases of the 6.1.192 tree where the verifier names
# R0 and the selftest expects R1 (not a limit of UML: reported, not
# denylisted).
test_real_verifier_run_log_is_judged_and_parsed() {
	r=$(fixture_run upstream-verifier reuse-after-gp 1 producer=upstream tests=test_verifier,test_lru_map)
	"$KIT/tools/report/verdict" "$r" >out 2>&1 ||
		fail "the captured run failed: $(grep -E '^(FAIL|XPASS|PROBLEM)' out | head -n 3)"
	# The six stable-drift failures (tools/report/expectations).
	grep '^XFAIL ' out | sed 's/^XFAIL //; s/ (.*//' >xfailed
	printf 'test_verifier.%s/u\n' check_deducing_bounds_from_const_1 \
		check_deducing_bounds_from_const_3 check_deducing_bounds_from_const_5 \
		check_deducing_bounds_from_const_6 check_deducing_bounds_from_const_9 \
		bpf_map_ptr_r_0_r_r_map_ptr | cmp -s - xfailed ||
		fail "expected failures other than the six known ones: $(tr '\n' ' ' <xfailed)"
	[ "$(grep -c '^    ok [0-9]* lru_' "$r/console.log")" = 36 ] || fail "not 36 passed test_lru_map cases"
	sed -i 's/^\(    \)ok \([0-9]* lru_.*\)$/\1not ok \2/' "$r/console.log"
	rc=0
	"$KIT/tools/report/verdict" "$r" >out2 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "failed test_lru_map cases did not fail the run"
	expect_match out '^SKIP  test_verifier\.map_kptr_BPF_ST_imm_0/p # denylisted: kptr fields name a kernel type'
	expect_match out '^[0-9]+ passed, 0 failed, [0-9]+ skipped'
	expect_kunit_parses upstream-verifier
}

# The tree's own skips are pinned per base and case (tools/report/
# expectations): a case that skips itself elsewhere fails the run.  The
# captured 6.1 run with one passing case (it uses a hash map) made a
# skip, as test_verifier reports a test on a kernel that cannot create
# a hash map at all ("SKIP (unsupported map type 1)"); and the same run
# judged as 7.2's, whose tree skips none of 6.1's helper_access cases
# (they moved to progs/) but the same TRACEPOINT calls_* ones.
test_upstream_skip_not_pinned_for_its_case_and_base_fails() {
	# 6.1's list is the captured run's self-skips, no more and no fewer.
	awk '/^#/ { next }
		/^case / { c[++n] = $2 }
		/^base / { for (i = 2; i <= NF; i++) if ($i == "6.1") b = 1 }
		/^skip +\^skipped by the upstream test\$$/ { s = 1 }
		/^[[:space:]]*$/ { if (b && s) for (i = 1; i <= n; i++) print c[i]; n = b = s = 0 }
		END { if (b && s) for (i = 1; i <= n; i++) print c[i] }' \
		"$KIT/tools/report/expectations" | sort >pinned
	tr -d '\r' <"$TESTS/fixtures/upstream-verifier.log" |
		sed -n 's/^    ok [0-9]* \(.*\) # SKIP skipped by the upstream test$/test_verifier.\1/p' | sort >skipped
	[ "$(wc -l <skipped)" = 168 ] || fail "not 168 self-skips in the captured 6.1 run: $(wc -l <skipped)"
	cmp -s pinned skipped || fail "6.1's pinned skips are not the captured run's: $(diff pinned skipped | head -n 4 | tr '\n' ' ')"
	r=$(fixture_run upstream-verifier reuse-after-gp 1 producer=upstream tests=test_verifier,test_lru_map)
	sed -i 's|^\(    ok [0-9]* invalid_and_of_negative_number/p\)\(\r*\)$|\1 # SKIP skipped by the upstream test\2|' \
		"$r/console.log"
	grep -q 'invalid_and_of_negative_number/p # SKIP' "$r/console.log" || fail "no case to turn into a skip"
	rc=0
	"$KIT/tools/report/verdict" "$r" >out 2>&1 || rc=$?
	[ $rc -eq 1 ] || fail "a test_verifier case skipping itself where its tree does not passed"
	expect_match out '^FAIL  test_verifier\.invalid_and_of_negative_number/p: skipped \(skipped by the upstream test\), but no skip of it is declared for producer upstream, variant reuse-after-gp, base 6\.1'
	[ "$(grep -c '^FAIL ' out)" = 1 ] || fail "more failed than the one case: $(grep '^FAIL ' out | head -n 3)"
	r=$(fixture_run upstream-verifier reuse-after-gp 1 producer=upstream tests=test_verifier,test_lru_map base=7.2)
	rc=0
	"$KIT/tools/report/verdict" "$r" >out 2>&1 || rc=$?
	[ $rc -eq 1 ] || fail "6.1's own skips passed as 7.2's"
	expect_match out '^FAIL  test_verifier\.helper_access_to_map_full_range/p: skipped \(skipped by the upstream test\), but no skip of it is declared for producer upstream, variant reuse-after-gp, base 7\.2'
	expect_match out '^SKIP  test_verifier\.calls_basic_sanity/p # skipped by the upstream test$'
}

# --- the host's map count for big guests --------------------------------------

test_max_map_count_reads_sizes_and_leaves_enough_alone() {
	"$KIT/scripts/max-map-count" 64M >out 2>&1 || fail "64M needs no more than the default map count"
	[ ! -s out ] || fail "nothing to do, yet it said: $(cat out)"
	rc=0
	"$KIT/scripts/max-map-count" 12X >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "a size it cannot read was accepted"
	expect_match out "cannot read the memory size '12X'"
}

# A base's upstream guest memory is its upstream_mem key, else 1G; 7.2's
# verifier needs 2G for scale_test_2 (kernel/bases/7.2).
test_upstream_mem_is_the_bases() {
	for b in 6.1 6.12 7.2; do
		make -s --no-print-directory -C "$KIT" identity SPEC="@$b" >id 2>err ||
			fail "make identity SPEC=@$b: $(cat err)"
		want=$(sed -n 's/^upstream_mem=//p' "$KIT/kernel/bases/$b")
		expect_match id "^upstream_mem=${want:-1G}\$"
	done
	expect_match id '^upstream_mem=2G$'
}
