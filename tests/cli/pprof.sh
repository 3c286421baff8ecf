#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --pprof: the profile go tool pprof reads (Debian's golang-go, the
# yardstick): one sample per row (and per call chain with -g), values
# contention, hitm_latency, loads, stores, samples summing to the report's own
# counts; labels with the line, data, heap site, verdict, object and pid;
# locations with the functions and source lines the report names, call
# chains' callers after the row's code. Recordings: a synthetic one with a
# heap object (scenarios), the real AMD Zen 4 one, and counters.c's TSan
# build under record --emulate -g. Bad paths: one line and exit 1.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
command -v go >/dev/null 2>&1 || skip "go (golang-go) is not installed"
export HOME="$T" GOFLAGS=-mod=mod GOCACHE="$T/gocache"

# raw FILE [OPTIONS]: go tool pprof's -raw text of a profile
raw() {
	f=$1
	shift
	go tool pprof -raw "$@" "$f" 2>pp.err || fail "go tool pprof -raw $f: $(cat pp.err)"
}
# sums FILE [OPTIONS]: the five values summed over every sample, from -raw
sums() {
	raw "$@" | awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
		on && $NF ~ /:$/ || on && /: / { for (i = 1; i <= 5; i++) s[i] += $i }
		END { printf "%d %d %d %d %d\n", s[1], s[2], s[3], s[4], s[5] }'
}

# the real AMD recording: the report's totals over its lines, in pprof
amd="$TOP/tests/fixtures/real/amd-zen4-ibs-c2c-ring.data"
"$C2CSCAN" report --pprof amd.pb.gz -i "$amd" >amd.out 2>err || fail "--pprof amd: $(cat err)"
[ -s amd.out ] && fail "--pprof alone printed: $(head -n 2 amd.out)"
gzip -t amd.pb.gz || fail "not gzip"
"$C2CSCAN" report --json -i "$amd" >amd.json 2>err || fail "json amd: $(cat err)"
expect_eq "amd: values" "$(sums amd.pb.gz | cut -d' ' -f1,3,4,5)" \
	"$(json_get amd.json '" ".join(str(sum(o[k] for l in j["cachelines"] for o in l["offsets"])) for k in ("tot_hitm", "loads", "stores", "samples"))')"
raw amd.pb.gz >amd.raw
grep -q "^contention/count\[dflt\] hitm_latency/cycles loads/count stores/count samples/count$" amd.raw ||
	fail "sample types: $(grep count amd.raw | head -n 1)"
grep -q "verdict:\[" amd.raw && grep -q "cacheline:\[0x" amd.raw && grep -q "pid:\[" amd.raw ||
	fail "labels: $(grep -m 2 cacheline amd.raw)"
# --stdio and --pprof together: both
"$C2CSCAN" report --stdio --pprof amd2.pb.gz -i "$amd" >amd2.out 2>err || fail "--stdio --pprof: $(cat err)"
grep -q "^# c2cscan .* report" amd2.out && [ -s amd2.pb.gz ] || fail "--stdio --pprof: not both"

# a heap object's site and the data member
mkperf "$TOP/tests/fixtures/scenarios/heap-false-sharing.scn" heap.data || fail "mkperf"
"$C2CSCAN" report --pprof heap.pb.gz -i heap.data 2>err || fail "--pprof heap: $(cat err)"
raw heap.pb.gz | grep -q "heap_site:\[" || fail "no heap_site label: $(raw heap.pb.gz | grep -m 2 cacheline)"

# an emulated recording with call chains: the rows' functions and callers
bin=$TOP/$B/progs/counters-tsan
# a quarter of its default steps, no time floor (the lockstep needs no overlap)
export COUNTERS_SECONDS=0 COUNTERS_ROUNDS=5
# (no TSan build: said; one that does not record: a failure)
[ -x "$bin" ] || echo "skip: the emulated recording (no -fsanitize=thread build)"
if [ -x "$bin" ] && { "$C2CSCAN" record -q --emulate -g -o e.data -- "$bin" >/dev/null 2>err ||
			{ fail "record --emulate -g: $(cat err)"; false; }; }; then
	"$C2CSCAN" report --pprof e.pb.gz -i e.data 2>err || fail "--pprof emulated: $(cat err)"
	raw e.pb.gz >e.raw
	grep -q "producer_step .*counters.c:3[0-9]" e.raw || fail "no row location: $(sed -n '/^Locations/,$p' e.raw | head -n 5)"
	# top by HITM: the two steps; their callers: run
	go tool pprof -top -sample_index=contention e.pb.gz 2>/dev/null >e.top
	grep -q "producer_step" e.top && grep -q "consumer_step" e.top || fail "top: $(cat e.top)"
	go tool pprof -traces e.pb.gz 2>/dev/null | grep -A2 "producer_step" | grep -q "run" ||
		fail "no caller: $(go tool pprof -traces e.pb.gz 2>&1 | head -n 12)"
	# -top: HITM per function as the report counts its rows
	"$C2CSCAN" report --json -i e.data >e.json 2>err || fail "json emulated: $(cat err)"
	go tool pprof -top -nodecount=1000 -nodefraction=0 -edgefraction=0 -sample_index=contention e.pb.gz 2>/dev/null |
		awk '$2 ~ /%$/ && $NF !~ /%$/ && $1 != 0 { print $NF, $1 }' | sort >e.topf
	json_get e.json '"\n".join("%s %d" % kv for kv in sorted(__import__("functools").reduce(lambda d, o: d.__setitem__(o["symbol"], d.get(o["symbol"], 0) + o["tot_hitm"] + o["st_hitm"]) or d, [o for l in j["cachelines"] for o in l["offsets"] if o["tot_hitm"] + o["st_hitm"]], {}).items()))' >e.jsonf
	expect_eq "-top per function" "$(cat e.topf)" "$(cat e.jsonf)"
	# -tagfocus on a line's address: that line's samples
	a=$(json_get e.json 'j["cachelines"][0]["address"]')
	expect_eq "-tagfocus cacheline=$a" "$(sums e.pb.gz -tagfocus=cacheline=$a | cut -d' ' -f1)" \
		"$(json_get e.json 'j["cachelines"][0]["tot_hitm"] + j["cachelines"][0]["st_hitm"]')"
	go tool pprof -raw -tagfocus=verdict="false sharing" e.pb.gz >e.fs 2>&1; grep -q "counters.produced" e.fs ||
		fail "no false-sharing sample with counters.produced: $(head -n 12 e.fs)"
fi

# absurd periods (what the fuzzer found): values saturate, no overflow
sed 's/^\(sample attr=1 .*\)$/\1 period=18446744073709551615/' "$TOP/tests/fixtures/scenarios/gain.scn" >huge.scn
mkperf huge.scn huge.data || fail "mkperf huge"
"$C2CSCAN" report --pprof huge.pb.gz -i huge.data 2>err || fail "--pprof huge periods: $(cat err)"
raw huge.pb.gz | grep -q "^ *5 9223372036854775807 " || fail "huge: $(raw huge.pb.gz | grep -A3 '^contention/')"
# bad output paths
"$C2CSCAN" report --pprof /nonexistent/x.pb.gz -i "$amd" >/dev/null 2>err
expect_eq "unwritable --pprof: exit" "$?" 1
grep -q "^c2cscan report: --pprof /nonexistent/x.pb.gz: cannot write" err || fail "unwritable: $(cat err)"
done_test
