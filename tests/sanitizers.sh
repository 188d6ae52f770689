# SPDX-License-Identifier: GPL-2.0
# The kit's own C under ASan+UBSan and under Valgrind memcheck, on the
# host (binaries from tests/host.mk: make host-bins).  Any report fails.
#
# Covered: bench-report (every subcommand, on captured consoles), and the
# selftest programs htab_syscall and htab_xdp with tools/lib, run against
# the host kernel (they need root and bpf(); they only use the bpf() API,
# which any kernel serves the same way).  Not covered, because they
# cannot run on the host: rootfs/init.c (PID 1: mounts, reboot(2)), the
# irq_work and reuse suites and tools/bench (they judge the allocator of
# the kernel under test and move themselves into memory cgroups).

H=$KIT/build/host
VALGRIND="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --suppressions=$TESTS/valgrind.supp"
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

need() {
	[ -x "$H/$1" ] || skip "no $H/$1 (make host-bins)"
}

need_bpf() {
	[ "$(id -u)" -eq 0 ] || skip "the selftests need root for bpf() on the host"
	[ -e /sys/fs/bpf ] || skip "no BPF on this host"
}

# report_all RUNNER...: every bench-report subcommand on the fixtures.
report_all() {
	mkdir -p logs/b logs/r logs/p
	cp "$TESTS/fixtures/bench-vanilla.log" logs/b/console.log
	cp "$TESTS/fixtures/bench-reuse-after-gp.log" logs/r/console.log
	cp "$TESTS/fixtures/bench-rcu-gp-preempt.log" logs/p/console.log
	"$@" extract logs/b/console.log >docs.json 2>>err || fail "extract: $(cat err)"
	"$@" merge results.json --config date=test --run vanilla:1:logs/b \
		--run reuse-after-gp:1:logs/r --run vanilla@6.12:preempt:1:logs/p 2>>err ||
		fail "merge: $(cat err)"
	"$@" latency results.json >latency.md 2>>err || fail "latency: $(cat err)"
	expect_match latency.md '^\| vanilla@6\.12:preempt \| 1 \| io_destroy .* \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [1-9][0-9]* \|$'
	"$@" table results.json >table.md 2>>err || fail "table: $(cat err)"
	"$@" status results.json >status 2>>err || fail "status: $(cat err)"
	"$@" designs results.json >designs.md 2>>err || fail "designs: $(cat err)"
	"$@" percpu results.json >percpu.md 2>>err || fail "percpu: $(cat err)"
	"$@" plot results.json chart.png >plot.gp 2>>err || fail "plot: $(cat err)"
	"$@" markdown results.json >markdown.md 2>>err || fail "markdown: $(cat err)"
	echo 3 1 2 | "$@" stats >stats 2>>err || fail "stats: $(cat err)"
	expect_match table.md '^\| htab-mem overwrite \| [0-9.]+ ± [0-9.]+ k/s'
	expect_no_match err 'ERROR: AddressSanitizer|runtime error|ERROR SUMMARY: [1-9]'
}

test_bench_report_under_asan_ubsan() {
	need asan/bench-report
	report_all "$H/asan/bench-report"
}

test_bench_report_under_valgrind() {
	need plain/bench-report
	# shellcheck disable=SC2086 # valgrind and its options
	report_all $VALGRIND "$H/plain/bench-report"
}

# selftest RUNNER... SUITE: the suite passes with no sanitizer report.
selftest() {
	rc=0
	"$@" >out 2>&1 || rc=$?
	[ $rc -eq 0 ] || { cat out; fail "$* exited $rc"; }
	expect_match out '^ok [0-9]+ '
	expect_no_match out 'ERROR: AddressSanitizer|runtime error|LeakSanitizer|definitely lost|Invalid (read|write)'
}

test_selftests_under_asan_ubsan() {
	need_bpf
	for s in htab_syscall htab_xdp; do
		need asan/$s
		selftest "$H/asan/$s"
	done
}

test_selftests_under_valgrind() {
	need_bpf
	for s in htab_syscall htab_xdp; do
		need plain/$s
		# shellcheck disable=SC2086 # valgrind and its options
		selftest $VALGRIND "$H/plain/$s"
	done
}

# The harness itself: the same flags and options catch a planted bug.
planted_bug() {
	cat >bug.c <<'C'
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	char *p = malloc(8);

	memset(p, 0, 8 + argc);	/* one byte past the end */
	return p[0];		/* and p is never freed */
}
C
}

test_asan_catches_a_planted_bug() {
	planted_bug
	# shellcheck disable=SC2046 # the flags are words
	gcc -g $(sed -n 's/^HOST_SANITIZE := //p' "$TESTS/host.mk") bug.c -o bug || fail "cannot build"
	! ./bug >out 2>&1 || fail "ASan missed a heap overflow"
	expect_match out 'ERROR: AddressSanitizer: heap-buffer-overflow'
}

test_valgrind_catches_a_planted_bug() {
	planted_bug
	gcc -g bug.c -o bug || fail "cannot build"
	rc=0
	$VALGRIND ./bug >out 2>&1 || rc=$?
	[ $rc -eq 99 ] || fail "valgrind exited $rc, not 99"
	expect_match out 'Invalid write of size 1'
	expect_match out 'definitely lost'
}
