#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks a c2cscan --json -d all --show-all report of tests/progs/memtouch
against the addresses memtouch printed: PROGOUT REPORT.json SHARED-FILE-PATH."""
import json, re, sys
procs = {}
for l in open(sys.argv[1]):
    m = re.match(r"pid (\d+): file (\S+) priv (\S+) shanon (\S+) cow (\S+)", l)
    if m:
        procs[int(m.group(1))] = {k: int(v, 16) for k, v in zip(("file", "priv", "shanon", "cow"), m.groups()[1:])}
j = json.load(open(sys.argv[2]))
lines = j["cachelines"]
ok = True
def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok &= bool(cond)
check(len(procs) == 3, "three processes ran: %s" % sorted(procs))
def at(addr, pid=None):
    return [c for c in lines if int(c["address"], 16) == addr & ~63 and (pid is None or pid in c["pids"])]
# copy-on-write .data: one private line per pid
cow = [c for p, a in procs.items() for c in at(a["cow"] + 0, p)]
check(len(cow) == 3 and all(c["key"]["kind"] == "private" for c in cow), "COW .data: 3 private lines")
check(len({c["key"]["pid"] for c in cow}) == 3, "COW .data: 3 distinct pids")
check(all(len(set(c["pids"])) == 1 for c in cow), "COW .data: each line touched by one process only")
# shared file at different addresses: one line, 3 pids
shf = [c for c in lines if c["key"]["kind"] == "shared" and c["object"] == sys.argv[3]]
check(len(set(a["file"] for a in procs.values())) == 3, "the file is mapped at 3 different addresses")
check(len(shf) == 1, "MAP_SHARED file: 1 line (got %d)" % len(shf))
check(shf and sorted(shf[0]["pids"]) == sorted(procs), "MAP_SHARED file line: all 3 pids")
check(shf and shf[0]["key"].get("offset") == "0x40", "MAP_SHARED file line at file offset 0x40")
check(shf and shf[0]["key"].get("ino", 0) > 0, "MAP_SHARED file keyed by inode")
# shared anonymous, inherited
sha = [c for c in lines if c["key"]["kind"] == "shared" and (c["object"] or "").startswith("/dev/zero")]
check(len(sha) == 1 and sorted(sha[0]["pids"]) == sorted(procs), "shared anon: 1 line, 3 pids")
# private anon after fork
pa = [c for p, a in procs.items() for c in at(a["priv"] + 0x100, p)]
check(len(pa) == 3 and all(c["key"]["kind"] == "private" for c in pa), "private anon: 3 private lines")
sys.exit(0 if ok else 1)
