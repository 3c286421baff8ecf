# SPDX-License-Identifier: GPL-2.0
# Shared helpers for tests/cli/*.sh (sourced). Each test exits 0 (pass),
# 77 (skip) or 1 (fail, after printing what differed).
set -u
: "${C2CSCAN:?}" "${TOP:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/c2cscan-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
skip() { echo "skip: $*"; exit 77; }
done_test() { [ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }; exit 0; }

# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }

# mkperf SCENARIO OUT: build a fixture from a scenario file
mkperf() {
	[ -x "${MKPERF:-}" ] || skip "mkperf not built"
	"$MKPERF" "$1" "$2" || { fail "mkperf $1"; return 1; }
}

# json_get FILE PYEXPR: evaluate a python expression on the parsed JSON (j)
json_get() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# stdio_value FILE LABEL: the number after "LABEL :" in a --stdio report
stdio_value() {
	sed -n "s|^  $2 *: *\([0-9.%]*\).*$|\1|p" "$1" | head -n 1
}
