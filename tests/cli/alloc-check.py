#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Checks a report --json of tests/progs/heapobj or heapnew recorded with
# record --alloc -e page-faults -c 1 against what the program printed:
# every object "obj SITE FN SIZE PAGES" has a sample on each of its pages
# 1..PAGES-1, at byte k * 4096 + 8, named with its site, allocator and size;
# no sample of touch() is named with another object. Usage: PROG_OUT JSON
import json, sys

want = {}
reuse = None
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "obj":
        fn = f[2].replace("_", " ") if f[2].startswith("operator_") else f[2]
        want[f[1]] = (fn, int(f[3]), int(f[4]))
    elif f and f[0] == "reuse":
        reuse = f[1]
j = json.load(open(sys.argv[2]))
seen = {}
bad = 0
for l in j["cachelines"]:
    for o in l["offsets"]:
        if not (o["symbol"] or "").startswith("touch"):   # touch, touch(char*, int)
            continue
        h = o["heap"]
        if not h:
            print("a sample of touch() without a heap object: line %s offset %s" % (l["address"], o["offset"]))
            bad += 1
            continue
        site = h["site"]
        if site not in want:
            print("a sample of touch() named %s, which the program did not allocate" % site)
            bad += 1
            continue
        fn, size, pages = want[site]
        k, rest = divmod(h["offset"], 4096)
        # glibc's memalign and aligned_alloc are one function: probes name it once
        alias = {"memalign": "aligned_alloc", "aligned_alloc": "memalign"}
        if h["alloc_fn"] != fn and h["alloc_fn"] == alias.get(fn):
            fn = h["alloc_fn"]
        if h["alloc_fn"] != fn or h["size"] != size or rest != 8 or not 1 <= k < pages or h["freed"]:
            print("%s: sample at offset %d named %s %d B (freed %s), want %s %d B at k*4096+8, k < %d"
                  % (site, h["offset"], h["alloc_fn"], h["size"], h["freed"], fn, size, pages))
            bad += 1
        seen.setdefault(site, set()).add(k)
for site, (fn, size, pages) in want.items():
    got = seen.get(site, set())
    if got != set(range(1, pages)):
        print("%s: samples on pages %s, want 1..%d" % (site, sorted(got), pages - 1))
        bad += 1
if reuse is not None:
    print("reuse: the second object %s the first one's address" % ("took" if reuse == "same" else "did not take"))
print("%d objects, %d samples checked, %d bad" % (len(want), sum(len(v) for v in seen.values()), bad))
sys.exit(1 if bad else 0)
