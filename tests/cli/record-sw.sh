#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# c2cscan record with a software event (no memory PMU needed): records
# tests/progs/memtouch (3 processes, every keying kind); perf script reads
# the file without a warning; the report finds the private COW lines, the
# shared file and shared anonymous lines merged across processes. Error
# paths: no memory PMU without -e, a command that does not exist, an
# unwritable output, a bad option, a PID or TID that does not exist, an
# unknown event, Arm SPE on a machine without it, a full disk (the file
# stays readable).
# Existing targets: -p, -t, -a (with perf report/script reading the result
# without a warning: synthesized kernel map, COMM and MMAP2), -C.
# run-tests: full (attaches and durations that wait for the clock)
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
# a software-event file shows what it can: accesses, no cache sections, no
# all-zero HITM/load/store columns, no "shared" for single-thread lines
"$C2CSCAN" report --stdio -d all -i rec.data >sw.out 2>err || fail "report sw: $(cat err)"
grep -q '^=== Access Information (software events: no cache levels, no HITM) ===' sw.out ||
	fail "no Access Information section"
grep -q 'Trace Event Information\|Shared Cache Line\|TotHitm\|StL1Miss\|loads 0, stores 0' sw.out &&
	fail "cache sections or HITM columns in a software-event report: $(grep -m 3 'Trace Event\|Shared Cache\|TotHitm\|loads 0' sw.out)"
grep -q '^Index Address  *Key  *Share  Access Pids Tids Cpus Nodes Object' sw.out ||
	fail "line table header: $(grep '^Index' sw.out)"
# --duration and SIGINT end the recording cleanly with a readable file
start=$(date +%s)
"$C2CSCAN" record -q -e page-faults --duration 0.3 -o dur.data -- sleep 30 2>err || fail "--duration: exit $?: $(cat err)"
[ $(($(date +%s) - start)) -lt 10 ] || fail "--duration 0.3 did not stop the recording"
"$C2CSCAN" report --stdio -i dur.data >/dev/null 2>err || fail "--duration file unreadable: $(cat err)"
# started_under PID: wait (10 s at most) until record runs its command, so
# that its signal handlers are in place (a background job of sh starts with
# SIGINT ignored, and a slow start, under ASan, took the signal before)
started_under() {
	i=0
	# (the command is forked early and execs once record is ready)
	while [ $i -lt 100 ] && [ "$(ps -o comm= --ppid "$1" | tr -d ' ')" != sleep ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
"$C2CSCAN" record -q -e page-faults -o int.data -- sleep 30 2>int.err &
rp=$!
started_under $rp
kill -INT $rp
wait $rp
expect_eq "SIGINT: exit" "$?" 130
grep -q "^c2cscan record: interrupted by Interrupt: the recording holds what came before; the command was stopped (SIGTERM)$" int.err ||
	fail "SIGINT is not said: $(cat int.err)"
"$C2CSCAN" report --stdio -i int.data >/dev/null 2>err || fail "SIGINT file unreadable: $(cat err)"
# SIGKILL: record cannot stop the command then; it goes with record
"$C2CSCAN" record -q -e page-faults -o kill.data -- sleep 30 2>/dev/null &
rp=$!
started_under $rp
child=$(ps -o pid= --ppid $rp | tr -d ' ')
kill -KILL $rp
wait $rp 2>/dev/null
sleep 0.3
[ -n "$child" ] || fail "SIGKILL: no command under record"
# (a zombie is dead: this machine's init may be slow to reap it)
[ -n "$child" ] && ps -o stat= -p "$child" | grep -qv '^Z' && { fail "the command outlived a killed record"; kill "$child"; }
# error paths
if ! ls /sys/bus/event_source/devices/cpu*/events/mem-loads /sys/bus/event_source/devices/ibs_op >/dev/null 2>&1; then
	"$C2CSCAN" record -o x.data -- true 2>err; rc=$?
	expect_eq "record without a memory PMU" "$rc" 1
	grep -q "cannot sample memory accesses" err || fail "no diagnosis: $(cat err)"
	grep -q "^memory PMU *: none" err || fail "diagnosis lacks the check lines: $(cat err)"
	grep -q "^perf_event_paranoid *: " err || fail "diagnosis lacks perf_event_paranoid: $(cat err)"
	"$C2CSCAN" record -e mem-loads -o x.data -- true 2>err; rc=$?
	expect_eq "-e mem-loads without a memory PMU" "$rc" 1
	grep -q "cannot sample memory accesses" err || fail "-e mem-loads: no diagnosis: $(cat err)"
	[ -e x.data ] && fail "output left behind without events"
fi
if [ ! -d /sys/bus/event_source/devices/arm_spe_0 ]; then
	"$C2CSCAN" record -e arm_spe_0/load_filter=1/ -o x.data -- true 2>err; rc=$?
	expect_eq "Arm SPE without it" "$rc" 1
	grep -q "event 'arm_spe_0/load_filter=1/': no such PMU" err || fail "Arm SPE message: $(cat err)"
	"$C2CSCAN" record -e arm_spe -o x.data -- true 2>err; rc=$?
	expect_eq "arm_spe without it" "$rc" 1
	grep -q "event 'arm_spe': no such PMU" err || fail "arm_spe message: $(cat err)"
fi
"$C2CSCAN" record -e no-such-event -o x.data -- true 2>err; rc=$?
expect_eq "unknown event" "$rc" 1
grep -q "unknown event" err || fail "unknown event message: $(cat err)"
"$C2CSCAN" record -e page-faults -p 999999999 -o x.data 2>err; rc=$?
expect_eq "bad PID" "$rc" 1
grep -q "no such process" err || fail "bad PID message: $(cat err)"
"$C2CSCAN" record -e page-faults -t 999999999 -o x.data 2>err; rc=$?
expect_eq "bad TID" "$rc" 1
grep -q "no such thread" err || fail "bad TID message: $(cat err)"
"$C2CSCAN" record -e page-faults -p abc -o x.data 2>err; rc=$?
expect_eq "malformed PID list" "$rc" 129
"$C2CSCAN" record -e page-faults -C 0-99999 -o x.data 2>err; rc=$?
expect_eq "bad CPU list" "$rc" 1
"$C2CSCAN" record -e page-faults 2>err; rc=$?
expect_eq "nothing to record" "$rc" 129

# existing processes and the whole system
sleep 30 &
sp=$!
sleep 0.3
"$C2CSCAN" record -q -e page-faults -p $sp --duration 0.3 -o p.data 2>err || fail "-p: $(cat err)"
"$C2CSCAN" report --stdio -i p.data >/dev/null 2>err || fail "-p file unreadable: $(cat err)"
"$C2CSCAN" record -q -e page-faults -t $sp --duration 0.3 -o t.data 2>err || fail "-t: $(cat err)"
"$C2CSCAN" report --stdio -i t.data >/dev/null 2>err || fail "-t file unreadable: $(cat err)"
# a recorded process that exits ends the recording
start=$(date +%s)
( sleep 0.5; kill $sp ) &
"$C2CSCAN" record -q -e page-faults -p $sp -o pe.data 2>err || fail "-p until exit: $(cat err)"
[ $(($(date +%s) - start)) -lt 10 ] || fail "-p did not stop when the process exited"
wait
"$C2CSCAN" record -q -a -e page-faults -o a.data -- sleep 0.2 2>err || fail "-a: $(cat err)"
"$C2CSCAN" record -q -C 0 -e page-faults -o c.data --duration 0.2 2>err || fail "-C 0: $(cat err)"
if command -v perf >/dev/null 2>&1; then
	for f in p.data a.data c.data; do
		perf script -i $f --show-mmap-events --show-task-events >script.out 2>script.err ||
			fail "perf script $f: $(cat script.err)"
		[ -s script.err ] && fail "perf script warns on $f: $(head -n 3 script.err)"
		grep -q "PERF_RECORD_MMAP2" script.out || fail "$f: no MMAP2 records"
		grep -q "kernel.kallsyms" script.out || fail "$f: no kernel map"
		# perf report refuses a file without samples (an idle -p target)
		grep -q "page-faults:" script.out || continue
		perf report -i $f --stdio >/dev/null 2>script.err || fail "perf report $f: $(cat script.err)"
		[ -s script.err ] && fail "perf report warns on $f: $(head -n 3 script.err)"
	done
	perf script -i p.data --show-task-events 2>/dev/null | grep -q "PERF_RECORD_COMM: sleep:$sp/$sp" ||
		fail "-p: no COMM record for the process"
fi

# a full disk stops the recording and leaves a readable file (needs a tmpfs mount)
mkdir mnt
if mount -t tmpfs -o size=256k tmpfs mnt 2>/dev/null; then
	"$C2CSCAN" record -q -e page-faults -o mnt/full.data -- sh -c 'i=0; while [ $i -lt 100 ]; do /bin/true; i=$((i+1)); done' \
		>/dev/null 2>err; rc=$?
	expect_eq "full disk" "$rc" 1
	grep -q "No space left on device" err || fail "full disk message: $(cat err)"
	grep -q "is readable" err || fail "full disk: the file is not readable: $(cat err)"
	"$C2CSCAN" report --stdio -i mnt/full.data >full.out 2>err || fail "full disk: report: $(cat err)"
	grep -q "unterminated" full.out && fail "full disk: header not finished"
	if command -v perf >/dev/null 2>&1; then
		perf script -i mnt/full.data >/dev/null 2>script.err || fail "full disk: perf script: $(cat script.err)"
		[ -s script.err ] && fail "full disk: perf script warns: $(head -n 3 script.err)"
	fi
	umount mnt
else
	echo "no tmpfs mount here: full-disk case not tested"
fi
"$C2CSCAN" record -q -e page-faults -o y.data -- /nonexistent/cmd 2>err; rc=$?
expect_eq "command not found" "$rc" 1
grep -q "cannot run '/nonexistent/cmd'" err || fail "command not found message: $(cat err)"
[ -e y.data ] && fail "output left behind for a command that never ran"
# without -e (memory events, which this machine may lack): the command
# is named first, not the PMU
"$C2CSCAN" record -q -o y.data -- ./nosuch-cmd 2>err; rc=$?
expect_eq "command not found, default events" "$rc" 1
expect_eq "one line for it" "$(cat err)" "c2cscan record: cannot run './nosuch-cmd': No such file or directory"
: > noexec
"$C2CSCAN" record -q -o y.data -- ./noexec 2>err; rc=$?
expect_eq "not executable" "$rc" 1
grep -q "cannot run './noexec': Permission denied" err || fail "not executable message: $(cat err)"
"$C2CSCAN" record -q -e page-faults -o /nonexistent/dir/z.data -- true 2>err; rc=$?
expect_eq "unwritable output" "$rc" 1
grep -q "/nonexistent/dir/z.data" err || fail "unwritable output message: $(cat err)"
"$C2CSCAN" record --bogus -- true 2>err; rc=$?
expect_eq "bad option" "$rc" 129
# a page-fault recording made by perf (-d asks for DATA_SRC too, which the
# kernel fills with "not available"): known by its event's type, it gets the
# notice and the access view, not HITM counters of zeros
if command -v perf >/dev/null 2>&1 && perf record -q -e page-faults -d -c 1 -o perf-pf.data -- "$TOP/$B/progs/heapobj" >/dev/null 2>&1; then
	"$C2CSCAN" report --stdio -i perf-pf.data >perf-pf.stdio 2>err || fail "perf's page faults: $(cat err)"
	grep -q '^# NOTICE: software events (page faults)' perf-pf.stdio || fail "perf's page faults: no notice"
	grep -q '^=== Access Information (software events' perf-pf.stdio || fail "perf's page faults: no access view"
	grep -q 'Load Local HITM' perf-pf.stdio && fail "perf's page faults: HITM counters"
	"$C2CSCAN" report --json -i perf-pf.data >perf-pf.json 2>err || fail "perf's page faults json: $(cat err)"
	json_get perf-pf.json 'j["notice"]' | grep -q '^software events' || fail "perf's page faults: no JSON notice"
fi
# a NULL write's page fault (address 0) is its own unmapped line, named by
# the writing code (it was counted in the header only)
if "$C2CSCAN" record -q -e page-faults -c 1 -o nullw.data -- "$TOP/$B/progs/nullwrite" >/dev/null 2>err; then
	"$C2CSCAN" report --json -d all -i nullw.data >nullw.json 2>err || fail "nullwrite: $(cat err)"
	expect_eq "NULL write line" "$(json_get nullw.json '[(l["address"], l["key"]["unmapped"], l["offsets"][0]["offset"], l["offsets"][0]["symbol"]) for l in j["cachelines"] if int(l["address"], 16) == 0]')" \
		"[('0', True, 0, 'main')]"
else
	fail "record nullwrite: $(cat err)"
fi
# -o naming a device (as root, -o /dev/null): never moved to .old and
# replaced by a regular file; tried on a device of the test's own
if mknod -m 666 nulldev c 1 3 2>/dev/null; then
	"$C2CSCAN" record -q -e page-faults -o nulldev -- true >/dev/null 2>&1
	[ -c nulldev ] || fail "record -o DEVICE replaced the device"
	[ -e nulldev.old ] && fail "record -o DEVICE moved it to .old"
	rm -f nulldev nulldev.old
fi
done_test
