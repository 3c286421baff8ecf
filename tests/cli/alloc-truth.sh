#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --alloc tells the truth about a real program's allocation edge cases
# (tests/progs/allocedge.c): zero-size allocations are valid objects whose
# frees match them, not errors; JSON carries the allocation summary; stdio
# prints the Allocations line whole.
# run-tests: full (a generated 1.7 million allocation recording)
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
bin=$TOP/$B/progs/allocedge
[ -x "$bin" ] || skip "allocedge not built"
if ! "$C2CSCAN" record -q --alloc -e page-faults -c 1 -o ae.data -- "$bin" >ae.out 2>ae.err; then
	grep -q "cannot open page-faults" ae.err && skip "perf_event_open not available here"
	fail "record: $(cat ae.err)"
	done_test
fi
"$C2CSCAN" report --json -d all -i ae.data >ae.json 2>err || fail "report: $(cat err)"
expect_eq "zero-size allocations" "$(json_get ae.json '(j["allocations"]["zero_size"], j["allocations"]["unmatched_frees"], j["allocations"]["frees"] >= 4)')" \
	"(3, 0, True)"
# the shim's own code and memory (real_malloc, its thread buffers) are not
# the program's: left out, counted
"$C2CSCAN" report --json -d all --show-all -i ae.data >ae-all.json 2>err || fail "report: $(cat err)"
expect_eq "the shim's samples" "$(json_get ae-all.json '(j["keys"]["tool"] > 0, [l["object"] for l in j["cachelines"] for o in l["offsets"] if "c2cscan-alloc" in (o["code_object"] or "") + (l["object"] or "") or (o["data_symbol"] or "").startswith("real_")])')" \
	"(True, [])"
"$C2CSCAN" report --stdio -d all -i ae.data >ae.stdio 2>err || fail "stdio: $(cat err)"
grep -q '^  Allocations *: [0-9]* objects, [0-9]* frees in 1 process(es) (record --alloc); 3 of 0 bytes$' ae.stdio ||
	fail "stdio Allocations: $(grep Allocations ae.stdio)"

# past record's limit (lowered here): it says so, the file keeps the count,
# the report says PARTIAL (record stopped at 2^24 events without a word)
C2CSCAN_ALLOC_MAX_EVENTS=3 "$C2CSCAN" record --alloc -e page-faults -c 1 -o lim.data -- "$bin" >/dev/null 2>lim.err ||
	fail "record at the limit: $(cat lim.err)"
grep -q '^c2cscan record: --alloc: [0-9]* allocation events past the limit of 3 were dropped' lim.err ||
	fail "record does not say it dropped events: $(cat lim.err)"
"$C2CSCAN" report --stdio -i lim.data 2>err | grep -q '^  Allocations .*; PARTIAL: record dropped [1-9][0-9]* events past its limit of 3' ||
	fail "stdio does not say events were dropped: $(grep Allocations lim.data)"
"$C2CSCAN" report --json -i lim.data >lim.json 2>err || fail "report lim: $(cat err)"
json_get lim.json 'j["allocations"]["events_dropped_by_record"]' | grep -q '^[1-9]' || fail "JSON: no dropped count"

# the limit inside the second of several blocks (the shim writes ~9000
# events a block): the first events of that block are kept, every later
# one is counted as dropped, none lost between
ah=$TOP/$B/workloads/alloc-heavy
if [ -x "$ah" ]; then
	"$C2CSCAN" record --alloc -e page-faults -c 1000 -o ah.data -- "$ah" 20000 >/dev/null 2>ah.err || fail "record alloc-heavy: $(cat ah.err)"
	total=$(sed -n 's/^c2cscan record: \([0-9]*\) allocation events from.*/\1/p' ah.err)
	C2CSCAN_ALLOC_MAX_EVENTS=15000 "$C2CSCAN" record --alloc -e page-faults -c 1000 -o ahl.data -- "$ah" 20000 \
		>/dev/null 2>ahl.err || fail "record alloc-heavy at 15000: $(cat ahl.err)"
	dropped=$(sed -n 's/^c2cscan record: --alloc: \([0-9]*\) allocation events past the limit of 15000 were dropped.*/\1/p' ahl.err)
	[ "${total:-0}" -gt 30000 ] || fail "alloc-heavy 20000 wrote ${total:-no} events"
	expect_eq "kept + dropped past a limit inside a block" "$((15000 + ${dropped:-0}))" "$total"
	"$C2CSCAN" report --json -i ahl.data >ahl.json 2>err || fail "report ahl: $(cat err)"
	expect_eq "objects + frees kept" "$(json_get ahl.json 'j["allocations"]["objects"] + j["allocations"]["frees"]')" 15000
fi

# objects across fork(): the child's copy-on-write fault in the parent's
# table is named by its site and offset, the child's free matches it
fh=$TOP/$B/progs/forkheap
if "$C2CSCAN" record -q --alloc -e page-faults -c 1 -o fh.data -- "$fh" >fh.out 2>fh.err; then
	"$C2CSCAN" report --json -d all --show-all -i fh.data >fh.json 2>err || fail "report forkheap: $(cat err)"
	expect_eq "fork: frees" "$(json_get fh.json '(j["allocations"]["frees"], j["allocations"]["unmatched_frees"], j["allocations"]["processes"])')" "(2, 0, 2)"
	expect_eq "fork: the child's write" "$(json_get fh.json '[(o["heap"]["site"], o["heap"]["offset"], o["symbol"]) for l in j["cachelines"] if l["key"]["pid"] == max(x["key"]["pid"] for x in j["cachelines"]) for o in l["offsets"] if o["heap"] and not o["heap"]["freed"]]')" \
		"[('make_table', 8216, 'main')]"
else
	fail "record forkheap: $(cat fh.err)"
fi

# "freed" is a use after free by the program only: not malloc's own writes
# in a chunk (allocator's own bytes), not a munmapped block's range mapped
# again by plain mmap (256 pages of it read "freed remap")
if "$C2CSCAN" record -q --alloc -e page-faults -c 1 -o ft.data -- "$TOP/$B/progs/freedtruth" >ft.out 2>ft.err; then
	"$C2CSCAN" report --json -d all --show-all -i ft.data >ft.json 2>err || fail "report freedtruth: $(cat err)"
	expect_eq "freed rows" "$(json_get ft.json 'sorted(set((o["symbol"] if o["symbol"] in ("use_after_free", "remap") or not (o["symbol"] or "").startswith(("_int_", "tcache", "sysmalloc", "malloc", "free")) else "allocator", o["heap"]["site"], o["heap"]["allocator_internal"]) for l in j["cachelines"] for o in l["offsets"] if o["heap"] and o["heap"]["freed"]))')" \
		"[('allocator', 'use_after_free', True), ('use_after_free', 'use_after_free', False)]"
	"$C2CSCAN" report --stdio -d all --show-all --lines 0 -i ft.data 2>/dev/null | grep -q " freed use_after_free+0x9c40 (65536 B) .* use_after_free+" ||
		fail "stdio: the use after free is not named"
else
	fail "record freedtruth: $(cat ft.err)"
fi

# record -p PID --alloc --duration stops within a small constant of the time
# asked: closing each uprobe event takes ~90 ms in the kernel, one after
# another (30 of them made --duration 1 take 3.6 s); a detached process
# closes them after the file is written
if [ -e /sys/bus/event_source/devices/uprobe ]; then
	"$TOP/$B/progs/allocloop" >loop.out &
	lp=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do grep -qs "^pid" loop.out && break; sleep 0.1; done
	t0=$(date +%s%N)
	"$C2CSCAN" record -q --alloc -e page-faults -p $lp --duration 0.5 -o loop.data >/dev/null 2>err || fail "record -p: $(cat err)"
	t1=$(date +%s%N)
	kill $lp; wait $lp 2>/dev/null
	[ $(( (t1 - t0) / 1000000 )) -lt 2000 ] || fail "record -p --alloc --duration 0.5 took $(( (t1 - t0) / 1000000 )) ms"
	"$C2CSCAN" report --json -i loop.data >loop.json 2>err || fail "report loop: $(cat err)"
	json_get loop.json 'j["allocations"]["objects"]' | grep -q '^[1-9]' || fail "-p: no allocation recorded"
fi

# inside its allocator call (calloc's zeroing, realloc's copy: C library code
# before the new object's event), the allocating thread touches the object
# being created; another thread there, or the program's code, a freed one
LIBC=$(ldd "$TOP/$B/progs/allocedge" 2>/dev/null | awk '$1 ~ /^libc\.so/ { print $3 }')
Q=$([ -n "$LIBC" ] && nm -D --defined-only "$LIBC" 2>/dev/null | awk '$3 ~ /^qsort@/ { print $1; exit }')
if [ -n "$Q" ]; then
	ip=$(printf '%#x' $((0x7f0000000000 + 0x$Q + 0x10)))
	cat >cr.scn <<SCN
attr name=cpu/mem-stores/P type=raw config=0x82d0 precise=3 id=2
feature hostname=fixture nrcpus=4 arch=x86_64
comm  pid=14001 time=1000 comm=creator exec
mmap2 pid=14001 time=1001 start=0x400000 len=0x2000 maj=8 min=1 ino=1401 gen=1 prot=r-x flags=private name=/usr/bin/creator
mmap2 pid=14001 time=1002 start=0x7f0000000000 len=0x200000 prot=r-x flags=private name=$LIBC
mmap2 pid=14001 time=1003 start=0x2000000 len=0x21000 prot=rw flags=private name=[heap]
fork  pid=14001 tid=14011 time=1004
alloc pid=14001 tid=14001 time=1100 addr=0x2001000 size=4096 site=0x401050
free  pid=14001 tid=14001 time=1200 addr=0x2001000
alloc pid=14001 tid=14001 time=1301 addr=0x2001000 size=8192 site=0x401070 fn=1
round
sample attr=2 pid=14001 tid=14001 cpu=0 time=1250 addr=0x2001300 ip=0x401100 src=st_l1hit
sample attr=2 pid=14001 tid=14001 cpu=0 time=1300 addr=0x2001100 ip=$ip src=st_l1hit
sample attr=2 pid=14001 tid=14011 cpu=1 time=1300 addr=0x2001200 ip=$ip src=st_l1hit
round
SCN
	mkperf cr.scn cr.data
	"$C2CSCAN" report --json -d all --show-all -i cr.data >cr.json 2>err || fail "report cr: $(cat err)"
	expect_eq "the object being created" "$(json_get cr.json 'sorted((o["tids"][0], o["heap"]["site_address"], o["heap"]["freed"]) for l in j["cachelines"] for o in l["offsets"] if o["heap"])')" \
		"[(14001, '0x401050', True), (14001, '0x401070', False), (14011, '0x401050', True)]"
fi

# a section over 64 MiB (a long run: a g++ compile wrote 97 MB) is read, not
# silently dropped with every heap name
[ -x "$TOP/$B/tools/genbig" ] || skip "genbig not built"
"$TOP/$B/tools/genbig" bigalloc.data 1000 100 1700000 || fail "genbig"
[ "$(stat -c %s bigalloc.data)" -gt 67108864 ] || fail "the section is not over 64 MiB: $(stat -c %s bigalloc.data)"
"$C2CSCAN" report --json -i bigalloc.data >big.json 2>err || fail "report bigalloc: $(cat err)"
expect_eq "a 64 MiB section" "$(json_get big.json '(j["allocations"]["dropped"], j["allocations"]["objects"])')" \
	"(None, 26563)"
rm -f bigalloc.data
done_test
