#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every input the fuzzer ever crashed on (tests/fuzz/regress/) is read
# without a crash, and written as stdio, pprof and HTML: exit 0, 1 or 2,
# within a time limit.
. "$TOP/tests/cli/lib.inc"
n=0
for f in "$TOP"/tests/fuzz/regress/*; do
	[ -f "$f" ] || continue
	case "$f" in *.keep) continue;; esac
	n=$((n + 1))
	timeout 20 "$C2CSCAN" report --stdio --pprof "$T/x.pb.gz" --html "$T/x.html" -i "$f" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -le 2 ] || fail "$(basename "$f"): exit $rc: $(tail -n 3 "$T/err")"
done
echo "$n reproducers replayed"
done_test
