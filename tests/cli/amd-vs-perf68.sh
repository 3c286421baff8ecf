#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The AMD Zen 4 c2c recording: our "Trace Event Information" must equal the
# numbers perf 6.8 printed for the same file (committed next to it), line by
# line. Counters that depend on address-to-map resolution are listed in
# DIFFER with the reason; all others must match exactly.
. "$TOP/tests/cli/lib.inc"
f=$TOP/tests/fixtures/real/amd-zen4-ibs-c2c-ring.data
ref=$TOP/tests/fixtures/real/amd-zen4-ibs-c2c-ring.perf-6.8-c2c-report.txt
"$C2CSCAN" report --stdio -i "$f" >"$T/out" 2>"$T/err" || { fail "report exit $?: $(cat "$T/err")"; done_test; }
# Labels between the "Trace Event Information" banner and the next banner.
sed -n '/Trace Event Information/,/Global Shared/p' "$ref" | grep ' : ' |
	sed 's/^ *//; s/ *: */|/; s/ *$//' >"$T/ref"
[ "$(wc -l <"$T/ref")" -ge 30 ] || fail "could not parse the reference report"
# No Page Map Rejects: perf 6.8 rejects samples whose data address no mmap
# record covers; kernel data addresses (direct map, slab) never have one, so
# it drops ~52 of the 53 kernel-address memory samples here (yet keeps the
# HITM one it shows as line 1). c2cscan keys every kernel-half address as a
# kernel line, so it rejects none; both show the same two HITM lines.
DIFFER="No Page Map Rejects"
checked=0
while IFS='|' read -r label want; do
	got=$(stdio_value "$T/out" "$label")
	checked=$((checked + 1))
	case "|$DIFFER|" in *"|$label|"*) echo "differs on purpose: $label: perf $want, c2cscan $got"; continue;; esac
	expect_eq "$label" "$got" "$want"
done <"$T/ref"
echo "$checked counters compared"
done_test
