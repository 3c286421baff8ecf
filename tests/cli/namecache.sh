#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The names cache (src/names/namecache.c): a report keeps what naming an
# object cost most (its variables, each instruction's data type) beside the
# object's copy in the build-id cache, and the next report reads it. On a
# real -O2 program with members, globals, TLS and stack variables
# (tests/progs/types.c): the answers with the cache, from it, and with no
# cache at all are the same; a cache whose answers were changed is read (the
# answers change: it is used), unless another c2cscan wrote it (its
# build-id) or it is damaged anywhere (cut, garbage): then the answers are
# learned again and the file written anew. Layout: struct nc_head (112
# bytes) in namecache.c.
# run-tests: full (a real -O2 program reported with and without the cache, and damaged: 17 s)
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
bin=$TOP/$B/progs/types
[ -x "$bin" ] || skip "types not built"
mkdir -p home nohome
export HOME="$T/home"
if ! "$C2CSCAN" record -q -e page-faults -c 1 -o p.data -- "$bin" >/dev/null 2>err; then
	grep -q "cannot open page-faults" err && skip "perf_event_open not available here"
	fail "record: $(cat err)"
	done_test
fi
id=$(readelf -n "$bin" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || skip "the compiler writes no build-id"
cache=home/.debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)/c2cscan-names
report() { # OUT [HOME]
	HOME=${2:-$T/home} "$C2CSCAN" report --json -d all --show-all -i p.data >"$1" 2>"$1.err" || fail "report $1: $(cat "$1.err")"
}
report cold.json "$T/nohome"
grep -q '"data_member": "[a-z]' cold.json || fail "no member named: the test says nothing"
report first.json
[ -s "$cache" ] || fail "no names cache written: $(find home -name 'c2cscan-*' | head)"
report second.json
cmp -s cold.json first.json || fail "answers differ learning them: $(diff cold.json first.json | head -5)"
cmp -s cold.json second.json || fail "answers differ from the cache: $(diff cold.json second.json | head -5)"

# tamper: every cached type's offset moved by 8 bytes (python: the layout)
tamper() { # WHAT: offsets | self | cut:N | garbage
	python3 - "$cache" "$1" <<'PY'
import struct, sys
path, what = sys.argv[1], sys.argv[2]
b = bytearray(open(path, "rb").read())
HEAD = 112
nr_vars, nr_tls, nr_got, nr_types = struct.unpack_from("<4I", b, 88)
def fnv(data):
    h = 0xcbf29ce484222325
    for c in data:
        h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    return h
if what == "offsets":
    at = HEAD + (nr_vars + nr_tls) * 24 + nr_got * 16
    for _ in range(nr_types):
        vaddr, off, toff, rc, reason, src, idx, ptr, inner, scale, vlen = struct.unpack_from("<QqQiBBBBBBH", b, at)
        if toff:
            struct.pack_into("<q", b, at + 8, off + 8)
        at += 40 + (0 if vlen == 0xffff else vlen)
    struct.pack_into("<Q", b, 104, fnv(b[HEAD:]))      # a whole file, other answers
elif what == "self":
    b[8] ^= 0xff
elif what.startswith("cut:"):
    del b[int(what[4:]):]
elif what == "garbage":
    for i in range(HEAD, len(b), 7):
        b[i] ^= 0x5a
open(path, "wb").write(bytes(b))
PY
}
cp "$cache" good
tamper offsets
report tampered.json
cmp -s cold.json tampered.json && fail "changed answers in the cache were not read"
cp "$cache" changed
tamper self
report other-self.json
cmp -s cold.json other-self.json || fail "another c2cscan's cache was read: $(diff cold.json other-self.json | head -5)"
cmp -s "$cache" changed && fail "the cache was not written anew"
for how in cut:50 cut:112 cut:200 cut:1000 garbage; do
	cp good "$cache"
	tamper "$how"
	report "damaged-$how.json"
	cmp -s cold.json "damaged-$how.json" || fail "a damaged cache ($how) changed the answers: $(diff cold.json "damaged-$how.json" | head -5)"
done
done_test
