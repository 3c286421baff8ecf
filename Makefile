# SPDX-License-Identifier: GPL-2.0
#
# make            build ./c2cscan (and the test tools and workloads)
# make check      install missing Debian packages, build, run the tests but the slowest
# make check-full the same with every test (CI)
# make asan       every test under AddressSanitizer + UBSan (build-asan/)
# make tsan       the threaded parts under ThreadSanitizer (build-tsan/)
# make demo       install, build, report a real recording shipped in tests/fixtures
# V=1             show full command lines; WERROR=1 warnings are errors

B ?= build
CC ?= gcc
PKGS := libdw libelf ncursesw libzstd capstone libprotobuf-c zlib
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wno-format-nonliteral -Wvla
ifeq ($(WERROR),1)
WARN += -Werror
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -Isrc $(PKG_CFLAGS) -MMD -MP
LDLIBS := $(PKG_LIBS) -lstdc++ -lpthread -lm
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-6s %s\n' $(1) $(2)
endif

MAIN_SRC := src/main.c
# One folder per stage (src/*/README.md); every .c under them goes into the library.
LIB_SRCS := $(wildcard src/*/*.c)
# report --pprof's encoder, made by protoc-c from profile.proto (make proto)
LIB_SRCS += src/report/pprof/profile.pb-c.c
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
LIB := $(B)/libc2cscan.a
BIN := $(B)/c2cscan
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(B)/tools/%)
WORK_SRCS := $(wildcard scripts/workloads/*.c)
WORK_BINS := $(WORK_SRCS:scripts/workloads/%.c=$(B)/workloads/%)
# their ThreadSanitizer builds, for record --emulate (tests/cli/emulate-workloads.sh)
WORK_TSAN := false-sharing true-sharing heap-false-sharing shm cow scale stream
WORK_BINS += $(WORK_TSAN:%=$(B)/workloads/%-tsan)
PROG_SRCS := $(wildcard tests/progs/*.c)
PROG_BINS := $(PROG_SRCS:tests/progs/%.c=$(B)/progs/%)
PROG_CXX_SRCS := $(wildcard tests/progs/*.cc)
PROG_BINS += $(PROG_CXX_SRCS:tests/progs/%.cc=$(B)/progs/%)
PROG_BINS += $(B)/progs/callers-fp $(B)/progs/counters-padded $(B)/progs/counters-tsan $(B)/progs/counters-padded-tsan
PROG_BINS += $(B)/progs/atomics-tsan
PROG_BINS += $(B)/progs/slots-tsan $(B)/progs/slots40-tsan $(B)/progs/slots-fixed-tsan $(B)/progs/reuse-tsan
PROG_BINS += $(B)/progs/churn-tsan $(B)/progs/fds-tsan $(B)/progs/layout-tsan $(B)/progs/layoutxx-tsan
PROG_BINS += $(B)/progs/sharedjob-tsan $(B)/progs/threadsig-tsan
PROG_BINS += $(B)/progs/tsanmode-tsan $(B)/progs/tsanmode-annotated-tsan
PROG_BINS += $(B)/progs/locks-tsan $(B)/progs/spscq-tsan $(B)/progs/gate-tsan $(B)/progs/latent-tsan $(B)/progs/latent-padded-tsan
CLANG ?= $(shell command -v clang-14 || command -v clang)
ifneq ($(CLANG),)
PROG_BINS += $(B)/progs/counters-clang-tsan $(B)/progs/atomics-clang-tsan $(B)/progs/locks-clang-tsan $(B)/progs/churn-clang-tsan $(B)/progs/layout-clang-tsan
WORK_BINS += $(B)/workloads/heap-false-sharing-clang-tsan
endif
# The allocation shim record --alloc preloads (src/record/shim/): a shared
# object of its own, never sanitized (it runs inside the recorded program).
SHIM := $(B)/libc2cscan-alloc.so
# record --emulate's runtime (src/record/emu/): the ThreadSanitizer hooks
# and the coherence model, preloaded into a -fsanitize=thread build; never
# sanitized either.
EMU := $(B)/libc2cscan-emu.so
# what record --emulate preloads in place of libtsan.so.N when the program
# needs nothing else of it (src/record/standin/): GCC 11 and older name
# libtsan.so.0, GCC 12 and later libtsan.so.2
STANDIN := $(B)/libc2cscan-libtsan.so.0 $(B)/libc2cscan-libtsan.so.2

.PHONY: all deps check check-full test asan tsan demo clean fuzz bench install uninstall proto
# objects of the test programs are kept (make deleted them as intermediates,
# and said so in every build)
.SECONDARY:
all: $(BIN) $(SHIM) $(EMU) $(STANDIN) $(UNIT_BINS) $(TOOL_BINS) $(WORK_BINS) $(PROG_BINS)
ifeq ($(B),build)
all: c2cscan libc2cscan-alloc.so libc2cscan-emu.so libc2cscan-libtsan.so.0 libc2cscan-libtsan.so.2
c2cscan: $(BIN)
	$(Q)cp $< $@
libc2cscan-alloc.so: $(SHIM)
	$(Q)cp $< $@
libc2cscan-emu.so: $(EMU)
	$(Q)cp $< $@
libc2cscan-libtsan.so.%: $(B)/libc2cscan-libtsan.so.%
	$(Q)cp $< $@
endif

$(SHIM): src/record/shim/shim.c src/record/boot_alloc.h src/perfdata/perf_data.h
	$(call msg,SHLIB,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 $(WARN) -Wno-missing-prototypes -O2 -g -fPIC -shared -fvisibility=hidden -D_GNU_SOURCE -Isrc \
		-o $@ $< -ldl -lpthread

# -Bsymbolic: the runtime's own hooks by their address, not a Clang
# executable's that interpose them (it patches those to jump to ours);
# no loop made a call to memset/memcpy/memmove, which in the program are
# libtsan's interceptors (emu.h: emu_zero, emu_copy)
EMU_SRCS := $(wildcard src/record/emu/*.c)
$(EMU): $(EMU_SRCS) $(wildcard src/record/emu/*.h) src/record/procmap.h src/record/boot_alloc.h src/perfdata/perf_data.h
	$(call msg,SHLIB,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 $(WARN) -Wno-missing-prototypes -O2 -g -fPIC -shared -fvisibility=hidden -D_GNU_SOURCE -Isrc \
		-fno-tree-loop-distribute-patterns -Wl,-Bsymbolic -o $@ $(EMU_SRCS) -ldl -lpthread

$(B)/libc2cscan-libtsan.so.%: src/record/standin/standin.c
	$(call msg,SHLIB,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 $(WARN) -O2 -fPIC -shared -nostdlib -Wl,-soname,libtsan.so.$* -o $@ $<

$(B)/%.o: %.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -DC2CSCAN_VERSION='"$(VERSION)"' -c -o $@ $<

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# The binary links capstone in and is not position-independent: the dynamic
# loader then relocates none of capstone's tables (83k relocations, 370 of
# the 566 page faults of a start), and every run starts 2 ms sooner.
# Sanitizer builds link as the tests do (ThreadSanitizer wants a PIE).
ifeq ($(findstring -fsanitize,$(CFLAGS)),)
BIN_LIBS := -no-pie $(filter-out -lcapstone,$(LDLIBS)) -Wl,-Bstatic -lcapstone -Wl,-Bdynamic
else
BIN_LIBS := $(LDLIBS)
endif

$(BIN): $(B)/$(MAIN_SRC:.c=.o) $(LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(BIN_LIBS)

$(B)/tests/%: $(B)/tests/unit/%.o $(LIB)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

$(B)/tools/%: $(B)/tests/tools/%.o $(LIB)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

# Workloads are deliberately simple, unoptimized-ish programs with debug info.
$(B)/workloads/%-clang-tsan: scripts/workloads/%.c
	$(call msg,CLANG,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CLANG) -std=gnu11 -O1 -g -D_GNU_SOURCE -fsanitize=thread -o $@ $< -lpthread

$(B)/workloads/%-tsan: scripts/workloads/%.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O1 -g -D_GNU_SOURCE -fsanitize=thread -o $@ $< -lpthread

$(B)/workloads/%: scripts/workloads/%.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O1 -g -D_GNU_SOURCE -o $@ $< -lpthread

# Test programs: like workloads, never sanitized (they are what is measured).
$(B)/progs/%: tests/progs/%.c $(wildcard tests/progs/*.h)
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O1 -g -D_GNU_SOURCE -o $@ $< -lpthread

# the frame-pointer build of the call-graph test program (-O0: every function has a frame)
$(B)/progs/callers-fp: tests/progs/callers.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O0 -fno-omit-frame-pointer -g -o $@ $<

# data types (tests/cli/types.sh): -O2 as users build; no stack probes, so
# the first touch of a thread-stack page is the program's own access
$(B)/progs/types: tests/progs/types.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -fno-stack-clash-protection -D_GNU_SOURCE -o $@ $< -lpthread

# the fixed layout of tests/progs/counters.c (the consumer's counter on its own line)
$(B)/progs/counters-padded: tests/progs/counters.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -DPADDED -o $@ $< -lpthread

# ThreadSanitizer builds of it, as users build theirs, for record --emulate
$(B)/progs/counters-tsan: tests/progs/counters.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -fsanitize=thread -o $@ $< -lpthread

$(B)/progs/counters-padded-tsan: tests/progs/counters.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -fsanitize=thread -DPADDED -o $@ $< -lpthread

# and Clang's (its runtime is linked into the executable: the emulation
# runtime redirects the executable's hooks to its own)
$(B)/progs/%-clang-tsan: tests/progs/%.c
	$(call msg,CLANG,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CLANG) -std=gnu11 -O2 -g -fsanitize=thread -o $@ $< -lpthread

# the verdict's units (tests/cli/units.sh): per-thread elements of one
# allocation, 24 and 40 bytes each, and their fix; objects reusing an address
$(B)/progs/slots-tsan $(B)/progs/slots40-tsan $(B)/progs/slots-fixed-tsan $(B)/progs/reuse-tsan $(B)/progs/churn-tsan $(B)/progs/fds-tsan $(B)/progs/layout-tsan $(B)/progs/locks-tsan $(B)/progs/gate-tsan $(B)/progs/latent-tsan $(B)/progs/latent-padded-tsan $(B)/progs/sharedjob-tsan $(B)/progs/threadsig-tsan $(B)/progs/tsanmode-tsan $(B)/progs/tsanmode-annotated-tsan: $(B)/progs/%-tsan:
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 $(or $(UNITS_OPT_$*),-O2) -g -fsanitize=thread $(UNITS_FLAGS_$*) -o $@ tests/progs/$(UNITS_SRC_$*).c -lpthread
UNITS_SRC_slots := slots
UNITS_SRC_slots40 := slots
UNITS_FLAGS_slots40 := -DSLOT_BYTES=40
UNITS_SRC_slots-fixed := slots
UNITS_FLAGS_slots-fixed := -DFIXED
UNITS_SRC_reuse := reuse
# the runtime's hazards (tests/cli/emulate-hazards.sh), at -O1 as the crash was found
UNITS_SRC_churn := churn
UNITS_OPT_churn := -O1
$(B)/progs/churn-tsan: tests/progs/churn.c
UNITS_SRC_fds := fds
UNITS_OPT_fds := -O1
$(B)/progs/fds-tsan: tests/progs/fds.c
# the heap's layout (tests/cli/emulate-heap.sh): -O1 as the bare build
# (PROG rule), so both make the same calls
UNITS_SRC_layout := layout
UNITS_OPT_layout := -O1
$(B)/progs/layout-tsan: tests/progs/layout.c
# lock bouncing (tests/cli/emulate-locks.sh)
UNITS_SRC_locks := locks
$(B)/progs/locks-tsan: tests/progs/locks.c
# a start barrier between workers created apart (tests/cli/emulate.sh)
UNITS_SRC_gate := gate
$(B)/progs/gate-tsan: tests/progs/gate.c
# latent false sharing (tests/cli/latent.sh)
UNITS_SRC_latent := latent
UNITS_SRC_sharedjob := sharedjob
UNITS_SRC_threadsig := threadsig
# without libtsan, or with it when the program calls its annotations
# (tests/cli/emulate-libtsan.sh)
UNITS_SRC_tsanmode := tsanmode
UNITS_SRC_tsanmode-annotated := tsanmode
UNITS_FLAGS_tsanmode-annotated := -DANNOTATED
$(B)/progs/tsanmode-tsan $(B)/progs/tsanmode-annotated-tsan: tests/progs/tsanmode.c
UNITS_SRC_latent-padded := latent
UNITS_FLAGS_latent-padded := -DPADDED
$(B)/progs/latent-tsan $(B)/progs/latent-padded-tsan: tests/progs/latent.c
$(B)/progs/layoutxx-tsan: tests/progs/layoutxx.cc
	$(call msg,CXX,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -std=gnu++17 -O1 -g -fsanitize=thread -o $@ $< -lpthread
# std::atomic members of an object on the stack (tests/cli/units.sh)
$(B)/progs/spscq-tsan: tests/progs/spscq.cc
	$(call msg,CXX,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -std=gnu++17 -O2 -g -fsanitize=thread -o $@ $< -lpthread
$(B)/progs/slots-tsan $(B)/progs/slots40-tsan $(B)/progs/slots-fixed-tsan: tests/progs/slots.c
$(B)/progs/reuse-tsan: tests/progs/reuse.c

$(B)/progs/atomics-tsan: tests/progs/atomics.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -fsanitize=thread -o $@ $< -lpthread

$(B)/progs/%: tests/progs/%.cc
	$(call msg,CXX,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CXX) -std=gnu++17 -O1 -g -o $@ $< -lpthread

# report --pprof's encoder from its schema (the generated files are kept:
# building needs libprotobuf-c, not protoc-c)
proto:
	cd src/report/pprof && protoc-c --c_out=. profile.proto

deps:
	@scripts/install-deps

# check = deps first (pkg-config flags are read when make starts), then tests.
check:
	@scripts/install-deps
	$(Q)$(MAKE) --no-print-directory WERROR=1 test

# FULL=1: the slow tests (# run-tests: full) too; JOBS: tests at a time
# (run-tests' default when empty)
FULL ?= 0
JOBS ?=
test: all
	@B=$(B) FULL=$(FULL) JOBS=$(JOBS) tests/run-tests

# every test, the slow ones (# run-tests: full) too: what CI runs
check-full:
	@scripts/install-deps
	$(Q)$(MAKE) --no-print-directory WERROR=1 FULL=1 test

# four at a time: the sanitized recorder drains its buffers slower, and at
# six a page-fault recording lost a chunk (record-sw.sh: perf warned)
asan:
	@scripts/install-deps
	$(Q)$(MAKE) --no-print-directory B=build-asan WERROR=1 \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" FULL=1 \
		JOBS=4 test

# The threaded parts under ThreadSanitizer (tests/run-tsan): the skim, the
# relay and pass 2's two halves, whole reports on a generated recording.
TSAN_BINS := c2cscan tests/test_util tests/test_c2c tests/test_reader tools/genbig
tsan:
	@scripts/install-deps
	$(Q)$(MAKE) --no-print-directory B=build-tsan WERROR=1 CFLAGS="-O1 -g -fsanitize=thread" \
		$(addprefix build-tsan/,$(TSAN_BINS))
	@B=build-tsan tests/run-tsan

demo:
	@scripts/install-deps
	$(Q)$(MAKE) --no-print-directory all
	@scripts/demo

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, the allocation
# shim (PREFIX/lib/c2cscan/, where record looks beside ../lib from the
# binary), the man pages, bash completion.
PREFIX ?= /usr/local
INSTALL_FILES := bin/c2cscan lib/c2cscan/libc2cscan-alloc.so lib/c2cscan/libc2cscan-emu.so \
	lib/c2cscan/libc2cscan-libtsan.so.0 lib/c2cscan/libc2cscan-libtsan.so.2 share/bash-completion/completions/c2cscan \
	$(patsubst man/%,share/man/man1/%,$(wildcard man/*.1))
install: $(BIN) $(SHIM) $(EMU) $(STANDIN)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/c2cscan $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	$(Q)install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/c2cscan
	$(Q)install -m 644 $(SHIM) $(DESTDIR)$(PREFIX)/lib/c2cscan/libc2cscan-alloc.so
	$(Q)install -m 644 $(EMU) $(DESTDIR)$(PREFIX)/lib/c2cscan/libc2cscan-emu.so
	$(Q)install -m 644 $(STANDIN) $(DESTDIR)$(PREFIX)/lib/c2cscan/
	$(Q)install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	$(Q)install -m 644 scripts/c2cscan.bash-completion $(DESTDIR)$(PREFIX)/share/bash-completion/completions/c2cscan

uninstall:
	$(Q)rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALL_FILES))
	$(Q)rmdir $(DESTDIR)$(PREFIX)/lib/c2cscan 2>/dev/null || true

clean:
	rm -rf build build-asan build-tsan build-fuzz c2cscan libc2cscan-alloc.so libc2cscan-emu.so libc2cscan-libtsan.so.*

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# libFuzzer target and bounded fuzz run; defined in mk/fuzz.mk when present.
-include mk/fuzz.mk
