# SPDX-License-Identifier: GPL-2.0
# uml/run against a real kernel: the image is never written, a hung guest
# and Ctrl-C leave no UML process behind.  Skipped until a kernel is built.

uml_processes() {
	# UML's processes all carry the run's umid on their command line.
	pgrep -f "umid=kit-$1( |\$)" || true
}

image() {
	[ -f "$KIT/rootfs.img" ] || skip "no rootfs.img (make rootfs first)"
	echo "$KIT/rootfs.img"
}

test_timeout_kills_the_whole_guest() {
	k=$(any_built kernel) || skip "no kernel built (make kernel first)"
	img=$(image)
	sum=$(sha256sum <"$img")
	rc=0
	# The reuse suite runs for seconds: one second is a hang to the launcher.
	"$KIT/uml/run" --timeout 1 --logdir logs --variant test --tests reuse "$k" "$img" >out 2>&1 &
	pid=$!
	wait $pid || rc=$?
	[ $rc -ne 0 ] || fail "a timed-out run passed"
	expect_match out 'PROBLEM guest hung: killed after 1 s'
	expect_match out 'last console lines'
	[ -z "$(uml_processes $pid)" ] || fail "UML processes left: $(uml_processes $pid)"
	[ "$(sha256sum <"$img")" = "$sum" ] || fail "rootfs.img was modified"
	[ -z "$(find logs -name '*.cow')" ] || fail "copy-on-write file left behind"
}

test_interrupt_leaves_no_process() {
	k=$(any_built kernel) || skip "no kernel built (make kernel first)"
	img=$(image)
	# A background job of a script starts with SIGINT ignored; a terminal's
	# foreground job does not, so give it the default back.
	env --default-signal=INT "$KIT/uml/run" --timeout 60 --logdir logs --variant test \
		--tests reuse "$k" "$img" >out 2>&1 &
	pid=$!
	# Wait until the guest is running its tests, then Ctrl-C.
	for _ in $(seq 50); do
		grep -q 'KTAP version' logs/*/console.log 2>/dev/null && break
		sleep 0.1
	done
	[ -n "$(uml_processes $pid)" ] || fail "the guest did not start"
	kill -INT $pid
	rc=0
	wait $pid || rc=$?
	[ $rc -eq 130 ] || fail "uml/run exited $rc after SIGINT, not 130"
	expect_match out 'interrupted; guest killed'
	[ -z "$(uml_processes $pid)" ] || fail "UML processes left: $(uml_processes $pid)"
	[ -z "$(pgrep -f "$SCRATCH/logs/")" ] || fail "processes left reading the log: $(pgrep -fa "$SCRATCH/logs/")"
}

test_run_directory_describes_the_run() {
	k=$(any_built kernel) || skip "no kernel built (make kernel first)"
	img=$(image)
	"$KIT/uml/run" --timeout 60 --logdir logs --variant test --tests htab_syscall "$k" "$img" >out 2>&1 ||
		fail "run failed"
	d=$(ls -d logs/*/)
	for f in console.log run.conf results.ktap summary; do
		[ -s "$d/$f" ] || fail "$d$f missing or empty"
	done
	expect_match "$d/run.conf" '^kernel=/'
	expect_match "$d/run.conf" '^tests=htab_syscall$'
	expect_match "$d/run.conf" '^exit=0$'
	expect_match "$d/summary" '^5 passed, 0 failed, 0 skipped$'
	expect_match "$d/run.conf" '^kit=.'
	# The directory re-runs: uml/again boots its again= command into a
	# new run directory with the same identity and filter.
	"$KIT/uml/again" "$d" >again.out 2>&1 || fail "uml/again failed: $(tail -5 again.out)"
	[ "$(ls -d logs/*/ | wc -l)" -eq 2 ] || fail "uml/again did not make one new run directory"
	d2=$(ls -td logs/*/ | head -1)
	[ "$d2" != "$d" ] || fail "uml/again reused $d"
	for key in kernel image variant tests timeout kit; do
		[ "$(grep "^$key=" "$d/run.conf")" = "$(grep "^$key=" "$d2/run.conf")" ] ||
			fail "uml/again changed $key: $(grep "^$key=" "$d2/run.conf")"
	done
	expect_match "$d2/summary" '^5 passed, 0 failed, 0 skipped$'
}

# gdb mode (make gdb): the same run directory and the same clean-up.  The
# guest runs a stress of 100 s, so gdb's `run` does not return: the
# timeout (batch use) ends gdb and the guest with it.
gdb_kernel_image() {
	command -v gdb >/dev/null || skip "no gdb (apt-get install gdb)"
	any_built kernel || skip "no kernel built (make kernel first)"
}

test_gdb_timeout_kills_the_whole_guest() {
	k=$(gdb_kernel_image) || exit $?
	img=$(image)
	sum=$(sha256sum <"$img")
	rc=0
	"$KIT/uml/run" --gdb --break panic --timeout 5 --logdir logs "$k" "$img" -- \
		kit.run=stress kit.env.KIT_STRESS_SECONDS=100 </dev/null >out 2>&1 &
	pid=$!
	wait $pid || rc=$?
	cat out
	[ $rc -eq 124 ] || fail "uml/run --gdb exited $rc after its timeout, not 124"
	expect_match out 'gdb still running after 5 s: ended it'
	d=$(ls -d logs/*/)
	expect_match "$d/run.conf" "^mode=gdb\$"
	expect_match "$d/run.conf" "^exit=124\$"
	expect_match "$d/run.gdb" "^set args .*'umid=kit-$pid'"
	# The guest was running when the timeout came, and did not finish.
	expect_match "$d/console.log" 'Run /sbin/init'
	expect_no_match "$d/console.log" 'reboot: (Power down|System halted)'
	[ -z "$(uml_processes $pid)" ] || fail "UML processes left: $(uml_processes $pid)"
	[ -z "$(pgrep -f "$SCRATCH/logs/")" ] || fail "processes left (gdb?): $(pgrep -fa "$SCRATCH/logs/")"
	[ "$(sha256sum <"$img")" = "$sum" ] || fail "rootfs.img was modified"
	[ -z "$(find logs -name '*.cow')" ] || fail "copy-on-write file left behind"
}

test_gdb_interrupt_leaves_no_process() {
	k=$(gdb_kernel_image) || exit $?
	img=$(image)
	env --default-signal=INT "$KIT/uml/run" --gdb --break panic --timeout 60 --logdir logs \
		"$k" "$img" -- kit.run=stress kit.env.KIT_STRESS_SECONDS=100 </dev/null >out 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		grep -q 'Run /sbin/init' logs/*/console.log 2>/dev/null && break
		sleep 0.1
	done
	[ -n "$(uml_processes $pid)" ] || { cat out; fail "the guest did not start"; }
	kill -INT $pid
	rc=0
	wait $pid || rc=$?
	cat out
	[ $rc -eq 130 ] || fail "uml/run --gdb exited $rc after SIGINT, not 130"
	expect_match out 'interrupted; guest killed'
	[ -z "$(uml_processes $pid)" ] || fail "UML processes left: $(uml_processes $pid)"
	[ -z "$(pgrep -f "$SCRATCH/logs/")" ] || fail "processes left (gdb?): $(pgrep -fa "$SCRATCH/logs/")"
	[ -z "$(find logs -name '*.cow')" ] || fail "copy-on-write file left behind"
	expect_no_match logs/*/console.log 'reboot: (Power down|System halted)'
}

# A guest that finds IMAGE locked by another (errno 11: a writer holds
# it) is booted again, on a fresh copy-on-write file, once the lock goes.
test_locked_image_boots_again() {
	k=$(any_built kernel) || skip "no kernel built (make kernel first)"
	cp "$(image)" root.img
	python3 -c 'import fcntl, time
f = open("root.img", "r+b")
fcntl.lockf(f, fcntl.LOCK_EX)
open("locked", "w").close()
time.sleep(5)' &
	i=0
	while [ ! -e locked ]; do
		i=$((i + 1))
		[ $i -le 100 ] || fail "the image was not locked"
		sleep 0.1
	done
	"$KIT/uml/run" --timeout 60 --logdir logs --variant test --tests htab_syscall "$k" root.img \
		>out 2>&1 || { cat out; fail "run failed"; }
	expect_match out "ubda: Can't open .*errno = 11"
	expect_match out 'root.img is locked by another guest; booting again in 10 s'
	expect_match out '^5 passed, 0 failed, 0 skipped$'
	[ -z "$(find logs -name '*.cow')" ] || fail "copy-on-write file left behind"
}
