#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo's script: it runs, shows a heap line with both its objects
# whole, and leaves nothing behind in TMPDIR (it wrote fixed /tmp paths).
. "$TOP/tests/cli/lib.inc"
mkdir "$T/tmp"
(cd "$TOP" && TMPDIR="$T/tmp" B="$B" sh scripts/demo) >"$T/demo.out" 2>&1 || fail "demo: $(tail -n 5 "$T/demo.out")"
grep -q "^== c2cscan record --alloc" "$T/demo.out" || skip "no page faults here: $(tail -n 2 "$T/demo.out")"
expect_eq "heap objects of the demo's line" "$(sed -n '/heap objects in this line/,$p' "$T/demo.out" | grep -c '^           make_reuse_[ab] at heapobj.c')" 2
# contention on this machine too: the emulated recording's false sharing
if [ -x "$TOP/$B/progs/counters-tsan" ]; then
	sed -n '/^== c2cscan record --emulate/,/^== c2cscan record --alloc/p' "$T/demo.out" >"$T/emu.out"
	grep -q "verdict: false sharing: [0-9]* threads write and read different parts of the line" "$T/emu.out" ||
		fail "the demo's emulated recording: $(grep -E '^ +[0-9]+ 0x|verdict' "$T/emu.out")"
	# the advice whole (it wraps), to its last words
	tr -s "\n " "  " <"$T/emu.out" | grep -q "to its own line; costs [0-9]* bytes" ||
		fail "the demo cuts the advice: $(grep -A2 'advice:' "$T/emu.out")"
	grep -q "the recording: $B/demo-emulated.data" "$T/emu.out" && [ -s "$TOP/$B/demo-emulated.data" ] ||
		fail "the demo's recording is not kept"
fi
if [ -x "$TOP/$B/progs/counters-tsan" ]; then
	grep -q "as one page (open it in a browser): $B/demo-emulated.html" "$T/demo.out" &&
		grep -q '<span class="verdict false">false sharing</span>' "$TOP/$B/demo-emulated.html" ||
		fail "the demo's page: $(grep 'one page' "$T/demo.out")"
fi
expect_eq "left in TMPDIR" "$(ls -A "$T/tmp")" ""
done_test
