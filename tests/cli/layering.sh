#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The source tree's stages (src/*/README.md): a folder includes its own
# headers and those of the stages below it, never above, and never another
# stage's *_int.h (a struct's fields); its objects call only functions
# defined in its own stage or below, and no two files of a stage use each
# other, directly or around a circle. Checked on the sources
# (#include lines) and on the built objects (undefined symbols, nm).
# run-tests: full (nm over every object and the include graph: 17 s; make check-full and CI run it)
. tests/cli/lib.inc

# stage: the stages it may use (besides itself)
below() {
	case $1 in
	util) echo "" ;;
	perfdata) echo "util" ;;
	record) echo "perfdata util" ;;
	maps) echo "perfdata util" ;;
	hitm) echo "maps perfdata util" ;;
	names) echo "hitm maps perfdata util" ;;
	report) echo "names hitm maps perfdata util" ;;
	tui) echo "report names hitm maps perfdata util" ;;
	cli) echo "tui report names hitm maps perfdata record util" ;;
	*) echo "?" ;;
	esac
}

bad=0
[ "$(ls src/*.c)" = "src/main.c" ] || { echo "src/ holds more than main.c: $(ls src/*.c)"; bad=1; }
for d in src/*/; do
	st=$(basename "$d")
	allowed=$(below "$st")
	[ "$allowed" = "?" ] && { echo "$d: a folder that is not a known stage"; bad=1; continue; }
	[ -f "$d/README.md" ] || { echo "$d: no README.md"; bad=1; }
	# includes
	for f in "$d"*.c "$d"*.h; do
		[ -f "$f" ] || continue
		for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			case $inc in
			*/*) to=${inc%%/*} ;;
			*) to=$st ;;
			esac
			[ "$to" = "$st" ] && continue
			case $inc in
			*_int.h) echo "$f includes $inc: the fields of another stage's struct"; bad=1 ;;
			esac
			case " $allowed " in
			*" $to "*) ;;
			*) echo "$f includes $inc: $to is not below $st"; bad=1 ;;
			esac
		done
	done
done

# calls: every undefined symbol of a stage's objects that another stage
# defines must be defined in an allowed stage
obj=$TOP/$B/src
[ -d "$obj" ] || { echo "no objects in $obj: build first"; exit 1; }
# one nm over every object (an nm per object took 1.6 s), the lookups in awk
nm -A "$obj"/*/*.o >"$T/nm" || { echo "nm failed on $obj"; exit 1; }
awk -v top="$TOP/" '{
	o = substr($1, 1, index($1, ":") - 1)
	n = split(o, p, "/")
	st = p[n - 1]
	sub("^" top, "", o)
	if (NF == 3 && $2 ~ /^[TDBR]$/) print "D", $3, st
	else if (NF == 3 && $2 == "U") print "U", $3, st, o
}' "$T/nm" >"$T/syms"
for d in "$obj"/*/; do
	st=$(basename "$d")
	[ -d "$TOP/src/$st" ] || continue
	echo "$st $(below "$st")"
done >"$T/allowed"
awk 'FNR == NR { for (i = 2; i <= NF; i++) ok[$1 " " $i] = 1; next }
     $1 == "D" { def[$2] = $3; next }
     $1 == "U" { use[++n] = $2 " " $3 " " $4 }
     END {
	for (i = 1; i <= n; i++) {
		split(use[i], u, " ")
		to = def[u[1]]
		if (to == "" || to == u[2]) continue
		if (!((u[2] " " to) in ok)) { print u[3] ": calls " u[1] ", defined in " to ", not below " u[2]; bad = 1 }
	}
	exit bad
     }' "$T/allowed" "$T/syms" || bad=1
# a header names only functions that exist (stage__verb( anywhere in it,
# declarations and comments alike): defined on a line of a .c file that
# starts with a lowercase letter, or static inline in a header (one list,
# then one lookup: a grep per name took seconds)
{ grep -h '^[a-z]' src/*/*.c; grep -h '^static inline' src/*/*.h; } | grep -o '[ *][a-z][a-z_0-9]*(' | tr -d ' *(' |
	sort -u >"$T/defined"
grep -oh '[a-z][a-z_0-9]*__[a-z_0-9][a-z_0-9]*(' src/*/*.h | tr -d '(' | sort -u | comm -23 - "$T/defined" >"$T/undef"
while read -r f; do echo "a header names $f(), which is defined nowhere"; bad=1; done <"$T/undef"
# so does a stage's README (`name__verb` and `name_verb` in backquotes)
grep -oh '[ *][a-z_0-9]*(' src/*/*.c src/*/*.h | tr -d ' *(' | sort -u >"$T/named"
for f in src/*/README.md; do
	grep -o '`[a-z][a-z_0-9]*_[a-z_0-9]*`' "$f" | tr -d '`' | sort -u | comm -23 - "$T/named" >"$T/undef"
	while read -r fn; do echo "$f names $fn, which is defined nowhere"; bad=1; done <"$T/undef"
done
# column names are columns.c's alone: the renderers ask a column's traits,
# never compare its name (their own tables' headers may say the same words)
for name in $(sed -n 's/^#define [LR]C_[A-Z0-9_]* { "\([^"]*\)".*/\1/p' src/report/columns.c | tr ' ' '~'); do
	n=$(echo "$name" | tr '~' ' ')
	for f in src/report/stdio.c src/tui/tui.c src/report/html.c; do
		grep -q "strcmp(.*\"$n\")" "$f" && { echo "$f compares a name with the column \"$n\" (columns.c's traits say it)"; bad=1; }
	done
done
# record is a silent library: what it has to say goes to its caller
# (struct record_msg), worded and printed by cli/cmd_record.c
awk '$1 == "U" && $3 == "record" && $2 ~ /^(__)?(v?f?printf|puts|fputs|fputc|putc|putchar|perror|fwrite)(_chk)?$/ {
	print $4 ": calls " $2 ": record prints nothing (struct record_msg, cli/cmd_record.c)"; bad = 1 }
	END { exit bad }' "$T/syms" || bad=1
# no circle between the files of a stage either: each file of src/report,
# src/names, src/util... uses only files below it
python3 "$TOP/tests/cli/file-cycles.py" "$T/nm" || bad=1
[ $bad = 0 ] && echo "layering: ok"
exit $bad
