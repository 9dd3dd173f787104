"""Turn latency of ``kari serve`` with many participants at once: a real server process on 127.0.0.1, N simulated
participants (threads) playing their whole study over HTTP at the same time, on tests/data/outside_bench.

A *turn* is one question in and its answer shown: the round trip of ``POST /api/p/TOKEN/ask`` as the client sees
it (the Checker, the KB Oracle, b_t and the soft belief, the journal line written and flushed, the participant's
new state as JSON). Starting a game (its setup: representatives, question pool, soft belief) and a guess (the
record appended, summary.json rewritten) are timed apart, and the server process's CPU time per request is read
from /proc. By default the participants do not pause between steps, so the server is as loaded as 20 clients can
make it (the worst case: the clients share the machine's 2 cores with the server, and the figures move with the
machine's load, printed); each client keeps one HTTP connection open, as a browser does. ``--think S`` makes each
wait S seconds (at random, 0 to 2S) before each step, as people do.

Goal (issue 30): a turn under 200 ms with 20 participants, on this 2-core machine.

    python benchmarks/bench_serve.py [--participants 20] [--games 100] [--per-game 3] [--think S] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the study test harness

from serve_support import OUTSIDE_BENCH, Participant, StudyServer, play_session, questioner_move  # noqa: E402


KIND = {"consent": "start", "start": "start", "ask": "turn", "guess": "guess"}


def play(person: Participant, times: dict[str, list[float]], lock: threading.Lock, think: float) -> None:
    """Every game of ``person`` (4 to 6 questions, then a guess); each step timed by kind."""
    pause = random.Random(person.token)
    person.keep_alive = True  # one connection per participant, as a browser keeps one

    def timed(name: str, seconds: float) -> None:
        person.seen.clear()  # keep no replies: memory stays flat
        with lock:
            times[KIND[name]].append(seconds)

    play_session(person, questioner_move, on_step=timed,
                 before=lambda: time.sleep(pause.uniform(0, 2 * think)) if think else None)


def server_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) the server process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--participants", type=int, default=20)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--per-game", type=int, default=3)
    parser.add_argument("--think", type=float, default=0.0, help="Mean seconds a participant waits before a step.")
    parser.add_argument("--out", type=Path, default=None, help="Also write the figures as JSON here.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = StudyServer(Path(tmp) / "study", ["--bench", str(OUTSIDE_BENCH), "--participants",
                                                   str(args.participants), "--per-game", str(args.per_game),
                                                   "--games", str(args.games)])
        with server:
            times: dict[str, list[float]] = {"turn": [], "start": [], "guess": []}
            lock = threading.Lock()
            threads = [threading.Thread(target=play, args=(server.participant(i), times, lock, args.think))
                       for i in range(args.participants)]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.perf_counter() - started
            cpu = server_cpu_seconds(server.proc.pid)
            code, _, err = server.stop()
            assert code == 0, err
    result = {"participants": args.participants, "games": args.games, "per_game": args.per_game, "think_s": args.think,
              "wall_s": round(wall, 2), "turns_per_s": round(len(times["turn"]) / wall, 1),
              "server_cpu_s": round(cpu, 2),
              "server_cpu_ms_per_request": round(1000 * cpu / sum(len(v) for v in times.values()), 2)}
    for kind, values in times.items():
        result[kind] = {"n": len(values), "median_ms": round(1000 * statistics.median(values), 1),
                        "p95_ms": round(1000 * percentile(values, 0.95), 1),
                        "p99_ms": round(1000 * percentile(values, 0.99), 1), "max_ms": round(1000 * max(values), 1)}
    print(json.dumps(result, indent=2))
    turn = result["turn"]
    verdict = "met" if turn["p95_ms"] < 200 else "NOT met"
    print(f"server CPU {result['server_cpu_ms_per_request']} ms per request ({result['server_cpu_s']} s in all; "
          f"load average {os.getloadavg()[0]:.1f})")
    print(f"turn (question in, answer shown) with {args.participants} participants at once: median "
          f"{turn['median_ms']} ms, p95 {turn['p95_ms']} ms, max {turn['max_ms']} ms over {turn['n']} turns "
          f"(think {args.think:g} s); "
          f"goal < 200 ms (p95): {verdict}")
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
