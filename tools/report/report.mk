# SPDX-License-Identifier: GPL-2.0
#
# The judge of every run (tools/report/judge.c and its parts: the KTAP
# tree, the expectations, the rules, the output; the filter of
# tools/lib/filter.c), plain for
# the kit's use, with ASan and UBSan for tests/verdict.sh's captured logs.
# Included by the Makefile before tests/host.mk, whose host-bins builds
# both.

REPORT_DIR := tools/report
# The T= grammar is tools/lib/filter.c's, the one of init and the suites.
REPORT_SRCS := $(addprefix $(REPORT_DIR)/,judge.c util.c ktap_tree.c expectations.c rules.c output.c) \
	tools/lib/filter.c
REPORT_HDRS := $(addprefix $(REPORT_DIR)/,report.h ktap_tree.h expectations.h rules.h output.h) \
	tools/lib/filter.h
REPORT_CFLAGS := -O1 -g -Wall -Wextra -Wno-unused-parameter -Itools/lib
REPORT_SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

JUDGE := $(BUILD)/host/judge
JUDGE_ASAN := $(BUILD)/host/asan/judge

$(JUDGE) $(JUDGE_ASAN): $(REPORT_SRCS) $(REPORT_HDRS) $(REPORT_DIR)/report.mk | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  HOSTCC  $@"
	@$(CC) $(REPORT_CFLAGS) $(if $(findstring /asan/,$@),$(REPORT_SANITIZE)) $(REPORT_SRCS) -o $@ -ljansson

.PHONY: judge
judge: $(JUDGE) $(JUDGE_ASAN)
