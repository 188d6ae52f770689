# SPDX-License-Identifier: GPL-2.0
# The docs check (scripts/check-docs, make check's docs case): the kit's
# Markdown passes, and a doc naming what does not exist fails, a
# FILE:LINE: finding for each.

# The kit's own Markdown names only targets, paths and links that exist.
test_kit_docs_pass() {
	"$KIT/scripts/check-docs" >out 2>&1 || fail "scripts/check-docs: $(cat out)"
}

# A stale target, path, link, anchor and each retired word are findings on
# their lines; placeholders, globs, another tree's make and a patch by its
# number are not.
test_planted_drift_fails() {
	cat >drift.md <<'DOC'
# Drift
`make runn`, `make -s identity SPEC=...`, `make run VARIANT=<name>`, `make -C /tree kernelversion`
`kernel/patches/6.1/base/series`, `kernel/mutants/<base>/<name>/series`, `uml/patches/7.2/0005`
[gone](nothing.md), [no heading](KIT/README.md#nowhere), [ok](KIT/README.md#reference)
`make run VARIANT=base`, flavour (4), seed 003, --kinds
```sh
make bench VARIANTS=all \
	BENCH_ARGS="-w 1" # make nothing
make shell && make shel
```
DOC
	sed -i "s|KIT/|$KIT/|g" drift.md
	rc=0
	"$KIT/scripts/check-docs" "$SCRATCH/drift.md" >out 2>&1 || rc=$?
	[ $rc -eq 1 ] || fail "exit $rc, not 1: $(cat out)"
	# shellcheck disable=SC2016 # the findings quote the docs' backticks
	for f in '2: `make runn`' '3: `kernel/patches/6.1/base/series`' '4: link to nothing.md' \
		'4: link to .*#nowhere' '5: "VARIANT=base"' '5: "flavour"' '5: "seed 003"' '5: "--kinds"' \
		'9: `make shel`'; do
		expect_match out "^$SCRATCH/drift.md:$f"
	done
	[ "$(wc -l <out)" -eq 9 ] || fail "not 9 findings: $(cat out)"
	rc=0
	"$KIT/scripts/check-docs" no-such.md 2>err || rc=$?
	[ $rc -eq 2 ] || fail "a missing file: exit $rc, not 2"
}
