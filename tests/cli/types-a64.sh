#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Data types on aarch64, end to end: no Arm machine records here,
# so a synthetic recording (mkperf) maps a real aarch64 -O2 -g build of
# tests/symbols/dtype.c, and its samples are at that binary's own loads and
# stores (found with objdump): a pointer parameter, a nested member, a call's
# return, a thread-local variable (local exec: mrs tpidr_el0), a pointer
# walking an array member with post-index writeback. Each row must name the
# type and member in JSON and stdio, as on x86-64.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
cc=aarch64-linux-gnu-gcc
command -v $cc >/dev/null 2>&1 || skip "no $cc (scripts/install-deps installs it)"
command -v aarch64-linux-gnu-objdump >/dev/null 2>&1 || skip "no aarch64-linux-gnu-objdump"
$cc -O2 -g -o dt "$TOP/tests/symbols/dtype.c" 2>err || fail "cannot build: $(cat err)"
aarch64-linux-gnu-objdump -d --no-show-raw-insn dt >dis || fail "objdump"

# the address of the first instruction in function $1 whose text matches $2
at() {
	awk -v fn="<$1>:" -v re="$2" '
		$2 == fn { inside = 1; next }
		inside && NF == 0 { exit }
		inside && $0 ~ re { sub(":", "", $1); print "0x" $1; exit }' dis
}
base=0xaaaab0000000
heap=0xaaaac0000000
for f in "dt_param	str	" "dt_nested	str	" "dt_ret	str	" "dt_tls	str	" "dt_walk	ldr	.*\], #"; do
	fn=${f%%	*}
	a=$(at "$fn" "${f#*	}")
	[ -n "$a" ] || { fail "no ${f#*	} in $fn: $(grep -A8 "<$fn>:" dis)"; continue; }
	echo "$fn $a"
done >ips
[ "$(wc -l <ips)" = 5 ] || { fail "instructions not found"; done_test; }
size=$(stat -c %s dt)
{
	echo "feature arch=aarch64"
	echo "attr name=cpu/mem-loads/ id=1"
	echo "comm pid=100 comm=dt exec"
	echo "mmap2 pid=100 start=$base len=$(( (size + 0xffff) / 0x10000 * 0x10000 )) pgoff=0 maj=8 min=1 ino=4242 prot=rx flags=private name=$T/dt"
	echo "mmap2 pid=100 start=$heap len=0x100000 prot=rw flags=private name=//anon"
	i=0
	while read -r fn a; do
		i=$((i + 1))
		echo "sample attr=1 pid=100 tid=$((100 + i % 2)) cpu=$((i % 2)) ip=$((base + a)) addr=$((heap + i * 0x1000 + 0x10)) src=lcl_hitm weight=100 repeat=3"
	done <ips
} >dt.scn
mkperf dt.scn dt.data
"$C2CSCAN" report --json -d all --show-all -i dt.data >dt.json 2>err || fail "report: $(cat err)"
python3 - dt.json >rows <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
out = set()
for l in j["cachelines"]:
    for o in l["offsets"]:
        if o["symbol"].startswith("dt_"):
            out.add("%s|%s|%s|%s" % (o["symbol"], o["type"], o["data_member"], o["type_source"]))
print("\n".join(sorted(out)))
PY
cat >want <<'W'
dt_nested|struct pair|b.tag|variable
dt_param|struct node|tag|variable
dt_ret|struct node|tag|tracked
dt_tls|struct node|tls_node.val|variable
dt_walk|struct ring|slot[?]|tracked
W
cmp -s rows want || fail "aarch64 rows:
$(diff want rows)"
"$C2CSCAN" report --stdio -d all --show-all --lines 0 -i dt.data >dt.stdio 2>err || fail "stdio: $(cat err)"
# (with HITM columns, the Data column keeps a long name's start)
for want in "struct node.tag .* dt_param" "struct pair.b.* dt_nested" "tls_node.val .* dt_tls" "struct ring.s.* dt_walk"; do
	grep -q "$want" dt.stdio || fail "stdio: no '$want'"
done
done_test
