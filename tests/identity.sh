# SPDX-License-Identifier: GPL-2.0
# A build's identity has one resolver, the Makefile (make -s identity,
# scripts/identity.sh): every base is laid out and named the same way,
# a spec is parsed there only, and no script parses one or globs build/
# for a build of its own.  Nothing here builds or boots a kernel.

# identity ARGS...: make -s identity ARGS, its lines in ./id.
identity() {
	make -s --no-print-directory -C "$KIT" identity "$@" >id 2>err ||
		fail "make identity $*: $(cat err)"
}

# key KEY: its value in ./id.
key() {
	sed -n "s/^$1=//p" id
}

# Every base: its default variant's names all end in @<base>, 6.1's too.
test_every_base_names_its_builds_alike() {
	n=0
	for f in "$KIT"/kernel/bases/*; do
		b=${f##*/}
		v=$(sed -n 's/^default_variant=//p' "$f")
		identity SPEC="@$b:default"
		[ "$(key base)" = "$b" ] && [ "$(key variant)" = "$v" ] && [ "$(key flavor)" = default ] ||
			fail "SPEC=@$b:default resolved to $(key spec)"
		for kv in "tag=@$b" "src=build/src/$v@$b" "build=build/$v-default@$b" \
			"kernel=build/$v-default@$b/linux" "run_name=$v@$b" "uspace=build/uspace@$b" \
			"upstream_image=build/upstream/$v@$b/rootfs.img" "make_args=BASE=$b VARIANT=$v FLAVOR=default" \
			"judge_args=--variant $v --base $b --uml yes"; do
			grep -Fqx -- "$kv" id || fail "SPEC=@$b: no line $kv: $(cat id)"
		done
		# The variants are the directories with a series, and the base
		# file no longer lists them.
		[ -f "$KIT/kernel/patches/$b/$v/series" ] || fail "no kernel/patches/$b/$v/series"
		! grep -Eq '^(variants|patches)=' "$f" || fail "$f still lists its variants or patches"
		[ -f "$KIT/tools/upstream/denylist/$b" ] || fail "base $b has no tools/upstream/denylist/$b"
		[ -f "$KIT/uml/patches/$b/series" ] || fail "base $b has no uml/patches/$b/series"
		n=$((n + 1))
	done
	[ "$n" -ge 3 ] || fail "only $n bases"
	# Nothing of a base lives outside its directories.
	for d in "$KIT"/kernel/patches/* "$KIT"/kernel/mutants/*/ "$KIT"/uml/patches/*; do
		[ -d "$d" ] || continue
		[ -f "$KIT/kernel/bases/$(basename "$d")" ] || fail "$d is not the directory of a base"
	done
}

# SPEC= is VARIANT=, BASE= and FLAVOR= at once; a part left out keeps the
# variable, a bad spec names the grammar.
test_spec_is_the_three_variables() {
	identity SPEC=vanilla@6.12:preempt
	mv id spec.id
	identity BASE=6.12 VARIANT=vanilla FLAVOR=preempt
	cmp -s id spec.id || fail "SPEC=vanilla@6.12:preempt is not BASE=6.12 VARIANT=vanilla FLAVOR=preempt: $(diff spec.id id)"
	identity SPEC=:kasan BASE=6.12
	[ "$(key spec)" = reuse-after-gp@6.12:kasan ] || fail "SPEC=:kasan BASE=6.12 is $(key spec)"
	identity SPEC=percpu-marks VARIANT=vanilla
	[ "$(key spec)" = percpu-marks@6.1:default ] || fail "SPEC=percpu-marks VARIANT=vanilla is $(key spec)"
	identity SPEC=mutant-reuse-no-gp@6.1
	[ "$(key mutant_of)" = reuse-after-gp ] || fail "a mutant is not judged as the variant it breaks: $(cat id)"
	[ "$(key run_name)" = mutant-reuse-no-gp@6.1 ] || fail "a mutant's runs are named $(key run_name)"
	for bad in 'a@b@c' 'a:b:c' 'a b' 'a/b'; do
		rc=0
		make -s --no-print-directory -C "$KIT" identity SPEC="$bad" >out 2>&1 || rc=$?
		[ $rc -ne 0 ] || fail "SPEC='$bad' accepted: $(cat out)"
		expect_match out "bad SPEC '$bad': give VARIANT\[@BASE\]\[:FLAVOR\]"
	done
}

# A make that a recipe runs gets the spec's parts, and its own VARIANT=
# wins over them (make uspace-trees runs one per variant).
test_spec_reaches_recipes_as_its_parts() {
	# shellcheck disable=SC2016 # make's \$(MAKE), not the shell's
	make -s --no-print-directory -C "$KIT" SPEC=vanilla@6.12:preempt \
		--eval 'kit-test-sub: ; +@$(MAKE) -s --no-print-directory VARIANT=reuse-after-gp identity' \
		kit-test-sub >id 2>err || fail "make: $(cat err)"
	[ "$(key spec)" = reuse-after-gp@6.12:preempt ] || fail "the inner make resolved $(key spec)"
}

# Unknown names fail before anything is done, naming the fix.
test_unknown_names_name_the_fix() {
	. "$KIT/scripts/identity.sh"
	! kit_identity nope@6.12 2>err >/dev/null || fail "an unknown variant resolved"
	expect_match err "^unknown VARIANT 'nope' on base 6\.12; its variants: reuse-after-gp vanilla \(each is kernel/patches/6\.12/<variant>/series; make variants BASE=6\.12\)$"
	! kit_identity vanilla@9.9 2>err >/dev/null || fail "an unknown base resolved"
	expect_match err "^unknown BASE '9\.9'; known bases: 6\.1 6\.12 7\.2 "
	! kit_identity vanilla@7.2:nope 2>err >/dev/null || fail "an unknown flavor resolved"
	expect_match err "^unknown FLAVOR 'nope' on base 7\.2; its flavors: default "
}

# The scripts and make fragments of the kit (the Makefile is the
# resolver) ask the resolver: none
# splits a spec, globs build/ for a build or names 6.1 as the base
# without "@" (tests/*.sh name the builds they test, and may).
test_no_script_parses_a_spec_or_globs_builds() {
	cd "$KIT" || fail "no kit at $KIT"
	git ls-files '*.mk' scripts tests/run tests/run-all tests/lib.sh kernel/prepare-source \
		kernel/mutants/run uml/run tools/uspace/run tools/uspace/bench |
		grep -v '\.py$\|\.gdb$\|\.md$\|scripts/identity\.sh$' >"$SCRATCH/files"
	# shellcheck disable=SC2046 # file names without blanks
	grep -nE '%%?@\*|#\*@|\(subst [@:],|findstring @|build/(src/)?\*|build/logs/\*|print-(kernel|identity|flavor-args|rootfs|upstream-image)|\$\(BUILD\)/src/[^ ]*\$\(BASE_TAG\)|upstream/DENYLIST|" !?= 6\.1 |:-6\.1|[a-z]=6\.1( |$)' \
		$(cat "$SCRATCH/files") | grep -v ':[0-9]*:[[:space:]]*#' >"$SCRATCH/hits" || true
	[ ! -s "$SCRATCH/hits" ] || { cat "$SCRATCH/hits"; fail "parsing a spec or globbing build/ outside the resolver:" \
		"$(cut -d: -f1,2 "$SCRATCH/hits" | tr '\n' ' ')"; }
}
