#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Golden --stdio and --json output of fixtures (tests/golden/NAME.{stdio,json}),
# and no --stdio text cut with an ellipsis. The file path and the version are
# normalized. After an intended change, regenerate with GOLDEN_UPDATE=1 and
# read the diff before committing it.
. "$TOP/tests/cli/lib.inc"
G=$TOP/tests/golden
norm() { sed -e "s|$1|FIXTURE|g" -e "s|c2cscan [0-9][0-9.]* report|c2cscan VERSION report|" -e "s|\"c2cscan [0-9][0-9.]*\"|\"c2cscan VERSION\"|"; }
check_one() { # name data-file
	for fmt in stdio json; do
		"$C2CSCAN" report --$fmt -i "$2" 2>/dev/null | norm "$2" >"$T/$1.$fmt"
		if [ "${GOLDEN_UPDATE:-}" = 1 ]; then
			cp "$T/$1.$fmt" "$G/$1.$fmt"
		elif ! diff -u "$G/$1.$fmt" "$T/$1.$fmt" >"$T/diff"; then
			fail "$1.$fmt differs from tests/golden:"; head -n 40 "$T/diff"
		fi
	done
	! grep -n '[^.]\.\.\.\($\| \)' "$T/$1.stdio" || fail "$1: --stdio cuts text with an ellipsis"
}
for s in cow-3proc false-sharing shared-file shm-anon kernel mmap-v1 peer buildid unmapped no-mem-samples \
	heap-false-sharing heap-damaged heap-probes callchains heap-stacks; do
	mkperf "$TOP/tests/fixtures/scenarios/$s.scn" "$T/$s.data" && check_one "$s" "$T/$s.data"
done
check_one amd-zen4 "$TOP/tests/fixtures/real/amd-zen4-ibs-c2c-ring.data"
done_test
