#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Prints, sorted, one line per offset row of a c2cscan --json report whose
code is in one of the source files named on the command line (base names):
  data | code | source-basename:line
so tests can compare the names with a golden file whatever the addresses
(ASLR) are. usage: names-extract.py REPORT.json SOURCE-BASENAME..."""
import json
import os
import sys

j = json.load(open(sys.argv[1]))
sources = set(sys.argv[2:])
out = set()
for cl in j["cachelines"]:
    for r in cl["offsets"]:
        if not r["source"] or os.path.basename(r["source"]).split(":")[0] not in sources:
            continue
        data = r["data_member"] or r["data_symbol"] or r["data_kind"] or "?"
        if r["inlined"]:
            code = "%s (inlined in %s, %s)" % (r["inlined"]["function"], r["inlined"]["caller"],
                                               os.path.basename(r["inlined"]["call_site"] or "?"))
        else:
            code = r["symbol"] or "?"
        src = os.path.basename(r["source"])
        out.add("%s | %s | %s" % (data, code, src))
for line in sorted(out):
    print(line)
