# SPDX-License-Identifier: GPL-2.0
# make gdb's and make attach's default breakpoints belong to the variant
# (kernel/patches/<variant>/break, else that of a series it includes,
# else vanilla's; scripts/gdb/gdb.mk): every variant has some, and every
# built kernel has each function its variant's defaults name.  Nothing
# here builds a kernel; variants not built are left out, and the case
# that looks at kernels skips when none is built.

# Every base, variant and flavor of the kit, as "BASE VARIANT FLAVOR"
# lines, and (with "mutants") every base's test-only mutants: those inherit their
# variant's defaults, and some take out the very callback a default names
# (mutant-reuse-no-gp has no dyn_reuse_rcu()), which gdb then skips.
builds() {
	for b in "$KIT"/kernel/bases/*; do
		base=$(basename "$b")
		flavors=$(sed -n 's/^flavors=//p' "$b")
		for s in "$KIT"/kernel/patches/"$base"/*/series; do
			v=$(basename "$(dirname "$s")")
			for f in $flavors; do
				echo "$base $v $f"
			done
		done
	done
	[ "${1:-}" = mutants ] || return 0
	for s in "$KIT"/kernel/mutants/*/*/series; do
		[ -f "$s" ] || continue
		d=$(dirname "$s")
		echo "$(basename "$(dirname "$d")") mutant-$(basename "$d") default"
	done
}

# default_breaks BASE VARIANT: "FILE: FUNC..." as gdb.mk resolves them.
default_breaks() {
	make -s --no-print-directory -C "$KIT" BASE="$1" VARIANT="$2" print-break
}

test_every_variant_has_default_breakpoints() {
	builds mutants | while read -r base v f; do
		out=$(default_breaks "$base" "$v") || fail "make print-break BASE=$base VARIANT=$v failed: $out"
		file=${out%%:*}
		funcs=${out#*: }
		[ -f "$KIT/$file" ] || fail "$base/$v: break file $file does not exist"
		[ -n "$(echo "$funcs" | tr -d ' ')" ] || fail "$base/$v: no default breakpoints ($file)"
	done
}

test_break_file_follows_includes_and_falls_back_to_base() {
	out=$(default_breaks 6.1 percpu-marks)
	[ "${out%%:*}" = kernel/patches/6.1/vanilla/break ] ||
		fail "percpu-marks (no break file) should use vanilla's: $out"
	m=$(ls "$KIT"/kernel/mutants/6.1/*/series 2>/dev/null | head -n 1)
	[ -n "$m" ] || return 0
	name=mutant-$(basename "$(dirname "$m")")
	inc=$(sed -n 's/^[[:space:]]*include[[:space:]]\{1,\}\([^#[:space:]]*\).*/\1/p' "$m" | head -n 1)
	[ -n "$inc" ] && [ -f "$KIT/kernel/patches/6.1/$inc/break" ] || return 0
	out=$(default_breaks 6.1 "$name")
	[ "${out%%:*}" = "kernel/patches/6.1/$inc/break" ] ||
		fail "$name includes $inc, so it should break where $inc does: $out"
	out=$(make -s --no-print-directory -C "$KIT" BASE=6.1 VARIANT=vanilla BREAK='a b' print-break)
	[ "${out#*: }" = "a b" ] || fail "BREAK= does not override the default: $out"
}

test_default_breakpoints_resolve_in_every_built_vmlinux() {
	command -v nm >/dev/null || skip "no nm (binutils)"
	checked=0
	missing=
	# A pipe would run the loop in a subshell: go through a file.
	builds >builds
	while read -r base v f; do
		k=$(kernel_path "$v" "$f" "$base")
		vmlinux=$(dirname "$k")/vmlinux
		[ -x "$k" ] && [ -f "$vmlinux" ] || continue
		out=$(default_breaks "$base" "$v")
		nm --defined-only "$vmlinux" | awk '{ print $3 }' | sort -u >syms
		for fn in ${out#*: }; do
			grep -Fqx -- "$fn" syms || missing="$missing $base/$v-$f:$fn"
		done
		checked=$((checked + 1))
		echo "$base/$v-$f: ${out#*: }"
	done <builds
	[ $checked -gt 0 ] || skip "no kernel built (make kernel VARIANT=...)"
	[ -z "$missing" ] || fail "default breakpoints not in the kernel (${out%%:*} of the variant):$missing"
}
