#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The browser on a real terminal (tmux): it opens by itself when stdout is a
# terminal, follows a resize (SIGWINCH), and leaves the terminal sane after
# q, after Ctrl-C and when the terminal type is unknown.
. "$TOP/tests/cli/lib.inc"
command -v tmux >/dev/null || skip "tmux is not installed"
cd "$T" || exit 1
mkperf "$TOP/tests/fixtures/scenarios/tui.scn" tui.data || done_test
S="c2cscan-test-$$"
tm() { tmux -L "$S" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
tm -f /dev/null new-session -d -s t -x 100 -y 30 "env -i PATH=$PATH TERM=xterm HOME=$T sh" ||
	skip "tmux cannot start a session"

# wait_for TEXT: until the pane shows TEXT (5 s)
wait_for() {
	i=0
	while [ $i -lt 50 ]; do
		tm capture-pane -t t -p -S -50 >pane.txt
		grep -q -- "$1" pane.txt && return 0
		sleep 0.1; i=$((i + 1))
	done
	fail "the terminal never showed '$1'; it shows:"; cat pane.txt
	return 1
}

# sane: the line after the report shows a terminal in canonical mode with echo
sane() {
	tm capture-pane -t t -p -S -50 >pane.txt
	grep -q ' icanon' pane.txt && grep -q ' echo ' pane.txt && ! grep -q -- '-icanon\|-echo ' pane.txt ||
		{ fail "$1: terminal not restored:"; cat pane.txt; }
}

tm send-keys -t t "clear; LC_ALL=C $C2CSCAN report -i tui.data; echo EXIT=\$?; stty -a" Enter
wait_for "display tot: 39 lines" || done_test
tm send-keys -t t d
wait_for "display lcl: 38 lines"
tm resize-window -t t -x 60 -y 16
wait_for "Address            Object   .*>"
tm capture-pane -t t -p >pane.txt
awk 'length($0) > 60 { bad = 1 } END { exit bad }' pane.txt || fail "after a resize to 60 columns the screen is wider"
tm send-keys -t t C-c
wait_for "EXIT=130" && wait_for "columns" && sane "Ctrl-C"

tm resize-window -t t -x 100 -y 30
tm send-keys -t t "clear; LC_ALL=C $C2CSCAN report -i tui.data; echo EXIT=\$?; stty -a" Enter
wait_for "display tot" && tm send-keys -t t Enter && wait_for "rows per code address" && tm send-keys -t t q q
wait_for "EXIT=0" && wait_for "columns" && sane "q"

# a terminal the browser cannot use: on its own the report prints text;
# with --tui it says why, in one line
for term in no-such-term dumb; do
	# a marker of its own: the last one's may still be on the screen
	tm send-keys -t t "clear; TERM=$term $C2CSCAN report -i tui.data | head -n 1; TERM=$term $C2CSCAN report --tui -i tui.data; echo EXIT-$term=\$?; stty -a" Enter
	wait_for "EXIT-$term=1" && wait_for "columns" && sane "TERM=$term"
	grep -q "^# c2cscan .* report" pane.txt || fail "TERM=$term: no text report"
done
grep -q "terminal 'dumb' cannot move the cursor" pane.txt || fail "TERM=dumb --tui: no reason given"
tm send-keys -t t "clear; TERM=no-such-term $C2CSCAN report --tui -i tui.data; echo EXIT-last=\$?" Enter
wait_for "EXIT-last=1" && grep -q "cannot set up the terminal 'no-such-term'" pane.txt || fail "unknown TERM --tui: no reason given"
done_test
