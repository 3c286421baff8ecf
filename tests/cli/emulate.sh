#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --emulate on this machine (no memory PMU needed): tests/progs/counters.c
# built with GCC's -fsanitize=thread, as is and padded. The coherence model
# over its accesses finds the false-shared counters and the truly shared
# lock (atomics: locked loads and stores), names their members and advises
# in their words; the padded build's counters are quiet; diff shows the
# contention gone; perf script reads the file; the report says it is
# emulated; a TSan build run without record says the model did not run.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
bin=$TOP/$B/progs/counters-tsan
# 800,000 steps a thread, not 2M and a quarter of a second (the lockstep
# needs no overlap in time)
export COUNTERS_SECONDS=0 COUNTERS_ROUNDS=8
padded=$TOP/$B/progs/counters-padded-tsan
[ -x "$bin" ] && [ -x "$padded" ] || skip "no -fsanitize=thread builds (libtsan missing?)"
tsan_runs || skip "a -fsanitize=thread program does not run here"
if ! "$C2CSCAN" record -q --emulate -o e.data -- "$bin" >e.out 2>e.err; then
	grep -q "cannot open" e.err && skip "perf_event_open not available here: $(cat e.err)"
	fail "record --emulate: $(cat e.err)"
	done_test
fi
grep -q "^produced [0-9]* consumed [0-9]* hits [0-9]*$" e.out || fail "the program's output: $(cat e.out)"
"$C2CSCAN" report --json -i e.data >e.json 2>err || fail "report: $(cat err)"
# (the start barrier shares the counters' line: a few HITM, not mixed)
expect_eq "verdicts" "$(json_get e.json 'sorted((l["verdict"], sorted(set(o["data_member"] for o in l["offsets"]) - {"start"})) for l in j["cachelines"])')" \
	"[('false sharing', ['counters.consumed', 'counters.produced']), ('true sharing', ['lockbox.hits'])]"
json_get e.json '[l["advice"] for l in j["cachelines"] if l["verdict"] == "false sharing"][0]' |
	grep -q "^counters.produced (written by tid [0-9]*) and counters.consumed (tid [0-9]*) share a line: align counters.consumed to 64" ||
	fail "advice: $(json_get e.json '[l["advice"] for l in j["cachelines"]]')"
expect_eq "the lock's locked operations" "$(json_get e.json '[l["locks"] > 0 for l in j["cachelines"] if l["verdict"] == "true sharing"]')" "[True]"
json_get e.json 'j["notice"]' | grep -q "^emulated: a cache-coherence model" || fail "no notice: $(json_get e.json 'j["notice"]')"
expect_eq "gain" "$(json_get e.json 'all(l["gain"]["cycles"] > 0 for l in j["cachelines"])')" "True"
# a sample's instruction is the access, not the one after the hook's call:
# a plain row's is a load or store (its kind), an atomic's the call
expect_eq "the rows' instructions" "$(json_get e.json 'sorted(set((o["locks"] > 0, o["instruction"]["text"].split()[0] if o["locks"] else o["instruction"]["kind"]) for l in j["cachelines"] for o in l["offsets"]))')" \
	"[(False, 'load'), (False, 'store'), (True, 'callq')]"
# -g: call chains from the shadow stack of __tsan_func_entry/exit
"$C2CSCAN" record -q --emulate -g -o g.data -- "$bin" >/dev/null 2>err || fail "record -g: $(cat err)"
"$C2CSCAN" report --json -g -i g.data >g.json 2>err || fail "report -g: $(cat err)"
expect_eq "call chains" "$(json_get g.json 'sorted(set((o["data_member"], tuple(c["frames"][:2])) for l in j["cachelines"] for o in l["offsets"] if (o["data_member"] or "").startswith("counters.") and o["stores"] for c in o["callchains"]))')" \
	"[('counters.consumed', ('consumer_step', 'run')), ('counters.produced', ('producer_step', 'run'))]"
if command -v perf >/dev/null 2>&1; then
	perf script -i g.data 2>/dev/null | grep -A2 "c2cscan-emulated" | grep -q " run+0x[0-9a-f]* (.*counters-tsan)" ||
		fail "perf script shows no call chain: $(perf script -i g.data 2>&1 | head -n 4)"
fi
# the padded build: the counters' lines without contention, the lock still
"$C2CSCAN" record -q --emulate -o p.data -- "$padded" >/dev/null 2>err || fail "record padded: $(cat err)"
"$C2CSCAN" report --json -d all -i p.data >p.json 2>err || fail "report padded: $(cat err)"
# (main reads each counter once at the end: one HITM the model sees,
# sampled or not, and no finding either way)
expect_eq "padded" "$(json_get p.json 'sorted(set((o["data_member"], l["verdict"] in ("no sharing", "no contention sampled", "negligible contention") if o["data_member"].startswith("counters.") else l["verdict"]) for l in j["cachelines"] for o in l["offsets"] if (o["data_member"] or "").startswith(("counters.", "lockbox."))))')" \
	"[('counters.consumed', True), ('counters.produced', True), ('lockbox.hits', 'true sharing')]"
# (the counters' rows: the start barrier shares a line with one of them,
# and the counter's first load and store after the barrier take the line
# from its waiters: one window's transfer, and main's read at the end)
expect_eq "padded: the counters' HITMs" "$(json_get p.json 'max([sum(o["tot_hitm"] + o["st_hitm"] for o in l["offsets"] if (o["data_member"] or "").startswith("counters.")) for l in j["cachelines"]] + [0]) <= 3')" "True"
# an array no one touched is one layout entry
"$C2CSCAN" report --stdio -d all -i p.data >p.stdio 2>err || fail "stdio padded: $(cat err)"
grep -q "^ *0x8   56 B  counters.pad\[0..55\] *$" p.stdio || fail "the padding array: $(grep 'counters.pad' p.stdio | head -n 3)"
# --emulate=line=128: the model's lines and the report's are 128 bytes
"$C2CSCAN" record -q --emulate=line=128 -o l.data -- "$padded" >/dev/null 2>err || fail "record line=128: $(cat err)"
"$C2CSCAN" report --json -d all -i l.data >l.json 2>err || fail "report line=128: $(cat err)"
expect_eq "line=128" "$(json_get l.json '(j["file"]["line_size"], all(int(l["address"], 16) % 128 == 0 for l in j["cachelines"]), "128-byte lines" in j["notice"])')" "(128, True, True)"
"$C2CSCAN" record --emulate=line=100 -o x.data -- "$padded" >/dev/null 2>&1
expect_eq "--emulate=line=100: exit" "$?" 129
"$C2CSCAN" diff --json e.data p.data >d.json 2>err || fail "diff: $(cat err)"
# (the start barrier: a few HITM when the threads arrive, modelled as
# glibc's pthread_barrier_wait touches it, left out)
expect_eq "diff" "$(json_get d.json 'sorted((e["name"], e["after"] is None or e["after"]["tot_hitm"] <= 2) for e in j["lines"] if e["name"] != "start")')" "[('counters', True), ('lockbox', False)]"
if command -v perf >/dev/null 2>&1; then
	perf script -i e.data >script.out 2>script.err || fail "perf script: $(head -n 3 script.err)"
	grep -q "c2cscan-emulated/mem-loads-stores/:.*|OP LOAD|LVL L3 or L3 hit|SNP HitM" script.out ||
		fail "perf script does not show the HITM samples: $(head -n 2 script.out)"
fi
# Clang links its runtime into the executable: the hooks are redirected;
# it instruments x++ as a write only, so the counters bounce as store HITMs
# (main's reads of them at the end may be a load HITM or two, when its
# thread's sampling phase falls there)
# (DWARF 5 locations: the members named through .debug_addr)
clang_bin=$TOP/$B/progs/counters-clang-tsan
if [ -x "$clang_bin" ]; then
	"$C2CSCAN" record -q --emulate -o c.data -- "$clang_bin" >c.out 2>c.err || fail "record clang: $(cat c.err)"
	# (its allocator is in the executable, which the runtime makes jump to
	# the production heap's: nothing to say)
	expect_eq "record clang says" "$(cat c.err)" ""
	grep -q "^produced [0-9]* consumed [0-9]* hits [0-9]*$" c.out || fail "clang build's output: $(cat c.out)"
	"$C2CSCAN" report --json -i c.data >c.json 2>err || fail "report clang: $(cat err)"
	expect_eq "clang: verdicts" "$(json_get c.json 'sorted((l["verdict"], sorted(set(o["data_member"] for o in l["offsets"]) - {"start"})) for l in j["cachelines"])')" \
		"[('false sharing', ['counters.consumed', 'counters.produced']), ('true sharing', ['lockbox.hits'])]"
	expect_eq "clang: the counters' contention" "$(json_get c.json '[l["tot_hitm"] + l["st_hitm"] > 100 for l in j["cachelines"] if l["verdict"] == "false sharing"]')" "[True]"
	json_get c.json '[l["advice"] for l in j["cachelines"] if l["verdict"] == "false sharing"][0]' |
		grep -q "^counters.produced (written by tid [0-9]*) and counters.consumed (tid [0-9]*) share a line: align counters.consumed to 64" ||
		fail "clang: advice: $(json_get c.json '[l["advice"] for l in j["cachelines"]]')"
	expect_eq "clang: gain" "$(json_get c.json 'all(l["gain"]["cycles"] > 0 for l in j["cachelines"])')" "True"
	# without record the runtime leaves the program's own hooks alone
	LD_PRELOAD="$TOP/$B/libc2cscan-emu.so" "$TOP/$B/progs/atomics-clang-tsan" >alone.out 2>alone.err ||
		fail "clang build under the runtime alone"
	expect_eq "clang build under the runtime alone" "$(cat alone.out)" "atomics ok"
fi
# run without record: said, and the program does what it does
LD_PRELOAD="$TOP/$B/libc2cscan-emu.so" "$TOP/$B/progs/atomics-tsan" >alone.out 2>alone.err ||
	fail "the program fails under the runtime alone"
expect_eq "the program under the runtime alone" "$(cat alone.out)" "atomics ok"
grep -q "c2cscan emu: not run by 'c2cscan record --emulate'" alone.err || fail "the runtime alone says nothing: $(cat alone.err)"
# --emulate needs a command
"$C2CSCAN" record --emulate -a --duration 0.1 -o x.data >/dev/null 2>err
expect_eq "--emulate -a: exit" "$?" 129
# check says emulation is there; record without a memory PMU suggests it
"$C2CSCAN" check >check.out 2>&1
grep -q "^emulation *: available (c2cscan record --emulate" check.out || fail "check: $(grep -i emul check.out)"
if grep -q "^memory PMU *: none" check.out; then
	"$C2CSCAN" record -o x.data -- true >/dev/null 2>rec.err
	grep -q "^c2cscan record: --emulate models the contention of a program built with -fsanitize=thread" rec.err ||
		fail "record without a PMU does not suggest --emulate: $(cat rec.err)"
fi
# --fail-on for test suites: 1 on the unpadded build's false sharing (and
# says which line), 0 on the padded one, 0 under a share the line lacks
"$C2CSCAN" report --stdio --fail-on false-sharing -i e.data >/dev/null 2>fail.err
expect_eq "--fail-on false-sharing: exit" "$?" 1
grep -q "^c2cscan report: --fail-on: line [0-9]* 0x[0-9a-f]* counters: false sharing, [0-9.]*% of tot: counters.produced (written by tid [0-9]*) and counters.consumed (tid [0-9]*) share a line: align" fail.err ||
	fail "--fail-on does not name the line: $(cat fail.err)"
"$C2CSCAN" report --stdio --fail-on false-sharing -i p.data >/dev/null 2>&1
expect_eq "--fail-on on the padded build: exit" "$?" 0
"$C2CSCAN" report --stdio --fail-on false-sharing --fail-share 99.9 -i e.data >/dev/null 2>&1
expect_eq "--fail-share 99.9: exit" "$?" 0
"$C2CSCAN" report --stdio --fail-on true-sharing,mixed -i e.data >/dev/null 2>&1
expect_eq "--fail-on true-sharing,mixed: exit" "$?" 1
# alone: the failing lines only, nothing on stdout
"$C2CSCAN" report --fail-on false-sharing -i e.data >alone.out 2>&1
expect_eq "--fail-on alone: exit" "$?" 1
expect_eq "--fail-on alone: the failing lines only" "$(grep -vc '^c2cscan report: --fail-on: line ' alone.out)" 0
"$C2CSCAN" report --fail-on nonsense -i e.data >/dev/null 2>&1
expect_eq "--fail-on nonsense: exit" "$?" 129

# what a killed record left (its directory, its model file) the next one removes
dead=$(sh -c 'echo $$')
stale=$(mktemp -d /tmp/c2cscan-emulate-XXXXXX)
echo "$dead" >"$stale/record.pid"
echo x >"$stale/emu-123"
[ -d /dev/shm ] && echo x >"/dev/shm/c2cscan-emu-$dead"
"$C2CSCAN" record -q --emulate -o stale.data -- "$TOP/$B/progs/atomics-tsan" >/dev/null 2>&1 || fail "record after a killed one"
[ -e "$stale" ] && { fail "a killed record's directory is left: $(ls "$stale")"; rm -rf "$stale"; }
[ -e "/dev/shm/c2cscan-emu-$dead" ] && { fail "a killed record's model file is left"; rm -f "/dev/shm/c2cscan-emu-$dead"; }

# a program not built with TSan is refused after its run (it might have
# started one that is), named when it is the command; an old recording
# stays either way
cp e.data keep.data
"$C2CSCAN" record --emulate -o keep.data -- "$TOP/$B/progs/counters" >/dev/null 2>refuse.err
expect_eq "a plain build: exit" "$?" 1
expect_eq "a plain build: one line" "$(cat refuse.err)" \
	"c2cscan record: --emulate: $TOP/$B/progs/counters is not built with -fsanitize=thread (it has no ThreadSanitizer hooks, and started nothing that has): rebuild it with -fsanitize=thread, or record without --emulate; nothing written"
cmp -s e.data keep.data || fail "a plain build: the old recording was replaced"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$TOP/$B/progs/counters" >plain.sh
chmod +x plain.sh
"$C2CSCAN" record -q --emulate -o keep.data -- ./plain.sh >/dev/null 2>refuse.err
expect_eq "a plain build behind a script: exit" "$?" 1
grep -q "no emulated samples.*; nothing written$" refuse.err || fail "a plain build behind a script: $(cat refuse.err)"
cmp -s e.data keep.data || fail "a plain build behind a script: the old recording was replaced"
[ -e keep.data.old ] && fail "keep.data.old left behind"
# a start barrier between a warmed-up worker and one created 0, 20 or 100 ms
# later (tests/progs/gate.c): released together, both resume in step, so
# the false sharing counts the same whenever the second ran (it was 173,
# 2 and 8 HITM for 0, 0.2 and 2 ms before; 98 now, each worker's x++ a
# coming a window: 190-199 while its store after the load's HITM was
# counted again)
gate=
for d in 0 20000 100000; do
	"$C2CSCAN" record -q --emulate -o g.data -- "$TOP/$B/progs/gate-tsan" $d >g.out 2>g.err || fail "gate $d: $(cat g.err)"
	"$C2CSCAN" report --json -i g.data >g.json 2>err || fail "report gate $d: $(cat err)"
	gate="$gate $(json_get g.json '[(l["verdict"], l["contention"] // 10) for l in j["cachelines"] if {o["data_member"] for o in l["offsets"]} >= {"pair.a", "pair.b"}]')"
done
expect_eq "gate: the same whenever the second worker ran" "$gate" \
	" [('false sharing', 9)] [('false sharing', 9)] [('false sharing', 9)]"
# threads' lives: signals to a thread in pause(), a timed wait, detach,
# tryjoin, timedjoin and pthread_exit end as in the plain TSan run (a
# handler that never runs would hang it: the time-out)
ts=$TOP/$B/progs/threadsig-tsan
TSAN_OPTIONS=report_bugs=0 "$ts" >ts-plain.out 2>/dev/null || fail "threadsig, plain TSan run: exit $?"
timeout 60 "$C2CSCAN" record -q --emulate -o ts.data -- "$ts" >ts.out 2>ts.err || fail "threadsig: exit $?: $(cat ts.err)"
expect_eq "threadsig: the program's output" "$(cat ts.out)" "$(cat ts-plain.out)"
done_test
