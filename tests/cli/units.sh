#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A verdict's units on real programs recorded with --emulate --alloc
# (tests/progs/slots.c, reuse.c; GCC TSan builds): per-thread elements of
# one allocation (structs of 24 and 40 bytes, int counters of 4) and of a
# global array are false sharing named by element, with advice for an array; the fixed build
# (elements a line apart, allocated aligned) and objects that reuse one
# address across thread generations (a read after each join) are no
# finding, and --fail-on stays silent on them.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
P=$TOP/$B/progs
[ -x "$P/slots-tsan" ] || skip "no -fsanitize=thread builds (libtsan missing?)"
tsan_runs || skip "a -fsanitize=thread program does not run here"
KINDS=false-sharing,true-sharing,mixed
export SLOTS_STEPS=750000

# emu NAME [ARGS]: record NAME's TSan build with ARGS, its report in NAME.json
# (slots.c: half its default steps, SLOTS_STEPS; at a fifth the start
# barrier's few HITM in the fix would pass a contention rate of 1 per million)
emu() {
	name=$1
	shift
	"$C2CSCAN" record -q --emulate=hitm=1 --alloc -o "$name.data" -- "$P/$name-tsan" "$@" >"$name.out" 2>"$name.err" ||
		fail "record $name: $(cat "$name.err")"
	"$C2CSCAN" report --json -i "$name.data" >"$name.json" 2>err || fail "report $name: $(cat err)"
}

for p in slots slots40; do
	emu $p
	# every contended line of the arrays: false sharing, rows named by element
	# (a line of the last slot alone: main's read after the join, a handover)
	expect_eq "$p: verdicts" "$(json_get $p.json 'sorted(set(l["verdict"] for l in j["cachelines"] if any(o["type"] in ("struct slot", "struct counter") for o in l["offsets"])) - {"negligible contention"})')" "['false sharing']"
	expect_eq "$p: element names" "$(json_get $p.json 'sorted(set(__import__("re").sub(r"\[\d+\]", "[i]", (o["type"] or "") + (o["data_member"] or "")) for l in j["cachelines"] for o in l["offsets"] if o["type"] in ("struct slot", "struct counter")))')" \
		"['struct counter[i].n', 'struct slot[i].hits', 'struct slot[i].misses']"
	expect_eq "$p: two elements named" "$(json_get $p.json 'len(set(o["data_member"] for l in j["cachelines"] for o in l["offsets"] if o["type"] == "struct slot")) >= 4')" "True"
	json_get $p.json '[l["advice"] for l in j["cachelines"] if l["verdict"] == "false sharing"]' >advice
	grep -q "struct slot\[[0-9]\]\.[a-z]* (written by tid [0-9]*) and struct slot\[[0-9]\]\.[a-z]* (tid [0-9]*) are elements of one array (the [0-9]* B object from slots.c:[0-9]*) and share a line: pad struct slot to 64 bytes (alignas(64) on the type), and allocate the array 64-byte aligned" advice ||
		fail "$p: advice on the slots: $(cat advice)"
	grep -q "struct counter\[[0-9]\]\.n (written by tid [0-9]*) and struct counter\[[0-9]\]\.n (tid [0-9]*) are elements of one array" advice ||
		fail "$p: advice on the counters: $(cat advice)"
	grep -q "gslots\[[0-9]\]\.hits (written by tid [0-9]*) and gslots\[[0-9]\]\.hits (tid [0-9]*) are elements of one array and share a line: pad each element of gslots to 64 bytes (alignas(64) on its type)" advice ||
		fail "$p: advice on the global array: $(cat advice)"
	grep -q "give each thread its own copy" advice && fail "$p: true-sharing advice: $(cat advice)"
	"$C2CSCAN" report --fail-on false-sharing -i $p.data >/dev/null 2>fail.err
	expect_eq "$p: --fail-on false-sharing" "$?" 1
	grep -q "^c2cscan report: --fail-on: line 0 0x[0-9a-f]* .*: false sharing" fail.err || fail "$p: --fail-on says: $(cat fail.err)"
done

# the fix and the reused address: nothing to report, nothing fails
for p in slots-fixed reuse; do
	emu $p
	expect_eq "$p: findings" "$(json_get $p.json '[(l["verdict"], l["verdict_why"]) for l in j["cachelines"] if l["verdict"] in ("false sharing", "true sharing", "mixed")]')" "[]"
	expect_eq "$p: no 'no sharing' with contention" "$(json_get $p.json '[l["verdict_why"] for l in j["cachelines"] if l["verdict"] == "no sharing" and l["tot_hitm"] + l["st_hitm"]]')" "[]"
	"$C2CSCAN" report --fail-on $KINDS -i $p.data >/dev/null 2>fail.err
	expect_eq "$p: --fail-on $KINDS" "$?" 0
done
expect_eq "reuse: a handover" "$(json_get reuse.json 'sorted(set(l["verdict"] for l in j["cachelines"]))')" "['negligible contention']"

# std::atomic members of a ring on main's stack (spscq.cc): the rows of
# the atomics' hooks are named by member, the atomic a leaf (not ._M_i)
"$C2CSCAN" record -q --emulate -o spscq.data -- "$P/spscq-tsan" 20000 >spscq.out 2>spscq.err ||
	fail "record spscq: $(cat spscq.err)"
expect_eq "spscq: the program's output" "$(cat spscq.out)" "spscq 200010000"
"$C2CSCAN" report --json -i spscq.data >spscq.json 2>err || fail "report spscq: $(cat err)"
expect_eq "spscq: the atomics' rows" "$(json_get spscq.json 'sorted(set((o["type"] or "") + "." + (o["data_member"] or "") for l in j["cachelines"] for o in l["offsets"] if (o["type"] or "").startswith("struct ring") and not (o["data_member"] or "").startswith("slot")))')" \
	"['struct ring.head', 'struct ring.tail']"
# loads and stores estimate accesses: a sample of an uncontended access
# stands for 4001 (the notice's rate), a contended one for itself
expect_eq "spscq: loads are accesses" "$(json_get spscq.json '[(o["samples"], o["loads"]) for l in j["cachelines"] for o in l["offsets"] if not o["stores"] and o["loads"] != (o["samples"] - o["tot_hitm"]) * 4001 + o["tot_hitm"]]')" "[]"
# and so do the all mode's Access and Share: a line's accesses are its loads and stores
"$C2CSCAN" report --stdio -d all -i spscq.data >all.txt 2>/dev/null || fail "spscq: report -d all"
python3 - all.txt >acc <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
h = next(l for l in lines if l.startswith("Index "))
row = next(l for l in lines[lines.index(h) + 1:] if l.startswith("    0 "))
# right-aligned counts end where their header ends
v = {n: int(row[:h.index(" " + n + " ") + len(n) + 1].split()[-1]) for n in ("Access", "Loads", "Stores")}
print("same" if v["Access"] == v["Loads"] + v["Stores"] else v)
PY
expect_eq "spscq: Access = Loads + Stores in -d all" "$(cat acc)" "same"
json_get spscq.json 'j["notice"]' | grep -q "one other in 4001: Loads and Stores count the accesses the samples stand for" ||
	fail "spscq: the notice: $(json_get spscq.json 'j["notice"]')"
expect_eq "spscq: no unnamed row" "$(json_get spscq.json '[o["offset"] for o in j["cachelines"][0]["offsets"] if not o["type"]]')" "[]"

# diff of the bug and its fix: the arrays' lines gone, said as the success it is
"$C2CSCAN" diff slots.data slots-fixed.data >d.txt 2>err || fail "diff: $(cat err)"
grep -q "^# \(all\|the\) [0-9]* lines\{0,1\} with sharing before \(are\|is\) gone: none after (tot [0-9.]* -> [0-9.]* per million accesses)$" d.txt ||
	fail "diff: not all gone: $(cat d.txt)"
grep -q "warning" d.txt && fail "diff warns: $(cat d.txt)"
"$C2CSCAN" diff --json slots.data slots-fixed.data >d.json 2>err || fail "diff --json: $(cat err)"
expect_eq "diff: the arrays' line" "$(json_get d.json '[(e["status"], e["verdict_before"], e["verdict_after"] in (None, "negligible contention", "no sharing"), e["change"] < -90) for e in j["lines"] if e["name"] == "alloc_array (heap)"]')" \
	"[('verdict changed', 'false sharing', True, True)]"
expect_eq "diff: all gone, totals" "$(json_get d.json '(j["all_gone"], j["totals"]["rate_before"] > 10 * j["totals"]["rate_after"])')" "(True, True)"
done_test
