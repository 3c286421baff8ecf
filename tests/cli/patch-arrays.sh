#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --patch on heap data and per-thread elements of arrays (the steps
# of patch.sh, patch.inc): a global array and two calloc'd arrays of
# per-thread structs (tests/progs/slots.c: the struct types aligned, the
# calloc at the allocation site a line-aligned helper's call, the helper
# after the last #include); a malloc'd array and per-thread objects of
# their own mallocs, in C (heapslots.c) and with new[] and new in C++
# (heapslotsxx.cc); a struct shared through a pointer (sharedjob.c); a
# typedef'd anonymous struct (anonslots.c: aligned after its struct
# keyword).
# run-tests: full (ten builds and ten recordings; patch.sh covers the members in make check)
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
. "$TOP/tests/cli/patch.inc"

# the element types aligned, the heap arrays' allocation too
fix slots slots.c gcc -std=gnu11 -O2 -g -Wall -Werror
grep -q "^+struct __attribute__((aligned(64))) slot {$" slots.diff || fail "slots: the type not aligned: $(cat slots.diff)"
grep -q "^+struct __attribute__((aligned(64))) counter {$" slots.diff || fail "slots: counter not aligned: $(cat slots.diff)"
grep -q "^+	return c2cscan_calloc_aligned(n, size);$" slots.diff || fail "slots: the calloc not rewritten: $(cat slots.diff)"
grep -q "^+static void \*c2cscan_calloc_aligned(size_t n, size_t size)$" slots.diff || fail "slots: no helper: $(cat slots.diff)"
grep -q "^# c2cscan" slots.diff && fail "slots: something not patched: $(cat slots.diff)"
grep -q "gslots" slots.before || fail "slots: no false sharing on gslots before: $(cat slots.before)"
grep -q "^\[1\]\.hits$" slots.before || fail "slots: no false sharing on the heap slots before: $(cat slots.before)"
expect_eq "slots: false sharing after" "$(cat slots.after)" ""

# a malloc'd array of per-thread structs and per-thread objects of their
# own mallocs (tests/progs/heapslots.c): the type aligned, both allocation
# sites aligned_alloc with their sizes rounded up
export HEAPSLOTS_STEPS=300000
fix heapslots heapslots.c gcc -std=gnu11 -O2 -g -Wall -Werror
grep -q "^+struct __attribute__((aligned(64))) qstate {$" heapslots.diff || fail "heapslots: the type: $(cat heapslots.diff)"
grep -q "^+	queues = aligned_alloc(64, ((NT \* sizeof(\*queues)) + 63) / 64 \* 64);$" heapslots.diff ||
	fail "heapslots: the array's malloc: $(cat heapslots.diff)"
grep -q "^+		counters\[i\] = aligned_alloc(64, ((sizeof(\*counters\[i\])) + 63) / 64 \* 64);$" heapslots.diff ||
	fail "heapslots: the counters' malloc: $(cat heapslots.diff)"
grep -q "^\[1\]\.head$" heapslots.before && grep -q "^n$" heapslots.before ||
	fail "heapslots: false sharing before: $(cat heapslots.before)"
expect_eq "heapslots: false sharing after" "$(cat heapslots.after)" ""
# the same in C++ with new[] and new: the types aligned (C++17's new of an
# over-aligned type is aligned), the allocations as they were
fix heapslotsxx heapslotsxx.cc g++ -std=gnu++17 -O2 -g -Wall -Werror
grep -q "^+struct alignas(64) qstate {$" heapslotsxx.diff && grep -q "^+struct alignas(64) counter {$" heapslotsxx.diff ||
	fail "heapslotsxx: the types: $(cat heapslotsxx.diff)"
grep -q "^-.*new" heapslotsxx.diff && fail "heapslotsxx: a new changed: $(cat heapslotsxx.diff)"
expect_eq "heapslotsxx: false sharing after" "$(cat heapslotsxx.after)" ""

# a struct shared through a pointer (tests/progs/sharedjob.c: one calloc'd
# job, its producer's and consumer's counters side by side): the member
# aligned in the struct's declaration, the allocation as it was
export SHAREDJOB_STEPS=300000
fix sharedjob sharedjob.c gcc -std=gnu11 -O2 -g -Wall -Werror
grep -q "^+	_Alignas(64) long consumed;$" sharedjob.diff || fail "sharedjob: the member: $(cat sharedjob.diff)"
grep -q "^-.*calloc" sharedjob.diff && fail "sharedjob: the allocation changed: $(cat sharedjob.diff)"
grep -q "^produced$" sharedjob.before && grep -q "^consumed$" sharedjob.before ||
	fail "sharedjob: false sharing before: $(cat sharedjob.before)"
expect_eq "sharedjob: false sharing after" "$(cat sharedjob.after)" ""

# a typedef'd anonymous struct: aligned where it has no tag
fix anonslots anonslots.c gcc -std=gnu11 -O2 -g -Wall -Werror
grep -q "^+typedef struct __attribute__((aligned(64))) {$" anonslots.diff || fail "anonslots: $(cat anonslots.diff)"
grep -q "slots" anonslots.before || fail "anonslots: no false sharing before: $(cat anonslots.before)"
expect_eq "anonslots: false sharing after" "$(cat anonslots.after)" ""
done_test
