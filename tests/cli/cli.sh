#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Plain command-line habits: report FILE as -i FILE, conflicting output
# options, help for an unknown command, -v; record returns the command's own
# exit status (128 + the signal when killed) and says how it ended.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
mkperf "$TOP/tests/fixtures/scenarios/false-sharing.scn" fs.data || done_test
"$C2CSCAN" report --stdio fs.data >pos.out 2>err || fail "report FILE: $(cat err)"
"$C2CSCAN" report --stdio -i fs.data >opt.out 2>err || fail "report -i FILE: $(cat err)"
sed -i 's/^  File .*//' pos.out opt.out
cmp -s pos.out opt.out || fail "report FILE and report -i FILE differ"
"$C2CSCAN" report --stdio --json -i fs.data >/dev/null 2>err
rc=$?
[ $rc = 129 ] && grep -q -- "--stdio, --json and --tui exclude each other" err || fail "--stdio --json: exit $rc, $(cat err)"
"$C2CSCAN" report --stdio -i fs.data extra >/dev/null 2>err
rc=$?
[ $rc = 129 ] && grep -q "unexpected argument 'extra'" err || fail "-i and a file: exit $rc, $(cat err)"
# perf c2c's habits: --stats, --full-symbols, -f
"$C2CSCAN" report --stdio --stats -f -i fs.data >stats.out 2>err || fail "--stats -f: $(cat err)"
grep -q "=== Trace Event Information ===" stats.out || fail "--stats has no statistics"
grep -q "Cacheline Table" stats.out && fail "--stats prints the tables"
"$C2CSCAN" report --stdio --full-symbols -i fs.data >/dev/null 2>err || fail "--full-symbols: $(cat err)"
"$C2CSCAN" report --stdoi -i fs.data >/dev/null 2>err
rc=$?
[ $rc = 129 ] && grep -q "did you mean '--stdio'" err || fail "--stdoi: exit $rc, $(cat err)"
"$C2CSCAN" report --stdio --symfs /nonexistent -i fs.data >/dev/null 2>err
rc=$?
[ $rc = 129 ] && grep -q "symfs /nonexistent: No such file" err || fail "--symfs /nonexistent: exit $rc, $(cat err)"
mkdir -p empty && (cd empty && "$C2CSCAN" report --stdio >/dev/null 2>../err)
rc=$?
[ $rc = 1 ] && grep -q "no perf.data here: record one" err || fail "no perf.data: exit $rc, $(cat err)"
"$C2CSCAN" help foo >/dev/null 2>err
rc=$?
[ $rc = 129 ] && grep -q "'foo' is not a command" err || fail "help foo: exit $rc, $(cat err)"
expect_eq "-v" "$("$C2CSCAN" -v | cut -d' ' -f1)" "c2cscan"
# record: the command's status
if "$C2CSCAN" record -q -e page-faults -o r.data -- true 2>err; then
	"$C2CSCAN" record -q -e page-faults -o r.data -- sh -c 'exit 3' 2>err
	rc=$?
	[ $rc = 3 ] && grep -q "the command exited with status 3" err || fail "exit 3: exit $rc, $(cat err)"
	"$C2CSCAN" report --stdio -d all -i r.data >/dev/null 2>&1 || fail "the file of a failed command is not readable"
	# a software-event recording says what it can show, in every output,
	# and -d all details the first 50 lines unless --lines says otherwise
	"$C2CSCAN" record -q -e page-faults -c 1 -o sw.data -- "$TOP/$B/progs/heapobj" >/dev/null 2>err || fail "sw: $(cat err)"
	"$C2CSCAN" report --stdio -d all -i sw.data >sw.stdio 2>err || fail "sw report: $(cat err)"
	sed -n 2p sw.stdio | grep -q "^# NOTICE: software events (page faults) record where each page was first touched" ||
		fail "no notice: $(sed -n 2p sw.stdio)"
	expect_eq "detailed lines" "$(grep -c '^--- ' sw.stdio)" "50"
	grep -q "more lines not detailed: --lines N details N, --lines 0 all" sw.stdio || fail "no 'more lines' hint"
	"$C2CSCAN" report --stdio -d all --lines 0 -i sw.data | grep -q "more lines not detailed" && fail "--lines 0 is not all"
	"$C2CSCAN" report --json -d all -i sw.data >sw.json 2>err || fail "sw json: $(cat err)"
	json_get sw.json 'j["notice"]' | grep -q "they cannot show contention" || fail "no JSON notice"
	printf 'dump:sw.txt d dump:sw-tot.txt ? dump:sw-help.txt\n' >sw.keys
	env COLUMNS=80 LINES=24 LC_ALL=C C2CSCAN_KEYS=sw.keys "$C2CSCAN" report --tui -d all -i sw.data >/dev/null 2>err ||
		fail "sw tui: $(cat err)"
	# at 80 columns: the key bar on the status line, the notice brief on the
	# events line, where it stays, and whole in help (the notice had taken
	# the key bar's place)
	tail -n 1 sw.txt | grep -q "^ Enter open  d mode .* ? help  q quit " ||
		fail "the browser's first screen has no key bar: $(tail -n 1 sw.txt)"
	tr -d '\n' <sw-help.txt | tr -s ' ' | grep -q "they locate objects and code, they cannot show contention (no HITM)" ||
		fail "help does not give the whole notice: $(head -n 8 sw-help.txt)"
	# d into a mode with no line says why
	grep -q "display mode tot ranks by HITM, which software events" sw-tot.txt ||
		fail "an empty mode does not say why: $(sed -n 4,6p sw-tot.txt)"
	sed -n 2p sw.txt | grep -q "^ events: page-faults [0-9]*: first touches of pages, not contention (no HITM)$" ||
		fail "the events line does not say what page faults show: $(sed -n 2p sw.txt)"
	# a line's counts: no HITM split, loads or stores a page fault cannot have
	printf 'enter dump:sw-line.txt\n' >sw.keys
	env COLUMNS=80 LINES=24 LC_ALL=C C2CSCAN_KEYS=sw.keys "$C2CSCAN" report --tui -d all -i sw.data >/dev/null 2>err ||
		fail "sw tui line: $(cat err)"
	sed -n 2p sw-line.txt | grep -q "^ samples [0-9]*  pids [0-9]*  tids [0-9]*  cpus [0-9]*  nodes [0-9]*$" ||
		fail "a page-fault line's counts: $(sed -n 2p sw-line.txt)"
	"$C2CSCAN" record -q -e page-faults -o r.data -- sh -c 'kill -SEGV $$' 2>err
	rc=$?
	[ $rc = 139 ] && grep -q "the command was killed by signal 11" err || fail "SEGV: exit $rc, $(cat err)"
else
	grep -q "cannot open page-faults" err || fail "record: $(cat err)"
fi
# -N: the offsets' nodes and their cpus (perf c2c report -N)
mkperf "$TOP/tests/fixtures/scenarios/heap-false-sharing.scn" hfs.data
"$C2CSCAN" report --stdio -N -i hfs.data >n.out 2>err || fail "-N: $(cat err)"
grep -q ' Source  *Node{cpus}$' n.out || fail "-N: no Node{cpus} column: $(grep -m1 Offset n.out)"
grep -q ' 0{0}$' n.out && grep -q ' 0{1}$' n.out || fail "-N: nodes without their cpus: $(grep -m3 '^      0' n.out)"
# -c/--coalesce (perf c2c's fields): rows per tid tell the two writers apart
mkperf "$TOP/tests/fixtures/scenarios/false-sharing.scn" fs.data
"$C2CSCAN" report --stdio -c pid,tid,iaddr -i fs.data >c.out 2>err || fail "-c: $(cat err)"
grep -q '^      Offset Data  *Pid  *Tid  Share' c.out || fail "-c pid,tid,iaddr: header: $(grep -m1 Offset c.out)"
grep -q '^      0x8    \[heap\]  *13001  *13011 ' c.out || fail "-c: no row of tid 13011 at 0x8: $(grep -m4 '^      0' c.out)"
grep -q 'Cacheline Offsets (per offset and -c fields)' c.out || fail "-c: the section does not say it"
"$C2CSCAN" report --stdio -c tid -i fs.data >t.out 2>err || fail "-c tid: $(cat err)"
grep -q ' Code ' t.out && fail "-c tid still shows code addresses"
awk 'length($0) > 160 { bad = 1 } END { exit bad }' c.out t.out || fail "-c: lines wider than 160 columns"
"$C2CSCAN" report --stdio -c sym -i fs.data >/dev/null 2>&1
expect_eq "-c sym: exit" "$?" 129
# every usage error is one line naming what is wrong and where the options
# are listed, exit 129 (-d foo and a stray argument printed the whole usage)
for args in "report -d foo" "report a.data b.data" "report --sort nothing" "report --stdio --json" "report --bogus" \
	"diff one.data" "record -c x -- true" "check extra"; do
	"$C2CSCAN" $args >out 2>err; rc=$?
	expect_eq "$args: exit" "$rc" 129
	expect_eq "$args: lines" "$(wc -l <err)" 1
	grep -q "^c2cscan [a-z]*: .* (c2cscan [a-z]* -h [a-z ]*)$" err || fail "$args: $(cat err)"
	[ -s out ] && fail "$args: wrote to stdout: $(head -n 2 out)"
done
done_test
