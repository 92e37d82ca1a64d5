#!/usr/bin/env python3
"""Evidence recall of the scoped retrieval behind answer(): for every answerable question of the
realistic sets, the rank of the first passage of its analysis that writes a key point, under
bm25, dense and several hybrid fusion weights (psycopg 3 against `mitra serve`).

Usage (run by benches/run_evidence_recall.sh, which builds mitra and the stores):
  python3 benches/answers/evidence_recall.py --mitra BIN --stores DIR SET [SET ...]

Each SET is a directory name under benches/answers/ (realistic, realistic2, ...); its store
DIR/SET must hold the set's notes ingested as benches/run_answers.sh ingests them. Reports, per
set and over all: recall@1/3/5/10 and MRR of the key-point passage. answer() reads the top
`llm.k` (5) passages, so recall@5 is the share of questions whose answer reaches the model.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

try:
    import psycopg
except ImportError:  # pragma: no cover
    psycopg = None

HERE = os.path.dirname(os.path.abspath(__file__))
RETRIEVERS = [
    ("bm25", None),
    ("dense", None),
    ("hybrid 0.9/0.1", (0.9, 0.1)),
    ("hybrid 0.5/0.5", (0.5, 0.5)),
    ("hybrid 0.25/1.0", (0.25, 1.0)),
    ("hybrid 0.1/0.9", (0.1, 0.9)),
]
DEPTH = 20


def connect(port, proc):
    err = None
    for _ in range(120):
        if proc.poll() is not None:
            sys.exit(f"mitra serve exited with {proc.returncode}")
        try:
            return psycopg.connect(
                f"host=127.0.0.1 port={port} dbname=mitra user=bench", autocommit=True
            )
        except psycopg.Error as e:
            err = e
            time.sleep(0.5)
    sys.exit(f"could not connect: {err}")


def ranks(cur, q, gold):
    """Rank (1-based, 99 when absent from the top DEPTH) of the first gold passage per retriever."""
    out = {}
    for name, w in RETRIEVERS:
        if w is None:
            cur.execute(
                f"SELECT chunk_id FROM {name}(%s, %s, %s)", (q["text"], DEPTH, q["analysis_id"])
            )
        else:
            cur.execute(
                "SELECT chunk_id FROM hybrid(%s, %s, %s, %s, 60, 100, %s)",
                (q["text"], DEPTH, w[0], w[1], q["analysis_id"]),
            )
        ids = [r[0] for r in cur.fetchall()]
        out[name] = min([ids.index(g) + 1 for g in gold if g in ids] or [99])
    return out


def report(label, rows):
    print(f"\n{label}: {len(rows)} answerable questions")
    print("| retriever | R@1 | R@3 | R@5 | R@10 | MRR |")
    print("|---|---|---|---|---|---|")
    for name, _ in RETRIEVERS:
        r = [x[name] for x in rows]
        at = [sum(v <= c for v in r) / len(r) for c in (1, 3, 5, 10)]
        mrr = statistics.mean(1 / v for v in r)
        print(f"| {name} | " + " | ".join(f"{a:.3f}" for a in at) + f" | {mrr:.3f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mitra", required=True)
    ap.add_argument("--stores", required=True)
    ap.add_argument("--json")
    ap.add_argument("sets", nargs="+")
    a = ap.parse_args()
    if psycopg is None:
        sys.exit("evidence_recall.py needs psycopg 3 (pip install 'psycopg[binary]')")
    env = dict(os.environ, MITRA_EMBEDDING_ENABLED="true")
    per_set, every = {}, []
    for s in a.sets:
        port = 5600 + (os.getpid() + len(per_set)) % 300
        proc = subprocess.Popen(
            [a.mitra, "--data", os.path.join(a.stores, s), "serve", "--listen", f"127.0.0.1:{port}"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            conn = connect(port, proc)
            cur = conn.cursor()
            cur.execute("SELECT chunk_id, text, analysis_id FROM chunks")
            chunks = cur.fetchall()
            rows = []
            with open(os.path.join(HERE, s, "questions.jsonl"), encoding="utf-8") as f:
                for line in f:
                    q = json.loads(line)
                    if not q["answerable"]:
                        continue
                    gold = [c for c, t, an in chunks
                            if an == q["analysis_id"] and any(k in t for k in q["key_points"])]
                    if not gold:
                        print(f"{q['_id']}: no passage writes a key point", file=sys.stderr)
                        continue
                    r = ranks(cur, q, gold)
                    r["id"], r["kind"] = q["_id"], q["kind"]
                    rows.append(r)
            conn.close()
        finally:
            proc.terminate()
            proc.wait()
        per_set[s] = rows
        every += rows
    for s, rows in per_set.items():
        report(s, rows)
    report("all sets", every)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(per_set, f, indent=1)


if __name__ == "__main__":
    main()
