#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Writes the bad-file catalogue into DIR, from GOOD (a small,
valid perf.data in file mode written by mkperf). Prints one line per file:
"NAME EXPECT" where EXPECT is refuse (exit 1, one line on stderr naming the
file and the reason), partial (exit 2, the report says PARTIAL), or ok
(exit 0: the bad part is skipped and counted)."""
import os, struct, sys

many = 0
if sys.argv[1] == "--many":
    many = int(sys.argv[2])
    del sys.argv[1:3]
d, good = sys.argv[1], open(sys.argv[2], "rb").read()
out = []

def put(name, data, expect):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
    out.append((name, expect))

# header: magic, size, attr_size, attrs{off,size}, data{off,size}, event_types{off,size}, features[4]
hdr = list(struct.unpack_from("<8sQQQQQQQQ", good, 0))
magic, hsize, attr_size, a_off, a_size, d_off, d_size = hdr[:7]

def with_header(**kw):
    h = dict(zip(("magic", "size", "attr_size", "a_off", "a_size", "d_off", "d_size", "e_off", "e_size"), hdr))
    h.update(kw)
    b = bytearray(good)
    struct.pack_into("<8sQQQQQQQQ", b, 0, *h.values())
    return bytes(b)

def rec(rtype, payload, misc=0, size=None):
    n = 8 + len(payload)
    return struct.pack("<IHH", rtype, misc, n if size is None else size) + payload

def with_records(extra, data_size=None):
    """the good file with records appended at the end of its data section"""
    b = bytearray(good[:d_off + d_size]) + extra + good[d_off + d_size:]
    b = bytes(b)
    h = dict(zip(("magic", "size", "attr_size", "a_off", "a_size", "d_off", "d_size", "e_off", "e_size"), hdr))
    h["d_size"] = d_size + len(extra) if data_size is None else data_size
    bb = bytearray(b)
    struct.pack_into("<8sQQQQQQQQ", bb, 0, *h.values())
    # the feature section table sits after the data: shift its offsets
    fo = d_off + d_size + len(extra)
    nfeat = sum(bin(x).count("1") for x in struct.unpack_from("<4Q", good, 72))
    for i in range(nfeat):
        off, size = struct.unpack_from("<QQ", bb, fo + 16 * i)
        struct.pack_into("<QQ", bb, fo + 16 * i, off + len(extra), size)
    return bytes(bb)

if many:
    # N tiny records (FINISHED_ROUND, 8 bytes each): time and memory must
    # stay linear in the number of records
    put("many-%d.data" % many, with_records(rec(68, b"") * many), "ok")
    for name, expect in out:
        print(name, expect)
    sys.exit(0)

put("empty.data", b"", "refuse")
put("wrong-magic.data", b"NOTPERF!" + good[8:], "refuse")
put("perffile-v1.data", b"PERFFILE" + good[8:], "refuse")
put("big-endian.data", b"2ELIFREP" + good[8:], "refuse")
put("tiny.data", good[:40], "refuse")
put("header-past-eof.data", with_header(a_off=len(good) + 4096), "refuse")
put("attr-size-0.data", with_header(attr_size=0), "refuse")
put("attr-size-huge.data", with_header(attr_size=1 << 40), "refuse")
put("attr-count-overflow.data", with_header(a_size=(1 << 64) - 16), "refuse")
put("data-past-eof.data", with_header(d_size=1 << 40), "partial")
put("truncated-mid-data.data", good[:d_off + d_size // 2], "partial")
put("record-size-0.data", with_records(rec(9, b"", size=0) + b"\0" * 8), "partial")
put("record-size-4.data", with_records(struct.pack("<IHH", 9, 0, 4) + b"\0" * 8), "partial")
put("record-past-eof.data", with_records(rec(9, b"\0" * 8, size=4096)), "partial")
# a sample record far too short for the attrs' sample_type
put("short-sample.data", with_records(rec(9, b"\x01\0\0\0\0\0\0\0")), "ok")
# an mmap whose filename has no NUL before the record ends
put("filename-no-nul.data", with_records(rec(1, struct.pack("<IIQQQ", 1, 1, 0x10000, 0x1000, 0) + b"A" * 16)), "ok")
# compressed records that are not zstd, and a zstd-looking bomb header
put("compressed-not-zstd.data", with_records(rec(81, b"this is not zstd data!!!")), "partial")
put("compressed2-size-lies.data", with_records(rec(83, struct.pack("<Q", 1 << 40) + b"\x28\xb5\x2f\xfd" + b"\0" * 4)), "partial")
# zstd frames written by hand (RFC 8878): raw (type 0) and RLE (type 1) blocks
def zframe(blocks, fhd=0x00, fields=b"\x38"):
    """fhd 0x00 + window descriptor 0x38: no content size, 128 KiB window"""
    out = struct.pack("<I", 0xFD2FB528) + bytes([fhd]) + fields
    for i, (btype, size, payload) in enumerate(blocks):
        last = i == len(blocks) - 1
        out += struct.pack("<I", (size << 3) | (btype << 1) | last)[:3] + payload
    return out
def zraw(data):
    return zframe([(0, len(data), data)])
# a bomb: 100 MiB of RLE from 3 kB, past the 64 MiB a chunk may expand to
put("compressed-bomb.data", with_records(rec(81, zframe([(1, 128 << 10, b"\x08")] * 800))), "partial")
# a frame that says it holds 16 bytes and holds 64
put("compressed-more-than-claimed.data", with_records(rec(81, zframe([(0, 64, b"\0" * 64)], fhd=0x20, fields=b"\x10"))), "partial")
# AUXTRACE inside compressed data (perf never writes that): its payload is
# skipped like in the file, or refused when it runs past the chunk
aux = lambda n: rec(71, struct.pack("<QQQIIII", n, 0, 0, 0, 0, 0, 0))
put("compressed-auxtrace.data", with_records(rec(81, zraw(aux(16) + b"\xff" * 16 + rec(68, b"")))), "ok")
put("compressed-auxtrace-past-end.data", with_records(rec(81, zraw(aux(1 << 40) + rec(68, b"")))), "partial")
# features whose lengths lie: point every feature section past the end
b = bytearray(good)
fo = d_off + d_size
nfeat = sum(bin(x).count("1") for x in struct.unpack_from("<4Q", good, 72))
for i in range(nfeat):
    struct.pack_into("<QQ", b, fo + 16 * i, len(good) - 8, 1 << 32)
put("features-lie.data", bytes(b), "ok")
# unterminated: perf killed before it wrote the header's data size and features
b = bytearray(good[:d_off + d_size])
struct.pack_into("<Q", b, 48, 0)
struct.pack_into("<4Q", b, 72, 0, 0, 0, 0)
put("unterminated.data", bytes(b), "ok")
# pipe mode: header, one HEADER_ATTR (size-64 attr, no ids), a sample cut mid-record
attr = struct.pack("<IIQQQQQ", 1, 64, 1, 1, 0x10f, 0, 0) + b"\0" * 16
pipe = b"PERFILE2" + struct.pack("<Q", 16) + rec(64, attr)
sample = rec(9, b"\0" * 40, misc=2)
put("pipe-cut.data", pipe + sample + sample[:20], "partial")
# nested size fields that overflow, in samples of an attr that has them:
# sample_type IP|TID|CALLCHAIN|RAW|BRANCH_STACK|READ, read_format GROUP|ID
def pipe_with(sample_type, read_format, body):
    a = struct.pack("<IIQQQQQ", 1, 64, 1, 1, sample_type, read_format, 0) + b"\0" * 16
    return b"PERFILE2" + struct.pack("<Q", 16) + rec(64, a) + rec(9, body, misc=2)
IP, TID, READ, CALLCHAIN, RAW, BRANCH = 1, 2, 0x10, 0x20, 0x400, 0x800
head = struct.pack("<QII", 0x401000, 1, 1)
put("callchain-nr-overflow.data", pipe_with(IP | TID | CALLCHAIN, 0, head + struct.pack("<Q", (1 << 61) + 1) + b"\0" * 16), "ok")
put("raw-size-overflow.data", pipe_with(IP | TID | RAW, 0, head + struct.pack("<I", 0xfffffff0) + b"\0" * 12), "ok")
put("branch-nr-overflow.data", pipe_with(IP | TID | BRANCH, 0, head + struct.pack("<Q", 1 << 60) + b"\0" * 24), "ok")
put("read-group-overflow.data", pipe_with(IP | TID | READ, 0x8 | 0x4, head + struct.pack("<Q", 1 << 62) + b"\0" * 16), "ok")
put("pipe-header-only.data", b"PERFILE2" + struct.pack("<Q", 16), "ok")
for name, expect in out:
    print(name, expect)
