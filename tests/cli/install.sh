#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make install / uninstall with PREFIX and DESTDIR: the binary, the
# allocation shim where the installed record finds it, the man pages, bash
# completion; uninstall removes them all.
. "$TOP/tests/cli/lib.inc"
d=$T/root
make -s -C "$TOP" B="$B" install DESTDIR="$d" PREFIX=/usr >"$T/out" 2>&1 || fail "make install: $(cat "$T/out")"
for f in bin/c2cscan lib/c2cscan/libc2cscan-alloc.so share/man/man1/c2cscan.1 share/man/man1/c2cscan-record.1 \
	share/man/man1/c2cscan-report.1 share/man/man1/c2cscan-check.1 share/bash-completion/completions/c2cscan; do
	[ -f "$d/usr/$f" ] || fail "not installed: $f"
done
expect_eq "installed version" "$("$d/usr/bin/c2cscan" --version | cut -d' ' -f1)" "c2cscan"
# the installed record finds the installed shim (../lib/c2cscan from bin)
if "$d/usr/bin/c2cscan" record -q --alloc -e page-faults -o "$T/i.data" -- true 2>"$T/err"; then
	:
else
	grep -q "cannot open page-faults" "$T/err" || fail "installed record --alloc: $(cat "$T/err")"
fi
grep -q "cannot find libc2cscan-alloc.so" "$T/err" && fail "the installed record does not find the shim"
bash -n "$d/usr/share/bash-completion/completions/c2cscan" || fail "completion script does not parse"
make -s -C "$TOP" B="$B" uninstall DESTDIR="$d" PREFIX=/usr >"$T/out" 2>&1 || fail "make uninstall: $(cat "$T/out")"
left=$(find "$d" -type f | wc -l)
expect_eq "files left after uninstall" "$left" "0"
done_test
