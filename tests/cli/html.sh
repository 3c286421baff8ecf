#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --html and diff --html: one self-contained page (nothing it would
# fetch: no src or href off the page, no external style or script), well
# formed, with the recording, the chart, the lines table and each detailed
# line's verdict, byte picture, thread matrix, time line and rows, in the
# numbers the JSON report gives; opened in Debian's headless Chromium, its
# script runs, sorts the table by a column and searches it (the page reads
# #sort= and #q= from its address as a click and a search would do).
# run-tests: full (three Chromium starts, two CPU seconds each)
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1

# wellformed FILE: the tags balance, nothing is fetched from elsewhere
wellformed() {
	python3 - "$1" <<'PY' || fail "$1: $(cat wf.err)"
import sys
from html.parser import HTMLParser
void = {"meta", "input", "br", "img", "hr", "link", "rect", "line"}
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.bad = [], []
    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("src", "href") and v and not v.startswith("#"):
                self.bad.append("fetches %s=%s" % (k, v))
        if tag in ("script", "link") and any(k == "src" or k == "href" for k, v in attrs):
            self.bad.append("external " + tag)
        if tag not in void:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        pass
    def handle_endtag(self, tag):
        if tag in void:
            return
        if not self.stack or self.stack[-1] != tag:
            self.bad.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()
p = P()
p.feed(open(sys.argv[1]).read())
if p.stack:
    p.bad.append("unclosed: " + " ".join(p.stack))
if p.bad:
    open("wf.err", "w").write("; ".join(p.bad[:5]))
    sys.exit(1)
PY
}

amd="$TOP/tests/fixtures/real/amd-zen4-ibs-c2c-ring.data"
"$C2CSCAN" report --html amd.html -i "$amd" >amd.out 2>err || fail "--html: $(cat err)"
[ -s amd.out ] && fail "--html alone printed: $(head -n 2 amd.out)"
wellformed amd.html
"$C2CSCAN" report --json -i "$amd" >amd.json 2>err || fail "json: $(cat err)"
n=$(json_get amd.json 'len(j["cachelines"])')
expect_eq "table rows" "$(grep -c '^<tr><td data-v="[0-9]*"><a href="#line-' amd.html)" "$n"
# each row's verdict and gain, as the JSON has them
cells() { # FILE COLUMN: that column's cells of the lines table, ';'-joined (data-v where there is one)
	python3 - "$1" "$2" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
h = h[h.index('<table id="lines"'):]
heads = re.findall(r'<th[^>]*>([^<]*)</th>', h.split('<tbody>')[0])
i = heads.index(sys.argv[2])
body = h.split('<tbody>')[1].split('</tbody>')[0]
out = []
for r in re.findall(r'<tr[^>]*>(.*?)</tr>', body):
    c = re.findall(r'<td([^>]*)>(.*?)</td>', r)[i]
    v = re.search(r'data-v="([^"]*)"', c[0])
    out.append(v.group(1) if v else re.sub(r'<[^>]*>', '', c[1]))
print(";".join(out))
PY
}
expect_eq "verdict column" "$(cells amd.html Verdict)" "$(json_get amd.json '";".join(l["verdict"] for l in j["cachelines"])')"
expect_eq "gain column" "$(cells amd.html Gain)" "$(json_get amd.json '";".join("%d" % (l["gain"]["cycles"] if l["gain"] else 0) for l in j["cachelines"])')"
# links only to the lines the page details (--lines 2 of more)
"$C2CSCAN" report --html two.html --lines 2 -d all -i "$amd" 2>err || fail "--html --lines 2: $(cat err)"
expect_eq "links to details" "$(grep -o 'href="#line-[0-9]*"' two.html | sort -u | tr '\n' ' ')" 'href="#line-0" href="#line-1" '
expect_eq "details" "$(grep -c '^<section id="line-' two.html)" 2
grep -q '<th class="t">?' amd.html && fail "a header reads ?: $(grep -o '<th class="t">?[^<]*' amd.html | head -n 1)"
expect_eq "detailed lines" "$(grep -c '^<section id="line-' amd.html)" "$n"
expect_eq "verdicts" "$(grep -o '<span class="verdict [a-z]*">[a-z ]*</span>' amd.html | sed 's/<[^>]*>//g' | sort | uniq -c | awk '{ $1 = $1; print }' | tr '\n' ';')" \
	"$(json_get amd.json '";".join("%d %s" % (c, v) for v, c in sorted(__import__("collections").Counter(l["verdict"] for l in j["cachelines"]).items())) + ";"')"
grep -q "<td>Totals</td><td>$(json_get amd.json 'j["totals"]["samples"]') samples, " amd.html || fail "totals: $(grep Totals amd.html)"
grep -q '<svg id="chart"' amd.html && grep -q 'class="bytes"' amd.html && grep -q 'class="matrix"' amd.html &&
	grep -q 'class="timeline"' amd.html || fail "pictures missing"
# --lines bounds the page; --stdio beside it prints as well
"$C2CSCAN" report --html one.html --lines 1 --stdio -i "$amd" >one.out 2>err || fail "--lines 1: $(cat err)"
expect_eq "--lines 1: sections" "$(grep -c '^<section id="line-' one.html)" 1
grep -q "^# c2cscan .* report" one.out || fail "--stdio beside --html printed nothing"

# the emulated recording: members in the byte picture, false sharing
bin=$TOP/$B/progs/counters-tsan
# (no TSan build: said; one that does not record: a failure)
[ -x "$bin" ] || echo "skip: the emulated recording (no -fsanitize=thread build)"
if [ -x "$bin" ] && { "$C2CSCAN" record -q --emulate -g -o e.data -- "$bin" >/dev/null 2>err ||
			{ fail "record --emulate -g: $(cat err)"; false; }; }; then
	"$C2CSCAN" report --html e.html -i e.data 2>err || fail "--html emulated: $(cat err)"
	wellformed e.html
	grep -q '<span class="verdict false">false sharing</span>' e.html || fail "no false sharing verdict"
	grep -q '<text x="[0-9.]*" y="28"[^>]*>counters.produced</text>' e.html || fail "no member in the byte picture"
	grep -q 'class="notice">emulated: ' e.html || fail "no notice"
	grep -q '<tr class="chain"><td></td><td class="t" colspan="[0-9]*">[0-9]* from producer_step &lt;- run' e.html ||
		fail "no callers"
fi

# a heap line and the empty view
mkperf "$TOP/tests/fixtures/scenarios/heap-false-sharing.scn" heap.data && {
	"$C2CSCAN" report --html heap.html -i heap.data 2>err || fail "--html heap: $(cat err)"
	wellformed heap.html
	grep -q "s [0-9]* B object" heap.html || fail "no heap object in the picture"
}
mkperf "$TOP/tests/fixtures/scenarios/empty.scn" empty.data && {
	"$C2CSCAN" report --html empty.html -i empty.data 2>err || fail "--html empty: $(cat err)"
	wellformed empty.html
	grep -q "No line in the view" empty.html || fail "the empty view says nothing"
}

# diff --html
"$C2CSCAN" diff --html d.html "$amd" "$amd" >d.out 2>err || fail "diff --html: $(cat err)"
wellformed d.html
expect_eq "diff rows" "$(grep -c '<rect class="after"' d.html)" "$(grep -c '<rect class="before"' d.html)"
"$C2CSCAN" report --html /nonexistent/x.html -i "$amd" >/dev/null 2>err
expect_eq "unwritable --html: exit" "$?" 1
grep -q "^c2cscan report: --html /nonexistent/x.html: cannot write" err || fail "unwritable: $(cat err)"

# in a real browser: the script runs, sorts by a column, searches
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROME" ] || skip "no Chromium to open the page in"
dom() { # FILE HASH: the page's DOM after its script ran, in a 900-pixel window
	timeout 60 "$CHROME" --headless=new --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/chrome" \
		--window-size=900,800 --virtual-time-budget=3000 --dump-dom "file://$T/$1$2" 2>/dev/null
}
# one page load does all three (each Chromium start costs two CPU
# seconds here): the search hides every row, the sort still orders them
# all, and nothing is wider than the window (the pictures scale, wide
# tables scroll)
dom amd.html "#sort=TotHitm:asc&q=no%20such%20thing" >dom1.html
grep -q '<body[^>]* data-fits="1"' dom1.html ||
	fail "the page overflows 900 px: $(grep -o '<body[^>]*>' dom1.html)"
grep -q '<body[^>]* data-ready="1"' dom1.html || fail "the page's script did not run: $(head -c 300 dom1.html)"
grep -q 'id="lines" data-sorted="TotHitm:asc"' dom1.html || fail "not sorted: $(grep -o '<table id="lines"[^>]*>' dom1.html)"
grep -o '<table id="lines"[^>]*>' dom1.html | grep -q 'data-shown="0"' ||
	fail "search: $(grep -o '<table id="lines"[^>]*>' dom1.html)"
# the TotHitm cells in the sorted order: ascending
col=$(python3 -c "
import re, sys
h = open('dom1.html').read()
h = h[h.index('<table id=\"lines\"'):]
heads = re.findall(r'<th[^>]*>([^<]*)</th>', h.split('<tbody>')[0])
i = heads.index('TotHitm')
body = h.split('<tbody>')[1].split('</tbody>')[0]
rows = re.findall(r'<tr[^>]*>(.*?)</tr>', body)
vals = [int(re.findall(r'data-v=\"([0-9.]+)\"', r)[i]) for r in rows]
print('sorted' if vals == sorted(vals) and len(vals) > 1 else 'not sorted %s' % vals)")
expect_eq "ascending TotHitm in Chromium" "$col" "sorted"
# the false-sharing workload (its TSan build, emulated): in the DOM the
# numbers of --stdio, the verdict and the members; a screenshot that is
# not blank; nothing on the console
W=$TOP/$B/workloads
# (no TSan build: said, not passed over in silence; one that does not record: a failure)
[ -x "$W/heap-false-sharing-tsan" ] || echo "skip: the emulated page (no -fsanitize=thread build of the workload)"
if [ -x "$W/heap-false-sharing-tsan" ] &&
   { "$C2CSCAN" record -q --emulate=hitm=1 --alloc -o w.data -- "$W/heap-false-sharing-tsan" 2000000 >/dev/null 2>err ||
     { fail "record --emulate the workload: $(cat err)"; false; }; }; then
	"$C2CSCAN" report --html w.html -i w.data 2>err || fail "--html workload: $(cat err)"
	"$C2CSCAN" report --json -i w.data >w.json 2>err || fail "json workload: $(cat err)"
	dom w.html "#sort=TotHitm" >wdom.html
	grep -q '<body[^>]* data-ready="1"' wdom.html || fail "workload page: script did not run"
	grep -q '<body[^>]* data-fits="1"' wdom.html || fail "the workload page overflows 900 px: $(grep -o '<body[^>]*>' wdom.html)"
	tot=$(json_get w.json 'j["cachelines"][0]["tot_hitm"]')
	grep -q "<td data-v=\"$tot\">$tot</td>" wdom.html || fail "line 0's TotHitm $tot is not in the table"
	grep -q '<span class="verdict false">false sharing</span>' wdom.html || fail "workload: no false sharing"
	grep -q "two 24 B objects from make_counter" wdom.html || fail "workload: no advice"
	grep -q ">make_counter's 24 B object (tid [0-9]*)</text>\|make_counter&#39;s 24 B object\|make_counter's 24 B object" wdom.html ||
		fail "workload: no heap object in the picture"
	timeout 60 "$CHROME" --headless=new --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/chrome" \
		--enable-logging=stderr --v=0 --window-size=1280,800 --screenshot="$T/w.png" "file://$T/w.html" \
		>/dev/null 2>console.txt
	[ -s w.png ] || fail "no screenshot: $(tail -n 3 console.txt)"
	python3 - w.png <<'PY' || fail "the screenshot is blank"
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w, h = 8, b"", 0, 0
while pos < len(d):
    n, t = struct.unpack(">I4s", d[pos:pos + 8])
    if t == b"IHDR":
        w, h = struct.unpack(">II", d[pos + 8:pos + 16])
    if t == b"IDAT":
        idat += d[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
# colours seen: a blank page has one or two
sys.exit(0 if (w, h) == (1280, 800) and len(set(raw[::97])) > 20 else 1)
PY
	grep -i "CONSOLE.*\(error\|uncaught\)" console.txt && fail "console errors: $(grep -i 'CONSOLE' console.txt | head -n 3)"
fi
done_test
