#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --patch on per-thread elements of arrays (the steps of patch.sh,
# patch.inc): a global array of per-thread structs (tests/progs/slots.c:
# the struct type aligned; its heap arrays are said, not patched, and its
# prediction is checked on the global array only) and a typedef'd
# anonymous struct (anonslots.c: aligned after its struct keyword).
# run-tests: full (four builds and four recordings; patch.sh covers the members in make check)
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
. "$TOP/tests/cli/patch.inc"

# the global array's element type aligned; the heap arrays said
PATCHED=gslots
fix slots slots.c gcc -std=gnu11 -O2 -g -Wall -Werror
PATCHED=
grep -q "^+struct __attribute__((aligned(64))) slot {$" slots.diff || fail "slots: the type not aligned: $(cat slots.diff)"
grep -q "^# c2cscan: line [0-9]* 0x[0-9a-f]*, struct slot\[[0-9]\]\.[a-z]* (tid [0-9]*) and .*: a [0-9]* B heap object from alloc_array at slots.c:[0-9]*: not patched (allocate it 64-byte aligned" slots.diff ||
	fail "slots: the heap array not said: $(cat slots.diff)"
grep -q "gslots" slots.before || fail "slots: no false sharing on gslots before: $(cat slots.before)"
grep -q "gslots" slots.after && fail "slots: false sharing on gslots after: $(cat slots.after)"

# a typedef'd anonymous struct: aligned where it has no tag
fix anonslots anonslots.c gcc -std=gnu11 -O2 -g -Wall -Werror
grep -q "^+typedef struct __attribute__((aligned(64))) {$" anonslots.diff || fail "anonslots: $(cat anonslots.diff)"
grep -q "slots" anonslots.before || fail "anonslots: no false sharing before: $(cat anonslots.before)"
expect_eq "anonslots: false sharing after" "$(cat anonslots.after)" ""
done_test
