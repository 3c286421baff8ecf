#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --emulate keeps the production build's heap (tests/progs/layout.c
# and layoutxx.cc, bare, GCC and Clang TSan builds): every address modulo 64 under
# the emulation is the bare build's, where libtsan's own allocator puts
# per-thread struct arrays on line boundaries; memory the C library's
# functions allocate (strdup, getline, asprintf, realpath) is freed without
# harm; record says which allocator the heap was. C++: libstdc++'s start-up
# allocates otherwise under TSan, so only the distances between objects
# must be the bare build's.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
P=$TOP/$B/progs
[ -x "$P/layout-tsan" ] && [ -x "$P/layout" ] || skip "no -fsanitize=thread build of layout.c"
tsan_runs || skip "a -fsanitize=thread program does not run here"
"$P/layout" >bare.out || fail "bare build: exit $?"
TSAN_OPTIONS=report_bugs=0 "$P/layout-tsan" >tsan.out 2>/dev/null || fail "TSan build: exit $?"
"$C2CSCAN" record --emulate -o l.data -- "$P/layout-tsan" >emu.out 2>emu.err || fail "record: $(cat emu.err)"
expect_eq "the heap under --emulate" "$(cat emu.out)" "$(cat bare.out)"
# (the point: libtsan's differs)
[ "$(cat tsan.out)" = "$(cat bare.out)" ] && fail "libtsan's heap is the bare one's here: the test shows nothing"
grep -q "^c2cscan record: --emulate: the heap is libc.so.6's, as in the build without -fsanitize=thread$" emu.err ||
	fail "record does not say the allocator: $(cat emu.err)"
# the runtime under another name (C2CSCAN_EMU_LIB): it knows itself by
# its address, not by its name, and the heap is still the bare build's
cp "$TOP/$B/libc2cscan-emu.so" "$T/emu-renamed.so"
C2CSCAN_EMU_LIB="$T/emu-renamed.so" "$C2CSCAN" record --emulate -o r.data -- "$P/layout-tsan" >ren.out 2>ren.err ||
	fail "record, the runtime renamed: $(cat ren.err)"
expect_eq "the heap under a renamed runtime" "$(cat ren.out)" "$(cat bare.out)"
grep -q "^c2cscan record: --emulate: the heap is libc.so.6's, as in the build without -fsanitize=thread$" ren.err ||
	fail "the runtime renamed: record does not say the allocator: $(cat ren.err)"
# a Clang build: its allocator is in the executable, which the runtime
# makes jump to the production heap's; with --alloc too (through the shim)
if [ -x "$P/layout-clang-tsan" ]; then
	TSAN_OPTIONS=report_bugs=0 "$P/layout-clang-tsan" >ctsan.out 2>/dev/null || fail "Clang TSan build: exit $?"
	[ "$(cat ctsan.out)" = "$(cat bare.out)" ] && fail "Clang's heap is the bare one's here: the test shows nothing"
	for alloc in "" --alloc; do
		"$C2CSCAN" record --emulate $alloc -o c.data -- "$P/layout-clang-tsan" >cemu.out 2>cemu.err ||
			fail "record Clang $alloc: $(cat cemu.err)"
		expect_eq "Clang $alloc: the heap under --emulate" "$(cat cemu.out)" "$(cat bare.out)"
		grep -q "^c2cscan record: --emulate: the heap is libc.so.6's, as in the build without -fsanitize=thread$" cemu.err ||
			fail "Clang $alloc: record does not say the allocator: $(cat cemu.err)"
	done
	grep -q "^c2cscan record: [0-9]* allocation events from 1 process" cemu.err ||
		fail "Clang --alloc: no allocation events: $(cat cemu.err)"
fi
# C++: new[], aligned new, std::string, std::vector
if [ -x "$P/layoutxx-tsan" ] && [ -x "$P/layoutxx" ]; then
	"$P/layoutxx" >xbare.out || fail "C++ bare: exit $?"
	"$C2CSCAN" record -q --emulate -o x.data -- "$P/layoutxx-tsan" >xemu.out 2>xemu.err || fail "record C++: $(cat xemu.err)"
	steps() { # the distances between the arrays modulo 64, and the aligned object's place
		python3 -c 'import sys
v = dict(zip(*[iter(open(sys.argv[1]).read().split())] * 2))
a = [int(v[k]) for k in ("s24", "s40", "s64", "s96")]
print([(y - x) % 64 for x, y in zip(a, a[1:])], v["line"])' "$1"
	}
	expect_eq "C++: new[] as the bare build lays it out" "$(steps xemu.out)" "$(steps xbare.out)"
fi
done_test
