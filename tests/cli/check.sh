#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# c2cscan check prints every probe and a verdict; its exit status follows
# the memory PMU found in sysfs (none on the project's VMs: exit 1).
. "$TOP/tests/cli/lib.inc"
"$C2CSCAN" check >"$T/out" 2>&1
rc=$?
for k in kernel "memory PMU" perf_event_paranoid capabilities "physical addresses" "software events" verdict; do
	grep -q "^$k *: " "$T/out" || fail "no '$k' line"
done
if ls /sys/bus/event_source/devices/cpu*/events/mem-loads /sys/bus/event_source/devices/ibs_op \
	/sys/bus/event_source/devices/arm_spe_* >/dev/null 2>&1; then
	grep -q "^memory PMU *: none" "$T/out" && fail "a memory PMU exists but check says none"
else
	expect_eq "exit without a memory PMU" "$rc" 1
	grep -q "cannot record memory samples here: no memory PMU" "$T/out" || fail "verdict does not say why"
fi
"$C2CSCAN" check --help >/dev/null || fail "check --help"
cat "$T/out"
done_test
