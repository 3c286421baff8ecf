#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 10 million tiny records: time and peak memory stay linear (memory flat).
# Prints the measurements; fails only on gross non-linearity (> 30x time for
# 10x records, or memory growing more than 64 MB) so a slow CI machine does
# not make it flaky.
# run-tests: full (records of a million events)
. "$TOP/tests/cli/lib.inc"
case "$B" in *asan*) skip "timing under ASan means nothing";; esac
[ -x /usr/bin/time ] || skip "/usr/bin/time not installed"
mkperf "$TOP/tests/fixtures/scenarios/false-sharing.scn" "$T/good.data" || done_test
python3 "$TOP/tests/bad/mkbad.py" --many 1000000 "$T" "$T/good.data" >/dev/null &&
	python3 "$TOP/tests/bad/mkbad.py" --many 10000000 "$T" "$T/good.data" >/dev/null || { fail "mkbad --many"; done_test; }
for n in 1000000 10000000; do
	/usr/bin/time -f "%e %M" -o "$T/time.$n" "$C2CSCAN" report --stdio -i "$T/many-$n.data" >/dev/null 2>"$T/err" ||
		fail "$n records: exit $?: $(cat "$T/err")"
done
read -r t1 m1 <"$T/time.1000000"
read -r t10 m10 <"$T/time.10000000"
echo "1M records: ${t1}s ${m1} KB; 10M records: ${t10}s ${m10} KB"
awk -v a="$t1" -v b="$t10" 'BEGIN { exit !(b <= 30 * (a + 0.05)) }' || fail "time grows faster than linear: $t1 -> $t10"
awk -v a="$m1" -v b="$m10" 'BEGIN { exit !(b - a <= 65536) }' || fail "memory grows with records: $m1 -> $m10 KB"
done_test
