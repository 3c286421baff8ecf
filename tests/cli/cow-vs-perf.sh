#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The classic false positive (tests/fixtures/scenarios/cow-3proc.scn): three
# processes each write their own copy-on-write page of one library's .data at
# the same virtual address. c2cscan must show three private lines, one per
# process, never one merged line. Where perf is installed, the test also
# runs perf c2c report on the same file and states what it shows (one line
# with all three pids: the mistake c2cscan exists to fix).
. "$TOP/tests/cli/lib.inc"
mkperf "$TOP/tests/fixtures/scenarios/cow-3proc.scn" "$T/cow.data" || done_test
"$C2CSCAN" report --json -i "$T/cow.data" >"$T/r.json" 2>"$T/err" || { fail "report: $(cat "$T/err")"; done_test; }
python3 - "$T/r.json" <<'PY' || fail "c2cscan keying of COW pages"
import json, sys
j = json.load(open(sys.argv[1]))
cl = j["cachelines"]
ok = len(cl) == 3
ok &= all(c["key"]["kind"] == "private" for c in cl)
ok &= sorted(c["key"]["pid"] for c in cl) == [1001, 1002, 1003]
ok &= all(len(c["pids"]) == 1 and c["lcl_hitm"] == 6 and c["stores"] == 3 for c in cl)
ok &= all(c["address"] == "0x7f0000203040" and c["object"] == "/usr/lib/libx.so" for c in cl)
for c in cl:
    print("c2cscan: line %s %s pids %s lcl_hitm %d" % (c["address"], c["key"], c["pids"], c["lcl_hitm"]))
sys.exit(0 if ok else 1)
PY
"$C2CSCAN" report --stdio -i "$T/cow.data" >"$T/r.txt" 2>&1
expect_eq "stdio: lines in the table" "$(grep -c 'private pid 100[123]' "$T/r.txt" | tr -d ' ')" 6
if command -v perf >/dev/null 2>&1 && perf c2c report --stdio --no-source -f -i "$T/cow.data" >"$T/perf.txt" 2>"$T/perf.err"; then
	# rows of perf's "Shared Data Cache Line Table": index then address
	perf_lines=$(sed -n '/Shared Data Cache Line Table/,/Shared Cache Line Distribution/p' "$T/perf.txt" |
		grep -cE '^ +[0-9]+ +0x[0-9a-f]+ ')
	echo "perf c2c report on the same file: $perf_lines line(s) (c2cscan: 3)"
	expect_eq "perf c2c merges the three COW pages into" "$perf_lines" 1
else
	echo "perf c2c report not available: comparison not made"
fi
done_test
