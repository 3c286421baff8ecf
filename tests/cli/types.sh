#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Data types on a real -O2 program recorded with page faults
# (tests/progs/types.c: each access is the first touch of a fresh page):
# members through a pointer parameter and a const pointer, an element of an
# mmap'd array by an index (its element from the mapping's start), an array of
# structs walked by a loop and indexed by a register (the element exact
# with --alloc, "[?]" without), globals in .data and .bss, a local struct on
# a thread's stack, a thread-local struct. JSON type / data_member /
# type_source per row, the stdio Data column, the browser's offsets view;
# typecov's count on the same binary.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
bin=$TOP/$B/progs/types
[ -x "$bin" ] || skip "types not built"
if ! "$C2CSCAN" record -q --alloc -e page-faults -c 1 -o a.data -- "$bin" >/dev/null 2>err; then
	grep -q "cannot open page-faults" err && skip "perf_event_open not available here"
	fail "record --alloc: $(cat err)"
	done_test
fi
"$C2CSCAN" record -q -e page-faults -c 1 -o p.data -- "$bin" >/dev/null 2>err || fail "record: $(cat err)"
"$C2CSCAN" report --json -d all --show-all -i a.data >a.json 2>err || fail "report --alloc: $(cat err)"
"$C2CSCAN" report --json -d all --show-all -i p.data >p.json 2>err || fail "report: $(cat err)"

# rows of the program's functions: "function|type|member|source", sorted
rows() {
	python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
want = {"conn_add", "conn_hits", "conn_bump", "items_bump", "items_pick", "globals_touch", "tls_touch", "on_stack"}
out = set()
for l in j["cachelines"]:
    for o in l["offsets"]:
        if o["symbol"] in want and o["instruction"] and o["instruction"]["kind"]:
            out.add("%s|%s|%s|%s" % (o["symbol"], o["type"], o["data_member"], o["type_source"]))
print("\n".join(sorted(out)))
PY
}
rows a.json >a.rows
rows p.json >p.rows
cat >a.want <<'W'
conn_add|struct conn|[1].st.bytes|heap
conn_bump|struct conn|[3].st.hits|heap
conn_hits|struct conn|[2].st.hits|heap
globals_touch|struct gstats|gbss.calls|variable
globals_touch|struct gstats|gdata.errors|variable
items_bump|struct item|[1].hits|heap
items_bump|struct item|[3].hits|heap
items_bump|struct item|[5].hits|heap
items_bump|struct item|[7].hits|heap
items_pick|struct item|[12].key|heap
items_pick|struct item|[5].key|heap
items_pick|struct item|[9].key|heap
on_stack|struct frame_stats|fs.counts[1024]|variable
tls_touch|struct tls_stats|tstats.writes|variable
W
cat >p.want <<'W'
conn_add|struct conn|st.bytes|variable
conn_bump|struct conn|[?].st.hits|variable
conn_hits|struct conn|st.hits|variable
globals_touch|struct gstats|gbss.calls|variable
globals_touch|struct gstats|gdata.errors|variable
items_bump|struct item|[?].hits|tracked
items_pick|struct item|[?].key|variable
on_stack|struct frame_stats|fs.counts[1024]|variable
tls_touch|struct tls_stats|tstats.writes|variable
W
cmp -s a.rows a.want || fail "rows with --alloc:
$(diff a.want a.rows)"
cmp -s p.rows p.want || fail "rows without --alloc:
$(diff p.want p.rows)"

# stdio's Data column: the type and member, the variable first for stack and TLS
"$C2CSCAN" report --stdio -d all --show-all --lines 0 -i a.data >a.stdio 2>err || fail "stdio: $(cat err)"
for want in "struct conn\[1\].st.bytes .* conn_add" "struct conn\[2\].st.hits .* conn_hits" \
	"struct item\[5\].hits .* items_bump" "struct item\[12\].key .* items_pick" \
	"fs.counts\[1024\] .* on_stack" "tstats.writes .* tls_touch" "gbss.calls .* globals_touch"; do
	grep -q "^      [0-9a-fx]* *$want" a.stdio || fail "stdio: no '$want'"
done
# printed whole: no name, path or list cut with an ellipsis
grep -n '[^.]\.\.\.\($\| \)' a.stdio && fail "stdio cuts text with an ellipsis"

# the browser: search the line conn_add touches, open it
printf '/ text:conn_add enter enter dump:line.txt\n' >keys
env COLUMNS=120 LINES=24 LC_ALL=C C2CSCAN_KEYS=keys "$C2CSCAN" report --tui -d all -i a.data >/dev/null 2>err ||
	fail "browser: $(cat err)"
grep -q "struct conn\[1\].st.bytes" line.txt || fail "browser: $(cat line.txt)"
# the size says what it is the size of (it read "(8 bytes)", and "char[8] (1 bytes)" for an element)
grep -q "struct conn\[1\].st.bytes (8-byte member)" line.txt || fail "browser: the member's size: $(grep offset line.txt)"

# typecov types the program's own accesses (its crt code has no DWARF)
"$TOP/$B/tools/typecov" "$bin" >cov.txt 2>err || fail "typecov: $(cat err)"
grep -q "^$bin: [0-9]* memory-access instructions, [0-9]* typed" cov.txt || fail "typecov: $(cat cov.txt)"
"$TOP/$B/tools/typecov" -v "$bin" | grep -q "struct conn *st.bytes *(variable)" || fail "typecov -v"
"$TOP/$B/tools/typecov" /nonexistent 2>err
[ $? = 1 ] && grep -q "typecov: /nonexistent: " err || fail "typecov on a missing file: $(cat err)"

# a struct that is a whole mapping, indexed by CPU (c->per_cpu[cpu].misses):
# each element named from the mapping's start, with --alloc and without
for alloc in --alloc ""; do
	"$C2CSCAN" record -q $alloc -e page-faults -c 1 -o m.data -- "$TOP/$B/progs/mapped" >/dev/null 2>err ||
		{ fail "record mapped $alloc: $(cat err)"; continue; }
	"$C2CSCAN" report --json -d all --show-all -i m.data >m.json 2>err || fail "report mapped: $(cat err)"
	expect_eq "mapped $alloc" "$(json_get m.json 'sorted(set(o["data_member"] for l in j["cachelines"] for o in l["offsets"] if o["symbol"] == "cache_miss"), key=lambda m: (len(m), m))')" \
		"['per_cpu[0].misses', 'per_cpu[1].misses', 'per_cpu[2].misses', 'per_cpu[3].misses', 'per_cpu[4].misses', 'per_cpu[5].misses', 'per_cpu[6].misses', 'per_cpu[7].misses', 'per_cpu[8].misses', 'per_cpu[9].misses', 'per_cpu[10].misses', 'per_cpu[11].misses', 'per_cpu[12].misses', 'per_cpu[13].misses', 'per_cpu[14].misses', 'per_cpu[15].misses']"
done
done_test
