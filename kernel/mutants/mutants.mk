# SPDX-License-Identifier: GPL-2.0
#
# Mutation tests: kernel/mutants/<base>/<name>/series is a test-only
# variant of that base, VARIANT=mutant-<name> (BASE=<base>), that includes
# one of the base's variants and breaks it in one way that matters.  Its
# header names the cases meant to catch it ("# catches: guest:SUITE.CASE
# uspace:CASE explore:INVARIANT"), what each producer's catch must show
# ("# evidence: PRODUCER: /REGEX/", or "guest: panic" or "guest: hang"
# where that is the evidence), and "# flavor: FLAVOR" when only that
# flavor's checks can see it; kernel/mutants/run runs those and says
# whether that very case failed with that evidence:
#
#   make mutants                    every mutant of every base: guest and user space; a table
#   make mutants MUTANTS=reuse-no-gp  (or 6.1/reuse-no-gp)
#   make mutants-uspace             the user-space ones only (make test runs these)
#   make mutant-variants            the mutants of BASE and their descriptions
#
# They are not in KNOWN_VARIANTS: make variants, uspace-test and bench
# never build them.

MUTANT_NAMES := $(sort $(patsubst $(MUTANTS_DIR)/%/series,%,$(wildcard $(MUTANTS_DIR)/*/series)))
MUTANT_VARIANTS := $(addprefix mutant-,$(MUTANT_NAMES))

# Which mutants make mutants runs ([BASE/]NAME; default: all of every base).
MUTANTS ?=
# The guest suites (T= globs) run on each mutant; default: the suites of
# its intended guest cases.
MUTANTS_T ?=
# quick (make uspace-quick's size) or full (make uspace-test's).
MUTANTS_USPACE ?= quick
# 1: keep each mutant's source tree and kernel build once judged.
MUTANTS_KEEP ?=

.PHONY: mutants mutants-uspace mutant-variants

mutants: deps
	@kernel/mutants/run $(if $(MUTANTS_T),--tests '$(MUTANTS_T)') $(if $(MUTANTS_KEEP),--keep) \
		--uspace '$(MUTANTS_USPACE)' $(MUTANTS)

# The user-space half: each mutant's memalloc.c under ASan, TSan and
# Valgrind, and under the explorer's corpus, no kernel build (about a minute a mutant).  make test's step.
mutants-uspace: deps
	@kernel/mutants/run --no-guest --uspace '$(MUTANTS_USPACE)' $(MUTANTS)

mutant-variants:
	@kernel/mutants/run --list $(addprefix $(BASE)/,$(MUTANT_NAMES)) | \
	while IFS='|' read -r m d c f b e; do \
		printf '  %-32s %s\n  %-32s catches: %s%s\n' "mutant-$${m#*/}" "$${d:-(no description: start kernel/mutants/$$m/series with a # line)}" \
			"" "$${c:-(none: add a # catches: line)}" "$${f:+ (in the $$f flavor)}"; \
		printf '%s\n' "$${e:-(none: add # evidence: lines)}" | tr '\t' '\n' | \
			while IFS= read -r l; do printf '  %-32s evidence: %s\n' "" "$$l"; done; \
	done
