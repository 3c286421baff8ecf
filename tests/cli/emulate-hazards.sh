#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The emulation runtime never harms the program (tests/progs/churn.c, a GCC
# -O1 TSan build): a 100 us SIGALRM handler touching memory while threads
# end, a pthread key destructor created after the runtime's, 55 threads
# coming and going between the start of two threads that then ping-pong on
# one line. The program's output is the plain TSan build's; the ping-pong
# is contention (cores are reused as threads end: handed out round-robin,
# pong got ping's core and 1,300 HITM became 3); more live threads than the
# model's cores is said; a chain deeper than the shadow stack keeps its
# innermost callers; a program that manages its own descriptors loses
# nothing and gets nothing of ours.
# run-tests: full (seven recordings of the runtime's hazards, forks of 16 MiB each)
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
bin=$TOP/$B/progs/churn-tsan
[ -x "$bin" ] || skip "no -fsanitize=thread build of churn.c (libtsan missing?)"
tsan_runs || skip "a -fsanitize=thread program does not run here"
TSAN_OPTIONS=report_bugs=0 "$bin" >plain.out 2>/dev/null || fail "plain TSan run: exit $?"
"$C2CSCAN" record -q --emulate=hitm=1 -o c.data -- "$bin" >c.out 2>c.err
expect_eq "record: exit" "$?" 0
expect_eq "record: says" "$(cat c.err)" ""
expect_eq "the program's output" "$(cat c.out)" "$(cat plain.out)"
"$C2CSCAN" report --json -i c.data >c.json 2>err || fail "report: $(cat err)"
expect_eq "the ping-pong" "$(json_get c.json '[(l["verdict"], l["contention"] >= 10) for l in j["cachelines"] if {o["data_member"] for o in l["offsets"]} == {"pair.ping", "pair.pong"}]')" \
	"[('false sharing', True)]"
# 60 threads live at once: more than the model's cores, said
"$C2CSCAN" record -q --emulate -o w.data -- "$bin" wide >w.out 2>w.err
expect_eq "wide: exit" "$?" 0
expect_eq "wide: said" "$(cat w.err)" \
	"c2cscan record: --emulate: more live threads than the model's 56 cores: 5 thread(s) shared a core, and their accesses to each other's lines count as cache hits"
# a program that closes and dup2()s over descriptors it did not open
# (tests/progs/fds.c): its file holds what it wrote, its first open() is 0
# (it checks), both threads' samples are in the recording
"$TOP/$B/progs/fds-tsan" "$T/plain-fds.out" >plain-fds.txt 2>/dev/null || fail "fds, plain TSan: $(cat plain-fds.txt)"
"$C2CSCAN" record -q --emulate=hitm=1 -o f.data -- "$TOP/$B/progs/fds-tsan" "$T/fds.out" >fds.txt 2>f.err ||
	fail "fds: exit $?: $(cat fds.txt f.err)"
expect_eq "fds: its output" "$(cat fds.txt)" "$(cat plain-fds.txt)"
expect_eq "fds: its file" "$(cat fds.out)" "fifteen bytes."
"$C2CSCAN" report --json -i f.data >f.json 2>err || fail "report fds: $(cat err)"
expect_eq "fds: both threads sampled" "$(json_get f.json '[(l["verdict"], len(l["tids"]) >= 2) for l in j["cachelines"] if {o["data_member"] for o in l["offsets"]} >= {"pair.a", "pair.b"}]')" \
	"[('false sharing', True)]"
# 1,500 calls deep, past the 1,024-entry shadow stack: the innermost callers kept
# forked children that filled the table and ended: their entries are
# reused, the parent's ping-pong after them is seen
"$C2CSCAN" record -q --emulate -o k.data -- "$bin" forks >k.out 2>k.err || fail "forks: $(cat k.err)"
expect_eq "forks: said" "$(cat k.err)" ""
"$C2CSCAN" report --json -i k.data >k.json 2>err || fail "report forks: $(cat err)"
expect_eq "forks: the ping-pong" "$(json_get k.json '[(l["verdict"], l["contention"] >= 10) for l in j["cachelines"] if {o["data_member"] for o in l["offsets"]} == {"pair.ping", "pair.pong"}]')" \
	"[('false sharing', True)]"
# not run by record, preloaded by hand (GCC and Clang builds): the same
# output, exit status and ThreadSanitizer report as without the runtime
# (addresses and pids aside), and one line saying nothing was modelled
for b in churn-tsan churn-clang-tsan; do
	p=$TOP/$B/progs/$b
	[ -x "$p" ] || continue
	"$p" race >p.out 2>p.err
	prc=$?
	LD_PRELOAD=$TOP/$B/libc2cscan-emu.so "$p" race >q.out 2>q.err
	qrc=$?
	expect_eq "$b preloaded: exit status" "$qrc" "$prc"
	expect_eq "$b preloaded: output" "$(cat q.out)" "$(cat p.out)"
	expect_eq "$b preloaded: said once" "$(grep -c "^c2cscan emu: not run by 'c2cscan record --emulate'" q.err)" 1
	norm='s/0x[0-9a-f]*/ADDR/g; s/pid=[0-9]*/pid=PID/g; s/tid=[0-9]*/tid=TID/g; /^c2cscan emu: not run by/d'
	expect_eq "$b preloaded: ThreadSanitizer's report" "$(sed "$norm" q.err)" "$(sed "$norm" p.err)"
	grep -q "WARNING: ThreadSanitizer: data race" q.err || fail "$b preloaded: no race reported: $(cat q.err)"
done
# a signal handler that touches memory while the program maps and unmaps
# shared memory: without libtsan (which held signals back to its next
# interceptor) it can come inside the runtime's mmap and munmap, whose
# table lock it then waited for in the same thread for ever
timeout 120 "$C2CSCAN" record --emulate -o sm.data -- "$bin" sigmaps >sm.out 2>sm.err || fail "sigmaps: exit $?: $(cat sm.err)"
expect_eq "sigmaps: the run" "$(cat sm.out)" "sigmaps 5000 ticked"
grep -q "^c2cscan record: --emulate: libtsan not loaded" sm.err || fail "sigmaps: libtsan loaded: $(cat sm.err)"
# a handler that leaves by siglongjmp, 2,000 times, while the main thread
# writes memory line by line (in the runtime at nearly every access): each
# waits until the hook is done, so the main thread's accesses are modelled
# to the end (without that: none after the first jump, the thread stuck in
# the runtime for good) and the players' ping-pong is seen
timeout 120 "$C2CSCAN" record -q --emulate -o j.data -- "$bin" jumps >j.out 2>j.err || fail "jumps: exit $?: $(cat j.err)"
expect_eq "jumps: the run" "$(cat j.out)" "jumps 2000 ping 3000000 pong 3000000"
# (a thread the machine's load keeps from running 100 ms is dropped from
# the lockstep and said: not this test's point, and CI's load does it)
expect_eq "jumps: said" "$(grep -v 'time(s) a thread blocked where the model cannot see' j.err)" ""
"$C2CSCAN" report --json -i j.data >j.json 2>err || fail "report jumps: $(cat err)"
expect_eq "jumps: the main thread's accesses modelled" \
	"$(json_get j.json 'any(p in o["tids"] for l in j["cachelines"] for o in l["offsets"] for p in o["pids"])')" "True"
expect_eq "jumps: the ping-pong" "$(json_get j.json '[(l["verdict"], l["contention"] >= 10) for l in j["cachelines"] if {o["data_member"] for o in l["offsets"]} == {"pair.ping", "pair.pong"}]')" \
	"[('false sharing', True)]"
# the program's errno is its own: the hooks' system calls leave it
"$C2CSCAN" record -q --emulate -o e.data -- "$bin" errno >e.out 2>e.err || fail "errno: $(cat e.out e.err)"
grep -q "^errno changed 0 times" e.out || fail "errno: $(cat e.out)"
# 96 MiB written a mapping at a time, each unmapped before the next: the
# entries of unmapped memory are reused, the ping-pong after them is seen
"$C2CSCAN" record -q --emulate -o u.data -- "$bin" unmapped >u.out 2>u.err || fail "unmapped: $(cat u.err)"
expect_eq "unmapped: said" "$(cat u.err)" ""
"$C2CSCAN" report --json -i u.data >u.json 2>err || fail "report unmapped: $(cat err)"
expect_eq "unmapped: the ping-pong" "$(json_get u.json '[(l["verdict"], l["contention"] >= 10) for l in j["cachelines"] if {o["data_member"] for o in l["offsets"]} == {"pair.ping", "pair.pong"}]')" \
	"[('false sharing', True)]"
# new memory mapped where another thread's unmapped memory was, written
# by a thread of its own: no line of it contended (every HITM sampled; the
# old lines' states carried over made 65,536 store HITMs of a 4 MiB
# mapping, 655,360 of a 40 MiB malloc block the C library mapped itself,
# 65,536 of a mapping's pages given back with MADV_DONTNEED)
# (and with 16-byte lines, four blocks of the table a page)
for how in remap bigfree dontneed remap,line=16; do
	case $how in *,*) opt=hitm=1,${how#*,} ;; *) opt=hitm=1 ;; esac
	how=${how%%,*}
	"$C2CSCAN" record -q --emulate=$opt -o r.data -- "$bin" $how >r.out 2>r.err || fail "$how: $(cat r.err)"
	expect_eq "$how: said" "$(cat r.err)" ""
	set -- $(cat r.out)
	[ "$1" = $how ] && [ "$2" = "$3" ] || fail "$how: not at the same address: $(cat r.out)"
	"$C2CSCAN" report --json -i r.data >r.json 2>err || fail "report $how: $(cat err)"
	expect_eq "$how: the new memory's lines contended" \
		"$(json_get r.json "len([l for l in j['cachelines'] if $2 <= int(l['address'], 16) < $2 + $4 and l['contention']])")" 0
	expect_eq "$how: contended accesses" "$(json_get r.json "sum(l['contention'] for l in j['cachelines']) < 20")" "True"
done
# more lines than the model's table holds: said, not lost silently
"$C2CSCAN" record -q --emulate -o b.data -- "$bin" big >b.out 2>b.err || fail "big: $(cat b.err)"
grep -q "^c2cscan record: --emulate: [0-9]* accesses went to lines the model's table had no room for" b.err ||
	fail "big: record says: $(cat b.err)"
grep -q "^c2cscan record: --emulate: the model's table was full: [0-9]* lines no thread had touched for 64 windows were evicted" b.err ||
	fail "big: no eviction said: $(cat b.err)"
# 96 MiB written and kept, then the ping-pong: lines untouched since are
# evicted for its line (said), and its contention is seen
"$C2CSCAN" record -q --emulate -o full.data -- "$bin" full >full.out 2>full.err || fail "full: $(cat full.err)"
grep -q "^c2cscan record: --emulate: the model's table was full: [0-9]* lines" full.err ||
	fail "full: no eviction said: $(cat full.err)"
"$C2CSCAN" report --json -i full.data >full.json 2>err || fail "report full: $(cat err)"
expect_eq "full: the ping-pong" "$(json_get full.json '[(l["verdict"], l["contention"] >= 10) for l in j["cachelines"] if {o["data_member"] for o in l["offsets"]} == {"pair.ping", "pair.pong"}]')" \
	"[('false sharing', True)]"
"$C2CSCAN" record -q --emulate=hitm=1 -g -o d.data -- "$bin" deep >d.out 2>d.err || fail "deep: $(cat d.err)"
grep -q "^c2cscan record: --emulate: [0-9]* of [0-9]* samples had more callers than a call chain holds (127 frames): the innermost are kept, the outermost cut$" d.err ||
	fail "deep: the cut chains are not said: $(cat d.err)"
"$C2CSCAN" report --json -i d.data >d.json 2>err || fail "report deep: $(cat err)"
expect_eq "deep: the innermost callers" "$(json_get d.json 'sorted(set(tuple(c["frames"][:3]) for l in j["cachelines"] for o in l["offsets"] if o["data_member"] in ("pair.ping", "pair.pong") and o["symbol"] == "bump" for c in o["callchains"]))')" \
	"[('bump', 'bottom', 'deep')]"
done_test
