#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --alloc on real programs (tests/progs/heapobj.c, heapnew.cc) with
# page faults: each large object's pages are first touched at known offsets,
# so every sample's object, offset, site and allocator are known
# (alloc-check.py). Also: a freed range reused by another object, realloc
# that moves, a second thread, C++ new/new[]/aligned new; perf script reads
# the file; stdio and the browser name heap bytes; --alloc refused where it
# cannot work; no shim found; the section is dropped with its reason when
# damaged; a recording without --alloc has null heap fields.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
for prog in heapobj heapnew; do
	bin=$TOP/$B/progs/$prog
	[ -x "$bin" ] || skip "$prog not built"
	if ! "$C2CSCAN" record -q --alloc -e page-faults -c 1 -o $prog.data -- "$bin" >$prog.out 2>$prog.err; then
		grep -q "cannot open page-faults" $prog.err && skip "perf_event_open not available here"
		fail "record $prog: $(cat $prog.err)"
		continue
	fi
	[ -s $prog.err ] && fail "record $prog warns: $(cat $prog.err)"
	"$C2CSCAN" report --json -d all --show-all -i $prog.data >$prog.json 2>err || fail "report $prog: $(cat err)"
	python3 "$TOP/tests/cli/alloc-check.py" $prog.out $prog.json || fail "$prog: heap objects named wrong"
	if command -v perf >/dev/null 2>&1; then
		perf script -i $prog.data >script.out 2>script.err || fail "perf script $prog: $(cat script.err)"
		[ -s script.err ] && fail "perf script warns on $prog: $(head -n 3 script.err)"
	fi
done
# stdio: the Allocations line, the Data column, the objects of a line
"$C2CSCAN" report --stdio -d all --lines 0 -i heapobj.data >h.stdio 2>err || fail "stdio: $(cat err)"
grep -q "Allocations *: [0-9]* objects, [0-9]* frees in 1 process(es) (record --alloc)" h.stdio ||
	fail "no Allocations line: $(grep Alloc h.stdio)"
grep -q " make_malloc+0\.\.\. " h.stdio ||
	fail "the Data column does not name heap bytes: $(grep make_malloc h.stdio | head -n 2)"
grep -A1 "heap objects in this line:" h.stdio | grep -q "^        make_malloc at heapobj.c:[0-9]* (262144 B, malloc, tid" ||
	fail "a line does not list its heap objects"
grep -q " make_calloc (heap)" h.stdio || fail "the line list does not name heap lines"
# the browser shows the same Data column
printf 'dump:list.txt\n' >keys
env COLUMNS=200 LINES=30 LC_ALL=C C2CSCAN_KEYS=keys "$C2CSCAN" report --tui -d all -i heapobj.data >/dev/null 2>err ||
	fail "browser: $(cat err)"
grep -q " make_[a-z_]* (heap)" list.txt || fail "the browser does not name heap lines: $(head -n 12 list.txt)"
# the browser's line view lists the objects sharing the line (fixture: two
# threads' objects and a freed one)
mkperf "$TOP/tests/fixtures/scenarios/heap-false-sharing.scn" hfs.data &&
	printf 'enter\ndump:line.txt\n' >keys2 &&
	env COLUMNS=160 LINES=24 LC_ALL=C C2CSCAN_KEYS=keys2 "$C2CSCAN" report --tui -i hfs.data >/dev/null 2>err ||
	fail "browser line view: $(cat err)"
grep -q "^ heap: 0x401050 (24 B, malloc, tid 14001) | 0x401050 (24 B, malloc, tid 14011) | freed 0x401070 (8 B, calloc" \
	line.txt || fail "the line view does not list the heap objects: $(grep heap line.txt)"
# a recording without --alloc: null, not an error
"$C2CSCAN" record -q -e page-faults -c 1 -o plain.data -- "$TOP/$B/progs/heapobj" >/dev/null 2>err || fail "plain: $(cat err)"
"$C2CSCAN" report --json -d all -i plain.data >plain.json 2>err || fail "plain report: $(cat err)"
expect_eq "heap without --alloc" "$(json_get plain.json 'set(str(o["heap"]) for l in j["cachelines"] for o in l["offsets"])')" "{'None'}"
# where --alloc cannot work
"$C2CSCAN" record -q --alloc -e page-faults -a --duration 0.1 -o x.data >/dev/null 2>err
rc=$?
[ $rc = 1 ] && grep -q -- "--alloc tracks a command that record launches" err || fail "--alloc -a: exit $rc, $(cat err)"
C2CSCAN_ALLOC_SHIM=/nonexistent "$C2CSCAN" record -q --alloc -e page-faults -o x.data -- true >/dev/null 2>err
rc=$?
[ $rc = 1 ] && grep -q "cannot find libc2cscan-alloc.so" err || fail "no shim: exit $rc, $(cat err)"
# a static program: the shim cannot load, the samples are still written
if printf 'int main(void){return 0;}' >st.c && cc -static -o st st.c 2>/dev/null; then
	"$C2CSCAN" record -q --alloc -e page-faults -o st.data -- ./st >/dev/null 2>err || fail "static: $(cat err)"
	grep -q "no allocation events: the shim did not load" err || fail "static program: $(cat err)"
	"$C2CSCAN" report --stdio -d all -i st.data >/dev/null 2>&1 || fail "static program's file does not read"
fi
done_test
