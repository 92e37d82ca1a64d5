#!/usr/bin/env python3
"""The llama.cpp side of benches/run_llm.sh: the same GGUF, the same prompt tokens, the same
machine, through xllamacpp's prebuilt CPU llama.cpp (a benchmark-only tool, never a dependency
of Mitra). Prints one JSON line with prefill and decode tokens/s and time to first token.

    python3 benches/llm/llamacpp.py --model FILE.gguf --prompt-ids ids.json --gen 64 --threads 2
"""
import argparse
import json
import resource
import time

import xllamacpp as x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--prompt-ids", required=True, help="JSON list of token ids")
    ap.add_argument("--gen", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ctx", type=int, default=4096)
    a = ap.parse_args()
    ids = json.load(open(a.prompt_ids))
    p = x.CommonParams()
    p.model.path = a.model
    p.n_ctx = a.ctx
    p.n_parallel = 1
    p.cpuparams.n_threads = a.threads
    p.cpuparams_batch.n_threads = a.threads
    t0 = time.time()
    s = x.Server(p)
    load_s = time.time() - t0
    req = {
        "prompt": ids,
        "n_predict": a.gen,
        "temperature": 0.0,
        "ignore_eos": True,
        "cache_prompt": False,
    }
    r = s.handle_completions(req)
    if isinstance(r, str):
        r = json.loads(r)
    t = r["timings"]
    print(
        json.dumps(
            {
                "engine": "llama.cpp (xllamacpp %s)" % getattr(x, "__version__", "?"),
                "prompt_tokens": t["prompt_n"],
                "prefill_tok_s": t["prompt_per_second"],
                "ttft_ms": t["prompt_ms"],
                "decode_tokens": t["predicted_n"],
                "decode_tok_s": t["predicted_per_second"],
                "load_s": round(load_s, 2),
                "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
            }
        )
    )


if __name__ == "__main__":
    main()
