#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An old recording keeps its names after a rebuild: record copies each
# object it mapped into the build-id cache ($HOME/.debug, perf's layout) and
# report finds objects by build-id first. A program (tests/progs/callers.c)
# is recorded, rebuilt at the same path with other flags, and the old
# recording's rows must still say touch() with no build-id warning; with
# record -N (no cache) the rebuild is refused by build-id and the rows show
# addresses, never the new binary's names.
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
