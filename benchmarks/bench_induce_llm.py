"""``kari induce --llm openai`` throughput: affordances in flight (``--concurrency N``) against a local server whose
every reply takes a fixed delay, requests and tokens per rule, several objects per Validator request, the dry run's
estimate, and the projected wall time of the paper's 2,223 verbs at a measured per-reply latency.

    python benchmarks/bench_induce_llm.py [--verbs 40] [--delays 0.1,1] [--levels 1,8,16,32] [--no-real]

The input is a KB kari did not build (``tests/data/outside_kb``, one rule per KB verb: ``--group none``, its first
``--verbs`` verbs). The server (tests/llm_server.py, on 127.0.0.1) is a deterministic model that answers from the
objects' properties written in each request (the Proposer proposes the property most uncovered objects share; the
Validator says YES exactly when the object lists the property), so every level must give the same rules file, JSONL,
vocabulary and report (timers aside): the script checks it. Each run gets a new run directory and reply cache.
``--no-real`` skips the real local server (llama_cpp.server + SmolLM2-135M, ``kari llm serve``), whose per-reply
latency on the induction's requests the projection uses beside the fixed delays.

Goal (issue 27): at 1 s per reply, ``--concurrency 16`` at least 6x faster than ``--concurrency 1`` on 40 verbs,
with identical outputs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the test servers

from llm_server import StubLLMServer, free_port, property_model  # noqa: E402

from kari.core.induce_config import InduceConfig  # noqa: E402
from kari.induce.run import dry_run, induce  # noqa: E402
from kari.kb import load_into  # noqa: E402
from kari.llm import LLMConfig  # noqa: E402

KB = ROOT / "tests" / "data" / "outside_kb" / "outside_kb.tsv"
BENCH = ROOT / "tests" / "data" / "outside_bench"
PAPER_VERBS = 2223


def config(verbs: int, batch: int = 1) -> InduceConfig:
    return InduceConfig(backend="openai", grouping="none", limit=verbs, validator_batch=batch)


def run_once(master: Path, work: Path, name: str, verbs: int, llm: LLMConfig, batch: int = 1) -> dict:
    """One induction into a new folder (the KB copied to one path, so that reports compare)."""
    db = work / "kb.duckdb"
    shutil.copyfile(master, db)
    out = work / name / "rules.kari"
    started = time.perf_counter()
    outcome = induce(out=out, db=db, config=config(verbs, batch), llm=llm.with_(cache_dir=work / name / "cache"),
                     argv=[])
    seconds = time.perf_counter() - started
    run = out.with_suffix(".run")
    costs = [r.llm or {} for r in outcome.results.values()]
    calls = sum(row["calls"] for c in costs for row in c.values())
    tokens = sum(row["prompt_tokens"] + row["completion_tokens"] for c in costs for row in c.values())
    validator = sum(c.get("validator", {}).get("calls", 0) for c in costs)
    live = json.loads((run / "manifest.json").read_text())["usage"]
    return {"seconds": seconds, "rules": len(outcome.rules), "affordances": len(outcome.results), "calls": calls,
            "live": live["calls"] - live["cache_hits"], "tokens": tokens, "validator": validator,
            "local_s": sum(t["total_s"] for t in outcome.timers.rows() if t["operation"] not in ("propose", "validate")),
            "outputs": outputs(out, db)}


def outputs(rules: Path, db: Path) -> dict:
    from kari.vocab.vocabulary import open_vocabulary

    run = rules.with_suffix(".run")
    return {"rules": rules.read_bytes(), "jsonl": rules.with_suffix(".jsonl").read_bytes(),
            "vocabulary": (run / "vocabulary.jsonl").read_bytes(), "coverage": (run / "coverage.jsonl").read_bytes(),
            "report": (run / "report.md").read_text().split("## Timers")[0], "db": open_vocabulary(db=db).rows()}


def fixed_delay(master: Path, work: Path, verbs: int, delays: list[float], levels: list[int]) -> dict:
    results: dict = {}
    for delay in delays:
        stub = StubLLMServer(respond=property_model(delay=delay)).start()
        try:
            llm = LLMConfig(base_url=stub.base_url, model="stub", timeout=60)
            print(f"\nfixed delay {delay:g} s per reply, {verbs} KB verbs of {KB.name} (--group none)")
            base = None
            for n in levels:
                stub.max_in_flight = 0
                before = stub.requests
                row = run_once(master, work, f"d{delay}-n{n}", verbs, llm.with_(concurrency=n))
                row["requests"] = stub.requests - before
                row["peak"] = stub.max_in_flight
                base = base or row
                same = row["outputs"] == base["outputs"]
                results[(delay, n)] = row
                print(f"  N={n:>2}: {row['seconds']:7.2f} s wall, {row['requests']} requests at the server (peak "
                      f"{row['peak']} in flight), {row['calls'] / row['affordances']:.2f} requests and "
                      f"{row['tokens'] / row['affordances']:.0f} tokens per rule, {row['rules']} rules; speed-up "
                      f"{base['seconds'] / row['seconds']:.2f}x; outputs identical to N={levels[0]}: {same}")
        finally:
            stub.stop()
    return results


def batching(work: Path, batches: list[int], delay: float, n: int) -> None:
    """Objects per Validator request on a benchmark with many positives per affordance (tests/data/outside_bench:
    21 affordances, 10-111 positives each), against the model that answers from the objects' properties."""
    stub = StubLLMServer(respond=property_model(delay=delay)).start()
    try:
        print(f"\nobjects per Validator request ({BENCH.name}, every affordance; delay {delay:g} s, N={n}): labels "
              "checked against one object per request")
        base = None
        for batch in batches:
            out = work / f"batch{batch}" / "rules.kari"
            llm = LLMConfig(base_url=stub.base_url, model="stub", timeout=60, concurrency=n,
                            cache_dir=work / f"batch{batch}" / "cache")
            before = stub.requests
            started = time.perf_counter()
            outcome = induce(out=out, bench=BENCH, config=InduceConfig(backend="openai", validator_batch=batch),
                             llm=llm, argv=[])
            seconds = time.perf_counter() - started
            rules = len(outcome.results)
            costs = [r.llm or {} for r in outcome.results.values()]
            tokens = sum(row["prompt_tokens"] + row["completion_tokens"] for c in costs for row in c.values())
            validator = sum(c.get("validator", {}).get("calls", 0) for c in costs)
            run = out.with_suffix(".run")
            found = {"rules": out.read_bytes(), "labels and rounds": (run / "coverage.jsonl").read_bytes(),
                     "vocabulary": (run / "vocabulary.jsonl").read_bytes(),
                     "jsonl": [{k: v for k, v in json.loads(line).items() if k != "run"}
                               for line in out.with_suffix(".jsonl").read_text().splitlines()]}
            base = base or found
            print(f"  --validator-batch {batch}: {(stub.requests - before) / rules:.1f} requests per rule "
                  f"({validator / rules:.1f} Validator), {tokens / rules:,.0f} tokens per rule, {seconds:.1f} s; "
                  f"rules, labels, rounds and vocabulary identical to batch {batches[0]}: {found == base}")
    finally:
        stub.stop()


def estimate(master: Path, work: Path, verbs: int) -> None:
    db = work / "kb.duckdb"
    shutil.copyfile(master, db)
    text = dry_run(db=db, config=config(verbs), llm=LLMConfig(base_url="http://127.0.0.1:9/v1", model="stub"))
    print("\n--dry-run (before any call):")
    for line in text.splitlines():
        if line.startswith(("role", "proposer", "validator", "auditor")) or "requests (" in line:
            print("  " + line)


def real_latency(master: Path, work: Path, verbs: int, threads: int) -> float | None:
    """The mean per-reply latency of the real local server on the induction's requests (N = 1)."""
    from kari.llm.localserver import ServerSpec, missing_server_reason, running_server, smollm2_gguf

    reason = missing_server_reason()
    if reason is not None:
        print(f"\nreal server: skipped ({reason})")
        return None
    spec = ServerSpec(smollm2_gguf(), port=free_port(), n_threads=threads)  # type: ignore[arg-type]
    with running_server(spec) as base_url:
        llm = LLMConfig(base_url=base_url, model=spec.alias, timeout=300, concurrency=1)
        row = run_once(master, work, "real", verbs, llm)
    calls = [json.loads(line) for p in (work / "real" / "rules.run" / "calls").glob("*.jsonl")
             for line in p.read_text().splitlines()]
    live = [c for c in calls if not c["cached"]]
    latency = sum(c["latency_s"] for c in live) / len(live)
    prompt = sum(c["prompt_tokens"] for c in live) / len(live)
    print(f"\nreal server: llama_cpp.server + SmolLM2-135M ({threads} threads), {verbs} verbs, N=1: {len(live)} "
          f"requests in {row['seconds']:.1f} s, {latency:.2f} s per reply, {prompt:.0f} prompt tokens per request "
          "(its tokenizer)")
    return latency


def project(results: dict, delays: list[float], levels: list[int], measured: float | None) -> None:
    print(f"\nprojected wall time of {PAPER_VERBS:,} verbs (requests per rule and local work per rule as measured "
          "on the 40 verbs):")
    for delay in delays:
        for n in (levels[0], levels[-1]):
            row = results[(delay, n)]
            per_verb = row["seconds"] / row["affordances"]
            print(f"  at {delay:g} s per reply, N={n}: {PAPER_VERBS * per_verb / 3600:.2f} h "
                  f"({per_verb:.2f} s per verb measured)")
    if measured is not None:
        row = results[(delays[0], levels[0])]
        requests, local = row["calls"] / row["affordances"], row["local_s"] / row["affordances"]
        for n in (1, levels[-1]):
            hours = PAPER_VERBS * (requests * measured / n + local) / 3600
            print(f"  at the real server's {measured:.2f} s per reply, N={n}: {hours:.1f} h "
                  f"({requests:.2f} requests per rule; N > 1 needs a server that answers N at once)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--verbs", type=int, default=40)
    parser.add_argument("--delays", default="0.1,1")
    parser.add_argument("--levels", default="1,8,16,32")
    parser.add_argument("--batches", default="1,4,8")
    parser.add_argument("--no-real", action="store_true")
    parser.add_argument("--only", choices=("batching",), default=None, help="run one part only")
    parser.add_argument("--real-verbs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    delays = [float(x) for x in args.delays.split(",")]
    levels = [int(x) for x in args.levels.split(",")]
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="kari-induce-llm-") as tmp:
        work = Path(tmp)
        if args.only == "batching":
            batching(work, [int(x) for x in args.batches.split(",")], delays[0], 8)
            return
        master = work / "master.duckdb"
        load_into(master, [KB])
        local = run_once(master, work, "nodelay", args.verbs,
                         LLMConfig(base_url=_serve(work), model="stub", concurrency=1))
        print(f"no delay, N=1: {local['seconds']:.2f} s for {args.verbs} verbs ({local['calls']} requests; local "
              f"work {local['local_s']:.2f} s)")
        estimate(master, work, args.verbs)
        results = fixed_delay(master, work, args.verbs, delays, levels)
        batching(work, [int(x) for x in args.batches.split(",")], delays[0], 8)
        measured = None if args.no_real else real_latency(master, work, args.real_verbs, args.threads)
        project(results, delays, levels, measured)
        _STUBS[0].stop()


_STUBS: list[StubLLMServer] = []


def _serve(work: Path) -> str:
    stub = StubLLMServer(respond=property_model()).start()
    _STUBS.append(stub)
    return stub.base_url


if __name__ == "__main__":
    main()
