# SPDX-License-Identifier: GPL-2.0
# libFuzzer over the whole report pipeline (issue 6).
#   make fuzz [FUZZ_SECONDS=300]   run it; corpus in build-fuzz/corpus
#   make fuzz-ci                   a bounded run (FUZZ_SECONDS=120) + every reproducer
# Seeds: tests/fixtures (real recording, scenarios built by mkperf), the bad-file
# catalogue, and ../shared/realdata when present. Crashes land in build-fuzz/ and
# are kept as regression inputs in tests/fuzz/regress/ (replayed by make check).
FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 300
FUZZ_DIR := build-fuzz
FUZZ_FLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -Isrc -DC2CSCAN_VERSION='"fuzz"' \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $(PKG_CFLAGS)

$(FUZZ_DIR)/fuzz_report: tests/fuzz/fuzz_report.c $(LIB_SRCS) $(wildcard src/*.h src/*/*.h)
	@mkdir -p $(FUZZ_DIR)
	$(call msg,FUZZCC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_report.c $(filter-out src/tui/%,$(LIB_SRCS)) \
		src/tui/tui.c $(LDLIBS)

fuzz-deps:
	@FUZZ=1 scripts/install-deps

fuzz-seeds: $(TOOL_BINS)
	@mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/seeds
	@for s in tests/fixtures/scenarios/*.scn; do \
		$(B)/tools/mkperf $$s $(FUZZ_DIR)/seeds/$$(basename $$s .scn).data 2>/dev/null || true; done
	@$(B)/tools/mkperf tests/fixtures/scenarios/false-sharing.scn $(FUZZ_DIR)/good.data && \
		python3 tests/bad/mkbad.py $(FUZZ_DIR)/seeds $(FUZZ_DIR)/good.data >/dev/null
	@cp tests/fuzz/regress/* $(FUZZ_DIR)/seeds/ 2>/dev/null || true
	@for f in ../shared/realdata/*.data; do \
		[ -f "$$f" ] && [ $$(stat -c %s "$$f") -lt 400000 ] && cp "$$f" $(FUZZ_DIR)/seeds/ || true; done

fuzz: fuzz-deps
	$(Q)$(MAKE) --no-print-directory all fuzz-seeds $(FUZZ_DIR)/fuzz_report
	cd $(FUZZ_DIR) && ./fuzz_report -max_total_time=$(FUZZ_SECONDS) -max_len=262144 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 corpus seeds

fuzz-ci:
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(or $(FUZZ_CI_SECONDS),120)

.PHONY: fuzz fuzz-ci fuzz-deps fuzz-seeds
