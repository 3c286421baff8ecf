#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every real recording (../shared/realdata when present, and the one shipped
# in tests/fixtures/real) is read (exit 0) or refused / partially read with
# exactly one line on stderr naming the file and the reason (exit 1 / 2);
# never a crash. --json output always parses.
. "$TOP/tests/cli/lib.inc"
n=0
for f in "$TOP"/../shared/realdata/*.data "$TOP"/tests/fixtures/real/*.data; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	"$C2CSCAN" report --stdio -i "$f" >"$T/out" 2>"$T/err"
	rc=$?
	lines=$(wc -l <"$T/err")
	case $rc in
	0)	[ "$lines" = 0 ] || fail "$f: exit 0 but stderr: $(head -n 3 "$T/err")"
		grep -q "^=== Recording ===" "$T/out" || fail "$f: no report";;
	1)	[ "$lines" = 1 ] || fail "$f: refused with $lines stderr lines"
		grep -q "^c2cscan: $f: ." "$T/err" || fail "$f: error does not name the file: $(cat "$T/err")"
		echo "refused: $(cat "$T/err")";;
	2)	[ "$lines" = 1 ] || fail "$f: partial with $lines stderr lines"
		grep -q "PARTIAL" "$T/out" || fail "$f: partial report does not say so"
		echo "partial: $(cat "$T/err")";;
	*)	fail "$f: exit $rc (crash?): $(tail -n 3 "$T/err")";;
	esac
	"$C2CSCAN" report --json -i "$f" >"$T/json" 2>/dev/null
	rc=$?
	if [ $rc = 0 ] || [ $rc = 2 ]; then
		python3 -m json.tool "$T/json" >/dev/null 2>&1 || fail "$f: --json does not parse"
	fi
done
[ $n -gt 0 ] || skip "no recordings found"
echo "$n recordings checked"
done_test
