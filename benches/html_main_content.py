#!/usr/bin/env python3
"""Main-content share and headings of the HTML extractor on real pages, with a reference measured
in the same run.

Pages:
- Sphinx: the HTML of Debian's python3.11-doc, scored against the reST sources the package
  ships beside it (`_sources/<page>.rst.txt`): the words of a page's source are its main content,
  its section titles (underlined lines) its headings.
- TWiki: topics in the TWiki/Foswiki pattern-skin layout (top bar, breadcrumb, tool bar, left bar,
  topic info, attachments, bottom bar) around the demo notes (`appliance/demo/*.md`), written by
  this script; the note's words and headings are the truth.

For each set: share of extracted words that are main content (multiset precision against the
truth), recall of the truth's words, heading recall and precision; the reference is all text of
`<body>` (Python's html.parser, scripts and styles dropped), i.e. no boilerplate removal.

    python3 benches/html_main_content.py HTML_ROOT HARNESS
"""
import collections
import html
import html.parser
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import time

WORD = re.compile(r"\w+", re.UNICODE)
CONTENT_KINDS = {"heading", "body", "table", "caption", "footnote", "equation"}


def words(text):
    return [w.lower() for w in WORD.findall(text)]


def overlap(got, want):
    g, w = collections.Counter(got), collections.Counter(want)
    hit = sum(min(n, w[k]) for k, n in g.items())
    return hit, sum(g.values()), sum(w.values())


class BodyText(html.parser.HTMLParser):
    """All text inside <body>, scripts and styles dropped: the no-removal reference."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.skip, self.body = [], 0, False

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self.body = True
        if tag in ("script", "style"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)

    def handle_data(self, data):
        if self.body and not self.skip:
            self.out.append(data)


def body_text(raw):
    p = BodyText()
    p.feed(raw)
    return " ".join(p.out)


ADORN = re.compile(r"^([=\-~^\"'`*+#<>:._])\1{2,}\s*$")
ROLE = re.compile(r":[\w.+-]+(?::[\w.+-]+)*:`([^`]*)`")


def norm_title(t):
    t = ROLE.sub(r"\1", t)
    t = t.replace("---", "—").replace("--", "–").replace("``", "").replace("`", "")
    t = t.replace("\\", "").replace("*", "").rstrip("¶").strip()
    t = re.sub(r"<[^>]*>", "", t)
    t = re.sub(r"^\d+(\.\d+)*\.?\s+", "", t)
    return " ".join(words(t))


def rst_titles(src):
    lines = src.splitlines()
    out = []
    for i in range(1, len(lines)):
        t, u = lines[i - 1].rstrip(), lines[i].rstrip()
        if t.strip() and not ADORN.match(t) and ADORN.match(u) and len(u) >= len(t.strip()) \
                and not t.startswith((" ", "\t", "..")):
            out.append(norm_title(t))
    return [t for t in out if t]


def rst_words(src):
    src = re.sub(r"^\.\. [\w:-]+::.*$", " ", src, flags=re.M)  # directive names
    src = ROLE.sub(r" \1 ", src)
    src = re.sub(r"^\s*:[\w-]+:.*$", " ", src, flags=re.M)  # field lists / options
    return words(src)


def heading_match(got, want):
    """Titles of `want` found among `got` (exact after normalising, or 80% of words shared)."""
    pool = list(got)
    hit = 0
    for w in want:
        ws = set(w.split())
        for i, g in enumerate(pool):
            gs = set(g.split())
            if g == w or (ws and len(ws & gs) / max(len(ws | gs), 1) >= 0.8):
                hit += 1
                pool.pop(i)
                break
    return hit


TWIKI = """<!DOCTYPE html><html lang="en"><head><title>{title} &lt; {web} &lt; TWiki</title>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8"/>
<link rel="stylesheet" href="/pub/TWiki/PatternSkin/style.css" type="text/css"/>
<script type="text/javascript" src="/pub/TWiki/TWikiJavascripts/twikilib.js"></script></head>
<body class="patternViewPage"><a name="PageTop"></a>
<div id="patternScreen"><div id="patternPageShadow">
<div id="patternTopBar"><div id="patternTopBarContents"><table border="0" cellpadding="0" cellspacing="0" style="width:100%"><tr>
<td valign="middle"><span id="twikiLogo" class="twikiImage"><a href="/twiki/bin/view/Main/WebHome"><img src="/pub/TWiki/TWikiLogos/T-logo-140x40-t.gif" border="0" alt="Powered by TWiki"/></a></span></td>
<td align="right" valign="top" class="patternMetaMenu"><ul><li><form name="jumpForm" action="/twiki/bin/view/{web}/"><input id="jumpFormField" type="text" class="twikiInputField" name="topic" value="" size="18"/><noscript>&nbsp;<input type="submit" class="twikiButton" size="5" name="submit" value="Jump"/></noscript></form></li>
<li><form name="quickSearchForm" action="/twiki/bin/view/{web}/WebSearch"><input type="text" class="twikiInputField" id="quickSearchBox" name="search" value="" size="18"/></form></li></ul></td></tr></table></div></div>
<div id="patternPage"><div id="patternWrapper"><div id="patternOuter">
<div id="patternFloatWrap"><div id="patternMain"><div id="patternClearHeaderCenter"></div>
<div id="patternMainContents"><div class="patternTop"><span class="patternHomePath twikiLeft">
<a href="/twiki/bin/view/{web}/WebHome" title="Home of the {web} web">{web}</a> <span class="twikiSeparator">&gt;</span> <a href="/twiki/bin/view/{web}/AnalysisNotes">AnalysisNotes</a> <span class="twikiSeparator">&gt;</span> <a href="/twiki/bin/view/{web}/{topic}" title="Topic revision: 12 (2026-11-02 - 14:07:33)">{topic}</a></span>
<span class="patternToolBar twikiRight"><span><a href="/twiki/bin/edit/{web}/{topic}?t=1733141253" rel="nofollow" title="Edit this topic text" accesskey="e"><span class="twikiAccessKey">E</span>dit</a></span><span><a href="/twiki/bin/attach/{web}/{topic}" rel="nofollow" title="Attach an image or document to this topic" accesskey="a"><span class="twikiAccessKey">A</span>ttach</a></span></span><br class="twikiClear"/></div>
<div class="patternContent"><div class="patternTopic"><a name="TopicTop"></a>
{body}
</div>
<div class="twikiAttachments"><table class="twikiTable" rules="none" border="1"><tr><th>Attachment</th><th>Action</th><th>Size</th><th>Date</th><th>Who</th><th>Comment</th></tr>
<tr><td><a href="/twiki/pub/{web}/{topic}/plots.tar.gz">plots.tar.gz</a></td><td><a href="/twiki/bin/attach/{web}/{topic}?filename=plots.tar.gz;revInfo=1" title="change, update, previous revisions, move, delete..." rel="nofollow">manage</a></td><td align="right">1.2 M</td><td>2026-10-28 - 09:12</td><td><a href="/twiki/bin/view/Main/JaneDoe">JaneDoe</a></td><td>Control plots</td></tr></table></div>
<div class="patternInfo twikiGrayText"><div class="patternRevInfo">Topic revision: r12 - 2026-11-02 - <a href="/twiki/bin/view/Main/JaneDoe">JaneDoe</a></div></div></div>
<div class="patternTopicActions"><div class="patternTopicAction"><span class="patternActionButtons"><span><a href="/twiki/bin/edit/{web}/{topic}" rel="nofollow" title="Edit this topic text" accesskey="e"><span class="twikiAccessKey">E</span>dit</a></span><span class="twikiSeparator">&nbsp;|&nbsp;</span><span><a href="/twiki/bin/attach/{web}/{topic}" rel="nofollow">Attach</a></span><span class="twikiSeparator">&nbsp;|&nbsp;</span><span><a href="/twiki/bin/view/{web}/{topic}?cover=print" rel="nofollow" title="Printable version of this topic">Print version</a></span><span class="twikiSeparator">&nbsp;|&nbsp;</span><span><a href="/twiki/bin/rdiff/{web}/{topic}?type=history" rel="nofollow" title="View total topic history">History</a>: r12 &lt; r11 &lt; r10</span><span class="twikiSeparator">&nbsp;|&nbsp;</span><span><a href="/twiki/bin/oops/{web}/{topic}?template=backlinksweb" rel="nofollow">Backlinks</a></span><span class="twikiSeparator">&nbsp;|&nbsp;</span><span><a href="/twiki/bin/view/{web}/{topic}?raw=on" rel="nofollow">Raw View</a></span><span class="twikiSeparator">&nbsp;|&nbsp;</span><span><a href="/twiki/bin/oops/{web}/{topic}?template=oopsmore" rel="nofollow">More topic actions</a></span></span></div></div>
</div></div></div>
<div id="patternSideBar"><div id="patternClearHeaderLeft"></div><div id="patternSideBarContents">
<div class="patternWebIndicator"><a href="/twiki/bin/view/{web}/WebHome">{web}</a></div>
<ul><li><a href="/twiki/bin/view/Main/TWikiRegistration">Log In</a> or <a href="/twiki/bin/view/TWiki/TWikiRegistration">Register</a></li></ul>
<ul><li><a href="/twiki/bin/view/{web}/WebTopicCreator">Create New Topic</a></li><li><a href="/twiki/bin/view/{web}/WebTopicList">Index</a></li><li><a href="/twiki/bin/view/{web}/WebSearch">Search</a></li><li><a href="/twiki/bin/view/{web}/WebChanges">Changes</a></li><li><a href="/twiki/bin/view/{web}/WebNotify">Notifications</a></li><li><a href="/twiki/bin/view/{web}/WebRss">RSS Feed</a></li><li><a href="/twiki/bin/view/{web}/WebStatistics">Statistics</a></li><li><a href="/twiki/bin/view/{web}/WebPreferences">Preferences</a></li></ul>
<p><strong>Webs</strong></p><ul><li><a href="/twiki/bin/view/Higgs/WebHome">Higgs</a></li><li><a href="/twiki/bin/view/Exotica/WebHome">Exotica</a></li><li><a href="/twiki/bin/view/Top/WebHome">Top</a></li><li><a href="/twiki/bin/view/MuonCollider/WebHome">MuonCollider</a></li></ul>
</div></div></div></div></div>
<div id="patternBottomBar"><div id="patternBottomBarContents"><div id="twikiCopyright">Copyright &copy; 1999-2026 by the contributing authors. All material on this collaboration platform is the property of the contributing authors.<br/>Ideas, requests, problems regarding TWiki? <a href="mailto:twiki-admin@example.org?subject=TWiki%20Feedback%20on%20{web}.{topic}">Send feedback</a></div></div></div>
</div></div></body></html>
"""


def md_to_twiki(md):
    """The demo note as TWiki renders a topic: headings, paragraphs, tables; truth words and
    headings."""
    out, heads, truth, para = [], [], [], []

    def flush():
        if para:
            t = " ".join(para)
            out.append(f"<p>{html.escape(t)}</p>")
            truth.append(t)
            para.clear()

    rows = []
    for line in md.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set("-: ") for c in cells):
                rows.append(cells)
            continue
        if rows:
            out.append("<table border=\"1\" class=\"twikiTable\">" + "".join(
                "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows
            ) + "</table>")
            truth.extend(" ".join(r) for r in rows)
            rows = []
        m = re.match(r"^(#+)\s+(.*)$", line)
        if m:
            flush()
            n, t = len(m.group(1)), m.group(2)
            out.append(f'<h{n}><a name="{re.sub(r"[^A-Za-z0-9]", "", t)}"></a> {html.escape(t)} </h{n}>')
            heads.append(norm_title(t))
            truth.append(t)
        elif line.strip():
            para.append(line.strip())
        else:
            flush()
    flush()
    return "\n".join(out), heads, " ".join(truth)


def run_harness(harness, paths):
    t = time.time()
    r = subprocess.run([harness], input=json.dumps([str(p) for p in paths]), capture_output=True,
                       text=True, check=True)
    return json.loads(r.stdout), time.time() - t, r.stderr.strip()


def score(name, pages, harness):
    """pages: [(path, truth_words, truth_titles)]."""
    got, secs, info = run_harness(harness, [p for p, _, _ in pages])
    acc = {"mitra": [0, 0, 0], "reference": [0, 0, 0]}
    heads = {"mitra": [0, 0, 0], "reference": [0, 0, 0]}
    for (path, truth, titles), blocks in zip(pages, got):
        ext = [t for k, t in blocks if k in CONTENT_KINDS]
        h, g, w = overlap(words(" ".join(ext)), truth)
        acc["mitra"][0] += h
        acc["mitra"][1] += g
        acc["mitra"][2] += w
        raw = pathlib.Path(path).read_text(encoding="utf-8", errors="replace")
        h, g, w = overlap(words(body_text(raw)), truth)
        acc["reference"][0] += h
        acc["reference"][1] += g
        acc["reference"][2] += w
        got_heads = [norm_title(t) for k, t in blocks if k == "heading"]
        got_heads = [t for t in got_heads if t]
        hm = heading_match(got_heads, titles)
        heads["mitra"][0] += hm
        heads["mitra"][1] += len(titles)
        heads["mitra"][2] += len(got_heads)
    m, r = acc["mitra"], acc["reference"]
    hh = heads["mitra"]
    print(f"## {name}: {len(pages)} pages ({info}; harness {secs:.1f} s)")
    print(f"main-content share of extracted words: mitra {m[0] / max(m[1], 1):.3f}, "
          f"reference (all body text) {r[0] / max(r[1], 1):.3f}")
    print(f"recall of the truth's words: mitra {m[0] / max(m[2], 1):.3f}, "
          f"reference {r[0] / max(r[2], 1):.3f}")
    print(f"headings: recall {hh[0] / max(hh[1], 1):.3f} ({hh[0]}/{hh[1]}), "
          f"precision {hh[0] / max(hh[2], 1):.3f} ({hh[0]}/{hh[2]} extracted)")
    print()


def main():
    root, harness = pathlib.Path(sys.argv[1]), sys.argv[2]
    pages = []
    for src in sorted((root / "_sources").rglob("*.rst.txt")):
        rel = src.relative_to(root / "_sources").with_suffix("").with_suffix(".html")
        page = root / rel
        if not page.is_file():
            continue
        text = src.read_text(encoding="utf-8", errors="replace")
        pages.append((page, rst_words(text), rst_titles(text)))
    score("Sphinx (python3.11-doc)", pages, harness)
    demo = pathlib.Path(__file__).resolve().parent.parent / "appliance" / "demo"
    with tempfile.TemporaryDirectory() as d:
        tw = []
        for i, md in enumerate(sorted(demo.glob("*.md"))):
            body, titles, truth = md_to_twiki(md.read_text(encoding="utf-8"))
            topic = "".join(w.capitalize() for w in md.stem.split("-"))
            web = ["Higgs", "Exotica", "Top", "MuonCollider", "Exotica"][i % 5]
            p = pathlib.Path(d) / f"{topic}.html"
            p.write_text(TWIKI.format(title=topic, web=web, topic=topic, body=body),
                         encoding="utf-8")
            tw.append((p, words(truth), titles))
        score("TWiki pattern skin (demo notes as topics)", tw, harness)


if __name__ == "__main__":
    main()
