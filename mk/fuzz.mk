# SPDX-License-Identifier: GPL-2.0
# libFuzzer targets, built with clang into build-fuzz/:
#   fuzz_report  the report pipeline on an in-memory file, through the text
#                renderer in two display modes (the main one)
#   fuzz_outputs the JSON, pprof and HTML writers on the same inputs
#   fuzz_reader  the perf.data reader alone: passes, rewinds, skipped samples,
#                a skimmed pass against a plain one, a pass by the file's
#                index against a walk that confirms it, runs of fixed samples
#                against events
#   fuzz_maps    the maps timeline and keying rule, from a program of events
#   fuzz_dwline  the line table decoder: against libdw on generated tables,
#                alone on raw bytes
#   fuzz_spe     the Arm SPE decoder: raw traces split between buffers, and
#                encoded records that must decode to themselves
#   fuzz_alloc   the allocation events' codec: damaged packed blocks, and
#                events that must decode to themselves
#   fuzz_namecache the names cache's reader, on made-up caches of the
#                fuzzer's own executable
#
#   make fuzz [FUZZ_SECONDS=300] [FUZZ_TARGET=fuzz_report]
#                  run one target; corpus in build-fuzz/corpus-TARGET
#   make fuzz-ci   replay every reproducer (tests/fuzz/regress/) through
#                  fuzz_report, fuzz_outputs and fuzz_reader, then a bounded
#                  run (FUZZ_CI_SECONDS, default 120) of fuzz_report, half
#                  that of fuzz_outputs, and a quarter of that of
#                  fuzz_dwline, fuzz_reader, fuzz_spe, fuzz_alloc and
#                  fuzz_namecache
#
# Seeds: scenarios built by mkperf, the bad-file catalogue, the reproducers,
# real recordings with call graphs (tests/fuzz/seeds/: `ls /` under -g and
# --call-graph dwarf,1024, whose stacks unwind through the system's ls and
# libc), and ../shared/realdata when present. A crash, timeout or OOM leaves its
# input in build-fuzz/ (crash-*, timeout-*, oom-*, leak-*): fix the bug, copy
# the input to tests/fuzz/regress/, where tests/cli/fuzz-regress.sh replays it
# through the normal build.
# clang-14 and libclang-rt-14-dev are installed with apt-get when missing.
FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 300
FUZZ_TARGET ?= fuzz_report
FUZZ_DIR := build-fuzz
FUZZ_TARGETS := fuzz_report fuzz_outputs fuzz_reader fuzz_maps fuzz_dwline fuzz_spe fuzz_alloc fuzz_namecache
FUZZ_FLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -Isrc -DC2CSCAN_VERSION='"fuzz"' \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $(PKG_CFLAGS)
# -timeout: a hang; -rss_limit_mb: an allocation sized by a lying field;
# -max_len: 64 KiB mutants (the seeds' structures fit; 256 KiB halved the
# runs a second); a smaller ASan quarantine keeps the memory flat
FUZZ_RUN_FLAGS := -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix=$(FUZZ_DIR)/
FUZZ_ENV := ASAN_OPTIONS=$${ASAN_OPTIONS:-quarantine_size_mb=64}
FUZZ_REGRESS := $(filter-out %.keep,$(wildcard tests/fuzz/regress/*))

$(FUZZ_TARGETS:%=$(FUZZ_DIR)/%): $(FUZZ_DIR)/%: tests/fuzz/%.c $(wildcard tests/fuzz/*.h) $(LIB_SRCS) $(wildcard src/*/*.h) $(wildcard tests/unit/*.h)
	@mkdir -p $(FUZZ_DIR)
	$(call msg,FUZZCC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(LIB_SRCS) $(LDLIBS)

fuzz-deps:
	@need=""; for p in clang-14 libclang-rt-14-dev; do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || need="$$need $$p"; done; \
	if [ -n "$$need" ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "fuzz: missing Debian packages:$$need (run as root)" >&2; exit 1; fi; \
		echo "installing:$$need"; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$need >/dev/null; \
	fi

fuzz-seeds: $(B)/tools/mkperf
	@mkdir -p $(FUZZ_DIR)/seeds
	@for s in tests/fixtures/scenarios/*.scn; do \
		$(B)/tools/mkperf $$s $(FUZZ_DIR)/seeds/$$(basename $$s .scn).data 2>/dev/null || true; done
	@$(B)/tools/mkperf tests/fixtures/scenarios/false-sharing.scn $(FUZZ_DIR)/good.data && \
		python3 tests/bad/mkbad.py $(FUZZ_DIR)/seeds $(FUZZ_DIR)/good.data >/dev/null
	@cp $(FUZZ_REGRESS) $(FUZZ_DIR)/seeds/ 2>/dev/null || true
	@cp tests/fuzz/seeds/* $(FUZZ_DIR)/seeds/ 2>/dev/null || true
	@for f in ../shared/realdata/*.data; do \
		[ -f "$$f" ] && [ $$(stat -c %s "$$f") -lt 400000 ] && cp "$$f" $(FUZZ_DIR)/seeds/ || true; done

# fuzz_maps, fuzz_dwline and fuzz_spe read their own input languages: they start from nothing.
fuzz: fuzz-deps
	$(Q)$(MAKE) --no-print-directory fuzz-seeds $(FUZZ_DIR)/$(FUZZ_TARGET)
	@mkdir -p $(FUZZ_DIR)/corpus-$(FUZZ_TARGET)
	$(FUZZ_ENV) $(FUZZ_DIR)/$(FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) $(FUZZ_RUN_FLAGS) \
		$(FUZZ_DIR)/corpus-$(FUZZ_TARGET) $(if $(filter fuzz_maps fuzz_dwline fuzz_spe fuzz_alloc fuzz_namecache,$(FUZZ_TARGET)),,$(FUZZ_DIR)/seeds)

fuzz-regress: fuzz-deps
	$(Q)$(MAKE) --no-print-directory $(FUZZ_DIR)/fuzz_report $(FUZZ_DIR)/fuzz_outputs $(FUZZ_DIR)/fuzz_reader
	@echo "replaying $(words $(FUZZ_REGRESS)) reproducers"
	$(Q)for t in fuzz_report fuzz_outputs fuzz_reader; do \
		$(FUZZ_DIR)/$$t -timeout=10 -rss_limit_mb=2048 $(FUZZ_REGRESS) >$(FUZZ_DIR)/regress-$$t.log 2>&1 || \
			{ cat $(FUZZ_DIR)/regress-$$t.log; echo "$$t: a reproducer fails again" >&2; exit 1; }; \
		echo "$$t: $$(tail -n 1 $(FUZZ_DIR)/regress-$$t.log)"; done

fuzz-ci: fuzz-regress
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_TARGET=fuzz_report FUZZ_SECONDS=$(or $(FUZZ_CI_SECONDS),120)
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_TARGET=fuzz_outputs \
		FUZZ_SECONDS=$$(( $(or $(FUZZ_CI_SECONDS),120) / 2 + 1 ))
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_TARGET=fuzz_dwline \
		FUZZ_SECONDS=$$(( $(or $(FUZZ_CI_SECONDS),120) / 4 + 1 ))
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_TARGET=fuzz_reader \
		FUZZ_SECONDS=$$(( $(or $(FUZZ_CI_SECONDS),120) / 4 + 1 ))
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_TARGET=fuzz_spe \
		FUZZ_SECONDS=$$(( $(or $(FUZZ_CI_SECONDS),120) / 4 + 1 ))
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_TARGET=fuzz_alloc \
		FUZZ_SECONDS=$$(( $(or $(FUZZ_CI_SECONDS),120) / 4 + 1 ))
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_TARGET=fuzz_namecache \
		FUZZ_SECONDS=$$(( $(or $(FUZZ_CI_SECONDS),120) / 4 + 1 ))

.PHONY: fuzz fuzz-ci fuzz-deps fuzz-seeds fuzz-regress
