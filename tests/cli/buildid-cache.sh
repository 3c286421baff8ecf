#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An old recording keeps its names after a rebuild: record copies each
# object it mapped into the build-id cache ($HOME/.debug, perf's layout) and
# report finds objects by build-id first. A program (tests/progs/callers.c)
# is recorded, rebuilt at the same path with other flags, and the old
# recording's rows must still say touch() with no build-id warning; with
# record -N (no cache) the rebuild is refused by build-id and the rows show
# addresses, never the new binary's names.
# Separate debug info with compressed sections is kept inflated beside the
# copy, and read first.
# run-tests: full (perf buildid-cache runs)
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
src=$TOP/tests/progs/callers.c
command -v cc >/dev/null 2>&1 || skip "no compiler"
mkdir -p home bin
export HOME="$T/home"
cc -O1 -g -o bin/prog "$src" || fail "cc"
if ! "$C2CSCAN" record -q -e page-faults -u -o old.data -- ./bin/prog >/dev/null 2>err; then
	grep -q "cannot open page-faults" err && skip "perf_event_open not available here"
	fail "record: $(cat err)"
fi
id=$(readelf -n bin/prog | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || skip "the compiler writes no build-id"
[ -f "home/.debug$T/bin/prog/$id/elf" ] || fail "no copy in the cache: $(find home -type f | head)"
[ -L "home/.debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)" ] || fail "no .build-id link"
# again: nothing copied twice
"$C2CSCAN" record -q -v -e page-faults -u -o old2.data -- ./bin/prog >/dev/null 2>err || fail "record 2"
grep -q "build-id cache (~/.debug): 0 objects copied" err || fail "copied again: $(grep cache err)"

touch_rows() { # FILE: the rows whose code is touch()
	"$C2CSCAN" report --json -d all -i "$1" 2>"$1.err" | python3 -c '
import json, sys
j = json.load(sys.stdin)
print(sum(1 for l in j["cachelines"] for o in l["offsets"] if o["symbol"] == "touch"))'
}
before=$(touch_rows old.data)
[ "$before" -ge 20 ] || fail "touch() names only $before rows before the rebuild"
cc -O0 -g -o bin/prog "$src" || fail "cc again"
expect_eq "rows named touch after the rebuild" "$(touch_rows old.data)" "$before"
grep -q "build-id" old.data.err && fail "a build-id warning with the cache: $(cat old.data.err)"

# separate debug info with compressed sections (as distributions ship
# it): record keeps it inflated beside the copy, report reads that first,
# and its answers are the same from it, without it, and from a wrong one
mkdir -p bin/.debug
# (-O2: not bin/prog's build-id, whose cached copy has its DWARF inside)
if cc -O2 -g -o bin/gz "$src" && objcopy --only-keep-debug --compress-debug-sections=zlib bin/gz bin/.debug/gz.debug &&
   objcopy --strip-debug --add-gnu-debuglink=bin/.debug/gz.debug bin/gz &&
   readelf -SW bin/.debug/gz.debug 2>/dev/null | grep -q '\.debug_info.* C '; then
	"$C2CSCAN" record -q -e page-faults -u -o gz.data -- ./bin/gz >/dev/null 2>err || fail "record gz: $(cat err)"
	gid=$(readelf -n bin/gz | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
	# in the build-id's directory (the first path cached under it)
	inflated=home/.debug/.build-id/$(echo "$gid" | cut -c1-2)/$(echo "$gid" | cut -c3-)/c2cscan-debug
	[ -f "$inflated" ] || fail "no inflated debug info in the cache: $(find home -path '*gz*' | head)"
	readelf -SW "$inflated" 2>/dev/null | grep -q '\.debug_info.* C ' && fail "the cache's .debug_info is still compressed"
	readelf -SW "$inflated" 2>/dev/null | grep -q '\.debug_info' || fail "the cache's copy has no .debug_info"
	"$C2CSCAN" report --json -d all -i gz.data >with.json 2>/dev/null || fail "report gz"
	touch_line() { # FILE: the lines touch()'s rows name
		python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(sorted({o["source"] for l in j["cachelines"] for o in l["offsets"] if o["symbol"] == "touch"}))' "$1"
	}
	line=$(grep -n 'region\[' "$src" | head -1 | cut -d: -f1)
	expect_eq "touch()'s line" "$(touch_line with.json)" "['$src:$line']"
	# the same answers as from the compressed file itself (no cache: the
	# program's debuglink)
	HOME=$T/nohome "$C2CSCAN" report --json -d all -i gz.data >nocache.json 2>/dev/null || fail "report gz, no cache"
	cmp -s with.json nocache.json || fail "answers differ with the inflated copy: $(diff with.json nocache.json | head -5)"
	cp "$inflated" saved
	rm "$inflated"
	"$C2CSCAN" report --json -d all -i gz.data >without.json 2>/dev/null || fail "report gz without"
	# read first: debug info of the same build-id from the source moved
	# down three lines names touch() three lines lower
	{ printf '\n\n\n'; cat "$src"; } >moved.c
	if cc -O2 -g -Wl,--build-id=0x"$gid" -o moved moved.c 2>/dev/null; then
		cp moved "$inflated"
		"$C2CSCAN" report --json -d all -i gz.data >moved.json 2>/dev/null || fail "report gz moved"
		expect_eq "touch()'s line from the cache's copy" "$(touch_line moved.json)" "['$T/moved.c:$((line + 3))']"
	fi
	cp /bin/true "$inflated"        # another object's: passed over, as if not there
	"$C2CSCAN" report --json -d all -i gz.data >damaged.json 2>/dev/null || fail "report gz damaged"
	cmp -s without.json damaged.json || fail "a wrong copy was read: $(diff without.json damaged.json | head -5)"
	# record does not inflate again what is there
	cp saved "$inflated"
	touch -d @1 "$inflated"
	"$C2CSCAN" record -q -e page-faults -u -o gz2.data -- ./bin/gz >/dev/null 2>err || fail "record gz 2"
	[ "$(stat -c %Y "$inflated")" = 1 ] || fail "the inflated copy was written again"
else
	echo "note: no objcopy with compressed sections here: the inflated cache is not tested"
fi

# without the cache: the rebuilt file is refused, and said so
rm -rf home/.debug
cc -O1 -g -o bin/prog "$src" || fail "cc 3"
"$C2CSCAN" record -q -N -e page-faults -u -o nocache.data -- ./bin/prog >/dev/null 2>err || fail "record -N: $(cat err)"
[ -d home/.debug ] && fail "record -N wrote the cache: $(find home | head)"
cc -O0 -g -o bin/prog "$src" || fail "cc 4"
expect_eq "rows named touch from a rebuilt file" "$(touch_rows nocache.data)" 0
"$C2CSCAN" report --stdio -d all -i nocache.data 2>/dev/null | grep -q "prog on disk has build-id [0-9a-f]*, recording has" ||
	fail "no warning about the rebuilt binary"
done_test
