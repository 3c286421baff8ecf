#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# c2cscan record with a software event (no memory PMU needed): records
# tests/progs/memtouch (3 processes, every keying kind); perf script reads
# the file without a warning; the report finds the private COW lines, the
# shared file and shared anonymous lines merged across processes. Error
# paths: no memory PMU without -e, a command that does not exist, an
# unwritable output, a bad option.
. "$TOP/tests/cli/lib.inc"
prog=$TOP/$B/progs/memtouch
[ -x "$prog" ] || skip "memtouch not built"
cd "$T" || exit 1
if ! "$C2CSCAN" record -q -e page-faults -o rec.data -- "$prog" "$T/shared-file" >progout 2>err; then
	# containers may forbid perf_event_open outright: nothing to test then
	grep -q "cannot open page-faults" err && skip "perf_event_open not available here: $(cat err)"
	fail "record: $(cat err)"
	done_test
fi
"$C2CSCAN" report --json -d all --show-all -i rec.data >r.json 2>err || fail "report: $(cat err)"
python3 "$TOP/tests/cli/memtouch-check.py" progout r.json "$T/shared-file" || fail "keying of the recording"
if command -v perf >/dev/null 2>&1; then
	perf script -i rec.data >script.out 2>script.err || fail "perf script: $(cat script.err)"
	[ -s script.err ] && fail "perf script warns: $(head -n 3 script.err)"
	[ "$(grep -c page-faults script.out)" -gt 10 ] || fail "perf script shows no samples"
fi
# a previous recording is kept as .old
"$C2CSCAN" record -q -e page-faults -o rec.data -- true 2>err || fail "second record: $(cat err)"
[ -s rec.data.old ] || fail "rec.data.old not kept"
# --duration and SIGINT end the recording cleanly with a readable file
start=$(date +%s)
"$C2CSCAN" record -q -e page-faults --duration 1 -o dur.data -- sleep 30 2>err || fail "--duration: exit $?: $(cat err)"
[ $(($(date +%s) - start)) -lt 10 ] || fail "--duration 1 did not stop the recording"
"$C2CSCAN" report --stdio -i dur.data >/dev/null 2>err || fail "--duration file unreadable: $(cat err)"
"$C2CSCAN" record -q -e page-faults -o int.data -- sleep 30 2>err &
rp=$!
sleep 1
kill -INT $rp
wait $rp || fail "SIGINT: exit $?"
"$C2CSCAN" report --stdio -i int.data >/dev/null 2>err || fail "SIGINT file unreadable: $(cat err)"
# error paths
if ! ls /sys/bus/event_source/devices/cpu*/events/mem-loads /sys/bus/event_source/devices/ibs_op >/dev/null 2>&1; then
	"$C2CSCAN" record -o x.data -- true 2>err; rc=$?
	expect_eq "record without a memory PMU" "$rc" 1
	grep -q "cannot sample memory accesses" err || fail "no diagnosis: $(cat err)"
fi
"$C2CSCAN" record -q -e page-faults -o y.data -- /nonexistent/cmd 2>err; rc=$?
expect_eq "command not found" "$rc" 1
grep -q "cannot run '/nonexistent/cmd'" err || fail "command not found message: $(cat err)"
[ -e y.data ] && fail "output left behind for a command that never ran"
"$C2CSCAN" record -q -e page-faults -o /nonexistent/dir/z.data -- true 2>err; rc=$?
expect_eq "unwritable output" "$rc" 1
grep -q "/nonexistent/dir/z.data" err || fail "unwritable output message: $(cat err)"
"$C2CSCAN" record --bogus -- true 2>err; rc=$?
expect_eq "bad option" "$rc" 129
done_test
