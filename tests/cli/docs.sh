#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The documentation says what the program does: every report and record
# option of -h is in its man page's synopsis or options; the man page's JSON
# counter list is the counters the JSON has; the README lists every man page.
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
for cmd in report record diff; do
	man=$TOP/man/c2cscan-$cmd.1
	for opt in $("$C2CSCAN" $cmd -h 2>&1 | grep -o -- '--[a-z][a-z-]*' | grep -v -- '^--help$' | sort -u); do
		esc=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
		grep -q -- "$esc" "$man" || fail "c2cscan-$cmd.1 does not document $opt"
	done
done
mkperf "$TOP/tests/fixtures/scenarios/false-sharing.scn" fs.data || done_test
"$C2CSCAN" report --json -i fs.data >fs.json || fail "report"
json_get fs.json '" ".join(sorted(j["totals"].keys()))' >json.keys
sed -n '/^COUNTERS are integers/,/^Addresses and offsets/p' "$TOP/man/c2cscan-report.1" |
	sed -n 's/^\.BR\{0,1\} \([a-z_0-9]*\).*/\1/p' | sort | tr '\n' ' ' | sed 's/ $//' >man.keys
expect_eq "JSON counters in the man page" "$(cat man.keys)" "$(cat json.keys)"
# every counter that has perf's label in the one list (hitm/datasrc.h) is in
# --stdio's Trace Event Information (its order is perf's, in stdio.c)
"$C2CSCAN" report --stdio -i fs.data >fs.stdio || fail "stdio"
grep -o 'X([a-z_0-9]*, "[a-z_0-9]*", "[^"]*")' "$TOP/src/hitm/datasrc.h" | sed 's/.*, "\([^"]*\)")$/\1/' >labels
[ "$(wc -l <labels)" -ge 30 ] || fail "found $(wc -l <labels) labels in datasrc.h"
while read -r label; do
	[ "$label" = "Store HITM" ] && continue         # only where there are some (emulated recordings)
	grep -q "^  $label  *:" fs.stdio || fail "--stdio does not print the counter '$label'"
done <labels
# what software events can show, wherever they are offered
"$C2CSCAN" record -h 2>&1 | tr -s ' \n' '  ' | grep -q "they cannot show contention" ||
	fail "record -h offers page-faults without saying they cannot show contention"
grep -q "cannot show contention" "$TOP/man/c2cscan-record.1" ||
	fail "c2cscan-record.1 offers page-faults without saying they cannot show contention"
grep -q "record -e page-faults.*not contention\|not contention (no HITM)" "$TOP/README.md" ||
	fail "README offers page-faults without saying they cannot show contention"
for m in "$TOP"/man/*.1; do
	grep -q "man/$(basename "$m")" "$TOP/README.md" || fail "README does not list $(basename "$m")"
done
# one list of options: what each command's parser takes (--list-options,
# which the bash completion asks) is in its usage and its man page
for c in report record diff; do
	"$C2CSCAN" $c --list-options >opts.txt 2>err || fail "$c --list-options: $(cat err)"
	"$C2CSCAN" $c -h >usage.txt 2>&1
	for o in $(grep -- '^--' opts.txt); do
		[ "$o" = --help ] && continue
		grep -q -- "$o" usage.txt || fail "$c: $o is not in its usage"
		grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$TOP/man/c2cscan-$c.1" || fail "$c: $o is not in its man page"
		# the words its value takes, from the same table, in the man page too
		for w in $("$C2CSCAN" $c --list-values "$o"); do
			grep -q -- "$(printf '%s' "$w" | sed 's/-/\\\\-/g')" "$TOP/man/c2cscan-$c.1" ||
				fail "$c: $o's value $w is not in its man page"
		done
	done
done
expect_eq "commands" "$("$C2CSCAN" --list-commands | tr '\n' ' ')" "report record check diff "
# the completion offers them (it asks c2cscan, not a copy)
if command -v bash >/dev/null 2>&1; then
	got=$(PATH="$(dirname "$C2CSCAN"):$PATH" bash -c '. "$1"; COMP_WORDS=(c2cscan report --so); COMP_CWORD=2; _c2cscan; echo "${COMPREPLY[*]}"; COMP_WORDS=(c2cscan d); COMP_CWORD=1; _c2cscan; echo "${COMPREPLY[*]}"' x "$TOP/scripts/c2cscan.bash-completion")
	expect_eq "completion" "$(echo $got)" "--sort diff"
	# option values, from the parsers' tables: after the option, after a comma, after --opt=
	got=$(PATH="$(dirname "$C2CSCAN"):$PATH" bash -c '. "$1"
		COMP_WORDS=(c2cscan report --fail-on ""); COMP_CWORD=3; _c2cscan; echo "${COMPREPLY[*]};"
		COMP_WORDS=(c2cscan report --fail-on false-sharing,m); COMP_CWORD=3; _c2cscan; echo "${COMPREPLY[*]};"
		COMP_WORDS=(c2cscan report -d r); COMP_CWORD=3; _c2cscan; echo "${COMPREPLY[*]};"
		COMP_WORDS=(c2cscan report --sort ""); COMP_CWORD=3; _c2cscan; echo "${COMPREPLY[*]};"
		COMP_WORDS=(c2cscan diff --display p); COMP_CWORD=3; _c2cscan; echo "${COMPREPLY[*]};"
		COMP_WORDS=(c2cscan record --emulate=h); COMP_CWORD=2; _c2cscan; echo "${COMPREPLY[*]};"' x "$TOP/scripts/c2cscan.bash-completion")
	expect_eq "completion of values" "$(echo $got)" \
		"false-sharing true-sharing mixed; false-sharing,mixed; rmt; gain metric; peer; --emulate=hitm=;"
fi
# every file of the tree a README, a comment, a man page or a test names
# exists (a path from the top: src/..., tests/..., docs/DESIGN.md)
missing=$(cd "$TOP" && python3 - <<'PY'
import os, re
pat = re.compile(r'(?<![\w/.-])((?:src|tests|scripts|man|docs|mk)/[\w./-]+\.(?:c|h|sh|md|py|scn|1|mk|cc|inc|data))\b')
seen = set()
for top in ("src", "tests", "scripts", "man", "docs", "mk", "README.md", "Makefile"):
    walk = [(top, [], [top])] if os.path.isfile(top) else os.walk(top)
    for d, _, files in walk:
        for f in files:
            p = f if d == f else os.path.join(d, f)
            if p.startswith(("tests/fixtures/real", "tests/fuzz/regress", "tests/fuzz/seeds")) or p.endswith((".data", ".gz", ".png")):
                continue
            try:
                text = open(p, encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            for m in pat.findall(text):
                if not os.path.exists(m) and (p, m) not in seen:
                    seen.add((p, m))
                    print("%s names %s" % (p, m))
PY
)
expect_eq "files named that do not exist" "$missing" ""
# the model's latencies as c2cscan-record(1) gives them: the class table's
# (src/perfdata/perf_data.h, PD_EMU_CLASSES), labelled classes in order
table=$(sed -n 's/^\tX(PD_EMU_[A-Z_0-9]*, \([0-9]*\), "\([^"]*\)").*/\2 \1/p' "$TOP/src/perfdata/perf_data.h" | paste -sd, - | sed 's/,/, /g')
[ -n "$table" ] || fail "no class table in src/perfdata/perf_data.h"
grep -q "^$table cycles\." "$TOP/man/c2cscan-record.1" || fail "c2cscan-record(1) does not give the latencies as the table has them ($table)"
done_test
