#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --emulate on the project's workloads built with GCC's
# -fsanitize=thread (scripts/workloads/*-tsan): false sharing and its
# padded fix, true sharing, heap false sharing named by record --alloc and
# its aligned fix, and across processes: two processes writing neighbouring
# words of one /dev/shm segment (false sharing of a shared line, keyed by
# inode), three forked processes on a MAP_SHARED anonymous page (true
# sharing) and on their copy-on-write .data (nothing). Atomics of every
# width and operation keep their results under the runtime (GCC and Clang
# builds, threads and a forked process on a shared page); an exec'd
# program is followed, one not built with TSan left alone.
# run-tests: full (five workloads twice, GCC and Clang)
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
W=$TOP/$B/workloads
[ -x "$W/false-sharing-tsan" ] || skip "no -fsanitize=thread builds of the workloads"
"$W/false-sharing-tsan" 1 >/dev/null 2>&1 || skip "a -fsanitize=thread program does not run here"

# emu NAME [--alloc] ARGS...: record the workload's TSan build into
# NAME.data, its report into NAME.json; every HITM sampled (hitm=1): the
# short runs on a loaded machine interleave their threads coarsely
emu() {
	name=$1
	shift
	alloc=
	[ "$1" = --alloc ] && alloc=$1 && shift
	"$C2CSCAN" record -q --emulate=hitm=1 $alloc -o "$name.data" -- "$@" >"$name.out" 2>"$name.err" ||
		fail "record $name: $(cat "$name.err")"
	# (a Clang build's heap is libtsan's: said, and expected; so is a
	# thread that a loaded machine kept off a CPU in a system call)
	grep -v "^c2cscan record: --emulate: \(the heap is libtsan's (a Clang build's allocator\|[0-9]* time(s) a thread blocked\)" \
		"$name.err" >"$name.said"
	[ -s "$name.said" ] && fail "record $name says: $(cat "$name.said")"
	"$C2CSCAN" report --json -i "$name.data" >"$name.json" 2>err || fail "report $name: $(cat err)"
}
# the verdicts of the lines with contention: (verdict, key kind, processes);
# false-sharing.c's barriers (start, step, done: true sharing, modelled
# as glibc's pthread_barrier_wait touches them) left out
verdicts() {
	json_get "$1.json" 'sorted(set((l["verdict"], l["key"]["kind"], len(l["pids"])) for l in j["cachelines"] if l["verdict"] in ("false sharing", "true sharing", "mixed") and not all(o["data_symbol"] in ("start", "step", "done") for o in l["offsets"])))'
}

emu fs "$W/false-sharing-tsan" 4
expect_eq "false-sharing" "$(verdicts fs)" "[('false sharing', 'private', 1)]"
# (the loop's stores are long ints; touch_phase's store through the char
# page pointer may be sampled too, typed by its pointer)
expect_eq "false-sharing: its rows" "$(json_get fs.json 'sorted(set((o["offset"], o["type"]) for l in j["cachelines"] if l["verdict"] == "false sharing" for o in l["offsets"] if o["stores"] and o["type"] != "char"))')" \
	"[(0, 'long int'), (8, 'long int')]"
emu fsp "$W/false-sharing-tsan" padded 4
expect_eq "false-sharing padded" "$(verdicts fsp)" "[]"

emu ts "$W/true-sharing-tsan" 4
expect_eq "true-sharing" "$(verdicts ts)" "[('true sharing', 'private', 1)]"
json_get ts.json '[l["advice"] for l in j["cachelines"] if l["verdict"] == "true sharing"][0]' |
	grep -q "written and read by 2 threads" || fail "true-sharing advice: $(json_get ts.json '[l["advice"] for l in j["cachelines"]]')"

# heap objects: the two calloc'd counters of make_counter share a line
emu hfs --alloc "$W/heap-false-sharing-tsan" 2000000
expect_eq "heap-false-sharing" "$(verdicts hfs)" "[('false sharing', 'private', 1)]"
expect_eq "heap-false-sharing: objects and members" "$(json_get hfs.json 'sorted(set((o["heap"]["site"], o["type"], o["data_member"]) for l in j["cachelines"] if l["verdict"] == "false sharing" for o in l["offsets"] if o["heap"]))')" \
	"[('make_counter', 'struct counter', 'hits')]"
json_get hfs.json '[l["advice"] for l in j["cachelines"] if l["verdict"] == "false sharing"][0]' |
	grep -q "^two 24 B objects from make_counter, written by tid [0-9]* and tid [0-9]*, share a line: allocate them 64-byte aligned" ||
	fail "heap advice: $(json_get hfs.json '[l["advice"] for l in j["cachelines"]]')"
emu hfa --alloc "$W/heap-false-sharing-tsan" aligned 2000000
expect_eq "heap-false-sharing aligned" "$(verdicts hfa)" "[]"
# Clang's build: its allocator is in the executable (the shim cannot bind
# ahead of it), so record probes the executable's malloc family instead
if [ -x "$W/heap-false-sharing-clang-tsan" ]; then
	emu hfc --alloc "$W/heap-false-sharing-clang-tsan" 2000000
	expect_eq "clang heap-false-sharing" "$(verdicts hfc)" "[('false sharing', 'private', 1)]"
	expect_eq "clang: objects" "$(json_get hfc.json 'sorted(set(o["heap"]["site"] for l in j["cachelines"] if l["verdict"] == "false sharing" for o in l["offsets"] if o["heap"]))')" \
		"['make_counter']"
fi

# processes: a /dev/shm segment mapped apart by two (one line, keyed by
# inode: false sharing between processes), private pages (nothing), a
# MAP_SHARED anonymous page of three forked ones (true sharing), their
# copy-on-write .data (nothing). shm's two processes overlap only as the
# machine runs them (each is forked, then works and sleeps): 20 rounds of
# each, 4 lost the overlap in 2 runs of 12 under make asan's load
emu shm "$W/shm-tsan" 20
expect_eq "shm" "$(verdicts shm)" "[('false sharing', 'shared', 2)]"
# (the same, with the mappings read as kernels before 6.11 have them: text)
C2CSCAN_EMU_MAPS_TEXT=1 emu shmt "$W/shm-tsan" 20
expect_eq "shm, maps as text" "$(verdicts shmt)" "[('false sharing', 'shared', 2)]"
emu shmp "$W/shm-tsan" private 20
expect_eq "shm private" "$(verdicts shmp)" "[]"
emu cows "$W/cow-tsan" shared 4
expect_eq "cow shared" "$(verdicts cows)" "[('true sharing', 'shared', 3)]"
emu cow "$W/cow-tsan" 4
expect_eq "cow (copy-on-write)" "$(verdicts cow)" "[]"

# atomics: exact results, HITMs on the page two processes share
for b in atomics-tsan atomics-clang-tsan; do
	[ -x "$TOP/$B/progs/$b" ] || continue
	emu $b "$TOP/$B/progs/$b"
	expect_eq "$b: results" "$(cat $b.out)" "atomics ok"
	expect_eq "$b: the shared page" "$(json_get $b.json '[(len(l["pids"]), l["tot_hitm"] > 0, l["locks"] > 0) for l in j["cachelines"] if l["key"]["kind"] == "shared"]')" \
		"[(2, True, True)]"
done

# exec: the TSan program a shell starts is modelled; the shell is not
emu sh sh -c "'$W/false-sharing-tsan' 4 && echo done"
expect_eq "exec: the program's output" "$(tail -n 1 sh.out)" "done"
expect_eq "exec: its lines" "$(verdicts sh)" "[('false sharing', 'private', 1)]"
done_test
