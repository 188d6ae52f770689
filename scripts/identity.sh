# SPDX-License-Identifier: GPL-2.0
#
# What a build is and where its products are, as the Makefile (the one
# place that knows) resolves it: sourced by every script that needs a
# kernel, a source tree, a run name or the judge's identity of a build,
# instead of parsing a spec or globbing build/.  $KIT is the kit.
#
#   id=$(kit_identity reuse-after-gp@6.12:kasan) || exit 2
#   kernel=$KIT/$(kit_fact kernel "$id")
#
# A spec is VARIANT[@BASE][:FLAVOR]; a part left out is the one given as
# BASE=/FLAVOR= after the spec, or the kit's default.  The keys are make
# -s identity's (make help).

# kit_identity SPEC [VAR=VALUE...]: the key=value lines of SPEC's
# identity.  For a spec the kit does not know it prints make's message,
# which names the fix, to stderr and fails.
kit_identity() {
	_kit_spec=$1
	shift
	if _kit_out=$(make -s --no-print-directory -C "$KIT" identity SPEC="$_kit_spec" "$@" 2>&1); then
		printf '%s\n' "$_kit_out" | grep '^[a-z_]*='
	else
		printf '%s\n' "$_kit_out" | sed 's/^[^ ]*:[0-9]*: \*\*\* //; s/\.  Stop\.$//' >&2
		return 1
	fi
}

# kit_fact KEY IDENTITY: the value of KEY in IDENTITY (kit_identity's lines).
kit_fact() {
	printf '%s\n' "$2" | sed -n "s/^$1=//p"
}
