# SPDX-License-Identifier: GPL-2.0
# Circles between the files of a stage, from the built objects: file A
# uses file B when A's object leaves undefined a symbol B's defines.
# Prints each circle (its files and the symbols that close it) and exits 1
# when there is one. usage: file-cycles.py NM_LISTING (`nm -A` of the
# objects of the stages to check)
import collections
import sys

objs, defs, uses = [], {}, collections.defaultdict(set)
with open(sys.argv[1]) as f:
    for line in f:
        o, _, rest = line.partition(":")
        if not objs or objs[-1] != o:
            objs.append(o)
        p = rest.split()
        if len(p) == 3 and p[1] in "TDBR":
            defs[p[2]] = o
        elif len(p) == 2 and p[0] == "U":
            uses[o].add(p[1])
objs = list(dict.fromkeys(objs))
edges = {o: {defs[s] for s in uses[o] if s in defs and defs[s] != o} for o in objs}

# strongly connected components (iterative Tarjan)
index, low, on, stack, comps, n = {}, {}, set(), [], [], 0
for root in objs:
    if root in index:
        continue
    work = [(root, iter(sorted(edges[root])))]
    index[root] = low[root] = n
    n += 1
    stack.append(root)
    on.add(root)
    while work:
        v, it = work[-1]
        w = next(it, None)
        if w is not None:
            if w not in index:
                index[w] = low[w] = n
                n += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(edges[w]))))
            elif w in on:
                low[v] = min(low[v], index[w])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)
short = lambda o: "/".join(o.split("/")[-2:])
for comp in comps:
    print("a circle: " + " ".join(sorted(short(o) for o in comp)))
    for a in sorted(comp):
        for b in sorted(edges[a] & set(comp)):
            syms = sorted(s for s in uses[a] if defs.get(s) == b)
            print("  %s uses %s: %s" % (short(a), short(b), " ".join(syms[:5])))
sys.exit(1 if comps else 0)
