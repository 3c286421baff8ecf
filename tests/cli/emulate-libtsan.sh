#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --emulate runs a GCC -fsanitize=thread build without libtsan when
# the dynamic linker binds all it needs without it (tests/progs/tsanmode.c:
# per-thread slots of one array): libtsan is not mapped in the program,
# record says so, and a program it executes loads libtsan again (record
# asked about the one it ran). A build that calls ThreadSanitizer's
# annotations keeps libtsan, and record says which symbol keeps it; so does
# a runtime with no stand-in beside it. Either way the answer is the same:
# the slots' lines false sharing, their contention within 10%.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
P=$TOP/$B/progs
[ -x "$P/tsanmode-tsan" ] && [ -x "$P/tsanmode-annotated-tsan" ] || skip "no -fsanitize=thread builds"
tsan_runs || skip "a -fsanitize=thread program does not run here"
[ -f "$TOP/$B/libc2cscan-libtsan.so.2" ] || fail "no stand-in for libtsan.so.2 built"

# top NAME: the top line's verdict and contention
top() {
	json_get "$1.json" '"%s %d" % (j["cachelines"][0]["verdict"], j["cachelines"][0]["contention"])'
}

# record NAME PROGRAM ARGS...: recorded and reported (its output in NAME.out)
record() {
	name=$1
	shift
	"$C2CSCAN" record --emulate -o "$name.data" -- "$@" >"$name.out" 2>"$name.err" ||
		fail "record $name: exit $?: $(cat "$name.err")"
	"$C2CSCAN" report --json -i "$name.data" >"$name.json" 2>err || fail "report $name: $(cat err)"
}

record without "$P/tsanmode-tsan" exec
expect_eq "without libtsan: the program and the one it executes" "$(cat without.out)" \
	"tsanmode 8000000 libtsan no
tsanmode 8000000 libtsan yes"
grep -q "^c2cscan record: --emulate: libtsan not loaded (the runtime and the C library define all the program needs)" \
	without.err || fail "without libtsan: record says $(cat without.err)"
grep -q "blocked where the model cannot see" without.err && fail "without libtsan: the exec stalled the lockstep: $(cat without.err)"

record annotated "$P/tsanmode-annotated-tsan"
expect_eq "annotated: the program" "$(cat annotated.out)" "tsanmode 8000000 libtsan yes"
grep -q "^c2cscan record: --emulate: libtsan loaded (its interceptors run beside the model): undefined symbol: __tsan_\(acquire\|release\) (.*tsanmode-annotated-tsan)$" \
	annotated.err || fail "annotated: record says $(cat annotated.err)"

# the runtime alone in a directory (C2CSCAN_EMU_LIB): no stand-in, libtsan stays
mkdir lone && cp "$TOP/$B/libc2cscan-emu.so" lone/
C2CSCAN_EMU_LIB=$T/lone/libc2cscan-emu.so record lone "$P/tsanmode-tsan"
expect_eq "a runtime alone: the program" "$(cat lone.out)" "tsanmode 8000000 libtsan yes"
grep -q "^c2cscan record: --emulate: libtsan loaded (its interceptors run beside the model): no stand-in for libtsan.so.2 beside $T/lone/libc2cscan-emu.so$" \
	lone.err || fail "a runtime alone: record says $(cat lone.err)"

# the same answer with and without libtsan
for n in without annotated lone; do
	set -- $(top $n)
	[ "$1 $2" = "false sharing" ] || fail "$n: the top line: $*"
	eval "c_$n=\$3"
done
for n in annotated lone; do
	eval "c=\$c_$n"
	python3 -c "import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); sys.exit(0 if abs(a - b) <= 0.1 * max(a, b) else 1)" \
		"$c_without" "$c" || fail "$n: contention $c against $c_without without libtsan"
done
done_test
