#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The side-band index of c2cscan's files (C2CSCAN_INDEX): pass 1 reads the
# records it lists instead of walking the file. A forged index (a mapping's
# record left out, counted as a sample: pass 1 would miss that mapping and
# key its samples as unmapped) is caught by pass 2's walk, and the report is
# made again without it: the same as the true file's, in every output.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
mkperf "$TOP/tests/fixtures/scenarios/cow-3proc.scn" true.data || done_test
python3 - true.data forged.data <<'PY' || fail "no index to forge in true.data"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
doff, dsize = struct.unpack_from('<QQ', b, 40)
bits = struct.unpack_from('<4Q', b, 72)
tab, k, at = doff + dsize, 0, None
for f in range(256):
    if bits[f // 64] >> (f % 64) & 1:
        if f == 249:
            at = struct.unpack_from('<Q', b, tab + 16 * k)[0]
        k += 1
if at is None:
    sys.exit(1)
nr = struct.unpack_from('<Q', b, at + 16)[0]
ents = [struct.unpack_from('<QQ', b, at + 32 + 16 * i) for i in range(nr)]
# the last mapping listed left out, counted among the samples before the
# next: the ordinals still add up, pass 1 skips the mapping
for i in reversed(range(nr)):
    if struct.unpack_from('<I', b, doff + ents[i][0])[0] not in (1, 10) or i + 1 == nr:
        continue
    ents[i + 1] = (ents[i + 1][0], ents[i + 1][1] + ents[i][1] + 1)
    del ents[i]
    struct.pack_into('<Q', b, at + 16, nr - 1)
    for j, e in enumerate(ents):
        struct.pack_into('<QQ', b, at + 32 + 16 * j, *e)
    open(sys.argv[2], 'wb').write(b)
    sys.exit(0)
sys.exit(1)
PY
for o in "--stdio" "--json" "--stdio -d all" "--stdio --show-all"; do
	"$C2CSCAN" report $o -i true.data >want.out 2>want.err || fail "report $o true.data: $(cat want.err)"
	"$C2CSCAN" report $o -i forged.data >got.out 2>got.err || fail "report $o forged.data: $(cat got.err)"
	sed "s|forged.data|true.data|g" got.out | cmp -s - want.out || fail "report $o: a forged index changed the report"
	grep -q "unmapped" got.out && ! grep -q "unmapped" want.out && fail "report $o: keys from the forged index"
done
done_test
