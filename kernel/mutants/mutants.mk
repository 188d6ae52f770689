# SPDX-License-Identifier: GPL-2.0
#
# Mutation tests: kernel/mutants/<name>/series is a test-only variant,
# VARIANT=mutant-<name>, that includes reuse-after-gp and breaks it in
# one way that matters.  The kit's selftests must fail on every one:
#
#   make mutants                    each mutant: kernel, guest T=$(MUTANTS_T), user space; a table
#   make mutants MUTANTS=reuse-no-gp
#   make mutant-variants            the mutants and their descriptions
#
# They are not in KNOWN_VARIANTS: make variants, make test, test-matrix,
# uspace-test and bench never build them.

MUTANT_NAMES := $(sort $(patsubst kernel/mutants/%/series,%,$(wildcard kernel/mutants/*/series)))
MUTANT_VARIANTS := $(addprefix mutant-,$(MUTANT_NAMES))

# Which mutants make mutants runs (names without mutant-).
MUTANTS ?= $(MUTANT_NAMES)
# The guest suites (T= globs) run on each mutant.
MUTANTS_T ?= reuse
# quick (make uspace-quick's size) or full (make uspace-test's).
MUTANTS_USPACE ?= quick

.PHONY: mutants mutant-variants

mutants: deps
	@kernel/mutants/run --tests '$(MUTANTS_T)' --uspace '$(MUTANTS_USPACE)' $(MUTANTS)

mutant-variants:
	@for m in $(MUTANT_NAMES); do \
		d=$$(sed -n 's/^#[[:space:]]*//p' kernel/mutants/$$m/series | head -n 1); \
		printf '  %-32s %s\n' "mutant-$$m" "$${d:-(no description: start kernel/mutants/$$m/series with a # line)}"; \
	done
