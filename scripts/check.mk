# SPDX-License-Identifier: GPL-2.0
#
# make check: the kit's own shell, C and Python against shellcheck,
# checkpatch and pyflakes, its Markdown against the kit (scripts/check).
# Its stamp is keyed on every file it checks and the names of the kit's
# files, so an unchanged kit is not checked twice.

# checkpatch.pl is the kernel's: taken alone (with the spelling and
# const-struct lists it reads) from a base's tarball, the newest the
# machine's own suites carry, without unpacking a tree.
CHECKPATCH_BASE := 6.12
CHECKPATCH_TARBALL := $(call base_key,tarball,$(CHECKPATCH_BASE))
CHECKPATCH_NEEDS := $(call base_key,package,$(CHECKPATCH_BASE)):$(CHECKPATCH_TARBALL)
CHECKPATCH_DIR := $(BUILD)/checkpatch-$(CHECKPATCH_BASE)
CHECKPATCH := $(CHECKPATCH_DIR)/scripts/checkpatch.pl
# Listing and hashing them takes a moment: only when check is asked for.
ifneq ($(filter check,$(MAKECMDGOALS)),)
CHECK_FILES := $(shell scripts/check --list)
# The docs check reads which files exist: a file added or removed is a change.
CHECK_NAMES := $(shell scripts/check --names)
CHECK_STAMP := $(STAMPS)/check-$(call key,$(CHECK_FILES),$(CHECK_NAMES) $(CHECKPATCH_BASE))
endif
CHECK_DEPS_STAMP := $(STAMPS)/deps-check-$(call key,scripts/deps,$(CHECKPATCH_NEEDS))

$(CHECK_DEPS_STAMP): scripts/deps
	scripts/deps $(CHECKPATCH_NEEDS)
	@mkdir -p $(@D) && touch $@

$(CHECKPATCH): | $(CHECK_DEPS_STAMP)
	@echo "  TAR     $@"
	@rm -rf $(CHECKPATCH_DIR).tmp && mkdir -p $(CHECKPATCH_DIR).tmp
	@tar -xJf $(CHECKPATCH_TARBALL) -C $(CHECKPATCH_DIR).tmp --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
	@rm -rf $(CHECKPATCH_DIR) && mv $(CHECKPATCH_DIR).tmp $(CHECKPATCH_DIR)

# The stamp is written by scripts/check, which also lists the results of
# an unchanged kit's last check for make test.
.PHONY: check
check: $(CHECKPATCH) $(JUDGE) | $(DEPS_STAMP)
	@scripts/check $(CHECKPATCH) $(CHECK_STAMP)
