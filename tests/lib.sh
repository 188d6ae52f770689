# SPDX-License-Identifier: GPL-2.0
# Helpers for the host-side test cases (sourced by tests/run).

fail() {
	echo "FAIL: $*"
	exit 1
}

# skip REASON: the case is skipped; tests/run prints REASON after "# SKIP",
# and tools/report/expectations must allow it there (producer "kit").  Kept
# in $SCRATCH/.skip-reason too, so that a skip under "$(...)", ">/dev/null" or
# "2>err" still says why.
skip() {
	echo "$*" >&2
	[ -z "${SCRATCH:-}" ] || echo "$*" >"$SCRATCH/.skip-reason" 2>/dev/null || true
	exit 4
}

# expect_match FILE REGEX: FILE has a line matching the extended REGEX.
expect_match() {
	grep -Eq -- "$2" "$1" || {
		echo "--- $1:"
		tail -n 15 "$1"
		fail "no line of $1 matches /$2/"
	}
}

expect_no_match() {
	! grep -Eq -- "$2" "$1" || fail "$1 has a line matching /$2/: $(grep -E -- "$2" "$1" | head -n 1)"
}

# fixture_run NAME VARIANT EXIT [KEY=VALUE...]: a run directory made of a
# captured log, judged as a run of base 6.1 with uml/patches unless the
# KEY=VALUEs (run.conf lines: base=, uml=, producer=, tests=) say otherwise.
fixture_run() {
	d=run-$1-$2
	mkdir -p "$d"
	cp "$TESTS/fixtures/$1.log" "$d/console.log"
	printf 'variant=%s\ntimeout=300\nexit=%s\nbase=6.1\numl=yes\nproducer=selftests\n' "$2" "$3" >"$d/run.conf"
	shift 3
	for kv; do
		echo "$kv" >>"$d/run.conf"
	done
	echo "$d"
}

# announce RUNDIR N: the exit status init announces at the end of the
# run's console (rootfs/init.c), for a case that changed the outcome of a
# captured log.
announce() {
	sed -i "s/^# init: exit status [0-9]* ([0-9]* failed/# init: exit status $2 ($2 failed/" "$1/console.log"
}

. "$KIT/scripts/identity.sh"

# fact SPEC KEY: one fact of SPEC's identity, as the Makefile resolves it
# (scripts/identity.sh).
fact() {
	_id=$(kit_identity "$1") || fail "make -s identity SPEC=$1 failed"
	kit_fact "$2" "$_id"
}

# default_specs: the default build of the kit, then each base's.
default_specs() {
	echo ''
	for b in "$KIT"/kernel/bases/*; do
		echo "@${b##*/}"
	done
}

# any_built kernel|src: the first of the default builds' kernels (built)
# or source trees (unpacked) that exists, or none.
any_built() {
	for s in $(default_specs); do
		p=$KIT/$(fact "$s" "$1")
		case $1 in
		kernel) [ -x "$p" ] ;;
		*) [ -f "$p/Makefile" ] ;;
		esac && { echo "$p"; return 0; }
	done
	return 1
}

# kernel_path VARIANT FLAVOR [BASE]: where that build's kernel is, as the
# Makefile (the one place that knows) says.
kernel_path() {
	echo "$KIT/$(fact "$1${3:+@$3}:$2" kernel)"
}

# kernel VARIANT FLAVOR [BASE]: the path of that build's kernel.  Without
# it the case skips, or fails under `make test` (KIT_REQUIRE_KERNELS=1),
# which builds every kernel its cases need first.
kernel() {
	k=$(kernel_path "$@")
	[ -x "$k" ] && { echo "$k"; return 0; }
	[ -z "${KIT_REQUIRE_KERNELS:-}" ] || fail "$k not built"
	spec=$1${3:+@$3}:$2
	args=$(fact "$spec" make_args)
	skip "no $spec kernel (make $args kernel)"
}

# The kunit tool of an unpacked tree, to check that KTAP is accepted.
kunit_tool() {
	t=$(any_built src) && [ -f "$t/tools/testing/kunit/kunit.py" ] || return 1
	echo "$t/tools/testing/kunit/kunit.py"
}

# expect_kunit_parses FIXTURE: the tree's kunit.py parse accepts
# fixtures/FIXTURE.log (UML's CRLF stripped).  Skips without a tree.
expect_kunit_parses() {
	kunit=$(kunit_tool) || skip "no unpacked kernel tree with kunit.py (make kernel first)"
	tr -d '\r' <"$TESTS/fixtures/$1.log" >"$SCRATCH/$1.ktap"
	python3 "$kunit" parse "$SCRATCH/$1.ktap" >"$1.parsed" 2>&1 || true
	expect_match "$1.parsed" 'Testing complete\. Ran [0-9]+ tests'
	expect_no_match "$1.parsed" 'ERROR|could not find|invalid KTAP'
}

# A kit of its own in $SCRATCH/kit for the cases that run prepare-source on a
# made-up tree: the script and what it calls, and the layout of its
# one base that the Makefile would give it (variants in
# kit/kernel/patches/<variant>/, uml/patches/6.1/series).
copy_prepare_source() {
	mkdir -p kit/kernel kit/scripts
	cp "$KIT/kernel/prepare-source" kit/kernel/
	cp "$KIT/scripts/need-space" kit/scripts/
	cp "$KIT/scripts/lib.sh" kit/scripts/
	PATCHES=kernel/patches MUTANTS_DIR=kernel/mutants UML_PATCH_DIR=uml/patches/6.1
	export PATCHES MUTANTS_DIR UML_PATCH_DIR
}
