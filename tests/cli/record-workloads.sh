#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The workloads of scripts/workloads recorded with page-fault sampling
# (every round drops its pages, so each round's first touches fault again)
# and checked in the report (-d all): false sharing puts both threads' counters
# in one line and the padded twin in two; the lock word is one line touched by
# two threads; three processes writing their own copy-on-write .data page are
# three private lines (perf c2c merges them), the shared twin one shared line;
# one /dev/shm segment mapped at two addresses is one shared line, the private
# twin two private lines. perf script reads every recording without a warning.
# run-tests: full (the workloads recorded with page faults: four CPU seconds)
. "$TOP/tests/cli/lib.inc"
W=$TOP/$B/workloads
[ -x "$W/false-sharing" ] || skip "workloads not built"
cd "$T" || exit 1
"$C2CSCAN" report --help >/dev/null 2>&1 || skip "report not built"

# rec NAME ARGS...: record, report as JSON into NAME.json, program output NAME.out
rec() {
	name=$1; shift
	if ! "$C2CSCAN" record -q -e page-faults -o "$name.data" -- "$@" >"$name.out" 2>"$name.err"; then
		grep -q "cannot open" "$name.err" && skip "perf_event_open not available here: $(cat "$name.err")"
		fail "record $name: $(cat "$name.err")"
		return 1
	fi
	"$C2CSCAN" report --json -d all --show-all -i "$name.data" >"$name.json" 2>"$name.rerr" ||
		{ fail "report $name: $(cat "$name.rerr")"; return 1; }
	if command -v perf >/dev/null 2>&1; then
		perf script -i "$name.data" >/dev/null 2>"$name.perr" || fail "perf script $name: $(cat "$name.perr")"
		[ -s "$name.perr" ] && fail "perf script warns on $name: $(head -n 3 "$name.perr")"
	fi
	return 0
}

# lines NAME: "kind npids ntids" of each cacheline holding an address the program printed
lines() {
	python3 - "$1.out" "$1.json" <<'PY'
import json, re, sys
addrs = {int(a, 16) & ~63 for a in re.findall(r"addr (0x[0-9a-f]+)", open(sys.argv[1]).read())}
j = json.load(open(sys.argv[2]))
out = sorted("%s %d %d" % (c["key"]["kind"], len(c["pids"]), len(c["tids"]))
             for c in j["cachelines"] if int(c["address"], 16) in addrs)
print(";".join(out))
PY
}

rec fs "$W/false-sharing" 5 && expect_eq "false sharing: one line, two threads" "$(lines fs)" "private 1 2"
rec fsp "$W/false-sharing" padded 5 && expect_eq "padded: two lines, one thread each" "$(lines fsp)" "private 1 1;private 1 1"
rec ts "$W/true-sharing" 5 && expect_eq "lock word: one line, two threads" "$(lines ts)" "private 1 2"
rec tsf "$W/true-sharing" fixed 5 && expect_eq "per-thread slots: two lines" "$(lines tsf)" "private 1 1;private 1 1"
rec cow "$W/cow" 5 && expect_eq "COW .data: three private lines" "$(lines cow)" "private 1 1;private 1 1;private 1 1"
rec cows "$W/cow" shared 5 && expect_eq "shared anon: one shared line, three processes" "$(lines cows)" "shared 3 3"
rec shm "$W/shm" 5 && expect_eq "shm at two addresses: one shared line" "$(lines shm)" "shared 2 2"
rec shmp "$W/shm" private 5 && expect_eq "private twin: two private lines" "$(lines shmp)" "private 1 1;private 1 1"
done_test
