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

# hold_lock LOCKFILE WHAT: hold LOCKFILE with flock(1) on fd 9 until the
# shell exits, so that two commands in one kit never work on the same
# tree or directory at once: the second waits, saying who holds it.  The
# lock goes with the process: a Ctrl-C or a crash never leaves it held.
hold_lock() {
	mkdir -p "$(dirname "$1")"
	exec 9>>"$1"
	if ! flock -n 9; then
		echo "  LOCK    $1 is held by $(cat "$1.who" 2>/dev/null || echo 'another command'); waiting" >&2
		flock 9
	fi
	echo "pid $$: $2" >"$1.who"
}
