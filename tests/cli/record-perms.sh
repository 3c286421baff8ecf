#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record refused by permissions says why and the least change, and an
# explicit request it cannot honour fails: run as user nobody under
# perf_event_paranoid 2 (this runs as root; skipped otherwise). :k and -k
# (kernel only) fail instead of recording nothing; -p of root's process
# names the owner; -a names paranoid 0; a plain command falls back to user
# space with a warning before the summary.
. "$TOP/tests/cli/lib.inc"
[ "$(id -u)" = 0 ] || skip "needs root (to run as nobody)"
[ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" = 2 ] || skip "perf_event_paranoid is not 2"
id nobody >/dev/null 2>&1 || skip "no user nobody"
chmod 1777 "$T"
cp "$C2CSCAN" "$T/c2cscan" && chmod 755 "$T/c2cscan"
as_nobody() { # args...: runs c2cscan as nobody in $T; status in $rc, stderr in $T/err
	su nobody -s /bin/sh -c "cd $T && ./c2cscan $* 2>err; echo \$? >rc" >/dev/null
	rc=$(cat "$T/rc")
}
as_nobody record -q -e page-faults:k -o k.data -- true
expect_eq ":k as nobody: exit" "$rc" 1
grep -q 'kernel sampling is not permitted (perf_event_paranoid is 2): sysctl kernel.perf_event_paranoid=1' "$T/err" ||
	fail ":k: $(cat "$T/err")"
as_nobody record -q -e page-faults -k -o k2.data -- true
expect_eq "-k as nobody: exit" "$rc" 1
as_nobody record -q -e page-faults -p 1 -o p.data
expect_eq "-p 1 as nobody: exit" "$rc" 1
grep -q 'pid 1 belongs to another user (uid 0): record it as that user, or as root' "$T/err" ||
	fail "-p 1: $(cat "$T/err")"
as_nobody record -q -e page-faults -a --duration 0.1 -o a.data
expect_eq "-a as nobody: exit" "$rc" 1
grep -q 'recording every process (-a, -C) is not permitted (perf_event_paranoid is 2): sysctl kernel.perf_event_paranoid=0' \
	"$T/err" || fail "-a: $(cat "$T/err")"
as_nobody record -e page-faults -o u.data -- true
expect_eq "plain command as nobody: exit" "$rc" 0
head -n 1 "$T/err" | grep -q 'kernel sampling not permitted (perf_event_paranoid 2): user space only' ||
	fail "the fallback warning is not the first line: $(cat "$T/err")"
tail -n 1 "$T/err" | grep -q 'samples (page-faults) written' || fail "no summary last: $(cat "$T/err")"
# --emulate follows the command's maps with a tracking event per CPU where
# that is allowed (root here), else per task (nobody): the same samples
cp "$TOP/$B/libc2cscan-emu.so" "$TOP/$B/progs/counters-tsan" "$T/" && chmod 755 "$T/libc2cscan-emu.so" "$T/counters-tsan"
as_nobody record -q --emulate -o e.data -- ./counters-tsan
expect_eq "--emulate as nobody: exit" "$rc" 0
"$C2CSCAN" record -q --emulate -o "$T/r.data" -- "$T/counters-tsan" 2>"$T/err" || fail "--emulate as root: $(cat "$T/err")"
perf evlist -f -v -i "$T/e.data" 2>/dev/null | grep '^dummy' | grep -q 'inherit: 1' || fail "as nobody: no per-task tracking event"
perf evlist -v -i "$T/r.data" 2>/dev/null | grep '^dummy' | grep -q 'inherit' && fail "as root: a per-task tracking event"
for f in e r; do
	"$C2CSCAN" report --json -i "$T/$f.data" >"$T/$f.json" 2>"$T/err" || fail "report $f.data: $(cat "$T/err")"
done
expect_eq "--emulate per task and per CPU: the top line" \
	"$(json_get "$T/e.json" '(j["cachelines"][0]["verdict"], sorted({o["data_member"] for o in j["cachelines"][0]["offsets"]}))')" \
	"$(json_get "$T/r.json" '(j["cachelines"][0]["verdict"], sorted({o["data_member"] for o in j["cachelines"][0]["offsets"]}))')"
done_test
