#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The AMD Zen 4 c2c recording: our "Trace Event Information" must equal the
# numbers perf 6.8 printed for the same file (committed next to it), line by
# line. Counters that depend on address-to-map resolution are listed in
# DIFFER with the reason; all others must match exactly.
. "$TOP/tests/cli/lib.sh"
f=$TOP/tests/fixtures/real/amd-zen4-ibs-c2c-ring.data
ref=$TOP/tests/fixtures/real/amd-zen4-ibs-c2c-ring.perf-6.8-c2c-report.txt
"$C2CSCAN" report --stdio -i "$f" >"$T/out" 2>"$T/err" || { fail "report exit $?: $(cat "$T/err")"; done_test; }
# Labels between the "Trace Event Information" banner and the next banner.
sed -n '/Trace Event Information/,/Global Shared/p' "$ref" | grep ' : ' |
	sed 's/^ *//; s/ *: */|/; s/ *$//' >"$T/ref"
[ "$(wc -l <"$T/ref")" -ge 30 ] || fail "could not parse the reference report"
DIFFER=""
checked=0
while IFS='|' read -r label want; do
	got=$(stdio_value "$T/out" "$label")
	checked=$((checked + 1))
	case "|$DIFFER|" in *"|$label|"*) echo "differs on purpose: $label: perf $want, c2cscan $got"; continue;; esac
	expect_eq "$label" "$got" "$want"
done <"$T/ref"
echo "$checked counters compared"
done_test
