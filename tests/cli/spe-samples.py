# SPDX-License-Identifier: GPL-2.0
# The memory samples of an Arm SPE recording as perf script --itrace=M
# prints them (-F hw:pid,tid[,cpu],time,ip,addr,data_src,weight --ns) and
# as c2cscan's reader yields them (tests/tools/pdsamples): the same
# multiset, or the first difference and exit 1.
# usage: spe-samples.py PERF_SCRIPT_OUTPUT PDSAMPLES_OUTPUT
import re,sys
perf, ours = sys.argv[1], sys.argv[2]
P=[]
for l in open(perf):
    m=re.match(r'\s*(-?\d+)/(-?\d+)\s+(?:\[(\d+)\]\s+)?(\d+)\.(\d+):\s+([0-9a-f]+)\s+([0-9a-f]+)\s+\|.*\|[^|]*?\s+(\d+)\s+([0-9a-f]+)\s*$', l)
    if not m:
        continue
    pid,tid,cpu,s,ns,addr,src,w,ip=m.groups()
    P.append([int(pid),int(tid),None if cpu is None else int(cpu),int(s)*10**9+int(ns),int(ip,16),int(addr,16),int(src,16),int(w)])
O=[]
for l in open(ours):
    if l.startswith('#'): continue
    f=l.split()
    O.append([int(f[0]),int(f[1]),int(f[2]),int(f[3]),int(f[4],16),int(f[5],16),int(f[6],16),int(f[7])])
print("samples: perf %d, c2cscan %d" % (len(P), len(O)))
# perf prints time 0 for a record without a timestamp and no CPU for
# per-thread buffers; c2cscan places them after the queue's last record
for p_,o in zip(sorted(P, key=lambda x: (x[4], x[5], x[1])), sorted(O, key=lambda x: (x[4], x[5], x[1]))):
    if p_[2] is None: o[2] = None
    # perf's -1: a thread the side-band never named (c2cscan: the thread
    # is its own process) or no thread at all (c2cscan: 0)
    if p_[0] == -1: o[0] = -1
    if p_[1] == -1: o[1] = -1
    if p_[3] == 0: o[3] = 0
if sorted(P, key=str) != sorted(O, key=str):
    sp, so = sorted(P, key=str), sorted(O, key=str)
    for a,b in zip(sp,so):
        if a!=b: print("perf", a, "\nours", b); break
    sys.exit(1)
