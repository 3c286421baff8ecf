#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A real recording made here by the kernel: perf record -e page-faults -d of
# tests/progs/memtouch (three processes touching every keying kind). With
# -d all the report must show:
#  - the .data global written after fork: 3 private lines (one per pid), at
#    the same virtual address (perf c2c would merge them into one)
#  - the MAP_SHARED file mapped at 3 different addresses: 1 shared line, 3 pids
#  - the inherited MAP_SHARED|MAP_ANONYMOUS page: 1 shared line, 3 pids
#  - the private anonymous page mapped after fork: 3 private lines
. "$TOP/tests/cli/lib.inc"
prog=$TOP/$B/progs/memtouch
[ -x "$prog" ] || skip "memtouch not built"
command -v perf >/dev/null 2>&1 || skip "perf not installed"
cd "$T" || exit 1
perf record -q -c 1 -e page-faults -d -o pf.data -- "$prog" "$T/shared-file" >progout 2>perr ||
	skip "perf record -e page-faults -d failed here: $(tail -n 1 perr)"
"$C2CSCAN" report --json -d all --show-all -i pf.data >r.json 2>err || { fail "report: $(cat err)"; done_test; }
"$C2CSCAN" report --stdio -d all -i pf.data >r.txt 2>err || fail "stdio report: $(cat err)"
python3 "$TOP/tests/cli/memtouch-check.py" "$T/progout" "$T/r.json" "$T/shared-file" || fail "keying checks (above)"
grep -q "Cacheline Table" r.txt || fail "stdio report has no table"
done_test
