#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Call graphs on a real program (tests/progs/callers.c): touch() is reached
# ALPHA times from via_alpha() and BETA times through helper() from
# via_beta(), one page-fault sample each. Recorded with -g over the -O0
# build (frame pointers) and with --call-graph dwarf over the -O1 build
# (touch() has no frame): the report's callers of touch() must add up to
# exactly ALPHA and BETA, in JSON, stdio and the browser; perf script must
# read both files; --no-call-graph drops them; -g on a file without stacks
# warns; bad sizes are usage errors. Allocation stacks (tests/progs/wrapped.c,
# record --alloc -g, and the allocator probes with dwarf stacks): heap sites
# move past the wrappers.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
fp=$TOP/$B/progs/callers-fp
dw=$TOP/$B/progs/callers
[ -x "$fp" ] && [ -x "$dw" ] || skip "callers not built"

# callers FILE.json: "via_alpha=N via_beta=M" from the rows whose stack starts at touch
callers() {
	python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
alpha = beta = other = 0
for line in j["cachelines"]:
    for row in line["offsets"]:
        for ch in row.get("callchains", []):
            f = ch["frames"]
            if not f or f[0] != "touch":
                continue
            if f[1:3] == ["via_alpha", "main"]:
                alpha += ch["samples"]
            elif f[1:4] == ["helper", "via_beta", "main"]:
                beta += ch["samples"]
            else:
                other += ch["samples"]
print("via_alpha=%d via_beta=%d other=%d" % (alpha, beta, other))
PY
}

for mode in fp dwarf; do
	if [ $mode = fp ]; then bin=$fp; opt=-g; else bin=$dw; opt="--call-graph dwarf"; fi
	if ! "$C2CSCAN" record -q -e page-faults -u $opt -o $mode.data -- "$bin" >$mode.out 2>$mode.err; then
		grep -q "cannot open page-faults" $mode.err && skip "perf_event_open not available here"
		fail "record $opt: $(cat $mode.err)"
		continue
	fi
	[ -s $mode.err ] && fail "record $opt warns: $(cat $mode.err)"
	read -r _ alpha beta <$mode.out
	"$C2CSCAN" report --json -d all -i $mode.data >$mode.json 2>err || fail "report $mode: $(cat err)"
	expect_eq "$mode: callers of touch" "$(callers $mode.json)" "via_alpha=$alpha via_beta=$beta other=0"
	"$C2CSCAN" report --stdio -d all --lines 0 -i $mode.data >$mode.stdio 2>err || fail "report --stdio $mode"
	n=$(grep -c '100.0%      1  touch <- helper <- via_beta <- main' $mode.stdio)
	expect_eq "$mode: stdio rows called from via_beta through helper" "$n" "$beta"
	grep -q '^  Call graphs  *: [0-9]*/[0-9]* samples with a stack' $mode.stdio ||
		fail "$mode: no Call graphs line"
	if command -v perf >/dev/null 2>&1; then
		perf script -i $mode.data >script.out 2>script.err || fail "perf script $mode: $(cat script.err)"
		grep -q 'helper' script.out || fail "perf script $mode: no helper frame"
	fi
	"$C2CSCAN" report --json --no-call-graph -d all -i $mode.data >none.json 2>err
	grep -q '"callchains"' none.json && fail "$mode: --no-call-graph still lists callchains"
done
# a pid that execs is another program: the shell's modules must not unwind it
"$C2CSCAN" record -q -e page-faults -u --call-graph dwarf -o exec.data -- sh -c "exec $dw" >exec.out 2>err ||
	fail "record through exec: $(cat err)"
read -r _ alpha beta <exec.out
C2CSCAN_UNWIND_CHECK=1 "$C2CSCAN" report --json -d all -i exec.data >exec.json 2>err || fail "report exec: $(cat err)"
expect_eq "after exec: callers of touch" "$(callers exec.json)" "via_alpha=$alpha via_beta=$beta other=0"
# the cached CFI rules answer as libdwfl's unwinder does, sample by sample
C2CSCAN_UNWIND_CHECK=1 "$C2CSCAN" report --stdio -d all -i dwarf.data >check.stdio 2>err
grep -q 'by cached CFI rules.*; 0/[1-9][0-9]* differ from libdwfl' check.stdio ||
	fail "fast unwinding differs from libdwfl's: $(grep -A1 'Call graphs' check.stdio)"
grep -q ': dwarf: [1-9][0-9]*/[0-9]* unwound' dwarf.stdio || fail "dwarf: nothing unwound: $(grep -A1 'Call graphs' dwarf.stdio)"

# the browser: the line touched first by helper's call, its offset, its callers
line=$(python3 -c '
import json, sys
j = json.load(open("dwarf.json"))
for i, l in enumerate(j["cachelines"]):
    for r in l["offsets"]:
        for ch in r.get("callchains", []):
            if ch["frames"][:2] == ["touch", "helper"]:
                print(i); sys.exit(0)
')
if [ -n "$line" ]; then
	keys=""
	i=0; while [ $i -lt "$line" ]; do keys="$keys down"; i=$((i + 1)); done
	echo "$keys enter enter dump:callers.txt esc dump:back.txt" >k
	COLUMNS=80 LINES=24 C2CSCAN_KEYS=k "$C2CSCAN" report --tui -d all -i dwarf.data >/dev/null 2>err ||
		fail "tui: $(cat err)"
	grep -q 'touch <- helper <- via_beta <- main' callers.txt ||
		fail "tui: the callers screen does not show the stack: $(cat callers.txt)"
	grep -q '^ 1 sample with a stack' callers.txt || fail "tui: no stack count on the callers screen"
	cmp -s callers.txt back.txt && fail "tui: esc did not leave the callers screen"
else
	fail "dwarf: no row called through helper"
fi

# allocation stacks: objects allocated through wrappers (tests/progs/wrapped.c)
# are the wrappers' callers' with a call graph, the wrapper's without
wr=$TOP/$B/progs/wrapped
# sites FILE.json: "size=site ..." of the large objects, by size
sites() {
	python3 - "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
seen = {}
for line in j["cachelines"]:
    for row in line["offsets"]:
        h = row.get("heap")
        if h and h["size"] >= 64 * 4096:
            seen[h["size"]] = "%s:%s" % (h["site"], (h["alloc_stack"] or ["-"])[0])
print(" ".join("%d=%s" % (k, seen[k]) for k in sorted(seen)))
PY
}
S0=262144 S1=266240 S2=270336
"$C2CSCAN" record -q --alloc -e page-faults -u -g -o w.data -- "$wr" >/dev/null 2>err || fail "record --alloc -g: $(cat err)"
"$C2CSCAN" report --json -d all -i w.data >w.json 2>err || fail "report w: $(cat err)"
expect_eq "heap sites past xmalloc" "$(sites w.json)" \
	"$S0=make_conn:xmalloc $S1=make_table:xmalloc $S2=pool_get:xmalloc"
"$C2CSCAN" report --json -d all --alloc-wrapper 'pool_*' -i w.data >w2.json 2>err
expect_eq "--alloc-wrapper pool_*" "$(sites w2.json)" \
	"$S0=make_conn:xmalloc $S1=make_table:xmalloc $S2=make_pool_item:xmalloc"
"$C2CSCAN" report --stdio -d all --lines 0 -i w.data >w.stdio 2>err
grep -q "^        make_conn at wrapped.c:[0-9]* (262144 B, malloc via xmalloc, tid" w.stdio ||
	fail "stdio: the heap object does not say 'via xmalloc': $(grep -A1 'heap objects' w.stdio | head -n 4)"
grep -q '^ *: 4 allocation stacks, 3 wrapper calls skipped' w.stdio ||
	fail "stdio: Allocations line: $(grep Allocations w.stdio)"
"$C2CSCAN" record -q --alloc -e page-faults -u -o w0.data -- "$wr" >/dev/null 2>err
"$C2CSCAN" report --json -d all -i w0.data >w0.json 2>err
expect_eq "heap sites without a call graph" "$(sites w0.json)" "$S0=xmalloc:- $S1=xmalloc:- $S2=xmalloc:-"
# a wrapper called from functions without a symbol (a stripped program that
# keeps only xmalloc's): the site is the caller's address, not xmalloc
if command -v strip >/dev/null 2>&1 && ${CC:-gcc} -std=gnu11 -O1 -D_GNU_SOURCE -Wl,--build-id=none -o wrapped-n \
	"$TOP/tests/progs/wrapped.c" -lpthread 2>/dev/null && strip --strip-all -K xmalloc wrapped-n; then
	"$C2CSCAN" record -q --alloc -e page-faults -u -g -o wn.data -- ./wrapped-n >/dev/null 2>err || fail "record wn: $(cat err)"
	"$C2CSCAN" report --json -d all -i wn.data >wn.json 2>err || fail "report wn: $(cat err)"
	expect_eq "sites of unnamed callers" "$(json_get wn.json 'sorted(set((h["site"], h["alloc_stack"][0], h["site_address"] == h["alloc_stack"][1].split()[0]) for l in j["cachelines"] for o in l["offsets"] for h in [o.get("heap")] if h and h["size"] >= 64 * 4096))')" \
		"[(None, 'xmalloc', True)]"
	expect_eq "three callers" "$(json_get wn.json 'len(set(o["heap"]["site_address"] for l in j["cachelines"] for o in l["offsets"] if o.get("heap") and o["heap"]["size"] >= 64 * 4096))')" 3
fi
# the allocator probes of a running process, with dwarf stacks
"$wr" wait >wp.out &
bgpid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do grep -qs "^pid" wp.out && break; sleep 0.1; done
# record's command starts once the probes are on: it lets the program
# allocate and lasts as long as the program does
"$C2CSCAN" record -q --alloc -e page-faults -u --call-graph dwarf -p $bgpid -o wp.data -- \
	sh -c 'kill -USR1 $1; while kill -0 $1 2>/dev/null; do sleep 0.05; done' sh $bgpid >/dev/null 2>err ||
	fail "record -p --call-graph dwarf: $(cat err)"
wait $bgpid
"$C2CSCAN" report --json -d all -i wp.data >wp.json 2>err || fail "report wp: $(cat err)"
expect_eq "probes: heap sites past xmalloc" "$(sites wp.json)" \
	"$S0=make_conn:xmalloc $S1=make_table:xmalloc $S2=pool_get:xmalloc"
"$C2CSCAN" report --stdio --alloc-wrapper '' -i w.data >/dev/null 2>err
expect_eq "--alloc-wrapper '': exit" "$?" 129

# without stacks: -g warns, the report is the same
"$C2CSCAN" record -q -e page-faults -u -o plain.data -- "$dw" >/dev/null 2>&1
"$C2CSCAN" report --stdio -g -i plain.data >/dev/null 2>err
grep -q 'has no call graphs (record with -g or --call-graph dwarf)' err || fail "-g without stacks: $(cat err)"
# synthetic call graphs and their damage (tests/fixtures/scenarios/callchains.scn)
mkperf "$TOP/tests/fixtures/scenarios/callchains.scn" cc.data
"$C2CSCAN" report --json -d all --show-all -i cc.data >cc.json 2>err || fail "callchains.scn: $(cat err)"
expect_eq "callchains.scn: stacks of offset 0x8" "$(json_get cc.json \
	'[(c["samples"], len(c["frames"])) for c in j["cachelines"][0]["offsets"][0]["callchains"]]')" \
	"[(3, 3), (2, 3), (1, 2)]"
expect_eq "callchains.scn: the looping chain" "$(json_get cc.json \
	'max(len(c["frames"]) for c in j["cachelines"][0]["offsets"][1]["callchains"])')" 64
"$C2CSCAN" report --stdio -d all --show-all -i cc.data >cc.stdio 2>&1
grep -q 'Call graphs *: 11/12 samples with a stack (7 distinct); 1 cut at 64 frames; 2 stack copies claimed more' \
	cc.stdio || fail "callchains.scn: Call graphs line: $(grep -A1 'Call graphs' cc.stdio)"
grep -q ': dwarf: 0/4 unwound (0 by cached CFI rules), 2 in unknown code, 2 no registers' cc.stdio ||
	fail "callchains.scn: dwarf line: $(grep -A1 'Call graphs' cc.stdio)"
# allocation stacks and their damage (heap-stacks.scn)
mkperf "$TOP/tests/fixtures/scenarios/heap-stacks.scn" hs.data
"$C2CSCAN" report --json -i hs.data >hs.json 2>err || fail "heap-stacks.scn: $(cat err)"
expect_eq "heap-stacks.scn: stack depths" "$(json_get hs.json \
	'sorted((o["address"], len(o["alloc_stack"] or [])) for l in j["cachelines"] for o in l["heap_objects"])')" \
	"[('0x2000040', 7), ('0x2000060', 3), ('0x2000080', 0)]"
"$C2CSCAN" report --stdio -i hs.data | grep -q '^ *: 2 allocation stacks, 0 wrapper calls skipped; 2 stack events after no allocation' ||
	fail "heap-stacks.scn: the Allocations line does not count the stray stack events"
# usage errors
for bad in "dwarf,0" "dwarf,70000" "dwarfx" "lbr" "dwarf,abc"; do
	"$C2CSCAN" record --call-graph "$bad" -o x.data -- true >/dev/null 2>err
	expect_eq "--call-graph $bad: exit" "$?" 129
done
# a -O1 program without frame pointers recorded with -g: its chains end in
# null frames, which perf prints as unknown; no kernel symbol is named in the
# user part of a chain (the last kernel byte's, ftrace_trampoline, was)
if "$C2CSCAN" record -q -g -e page-faults -c 1 -o nofp.data -- "$TOP/$B/progs/heapobj" >/dev/null 2>err; then
	"$C2CSCAN" report --json -d all --show-all -i nofp.data >nofp.json 2>err || fail "nofp: $(cat err)"
	expect_eq "null frames" "$(json_get nofp.json '(sorted(set(f for l in j["cachelines"] for o in l["offsets"] for c in o.get("callchains") or [] for f in c["frames"] if "ftrace" in f or "[__builtin" in f)), any(f == "[unknown]" for l in j["cachelines"] for o in l["offsets"] for c in o.get("callchains") or [] for f in c["frames"]))')" \
		"([], True)"
else
	fail "record -g: $(cat err)"
fi
done_test
