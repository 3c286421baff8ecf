#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --patch on real programs, each built from its own source folder
# under TSan and recorded with --emulate (--alloc): adjacent members of a
# global struct in C (tests/progs/counters.c: _Alignas) and C++
# (statsxx.cc: alignas); per-thread elements of arrays in patch-arrays.sh.
# For each: the diff applies with git apply and patch -p1, the patched
# program compiles without and with TSan with the same flags, prints what
# it did before, its new recording has no false sharing on that data, and
# the advice's prediction agrees with it (patch.inc). A program whose
# sources are gone gets a note and no change, not a broken patch.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
. "$TOP/tests/cli/patch.inc"

fix counters counters.c gcc -std=gnu11 -O2 -g -Wall -Werror
grep -q "^+	_Alignas(64) long consumed; " counters.diff || fail "counters: not _Alignas on consumed: $(cat counters.diff)"
expect_eq "counters: false sharing before" "$(grep -c '^counters\.\(consumed\|produced\)$' counters.before)" 2
expect_eq "counters: false sharing after" "$(cat counters.after)" ""

fix statsxx statsxx.cc g++ -std=gnu++17 -O2 -g -Wall -Werror
grep -q "^+	alignas(64) long tx; " statsxx.diff || fail "statsxx: not alignas on tx: $(cat statsxx.diff)"
expect_eq "statsxx: false sharing before" "$(grep -c '^net\.[rt]x$' statsxx.before)" 2
expect_eq "statsxx: false sharing after" "$(cat statsxx.after)" ""

# sources moved: --symfs DIR finds them under DIR (the diff's paths as the
# build had them)
mkdir -p "symfs$PWD/counters"
cp counters/counters.c "symfs$PWD/counters/"
rm counters/counters.c
"$C2CSCAN" report -i counters.data --symfs symfs --patch moved.diff 2>moved.said || fail "--symfs: $(cat moved.said)"
grep -q "^c2cscan report: --patch moved.diff: 1 change$" moved.said || fail "--symfs says: $(cat moved.said)"
grep -q "^diff --git a/counters.c b/counters.c$" moved.diff && grep -q "^+	_Alignas(64) long consumed; " moved.diff ||
	fail "--symfs: $(cat moved.diff)"
# sources gone: a note, no change, no diff
"$C2CSCAN" report -i counters.data --patch gone.diff 2>gone.said || fail "sources gone: exit $?"
grep -q "^c2cscan report: --patch gone.diff: 0 changes" gone.said || fail "sources gone says: $(cat gone.said)"
grep -q "^# c2cscan: line [0-9]* .*counters.c:[0-9]* not found: not patched$" gone.diff || fail "sources gone: $(cat gone.diff)"
grep -q "^diff " gone.diff && fail "sources gone: a diff: $(cat gone.diff)"
# an unwritable file: one line, exit 1
"$C2CSCAN" report -i counters.data --patch /nonexistent/x.diff >/dev/null 2>err
expect_eq "unwritable --patch: exit" "$?" 1
grep -q "^c2cscan report: --patch /nonexistent/x.diff: cannot write: No such file or directory$" err ||
	fail "unwritable: $(cat err)"
done_test
