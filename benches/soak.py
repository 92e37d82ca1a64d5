"""Soak: N clients for S seconds against `mitra serve`, a mix of bm25, hybrid, joins with
metadata, SELECT * pages and answer(); RSS sampled; optionally the server killed with SIGKILL
at a given second and restarted, with the time until it answers again.

Usage: soak.py --port P --pid PID --seconds S [--clients 64] [--kill-at T --serve-cmd CMD]
               [--json OUT]
Only errors other than documented backpressure (53300: the language model's queue is full)
count as failures; connection errors while the server is down after the kill count as outage.
Needs psycopg 3."""
import argparse
import json
import os
import random
import shlex
import signal
import statistics
import subprocess
import threading
import time

import psycopg

QUESTIONS = [
    "boundary layer transition on a flat plate",
    "heat transfer in hypersonic flow",
    "pressure distribution on a swept wing",
    "buckling of thin cylindrical shells",
    "shock wave boundary layer interaction",
    "skin friction in turbulent flow",
]
MIX = [  # (kind, weight)
    ("bm25", 30),
    ("hybrid", 25),
    ("join", 15),
    ("page", 20),
    ("answer", 10),
]


def statement(kind, rng):
    q = rng.choice(QUESTIONS)
    if kind == "bm25":
        return ("SELECT b.rank, d.title, b.score FROM bm25(%s, 10) b "
                "JOIN documents d USING (doc_id) ORDER BY b.rank", (q,))
    if kind == "hybrid":
        return ("SELECT h.chunk_id, h.score, c.heading FROM hybrid(%s, 10) h "
                "JOIN chunks c USING (chunk_id)", (q,))
    if kind == "join":
        return ("SELECT d.source, count(*), max(length(c.text)) FROM chunks c "
                "JOIN documents d USING (doc_id) GROUP BY d.source ORDER BY 2 DESC LIMIT 10", None)
    if kind == "page":
        return ("SELECT * FROM chunks ORDER BY chunk_id LIMIT 50 OFFSET %s",
                (rng.randrange(0, 500),))
    return ("SELECT answer, abstained, citations FROM answer(%s, 3)", (q,))


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.lat = {k: [] for k, _ in MIX}
        self.errors = {}
        self.busy = 0
        self.outage = 0
        self.killed_at = None
        self.back_at = None
        self.stop = False

    def error(self, kind, code, msg):
        with self.lock:
            key = f"{kind}:{code}"
            e = self.errors.setdefault(key, {"count": 0, "example": msg[:200]})
            e["count"] += 1


def client(port, state, seed, deadline):
    rng = random.Random(seed)
    kinds = [k for k, w in MIX for _ in range(w)]
    conn = None
    while time.time() < deadline and not state.stop:
        if conn is None or conn.closed:
            try:
                conn = psycopg.connect(f"host=127.0.0.1 port={port} dbname=mitra user=soak",
                                       autocommit=True, connect_timeout=5)
            except psycopg.OperationalError as e:
                with state.lock:
                    down = state.killed_at is not None and state.back_at is None
                if down:
                    with state.lock:
                        state.outage += 1
                else:
                    state.error("connect", getattr(e, "sqlstate", None), str(e))
                time.sleep(0.2)
                continue
        kind = rng.choice(kinds)
        sql, params = statement(kind, rng)
        t = time.perf_counter()
        try:
            with conn.cursor() as cur:
                cur.execute(sql, params)
                cur.fetchall()
            ms = (time.perf_counter() - t) * 1000
            with state.lock:
                state.lat[kind].append(ms)
                if state.killed_at is not None and state.back_at is None:
                    state.back_at = time.time()
        except psycopg.Error as e:
            code = getattr(e, "sqlstate", None)
            with state.lock:
                down = state.killed_at is not None and state.back_at is None
            if code == "53300":
                with state.lock:
                    state.busy += 1
            elif down or conn.closed:
                with state.lock:
                    state.outage += 1
            else:
                state.error(kind, code, str(e))
            if conn.closed:
                conn = None
    if conn is not None:
        conn.close()


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--kill-at", type=int)
    ap.add_argument("--serve-cmd")
    ap.add_argument("--json")
    a = ap.parse_args()
    state = State()
    start = time.time()
    deadline = start + a.seconds
    threads = [threading.Thread(target=client, args=(a.port, state, i, deadline), daemon=True)
               for i in range(a.clients)]
    for t in threads:
        t.start()
    pid = a.pid
    rss = []
    restarted = None
    while time.time() < deadline:
        time.sleep(5)
        r = rss_kb(pid)
        rss.append((round(time.time() - start), r))
        if a.kill_at and restarted is None and time.time() - start >= a.kill_at:
            os.kill(pid, signal.SIGKILL)
            with state.lock:
                state.killed_at = time.time()
            time.sleep(0.5)
            restarted = subprocess.Popen(shlex.split(a.serve_cmd), stdout=subprocess.DEVNULL,
                                         stderr=open("/tmp/soak-restart.log", "w"))
            pid = restarted.pid
    state.stop = True
    for t in threads:
        t.join(timeout=120)
    out = {"seconds": a.seconds, "clients": a.clients, "types": {}, "errors": state.errors,
           "busy_53300": state.busy, "outage_errors": state.outage,
           "rss_kb": rss}
    for kind, lat in state.lat.items():
        if lat:
            lat.sort()
            out["types"][kind] = {
                "count": len(lat),
                "per_s": round(len(lat) / a.seconds, 2),
                "p50_ms": round(statistics.median(lat), 1),
                "p99_ms": round(lat[min(len(lat) - 1, int(len(lat) * 0.99))], 1),
            }
    if state.killed_at:
        out["restart_s"] = (round(state.back_at - state.killed_at, 2)
                            if state.back_at else None)
    print(json.dumps(out, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    if restarted is not None:
        restarted.send_signal(signal.SIGINT)


if __name__ == "__main__":
    main()
