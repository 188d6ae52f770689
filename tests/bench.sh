# SPDX-License-Identifier: GPL-2.0
# The benchmarks (tools/bench, scripts/bench): the host side on made-up
# consoles, and the guest program's correctness checks on a real kernel.
# Throughput is never checked: only that the figures are produced, and
# that what the workloads must do (every update succeeds, iterations
# match the runs, memory figures are possible) holds.

# shellcheck source=scripts/ktap.sh
. "$KIT/scripts/ktap.sh"
REPORT=$KIT/build/bench/bench-report
PROGRAM=$KIT/build/rootfs/bench/bench

report() {
	[ -x "$REPORT" ] || skip "no $REPORT (make $REPORT)"
	"$REPORT" "$@"
}

# doc BENCH STATUS PEAK SAMPLE...: a JSON document as the guest prints
# it, one sample per per-prod-op value.
doc() {
	name=$1 status=$2 peak=$3
	shift 3
	samples=
	for v; do
		samples="$samples${samples:+,} {\"t\": 1, \"seconds\": 1, \"per_prod_op\": $v, \"mem_mib\": 1.5}"
	done
	cat <<EOF
{
 "bench": "$name",
 "group": "htab-mem",
 "title": "$name",
 "upstream": "bench htab-mem --use-case $name",
 "env": { "producers": 1, "forced": false },
 "status": "$status",
 "skip_reason": "needs 2 CPUs",
 "metrics": [ { "name": "per_prod_op", "label": "per-prod-op", "unit": "k/s", "mean": 0, "stddev": 0 } ],
 "mem": { "avg_mib": 1.5, "stddev_mib": 0, "peak_mib": $peak },
 "samples": [ $samples ],
 "checks": [ { "name": "every_update_succeeds", "ok": true, "detail": "0 of 64 updates failed" } ]
}
EOF
}

# console DIR: DIR/console.log with the documents read from stdin, framed
# as init relays the bench program's output: indented, "# " lines, CRLF.
console() {
	mkdir -p "$1"
	{
		ktap_header
		ktap_plan 1
		echo "    # Subtest: bench"
		awk '
		/^@@ / { if (name != "") print "    # bench-json-end " name; name = $2
			 print "    # bench-json-begin " name; next }
		{ print "    # " $0 }
		END { if (name != "") print "    # bench-json-end " name }'
		ktap_result ok 1 bench
	} | sed 's/$/\r/' >"$1/console.log"
}

test_extract_reads_documents_between_markers() {
	{
		echo "@@ overwrite"
		doc overwrite ok 2 10 20
		echo "@@ add_del_on_diff_cpu"
		doc add_del_on_diff_cpu skip 0
	} | console run
	# A kernel message printed in the middle of a document is left out.
	sed -i '8a [    1.230000] random: crng init done\r' run/console.log
	report extract run/console.log >docs.json || fail "extract failed"
	expect_match docs.json '"bench": "overwrite"'
	expect_match docs.json '"bench": "add_del_on_diff_cpu"'
	[ "$(grep -c '"bench":' docs.json)" -eq 2 ] || fail "not 2 documents: $(cat docs.json)"
}

test_extract_reports_a_document_cut_short() {
	{
		echo "@@ overwrite"
		doc overwrite ok 2 10 20
	} | console run
	# The guest died in the middle of the document.
	grep -v 'bench-json-end' run/console.log | head -n 12 >run/cut && mv run/cut run/console.log
	rc=0
	report extract run/console.log >docs.json 2>err || rc=$?
	[ $rc -ne 0 ] || fail "a cut document went unnoticed"
	expect_match err 'document overwrite cut short'
	expect_no_match docs.json '"bench"'
}

test_merge_pools_rounds_and_computes_ratios() {
	{ echo "@@ overwrite"; doc overwrite ok 2 10 20; } | console logs/b1
	{ echo "@@ overwrite"; doc overwrite ok 3 30 40; } | console logs/b2
	{ echo "@@ overwrite"; doc overwrite ok 6 5 5; } | console logs/r1
	{ echo "@@ overwrite"; doc overwrite ok 5 5 5; } | console logs/r2
	report merge results.json --config date=today --config rounds=2 \
		--run vanilla:1:logs/b1 --run new:1:logs/r1 --run vanilla:2:logs/b2 --run new:2:logs/r2 ||
		fail "merge failed"
	for f in *tmp*; do
		[ ! -e "$f" ] || fail "temporary file left: $(ls)"
	done
	report table results.json >table.md
	cat table.md
	# Samples of both rounds pooled: 10 20 30 40 -> 25 +- 12.91; peak the
	# highest of the rounds; ratios new/vanilla.
	expect_match table.md '^\| workload \| vanilla \| avg mem \(MiB\) \| peak mem \(MiB\) \| new \|'
	expect_match table.md '^\| htab-mem overwrite \| 25\.00 ± 12\.91 k/s \| 1\.50 ± 0\.00 \| 3\.00 \| 5\.00 ± 0\.00 k/s \| 1\.50 ± 0\.00 \| 6\.00 \| 0\.20 \| 1\.00 \| 2\.00 \|$'
	expect_match results.json '"new/vanilla"'
	expect_match results.json '"date": "today"'
}

test_table_says_why_a_figure_is_missing() {
	{
		echo "@@ overwrite"; doc overwrite ok 2 10
		echo "@@ add_del_on_diff_cpu"; doc add_del_on_diff_cpu skip 0
		echo "@@ batch_add_batch_del"; doc batch_add_batch_del fail 0
	} | console logs/a
	# The second variant's guest died before printing anything.
	console logs/b </dev/null
	report merge results.json --run vanilla:1:logs/a --run new:1:logs/b || fail "merge failed"
	report table results.json >table.md
	cat table.md
	expect_match table.md '^\| htab-mem add_del_on_diff_cpu \| skipped: needs 2 CPUs \|'
	expect_match table.md '^\| htab-mem batch_add_batch_del \| FAILED'
	expect_match table.md '^\| htab-mem overwrite \| 10\.00 ± 0\.00 k/s .*\| no result \|'
	report status results.json >status
	expect_match status '^vanilla 1 batch_add_batch_del fail$'
}

# The htab-mem table per variant and the bpf_ma percpu table, on the
# captured bench consoles of the five variants (vanilla's and
# reuse-after-gp's from before no_op and the "needs SMP" reason), and the
# needs-SMP row of add_del_on_diff_cpu.
five_variants_results() {
	runs=
	for v in vanilla free-after-gp kmalloc-rcu percpu-marks reuse-after-gp; do
		mkdir -p "logs/$v"
		cp "$TESTS/fixtures/bench-$v.log" "logs/$v/console.log"
		runs="$runs --run $v:1:logs/$v"
	done
	# shellcheck disable=SC2086 # a list of arguments
	report merge results.json $runs || fail "merge failed"
}

test_designs_table_has_a_block_per_variant() {
	five_variants_results
	report designs results.json >designs.md || fail "designs failed"
	cat designs.md
	n=1
	for v in vanilla free-after-gp kmalloc-rcu percpu-marks reuse-after-gp; do
		expect_match designs.md "^\($n\) $v\$"
		n=$((n + 1))
	done
	[ "$(grep -c '^| name | loop (k/s) | average memory (MiB) | peak memory (MiB) |$' designs.md)" -eq 5 ] ||
		fail "not five tables"
	[ "$(grep -Ec '^\| overwrite \| [0-9.]+ ± [0-9.]+ \| [0-9.]+ ± [0-9.]+ \| [0-9.]+ \|$' designs.md)" -eq 5 ] ||
		fail "not five overwrite rows with figures"
	[ "$(grep -c '^| add_del_on_diff_cpu | skipped: needs 2 CPUs' designs.md)" -eq 2 ] ||
		fail "add_del_on_diff_cpu of the old consoles is not a skipped row"
	[ "$(grep -c '^| add_del_on_diff_cpu | needs SMP: 2 CPUs .*this kernel has 1 | | |$' designs.md)" -eq 3 ] ||
		fail "add_del_on_diff_cpu of the new consoles is not a needs-SMP row"
	[ "$(grep -Ec '^\| no_op \| [0-9.]+ ± [0-9.]+ \| [0-9.]+ ± [0-9.]+ \| [0-9.]+ \|$' designs.md)" -eq 3 ] ||
		fail "not three no_op rows with figures"
	expect_no_match designs.md '^\| (hash_|percpu_)'
}

test_percpu_table_has_a_row_per_variant() {
	five_variants_results
	report percpu results.json >percpu.md || fail "percpu failed"
	cat percpu.md
	expect_match percpu.md '^\| variant \| per-prod alloc \(M/s\) \| free \(M/s\) \| average memory \(MiB\) \| peak memory \(MiB\) \| failed inserts \(%\) \|$'
	for v in vanilla free-after-gp kmalloc-rcu percpu-marks reuse-after-gp; do
		expect_match percpu.md "^\| $v( \| [0-9.]+ ± [0-9.]+){3} \| [0-9.]+ \| [0-9.]+ ± [0-9.]+ \|\$"
	done
	[ "$(grep -c '^| ' percpu.md)" -eq 7 ] || fail "not a header, a rule and five rows"
}

test_designs_table_marks_needs_smp() {
	{
		echo "@@ no_op"; doc no_op ok 1 1000
		echo "@@ add_del_on_diff_cpu"; doc add_del_on_diff_cpu skip 0
	} | sed 's/"needs 2 CPUs"/"needs SMP: 2 CPUs, this kernel has 1"/' | console logs/a
	report merge results.json --run vanilla:1:logs/a || fail "merge failed"
	report designs results.json >designs.md || fail "designs failed"
	cat designs.md
	expect_match designs.md '^\| no_op \| 1000 ± 0 \| 1\.50 ± 0\.00 \| 1\.00 \|$'
	expect_match designs.md '^\| add_del_on_diff_cpu \| needs SMP: 2 CPUs, this kernel has 1 \| \| \|$'
	rc=0
	report percpu results.json >percpu.md 2>err || rc=$?
	[ $rc -ne 0 ] || fail "a percpu table without the percpu workload"
	expect_match err 'has no percpu_alloc_free workload'
}

# latency_doc BENCH MEDIAN: an rcu_gp document with one timed operation.
latency_doc() {
	cat <<EOF
{
 "bench": "$1", "group": "rcu", "title": "grace-period latency", "upstream": "none",
 "env": { "producers": 1, "forced": false }, "status": "ok",
 "metrics": [ { "name": "sync_us", "label": "synchronize_rcu", "unit": "us", "mean": 0, "stddev": 0 } ],
 "mem": { "avg_mib": 0.2, "stddev_mib": 0, "peak_mib": 0.5 },
 "samples": [ {"t": 1, "seconds": 1, "sync_us": $2, "mem_mib": 0.2} ],
 "latency": [ { "name": "sync", "label": "synchronize_rcu (array-of-maps update)",
   "median_us": $2, "p90_us": 90.25, "max_us": 4000, "samples": 1234 } ],
 "checks": []
}
EOF
}

# A variant in a flavor of its own (vanilla:preempt) is a variant of the
# results, and the timed operations come out per variant and round.
test_latency_table_per_variant_and_round() {
	{ echo "@@ rcu_gp"; latency_doc rcu_gp 35.5; } | console logs/a
	{ echo "@@ rcu_gp"; latency_doc rcu_gp 3000; } | console logs/b
	report merge results.json --run vanilla:1:logs/a --run vanilla:preempt:1:logs/b || fail "merge failed"
	expect_match results.json '"vanilla:preempt/vanilla"'
	report latency results.json >latency.md || fail "latency failed"
	cat latency.md
	expect_match latency.md '^\| variant \| round \| operation \| median \(us\) \| p90 \(us\) \| max \(us\) \| samples \|$'
	expect_match latency.md '^\| vanilla \| 1 \| synchronize_rcu \(array-of-maps update\) \| 35\.5 \| 90\.2 \| 4000\.0 \| 1234 \|$'
	expect_match latency.md '^\| vanilla:preempt \| 1 \| synchronize_rcu .* \| 3000\.0 \|'
	rc=0
	report merge bad.json --run vanilla:logs/a 2>err || rc=$?
	[ $rc -ne 0 ] || fail "--run without a round accepted"
	five_variants_results
	rc=0
	report latency results.json >latency.md 2>err || rc=$?
	[ $rc -ne 0 ] || fail "a latency table without timed operations"
	expect_match err 'has no timed operations'
}

# table.md (markdown): a section for each table that has rows, chosen by
# the workloads' groups in the results, not by a list of their names: a
# htab-mem workload of a name nothing lists gets the htab-mem section.
test_markdown_sections_follow_the_results() {
	{
		echo "@@ overwrite"; doc overwrite ok 2 10
		echo "@@ new_use_case"; doc new_use_case ok 2 30
	} | console logs/a
	{ echo "@@ overwrite"; doc overwrite ok 4 5; } | console logs/b
	report merge results.json --run vanilla:1:logs/a --run new:1:logs/b || fail "merge failed"
	report markdown results.json >table.md || fail "markdown failed"
	cat table.md
	[ "$(grep '^## ' table.md | tr '\n' '|')" = "## htab-mem per variant (RFC v2, Introduce BPF_MA_REUSE_AFTER_RCU_GP)|## Every workload, ratios to vanilla|" ] ||
		fail "sections: $(grep '^## ' table.md)"
	expect_match table.md '^\| new_use_case \| 30\.00 ± 0\.00 \| 1\.50 ± 0\.00 \| 2\.00 \|$'
	expect_match table.md '^\(2\) new$'
	expect_match table.md '^\| htab-mem overwrite \| 10\.00 ± 0\.00 k/s .*\| 0\.50 \| 1\.00 \| 2\.00 \|$'
	# Every table, in scripts/bench's order, each as its own command prints it.
	five_variants_results
	report markdown results.json >table.md || fail "markdown failed"
	[ "$(grep '^## ' table.md | tr '\n' '|')" = "## htab-mem per variant (RFC v2, Introduce BPF_MA_REUSE_AFTER_RCU_GP)|## bpf_ma percpu (v6, Reduce memory usage for bpf_global_percpu_ma)|## Every workload, ratios to vanilla|" ] ||
		fail "sections: $(grep '^## ' table.md)"
	{
		printf '## htab-mem per variant (RFC v2, Introduce BPF_MA_REUSE_AFTER_RCU_GP)\n\n'
		report designs results.json
		printf '\n## bpf_ma percpu (v6, Reduce memory usage for bpf_global_percpu_ma)\n\n'
		report percpu results.json
		printf '\n## Every workload, ratios to vanilla\n\n'
		report table results.json
	} >expected.md
	diff -u expected.md table.md || fail "markdown is not the tables one after the other"
	{ echo "@@ rcu_gp"; latency_doc rcu_gp 35.5; } | console logs/c
	report merge results.json --run vanilla:1:logs/c || fail "merge failed"
	report markdown results.json >table.md || fail "markdown failed"
	[ "$(grep '^## ' table.md | tr '\n' '|')" = "## Timed operations (microseconds), per variant and round|## Every workload, ratios to vanilla|" ] ||
		fail "sections: $(grep '^## ' table.md)"
}

# The statistics of stats.c, which the guest's figures and the host's
# pooled ones both come from: sample standard deviation, the median of an
# even count, nearest-rank p90.
test_stats_of_known_numbers() {
	echo 5 1 2 3 4 6 7 8 9 10 | report stats >out || fail "stats failed"
	expect_match out '^n 10 mean 5\.5 stddev 3\.02765 min 1 median 5\.5 p90 9 max 10$'
	printf '4\n1\n3\n2\n' | report stats >out
	expect_match out '^n 4 mean 2\.5 stddev 1\.29099 min 1 median 2\.5 p90 4 max 4$'
	echo 7 | report stats >out
	expect_match out '^n 1 mean 7 stddev 0 min 7 median 7 p90 7 max 7$'
	report stats </dev/null >out
	expect_match out '^n 0 mean 0 stddev 0 '
	rc=0
	echo 1 two | report stats >out 2>err || rc=$?
	[ $rc -eq 1 ] || fail "exit $rc for a word among the numbers, not 1"
	expect_match err 'something other than numbers after 1'
}

test_plot_draws_a_png() {
	command -v gnuplot >/dev/null || skip "no gnuplot"
	{ echo "@@ overwrite"; doc overwrite ok 2 10 20; echo "@@ add_del_on_diff_cpu"; doc add_del_on_diff_cpu skip 0; } |
		console logs/a
	{ echo "@@ overwrite"; doc overwrite ok 4 5 6; } | console logs/b
	report merge results.json --run vanilla:1:logs/a --run new:1:logs/b || fail "merge failed"
	report plot results.json chart.png | gnuplot 2>err || { cat err; fail "gnuplot failed"; }
	[ "$(head -c 4 chart.png | tail -c 3)" = PNG ] || fail "chart.png is not a PNG"
}

test_bench_script_checks_its_input_first() {
	rc=0
	"$KIT/scripts/bench" --variants no-such-variant --out results >out 2>&1 || rc=$?
	[ $rc -eq 2 ] || fail "exit $rc for an unknown variant, not 2"
	expect_match out "variant no-such-variant: unknown VARIANT 'no-such-variant' on base 6.1; its variants: .*reuse-after-gp"
	[ ! -e results ] || fail "results/ created for a run that never started"
	# A flavor the base has not got, named after the variant or for all.
	rc=0
	"$KIT/scripts/bench" --variants 'vanilla:no-such-flavor' --base 6.12 --out results >out 2>&1 || rc=$?
	[ $rc -eq 2 ] || fail "exit $rc for an unknown flavor, not 2"
	expect_match out "variant vanilla:no-such-flavor: unknown FLAVOR 'no-such-flavor' on base 6.12; its flavors: .*preempt"
	rc=0
	"$KIT/scripts/bench" --variants vanilla --flavor no-such-flavor --out results >out 2>&1 || rc=$?
	[ $rc -eq 2 ] || fail "exit $rc for an unknown --flavor, not 2"
	expect_match out "variant vanilla: unknown FLAVOR 'no-such-flavor' on base 6.1; its flavors: "
	# An entry of another base, as TEST_RUNS name them.
	rc=0
	"$KIT/scripts/bench" --variants 'vanilla@no-such-base:preempt' --out results >out 2>&1 || rc=$?
	[ $rc -eq 2 ] || fail "exit $rc for an unknown base, not 2"
	expect_match out "variant vanilla@no-such-base:preempt: unknown BASE 'no-such-base'; known bases: .*6\.12"
	[ ! -e results ] || fail "results/ created for a run that never started"
	# A build the kit knows but has not built: the command that builds it.
	rc=0
	"$KIT/scripts/bench" --variants 'vanilla@6.12:preempt no-such-variant' --out results >out 2>&1 || rc=$?
	if [ ! -x "$KIT/$(make -s --no-print-directory -C "$KIT" identity SPEC=vanilla@6.12:preempt | sed -n 's/^kernel=//p')" ]; then
		[ $rc -eq 2 ] || fail "exit $rc for a kernel not built, not 2"
		expect_match out 'no kernel for variant vanilla@6\.12:preempt .*; build it with: make BASE=6\.12 VARIANT=vanilla FLAVOR=preempt kernel'
	fi
	rc=0
	"$KIT/scripts/bench" --rounds none >out 2>&1 || rc=$?
	[ $rc -eq 2 ] || fail "exit $rc for --rounds none, not 2"
	expect_match out 'rounds must be a positive number'
}

test_bench_program_lists_and_refuses_unknown_names() {
	[ -x "$PROGRAM" ] || skip "no $PROGRAM (make $PROGRAM)"
	# The guest program is static: the host can ask it.
	"$PROGRAM" --list >all || fail "--list failed"
	expect_match all '^overwrite$'
	expect_match all '^add_del_on_diff_cpu$'
	expect_match all '^percpu_alloc_free$'
	expect_match all '^rcu_gp$'
	BENCH='hash_*' "$PROGRAM" --list >some
	[ "$(tr '\n' ' ' <some)" = "hash_kmalloc hash_prealloc hash_full_update " ] ||
		fail "BENCH='hash_*' selects: $(cat some)"
	rc=0
	"$PROGRAM" --list no_such_bench 2>err || rc=$?
	[ $rc -eq 2 ] || fail "exit $rc for an unknown benchmark, not 2"
	expect_match err "no benchmark matches 'no_such_bench'"
	rc=0
	BENCH_ARGS=-d,0 "$PROGRAM" --list 2>err || rc=$?
	[ $rc -eq 2 ] || fail "-d 0 accepted"
}

bench_image() {
	[ -f "$KIT/rootfs.img" ] || skip "no rootfs.img (make rootfs)"
	debugfs -R 'stat /usr/lib/kit/bench/bench' "$KIT/rootfs.img" 2>/dev/null | grep -q Inode ||
		skip "rootfs.img has no bench program (make rootfs)"
	echo "$KIT/rootfs.img"
}

# Every workload on a real kernel, briefly: the checks of each pass, and
# add_del_on_diff_cpu skips on one CPU but its paired code path works (-f).
test_workloads_pass_their_checks() {
	kernel reuse-after-gp default >/dev/null
	k=$(kernel reuse-after-gp default)
	img=$(bench_image)
	for force in "" ",-f"; do
		rc=0
		"$KIT/uml/run" --timeout 240 --logdir logs --variant reuse-after-gp --mem 256M "$k" "$img" -- \
			kit.run=bench kit.timeout=200 kit.env.BENCH_ARGS=-w,0,-d,1,-p,2$force \
			${force:+kit.env.BENCH=add_del_on_diff_cpu} >out 2>&1 || rc=$?
		d=$(ls -td logs/*/ | head -n 1)
		[ $rc -eq 0 ] || { tail -n 30 out; fail "bench run failed (exit $rc), log $d"; }
		tr -d '\r' <"$d/console.log" >console
		expect_match console '^    ok [0-9]+ memory_sampler$'
		expect_no_match console 'check [a-z_]+: FAILED'
		report extract console >docs.json || fail "documents unreadable"
		if [ -z "$force" ]; then
			for b in no_op overwrite batch_add_batch_del hash_kmalloc hash_prealloc \
				hash_full_update percpu_alloc_free rcu_gp; do
				expect_match console "^    ok [0-9]+ $b\$"
			done
			expect_match console 'rcu_gp: check outer_holds_inner: ok'
			expect_match console 'rcu_gp: check every_aio_context_destroyed: ok'
			expect_match console 'rcu_gp: latency synchronize_rcu .*: median [0-9.]+ us, p90 [0-9.]+ us, max [0-9.]+ us, [1-9][0-9]* samples'
			expect_match console 'rcu_gp: latency io_destroy .*: median [0-9.]+ us, .*[1-9][0-9]* samples'
			expect_match docs.json '"median_us"'
			expect_match console '^    ok [0-9]+ add_del_on_diff_cpu # SKIP needs SMP: 2 CPUs'
			expect_match console 'overwrite: check iterations_match_runs: ok'
			expect_match console 'overwrite: check every_update_succeeds: ok: 0 of'
			expect_match docs.json '"skip_reason": "needs SMP: 2 CPUs'
		else
			expect_match console '^    ok [0-9]+ add_del_on_diff_cpu$'
			expect_match console 'add_del_on_diff_cpu: check pairs_in_step: ok'
			expect_match docs.json '"forced": true'
		fi
	done
}

# make bench's script end to end, one short round: a complete,
# self-describing results directory and nothing else.
test_bench_writes_a_results_directory() {
	kernel vanilla default >/dev/null
	kernel reuse-after-gp default >/dev/null
	bench_image >/dev/null
	[ -x "$REPORT" ] || skip "no $REPORT (make $REPORT)"
	"$KIT/scripts/bench" --bench overwrite --args "-w 0 -d 1" --rounds 1 --out res >out 2>&1 ||
		{ tail -n 30 out; fail "scripts/bench failed"; }
	[ "$(ls -A res | wc -l)" -eq 1 ] || fail "res/ holds more than the results: $(ls -A res)"
	d=res/$(ls res)
	for f in results.json table.md chart.png README; do
		[ -s "$d/$f" ] || fail "$d/$f missing or empty"
	done
	[ "$(ls "$d/logs" | wc -l)" -eq 2 ] || fail "not one log per boot: $(ls "$d/logs")"
	expect_match "$d/table.md" '^\| htab-mem overwrite \| [0-9.]+ ± [0-9.]+ k/s \|.*\| [0-9.]+ ± [0-9.]+ k/s \|'
	expect_match "$d/README" '^kernel: +reuse-after-gp: '
	expect_match out '^=== bench: round 1 of 1, vanilla: overwrite'
	expect_no_match out 'bench-json-begin'
	report status "$d/results.json" >status
	[ "$(grep -c ' overwrite ok$' status)" -eq 2 ] || fail "status: $(cat status)"
}
