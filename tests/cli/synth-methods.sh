#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Map synthesis end to end: a process started before the recording (-p) is
# described by the same COMM/MMAP2 records whether its maps are read with the
# PROCMAP_QUERY ioctl or from /proc/PID/maps text; -v says which method ran;
# and the keying of samples in mappings made before the recording relies on
# them (false-sharing's counter page).
. "$TOP/tests/cli/lib.inc"
W=$TOP/$B/workloads
[ -x "$W/false-sharing" ] || skip "workloads not built"
command -v perf >/dev/null 2>&1 || skip "perf not installed"
cd "$T" || exit 1
sleep 60 &
sp=$!
trap 'kill $sp 2>/dev/null; rm -rf "$T"' EXIT
sleep 0.5       # past its start-up: the maps stay as they are
for m in query text; do
	if ! "$C2CSCAN" record -v -e page-faults -p $sp --synth-method=$m --duration 0.2 -o $m.data 2>$m.err; then
		grep -q "cannot open" $m.err && skip "perf_event_open not available here: $(cat $m.err)"
		fail "record --synth-method=$m: $(cat $m.err)"
		continue
	fi
	perf script -i $m.data --show-mmap-events --show-task-events 2>$m.perr |
		grep -E "PERF_RECORD_(MMAP2|COMM)" >$m.maps
	[ -s $m.perr ] && fail "perf script warns: $(head -n 3 $m.perr)"
done
grep -q "with PROCMAP_QUERY" query.err || grep -q "Inappropriate ioctl" query.err ||
	fail "-v does not name the method: $(cat query.err)"
grep -q "with /proc/PID/maps text" text.err || fail "-v does not name the text method: $(cat text.err)"
[ "$(grep -c MMAP2 text.maps)" -gt 3 ] || fail "too few MMAP2 records: $(cat text.maps)"
grep -q "/usr/bin/sleep\|/bin/sleep" text.maps || fail "no mapping of sleep: $(head -n 5 text.maps)"
if [ -s query.maps ]; then
	cmp -s query.maps text.maps || fail "PROCMAP_QUERY and text differ: $(diff query.maps text.maps | head -n 6)"
fi
kill $sp

# samples in a mapping made before the recording started, keyed through synthesized MMAP2s
"$C2CSCAN" report --help >/dev/null 2>&1 || done_test
"$W/false-sharing" 100000 >fs.out &
fp=$!
sleep 0.3
"$C2CSCAN" record -q -e page-faults -p $fp --duration 0.5 -o fs.data 2>fs.err || fail "record -p: $(cat fs.err)"
kill $fp
wait $fp 2>/dev/null
"$C2CSCAN" report --json -d all --show-all -i fs.data >fs.json 2>fs.rerr || fail "report: $(cat fs.rerr)"
got=$(python3 - fs.out fs.json <<'PY'
import json, re, sys
addrs = {int(a, 16) & ~63 for a in re.findall(r"addr (0x[0-9a-f]+)", open(sys.argv[1]).read())}
j = json.load(open(sys.argv[2]))
print(";".join(sorted("%s %s %d" % (c["key"]["kind"], c["object"], len(c["tids"]))
                      for c in j["cachelines"] if int(c["address"], 16) in addrs)))
PY
)
expect_eq "-p: the counter line of a running process" "$got" "private //anon 2"
done_test
