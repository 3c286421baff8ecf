#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# From diagnosis to fix, on HITM recordings over a real binary:
# tests/progs/counters.c built as is and with -DPADDED, and
# tests/tools/mkhitm.py writing what PEBS would record of its two threads
# (the functions' real store and load instructions, the members' real
# addresses). The false-shared counters and the truly shared lock get their
# verdicts and advice in the members' names, in stdio, JSON and the browser;
# gain is the model's exact number; --sort gain reorders; c2cscan diff
# matches the lines of the two builds by name. Also gain.scn (a ranking that
# differs from HITM's), and diff's usage errors.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
bin=$TOP/$B/progs/counters
fixed=$TOP/$B/progs/counters-padded
[ -x "$bin" ] && [ -x "$fixed" ] || skip "counters not built"
command -v objdump >/dev/null 2>&1 || skip "no objdump"
python3 "$TOP/tests/tools/mkhitm.py" "$bin" before before.scn || fail "mkhitm before"
python3 "$TOP/tests/tools/mkhitm.py" "$fixed" after after.scn || fail "mkhitm after"
mkperf before.scn before.data
mkperf after.scn after.data

"$C2CSCAN" report --json -i before.data >b.json 2>err || fail "report: $(cat err)"
verdicts() { json_get "$1" '"; ".join("%s=%s" % (o["offsets"][0]["data_member"] or "?", l["verdict"]) for l in j["cachelines"] for o in [l])'; }
expect_eq "verdicts before" "$(verdicts b.json)" "counters.produced=false sharing; lockbox.hits=true sharing"
expect_eq "advice on the counters" "$(json_get b.json 'j["cachelines"][0]["advice"]')" \
	"counters.produced (written by tid 19001) and counters.consumed (tid 19002) share a line: align counters.consumed to 64 (alignas(64)) or move it to its own line; costs 56 bytes; predicted: the fix leaves 0 of the line's 30 contended accesses"
json_get b.json 'j["cachelines"][1]["advice"]' | grep -q '^lockbox.hits is written and read by 2 threads (tids 19001, 19002): the data itself is shared' ||
	fail "advice on the lock: $(json_get b.json 'j["cachelines"][1]["advice"]')"
# gain: the other loads' mean is 0 here (every load is HITM): 30 * 150 and 20 * 200 cycles
expect_eq "gains" "$(json_get b.json '[l["gain"]["cycles"] for l in j["cachelines"]]')" "[4500, 4000]"
"$C2CSCAN" report --stdio -i before.data >b.stdio 2>err || fail "stdio: $(cat err)"
grep -q '^      verdict: false sharing: 2 threads write and read different parts of the line$' b.stdio ||
	fail "stdio: no false-sharing verdict"
grep -q '^      advice:  counters.produced (written by tid 19001) and counters.consumed (tid 19002) share a line' b.stdio ||
	fail "stdio: no advice"
grep -q '^      gain:    up to 4500 cycles (52.94% of the sampled load latency)$' b.stdio || fail "stdio: gain"
# the layout: members in offset order, the padding after lockbox.lock, who wrote and read
expect_eq "layout of the counters line" "$(json_get b.json '[(e["kind"], e["member"], e["offset"], e["size"], e["writer_tids"], e["reader_tids"], e["tot_hitm"]) for e in j["cachelines"][0]["layout"]][:3]')" \
	"[('member', 'counters.produced', 0, 8, [19001], [19001], 15), ('member', 'counters.consumed', 8, 8, [19002], [19002], 15), ('member', 'counters.flags', 16, 8, [], [], 0)]"
expect_eq "layout type" "$(json_get b.json 'j["cachelines"][0]["layout"][0]["type"]')" "struct counters"
expect_eq "row types" "$(json_get b.json '[(o["type"], o["type_source"]) for l in j["cachelines"] for o in l["offsets"]][1:3]')" \
	"[('struct counters', 'variable'), ('struct lockbox', 'variable')]"
expect_eq "the lock's hole" "$(json_get b.json '[(e["kind"], e["offset"], e["size"]) for e in j["cachelines"][1]["layout"]][:3]')" \
	"[('member', 0, 4), ('padding', 4, 4), ('member', 8, 8)]"
grep -q '^      layout of struct counters:$' b.stdio || fail "stdio: no layout"
grep -q '^           0x8    8 B  counters.consumed  *loads 15 stores 20 HITM 15  written by 19002  read by 19002$' b.stdio ||
	fail "stdio layout row: $(grep -A3 'layout of struct counters' b.stdio)"
grep -q '^           0x4    4 B  lockbox (padding)$' b.stdio || fail "stdio: the lock's padding"
# each row's instruction (capstone): producer_step's addq is a read-modify-write of 8 bytes off rip
expect_eq "instruction" "$(json_get b.json '[(o["instruction"]["kind"], o["instruction"]["size"], o["instruction"]["base"]) for o in j["cachelines"][0]["offsets"]]')" \
	"[('rmw', 8, 'rip'), ('rmw', 8, 'rip')]"
json_get b.json 'j["cachelines"][1]["offsets"][0]["instruction"]["text"]' | grep -q '^lock addq \$1, 0x[0-9a-f]*(%rip)$' ||
	fail "the lock's instruction: $(json_get b.json 'j["cachelines"][1]["offsets"][0]["instruction"]')"
# the browser says the same under the byte strip
echo "enter dump:line.txt" >keys
COLUMNS=160 LINES=30 C2CSCAN_KEYS=keys "$C2CSCAN" report --tui -i before.data 2>err || fail "tui: $(cat err)"
grep -q "^ FALSE SHARING: 2 threads write and read different parts of the line" line.txt || fail "tui: verdict: $(cat line.txt)"
grep -q "^ counters.produced (written by tid 19001) and counters.consumed (tid 19002) share a line: align" line.txt ||
	fail "tui: advice"
grep -q "^ layout: counters.produced (bytes 0-7) written by 19001, read by 19001 | counters.consumed (bytes 8-15)" line.txt ||
	fail "tui: layout: $(grep layout line.txt)"
grep -q "producer_step at .*counters.c:[0-9]*  \[addq \$1, 0x[0-9a-f]*(%rip)\]" line.txt ||
	fail "tui: the row's instruction: $(tail -n 3 line.txt)"
# after the fix: the counters' loads hit L1, only the lock is contended
"$C2CSCAN" report --json -d all -i after.data >a.json 2>err || fail "report after: $(cat err)"
json_get a.json '"; ".join(sorted("%s=%s" % (l["offsets"][0]["data_member"], l["verdict"]) for l in j["cachelines"]))' >a.txt
expect_eq "verdicts after" "$(cat a.txt)" "counters.consumed=no sharing; counters.produced=no sharing; lockbox.hits=true sharing"
# the linker's markers (__TMC_END__, __bss_start, _edata, _end) are not objects
for f in b.json a.json; do
	expect_eq "no markers in $f" "$(json_get $f '[n for l in j["cachelines"] for n in [e["member"] for e in l["layout"]] + [o["data_symbol"] for o in l["offsets"]] if n and n.lstrip("_") in ("TMC_END__", "bss_start", "edata", "end")]')" "[]"
done
# a line of one thread whose bytes have names has its layout too
expect_eq "one thread's layout" "$(json_get a.json '[(e["kind"], e["member"], e["writer_tids"]) for l in j["cachelines"] if l["offsets"][0]["data_member"] == "counters.consumed" for e in l["layout"] if e["loads"] or e["stores"]]')" \
	"[('member', 'counters.consumed', [19002])]"
"$C2CSCAN" report --stdio -d all -i after.data | grep -q '^ *0 *8 B  counters.consumed  *loads [0-9]* stores [0-9]* HITM 0  written by 19002' ||
	fail "stdio: no layout on a one-thread line"

# c2cscan diff: by name, across the two builds
"$C2CSCAN" diff --json before.data after.data >d.json 2>err || fail "diff: $(cat err)"
expect_eq "diff" "$(json_get d.json '[(e["name"], e["before"] and e["before"]["tot_hitm"], e["after"] and e["after"]["tot_hitm"]) for e in j["lines"]]')" \
	"[('counters', 30, None), ('lockbox', 20, 20)]"
"$C2CSCAN" diff -d all before.data after.data >d.txt 2>err || fail "diff -d all: $(cat err)"
grep -q '^counters  *70  *70  *636363.6  *636363.6  *+0%  *verdict changed *false sharing -> no sharing$' d.txt ||
	fail "diff -d all: $(cat d.txt)"
grep -q '^(all lines)  *110  *110  *1000000.0  *1000000.0  *+0%  *same *$' d.txt || fail "diff -d all: no totals: $(cat d.txt)"
expect_eq "diff: statuses and verdicts" "$(json_get d.json '[(e["name"], e["status"], e["verdict_before"], e["verdict_after"]) for e in j["lines"]]')" \
	"[('counters', 'gone', 'false sharing', None), ('lockbox', 'same', 'true sharing', 'true sharing')]"
"$C2CSCAN" diff before.data >/dev/null 2>err
expect_eq "diff with one file: exit" "$?" 129
"$C2CSCAN" diff before.data /nonexistent.data >/dev/null 2>err
expect_eq "diff with a missing file: exit" "$?" 1
grep -q '^c2cscan: /nonexistent.data: ' err || fail "diff: the missing file is not named: $(cat err)"

# a stack line (a thread handing a pointer to its stack to another): the
# verdict, the advice in offsets, the gain and the layout without names
cat >stack.scn <<'SCN'
attr name=cpu/mem-loads,ldlat=30/P type=raw config=0x1cd ldlat=30 precise=3 id=1
attr name=cpu/mem-stores/P type=raw config=0x82d0 precise=3 id=2
feature hostname=fixture nrcpus=4 arch=x86_64
comm pid=19501 time=1000 comm=stacky exec
mmap2 pid=19501 time=1001 start=0x7ffc00000000 len=0x21000 prot=rw flags=private name=[stack]
fork pid=19501 tid=19502 time=1002
round
sample attr=1 pid=19501 cpu=0 time=1100 addr=0x7ffc00010040 ip=0x401100 src=lcl_hitm weight=120 repeat=4
sample attr=2 pid=19501 cpu=0 time=1200 addr=0x7ffc00010040 ip=0x401108 src=st_l1miss repeat=4
sample attr=1 pid=19501 tid=19502 cpu=1 time=1300 addr=0x7ffc00010060 ip=0x401200 src=lcl_hitm weight=120 repeat=4
sample attr=2 pid=19501 tid=19502 cpu=1 time=1400 addr=0x7ffc00010060 ip=0x401208 src=st_l1miss repeat=4
round
SCN
mkperf stack.scn stack.data
"$C2CSCAN" report --json -i stack.data >s.json 2>err || fail "stack: $(cat err)"
expect_eq "stack line" "$(json_get s.json '(j["cachelines"][0]["verdict"], j["cachelines"][0]["gain"]["cycles"], [(e["kind"], e["offset"], e["size"]) for e in j["cachelines"][0]["layout"]])')" \
	"('false sharing', 960, [('none', 0, 64)])"
json_get s.json 'j["cachelines"][0]["advice"]' | grep -q '^offset 0 (written by tid 19501) and offset 0x20 (tid 19502) share a line' ||
	fail "stack advice: $(json_get s.json 'j["cachelines"][0]["advice"]')"

# --sort gain: a line with fewer HITM but slower ones comes first
mkperf "$TOP/tests/fixtures/scenarios/gain.scn" gain.data
"$C2CSCAN" report --json -i gain.data >g1.json
"$C2CSCAN" report --json --sort gain -i gain.data >g2.json
expect_eq "by HITM" "$(json_get g1.json '[(l["address"], l["gain"]["cycles"]) for l in j["cachelines"]]')" \
	"[('0x600000', 475), ('0x600040', 1785)]"
expect_eq "by gain" "$(json_get g2.json '[l["address"] for l in j["cachelines"]]')" "['0x600040', '0x600000']"
expect_eq "share" "$(json_get g2.json 'j["cachelines"][0]["gain"]["share"]')" "0.759574"
"$C2CSCAN" report --stdio --sort gain -i gain.data | grep -q 'Cacheline Table (2 lines, sorted by estimated gain, -d tot)' ||
	fail "stdio does not say it sorts by gain"
# the value it sorts by is shown: a Gain column, in stdio and the browser
"$C2CSCAN" report --stdio --sort gain -i gain.data >g.stdio
grep -q '^Index Address  *Key  *Share  *Gain TotHitm ' g.stdio || fail "stdio: no Gain column: $(grep '^Index' g.stdio)"
grep -q '^    0 0x600040  *private pid 18001  *37.50%  *1785  *3 ' g.stdio || fail "stdio: gain of line 0: $(grep '^    0 ' g.stdio)"
grep -q '^    1 0x600000  *private pid 18001  *62.50%  *475  *5 ' g.stdio || fail "stdio: gain of line 1: $(grep '^    1 ' g.stdio)"
"$C2CSCAN" report --stdio -i gain.data | grep -q '^Index.* Gain ' && fail "stdio shows Gain without --sort gain"
echo "dump:glist.txt" >gkeys
COLUMNS=100 LINES=20 C2CSCAN_KEYS=gkeys "$C2CSCAN" report --tui --sort gain -i gain.data 2>err || fail "tui --sort gain: $(cat err)"
grep -q '^  # Address  *Object  *Share  *Gain ' glist.txt || fail "browser: no Gain column: $(sed -n 4p glist.txt)"
grep -q '^  0 0x600040 .* 1785 ' glist.txt || fail "browser: gain of the first line: $(sed -n 5p glist.txt)"
"$C2CSCAN" report --stdio --sort nothing -i gain.data >/dev/null 2>&1
expect_eq "--sort nothing: exit" "$?" 129
# stores that carry weights (Intel store latency, emulated recordings): the
# gain's base is the other loads' mean (5 cycles), not a mean over stores'
# weights too (which made it 905 and the gain 0 on plain false sharing)
sed -e 's/src=st_l1hit repeat=2/src=st_l1hit weight=900 repeat=4/' "$TOP/tests/fixtures/scenarios/gain.scn" >sw.scn
mkperf sw.scn sw.data
"$C2CSCAN" report --json -i sw.data >sw.json 2>err || fail "store weights: $(cat err)"
expect_eq "gain with store weights" "$(json_get sw.json '[(l["address"], l["gain"]["cycles"], l["gain"]["share"]) for l in j["cachelines"]]')" \
	"[('0x600000', 475, 0.202128), ('0x600040', 1785, 0.759574)]"
# threads that write and read neighbouring bytes with no HITM sampled (every
# load hit L1): no contention, so no false-sharing verdict and no advice
sed -e 's/src=lcl_hitm/src=l1/g' stack.scn >quiet.scn
mkperf quiet.scn quiet.data
"$C2CSCAN" report --json -d all -i quiet.data >q.json 2>err || fail "quiet: $(cat err)"
expect_eq "no contention" "$(json_get q.json '(j["cachelines"][0]["verdict"], j["cachelines"][0]["verdict_why"], j["cachelines"][0]["advice"])')" \
	"('no contention sampled', 'no HITM among its 8 loads sampled; the access pattern: false sharing (2 threads write and read different parts of the line)', None)"
"$C2CSCAN" report --stdio -d all -i quiet.data >q.stdio 2>err || fail "quiet stdio: $(cat err)"
grep -q '^      verdict: no contention sampled: no HITM among its 8 loads' q.stdio || fail "quiet stdio: $(grep verdict q.stdio)"
grep -q 'advice:' q.stdio && fail "quiet stdio advises: $(grep advice q.stdio)"

# diff across a renamed stripped binary: its lines have no symbol; matched
# by file offset (every line was "gone" and "new")
if command -v strip >/dev/null 2>&1; then
	strip -o stripped-a "$bin" && cp stripped-a stripped-b
	sed "s|$bin|$PWD/stripped-a|g" before.scn >sa.scn
	sed "s|$bin|$PWD/stripped-b|g" before.scn >sb.scn
	mkperf sa.scn sa.data
	mkperf sb.scn sb.data
	"$C2CSCAN" diff --json sa.data sb.data >rn.json 2>err || fail "diff renamed: $(cat err)"
	expect_eq "renamed: matched" "$(json_get rn.json '(j["renamed"], sorted((e["name"].split(" -> ")[0], e["before"] is not None, e["after"] is not None) for e in j["lines"]))')" \
		"(2, [('stripped-a', True, True), ('stripped-a', True, True)])"
	"$C2CSCAN" diff sa.data sb.data | grep -q '^# 2 lines matched across a renamed object' || fail "diff renamed: not said"
fi
# diff across events (HITM against page faults): said, not only "gone"
cat >pf.scn <<'SCN'
attr name=page-faults type=software config=2 sample_type=ip,tid,time,addr,cpu,period id=1
feature hostname=fixture nrcpus=4 arch=x86_64
comm pid=19501 time=1000 comm=pf exec
mmap2 pid=19501 time=1001 start=0x600000 len=0x1000 prot=rw flags=private name=//anon
round
sample attr=1 pid=19501 cpu=0 time=1100 addr=0x600040 ip=0x401100
round
SCN
if mkperf pf.scn pf.data 2>/dev/null; then
	"$C2CSCAN" diff -d all before.data pf.data >ev.txt 2>err || fail "diff across events: $(cat err)"
	grep -q "^# warning: the recordings' events differ: before has memory events (HITM), after has software events" ev.txt ||
		fail "diff across events: not said: $(head -n 6 ev.txt)"
fi
# a thread that reads both counters once at the end (a reporter) does not
# make each of them shared: still false sharing between their writers;
# one that reads them often does
reader() { # REPEAT: false-sharing.scn at 100x, and a third thread reading both REPEAT times
	sed 's/repeat=3/repeat=300/; s/repeat=4/repeat=400/; s/^fork  pid=13001 tid=13011 time=1003$/&\nfork  pid=13001 tid=13021 time=1004/' \
		"$TOP/tests/fixtures/scenarios/false-sharing.scn" | sed '$d'
	echo "sample attr=1 pid=13001 tid=13021 cpu=2 time=3000 addr=0x2000040 ip=0x401300 src=lcl_hitm weight=170 repeat=$1"
	echo "sample attr=1 pid=13001 tid=13021 cpu=2 time=3010 addr=0x2000048 ip=0x401310 src=lcl_hitm weight=170 repeat=$1"
	echo round
}
reader 1 >rd1.scn
reader 100 >rd100.scn
mkperf rd1.scn rd1.data && mkperf rd100.scn rd100.data || fail "mkperf reader"
expect_eq "a reader once at the end" "$("$C2CSCAN" report --json -i rd1.data | python3 -c 'import json,sys; l = json.load(sys.stdin)["cachelines"][0]; print(l["verdict"], "|", l["advice"])')" \
	"false sharing | offset 0 (written by tid 13001) and offset 0x8 (tid 13011) share a line: give the data at offset 0x8 its own line (alignas(64) on it, or padding before it); costs 56 bytes; predicted: the fix leaves 0 of the line's 802 contended accesses"
expect_eq "a reader of both, often" "$("$C2CSCAN" report --json -i rd100.data | python3 -c 'import json,sys; print(json.load(sys.stdin)["cachelines"][0]["verdict"])')" "true sharing"
done_test
