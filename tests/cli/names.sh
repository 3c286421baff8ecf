#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Names of code and data on recordings made here by the kernel:
# tests/names/names.c (a PIE built with -g: a struct whose fields share one
# line, an array of structs, nested structs in .bss, a file-static array, an
# inlined function) and libnames.so (a static array in a shared library),
# recorded with page faults, whose data address is the member written and
# whose ip is the store. The report must name them as tests/golden/names.txt
# says (data | code | source), with:
#  - the binary as built (perf's recording, then c2cscan's own);
#  - a stripped copy under --symfs whose debug info is found by build-id;
#  - and never with a binary rebuilt after the recording (different
#    build-id): a warning instead of wrong names;
#  - --no-symbols: no names at all.
. "$TOP/tests/cli/lib.inc"
command -v gcc >/dev/null 2>&1 || skip "gcc not installed"
command -v perf >/dev/null 2>&1 || skip "perf not installed"
golden=$TOP/tests/golden/names.txt
extract() { python3 "$TOP/tests/cli/names-extract.py" "$1" names.c libnames.c; }
cd "$T" || exit 1
build() {
	gcc -g -O1 -fno-toplevel-reorder -fPIC -shared -o libnames.so "$TOP/tests/names/libnames.c" &&
		gcc -g -O1 -fno-toplevel-reorder -fPIE -pie "$@" -o names "$TOP/tests/names/names.c" \
			-L. -lnames -Wl,-rpath,"$T"
}
build || { fail "cannot build tests/names"; done_test; }
# perf's build-id cache (~/.debug) of this test only
export HOME=$T/home
mkdir -p "$HOME"
perf record -q -c 1 -e page-faults -d -o pf.data -- ./names >/dev/null 2>perr ||
	skip "perf record -e page-faults -d failed here: $(tail -n 1 perr)"

"$C2CSCAN" report --json -d all --show-all -i pf.data >r.json 2>err || fail "report: $(cat err)"
extract r.json >got.txt
if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
	cp got.txt "$golden"
fi
diff -u "$golden" got.txt || fail "names differ from tests/golden/names.txt"
"$C2CSCAN" report --stdio -d all -i pf.data >r.txt 2>err || fail "stdio: $(cat err)"
grep -q "args\[3\]\.SX .*touch_args+0x[0-9a-f]* *names\.c:" r.txt || fail "--stdio row without its names"
grep -q "hidden_static (" r.txt || fail "--stdio line table without the data symbol"
# the browser shows the same names: search a function, open its line
printf '/ text:touch_args enter dump:tui-list.txt enter dump:tui-line.txt\n' >keys
COLUMNS=200 LINES=40 LC_ALL=C C2CSCAN_KEYS=keys "$C2CSCAN" report --tui -d all -i pf.data 2>err ||
	fail "tui: $(cat err)"
grep -q "args (names)" tui-list.txt || fail "tui: the line found by 'touch_args' is not named args (names)"
grep -q "args\[[0-9]\]\.[A-Za-z]* .*touch_args+0x[0-9a-f]* .*names\.c:" tui-line.txt ||
	fail "tui: the rows of the args line lack their names: $(cat tui-line.txt)"
# ... and on small terminals without scrolling sideways: the list names what
# each line holds right after its address, the offsets view the function
# and the source line
for size in 80x24 100x30; do
	COLUMNS=${size%x*} LINES=${size#*x} LC_ALL=C C2CSCAN_KEYS=keys "$C2CSCAN" report --tui -d all -i pf.data 2>err ||
		fail "tui $size: $(cat err)"
	grep -q "^ *[0-9]* 0x[0-9a-f]*  *args (names) " tui-list.txt ||
		fail "tui $size: the list does not show args (names) beside the address: $(cat tui-list.txt)"
	grep -q "^0x30   args\[3\]\.SX  *touch_args+0x[0-9a-f]* .*names\.c:4[0-9]" tui-line.txt ||
		fail "tui $size: the offsets view lacks the function or the source: $(cat tui-line.txt)"
done

# --no-symbols: not one name
"$C2CSCAN" report --json -d all --show-all --no-symbols -i pf.data >ns.json 2>err || fail "--no-symbols: $(cat err)"
[ -z "$(extract ns.json)" ] || fail "--no-symbols still names rows"

# c2cscan's own recording names the same rows
if "$C2CSCAN" record -q -c 1 -e page-faults -o cs.data -- ./names >/dev/null 2>cerr; then
	"$C2CSCAN" report --json -d all --show-all -i cs.data >cs.json 2>err || fail "report of record: $(cat err)"
	extract cs.json | diff -u "$golden" - || fail "names of c2cscan's own recording"
else
	echo "note: c2cscan record unavailable here: $(tail -n 1 cerr)"
fi

# a stripped binary under --symfs, its debug info found by build-id
id=$(readelf -n names | sed -n 's/^ *Build ID: *//p')
[ -n "$id" ] || fail "no build-id in the test binary"
root=$T/root
mkdir -p "$root$T" "$root/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)"
objcopy --only-keep-debug names "$root/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
strip -g -o "$root$T/names" names
cp libnames.so "$root$T/"
readelf -S "$root$T/names" | grep -q debug_info && fail "the stripped copy still has debug info"
"$C2CSCAN" report --json -d all --show-all --symfs "$root" -i pf.data >sym.json 2>err || fail "--symfs: $(cat err)"
extract sym.json | diff -u "$golden" - || fail "names through --symfs and a build-id debug file"

# rebuilt after the recording: named from perf's build-id cache (the copy
# perf record kept in ~/.debug) ...
build -DCHANGED || fail "cannot rebuild"
"$C2CSCAN" report --json -d all --show-all -i pf.data >cache.json 2>err || fail "cache: $(cat err)"
extract cache.json | diff -u "$golden" - || fail "names from the build-id cache"
# ... and without that copy: a warning, and no names from the wrong binary
export HOME=$T/empty
mkdir -p "$HOME"
"$C2CSCAN" report --json -d all --show-all -i pf.data >mis.json 2>err || fail "mismatch: $(cat err)"
extract mis.json | grep -v libnames.c | grep . && fail "names taken from a binary rebuilt after the recording"
json_get mis.json 'any("build-id" in w and "/names" in w for w in j["name_warnings"])' | grep -q True ||
	fail "no build-id warning for the rebuilt binary: $(json_get mis.json 'j["name_warnings"]')"
grep -q 'lib_table\[7\]' mis.json || fail "the unchanged library is no longer named"
"$C2CSCAN" report --stdio -d all -i pf.data 2>/dev/null | grep -q "^warning: .*build-id" ||
	fail "--stdio does not show the build-id warning"
# c2cscan's own recording carries the build-ids (BUILD_ID feature, read by
# perf too), so the rebuilt binary is refused for its build-id
if [ -f cs.data ]; then
	perf buildid-list -i cs.data 2>/dev/null | grep -q "^$id $T/names\$" ||
		fail "perf buildid-list does not list names with build-id $id: $(perf buildid-list -i cs.data 2>&1)"
	perf buildid-list -i cs.data 2>/dev/null | grep -q "libnames.so\$" || fail "no build-id for libnames.so"
	"$C2CSCAN" report --json -d all --show-all -i cs.data >csm.json 2>err || fail "own mismatch: $(cat err)"
	json_get csm.json 'any("build-id" in w and "/names" in w for w in j["name_warnings"])' | grep -q True ||
		fail "own recording: no build-id warning for the rebuilt binary: $(json_get csm.json 'j["name_warnings"]')"
	extract csm.json | grep -v libnames.c | grep . && fail "own recording: names from the rebuilt binary"
fi
done_test
