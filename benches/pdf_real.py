#!/usr/bin/env python3
"""The PDF extractor on real LaTeX-made PDFs: Debian's texlive-publishers-doc, where each sample
PDF ships beside its LaTeX source (`NAME.tex.gz`).

Truth: `pdftotext` (poppler) for the words and for what is on each page (one run per file,
pages split at form feeds); the source's `\\section`, `\\subsection` and `\\subsubsection` titles
for headings. Reports, over the files the extractor reads:
- word recall and precision against pdftotext (multiset overlap; median per file and pooled);
- pages: the share of blocks that start on the page they claim (the block's first words found
  on the claimed page), among blocks whose opening words pdftotext has on some page;
- heading recall: section titles of the source found among the heading blocks;
- block kinds: how many body, table, heading... blocks (table share is the number to watch:
  two-column pages with display equations read as tables);
- pages/s of the extractor against pdftotext, same run.

    python3 benches/pdf_real.py ROOT HARNESS [--limit N] [--tables-sample FILE]
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

WORD = re.compile(r"\w+", re.UNICODE)


def words(text):
    return [w.lower() for w in WORD.findall(text.replace("\ufb01", "fi").replace("\ufb02", "fl"))]


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


def latex_plain(t):
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
    t = time.time()
    r = subprocess.run([a.harness], input=json.dumps([str(p) for p, _ in pairs]),
                       capture_output=True, text=True, check=True)
    t_mitra = time.time() - t
    got = json.loads(r.stdout)
    recalls, precisions = [], []
    pooled = [0, 0, 0]
    on_page = [0, 0]
    heads = [0, 0, 0]
    kinds = collections.Counter()
    errors, pages_total, tables = 0, 0, []
    for (pdf, src), pages, blocks in zip(pairs, truth, got):
        if isinstance(blocks, dict) or pages is None:
            errors += 1
            continue
        pages_total += len([p for p in pages if p.strip()]) or len(pages)
        ext = [b[2] for b in blocks if b[0] not in ("header", "footer", "pagenumber", "page-number")]
        h, g, w = overlap(words(" ".join(ext)), words(" ".join(pages)))
        pooled[0] += h
        pooled[1] += g
        pooled[2] += w
        if w:
            recalls.append(h / w)
        if g:
            precisions.append(h / g)
        page_words = [" ".join(words(p)) for p in pages]
        for kind, page, text in blocks:
            kinds[kind] += 1
            if kind == "table" and len(tables) < 400:
                tables.append({"file": str(pdf), "page": page, "text": text[:600]})
            ws = words(text)
            if len(ws) < 5 or page is None:
                continue
            probe = " ".join(ws[:5])
            where = [i + 1 for i, pw in enumerate(page_words) if probe in pw]
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
    print(f"blocks starting on the page they claim: {on_page[0] / max(on_page[1], 1):.3f} "
          f"({on_page[0]}/{on_page[1]} verifiable blocks)")
    print(f"heading recall vs \\section titles: {heads[0] / max(heads[1], 1):.3f} "
          f"({heads[0]}/{heads[1]}); heading blocks: {heads[2]}")
    print("block kinds: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    print(f"speed: extractor {pages_total / max(t_mitra, 1e-9):.1f} pages/s ({t_mitra:.1f} s, one "
          f"process, native); pdftotext {pages_total / max(t_pdftotext, 1e-9):.1f} pages/s "
          f"({t_pdftotext:.1f} s, one process per file); {n} files")
    if a.tables_sample:
        pathlib.Path(a.tables_sample).write_text(json.dumps(tables, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
