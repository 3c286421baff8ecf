#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# JIT code named in a report: a fixture of two "JVM" processes
# whose samples run in anonymous executable memory.
#  - pid 61001 wrote jit-61001.dump (the fixture's mmap names it): its
#    JIT_CODE_LOAD records at t=2000/2100 name the code, although the JIT's
#    code cache is later remapped by a coalesced //anon mmap (t=2500) that
#    covers it; it also has a perf map with other names, which must lose.
#  - pid 61002 has only /tmp/perf-61002.map.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
dump=$T/jit-61001.dump
# a jitdump (tools/perf/Documentation/jitdump-specification.txt): header,
# then JIT_CODE_LOAD records (id 0) with their code bytes
python3 - "$dump" <<'PY'
import struct, sys
def load(ts, addr, size, idx, name):
    body = struct.pack("<IIQQQQ", 61001, 61001, addr, addr, size, idx) + name.encode() + b"\0" + b"\x90" * size
    return struct.pack("<IIQ", 0, 16 + len(body), ts) + body
out = struct.pack("<IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, 61001, 1000, 0)
out += load(2000, 0x7f1000000100, 0x80, 1, "LFoo;.bar()V")
out += load(2100, 0x7f1000000200, 0x40, 2, "LBaz;.qux(I)I")
open(sys.argv[1], "wb").write(out)
PY
printf '7f1000000100 80 perfmap_should_lose\n' >/tmp/perf-61001.map
printf '7f2000000000 100 perfmap_func\n' >/tmp/perf-61002.map
trap 'rm -rf "$T" /tmp/perf-61001.map /tmp/perf-61002.map' EXIT
cat >jit.scn <<EOF2
attr name=cpu/mem-loads,ldlat=30/P type=raw config=0x1cd ldlat=30 precise=3 id=1
attr name=cpu/mem-stores/P type=raw config=0x82d0 precise=3 id=2
feature hostname=fixture nrcpus=4 numa=0-3
kernel_mmap
comm  pid=61001 time=1000 comm=java exec
mmap2 pid=61001 time=1001 start=0x400000 len=0x1000 maj=8 min=1 ino=6101 gen=1 prot=r-x flags=private name=/usr/bin/java
mmap2 pid=61001 time=1002 start=0x7f0000000000 len=0x1000 maj=8 min=1 ino=6102 gen=1 prot=r-x flags=private name=$dump
mmap2 pid=61001 time=1003 start=0x7f1000000000 len=0x10000 prot=rwx flags=private name=//anon
mmap2 pid=61001 time=1004 start=0x2000000 len=0x21000 prot=rw flags=private name=[heap]
fork  pid=61001 tid=61011 time=1005
mmap2 pid=61001 time=2500 start=0x7f1000000000 len=0x20000 prot=rwx flags=private name=//anon
comm  pid=61002 time=1100 comm=java exec
mmap2 pid=61002 time=1101 start=0x7f2000000000 len=0x10000 prot=rwx flags=private name=//anon
mmap2 pid=61002 time=1102 start=0x2000000 len=0x21000 prot=rw flags=private name=[heap]
round
sample attr=2 pid=61001 tid=61001 cpu=0 time=3000 addr=0x2000040 ip=0x7f1000000110 src=st_l1hit repeat=3
sample attr=1 pid=61001 tid=61011 cpu=1 time=3010 addr=0x2000048 ip=0x7f1000000210 src=lcl_hitm weight=170 repeat=4
sample attr=2 pid=61002 tid=61002 cpu=2 time=3020 addr=0x2000080 ip=0x7f2000000010 src=st_l1hit repeat=2
sample attr=1 pid=61002 tid=61002 cpu=3 time=3030 addr=0x2000088 ip=0x7f2000000020 src=lcl_hitm weight=100 repeat=2
round
EOF2
mkperf jit.scn jit.data || done_test
"$C2CSCAN" report --json -i jit.data >r.json 2>err || fail "report: $(cat err)"
syms=$(json_get r.json '" ".join(sorted("%s:%s" % (r["iaddr"], r["symbol"]) for c in j["cachelines"] for r in c["offsets"]))')
expect_eq "JIT names" "$syms" "0x7f1000000110:LFoo;.bar()V 0x7f1000000210:LBaz;.qux(I)I 0x7f2000000010:perfmap_func 0x7f2000000020:perfmap_func"
"$C2CSCAN" report --stdio -i jit.data >r.txt 2>err || fail "stdio: $(cat err)"
grep -q "LBaz;.qux(I)I+0x10" r.txt || fail "--stdio does not show the jitted function + offset"
# a recording may name anything as code: a FIFO (opening it would block)
# and /proc/kcore are never opened; the report ends, naming nothing there
mkfifo "$T/fifo"
sed -e "s|name=/usr/bin/java|name=$T/fifo|" -e "s|name=$dump|name=/proc/kcore|" \
	-e "s|ip=0x7f1000000110|ip=0x400010|" -e "s|ip=0x7f1000000210|ip=0x7f0000000010|" jit.scn >odd.scn
mkperf odd.scn odd.data || done_test
timeout 20 "$C2CSCAN" report --json -i odd.data >r3.json 2>err || fail "report naming a FIFO and /proc/kcore: exit $?"
[ -s r3.json ] && expect_eq "no names from a FIFO or /proc/kcore" \
	"$(json_get r3.json 'sorted({r["symbol"] for c in j["cachelines"] for r in c["offsets"] if r["pids"] == [61001]} - {None})')" "[]"
# without the dump file, the perf map answers for 61001 too
rm -f "$dump"
"$C2CSCAN" report --json -i jit.data >r2.json 2>err || fail "report without the dump: $(cat err)"
expect_eq "perf map fallback" "$(json_get r2.json 'sorted({r["symbol"] for c in j["cachelines"] for r in c["offsets"] if r["pids"] == [61001]} - {None})')" "['perfmap_should_lose']"
done_test
