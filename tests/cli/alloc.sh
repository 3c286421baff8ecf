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
# a custom allocator (--alloc-fn, --free-fn: uprobes on the executable's
# functions, beside the shim): its objects are the innermost, inside the
# malloc'd arena
if "$C2CSCAN" record -q --alloc-fn arena_alloc --free-fn arena_free -e page-faults -c 1 -o arena.data \
	-- "$TOP/$B/progs/arena" >arena.out 2>arena.err; then
	"$C2CSCAN" report --json -d all --show-all -i arena.data >arena.json 2>err || fail "report arena: $(cat err)"
	python3 "$TOP/tests/cli/alloc-check.py" arena.out arena.json || fail "arena: objects named wrong"
	"$C2CSCAN" report --stdio -d all -i arena.data | grep -q "Allocations.* 0 over a live object\|Allocations.*(record --alloc, allocator probes)$" ||
		fail "arena: $(grep Allocations arena.json)"
else
	grep -q "no uprobe PMU" arena.err && skip "no uprobes here"
	fail "record --alloc-fn: $(cat arena.err)"
fi
"$C2CSCAN" record -q --alloc-fn no_such_fn -e page-faults -o x.data -- "$TOP/$B/progs/arena" >/dev/null 2>err
rc=$?
[ $rc = 1 ] && grep -q "alloc-fn 'no_such_fn' in .*arena and its libraries: no such function" err ||
	fail "unknown --alloc-fn: exit $rc, $(cat err)"
# a function of a library the executable needs (mmap in the C library)
"$C2CSCAN" record -q --alloc-fn mmap:size=2 -e page-faults -o lib.data -- "$TOP/$B/progs/arena" >/dev/null 2>err ||
	fail "--alloc-fn in a library: $(cat err)"
if command -v perf >/dev/null 2>&1; then
	perf script -i lib.data 2>/dev/null | grep -q "c2cscan_alloc:mmap:ret" || fail "no probe on the library's mmap"
fi
# -p: a running process, through uprobes on its C library
"$TOP/$B/progs/heapobj" wait >heapobj-p.out &
bgpid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do grep -qs "^pid" heapobj-p.out && break; sleep 0.1; done
"$C2CSCAN" record -q --alloc -e page-faults -c 1 -p $bgpid -o heapobj-p.data -- \
	sh -c 'kill -USR1 $1; while kill -0 $1 2>/dev/null; do sleep 0.05; done' sh $bgpid >/dev/null 2>err ||
	fail "record -p: $(cat err)"
wait $bgpid
"$C2CSCAN" report --json -d all --show-all -i heapobj-p.data >heapobj-p.json 2>err || fail "report -p: $(cat err)"
python3 "$TOP/tests/cli/alloc-check.py" heapobj-p.out heapobj-p.json || fail "-p: heap objects named wrong"
if command -v perf >/dev/null 2>&1; then
	perf script -i heapobj-p.data >script.out 2>script.err || fail "perf script -p: $(cat script.err)"
	grep -q "c2cscan_alloc:malloc:ret" script.out || fail "perf script does not show the probes"
fi
# stdio: the Allocations line, the Data column, the objects of a line
"$C2CSCAN" report --stdio -d all --lines 0 -i heapobj.data >h.stdio 2>err || fail "stdio: $(cat err)"
grep -q "Allocations *: [0-9]* objects, [0-9]* frees in 1 process(es) (record --alloc)" h.stdio ||
	fail "no Allocations line: $(grep Alloc h.stdio)"
grep -q " make_malloc+0x[0-9a-f]* ([0-9]* B) " h.stdio ||
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
# --alloc-fn with -a: whose functions?
"$C2CSCAN" record -q --alloc-fn foo -e page-faults -a --duration 0.1 -o x.data >/dev/null 2>err
rc=$?
[ $rc = 1 ] && grep -q -- "give the process (-p) or the command" err || fail "--alloc-fn -a: exit $rc, $(cat err)"
C2CSCAN_ALLOC_SHIM=/nonexistent "$C2CSCAN" record -q --alloc -e page-faults -o x.data -- true >/dev/null 2>err
rc=$?
[ $rc = 1 ] && grep -q "cannot find libc2cscan-alloc.so" err || fail "no shim: exit $rc, $(cat err)"
# a static program: the shim cannot load, but its own malloc and free are
# probed (as a sanitizer's allocator linked into an executable is)
if printf '#include <stdlib.h>\nchar *volatile keep;\nint main(void){keep = malloc(1 << 20); for (int i = 0; i < 1 << 20; i += 4096) keep[i] = 1; free(keep); return 0;}\n' >st.c &&
   cc -O1 -static -o st st.c 2>/dev/null; then
	"$C2CSCAN" record --alloc -e page-faults -o st.data -- ./st >/dev/null 2>err || fail "static: $(cat err)"
	grep -q "has an allocator of its own (a sanitizer's runtime?): probing it" err || fail "static program: $(cat err)"
	grep -q "no allocation events" err && fail "static program: $(cat err)"
	"$C2CSCAN" report --stdio -d all -i st.data >st.stdio 2>&1 || fail "static program's file does not read"
	grep -q "Allocations *: [1-9][0-9]* objects, [1-9][0-9]* frees in 1 process(es) (record --alloc, allocator probes)" st.stdio ||
		fail "static program: $(grep Allocations st.stdio)"
fi
done_test
