# SPDX-License-Identifier: GPL-2.0
#
# What the kit's shell scripts share, sourced after they set PROG, the
# name their messages start with.  One exit-status convention:
#   2  usage or bad input (the message names the thing and the fix)
#   1  a failure or a failing verdict
#   0  done, passed

# die MESSAGE: a failure (exit 1).
die() {
	echo "${PROG:-${0##*/}}: error: $*" >&2
	exit 1
}

# die_usage MESSAGE: usage or bad input (exit 2).
die_usage() {
	echo "${PROG:-${0##*/}}: error: $*" >&2
	exit 2
}
