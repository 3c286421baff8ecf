#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --emulate gives the same answer on an idle machine and beside two
# CPU hogs (tests/progs/slots.c: four threads, more than the CPUs here, on
# per-thread elements of heap and global arrays): the same lines with
# findings, the same verdicts, and each line's contention within 25%. The
# default model's lockstep windows make it so; the exact model's counts
# follow the interleaving (a ping-pong 9,128 HITM idle, 16,593 loaded).
# A mutex six threads hammer (tests/progs/locks.c) keeps its top lines,
# verdicts and contention within 25% too, the counter it guards included:
# a thread waiting to take a lock goes on, in the default model, taking
# the lock's line and the lines it just wrote (on a core of its own it
# would); before, which thread blocked when was the machine's and the
# counts followed it (the mutex's line 352-398 idle, 172-182 loaded; the
# counter's 246 and 105). A producer and a consumer sharing a line
# (tests/progs/sharedjob.c), the consumer started just after the producer:
# the lockstep waits at the creator's window for the new thread, so the
# producer's fast loop does not run alone while libtsan starts it (1-24
# contended loads idle and 5-78 loaded without that; 74-78 with it).
# run-tests: alone (it loads the machine itself)
# run-tests: full (two CPU hogs and four recordings; units.sh and emulate-locks.sh check the same model)
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
P=$TOP/$B/progs
[ -x "$P/slots-tsan" ] && [ -x "$P/locks-tsan" ] && [ -x "$P/sharedjob-tsan" ] || skip "no -fsanitize=thread builds"
export SHAREDJOB_STEPS=300000
tsan_runs || skip "a -fsanitize=thread program does not run here"

# lines NAME: each top line with a finding (a quarter of the hottest's
# contention or more: a start barrier's few dozen, 18-95 beside a mutex's
# 450, are noise) as "name verdict contention", by name
lines() {
	json_get "$1.json" '"\n".join(sorted("%s|%s|%d" % (__import__("re").sub(r"\[\d+\]", "[i]", ",".join(sorted(set((o["data_member"] or (o["heap"] or {}).get("site") or "?") for o in l["offsets"])))), l["verdict"], l["contention"]) for l in j["cachelines"] if l["verdict"] in ("false sharing", "true sharing", "mixed") and l["contention"] * 4 >= max(m["contention"] for m in j["cachelines"])))'
}

# run NAME ARGS...: record and report
run() {
	name=$1
	shift
	"$C2CSCAN" record -q --emulate --alloc -o "$name.data" -- "$@" >/dev/null 2>"$name.err" ||
		fail "record $name: $(cat "$name.err")"
	grep -v "^c2cscan record: --emulate: \(the heap is\|[0-9]* time(s) a thread blocked\)" "$name.err" >"$name.said"
	[ -s "$name.said" ] && fail "record $name says: $(cat "$name.said")"
	"$C2CSCAN" report --json -i "$name.data" >"$name.json" 2>err || fail "report $name: $(cat err)"
	lines "$name" >"$name.lines"
}

# compare A B: the same names and verdicts, contention within 25%
compare() {
	python3 - "$1.lines" "$2.lines" <<'PY' || fail "$1 and $2 differ: $(paste -d '\n' "$1.lines" "$2.lines")"
import sys
a, b = ([l.rsplit("|", 2) for l in open(f).read().split("\n") if l] for f in sys.argv[1:3])
ok = len(a) == len(b) and len(a) > 0
for (na, va, ca), (nb, vb, cb) in zip(a, b):
    ok = ok and na == nb and va == vb and abs(int(ca) - int(cb)) <= 0.25 * max(int(ca), int(cb))
sys.exit(0 if ok else 1)
PY
}

run slots-idle "$P/slots-tsan"
run locks-idle "$P/locks-tsan" mutex 100000
run job-idle "$P/sharedjob-tsan"
# two CPU hogs, as long as the recordings take
hog() { timeout 60 sh -c 'while :; do :; done' & }
hog
h1=$!
hog
h2=$!
run slots-busy "$P/slots-tsan"
run locks-busy "$P/locks-tsan" mutex 100000
run job-busy "$P/sharedjob-tsan"
kill $h1 $h2 2>/dev/null
wait 2>/dev/null
compare slots-idle slots-busy
compare locks-idle locks-busy
compare job-idle job-busy
grep -q "produced.*|false sharing|" job-idle.lines || fail "sharedjob: no false sharing: $(cat job-idle.lines)"
grep -q "false sharing" slots-idle.lines || fail "slots: no false sharing: $(cat slots-idle.lines)"
for l in locks-idle locks-busy; do
	expect_eq "$l: the top line" "$(json_get $l.json '(j["cachelines"][0]["offsets"][0]["data_member"], j["cachelines"][0]["verdict"])')" \
		"('locks.mutex', 'true sharing')"
done
# the exact model (--emulate=exact: every change of owner; alone, as its
# store HITMs need counters.c's two threads to run at once): the counters'
# stores take the line from the other thread's modified copy: store HITMs,
# in their rows and in the line's rank; a column of their own (the default
# model's window starts with the counter's load: a HITM)
"$C2CSCAN" record -q --emulate=exact,hitm=1 -o x.data -- "$TOP/$B/progs/counters-tsan" >/dev/null 2>err || fail "record exact: $(cat err)"
"$C2CSCAN" report --json -i x.data >x.json 2>err || fail "report exact: $(cat err)"
expect_eq "store HITMs of the counters" "$(json_get x.json 'sorted(set((o["data_member"], o["stores"] > 0 and o["st_hitm"] > 0) for l in j["cachelines"] if l["verdict"] == "false sharing" for o in l["offsets"] if o["stores"] and o["data_member"] != "start"))')" \
	"[('counters.consumed', True), ('counters.produced', True)]"
"$C2CSCAN" report --stdio -i x.data >e.stdio 2>err || fail "stdio: $(cat err)"
grep -q "^Index Address .* RmtHitm  StHitm " e.stdio || fail "no StHitm column: $(grep '^Index' e.stdio)"
grep -q "^  Store HITM  *: *[1-9]" e.stdio || fail "no Store HITM count: $(grep 'Store' e.stdio)"
done_test
