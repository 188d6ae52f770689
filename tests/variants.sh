# SPDX-License-Identifier: GPL-2.0
# Variants: every series describes itself, series composition ('include
# VARIANT') resolves in order and fails clearly, the source key follows
# included patches, and the bench selection (VARIANTS=) takes every
# variant.  Nothing here builds or boots a kernel.

# Every base of the kit (kernel/bases/<base>).
known_bases() {
	for b in "$KIT"/kernel/bases/*; do
		basename "$b"
	done
}

# known_variants [BASE]: every kernel/patches/BASE/*/series (default: the
# default base's, which make help lists), by variant name.
known_variants() {
	for s in "$KIT"/kernel/patches/"${1:-6.1}"/*/series; do
		basename "$(dirname "$s")"
	done
}

test_make_variants_lists_every_series_description() {
	for b in $(known_bases); do
		make -s -C "$KIT" variants BASE="$b" >out 2>&1 || fail "make variants BASE=$b failed: $(cat out)"
		n=0
		for v in $(known_variants "$b"); do
			d=$(sed -n 's/^#[[:space:]]*//p' "$KIT/kernel/patches/$b/$v/series" | head -n 1)
			[ -n "$d" ] || fail "kernel/patches/$b/$v/series has no description (a first '#' line)"
			grep -Fq -- "$v" out || fail "make variants BASE=$b does not list $v"
			grep -Fq -- "$d" out || fail "make variants BASE=$b does not show the description of $v: $d"
			n=$((n + 1))
		done
		[ "$n" -gt 0 ] || fail "base $b has no variant (kernel/patches/$b/<variant>/series)"
		[ "$(wc -l <out)" -eq "$n" ] || fail "$(wc -l <out) lines for $n variants of $b: $(cat out)"
		# make bases lists the same directories.
		make -s -C "$KIT" bases >bases 2>&1 || fail "make bases failed"
		grep -Fq "variants: $(known_variants "$b" | paste -sd' ' -);" bases ||
			fail "make bases does not list the variants of $b as kernel/patches/$b/ has them: $(cat bases)"
	done
	make -s -C "$KIT" help >help 2>&1 || fail "make help failed"
	for v in $(known_variants); do
		grep -Eq "^  $v +" help || fail "make help does not list variant $v"
	done
}

test_every_series_resolves() {
	for b in $(known_bases); do
		for v in $(known_variants "$b"); do
			(cd "$KIT" && PATCHES=kernel/patches/$b MUTANTS_DIR=kernel/mutants/$b \
				kernel/prepare-source --files "$v") >files 2>err || fail "$b/$v: $(cat err)"
			[ "$(head -n 1 files)" = "kernel/patches/$b/$v/series" ] ||
				fail "$b/$v: first file $(head -n 1 files)"
			while read -r f; do
				[ -f "$KIT/$f" ] || fail "$b/$v: $f listed but missing"
			done <files
		done
	done
}

# A kit of its own: variants a (one patch), b = include a + one patch,
# and a tree whose file each patch changes one line of.
composed_kit() {
	mkdir -p kit/kernel/patches/a kit/kernel/patches/b kit/uml/patches/6.1 tree/kernel
	copy_prepare_source
	: >kit/uml/patches/6.1/series
	printf 'kernelversion:\n\t@echo 6.1.0-fake\n' >tree/Makefile
	printf 'one\ntwo\n' >tree/f
	cat >kit/kernel/patches/a/0001-a.patch <<'PATCH'
--- a/f
+++ b/f
@@ -1,2 +1,2 @@
-one
+ONE
 two
PATCH
	cat >kit/kernel/patches/b/0001-b.patch <<'PATCH'
--- a/f
+++ b/f
@@ -1,2 +1,2 @@
 ONE
-two
+TWO
PATCH
	printf '# A: the first\n0001-a.patch\n' >kit/kernel/patches/a/series
	printf '# B: a, then more\ninclude a\n0001-b.patch\n' >kit/kernel/patches/b/series
}

test_include_applies_the_other_series_first() {
	composed_kit
	kit/kernel/prepare-source b "$SCRATCH/src/b" "$SCRATCH/tree" >out 2>&1 || fail "prepare-source b: $(cat out)"
	[ "$(cat src/b/f)" = "$(printf 'ONE\nTWO')" ] || fail "src/b/f is $(cat src/b/f)"
	[ "$(sed -n 's/^  PATCH   //p' out | tr '\n' ' ')" = \
		"kernel/patches/a/0001-a.patch kernel/patches/b/0001-b.patch " ] ||
		fail "patches not applied a then b: $(grep PATCH out)"
	kit/kernel/prepare-source --files b >files || fail "--files b failed"
	[ "$(cat files)" = "$(printf '%s\n' kernel/patches/b/series kernel/patches/a/series \
		kernel/patches/a/0001-a.patch kernel/patches/b/0001-b.patch)" ] ||
		fail "--files b: $(cat files)"
}

# refused SERIES_OF_B REGEX: prepare-source --files b fails, saying REGEX.
refused() {
	printf '%b' "$1" >kit/kernel/patches/b/series
	! kit/kernel/prepare-source --files b >out 2>&1 || fail "series '$1' resolved: $(cat out)"
	expect_match out "$2"
}

test_bad_include_is_named() {
	composed_kit
	printf 'include nosuch\n' >kit/kernel/patches/b/series
	! kit/kernel/prepare-source b "$SCRATCH/src/b" "$SCRATCH/tree" >out 2>&1 || fail "an unknown include applied"
	expect_match out "kernel/patches/b/series includes 'nosuch', which is not a variant .*known: a b"
	[ ! -e src/b ] || fail "a tree was made"
	refused 'include a b\n' "'include a b': give one variant name"
	refused '0001-a.patch 0001-b.patch\n' "one patch a line, or 'include VARIANT'"
}

test_include_cycles_are_named() {
	composed_kit
	printf 'include b\n0001-a.patch\n' >kit/kernel/patches/a/series
	! kit/kernel/prepare-source b "$SCRATCH/src/b" "$SCRATCH/tree" >out 2>&1 || fail "a cycle applied"
	expect_match out "'include b' makes a cycle: b -> a -> b"
	[ ! -e src/b ] || fail "a tree was made"
	refused 'include b\n' "'include b' makes a cycle: b -> b"
}

# The Makefile keys the source tree on --files: the included patch is in
# the key of every variant that includes it.
test_source_key_covers_included_patches() {
	# shellcheck disable=SC2016 # make's $(...), matched literally
	grep -q 'VARIANT_FILES := $(shell .*kernel/prepare-source --files $(VARIANT)' "$KIT/Makefile" ||
		fail "the Makefile does not key the source on prepare-source --files"
	grep -q '^SERIES_FILES :=.*' "$KIT/Makefile" && grep -A1 '^SERIES_FILES :=' "$KIT/Makefile" |
		grep -q 'VARIANT_FILES' || fail "SERIES_FILES does not use VARIANT_FILES"
}

test_unknown_bench_variant_is_named() {
	rc=0
	make -n -C "$KIT" bench VARIANTS='vanilla no-such-variant' >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "make bench accepted an unknown variant"
	expect_match out "VARIANTS entry no-such-variant: unknown VARIANT 'no-such-variant' on base 6\.1; its variants: .*vanilla.*VARIANTS=all"
}

test_unknown_bench_flavor_is_named() {
	rc=0
	make -n -C "$KIT" bench BASE=6.12 VARIANTS='vanilla vanilla:no-such-flavor' >out 2>&1 || rc=$?
	[ $rc -ne 0 ] || fail "make bench accepted an unknown flavor"
	expect_match out "VARIANTS entry vanilla:no-such-flavor: unknown FLAVOR 'no-such-flavor' on base 6\.12; its flavors: .*preempt"
	# A flavor of the base passes, and BASE and FLAVOR reach scripts/bench.
	make -n -C "$KIT" bench BASE=6.12 VARIANTS='vanilla vanilla:preempt' >out 2>&1 ||
		fail "make -n bench BASE=6.12 VARIANTS='vanilla vanilla:preempt': $(tail -n 3 out)"
	expect_match out "scripts/bench --variants 'vanilla vanilla:preempt' --base '6\.12' --flavor 'default'"
}

test_bench_all_means_every_variant_base_first() {
	make -n -C "$KIT" bench VARIANTS=all >out 2>&1 || fail "make -n bench VARIANTS=all: $(tail -n 3 out)"
	line=$(grep 'scripts/bench --variants' out) || fail "no scripts/bench command: $(tail -n 3 out)"
	list=$(echo "$line" | sed "s/.*--variants '\([^']*\)'.*/\1/")
	[ "${list%% *}" = vanilla ] || fail "VARIANTS=all does not start with vanilla: $list"
	for v in $(known_variants); do
		case " $list " in
		*" $v "*) ;;
		*) fail "VARIANTS=all leaves out $v: $list" ;;
		esac
	done
	[ "$(printf '%s\n' "$list" | wc -w)" -eq "$(known_variants | wc -l)" ] || fail "VARIANTS=all: $list"
}

# make test boots every variant of every base once, at the default
# flavor; the other flavors only on the default variant, as each flavor's
# first build is cold (the rest is make test-matrix).  A base whose file
# says make_test=no is left to make test-matrix.
test_make_test_boots_every_variant_once() {
	make -s -C "$KIT" help >help 2>&1 || fail "make help failed"
	runs=$(sed -n 's/^  TEST_RUNS="\(.*\)"$/\1/p' help)
	[ -n "$runs" ] || fail "no TEST_RUNS in make help"
	for b in $(known_bases); do
		[ "$(sed -n 's/^make_test=//p' "$KIT/kernel/bases/$b")" != no ] || continue
		for v in $(known_variants "$b"); do
			case " $runs " in
			*" $v@$b:default "*) ;;
			*) fail "make test does not boot $v@$b at the default flavor (TEST_RUNS: $runs)" ;;
			esac
		done
	done
	for r in $runs; do
		id=$(kit_identity "$r") || fail "TEST_RUNS names $r, which the kit does not resolve"
		[ "$(kit_fact flavor "$id")" = default ] || [ "$(kit_fact variant "$id")" = reuse-after-gp ] ||
			fail "make test boots $r: a flavor's first build is cold; other variants' flavors belong to make test-matrix"
	done
}
