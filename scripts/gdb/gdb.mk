# SPDX-License-Identifier: GPL-2.0
#
# gdb on the guest kernel: `make gdb`, `make attach`.  Included at the end
# of the top Makefile (uses its KERNEL, IMAGE, LOGS, T, check-filter).
# The scripts and the gdb commands are in scripts/gdb/ (README.md there).

GDB ?= gdb
# Functions to break on; those the kernel lacks are skipped.  The default
# belongs to the variant: the first 'break' file in the directories of its
# series (its own, then those of the series it includes, so a mutant gets
# its variant's), else that of its base's vanilla variant.  Words are
# function names, '#' starts a comment.  tests/breaks.sh checks that every
# built variant's defaults are in its vmlinux.
BREAK_FILE := $(firstword $(wildcard $(addsuffix break,$(dir $(filter %/series,$(VARIANT_FILES))))) \
	$(PATCHES)/vanilla/break)
BREAK ?= $(strip $(shell sed 's/#.*//' $(BREAK_FILE)))
# kit.timeout= for each suite under `make gdb`: a suite stopped at a
# breakpoint must not be killed by init's default 120 s.
GDB_SUITE_TIMEOUT ?= 3600
# More kernel arguments for `make gdb` (after the flavor's own), e.g.
# KARGS=fail_bpf_reuse_batch=1,100,0,-1 to make reuse_rcu() run.
KARGS ?=
# `make attach` picks the newest running guest of $(LOGS); or this pid.
GDB_PID ?=

.PHONY: gdb attach print-break

# The default breakpoints of VARIANT and the file they come from, for tests/.
print-break:
	@echo '$(BREAK_FILE): $(BREAK)'

# Boot VARIANT/FLAVOR under gdb (uml/run --gdb): kit.gdb, breakpoints on
# BREAK, run the selftests (T= selects); an ordinary run directory of
# $(LOGS) keeps the console (shown here) and gdb's commands (run.gdb), the
# guest boots on a copy-on-write file there.
gdb: $(KERNEL) $(IMAGE) check-filter
	uml/run --gdb --gdb-program '$(GDB)' --break '$(BREAK)' --logdir $(LOGS) \
		--name $(RUN_NAME) $(RUN_ID) $(if $(T),--tests '$(T)') \
		$(KERNEL) $(IMAGE) -- kit.timeout=$(GDB_SUITE_TIMEOUT) $(FLAVOR_ARGS) $(KARGS)

# Attach to a guest started by `make run` or `make shell` (the newest run
# directory of $(LOGS) whose guest is alive: its run.conf names the pid
# file), break on BREAK and continue; `detach` or `quit` leaves it running.
attach:
	scripts/gdb/attach --gdb '$(GDB)' --logdir $(LOGS) --break '$(BREAK)'$(if $(GDB_PID), --pid $(GDB_PID))
