#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --patch on real programs, each built from its own source folder
# under TSan and recorded with --emulate (--alloc): adjacent members of a
# global struct in C (tests/progs/counters.c: _Alignas) and C++
# (statsxx.cc: alignas), a global array of per-thread structs (slots.c:
# the struct type aligned; its heap arrays are said, not patched), of a
# typedef'd anonymous struct (anonslots.c). For
# each: the diff applies with git apply and patch -p1, the patched program
# compiles without and with TSan with the same flags, prints what it did
# before, and its new recording has no false sharing on that data. A
# program whose sources are gone gets a note and no change, not a broken
# patch.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
command -v patch >/dev/null 2>&1 || skip "no patch(1)"
tsan_runs || skip "a -fsanitize=thread program does not run here"
export COUNTERS_SECONDS=0 COUNTERS_ROUNDS=8 SLOTS_STEPS=750000

# build DIR SRC COMPILER FLAGS...: DIR/prog-tsan, and with PLAIN=1
# DIR/prog too, built in DIR (its compilation directory)
build() {
	dir=$1 src=$2 cc=$3
	shift 3
	(cd "$dir" && { [ "${PLAIN:-0}" = 0 ] || $cc "$@" -o prog "$src" -lpthread; } &&
		$cc "$@" -fsanitize=thread -o prog-tsan "$src" -lpthread) \
		>"$dir.cc.err" 2>&1 || fail "$dir: does not build: $(head -n 5 "$dir.cc.err")"
}

# members NAME DIR: the false-sharing lines' data members, one per line
fs_members() {
	"$C2CSCAN" report --json -i "$1.data" >"$1.json" 2>err || fail "report $1: $(cat err)"
	json_get "$1.json" '"\n".join(sorted(set(o["data_member"] or "?" for l in j["cachelines"] if l["verdict"] == "false sharing" for o in l["offsets"])))'
}

# fix NAME SRC COMPILER FLAGS...: record NAME's TSan build, write its patch,
# apply it to a copy (git apply) and to another (patch -p1), rebuild, run,
# record again; NAME.before / NAME.after: the false-sharing members
fix() {
	name=$1 src=$2
	mkdir -p "$name"
	cp "$TOP/tests/progs/$src" "$name/"
	build "$@"
	"$C2CSCAN" record -q --emulate --alloc -o "$name.data" -- "$name/prog-tsan" >"$name.out" 2>"$name.rec" ||
		fail "record $name: $(cat "$name.rec")"
	fs_members "$name" >"$name.before"
	"$C2CSCAN" report -i "$name.data" --patch "$name.diff" 2>"$name.said" || fail "$name: --patch: $(cat "$name.said")"
	grep -q "^c2cscan report: --patch $name.diff: [1-9][0-9]* changes\{0,1\}$" "$name.said" ||
		fail "$name: --patch says: $(cat "$name.said")"
	grep -q "^diff --git a/$src b/$src$" "$name.diff" || fail "$name: not a diff of $src: $(cat "$name.diff")"
	grep -q "^+.*/\* c2cscan: line [0-9]* 0x[0-9a-f]*, .* (tid [0-9]*) and .* (tid [0-9]*): " "$name.diff" ||
		fail "$name: no comment naming the line and its threads: $(cat "$name.diff")"
	if command -v git >/dev/null 2>&1; then
		cp -r "$name" "$name-git"
		(cd "$name-git" && git apply "../$name.diff") 2>err || fail "$name: git apply: $(cat err)"
		cmp -s "$name-git/$src" "$name/$src" && fail "$name: git apply changed nothing"
	fi
	mkdir -p "$name-fixed"
	cp "$TOP/tests/progs/$src" "$name-fixed/"
	(cd "$name-fixed" && patch -s -p1 <"../$name.diff") 2>err || fail "$name: patch -p1: $(cat err)"
	shift
	PLAIN=1 build "$name-fixed" "$@"
	(cd "$name-fixed" && ./prog) >"$name-fixed.out" 2>&1 || fail "$name: the patched program fails"
	# (slots.c prints its struct's size too: the fix pads it)
	expect_eq "$name: the patched program's output" "$(sed 's/ slot [0-9]* B$//' "$name-fixed.out")" \
		"$(sed 's/ slot [0-9]* B$//' "$name.out")"
	"$C2CSCAN" record -q --emulate --alloc -o "$name-fixed.data" -- "$name-fixed/prog-tsan" >/dev/null 2>err ||
		fail "record $name patched: $(cat err)"
	fs_members "$name-fixed" >"$name.after"
	# the advice's prediction against the new recording (diff): what the
	# fix leaves, within 2 contended accesses per million or a tenth of
	# the rate before the fix, whichever is larger (of the names the
	# patch changed: PATCHED, a regular expression)
	"$C2CSCAN" diff --json "$name.data" "$name-fixed.data" >"$name.dj" 2>err || fail "$name: diff: $(cat err)"
	json_get "$name.dj" '"\n".join("%s %s" % (e["name"], abs(e["rate_after"] - e["predicted_rate"]) <= max(2.0, 0.1 * e["rate_before"])) for e in j["lines"] if e["predicted_rate"] is not None and __import__("re").fullmatch("'"${PATCHED:-.*}"'", e["name"]))' >"$name.pred"
	grep -q " True$" "$name.pred" || fail "$name: no prediction checked: $(cat "$name.pred")"
	grep -q " False$" "$name.pred" && fail "$name: predictions off: $(json_get "$name.dj" '[(e["name"], e["predicted_rate"], e["rate_after"]) for e in j["lines"]]')"
	"$C2CSCAN" diff "$name.data" "$name-fixed.data" 2>/dev/null |
		grep -q "^# .*: its fix was predicted to leave [0-9.]* contended accesses per million; measured after: [0-9.]*$" ||
		fail "$name: diff does not say the prediction"
}

fix counters counters.c gcc -std=gnu11 -O2 -g -Wall -Werror
grep -q "^+	_Alignas(64) long consumed; " counters.diff || fail "counters: not _Alignas on consumed: $(cat counters.diff)"
expect_eq "counters: false sharing before" "$(grep -c '^counters\.\(consumed\|produced\)$' counters.before)" 2
expect_eq "counters: false sharing after" "$(cat counters.after)" ""

fix statsxx statsxx.cc g++ -std=gnu++17 -O2 -g -Wall -Werror
grep -q "^+	alignas(64) long tx; " statsxx.diff || fail "statsxx: not alignas on tx: $(cat statsxx.diff)"
expect_eq "statsxx: false sharing before" "$(grep -c '^net\.[rt]x$' statsxx.before)" 2
expect_eq "statsxx: false sharing after" "$(cat statsxx.after)" ""

# the global array's element type aligned; the heap arrays said
PATCHED=gslots
fix slots slots.c gcc -std=gnu11 -O2 -g -Wall -Werror
PATCHED=
grep -q "^+struct __attribute__((aligned(64))) slot {$" slots.diff || fail "slots: the type not aligned: $(cat slots.diff)"
grep -q "^# c2cscan: line [0-9]* 0x[0-9a-f]*, struct slot\[[0-9]\]\.[a-z]* (tid [0-9]*) and .*: a [0-9]* B heap object from alloc_array at slots.c:[0-9]*: not patched (allocate it 64-byte aligned" slots.diff ||
	fail "slots: the heap array not said: $(cat slots.diff)"
grep -q "gslots" slots.before || fail "slots: no false sharing on gslots before: $(cat slots.before)"
grep -q "gslots" slots.after && fail "slots: false sharing on gslots after: $(cat slots.after)"

# a typedef'd anonymous struct: aligned where it has no tag
fix anonslots anonslots.c gcc -std=gnu11 -O2 -g -Wall -Werror
grep -q "^+typedef struct __attribute__((aligned(64))) {$" anonslots.diff || fail "anonslots: $(cat anonslots.diff)"
grep -q "slots" anonslots.before || fail "anonslots: no false sharing before: $(cat anonslots.before)"
expect_eq "anonslots: false sharing after" "$(cat anonslots.after)" ""

# sources gone: a note, no change, no diff
rm counters/counters.c
"$C2CSCAN" report -i counters.data --patch gone.diff 2>gone.said || fail "sources gone: exit $?"
grep -q "^c2cscan report: --patch gone.diff: 0 changes" gone.said || fail "sources gone says: $(cat gone.said)"
grep -q "^# c2cscan: line [0-9]* .*counters.c:[0-9]* not found: not patched$" gone.diff || fail "sources gone: $(cat gone.diff)"
grep -q "^diff " gone.diff && fail "sources gone: a diff: $(cat gone.diff)"
# an unwritable file: one line, exit 1
"$C2CSCAN" report -i counters.data --patch /nonexistent/x.diff >/dev/null 2>err
expect_eq "unwritable --patch: exit" "$?" 1
grep -q "^c2cscan report: --patch /nonexistent/x.diff: cannot write: No such file or directory$" err ||
	fail "unwritable: $(cat err)"
done_test
