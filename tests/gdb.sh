# SPDX-License-Identifier: GPL-2.0
# scripts/gdb against real kernels: boot under gdb and stop in the
# allocator's RCU callback, inspect it with the kit's commands, step, and
# let the guest finish; attach to a running guest, detach, and the guest
# lives on.  No UML process is left behind.  Skipped until a kernel is built.

# The allocator's callbacks that Tiny RCU calls (rcu_process_callbacks()),
# the test's own choice, not make gdb's defaults (the variants' break
# files, which tests/breaks.sh checks): reuse-after-gp has dyn_reuse_rcu()
# (and reuse_rcu() when a batch cannot be allocated), vanilla __free_rcu().
CALLBACKS='dyn_reuse_rcu reuse_rcu __free_rcu'
# Frees enough, on every variant, for the callbacks to run on a map in
# use, and passes on every variant.
SELECTION=reuse.update_delete_all_sizes

# gdb_kernel VARIANT: its default kernel, or skip (a failure under make
# test, which builds it); call as k=$(gdb_kernel V) || exit $?.
gdb_kernel() {
	k=$(kernel "$1" default) || exit $?
	command -v gdb >/dev/null || skip "no gdb (apt-get install gdb)"
	[ -f "$KIT/rootfs.img" ] || skip "no rootfs.img (make rootfs)"
	echo "$k"
}

# wait_for FILE REGEX SECONDS
wait_for() {
	i=0
	while ! grep -Eq -- "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le $(($3 * 10)) ] || return 1
		sleep 0.1
	done
}

# Processes whose command line matches PATTERN, and killing their process
# groups (UML's processes share one: the kernel process's).
procs() {
	pgrep -f "$1" || true
}
kill_groups() {
	for p in $(procs "$1"); do
		kill -KILL -"$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null || true
	done
}

# The lines of FILE from the first line matching START up to the first
# matching END after it.
section() {
	sed -n "/$2/,/$3/p" "$1"
}

# break_in_rcu_callback VARIANT [CALLBACKS KERNEL-ARGS]
break_in_rcu_callback() {
	variant=$1
	callbacks=${2:-$CALLBACKS}
	append=${3:-}
	k=$(gdb_kernel "$variant") || exit $?
	img=$KIT/rootfs.img
	sum=$(sha256sum <"$img")
	logs=$PWD/logs
	trap 'kill_groups "uml_dir=$logs/"' EXIT
	# At the first stop: go on to a callback on a cache in use (the first
	# ones may come from a map being destroyed, whose lists are drained),
	# look with every command, step once, and let the guest finish.  A
	# command's error would end the script: the error cases are caught.
	cat >session.gdb <<-'EOF'
	while $bpf_ma_cb_cache()->free_llist.first == 0
	  continue
	end
	echo KIT-STOPPED\n
	bt
	bpf-ma-current
	p $bpf_ma_current()->pid
	echo KIT-BPF-MA\n
	bpf-ma
	echo KIT-EXPR\n
	bpf-ma $bpf_ma_cb_cache()
	bpf-ma -s *$bpf_ma_cb_cache()
	echo KIT-MAPS\n
	bpf-ma-map
	bpf-ma-map htab
	bpf-ma-map -s htab
	python
	try:
	    gdb.execute("bpf-ma-map 99999")
	except gdb.error as e:
	    print("KIT-ERROR %s" % e)
	end
	echo KIT-RCU\n
	bpf-ma-rcu
	echo KIT-NEXT\n
	next
	EOF
	# A batch of reuse-after-gp's common path, found from the rcu_head of
	# its callback with linux.utils' $container_of().
	[ "$variant.$callbacks" != "reuse-after-gp.$CALLBACKS" ] || cat >>session.gdb <<-'EOF'
	delete
	tbreak dyn_reuse_rcu
	continue
	echo KIT-BATCH\n
	bpf-ma -s $container_of(rcu, "struct bpf_reuse_batch", "rcu")
	EOF
	cat >>session.gdb <<-'EOF'
	echo KIT-CONTINUE\n
	delete
	continue
	EOF
	rc=0
	# shellcheck disable=SC2086
	"$KIT/uml/run" --gdb --timeout 120 --logdir logs --tests "$SELECTION" --break "$callbacks" \
		--gdb-batch session.gdb "$k" "$img" -- kit.timeout=3600 $append </dev/null >out 2>&1 || rc=$?
	cat out
	[ $rc -eq 0 ] || fail "uml/run --gdb exited $rc"

	# Stopped in one of the callbacks, called by Tiny RCU.
	expect_match out "hit Breakpoint [0-9]+, ($(echo "$callbacks" | tr ' ' '|')) \\("
	expect_match out '^KIT-STOPPED'
	section out '^KIT-STOPPED' '^KIT-BPF-MA' >bt
	expect_match bt '^#[0-9]+ .* rcu_process_callbacks \('
	# RCU callbacks run in softirq context; bpf-ma-current finds the task.
	expect_match bt '^current: pid [0-9]+ comm "[^"]+" \(struct task_struct \*\) 0x[0-9a-f]+'
	expect_match bt '^preempt_count 0x[0-9a-f]+ \(.*softirq'
	pid=$(sed -n 's/^current: pid \([0-9]*\) .*/\1/p' bt)
	expect_match bt "^\\\$[0-9]+ = $pid\$"

	# bpf-ma: the variant's design's fields and no other's, every list a
	# number, free_cnt = length of free_llist.
	section out '^KIT-BPF-MA' '^KIT-EXPR' >ma
	expect_match ma '^[a-z_]+\(\): cache: \(struct bpf_mem_cache \*\) 0x[0-9a-f]+$'
	expect_match ma '^  free_llist [0-9]+  free_cnt [0-9]+  free_llist_extra [0-9]+$'
	expect_no_match ma 'absent'
	n=$(sed -n 's/^  free_llist \([0-9]*\)  free_cnt \([0-9]*\) .*/\1 \2/p' ma)
	[ "${n% *}" = "${n#* }" ] || fail "bpf-ma: free_llist and free_cnt differ: $n"
	[ "${n% *}" -gt 0 ] || fail "bpf-ma: stopped on a cache with an empty free_llist"
	case $variant in
	vanilla)
		expect_match ma '^  low_watermark [0-9]+  high_watermark [0-9]+  batch [0-9]+$'
		expect_match ma '^  free_by_rcu [0-9]+  waiting_for_gp [0-9]+  call_rcu_in_progress 1$'
		;;
	*)
		expect_match ma '^  watermark [0-9]+  batch [0-9]+  prepare_reuse_cnt [0-9]+$'
		expect_match ma '^  free_by_rcu [0-9]+  waiting_for_gp [0-9]+  reuse_ready [0-9]+  wait_for_free [0-9]+$'
		expect_match ma '^  reuse_rcu_in_progress [0-9]+  free_rcu_in_progress [0-9]+  dyn_reuse_rcu_cnt [0-9]+  direct_free 0$'
		;;
	esac
	# reuse_rcu() takes its objects from waiting_for_gp.
	[ "$callbacks" != reuse_rcu ] ||
		expect_match ma '^  free_by_rcu [0-9]+  waiting_for_gp [1-9][0-9]*  '
	expect_no_match ma 'unreadable|loop after|Python Exception|Error'

	# bpf-ma EXPR: the same cache from a pointer and from a value (-s).
	cache=$(sed -n 's/^[a-z_]*(): cache: (struct bpf_mem_cache \*) \(0x[0-9a-f]*\)$/\1/p' ma)
	section out '^KIT-EXPR' '^KIT-MAPS' >expr.out
	expect_match expr.out "^\\\$bpf_ma_cb_cache\\(\\): \\(struct bpf_mem_cache \\*\\) $cache\$"
	expect_match expr.out "^\\*\\\$bpf_ma_cb_cache\\(\\) $cache: unit_size [0-9]+  free_llist [0-9]+  free_cnt [0-9]+"
	expect_no_match expr.out 'unreadable|loop after|Python Exception|Error'

	# bpf-ma-map: the selftest's hash map, found in map_idr.
	section out '^KIT-MAPS' '^KIT-RCU' >maps
	expect_match maps '^ *[0-9]+ htab +BPF_MAP_TYPE_(PERCPU_)?HASH +flags 0x1 '
	expect_match maps "^map id [0-9]+ name 'htab' BPF_MAP_TYPE_(PERCPU_)?HASH flags 0x1 "
	expect_match maps '^  htab->ma: \(struct bpf_mem_alloc \*\) 0x[0-9a-f]+$'
	expect_match maps '^ +free_llist [0-9]+  free_cnt [0-9]+  free_llist_extra [0-9]+$'
	expect_match maps '^    cpu 0 cache 0x[0-9a-f]+: unit_size [0-9]+  free_llist [0-9]+  free_cnt'
	expect_match maps '^KIT-ERROR no BPF map with id 99999 \(maps: [0-9]+ [a-z]'
	expect_no_match maps 'unreadable|loop after|Python Exception|Error'

	section out '^KIT-RCU' '^KIT-NEXT' >rcu
	expect_match rcu '^Tiny RCU: [0-9]+ callbacks? queued, [0-9]+ done'

	# `next` went to a source line of the callback.
	section out '^KIT-NEXT' '^KIT-\(BATCH\|CONTINUE\)' >next
	expect_match next '^[0-9]+	'

	if grep -q '^KIT-BATCH' out; then
		section out '^KIT-BATCH' '^KIT-CONTINUE' >batch.out
		# shellcheck disable=SC2016 # gdb's $container_of, matched literally
		expect_match batch.out '^\$container_of.*: \(struct bpf_reuse_batch \*\) 0x[0-9a-f]+: [1-9][0-9]* objects \(head 0x[0-9a-f]+\) for cache 0x'
		expect_match batch.out '^  batch->c 0x[0-9a-f]+: unit_size [0-9]+  free_llist'
	elif [ "$variant.$callbacks" = "reuse-after-gp.$CALLBACKS" ]; then
		fail "no dyn_reuse_rcu() batch shown"
	fi

	# The guest ran to the end and passed.
	expect_match out '^\[Inferior 1 \(process [0-9]+\) exited normally\]'
	expect_match out "^ok 1 reuse"
	[ -z "$(procs "uml_dir=$logs/")" ] || fail "UML processes left: $(procs "uml_dir=$logs/")"
	[ "$(sha256sum <"$img")" = "$sum" ] || fail "rootfs.img was modified"
	[ -z "$(find logs -name '*.cow')" ] || fail "copy-on-write file left behind"
}

test_break_in_rcu_callback_vanilla() {
	break_in_rcu_callback vanilla
}

test_break_in_rcu_callback_reuse_after_gp() {
	break_in_rcu_callback reuse-after-gp
}

# The reuse_rcu() fallback, with every bpf_reuse_batch allocation failed
# by fault injection (kernel/patches/reuse-after-gp/0001).
test_break_in_reuse_rcu_fallback() {
	k=$(gdb_kernel reuse-after-gp) || exit $?
	grep -q '^CONFIG_FAULT_INJECTION=y' "$(dirname "$k")/.config" ||
		skip "reuse-after-gp kernel without CONFIG_FAULT_INJECTION"
	break_in_rcu_callback reuse-after-gp reuse_rcu fail_bpf_reuse_batch=1,100,0,-1
}

# bpf-ma-kill kills the guest's whole process group, and `run` again and
# leaving gdb leave no UML process behind.  (gdb's own kill of the kernel
# process alone takes the guest's processes with it here too: 6.1's die
# when their tracer does, 6.12's and 7.2's by PR_SET_PDEATHSIG; kit.gdb's
# hooks and the gdb_exiting handler are for when they do not.)  gdb runs
# without uml/run, whose clean-up would hide a process left.
test_kill_and_quit_leave_no_guest_process() {
	k=
	for v in reuse-after-gp vanilla; do
		[ -x "$(kernel_path "$v" default)" ] && { k=$(gdb_kernel "$v"); break; }
	done
	[ -n "$k" ] || skip "no kernel built (make kernel first)"
	logs=$PWD/logs
	mkdir logs
	trap 'kill_groups "uml_dir=$logs/"' EXIT
	# The kernel's processes, not gdb (whose command line has the args).
	count="pgrep -f '^[^ ]*/linux .*uml_dir=$logs/' | wc -l"
	cat >session.gdb <<-EOF
	shell echo KIT-BEFORE-KILL \$($count)
	bpf-ma-kill
	shell sleep 1; echo KIT-AFTER-KILL \$($count)
	run
	shell echo KIT-BEFORE-QUIT \$($count)
	EOF
	rc=0
	gdb -nx -q -batch -x "$KIT/scripts/gdb/kit.gdb" -ex "set inferior-tty /dev/null" \
		-ex "set args ubd0=$PWD/root.cow,$KIT/rootfs.img umid=kit-gdb-test-$$ uml_dir=$logs/run kit.t=$SELECTION </dev/null >console 2>&1" \
		-ex "bpf-ma-break $CALLBACKS" -ex run -x session.gdb "$k" </dev/null >out 2>&1 || rc=$?
	sleep 1
	left=$(procs "uml_dir=$logs/")
	cat out
	[ $rc -eq 0 ] || fail "gdb exited $rc"
	# Stopped twice in a callback, with the guest's processes running.
	[ "$(grep -Ec 'hit Breakpoint [0-9]+, ' out)" -eq 2 ] || fail "not stopped twice at a breakpoint"
	n=$(sed -n 's/^KIT-BEFORE-KILL //p' out)
	[ "${n:-0}" -ge 2 ] || fail "no guest process besides the kernel's to kill: $n"
	expect_match out '^KIT-AFTER-KILL 0$'
	n=$(sed -n 's/^KIT-BEFORE-QUIT //p' out)
	[ "${n:-0}" -ge 2 ] || fail "no guest process besides the kernel's after run again: $n"
	[ -z "$left" ] || fail "UML processes left when gdb ended: $left"
}

# make attach: a guest waiting in its shell (make shell), found by its pid
# file; break, continue, detach; the guest runs on.
test_attach_detach_guest_lives_on() {
	k=
	for v in reuse-after-gp vanilla; do
		[ -x "$(kernel_path "$v" default)" ] && { k=$(gdb_kernel "$v"); break; }
	done
	[ -n "$k" ] || skip "no kernel built (make kernel first)"
	[ -f "$KIT/rootfs.img" ] || skip "no rootfs.img (make rootfs)"
	command -v gdb >/dev/null || skip "no gdb (apt-get install gdb)"
	mkfifo console.in
	"$KIT/uml/run" --shell --logdir logs "$k" "$KIT/rootfs.img" <console.in >console 2>&1 &
	run=$!
	umid=kit-$run
	gdb_pid=
	trap '[ -z "$gdb_pid" ] || kill -TERM $gdb_pid 2>/dev/null; sleep 0.5; kill_groups "umid=$umid( |\$)"' EXIT
	# The guest's console input stays open as long as fd 3.
	exec 3>console.in
	# The guest's shell does the arithmetic: its answer is not an echo.
	# shellcheck disable=SC2016
	echo 'echo READY-$((1 + 1))' >&3
	wait_for console '^READY-2' 30 || fail "the guest's shell did not answer: $(tail -n 5 console)"
	conf=$(ls logs/*/run.conf) || fail "no run.conf in logs/*/"
	expect_match "$conf" "^umid=$umid\$"
	pidfile=$(sed -n 's/^pidfile=//p' "$conf")
	[ -s "$pidfile" ] || fail "no pid file $pidfile (run.conf's pidfile=)"
	guest=$(cat "$pidfile")

	cat >session.gdb <<-'EOF'
	echo KIT-STOPPED\n
	bt
	bpf-ma-current
	bpf-ma -s
	delete
	set print inferior-events on
	detach
	echo KIT-DETACHED\n
	EOF
	"$KIT/scripts/gdb/attach" --logdir logs --break "$CALLBACKS" -- -nx -batch -x session.gdb \
		</dev/null >out 2>&1 &
	gdb_pid=$!
	wait_for out '^gdb/attach: continuing' 30 || { cat out; fail "gdb did not attach and continue"; }
	# Now make the guest free objects: its RCU callbacks hit the breakpoint.
	echo "/usr/lib/kit/selftests/reuse update_delete_all_sizes; echo DONE-\$((2 + 3))" >&3
	wait_for out '^KIT-DETACHED' 60 || { cat out; fail "no breakpoint hit and detach within 60 s"; }
	wait "$gdb_pid" || { rc=$?; cat out; fail "gdb exited $rc"; }
	gdb_pid=
	cat out
	expect_match out "attach: kernel process $guest "
	expect_match out "^(Thread .* hit )?Breakpoint [0-9]+, ($(echo "$CALLBACKS" | tr ' ' '|')) \\("
	section out '^KIT-STOPPED' '^KIT-DETACHED' >stop
	expect_match stop '^#[0-9]+ .* rcu_process_callbacks \('
	expect_match stop '^[a-z_]+\(\): cache 0x[0-9a-f]+: unit_size [0-9]+  free_llist [0-9]+  free_cnt [0-9]+'
	expect_match out "^\\[Inferior 1 \\(process $guest\\) detached\\]"

	# Detached: the guest finishes the selftest and still answers.
	kill -0 "$guest" 2>/dev/null || fail "the guest died when gdb detached"
	wait_for console '^DONE-5' 60 || fail "the guest did not finish its selftest: $(tail -n 5 console)"
	expect_match console '^ok 1 update_delete_all_sizes'
	# shellcheck disable=SC2016
	echo 'echo ALIVE-$((3 + 4))' >&3
	wait_for console '^ALIVE-7' 30 || fail "the guest stopped answering: $(tail -n 5 console)"

	# Leave: the shell exits, init powers off, nothing is left.  (The
	# console's input stays open until then: UML drops input followed
	# at once by end of file.)
	echo exit >&3
	i=0
	while [ -n "$(procs "umid=$umid( |\$)")" ]; do
		i=$((i + 1))
		[ $i -le 300 ] || fail "the guest did not power off after exit: $(tail -n 5 console)"
		sleep 0.1
	done
	exec 3>&-
	wait "$run" || fail "uml/run --shell exited $?"
	expect_match console 'reboot: System halted'
}

# A gdb session on reuse-after-gp@BASE stopped in __free_by_rcu() (the
# merged design's RCU callback): its backtrace, bpf-ma on the stopped
# cache, bpf-ma -s bpf_global_ma; leaves gdb's output in out.
free_by_rcu_session() {
	k=$(kernel reuse-after-gp default "$1") || exit $?
	command -v gdb >/dev/null || skip "no gdb (apt-get install gdb)"
	logs=$PWD/logs
	trap 'kill_groups "uml_dir=$logs/"' EXIT
	printf '%s\n' 'echo KIT-STOPPED\n' 'bt 8' 'echo KIT-BPF-MA\n' bpf-ma \
		'echo KIT-GLOBAL\n' 'bpf-ma -s bpf_global_ma' \
		'echo KIT-CONTINUE\n' delete continue >session.gdb
	rc=0
	# overwrite_memory_bounded waits for the callbacks of its frees
	# (rcu_barrier()) after its first window: a guest that ran only
	# no_immediate_reuse could power off before any grace period ended
	# (7.2 with the lazy IPI patch did).
	"$KIT/uml/run" --gdb --timeout 150 --logdir logs \
		--tests reuse.no_immediate_reuse,reuse.overwrite_memory_bounded \
		--break "$(make -s --no-print-directory -C "$KIT" BASE="$1" print-break | sed 's/^[^:]*: //')" \
		--gdb-batch session.gdb "$k" "$KIT/rootfs.img" </dev/null >out 2>&1 || rc=$?
	[ $rc -eq 0 ] || fail "uml/run --gdb exited $rc"
	expect_match out 'hit Breakpoint [0-9]+, __free_by_rcu \('
	section out '^KIT-BPF-MA' '^KIT-GLOBAL' >ma
	expect_match ma '^__free_by_rcu\(\): cache: \(struct bpf_mem_cache \*\) 0x[0-9a-f]+$'
	expect_match ma '^  free_by_rcu [0-9]+  waiting_for_gp [0-9]+  call_rcu_in_progress [0-9]+$'
	expect_no_match ma 'absent'
	expect_match ma '^  free_llist_extra_rcu [0-9]+  free_by_rcu_ttrace [0-9]+  waiting_for_gp_ttrace [0-9]+  call_rcu_ttrace_in_progress [0-9]+  draining 0$'
	expect_match ma '^  rcu callbacks: __free_by_rcu \(running now\)'
	# A struct bpf_mem_alloc of size classes (6.1 has none): one line per
	# class and cpu, per-cpu pointers through linux.cpus.
	section out '^KIT-GLOBAL' '^KIT-CONTINUE' >global
	expect_match global '^bpf_global_ma: \(struct bpf_mem_alloc \*\) 0x[0-9a-f]+$'
	expect_match global '^  cpu 0 caches\[10\] 0x[0-9a-f]+: unit_size 4096  free_llist [0-9]+'
	expect_no_match global 'unreadable|loop after|Python Exception|Error'
	section out '^KIT-STOPPED' '^KIT-BPF-MA' >bt
}

# 6.12: the default breakpoints of its variants resolve, gdb stops in
# __free_by_rcu() called by Tiny RCU, and bpf-ma shows 6.12's own lists,
# not 6.1's.
test_break_in_free_by_rcu_6_12() {
	free_by_rcu_session 6.12
	expect_match bt ' rcu_process_callbacks \('
}

# 7.2 on two CPUs: Tree RCU runs the callback (rcu_do_batch() from
# rcu_core()), and the per-cpu caches of every CPU are read through
# linux.cpus' per_cpu().
test_break_in_free_by_rcu_7_2() {
	free_by_rcu_session 7.2
	expect_match bt ' rcu_do_batch \('
	expect_match global '^  cpu 1 caches\[10\] 0x[0-9a-f]+: unit_size 4096  free_llist [0-9]+'
}
