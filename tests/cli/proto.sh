#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --pprof's generated encoder (src/report/pprof/profile.pb-c.c, made
# by protoc-c from profile.proto with `make proto`) matches its .proto: the
# same messages, and in each the same fields by name, number, label and
# type. A .proto edited without `make proto` fails here.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
/usr/bin/python3 - "$TOP/src/report/pprof/profile.proto" "$TOP/src/report/pprof/profile.pb-c.c" >diff.out <<'PY' ||
import re, sys
proto, gen = open(sys.argv[1]).read(), open(sys.argv[2]).read()
scalars = {"uint64", "int64", "uint32", "int32", "string", "bool", "bytes", "double", "float"}
def snake(name):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()
want = {}
for name, body in re.findall(r"^message (\w+) \{(.*?)^\}", proto, re.M | re.S):
    fields = []
    for rep, typ, field, num in re.findall(r"^\s*(repeated\s+)?(\w+)\s+(\w+)\s*=\s*(\d+);", body, re.M):
        fields.append((field, int(num), "REPEATED" if rep else "NONE",
                       typ.upper() if typ in scalars else "MESSAGE"))
    want[snake(name)] = fields
got = {}
for name, body in re.findall(r"perftools__profiles__(\w+)__field_descriptors\[\d+\] =\s*\{(.*?)^\};", gen, re.M | re.S):
    got[name] = [(f, int(n), label, typ) for f, n, label, typ in
                 re.findall(r'\{\s*"(\w+)",\s*(\d+),\s*PROTOBUF_C_LABEL_(\w+),\s*PROTOBUF_C_TYPE_(\w+),', body)]
if len(want) < 8 or sum(map(len, want.values())) < 40:
    print("read only %d messages, %d fields from the .proto" % (len(want), sum(map(len, want.values()))))
    sys.exit(1)
bad = 0
for m in sorted(set(want) | set(got)):
    if want.get(m) != got.get(m):
        print("%s: .proto %s, generated %s" % (m, want.get(m), got.get(m)))
        bad = 1
sys.exit(bad)
PY
	fail "profile.pb-c.c does not match profile.proto (run make proto): $(cat diff.out)"
done_test
