#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record on Arm: the stages a recording runs (util, perfdata, record: the
# SPE event, its AUX area, the trace's records) compile for aarch64 with
# every warning an error, where the cross compiler is installed
# (install-deps: gcc-aarch64-linux-gnu). The report's stages need arm64
# builds of elfutils and capstone, which Debian's cross packages lack.
# run-tests: full (a cross build of three stages)
. "$TOP/tests/cli/lib.inc"
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || skip "no aarch64-linux-gnu-gcc"
cd "$TOP" || exit 1
# two at a time, at -O0 (the host build has the warnings only -O2 finds:
# this checks the aarch64 paths compile): a tenth of make check's minute
# otherwise. The file's
# placeholder is {}: xargs -I replaces it in every argument, and a capital
# letter could be part of mktemp's $T (an F was, one run in eleven).
ls src/util/*.c src/perfdata/*.c src/record/*.c >"$T/files"
xargs -P 2 -I {} sh -c 'aarch64-linux-gnu-gcc -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow \
	-Wstrict-prototypes -Wmissing-prototypes -Werror -O0 -D_GNU_SOURCE -Isrc -I/usr/include/capstone \
	-idirafter /usr/include -DC2CSCAN_VERSION="\"cross\"" -c {} -o "$1/$(basename {} .c).o" 2>"$1/$(basename {} .c).err" ||
	{ echo "{} for aarch64 (status $?): $(head -n 3 "$1/$(basename {} .c).err")"; exit 1; }' sh "$T" <"$T/files" >"$T/errs" ||
	fail "xargs status $?: $(cat "$T/errs")"
n=$(ls "$T"/*.o | wc -l)
[ "$n" = "$(wc -l <"$T/files")" ] ||
	fail "$n of $(wc -l <"$T/files") files compiled; not: $(for f in $(cat "$T/files"); do
		[ -f "$T/$(basename "$f" .c).o" ] || printf '%s ' "$f"; done)"
readelf -h "$T/aux.o" | grep -q "Machine: *AArch64" || fail "not aarch64 objects: $(readelf -h "$T/aux.o" | grep Machine)"
echo "$n files compiled for aarch64"
done_test
