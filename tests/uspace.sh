# SPDX-License-Identifier: GPL-2.0
# tools/uspace/run, the user-space harness's runner and its verdict: a
# tool's report (ASan, UBSan, TSan, Valgrind) or an allocator WARN_ON
# fails the run, also when the same suite has an expected failure, and
# an expected failure's evidence cannot stand for its case's other
# failures.
#
# Stubs first: memalloc_test replaced by a script that prints a given
# KTAP and tool report, judged against a table of this file's own.  Then
# the real thing: memalloc_test of base built with a fault injected
# (make US_INJECT=, memalloc_test.c's inject()) and run the way make
# uspace-quick does, which needs vanilla's unpacked tree (make test has it).

# shellcheck source=scripts/ktap.sh
. "$KIT/scripts/ktap.sh"
RUN=$KIT/tools/uspace/run

# An expected failure of the stubs, shown as memalloc_test shows its own.
EVIDENCE='# tools/uspace/memalloc_test.c:595: expected !reuses: 12 objects handed out again inside the read section that freed them'

# stub_table: the stubs' expectations, one expected failure on "vanilla"
stub_table() {
	cat >expectations <<'EOF'
case     *.held_object
producer uspace
variant  vanilla
shows    (^|: expected !reuses: )[1-9][0-9]* objects handed out again inside the read section that freed them$
why      the stub's vanilla hands a held object out again
EOF
	export KIT_EXPECTATIONS="$SCRATCH/expectations"
}

# stub TOOL RC [STDERR-LINE...]: memalloc_test of "vanilla" built TOOL is a
# script that prints ktap.TOOL (made by the case) on stdout, the lines
# on stderr and exits RC.  valgrind on PATH runs the program it is given
# with no options, so that the stub stands for a whole Valgrind run.
stub() {
	k=$1 rc=$2
	shift 2
	mkdir -p "us/vanilla/$k" bin
	printf '%s\n' "$@" >"err.$k"
	cat >"us/vanilla/$k/memalloc_test" <<EOF
#!/bin/sh
cat "$SCRATCH/ktap.$k"
cat "$SCRATCH/err.$k" >&2
exit $rc
EOF
	chmod +x "us/vanilla/$k/memalloc_test"
	cat >bin/valgrind <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in -*) shift ;; *) break ;; esac
done
exec "$@"
EOF
	chmod +x bin/valgrind
}

# ktap TOOL [RESULT...]: the KTAP of memalloc_test built TOOL: a case
# "overwrite" that passes and each RESULT ("xfail": the expected failure
# with its evidence, "leak": that case failing on a leak, "ok": it passes).
ktap() {
	k=$1
	shift
	{
		ktap_header
		echo "# Subtest: uspace_memalloc"
		ktap_plan $(($# + 1))
		ktap_result ok 1 overwrite
		i=1
		for r; do
			i=$((i + 1))
			case $r in
			xfail) echo "$EVIDENCE"; ktap_result "not ok" $i held_object ;;
			leak) ktap_diag "tools/uspace/memalloc_test.c:589: expected uspace_mem_live() == (base): 8 bytes still allocated after destroy"
			      ktap_result "not ok" $i held_object ;;
			ok) ktap_result ok $i held_object ;;
			esac
		done
	} >"ktap.$k"
}

# run_tools TOOLS...: tools/uspace/run over the stubs; its exit status
# in $rc, its output in out
run_tools() {
	rc=0
	PATH=$SCRATCH/bin:$PATH "$RUN" --build "$SCRATCH/us" --src "$SCRATCH/src" --tag '' --base 6.1 --cpus 4 \
		--scale 1 --variants vanilla --tools "$*" >out 2>&1 || rc=$?
}

expect_run_passed() {
	[ "$rc" -eq 0 ] || { cat out; fail "the run exited $rc, expected 0"; }
}

expect_run_failed() {
	[ "$rc" -eq 1 ] || { cat out; fail "the run exited $rc, expected 1 (a failure)"; }
}

INVALID_READ='==4242== Invalid read of size 8
==4242==    at 0x10BDE8: held (memalloc_test.c:42)
==4242==  Address 0x4c94c68 is 0 bytes after a block of size 8 alloc'"'"'d'

test_expected_failure_alone_passes() {
	stub_table
	ktap valgrind xfail
	stub valgrind 1
	run_tools valgrind
	expect_run_passed
	expect_match out '^ok 2 valgrind\.report$'
	expect_match out '^# vanilla: XFAIL valgrind\.held_object'
	expect_match out '^[0-9]+ passed, 0 failed, 0 skipped \(1 expected failures\)$'
}

test_tool_report_fails_the_run() {
	stub_table
	ktap valgrind ok
	stub valgrind 99 "$INVALID_READ"
	run_tools valgrind
	expect_run_failed
	expect_match out '^ok 1 valgrind # '
	expect_match out '^# ==4242== Invalid read of size 8$'
	expect_match out '^not ok 2 valgrind\.report$'
	expect_match out '^# vanilla: FAIL +valgrind\.report'
}

# Hole 2: the report used to be the suite's "not ok", which
# the expected failure's own "not ok" excused.
test_tool_report_beside_an_expected_failure_fails_the_run() {
	stub_table
	ktap valgrind xfail
	stub valgrind 99 "$INVALID_READ"
	run_tools valgrind
	expect_run_failed
	expect_match out '^not ok 1 valgrind # '
	expect_match out '^not ok 2 valgrind\.report$'
	expect_match out '^# vanilla: XFAIL valgrind\.held_object'
	expect_match out '^# vanilla: FAIL +valgrind\.report'
	expect_match out '^[0-9]+ passed, 1 failed, 0 skipped \(1 expected failures\)$'
}

# An allocator WARN_ON leaves no exit status of its own: the log says it.
test_warn_beside_an_expected_failure_fails_the_run() {
	stub_table
	ktap asan xfail
	stub asan 1 'WARNING: CPU: 2 at kernel/bpf/memalloc.c:301: c->free_cnt < 0'
	run_tools asan
	expect_run_failed
	expect_match out '^# WARNING: CPU: 2 at kernel/bpf/memalloc\.c:301'
	expect_match out '^not ok 2 asan\.report$'
	expect_match out '^# vanilla: FAIL +asan\.report'
}

# ASan stops at its report: the cases after it never print, the suite
# falls short of its plan, and the report is a case of its own.
test_sanitizer_report_cutting_a_suite_short_fails_the_run() {
	stub_table
	ktap asan xfail
	head -n 4 ktap.asan >ktap.asan.cut
	mv ktap.asan.cut ktap.asan
	stub asan 99 '==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010'
	ktap valgrind xfail
	stub valgrind 1
	run_tools asan valgrind
	expect_run_failed
	expect_match out '^not ok 2 asan\.report$'
	expect_match out '^ok 4 valgrind\.report$'
	expect_match out '^# vanilla: FAIL +asan: 1 of 2 planned cases reported'
	expect_match out '^# vanilla: FAIL +asan\.report'
	expect_match out '^# vanilla: XFAIL valgrind\.held_object'
}

# The tool's own exit status with no report the runner knows: a failure
# that says so, never a pass.
test_tool_exit_status_without_a_known_report_fails_the_run() {
	stub_table
	ktap valgrind ok
	stub valgrind 99 '==4242== Something new that Valgrind found'
	run_tools valgrind
	expect_run_failed
	expect_match out 'valgrind exited with its report status 99, but no line of .* is a known report'
	expect_match out '^# ==4242== Something new that Valgrind found$'
	expect_match out '^not ok 2 valgrind\.report$'
}

# Hole 1, as the judge sees it: the case's leak check failed
# first, so the evidence never comes, and the expected failure is a FAIL.
test_expected_failure_that_leaked_fails_the_run() {
	stub_table
	ktap valgrind leak
	stub valgrind 1
	run_tools valgrind
	expect_run_failed
	expect_match out '^# vanilla: FAIL +valgrind\.held_object: expected to fail showing .* but it said: .*8 bytes still allocated after destroy'
	expect_match out '^ok 2 valgrind\.report$'
}

# The real Valgrind on a program with a deliberate invalid read, in a
# suite that has an expected failure.
test_real_valgrind_report_beside_an_expected_failure_fails_the_run() {
	command -v valgrind >/dev/null || skip "no valgrind (apt-get install valgrind)"
	command -v cc >/dev/null || skip "no C compiler"
	stub_table
	mkdir -p us/vanilla/valgrind
	cat >bad.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	volatile char *p = malloc(8);
	volatile int past = 8;
	char c;

	printf("KTAP version 1\n# Subtest: uspace_memalloc\n1..2\n");
	c = p[past];
	printf("ok 1 overwrite\n");
	printf("# tools/uspace/memalloc_test.c:595: expected !reuses: %d objects handed out again inside the read section that freed them\n",
	       12 + (c & 0));
	printf("not ok 2 held_object\n");
	free((void *)p);
	return 1;
}
EOF
	cc -g -O0 -o us/vanilla/valgrind/memalloc_test bad.c || fail "cc bad.c failed"
	rc=0
	"$RUN" --build "$SCRATCH/us" --src "$SCRATCH/src" --tag '' --base 6.1 --cpus 4 --scale 1 \
		--variants vanilla --tools valgrind >out 2>&1 || rc=$?
	expect_run_failed
	expect_match out '^# ==[0-9]+== Invalid read of size 1$'
	expect_match out '^not ok 2 valgrind\.report$'
	expect_match out '^# vanilla: XFAIL valgrind\.held_object'
	expect_match out '^# vanilla: FAIL +valgrind\.report'
}

# --- the real memalloc_test of base, with a fault injected -----------------

# base_tree: vanilla's unpacked tree, without which nothing builds; skip
# without it, or fail under make test (which unpacks it for its
# uspace-test-quick step first).
base_tree() {
	src=$(fact vanilla@6.1 src)
	[ -f "$KIT/$src/kernel/bpf/memalloc.c" ] && return 0
	[ -z "${KIT_REQUIRE_KERNELS:-}" ] || fail "no $KIT/$src (make BASE=6.1 VARIANT=vanilla uspace-src)"
	skip "no base tree (make BASE=6.1 VARIANT=vanilla uspace-src)"
}

# mutant DIR TOOL [WHAT:CASE-GLOB]: memalloc_test of base built TOOL in
# DIR, with that fault injected (none without it).
mutant() {
	make -s --no-print-directory -C "$KIT" BASE=6.1 US="$SCRATCH/$1" USPACE_VARIANTS=vanilla \
		US_INJECT="${3:-}" "$SCRATCH/$1/vanilla/$2/memalloc_test" >build.log 2>&1 ||
		{ cat build.log; fail "could not build $1/vanilla/$2/memalloc_test"; }
}

# real_run DIR TOOLS: tools/uspace/run over DIR as make uspace-quick
# runs it, at 1 % of the iterations, with the kit's own expectations
real_run() {
	rc=0
	d=$1
	shift
	env -u KIT_EXPECTATIONS "$RUN" --build "$SCRATCH/$d" --src "$KIT/$(dirname "$(fact vanilla@6.1 src)")" \
		--tag "$(fact vanilla@6.1 tag)" --base 6.1 \
		--cpus 4 --scale 1 --variants vanilla --tools "$*" >"out.$d" 2>&1 || rc=$?
	cp "out.$d" out
}

# Hole 1: a leak or a WARN_ON inside the case that vanilla is
# expected to fail passed as that expected failure.
test_leak_in_base_expected_failure_fails_the_run() {
	base_tree
	mutant plain asan
	mutant leak asan leak:no_reuse_before_gp
	real_run plain asan
	expect_run_passed
	expect_match out '^# vanilla: XFAIL asan\.no_reuse_before_gp '
	real_run leak asan
	expect_run_failed
	expect_match out '^# vanilla: FAIL +asan\.no_reuse_before_gp: .* but it said: .*: expected uspace_mem_live\(\) == \(base\): 8 bytes still allocated after destroy$'
	expect_no_match out 'XFAIL'
}

test_warn_in_base_expected_failure_fails_the_run() {
	base_tree
	mutant warn asan warn:no_reuse_before_gp
	real_run warn asan
	expect_run_failed
	expect_match out '^# vanilla: FAIL +asan\.no_reuse_before_gp: .* but it said: .*the allocator warned'
	expect_match out '^# vanilla: FAIL +asan\.report$'
	expect_no_match out 'XFAIL'
}

# Hole 2: Valgrind's report in another case of the suite in
# which vanilla has its expected failure.
test_valgrind_report_in_base_run_with_expected_failure_fails_the_run() {
	base_tree
	command -v valgrind >/dev/null || skip "no valgrind (apt-get install valgrind)"
	mutant ird valgrind invalid_read:overwrite
	real_run ird valgrind
	expect_run_failed
	expect_match out '^# ==[0-9]+== Invalid read of size 1$'
	expect_match out '^# vanilla: XFAIL valgrind\.no_reuse_before_gp '
	expect_match out '^# vanilla: FAIL +valgrind\.report$'
}

# --- the interleaving explorer -------------------------------------------
#
# Which mutant of memalloc.c the explorer's corpus must catch, and how, is
# in each mutant's header ("# catches: explore:INVARIANT"): make test's
# mutation step (make mutants-uspace, kernel/mutants/run) replays the
# corpus on each and counts it.

# explore_src VARIANT BASE: src is the tree of VARIANT@BASE (under
# EXPLORE_SRC if the environment names another kit's trees); skip without
# it, or fail under make test, which has it.
explore_src() {
	tree=$(fact "$1@$2" src)
	src=${EXPLORE_SRC:-$KIT/$(dirname "$tree")}/$(basename "$tree")
	[ -f "$src/kernel/bpf/memalloc.c" ] && return 0
	[ -z "${KIT_REQUIRE_KERNELS:-}" ] || fail "no $src (make BASE=$2 VARIANT=$1 uspace-src)"
	skip "no $1@$2 tree (make BASE=$2 VARIANT=$1 uspace-src)"
}

# explore_bin VARIANT: the explorer of VARIANT (6.1) built in $SCRATCH from
# its tree (explore_src)
explore_bin() {
	explore_src "$1" 6.1
	make -s --no-print-directory -C "$KIT" US="$SCRATCH/us" BASE=6.1 VARIANT="$1" "$SCRATCH/us/$1/explore/explore" >build.log 2>&1 ||
		{ cat build.log; fail "could not build the explorer of $1"; }
}

# PCT's replay string names one schedule: it fails the same way twice.
test_explore_pct_schedule_replays() {
	explore_bin mutant-drain-before-direct-free
	for i in 1 2; do
		rc=0
		EXPLORE_XFAIL='' EXPLORE_PCT='depth=2 seed=80 steps=457' \
			"$SCRATCH/us/mutant-drain-before-direct-free/explore/explore" \
			"$KIT/tools/uspace/corpus/drain-window" >"pct.$i" 2>&1 || rc=$?
		[ $rc -ne 0 ] || { cat "pct.$i"; fail "the PCT schedule did not fail"; }
		grep -E '^explore: (FAIL|PCT)' "pct.$i" >"pct.$i.lines"
	done
	expect_match pct.1.lines '^explore: FAIL \(one-place\) at command 40: object #5 is in 0 places'
	expect_match pct.1.lines '^explore: PCT schedule: depth=2 seed=80 steps=457$'
	cmp -s pct.1.lines pct.2.lines || fail "two replays of one PCT schedule differ"
}

# rcu-reuse: vanilla@6.12 keeps the promise of bpf_mem_cache_free_rcu() on
# the seed rcu-hold, and the same explorer whose rcu frees are plain
# ones (EXPLORE_INJECT=rcu_free_at_once) must break it there.
test_explore_rcu_reuse_on_6_12() {
	explore_src vanilla 6.12
	for inj in '' rcu_free_at_once; do
		make -s --no-print-directory -C "$KIT" BASE=6.12 US="$SCRATCH/us${inj:+-$inj}" EXPLORE_INJECT="$inj" \
			"$SCRATCH/us${inj:+-$inj}/vanilla/explore/explore" >build.log 2>&1 ||
			{ cat build.log; fail "could not build the explorer of vanilla@6.12 ${inj:+with $inj}"; }
	done
	rc=0
	EXPLORE_XFAIL=reuse "$SCRATCH/us/vanilla/explore/explore" "$KIT/tools/uspace/corpus/rcu-hold" >plain 2>&1 || rc=$?
	[ $rc -eq 0 ] || { cat plain; fail "vanilla@6.12 broke rcu-hold (exit status $rc)"; }
	rc=0
	EXPLORE_XFAIL=reuse "$SCRATCH/us-rcu_free_at_once/vanilla/explore/explore" "$KIT/tools/uspace/corpus/rcu-hold" >inj 2>&1 || rc=$?
	[ $rc -ne 0 ] || { cat inj; fail "plain frees for rcu ones went unseen"; }
	expect_match inj '^explore: FAIL \(rcu-reuse\) at command [0-9]+: CPU 0 got object #[0-9]+ from fixed, freed by bpf_mem_cache_free_rcu\(\)'
}

# make test's explorer step takes a new seed each run (uspace.mk,
# EXPLORE_SEED): the seed it prints must give the same executions again,
# libFuzzer's status lines the same but for their rates.  They are only
# where the address space is not randomised (explore/run: setarch -R).
test_explore_same_seed_same_executions() {
	setarch -R true 2>/dev/null ||
		skip "setarch -R refused here: libFuzzer's mutations follow the addresses of a randomised address space"
	explore_bin vanilla
	for i in 1 2; do
		EXPLORE_XFAIL='reuse hb' "$KIT/tools/uspace/explore/run" --bin "$SCRATCH/us/vanilla/explore/explore" \
			--variant vanilla --base 6.1 --corpus "$KIT/tools/uspace/corpus" \
			test --runs 300 --pct-runs 2 --seed 4242 >"test.$i" 2>&1 ||
			{ cat "test.$i"; fail "vanilla failed the explorer's test"; }
		grep '^#[0-9]' "$SCRATCH/us/vanilla/explore/test-fuzz.log" | grep -v ' pulse ' |
			sed 's/exec\/s: [0-9]* rss: [0-9]*Mb//' >"fuzz.$i"
	done
	expect_match test.1 '^explore: seed 4242: libFuzzer -seed=4242, PCT seeds 4242 to 4243$'
	expect_match test.1 '^explore: libFuzzer: 300 executions, cov: [0-9]+ ft: [0-9]+ corp: [0-9]+ inputs$'
	expect_match test.1 '^ok explore vanilla: corpus, 300 executions and 2 PCT schedules of each input \(seed 4242\)'
	cmp -s test.1 test.2 || { diff test.1 test.2; fail "two runs of seed 4242 say different things"; }
	cmp -s fuzz.1 fuzz.2 || { diff fuzz.1 fuzz.2 | head; fail "two runs of seed 4242 executed different inputs"; }
	rc=0
	EXPLORE_XFAIL='reuse hb' "$KIT/tools/uspace/explore/run" --bin "$SCRATCH/us/vanilla/explore/explore" \
		--variant vanilla --corpus "$KIT/tools/uspace/corpus" test --runs 10 --seed 0 >zero 2>&1 || rc=$?
	[ $rc -eq 2 ] || { cat zero; fail "seed 0 (libFuzzer's own pick) was taken (exit status $rc)"; }
	expect_match zero 'test --seed 0: a seed is a number from 1 to 2147483647$'
}

# A failure of the explorer's test names the input that failed, with the
# make command that replays it, and the command that runs the same
# executions again.  never-release breaks release on the seed second-batch.
test_explore_failure_prints_its_replay() {
	explore_bin mutant-never-release
	bin=$SCRATCH/us/mutant-never-release/explore/explore
	rc=0
	EXPLORE_XFAIL=none "$KIT/tools/uspace/explore/run" --bin "$bin" --variant mutant-never-release --base 6.1 \
		--corpus "$KIT/tools/uspace/corpus" test --runs 10 --pct-runs 0 --seed 7 >out 2>&1 || rc=$?
	[ $rc -eq 1 ] || { cat out; fail "never-release passed the explorer's test (exit status $rc)"; }
	expect_match out '^explore: FAIL \(release\) at command 37: '
	expect_match out "^explore: replay: make BASE=6\\.1 EXPLORE_XFAIL='none' VARIANT=mutant-never-release uspace-replay FILE=.*/test-crash-[0-9a-f]+\$"
	expect_match out "^explore: again: make BASE=6\\.1 EXPLORE_XFAIL='none' USPACE_VARIANTS=mutant-never-release EXPLORE_SEED=7 EXPLORE_TEST_RUNS=10 EXPLORE_TEST_PCT_RUNS=0 uspace-explore-test\$"
	f=$(sed -n 's/^explore: replay: .* FILE=//p' out)
	rc=0
	"$bin" "$f" >replay 2>&1 || rc=$?
	[ $rc -ne 0 ] || { cat replay; fail "the input it names did not fail again"; }
	expect_match replay '^explore: FAIL \(release\) at command 37: '
}

# 7.2's destructors (byte 0 & 16, invariant dtor): vanilla@7.2 passes the
# seed dtor-late-callback, and the same memalloc.c edited to free the
# destructor's context at destroy, before the callbacks still queued, makes
# that seed's late __free_by_rcu() call the destructor on freed memory.
test_explore_dtor_context_outlives_callbacks_on_7_2() {
	explore_src vanilla 7.2
	mkdir -p edit/vanilla@7.2/kernel/bpf
	ln -s "$src/include" edit/vanilla@7.2/include
	ln -s "$src/lib" edit/vanilla@7.2/lib
	awk '/^static void destroy_mem_alloc\(/ { d = 1 }
		d && /^\tif \(!rcu_in_progress\) \{$/ {
			print "\tif (ma->dtor_ctx_free)"
			print "\t\tma->dtor_ctx_free(ma->dtor_ctx);"
			print "\tma->dtor_ctx_free = NULL;"
			d = 0
		}
		{ print }' "$src/kernel/bpf/memalloc.c" >edit/vanilla@7.2/kernel/bpf/memalloc.c
	[ "$(grep -c 'ma->dtor_ctx_free = NULL;' edit/vanilla@7.2/kernel/bpf/memalloc.c)" = 1 ] ||
		fail "7.2's destroy_mem_alloc() is not what the edit expects"
	for s in "$(dirname "$src")" "$SCRATCH/edit"; do
		u=$SCRATCH/us-$(basename "$s")
		make -s --no-print-directory -C "$KIT" BASE=7.2 US="$u" EXPLORE_SRC="$s" "$u/vanilla/explore/explore" \
			>build.log 2>&1 || { cat build.log; fail "could not build the explorer of vanilla@7.2 from $s"; }
	done
	rc=0
	EXPLORE_XFAIL=reuse "$SCRATCH/us-$(basename "$(dirname "$src")")/vanilla/explore/explore" \
		"$KIT/tools/uspace/corpus/dtor-late-callback" >plain 2>&1 || rc=$?
	[ $rc -eq 0 ] || { cat plain; fail "vanilla@7.2 broke dtor-late-callback (exit status $rc)"; }
	rc=0
	EXPLORE_XFAIL=reuse "$SCRATCH/us-edit/vanilla/explore/explore" "$KIT/tools/uspace/corpus/dtor-late-callback" \
		>edited 2>&1 || rc=$?
	[ $rc -ne 0 ] || { cat edited; fail "a destructor context freed before the callbacks went unseen"; }
	expect_match edited 'ERROR: AddressSanitizer: heap-use-after-free'
	expect_match edited '^    #0 0x[0-9a-f]+ in dtor .*/explore\.c:'
	expect_match edited '^    #[0-9]+ 0x[0-9a-f]+ in __free_by_rcu '
}
