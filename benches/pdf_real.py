#!/usr/bin/env python3
"""The PDF extractor on real LaTeX-made PDFs: Debian's texlive-publishers-doc, where each sample
PDF ships beside its LaTeX source (`NAME.tex.gz`).

Truth: `pdftotext` (poppler) for the words and for what is on each page (one run per file,
pages split at form feeds); the source's `\\section`, `\\subsection` and `\\subsubsection` titles
for headings. Reports, over the files the extractor reads:
- word recall and precision against pdftotext (multiset overlap of NFKC-normalised words; median
  per file and pooled), over every block as pdftotext has every line; and the recall of the text
  ingest keeps (running heads, footers and page numbers left out);
- pages: the share of blocks that start on the page they claim (the block's first words found
  on the claimed page), among blocks whose opening words pdftotext has on some page;
- heading recall: section titles of the source found among the heading blocks;
- reading order: the share of consecutive word pairs inside the extractor's blocks that are
  also consecutive in pdftotext's text (columns read across, or interleaved with a display
  equation, make pairs pdftotext never has);
- block kinds: how many body, table, heading... blocks (table share is the number to watch:
  two-column pages with display equations read as tables);
- pages/s of the extractor against pdftotext, same run;
- with --mitra BIN, the chunks ingest stores (`mitra plugins extract --chunks`: the sandboxed
  wasm extractor, then the chunker): the share of chunks whose text starts on the page they
  claim and ends on the page_end they claim, and how many body chunks are headed by a section
  path rather than the document's title.

    python3 benches/pdf_real.py ROOT HARNESS [--limit N] [--tables-sample FILE] [--mitra BIN]
"""
import argparse
import collections
import gzip
import json
import pathlib
import re
import statistics
import subprocess
import time
import unicodedata

WORD = re.compile(r"\w+", re.UNICODE)


def words(text):
    """Lower-cased words after NFKC: canonical and compatibility forms are one word on both
    sides (pdftotext writes "é" as e + U+0301; ligatures, presentation forms)."""
    return [w.lower() for w in WORD.findall(unicodedata.normalize("NFKC", text))]


FURNITURE = ("header", "footer", "pagenumber", "page-number")


def overlap(got, want):
    g, w = collections.Counter(got), collections.Counter(want)
    return sum(min(n, w[k]) for k, n in g.items()), sum(g.values()), sum(w.values())


SECTION = re.compile(r"\\(sub)*section\*?\s*(\[[^\]]*\])?\s*\{")


def braced(s, i):
    """The text of the brace group opening at s[i-1] (nested braces kept)."""
    depth, j = 1, i
    while j < len(s) and depth:
        depth += {"{": 1, "}": -1}.get(s[j], 0)
        j += 1
    return s[i:j - 1]


# Commands whose argument is not printed in the title (labels, index entries, footnotes).
UNPRINTED = re.compile(r"\\(label|index|footnote|thanks|footnotemark|hspace|vspace|cite[tp]?|ref|eqref)"
                       r"\*?(\[[^\]]*\])?\{[^{}]*\}")


# Accent commands (\'e, \"{u}, \c{c}) to combining marks.
ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303",
           "=": "\u0304", ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306",
           "H": "\u030b"}
ACCENT = re.compile(r"\\([\'`^\"~=.]|[cvuH](?=[{ ]))\s*\{?([A-Za-z])\}?")


def latex_plain(t):
    t = ACCENT.sub(lambda m: unicodedata.normalize("NFC", m.group(2) + ACCENTS[m.group(1)]), t)
    t = UNPRINTED.sub(" ", t)
    t = re.sub(r"\$[^$]*\$", " ", t)
    t = re.sub(r"\\[a-zA-Z]+\*?(\[[^\]]*\])?", " ", t)
    t = t.replace("{", " ").replace("}", " ").replace("~", " ").replace("\\", " ")
    return " ".join(words(t))


def tex_titles(src):
    src = re.sub(r"(?<!\\)%.*", "", src)
    out = []
    for m in SECTION.finditer(src):
        t = latex_plain(braced(src, m.end()))
        if t:
            out.append(t)
    return out


def heading_match(got, want):
    pool = [set(g.split()) for g in got]
    hit = 0
    for w in want:
        ws = set(w.split())
        for i, gs in enumerate(pool):
            if ws and len(ws & gs) / max(len(ws), 1) >= 0.8 and len(gs) <= 3 * len(ws) + 3:
                hit += 1
                pool.pop(i)
                break
    return hit


def on_pages(ws, page_words):
    """Pages (1-based) whose text holds the five words `ws` in a row."""
    probe = " ".join(ws)
    return [i + 1 for i, pw in enumerate(page_words) if probe in pw]


def chunk_measures(mitra, pairs, truth_pages):
    """Chunk pages and headings from `mitra plugins extract --chunks` (one process);
    `truth_pages` holds each file's pdftotext pages as word strings (None where it failed)."""
    t = time.time()
    r = subprocess.run([mitra, "plugins", "extract", "--chunks"] + [str(p) for p, _ in pairs],
                       capture_output=True, text=True)
    seconds = time.time() - t
    starts, ends, errors = [0, 0], [0, 0], 0
    kinds = collections.Counter()
    body, pathed = 0, 0
    lines = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
    for line, page_words in zip(lines, truth_pages):
        if "error" in line or page_words is None:
            errors += 1
            continue
        chunks = line["chunks"]
        title = chunks[0]["heading"] if chunks else None
        for c in chunks:
            kinds[c["kind"]] += 1
            text = c["text"]
            if c["heading"] and text.startswith(c["heading"] + "\n\n"):
                text = text[len(c["heading"]) + 2:]
            ws = words(text)
            if c["kind"] == "body":
                body += 1
                pathed += bool(c["heading"]) and c["heading"] != title
            if len(ws) < 5 or c["page"] is None:
                continue
            where = on_pages(ws[:5], page_words)
            if where:
                starts[1] += 1
                starts[0] += c["page"] in where
            where = on_pages(ws[-5:], page_words)
            if where and c.get("page_end") is not None:
                ends[1] += 1
                ends[0] += c["page_end"] in where
    print(f"chunks (mitra plugins extract --chunks, wasm sandbox, {len(lines)} files, "
          f"{errors} errors, {seconds:.1f} s): " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    print(f"chunks starting on the page they claim: {starts[0] / max(starts[1], 1):.3f} "
          f"({starts[0]}/{starts[1]} verifiable); ending on their page_end: "
          f"{ends[0] / max(ends[1], 1):.3f} ({ends[0]}/{ends[1]})")
    print(f"body chunks under a section heading (not the document's title): "
          f"{pathed / max(body, 1):.3f} ({pathed}/{body})")


def pdftotext_pages(path):
    r = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True)
    if r.returncode != 0:
        return None
    return r.stdout.decode("utf-8", "replace").split("\f")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("harness")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--tables-sample", default="")
    ap.add_argument("--mitra", default="")
    a = ap.parse_args()
    pairs = []
    for pdf in sorted(pathlib.Path(a.root).rglob("*.pdf")):
        for src in (pdf.with_suffix(".tex.gz"), pdf.with_suffix(".tex")):
            if src.is_file():
                pairs.append((pdf, src))
                break
    if a.limit:
        pairs = pairs[: a.limit]
    t = time.time()
    truth = [pdftotext_pages(p) for p, _ in pairs]
    t_pdftotext = time.time() - t
    # Each page's words, once per file: the page measures of blocks and of chunks read them.
    truth_pages = [None if pages is None else [" ".join(words(p)) for p in pages]
                   for pages in truth]
    t = time.time()
    r = subprocess.run([a.harness], input=json.dumps([str(p) for p, _ in pairs]),
                       capture_output=True, text=True, check=True)
    t_mitra = time.time() - t
    got = json.loads(r.stdout)
    recalls, precisions, content_recalls = [], [], []
    order_files, order_pooled = [], [0, 0]
    pooled = [0, 0, 0]
    on_page = [0, 0]
    heads = [0, 0, 0]
    kinds = collections.Counter()
    errors, pages_total, tables = 0, 0, []
    for (pdf, src), pages, page_words, blocks in zip(pairs, truth, truth_pages, got):
        if isinstance(blocks, dict) or pages is None:
            errors += 1
            continue
        pages_total += len([p for p in pages if p.strip()]) or len(pages)
        # Like for like with pdftotext, which has no notion of page furniture: every block.
        truth_words = words(" ".join(pages))
        h, g, w = overlap(words(" ".join(b[2] for b in blocks)), truth_words)
        pooled[0] += h
        pooled[1] += g
        pooled[2] += w
        if w:
            recalls.append(h / w)
        if g:
            precisions.append(h / g)
        # The text ingest keeps: running heads, footers and page numbers dropped.
        ext = [b[2] for b in blocks if b[0] not in FURNITURE]
        h, _, w = overlap(words(" ".join(ext)), truth_words)
        if w:
            content_recalls.append(h / w)
        truth_pairs = collections.Counter(zip(truth_words, truth_words[1:]))
        agree = total = 0
        for kind, _, text in blocks:
            if kind in FURNITURE:
                continue
            ws = words(text)
            for pair in zip(ws, ws[1:]):
                total += 1
                agree += truth_pairs[pair] > 0
        if total:
            order_files.append(agree / total)
            order_pooled[0] += agree
            order_pooled[1] += total
        for kind, page, text in blocks:
            kinds[kind] += 1
            if kind == "table" and len(tables) < 400:
                tables.append({"file": str(pdf), "page": page, "text": text[:600]})
            ws = words(text)
            if len(ws) < 5 or page is None:
                continue
            where = on_pages(ws[:5], page_words)
            if not where:
                continue
            on_page[1] += 1
            if page in where:
                on_page[0] += 1
        try:
            raw = gzip.open(src, "rt", errors="replace").read() if src.suffix == ".gz" else \
                src.read_text(errors="replace")
        except OSError:
            raw = ""
        titles = tex_titles(raw)
        got_heads = [" ".join(words(b[2])) for b in blocks if b[0] == "heading"]
        heads[0] += heading_match(got_heads, titles)
        heads[1] += len(titles)
        heads[2] += len(got_heads)
    n = len(pairs) - errors
    print(f"files: {len(pairs)} PDFs with their LaTeX source; {errors} not read "
          f"(extractor error or pdftotext failure); {pages_total} pages")
    print(f"word recall vs pdftotext: median {statistics.median(recalls):.3f}, pooled "
          f"{pooled[0] / max(pooled[2], 1):.3f}; precision median {statistics.median(precisions):.3f}, "
          f"pooled {pooled[0] / max(pooled[1], 1):.3f}")
    print(f"word recall of the text ingest keeps (furniture blocks left out, pdftotext's page "
          f"furniture kept): median {statistics.median(content_recalls):.3f}")
    print(f"reading order: consecutive word pairs also consecutive in pdftotext: median "
          f"{statistics.median(order_files):.3f}, pooled {order_pooled[0] / max(order_pooled[1], 1):.3f}")
    print(f"blocks starting on the page they claim: {on_page[0] / max(on_page[1], 1):.3f} "
          f"({on_page[0]}/{on_page[1]} verifiable blocks)")
    print(f"heading recall vs \\section titles: {heads[0] / max(heads[1], 1):.3f} "
          f"({heads[0]}/{heads[1]}); heading blocks: {heads[2]}")
    print("block kinds: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    print(f"speed: extractor {pages_total / max(t_mitra, 1e-9):.1f} pages/s ({t_mitra:.1f} s, one "
          f"process, native); pdftotext {pages_total / max(t_pdftotext, 1e-9):.1f} pages/s "
          f"({t_pdftotext:.1f} s, one process per file); {n} files")
    if a.mitra:
        chunk_measures(a.mitra, pairs, truth_pages)
    if a.tables_sample:
        pathlib.Path(a.tables_sample).write_text(json.dumps(tables, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
