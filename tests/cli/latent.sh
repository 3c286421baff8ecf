#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Latent false sharing on a real program (tests/progs/latent.c, built with
# -fsanitize=thread, recorded with --emulate): the receive thread's last
# counter and the send thread's first are 8 bytes apart across a line
# boundary, each line one thread's, nothing contended. --stdio names the
# pair by its members and threads, JSON lists it (only it: the workers'
# slots are lines apart), and the build with a line of padding between the
# groups has none.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
bin=$TOP/$B/progs/latent-tsan
padded=$TOP/$B/progs/latent-padded-tsan
[ -x "$bin" ] && [ -x "$padded" ] || skip "no -fsanitize=thread builds (libtsan missing?)"
tsan_runs || skip "a -fsanitize=thread program does not run here"
"$C2CSCAN" record -q --emulate -o l.data -- "$bin" >l.out 2>err || fail "record: $(cat err)"
grep -q "^mtu=1500 rx 300000 tx 300000" l.out || fail "the program's output: $(cat l.out)"
"$C2CSCAN" report --stdio -i l.data >l.txt 2>err || fail "report: $(cat err)"
sed -n '/^=== Latent False Sharing/,/^===/p' l.txt | tr -s ' \n' '  ' >latent.txt
grep -q "1\. eth0.rx_dropped (tid [0-9]*) and eth0.tx_packets (tid [0-9]*) are 8 bytes apart across a line boundary: they share a line at 56 of the 64 starts a line can give their data (another allocator offset, another layout), and on 128-byte lines" latent.txt ||
	fail "--stdio: $(cat latent.txt)"
grep -q "2\. " latent.txt && fail "--stdio lists more than the pair: $(cat latent.txt)"
"$C2CSCAN" report --json -i l.data >l.json 2>err || fail "report --json: $(cat err)"
expect_eq "JSON latent" "$(json_get l.json '[(x["a"]["name"], x["b"]["name"], x["apart"], x["near"], x["pair"], x["a"]["tid"] != x["b"]["tid"], x["a"]["stores"] > 50, x["b"]["stores"] > 50) for x in j["latent"]]')" \
	"[('eth0.rx_dropped', 'eth0.tx_packets', 8, True, True, True, True, True)]"
# nothing contends today: no line of eth0 is judged false sharing
expect_eq "eth0's verdicts" "$(json_get l.json '[l["verdict"] for l in j["cachelines"] if any((o["data_member"] or "").startswith("eth0.") for o in l["offsets"]) and l["verdict"] == "false sharing"]')" "[]"
# HTML: a table of the pairs
"$C2CSCAN" report --html l.html -i l.data 2>err || fail "report --html: $(cat err)"
grep -q '<h2 id="latent">Latent false sharing</h2>' l.html && grep -q "eth0.rx_dropped</td>" l.html ||
	fail "HTML has no latent table"
# the browser: L on the lines opens them, the sentence under the cursor
printf 'dump:list.txt L dump:latent.txt\n' >k.keys
C2CSCAN_KEYS=k.keys COLUMNS=160 LINES=30 "$C2CSCAN" report --tui -i l.data 2>err || fail "--tui: $(cat err)"
grep -q " L latent " list.txt || fail "the lines' keys do not offer L: $(tail -n 1 list.txt)"
grep -q "^ *8 eth0.rx_dropped  *[0-9]* eth0.tx_packets " latent.txt || fail "the latent screen: $(cat latent.txt)"
tr -s ' \n' '  ' <latent.txt | grep -q "are 8 bytes apart across a line boundary" || fail "no sentence: $(cat latent.txt)"
# the fix: a line between the groups
"$C2CSCAN" record -q --emulate -o p.data -- "$padded" >/dev/null 2>err || fail "record padded: $(cat err)"
"$C2CSCAN" report --json -i p.data >p.json 2>err || fail "report padded: $(cat err)"
expect_eq "padded: latent" "$(json_get p.json 'j["latent"]')" "[]"
"$C2CSCAN" report --stdio -i p.data | grep -q "Latent False Sharing" && fail "padded: --stdio has a latent section"
# report --patch --patch-latent on a build from its own folder: the later
# counter aligned to a 128-byte block; the diff applies, the program builds
# with the same flags and says the same, and has no latent pair after
command -v patch >/dev/null 2>&1 || skip "no patch(1)"
mkdir -p src fixed
cp "$TOP/tests/progs/latent.c" src/
cp "$TOP/tests/progs/latent.c" fixed/
flags="-std=gnu11 -O2 -g -Wall -Werror"
(cd src && gcc $flags -fsanitize=thread -o prog-tsan latent.c -lpthread) 2>err || fail "build: $(cat err)"
"$C2CSCAN" record -q --emulate -o s.data -- src/prog-tsan >s.out 2>err || fail "record src: $(cat err)"
"$C2CSCAN" report -i s.data --patch latent.diff 2>said || fail "--patch: $(cat said)"
grep -q "^c2cscan report: --patch latent.diff: 0 changes" said || fail "--patch alone patched latent pairs: $(cat said)"
"$C2CSCAN" report -i s.data --patch latent.diff --patch-latent 2>said || fail "--patch-latent: $(cat said)"
grep -q "^c2cscan report: --patch latent.diff: 1 change$" said || fail "--patch-latent says: $(cat said)"
grep -q "^+	/\* c2cscan: latent 0x[0-9a-f]*, eth0.rx_dropped (tid [0-9]*) and eth0.tx_packets (tid [0-9]*), 8 bytes apart: tx_packets on a line of its own \*/$" latent.diff ||
	fail "no comment naming the pair: $(cat latent.diff)"
grep -q "^+	_Alignas(128) long tx_packets;$" latent.diff || fail "not _Alignas(128) on tx_packets: $(cat latent.diff)"
(cd fixed && patch -s -p1 <../latent.diff) 2>err || fail "patch -p1: $(cat err)"
if command -v git >/dev/null 2>&1; then
	cp -r src src-git
	(cd src-git && git apply ../latent.diff) 2>err || fail "git apply: $(cat err)"
	cmp -s src-git/latent.c fixed/latent.c || fail "git apply and patch -p1 differ"
fi
(cd fixed && gcc $flags -o prog latent.c -lpthread && gcc $flags -fsanitize=thread -o prog-tsan latent.c -lpthread) 2>err ||
	fail "the patched program does not build: $(cat err)"
expect_eq "the patched program's output" "$(fixed/prog)" "$(cat s.out)"
"$C2CSCAN" record -q --emulate -o f.data -- fixed/prog-tsan >/dev/null 2>err || fail "record fixed: $(cat err)"
"$C2CSCAN" report --json -i f.data >f.json 2>err || fail "report fixed: $(cat err)"
expect_eq "patched: latent" "$(json_get f.json 'j["latent"]')" "[]"
# --patch-latent alone is a usage error
"$C2CSCAN" report -i s.data --patch-latent >/dev/null 2>err
expect_eq "--patch-latent alone: exit" "$?" 129
done_test
