#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --alloc tells the truth about a real program's allocation edge cases
# (tests/progs/allocedge.c): zero-size allocations are valid objects whose
# frees match them, not errors; JSON carries the allocation summary; stdio
# prints the Allocations line whole.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
bin=$TOP/$B/progs/allocedge
[ -x "$bin" ] || skip "allocedge not built"
if ! "$C2CSCAN" record -q --alloc -e page-faults -c 1 -o ae.data -- "$bin" >ae.out 2>ae.err; then
	grep -q "cannot open page-faults" ae.err && skip "perf_event_open not available here"
	fail "record: $(cat ae.err)"
	done_test
fi
"$C2CSCAN" report --json -d all -i ae.data >ae.json 2>err || fail "report: $(cat err)"
expect_eq "zero-size allocations" "$(json_get ae.json '(j["allocations"]["zero_size"], j["allocations"]["unmatched_frees"], j["allocations"]["frees"] >= 4)')" \
	"(3, 0, True)"
"$C2CSCAN" report --stdio -d all -i ae.data >ae.stdio 2>err || fail "stdio: $(cat err)"
grep -q '^  Allocations *: [0-9]* objects, [0-9]* frees in 1 process(es) (record --alloc); 3 of 0 bytes$' ae.stdio ||
	fail "stdio Allocations: $(grep Allocations ae.stdio)"
done_test
