"""CommonMark block structure: how many of the spec's block-structure examples (the "Tabs",
"Leaf blocks" and "Container blocks" chapters) the markdown extractor splits into the blocks the
spec's expected HTML has.

Usage: python3 benches/commonmark_blocks.py SPEC_TXT HARNESS
  SPEC_TXT  spec.txt of the npm package commonmark-spec (benches/run_commonmark.sh fetches it)
  HARNESS   the native harness (plugins/markdown-extractor/examples/spec_blocks.rs), built

The expected blocks are derived from the expected HTML with the extractor's own mapping:
h1-h6 are headings; p, pre and html-block text are body (script and style skipped) (captions count as body); a top-level
list is one body block of its items' text; block quotes are transparent; a table is a table of
tab-separated cells; an image's description is a caption after its paragraph. Texts are
compared with whitespace squashed and list markers removed. Prints one JSON line per section and
a total.
"""

import html.parser
import json
import re
import subprocess
import sys
from collections import defaultdict

CHAPTERS = {"Tabs", "Leaf blocks", "Container blocks"}
FENCE = "`" * 32


def examples(spec_path):
    chapter = section = None
    out = []
    lines = open(spec_path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("# "):
            chapter = line[2:].strip()
        elif line.startswith("## "):
            section = line[3:].strip()
        if line.startswith(FENCE + " example"):
            md, out_html, j = [], [], i + 1
            while lines[j] != ".":
                md.append(lines[j])
                j += 1
            j += 1
            while not lines[j].startswith(FENCE):
                out_html.append(lines[j])
                j += 1
            sec = section if chapter != "Tabs" else "Tabs"
            if chapter in CHAPTERS or sec == "Tabs":
                to_text = lambda ls: "\n".join(ls).replace("\u2192", "\t") + ("\n" if ls else "")
                out.append({"section": sec, "md": to_text(md), "html": to_text(out_html)})
            i = j
        i += 1
    return out


def squash(s):
    return " ".join(s.split())


class Expected(html.parser.HTMLParser):
    """Blocks of the expected HTML, with the extractor's mapping."""

    BLOCK = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "pre"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks, self.text, self.alts = [], [], []
        self.list_depth, self.list_text = 0, []
        self.table, self.row, self.cell = None, [], None
        self.skip = 0

    def flush(self, kind):
        t = squash("".join(self.text))
        self.text = []
        if self.table is not None and self.cell is not None:
            self.cell.append(t)
            return
        if self.list_depth:
            if t:
                self.list_text.append(t)
        elif t:
            self.blocks.append((kind, t))
        if not self.list_depth:
            self.emit_alts()

    def emit_alts(self):
        for a in self.alts:
            if squash(a):
                self.blocks.append(("caption", squash(a)))
        self.alts = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        if tag in self.BLOCK or tag in ("li", "blockquote", "hr"):
            self.flush("body")
        if tag in ("ul", "ol"):
            self.flush("body")
            self.list_depth += 1
        elif tag == "table":
            self.flush("body")
            self.table = []
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = []
            self.text = []
        elif tag == "img":
            self.alts.append(dict(attrs).get("alt") or "")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.flush("heading")
        elif tag in ("p", "pre", "li", "blockquote"):
            self.flush("body")
        elif tag in ("ul", "ol"):
            self.flush("body")
            self.list_depth -= 1
            if self.list_depth == 0:
                words = squash(" ".join(self.list_text))
                if words:
                    self.blocks.append(("body", words))
                self.list_text = []
                self.emit_alts()
        elif tag in ("td", "th"):
            self.row.append(squash("".join(self.text)))
            self.text, self.cell = [], None
        elif tag == "tr" and self.table is not None:
            self.table.append("\t".join(self.row))
        elif tag == "table" and self.table is not None:
            self.blocks.append(("table", "\n".join(self.table)))
            self.table = None

    def handle_data(self, data):
        if not self.skip:
            self.text.append(data)

    def close(self):
        super().close()
        self.flush("body")
        return self.blocks


def normalise(blocks):
    out = []
    for kind, text in blocks:
        if kind == "body":
            text = "\n".join(re.sub(r"^\s*- ", "", l) for l in text.split("\n"))
        if kind != "table":
            text = squash(text)
        out.append((kind, text))
    return out


def main():
    spec, harness = sys.argv[1], sys.argv[2]
    ex = examples(spec)
    got = json.loads(
        subprocess.run(
            [harness], input=json.dumps([e["md"] for e in ex]), capture_output=True, text=True, check=True
        ).stdout
    )
    per = defaultdict(lambda: [0, 0])
    failures = []
    for e, blocks in zip(ex, got):
        p = Expected()
        p.feed(e["html"])
        want = normalise(p.close())
        have = normalise(blocks)
        # A paragraph worded as a caption ("Figure 1: ...") is body on the expected side, which
        # knows only image descriptions as captions.
        alts = {t for k, t in want if k == "caption"}
        have = [("body" if k == "caption" and t not in alts else k, t) for k, t in have]
        ok = have == want
        per[e["section"]][0] += ok
        per[e["section"]][1] += 1
        if not ok:
            failures.append({"section": e["section"], "md": e["md"], "want": want, "have": have})
    total = [sum(v[0] for v in per.values()), sum(v[1] for v in per.values())]
    for s, (a, n) in per.items():
        print(json.dumps({"section": s, "pass": a, "examples": n}))
    print(json.dumps({"total_pass": total[0], "total_examples": total[1], "rate": round(total[0] / total[1], 3)}))
    if len(sys.argv) > 3:
        json.dump(failures, open(sys.argv[3], "w"), indent=1)


if __name__ == "__main__":
    main()
