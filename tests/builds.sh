# SPDX-License-Identifier: GPL-2.0
# Builds are never wasted or corrupted: a second build recompiles nothing,
# two commands of one tree take turns, and an interrupted step leaves the
# previous result whole and the next run resumes.

# A kit of its own in $SCRATCH with an empty series and a tree of many files,
# so that unpacking it takes long enough to be interrupted.
slow_kit() {
	mkdir -p kit/kernel/patches/v kit/uml/patches/6.1 tree/kernel/bpf
	copy_prepare_source
	: >kit/uml/patches/6.1/series
	: >kit/kernel/patches/v/series
	printf 'kernelversion:\n\t@echo 6.1.0-fake\n' >tree/Makefile
	printf 'int a;\n' >tree/kernel/bpf/memalloc.c
	for d in $(seq 40); do
		mkdir -p "tree/d$d"
		for f in $(seq 100); do
			head -c 4096 /dev/urandom >"tree/d$d/f$f"
		done
	done
}

# ctrl_c_after SECONDS COMMAND...: run COMMAND as its own process group, as a
# terminal's foreground job is, and Ctrl-C the group after SECONDS.
ctrl_c_after() {
	s=$1
	shift
	setsid env --default-signal=INT "$@" >>interrupted.out 2>&1 &
	pid=$!
	sleep "$s"
	kill -INT -- "-$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	# Nothing of the group may outlive the Ctrl-C.
	for _ in $(seq 50); do
		pgrep -g "$pid" >/dev/null || return 0
		sleep 0.1
	done
	fail "processes of the interrupted command left: $(pgrep -ag "$pid" | head -n 3 | tr '\n' ' ')"
}

# The default kernel (reuse-after-gp, default flavor) as $k, its build
# directory as $obj and its tree as $src; the case skips if it is not built.
use_default_kernel() {
	k=$(kernel reuse-after-gp default) || exit $?
	obj=$(cd -P "$(dirname "$k")" && pwd)
	src=$(cd -P "$obj/.." && pwd)
}

make_kernel() {
	make -s -C "$KIT" kernel >out 2>&1 || fail "${1:-make kernel} failed: $(tail -n 3 out)"
}

# A mark that whatever is written next is newer than.
mark() {
	touch stamp
	sleep 1
}

test_second_build_recompiles_nothing() {
	use_default_kernel
	# The first make brings the build up to date with the kit as it is.
	make_kernel
	mark
	make_kernel
	# Objects of the kernel's files; the link's own .tmp_* are redone.
	find "$obj/" -name '*.o' ! -name '.tmp_*' -newer stamp >rebuilt
	[ ! -s rebuilt ] || fail "a second make kernel recompiled $(wc -l <rebuilt) objects: $(head -n 3 rebuilt | tr '\n' ' ')"
}

# kbuild-progress marks the start of each good Kbuild run of a directory.
kbuild_ran_since() {
	[ -n "$(find "$1/.kit-built" -newer "$2" 2>/dev/null)" ]
}

test_current_kernel_skips_kbuild_and_edits_do_not() {
	use_default_kernel
	make_kernel
	mark
	make_kernel
	! kbuild_ran_since "$obj" stamp || fail "Kbuild ran for a kernel newer than its tree"
	# What Kbuild reads, changed: a file of the tree, then the .config;
	# after Kbuild has seen the change, the next make skips it again.
	for f in "$src/include/linux/bpf_mem_alloc.h" "$obj/.config"; do
		mark
		touch "$f"
		make_kernel
		kbuild_ran_since "$obj" stamp || fail "Kbuild did not run after $f changed"
		mark
		make_kernel
		! kbuild_ran_since "$obj" stamp || fail "Kbuild ran again after it had built $f's change"
	done
}

test_lock_makes_the_second_command_wait() {
	"$KIT/scripts/with-lock" "$SCRATCH/tree.lock" sh -c 'echo first-start >>order; sleep 2; echo first-end >>order' &
	first=$!
	sleep 0.5
	"$KIT/scripts/with-lock" "$SCRATCH/tree.lock" sh -c 'echo second >>order' 2>err
	wait "$first"
	printf 'first-start\nfirst-end\nsecond\n' | cmp -s - order ||
		fail "the two commands overlapped: $(tr '\n' ' ' <order)"
	expect_match err "LOCK .*tree.lock is held by pid [0-9]+: sh -c echo first-start"
}

test_interrupted_prepare_source_keeps_the_old_tree() {
	slow_kit
	kit/kernel/prepare-source v "$SCRATCH/src/v" "$SCRATCH/tree" >out 2>&1 || fail "prepare-source: $(cat out)"
	echo old >"$SCRATCH/src/v/marker"
	for s in 0.1 0.3 0.6; do
		ctrl_c_after "$s" kit/kernel/prepare-source v "$SCRATCH/src/v" "$SCRATCH/tree"
		# Either the old tree or a whole new one, never half of one.
		[ -f "$SCRATCH/src/v/Makefile" ] || fail "interrupted after $s s: no tree at src/v"
		[ "$(find "$SCRATCH/src/v" -type f | wc -l)" -ge 4002 ] || fail "interrupted after $s s: a partial tree"
		[ -z "$(ls -d "$SCRATCH"/src/v.tmp.* 2>/dev/null)" ] || fail "interrupted after $s s: temporary tree left behind"
	done
	kit/kernel/prepare-source v "$SCRATCH/src/v" "$SCRATCH/tree" >out 2>&1 || fail "the next prepare-source failed: $(cat out)"
}

test_interrupted_mkimage_keeps_the_old_image() {
	[ -x /bin/busybox ] || skip "no /bin/busybox (apt-get install busybox-static)"
	head -c 2000000 /dev/urandom >big
	"$KIT/rootfs/mkimage" img /bin/busybox usr/share/x="big" >out 2>&1 || fail "mkimage: $(cat out)"
	cp img img.before
	for s in 0.05 0.2 0.4; do
		ctrl_c_after "$s" "$KIT/rootfs/mkimage" img /bin/busybox usr/share/x="big big2"
		cmp -s img img.before || {
			# It may have finished: then the image is whole and new.
			e2fsck -fn img >/dev/null 2>&1 || fail "interrupted after $s s: a broken image"
			cp img img.before
		}
		[ ! -e img.tmp ] || fail "interrupted after $s s: img.tmp left behind"
	done
}

test_kernel_build_interrupted_then_resumed() {
	use_default_kernel
	make_kernel
	mark
	# An edit, then Ctrl-C while compiling it, then at a random point of
	# the compile or the link (the failure names the point).
	touch "$src/kernel/bpf/memalloc.c"
	for s in 1 "$(shuf -i 2-10 -n 1)"; do
		ctrl_c_after "$s" make -s -C "$KIT" kernel
		# Kbuild deletes what it was writing: a kernel is whole or absent.
		[ ! -e "$k" ] || "$k" --version >/dev/null 2>&1 ||
			fail "interrupted after $s s: $k is not a runnable kernel"
	done
	make_kernel "the resumed make kernel"
	"$k" --version >version 2>&1 || fail "the resumed build's kernel does not run: $(cat version)"
	# The resumed build compiled the edited file and nothing else of the
	# tree (the link's own objects are always redone).
	find "$obj/" -name '*.o' ! -name '.tmp_*' ! -name 'vmlinux.o' ! -path '*/init/version*' \
		-newer stamp | sed "s|^$obj/||" | sort >rebuilt
	echo kernel/bpf/memalloc.o | cmp -s - rebuilt ||
		fail "compiled beside kernel/bpf/memalloc.o: $(grep -v memalloc rebuilt | head -n 5 | tr '\n' ' ')"
}

test_two_make_runs_of_one_variant_both_pass() {
	use_default_kernel
	make -s -C "$KIT" run T=htab_syscall LOGS="$SCRATCH/warm" >warm.out 2>&1 || fail "make run failed: $(tail -n 3 warm.out)"
	mark
	make -s -C "$KIT" run T=htab_syscall LOGS="$SCRATCH/logs" >first 2>&1 &
	first=$!
	make -s -C "$KIT" run T=htab_syscall LOGS="$SCRATCH/logs" >second 2>&1 || fail "the second make run failed: $(tail -n 5 second)"
	wait "$first" || fail "the first make run failed: $(tail -n 5 first)"
	[ -z "$(find "$obj/" -name '*.o' ! -name '.tmp_*' -newer stamp)" ] ||
		fail "the two runs recompiled: $(find "$obj/" -name '*.o' ! -name '.tmp_*' -newer stamp | head -n 3)"
	# Each run has a results directory of its own, and both passed.
	[ "$(ls logs | wc -l)" -eq 2 ] || fail "not one results directory per run: $(ls logs)"
	for d in logs/*; do
		expect_match "$d/summary" '^[1-9][0-9]* passed, 0 failed'
	done
}

# in_small_fs SIZE SCRIPT: run the sh SCRIPT (in $SCRATCH) in a mount namespace
# where $SCRATCH/small is a tmpfs of SIZE, so a full disk needs no root games on
# the real one; skips where no mount namespace can be had.
in_small_fs() {
	mkdir -p small
	ns=-m
	[ "$(id -u)" -eq 0 ] || ns=-rm
	# shellcheck disable=SC2016,SC2086 # expanded by the inner sh; ns is words
	unshare $ns sh -c 'mount -t tmpfs -o size=1m tmpfs small' 2>ns.err ||
		skip "cannot mount a small tmpfs here (unshare $ns: $(head -n 1 ns.err))"
	# shellcheck disable=SC2016,SC2086 # expanded by the inner sh; ns is words
	unshare $ns sh -c 'mount -t tmpfs -o size="$1" tmpfs small && cd "$SCRATCH" && exec sh -eu "$2"' sh "$1" "$2"
}

# on_full_disk SIZE SNAPSHOT MAKE_OLD MAKE_NEW: in a tmpfs of SIZE, make
# the old result with MAKE_OLD, then fail to make the new one with
# MAKE_NEW (its output in new.out); the SNAPSHOT command's output must not
# change (so the old result is as it was, and nothing temporary is left).
on_full_disk() {
	cat >steps <<STEPS
$3 >old.out 2>&1 || { cat old.out; exit 3; }
{ $2; } >old.snap
rc=0
$4 >new.out 2>&1 || rc=\$?
echo "\$rc" >new.rc
{ $2; } | diff old.snap - >damage || true
STEPS
	in_small_fs "$1" steps || fail "could not make the old result in a $1 tmpfs: $(cat old.out)"
	[ "$(cat new.rc)" -ne 0 ] || fail "succeeded on a full disk: $4"
	[ ! -s damage ] || fail "the old result changed: $(cat damage)"
}

test_full_disk_stops_mkimage_and_keeps_the_old_image() {
	[ -x /bin/busybox ] || skip "no /bin/busybox (apt-get install busybox-static)"
	head -c 12000000 /dev/urandom >big
	# shellcheck disable=SC2016 # commands run by on_full_disk's sh
	on_full_disk 16m 'ls -A small; sha256sum small/img' \
		'"$KIT/rootfs/mkimage" small/img /bin/busybox' \
		'"$KIT/rootfs/mkimage" small/img /bin/busybox usr/share/x=big'
	expect_match new.out 'no space for the root image: .*small/img needs about [0-9]+ MiB, and .*small has [0-9]+ MiB free'
}

test_full_disk_stops_prepare_source_and_keeps_the_old_tree() {
	slow_kit
	mkdir -p little/kernel/bpf
	cp tree/Makefile little/
	cp tree/kernel/bpf/memalloc.c little/kernel/bpf/
	on_full_disk 8m 'ls -A small/src; find small/src -type f -exec sha256sum {} + | sort' \
		'kit/kernel/prepare-source v small/src/v little' \
		'kit/kernel/prepare-source v small/src/v tree'
	expect_match new.out 'no space for a copy of .*tree: .*small/src/v needs about [0-9]+ MiB, and .*small has [0-9]+ MiB free'
}

test_full_disk_stops_the_judge_writing_results() {
	[ -x "$KIT/build/host/judge" ] || skip "no judge (make host-bins)"
	cp "$TESTS/fixtures/pass.log" pass.ktap
	cat >steps <<'STEPS'
mkdir small/out
head -c 4M /dev/zero >small/fill 2>/dev/null || true
rc=0
"$KIT/build/host/judge" --producer selftests --out small/out pass.ktap >judge.out 2>&1 || rc=$?
echo "$rc" >judge.rc
ls -A small/out >left
STEPS
	in_small_fs 1m steps
	[ "$(cat judge.rc)" -ne 0 ] || fail "the judge passed a run whose results it could not write"
	expect_match judge.out 'cannot write small/out/results.json: No space left on device'
	[ ! -s left ] || fail "results written in part: $(cat left)"
}

# mini_kit: a kit in $SCRATCH whose variant v has one patch of tree/a.c.
mini_kit() {
	mkdir -p kit/kernel/patches/v kit/uml/patches/6.1 tree/kernel/bpf
	copy_prepare_source
	: >kit/uml/patches/6.1/series
	echo 0001-a.patch >kit/kernel/patches/v/series
	printf 'kernelversion:\n\t@echo 6.1.0-fake\n' >tree/Makefile
	printf 'int a;\n' >tree/a.c
	printf 'int b;\n' >tree/kernel/bpf/memalloc.c
}

# mini_patch MESSAGE LINE: the variant's patch, adding LINE to a.c.
mini_patch() {
	printf 'Subject: %s\n\n---\n--- a/a.c\n+++ b/a.c\n@@ -1 +1,2 @@\n int a;\n+%s\n' "$1" "$2" \
		>kit/kernel/patches/v/0001-a.patch
}

test_patch_message_change_rebuilds_nothing() {
	mini_kit
	mini_patch "first words" "int c;"
	kit/kernel/prepare-source v "$SCRATCH/src/v" "$SCRATCH/tree" >out 2>&1 || fail "prepare-source: $(cat out)"
	touch -d '2020-01-01' src/v/a.c
	mini_patch "better words" "int c;"
	kit/kernel/prepare-source v "$SCRATCH/src/v" "$SCRATCH/tree" >out 2>&1 || fail "prepare-source: $(cat out)"
	[ "$(stat -c %Y src/v/a.c)" = "$(date -d 2020-01-01 +%s)" ] ||
		fail "a.c was touched though only the patch's message changed"
	mini_patch "better words" "int d;"
	kit/kernel/prepare-source v "$SCRATCH/src/v" "$SCRATCH/tree" >out 2>&1 || fail "prepare-source: $(cat out)"
	[ "$(stat -c %Y src/v/a.c)" -gt "$(date -d 2020-01-02 +%s)" ] ||
		fail "a.c kept its old mtime though the patch changed it"
	grep -q 'int d;' src/v/a.c || fail "a.c is not the new patch's: $(cat src/v/a.c)"
}
