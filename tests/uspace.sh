# SPDX-License-Identifier: GPL-2.0
# The allocator in user space (tools/uspace): the variants' memalloc.c
# on 4 threads under ASan+UBSan, TSan and Valgrind, at the quick size, on
# the variants make test builds.
# The full size, on every variant, is `make uspace-test`.

test_quick_matrix() {
	[ -e /usr/lib/x86_64-linux-gnu/liburcu-memb.so ] ||
		skip "liburcu-dev not installed (apt-get install liburcu-dev)"
	make -s -C "$KIT" uspace-test-quick >out 2>&1 || {
		grep -E '^(not )?ok|# .*(expected|exit status)|^[0-9]+ passed' out | tail -n 20
		fail "make uspace-test-quick failed"
	}
	expect_match out '^[0-9]+ passed, 0 failed'
}
