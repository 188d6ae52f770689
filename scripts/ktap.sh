# SPDX-License-Identifier: GPL-2.0
#
# The one writer of KTAP v1 for the kit's shell producers, sourced by each
# of them: no other script prints a result line by hand (make check
# refuses one anywhere else, scripts/check).  KTAP v1 as the kernel's
# Documentation/dev-tools/ktap.rst describes it and as
# tools/testing/kunit/kunit_parser.py reads it; a skip is kselftest's,
# "ok N NAME # SKIP REASON" (a "not ok" with a SKIP is a failure).
#
# Each function prints one line (ktap_diag, ktap_diag_lines and
# ktap_embed: one a line of their input) to stdout at the current depth:
# KTAP_INDENT, four spaces a level of subtest.  A caller appending to a
# file redirects the call.
#
#   ktap_header                   KTAP version 1
#   ktap_plan N                   1..N
#   ktap_result STATUS N NAME [DIRECTIVE]
#                                 STATUS N NAME[ # DIRECTIVE]; STATUS is
#                                 "ok" or "not ok"
#   ktap_skip N NAME REASON       ok N NAME # SKIP REASON
#   ktap_diag MESSAGE...          "# " before each line of MESSAGE
#   ktap_diag_lines               "# " before each line of stdin
#   ktap_embed                    stdin a level deeper: a program's own
#                                 KTAP document as a subtest of this one
#   ktap_subtest_begin NAME       a subtest's "KTAP version 1" and
#                                 "# Subtest: NAME" a level deeper, and
#                                 what follows at that depth (its plan,
#                                 cases, diagnostics)
#   ktap_subtest_end              back to the parent's depth, where the
#                                 subtest's own ktap_result comes next
#
# A malformed line (a status that is neither, a number that is not one,
# a name with a '#' or a newline) is the producer's bug: it is refused
# with exit 2 rather than printed for the judge to misread.

KTAP_INDENT=

ktap__refuse() {
	echo "${PROG:-${0##*/}}: error: $*" >&2
	exit 2
}

# ktap__number WHAT N: N is a decimal count.
ktap__number() {
	case $2 in
	'' | *[!0-9]*) ktap__refuse "$1: '$2' is not a number" ;;
	esac
}

# ktap__name WHAT NAME: the result line can carry NAME.
ktap__name() {
	case $2 in
	*'#'* | *'
'*) ktap__refuse "$1: name '$2' holds a '#' or a newline" ;;
	esac
}

ktap_header() {
	printf '%sKTAP version 1\n' "$KTAP_INDENT"
}

ktap_plan() {
	ktap__number ktap_plan "${1-}"
	printf '%s1..%s\n' "$KTAP_INDENT" "$1"
}

ktap_result() {
	case ${1-} in
	ok | 'not ok') ;;
	*) ktap__refuse "ktap_result: status '${1-}' is neither 'ok' nor 'not ok'" ;;
	esac
	ktap__number ktap_result "${2-}"
	[ "$2" -gt 0 ] || ktap__refuse "ktap_result: numbers start at 1, not $2"
	ktap__name ktap_result "${3-}"
	if [ $# -ge 4 ]; then
		printf '%s%s %s %s # %s\n' "$KTAP_INDENT" "$1" "$2" "$3" "$4"
	else
		printf '%s%s %s %s\n' "$KTAP_INDENT" "$1" "$2" "$3"
	fi
}

ktap_skip() {
	[ $# -eq 3 ] || ktap__refuse "ktap_skip: usage: ktap_skip N NAME REASON"
	ktap_result ok "$1" "$2" "SKIP $3"
}

ktap_diag() {
	printf '%s\n' "$*" | ktap_diag_lines
}

ktap_diag_lines() {
	sed "s/^/$KTAP_INDENT# /"
}

ktap_embed() {
	sed "s/^/$KTAP_INDENT    /"
}

ktap_subtest_begin() {
	KTAP_INDENT="$KTAP_INDENT    "
	ktap_header
	printf '%s# Subtest: %s\n' "$KTAP_INDENT" "${1-}"
}

ktap_subtest_end() {
	[ -n "$KTAP_INDENT" ] || ktap__refuse "ktap_subtest_end: no subtest begun"
	KTAP_INDENT=${KTAP_INDENT%    }
}
