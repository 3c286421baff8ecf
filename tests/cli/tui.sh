#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The browser, headless: key scripts (C2CSCAN_KEYS) drive it on a virtual
# screen and dump it; every dump is compared with tests/golden/tui/NAME.txt
# (GOLDEN_UPDATE=1 regenerates them; read the diff before committing). Each
# key is also checked to change the screen, so a key that stops working
# fails here even if someone regenerates the goldens without looking.
. "$TOP/tests/cli/lib.inc"
G=$TOP/tests/golden/tui
cd "$T" || exit 1
mkperf "$TOP/tests/fixtures/scenarios/tui.scn" tui.data || done_test

# run NAME [env...]: key script on stdin, screen COLUMNS x LINES (80x24);
# the exit status must be $want (0); $args: more report options
want=0
run() {
	name=$1; shift
	cat >"$name.keys"
	env COLUMNS=80 LINES=24 LC_ALL=C "$@" C2CSCAN_KEYS="$name.keys" \
		"$C2CSCAN" report --tui ${args:-} -i tui.data >"$name.out" 2>"$name.err"
	rc=$?
	[ $rc = $want ] || { fail "$name: exit $rc: $(cat "$name.err")"; return 1; }
	[ -s "$name.out" ] && fail "$name: wrote to stdout in headless mode"
	return 0
}

# golden NAME...: compare dumps with the goldens
golden() {
	for d in "$@"; do
		[ -f "$d.txt" ] || { fail "$d: no dump (a key script word failed?)"; continue; }
		if [ "${GOLDEN_UPDATE:-}" = 1 ]; then
			cp "$d.txt" "$G/$d.txt"
		elif ! diff -u "$G/$d.txt" "$d.txt" >diff.out; then
			fail "screen $d differs from tests/golden/tui/$d.txt:"; head -n 30 diff.out
		fi
	done
}

# changed KEY A B: dump B (after KEY) must differ from dump A
changed() {
	cmp -s "$2.txt" "$3.txt" && fail "key '$1' did not change the screen ($2 -> $3)"
	return 0
}

# ---- the list: moving the cursor ----
run nav <<'K'
dump:list.txt
down dump:down.txt
up dump:up.txt
pgdn dump:pgdn.txt
pgup dump:pgup.txt
end dump:end.txt
home dump:home.txt
wheeldown dump:wheel.txt
j dump:j.txt
K
golden list down pgdn end
changed down list down; changed up down up; changed pgdn up pgdn; changed pgup pgdn pgup
changed end pgup end; changed home end home; changed wheeldown home wheel; changed j wheel j
cmp -s up.txt list.txt || fail "up after down: not back on the first line"
cmp -s home.txt list.txt || fail "home: not back on the first line"

# ---- opening a line: the offsets and the byte strip ----
run open <<'K'
down down down down down down down down down down dump:fs-cursor.txt
enter dump:fs-line.txt
down dump:fs-down.txt
esc dump:fs-back.txt
right dump:fs-right.txt
left dump:fs-left.txt
enter q dump:fs-q.txt
K
golden fs-line fs-down
changed enter fs-cursor fs-line; changed down fs-line fs-down; changed esc fs-down fs-back
changed right fs-back fs-right; changed left fs-right fs-left
cmp -s fs-back.txt fs-cursor.txt || fail "esc: not back on the list at the same line"
cmp -s fs-q.txt fs-cursor.txt || fail "q in a line: not back on the list"
grep -q "FALSE SHARING" fs-line.txt || fail "the false-sharing line is not called false sharing"
# the advice wraps at 80 columns instead of losing the fix, the prediction and the gain
grep -q "alignas(64) on it" fs-line.txt && grep -q "accesses; gain up to [0-9]* cycles" fs-line.txt ||
	fail "the advice lost its fix at 80 columns: $(grep -A2 'share a line' fs-line.txt)"
grep -q "^ bytes   WWWWWWWWWWWWWWWWWWWWWWWW\|^ bytes   X.......X.......X" fs-line.txt ||
	fail "byte strip: offsets 0x0, 0x8, 0x10 are not marked as read and written"

# the true-sharing line (#23) and the strip's caret following the cursor
run true <<'K'
end up up up up up up up up up up up up up up up dump:ts-cursor.txt
enter dump:ts-line.txt
K
golden ts-line
grep -q "TRUE SHARING" ts-line.txt || fail "the true-sharing line is not called true sharing"

# --double-cl: a 128-byte line in two strips of 64 on 80 columns, in one on 160
args=--double-cl run dcl <<'K'
down down down down down down down down down enter dump:dcl-line.txt
K
args=--double-cl run dcl-wide COLUMNS=160 <<'K'
down down down down down down down down down enter dump:dcl-wide.txt
K
golden dcl-line dcl-wide
[ "$(grep -c '^ bytes' dcl-line.txt)" = 2 ] || fail "--double-cl on 80 columns: not two strips"
[ "$(grep -c '^ bytes' dcl-wide.txt)" = 1 ] || fail "--double-cl on 160 columns: not one strip"

# ---- display modes ----
run modes <<'K'
d dump:mode-lcl.txt
d dump:mode-rmt.txt
d dump:mode-peer.txt
d dump:mode-all.txt
d dump:mode-tot.txt
K
golden mode-lcl mode-rmt mode-all
changed d list mode-lcl; changed d mode-lcl mode-rmt; changed d mode-rmt mode-peer
changed d mode-peer mode-all; changed d mode-all mode-tot
grep -q "display rmt: 2 lines" mode-rmt.txt || fail "d: remote mode does not list the 2 remote lines"
grep -q "display all: 44 lines" mode-all.txt || fail "d: mode all does not list all 44 lines"

# ---- sort, columns sideways, search ----
run sort <<'K'
s dump:sort1.txt
s s s dump:sort-lcl.txt
S dump:sort-off.txt
> dump:right1.txt
> > > > dump:right5.txt
< dump:left1.txt
K
golden sort1 sort-lcl right5
changed s list sort1; changed S sort-lcl sort-off; changed '>' sort-off right1; changed '<' right5 left1
cmp -s sort-off.txt list.txt || fail "S: not back to rank order"

run search <<'K'
/ text:shm dump:prompt.txt enter dump:found.txt
esc dump:cleared.txt
/ text:nothing_here enter dump:none.txt
esc / text:0x3000040 enter enter dump:found-open.txt
K
golden prompt found none found-open
changed / list prompt; changed enter prompt found; changed esc found cleared
grep -q "/dev/shm/ring" found.txt || fail "search 'shm' did not find the shared line"
cmp -s cleared.txt list.txt || fail "esc did not clear the search"

# ---- node view, grouping of rows ----
run nodes <<'K'
n dump:nodes1.txt
n dump:nodes2.txt
n dump:nodes0.txt
down down down down down down down down down down enter dump:group-iaddr.txt
c dump:group-offset.txt
c dump:group-pid.txt
c dump:group-tid.txt
n n dump:group-tid-nodes.txt
c dump:group-back.txt
K
golden nodes1 nodes2 group-offset group-tid group-tid-nodes
changed n list nodes1; changed n nodes1 nodes2; changed c group-iaddr group-offset
changed c group-offset group-pid; changed c group-pid group-tid; changed c group-tid-nodes group-back
grep -q "14002 bench" group-tid.txt || fail "c: rows by tid do not name thread 14002"

# ---- help ----
run help <<'K'
? dump:help.txt
esc dump:help-back.txt
f1 dump:help-f1.txt
q dump:help-q.txt
K
golden help
changed '?' list help; changed esc help help-back
cmp -s help-f1.txt help.txt || fail "F1 does not show the help"
cmp -s help-q.txt list.txt || fail "q in the help does not go back"

# ---- sizes: 80x24 is the default above; a wide screen; resizes ----
run wide COLUMNS=256 LINES=50 <<'K'
dump:wide.txt enter dump:wide-line.txt
K
golden wide wide-line
run resize <<'K'
resize:120x30 dump:resize-big.txt
resize:40x12 dump:resize-small.txt
resize:20x5 dump:resize-tiny.txt
resize:80x24 dump:resize-back.txt
K
golden resize-big resize-small resize-tiny
cmp -s resize-back.txt list.txt || fail "resize back to 80x24 does not redraw the same screen"
awk 'length($0) > 40 { bad = 1 } END { exit bad }' resize-small.txt || fail "resize to 40 columns: lines wider than 40"

# ---- a long object path at 80 columns: the line screen's title keeps the
# line's key whole and the path's end (its file name), not its start ----
long=/opt/vendor/java/jdk-21.0.2+13/lib/server/extra/prefix/libjvm.so
sed "s|/usr/lib/libx.so|$long|" "$TOP/tests/fixtures/scenarios/cow-3proc.scn" >long.scn
mkperf long.scn long.data
printf 'dump:long-list.txt enter dump:long-line.txt\n' >long.keys
env COLUMNS=80 LINES=24 LC_ALL=C C2CSCAN_KEYS=long.keys "$C2CSCAN" report --tui -i long.data >/dev/null 2>&1 ||
	fail "long path: the browser failed"
title=$(head -n 1 long-line.txt)
case $title in
" c2cscan  line #0  0x7f0000203040  private pid 100"[123]"  +"*"/extra/prefix/libjvm.so") ;;
*) fail "long path: the title does not keep the key and the path's end: '$title'" ;;
esac
[ ${#title} -le 80 ] || fail "long path: the title is wider than 80 columns: '$title'"
# and the list's line under the cursor names the object by its file name
tail -n 2 long-list.txt | head -n 1 | grep -q "^ private pid 100[123]  +.*/extra/prefix/libjvm.so$" ||
	fail "long path: the list's detail line lost the file name: $(tail -n 2 long-list.txt | head -n 1)"

# ---- locales and colours ----
run utf8 LC_ALL=C.UTF-8 <<'K'
down down down down down down down down down down enter dump:utf8-line.txt attrs:colour.txt
K
golden utf8-line
grep -q "X·······X·······X" utf8-line.txt || fail "UTF-8: the strip does not use middle dots"
run nocolor NO_COLOR=1 <<'K'
enter attrs:mono.txt
K
grep -q '[1-9]' colour.txt || fail "colours: no colour pair used"
grep -q '[1-9]' mono.txt && fail "NO_COLOR: colour pairs used"
grep -q 'B' mono.txt || fail "NO_COLOR: written bytes are not bold"

# ---- Ctrl-C, errors, no terminal ----
want=130 run ctrlc <<'K'
enter C-c dump:never.txt
K
[ -f never.txt ] && fail "C-c: the script went on after Ctrl-C"
printf 'bogus-word\n' >bad.keys
env C2CSCAN_KEYS=bad.keys "$C2CSCAN" report --tui -i tui.data >/dev/null 2>bad.err
grep -q "bad.keys: unknown key script word 'bogus-word'" bad.err || fail "a bad key script word is not reported: $(cat bad.err)"
env C2CSCAN_KEYS=missing.keys "$C2CSCAN" report --tui -i tui.data >/dev/null 2>missing.err
rc=$?
[ $rc = 1 ] && grep -q "missing.keys" missing.err || fail "a missing key script: exit $rc, $(cat missing.err)"
if command -v setsid >/dev/null; then
	setsid "$C2CSCAN" report --tui -i tui.data </dev/null >/dev/null 2>notty.err
	rc=$?
	[ $rc = 1 ] && grep -q "needs a terminal" notty.err || fail "--tui without a terminal: exit $rc, $(cat notty.err)"
fi
# rows regrouped from a file that stops early: said, and the exit status is 2
mkperf "$TOP/tests/fixtures/scenarios/torn-tail.scn" torn.data &&
	printf 'enter\nc\ndump:torn-c.txt\nq\n' >torn.keys &&
	env COLUMNS=100 LINES=20 LC_ALL=C C2CSCAN_KEYS=torn.keys "$C2CSCAN" report --tui -i torn.data >/dev/null 2>torn.err
rc=$?
[ $rc = 2 ] || fail "torn file in the browser: exit $rc, want 2"
tail -n 1 torn-c.txt | grep -q "rows per offset (of the part of the file that reads)" ||
	fail "regrouping a torn file does not say so: $(tail -n 1 torn-c.txt)"
# cycles as people read them (the AMD recording's first line: 489781017)
printf 'enter dump:amd-line.txt\n' >amd.keys
env COLUMNS=100 LINES=30 LC_ALL=C C2CSCAN_KEYS=amd.keys "$C2CSCAN" report --tui \
	-i "$TOP/tests/fixtures/real/amd-zen4-ibs-c2c-ring.data" >/dev/null 2>err || fail "amd: $(cat err)"
grep -q "gain up to 490 M cycles (12.15%)" amd-line.txt || fail "amd: cycles: $(grep -A2 -i 'true sharing' amd-line.txt)"
# the node view lists the nodes in place of their count: one Nodes column
printf 'n dump:nodes-wide.txt\n' >nw.keys
env COLUMNS=200 LINES=10 LC_ALL=C C2CSCAN_KEYS=nw.keys "$C2CSCAN" report --tui -i tui.data >/dev/null 2>err || fail "nodes: $(cat err)"
expect_eq "Nodes columns" "$(grep '^  # Address' nodes-wide.txt | tr ' ' '\n' | grep -c '^Nodes$')" 1
# a binary not found is said in the browser, on the first screen and the line's
grep -q "^ warning: /usr/bin/bench not found" nodes-wide.txt || fail "list: no warning: $(sed -n 4p nodes-wide.txt)"
grep -q "^ warning: /usr/bin/bench not found" ts-line.txt || fail "line: no warning: $(sed -n 3p ts-line.txt)"
# the callers screen at 80 columns: the stack under the cursor whole, wrapped
# under the list (the list cuts it at the edge, where its outer callers were)
mkperf "$TOP/tests/fixtures/scenarios/callchains.scn" cc.data
printf 'enter down enter down dump:callers80.txt\n' >c80.keys
env COLUMNS=80 LINES=24 LC_ALL=C C2CSCAN_KEYS=c80.keys "$C2CSCAN" report --tui -i cc.data >/dev/null 2>err || fail "callers: $(cat err)"
tail -n 3 callers80.txt | head -n 2 | tr -s ' \n' '  ' | grep -q '^0xffffffff81000100 <- .* <- 0x401305 (cgprog) $' ||
	fail "callers at 80 columns: the outer caller is lost: $(tail -n 4 callers80.txt)"
done_test
