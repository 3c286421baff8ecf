#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The bad-file catalogue (tests/bad/mkbad.py): every file gets a
# one-line error naming it and the reason with exit 1, or a partial report
# that says so with exit 2, or (where the bad part can be skipped) a report
# with exit 0 -- never a crash, a hang or a runaway allocation (ulimit -v).
. "$TOP/tests/cli/lib.inc"
mkperf "$TOP/tests/fixtures/scenarios/false-sharing.scn" "$T/good.data" || done_test
mkdir "$T/bad"
python3 "$TOP/tests/bad/mkbad.py" "$T/bad" "$T/good.data" >"$T/list" || { fail "mkbad.py"; done_test; }
# no allocation sized by a lying field: 2 GiB of address space is plenty
# (not under ASan, whose shadow memory needs far more)
limit=""
case "$B" in *asan*) ;; *) limit="ulimit -v 2097152;";; esac
while read -r name expect; do
	f=$T/bad/$name
	sh -c "$limit exec timeout 20 \"\$0\" report --stdio -i \"\$1\"" "$C2CSCAN" "$f" >"$T/out" 2>"$T/err"
	rc=$?
	lines=$(wc -l <"$T/err" | tr -d ' ')
	case "$rc:$expect" in
	1:refuse|1:refuse_or_partial)
		[ "$lines" = 1 ] && grep -q "^c2cscan: $f: ." "$T/err" ||
			fail "$name: refusal is not one line naming the file: $(cat "$T/err")";;
	2:partial|2:refuse_or_partial)
		[ "$lines" = 1 ] || fail "$name: $lines stderr lines"
		grep -q "PARTIAL" "$T/out" || fail "$name: partial report does not say so";;
	0:ok)
		[ -s "$T/out" ] || fail "$name: no report"
		case $name in
		*overflow*|short-sample*|filename-no-nul*)
			grep -q "^  Skipped  *: [1-9][0-9]* malformed" "$T/out" || fail "$name: the report does not say what it skipped";;
		esac;;
	*)	fail "$name: exit $rc, expected $expect: $(head -n 3 "$T/err")";;
	esac
	echo "$name: exit $rc ($expect) $(head -n 1 "$T/err")"
done <"$T/list"
# FORK loop and garbage mmaps, as scenarios
cat >"$T/loop.scn" <<'SCN'
attr name=cpu/mem-loads,ldlat=30/P type=raw config=0x1cd id=1
feature hostname=loop nrcpus=2 numa=0-1
comm pid=100 time=1 comm=a exec
fork pid=101 ppid=100 tid=101 ptid=100 time=2
fork pid=100 ppid=101 tid=100 ptid=101 time=3
fork pid=102 ppid=102 tid=102 ptid=102 time=4
mmap2 pid=100 time=5 start=0x7f0000000000 len=0x1000 prot=rw flags=private name=//anon
sample attr=1 pid=101 tid=101 time=6 cpu=0 addr=0x7f0000000040 ip=0x400000 src=lcl_hitm
SCN
mkperf "$T/loop.scn" "$T/loop.data" && {
	timeout 20 "$C2CSCAN" report --stdio -i "$T/loop.data" >"$T/out" 2>"$T/err" || fail "fork loop: exit $?"
}
done_test
