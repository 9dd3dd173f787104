"""LLM games in flight: ``kari play --concurrency N`` against a server whose every reply takes a fixed delay, and the
throughput of the real local server (``kari llm serve``: llama_cpp.server + SmolLM2-135M).

Goal (issue): 32 LLM games at N = 8 at least 5x faster than at N = 1 against the fixed-delay server; report the
real server's throughput at N = 1 and N = 4. llama_cpp.server answers one request at a time and reuses its
KV cache only for the prefix a prompt shares with the previous one, so interleaved games make it slower, not faster:
concurrency pays off with servers that batch (vLLM, sglang, llama.cpp's llama-server --parallel) or remote
APIs. Each setting plays into a fresh run directory with the reply cache
off, so every call reaches the server; the records of the N > 1 runs are checked equal to the N = 1 run's.

    python benchmarks/bench_llm_concurrency.py [--games 32] [--delay 0.1] [--real-games 8] [--no-real]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test servers

from llm_server import StubLLMServer, free_port, scripted_questioner  # noqa: E402
from test_game_support import write_bench, write_vocab  # noqa: E402

from kari.game.run import PlayConfig, play  # noqa: E402
from kari.llm import LLMConfig  # noqa: E402
from kari.resources import bundled_bench_dir  # noqa: E402


def timed_run(config: PlayConfig, llm: LLMConfig, out: Path, concurrency: int) -> tuple[float, dict]:
    started = time.perf_counter()
    summary = play(config, out, llm_config=llm.with_(concurrency=max(concurrency, 1)), progress=False,
                   concurrency=concurrency)
    return time.perf_counter() - started, summary


def records(out: Path) -> list[dict]:
    rows = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("time_s")
    return rows


def fixed_delay(work: Path, games: int, delay: float, levels: list[int]) -> None:
    stub = StubLLMServer(respond=scripted_questioner(questions=3, delay=delay)).start()
    try:
        config = PlayConfig(bench=str(write_bench(work / "bench")), vocab=str(write_vocab(work / "vocab")),
                            questioner="llm", games=games, budget=10, model="stub", base_url=stub.base_url)
        llm = LLMConfig(base_url=stub.base_url, model="stub", use_cache=False, timeout=60)
        print(f"fixed-delay server: {games} games x 4 calls, {delay * 1000:.0f} ms per reply")
        times = {}
        for n in levels:
            stub.max_in_flight = 0
            seconds, summary = timed_run(config, llm, work / f"stub-{n}", n)
            times[n] = seconds
            same = records(work / f"stub-{n}") == records(work / f"stub-{levels[0]}")
            print(f"  N={n}: {seconds:6.2f} s, {summary['llm_usage']['calls']} calls, peak {stub.max_in_flight} in "
                  f"flight, records identical to N={levels[0]}: {same}")
        for n in levels[1:]:
            print(f"  speed-up N={n} vs N={levels[0]}: {times[levels[0]] / times[n]:.2f}x")
    finally:
        stub.stop()


def real_server(work: Path, games: int, levels: list[int], threads: int) -> None:
    from kari.llm.localserver import ServerSpec, missing_server_reason, running_server, smollm2_gguf

    reason = missing_server_reason()
    if reason is not None:
        print(f"real server: skipped ({reason})")
        return
    spec = ServerSpec(smollm2_gguf(), port=free_port(), n_threads=threads)  # type: ignore[arg-type]
    with running_server(spec) as base_url:
        config = PlayConfig(bench=str(bundled_bench_dir()), questioner="llm", games=games, budget=5, max_tokens=48,
                            model=spec.alias, base_url=base_url)
        llm = LLMConfig(base_url=base_url, model=spec.alias, use_cache=False, timeout=300)
        print(f"real server: llama_cpp.server + SmolLM2-135M ({threads} threads), {games} bundled games, budget 5, "
              "max 48 tokens a reply, symbolic Oracle and Checker")
        for n in levels:
            seconds, summary = timed_run(config, llm, work / f"real-{n}", n)
            usage = summary["llm_usage"]
            same = records(work / f"real-{n}") == records(work / f"real-{levels[0]}")
            print(f"  N={n}: {seconds:6.1f} s, {games / seconds:.2f} games/s, {usage['calls'] / seconds:.2f} calls/s, "
                  f"{usage['completion_tokens'] / seconds:.1f} completion tokens/s ({usage['calls']} calls); "
                  f"records identical to N={levels[0]}: {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--delay", type=float, default=0.1)
    parser.add_argument("--real-games", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads of the real server")
    parser.add_argument("--no-real", action="store_true", help="skip the real local server")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kari-bench-llm-") as tmp:
        fixed_delay(Path(tmp), args.games, args.delay, [1, 8])
        if not args.no_real:
            real_server(Path(tmp), args.real_games, [1, 4], args.threads)


if __name__ == "__main__":
    main()
