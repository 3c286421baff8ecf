#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --emulate runs a GCC -fsanitize=thread build without libtsan when
# the dynamic linker binds all it needs without it (tests/progs/tsanmode.c:
# per-thread slots of one array): libtsan is not mapped in the program,
# record says so, and a program it executes loads libtsan again (record
# asked about the one it ran). A build that calls ThreadSanitizer's
# annotations keeps libtsan, and record says which symbol keeps it; so does
# a runtime with no stand-in beside it, and a program that imports a name
# its library has in an older version (glibc's condition variables before
# 2.3.2 are the runtime's to pass on; a library of the test's own is not).
# Either way the answer is the same: the slots' lines false sharing.
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

# a vforked child that executes the program: the same (the runtime forks
# for vfork, as libtsan does: the child's hooks would write the parent's
# state)
record vfork "$P/tsanmode-tsan" vfork
expect_eq "vfork: the program and its child" "$(cat vfork.out)" "tsanmode 8000000 libtsan no
tsanmode 8000000 libtsan yes"
grep -q "blocked where the model cannot see" vfork.err && fail "vfork: the lockstep stalled: $(cat vfork.err)"

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

# an import without a version that its library has in an older version
# apart from the current one (the loader would give the older without
# libtsan): a library of two versions of vfn, and a program linked against
# a libtsan of the test's own that defines vfn (as libtsan's interceptors
# are found first), run with that libtsan when it stays
mkdir -p fake/lib
cat >fake/vold.c <<'C'
int vfn_old(void) { return 1; }
int vfn_new(void) { return 2; }
__asm__(".symver vfn_old, vfn@OLD");
__asm__(".symver vfn_new, vfn@@NEW");
C
printf 'OLD { global: vfn; local: *; };\nNEW { global: vfn; } OLD;\n' >fake/vold.map
printf 'int vfn(void) { return 0; }\nvoid __tsan_write4(void *a) { (void)a; }\n' >fake/stub.c
printf '#include <stdio.h>\nint vfn(void);\nvoid __tsan_write4(void *);\nstatic int x;\nint main(void) { __tsan_write4(&x); x = vfn(); printf("vfn %%d\\n", x); return 0; }\n' >fake/prog.c
if ${CC:-gcc} -shared -fPIC -o fake/libvold.so fake/vold.c -Wl,--version-script=fake/vold.map -Wl,-soname,libvold.so &&
	${CC:-gcc} -shared -fPIC -o fake/lib/libtsan.so.2 fake/stub.c -Wl,-soname,libtsan.so.2 &&
	${CC:-gcc} -o fake/prog fake/prog.c -Wl,--no-as-needed fake/lib/libtsan.so.2 fake/libvold.so \
		-Wl,-rpath,"$T/fake/lib:$T/fake"; then
	"$C2CSCAN" record --emulate -o old.data -- "$T/fake/prog" >old.out 2>old.err || fail "record old: $(cat old.err)"
	expect_eq "an older version: the program, with its libtsan" "$(cat old.out)" "vfn 0"
	grep -q "^c2cscan record: --emulate: libtsan loaded (its interceptors run beside the model): vfn would be $T/fake/libvold.so's vfn@OLD (an older version) without it$" \
		old.err || fail "an older version: record says $(cat old.err)"
else
	fail "cannot build the versioned library's test"
fi

# the same answer with and without libtsan: the slots' lines false sharing,
# their contention within 10% (490 each: each thread's slot a coming a
# window; 491-979 from run to run while a store after the load's HITM
# counted again)
for n in without vfork annotated lone; do
	set -- $(top $n)
	[ "$1 $2" = "false sharing" ] && [ "$3" -ge 400 ] || fail "$n: the top line: $*"
	eval "c_$n=\$3"
done
for n in annotated lone; do
	eval "c=\$c_$n"
	python3 -c "import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); sys.exit(0 if abs(a - b) <= 0.1 * max(a, b) else 1)" \
		"$c_without" "$c" || fail "$n: contention $c against $c_without without libtsan"
done
done_test
