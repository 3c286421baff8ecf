#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every keying scenario (tests/fixtures/scenarios/*.scn, each documents what
# c2cscan must find) built with mkperf and checked through --json: the lines,
# their keys, pids and counts. The expectations below restate the scenario
# comments; a scenario without an entry only has to report cleanly.
. "$TOP/tests/cli/lib.inc"
for s in "$TOP"/tests/fixtures/scenarios/*.scn; do
	name=$(basename "$s" .scn)
	mkperf "$s" "$T/$name.data" || continue
	"$C2CSCAN" report --json -i "$T/$name.data" >"$T/$name.json" 2>"$T/$name.err"
	rc=$?
	[ $rc = 0 ] || [ $rc = 2 ] || fail "$name: report exit $rc: $(cat "$T/$name.err")"
	"$C2CSCAN" report --stdio -i "$T/$name.data" >"$T/$name.txt" 2>/dev/null
done
python3 - "$T" <<'PY' || fail "scenario expectations (above)"
import json, os, sys
T = sys.argv[1]
def load(n):
    return json.load(open(os.path.join(T, n + ".json")))
ok = True
def check(name, cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + name + ": " + what)
    ok &= bool(cond)
def lines(n):
    return load(n)["cachelines"]
def summary(c):
    k = dict(c["key"])
    return (k.pop("kind"), c["address"], tuple(sorted(c["pids"])), c["tot_hitm"], c["stores"])

c = lines("shared-file")
check("shared-file", len(c) == 1 and c[0]["key"] == {"kind": "shared", "maj": 8, "min": 2, "ino": 5000, "ino_generation": 3, "offset": "0x1080"}
      and sorted(c[0]["pids"]) == [2001, 2002], "one shared line by inode+offset, both pids")
c = lines("shm-anon")
check("shm-anon", len(c) == 3 and all(x["key"]["kind"] == "shared" and sorted(x["pids"]) == [3001, 3002] for x in c)
      and len({(x["key"]["ino"], x["object"]) for x in c}) == 3, "three shared segments, each merged across 2 pids")
c = lines("buildid")
check("buildid", any(x["key"].get("build_id") and sorted(x["pids"]) == [8001, 8002] for x in c), "shared file by build-id, 2 pids")
check("buildid", any(x["key"].get("origin") and sorted(x["pids"]) == [8001, 8003] for x in c), "anon shared by origin, inherited through fork")
check("buildid", len({x["key"].get("origin") for x in c if x["key"].get("origin")}) == 2, "an unrelated process's anon shared is another origin")
c = lines("reuse")
check("reuse", len(c) == 2 and {x["key"].get("ino") for x in c} == {111, 222}, "samples before/after the remap go to the old/new file")
c = lines("out-of-order")
check("out-of-order", len(c) == 1 and c[0]["key"].get("ino") == 1111, "an MMAP2 written late but stamped early applies")
c = {x["address"]: x for x in lines("units-array")}
check("units-array", c["0x2000040"]["verdict"] == "false sharing" and
      c["0x2000040"]["advice"].startswith("byte 0 of the 96 B object from 0x401050 (written by tid 15011) and byte 24 of the 96 B object from 0x401050 (tid 15012) share a line: give each thread's part"),
      "per-thread parts of one allocation: false sharing, by the object's bytes: %s" % c["0x2000040"]["advice"])
check("units-array", c["0x2000080"]["verdict"] == "negligible contention" and "handover" in c["0x2000080"]["verdict_why"],
      "objects one after the other at one address: a handover: %s" % c["0x2000080"]["verdict_why"])
check("units-array", c["0x2000100"]["verdict"] == "negligible contention" and not c["0x2000100"]["advice"],
      "a result read after the joins: a handover, no advice: %s %s" % (c["0x2000100"]["verdict"], c["0x2000100"]["verdict_why"]))
j = load("last-byte")
check("last-byte", j["maps"]["rejected"] == 2 and sorted(summary(c) for c in j["cachelines"]) == [("kernel", "0xffffffffffffffc0", (7001,), 1, 0), ("private", "0x400040", (7001,), 1, 0)],
      "the last byte's mappings rejected, the user sample keyed: %s %s" % (j["maps"]["rejected"], [summary(c) for c in j["cachelines"]]))
j = load("garbage-mmap")
check("garbage-mmap", j["maps"]["rejected"] == 5 and len(j["cachelines"]) == 1 and j["cachelines"][0]["key"].get("ino") == 3131,
      "5 garbage mmaps rejected, the valid mapping still keys the samples")
c = lines("false-sharing")
check("false-sharing", len(c) == 1 and c[0]["tot_hitm"] == 8 and len({o["offset"] for o in c[0]["offsets"]}) >= 2,
      "one line, two offsets written by different threads")
c = lines("kernel")
kern = [x for x in c if x["key"]["kind"] == "kernel"]
futex = [x for x in c if x["key"]["kind"] == "private" and x["address"] == "0x7f6000000040"]
check("kernel", len(kern) == 1 and sorted(kern[0]["pids"]) == [5001, 5002] and kern[0]["lcl_hitm"] == 3, "one kernel line, 2 pids")
check("kernel", len(futex) == 1 and futex[0]["lcl_hitm"] == 4 and sorted(futex[0]["tids"]) == [5001, 5011],
      "a futex word touched in user and kernel mode is one private line")
c = lines("unmapped")
check("unmapped", len(c) == 2 and all(x["key"]["kind"] == "private" and x["key"]["unmapped"] for x in c)
      and sorted(x["key"]["pid"] for x in c) == [6001, 6002], "unmapped samples keyed per pid")
check("unmapped", load("unmapped")["totals"]["nomap"] == 7, "and counted as nomap in the totals, as perf does")
j = load("mmap-v1")
c = j["cachelines"]
check("mmap-v1", j["maps"]["file_keying_approximate"], "file-backed v1 keying flagged approximate")
check("mmap-v1", any(x["key"].get("name") == "/dev/shm/x" and sorted(x["pids"]) == [7001, 7002] for x in c), "v1 shm shared by name")
check("mmap-v1", sum(1 for x in c if x["key"]["kind"] == "private" and x["key"]["approximate"]) == 2, "v1 file mappings private per pid, approximate")
j = load("peer")
check("peer", j["display"] == "peer" and len(j["cachelines"]) == 1 and j["cachelines"][0]["lcl_peer"] == 3
      and j["cachelines"][0]["rmt_peer"] == 2, "peer mode chosen, one line, lcl_peer 3 + rmt_peer 2")
c = lines("private-anon")
check("private-anon", len([x for x in c if x["address"] == "0x7f5000000200"]) == 2, "same vaddr in 2 processes: 2 private lines")
c = lines("cow-3proc")
check("cow-3proc", len(c) == 3 and {x["key"]["pid"] for x in c} == {1001, 1002, 1003}, "3 private COW lines")
for n in ("no-mem-samples", "empty"):
    j = load(n)
    check(n, j["notice"] and not j["cachelines"], "a clear notice, no table: %s" % j["notice"])
sys.exit(0 if ok else 1)
PY
grep -q "no memory samples" "$T/no-mem-samples.txt" || fail "no-mem-samples: stdio does not say why"
done_test
