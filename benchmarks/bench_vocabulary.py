"""Benchmark the vocabulary at KB scale: the library on 200,000 values and 20,000 is-a links, and the commands
``kari kb load`` and ``kari vocab --db`` on a KB with 20,000 distinct part names.

(a) Library: the shipped vocabulary reads 200,000 new raw words (one in four a compound whose head word is a
known value, so it is-a that value), takes 20,000 explicit is-a links between them (a random DAG), links the
compounds, checks itself (validate: is-a cycles and the rest), is stored in a DuckDB table and read back.
Goal: all of it under 10 s.

(b) Commands, timed as a user runs them (process start to exit): ``kari kb load`` of a KGTK file where each of
20,000 objects has its own part (``X HasA P``, 20,000 distinct part names, each part a SHAPE value, half of them
compounds such as ``..._handle``) and a material, then ``kari vocab --db``. Each step runs in its own process with a time limit (``--limit``).

(c) A deep taxonomy (issue 28): a vocabulary folder whose MADE_OF values form one is-a chain ``--chain`` deep
(20,000: deep0 is-a metal, deep1 is-a deep0, ...), read by ``kari vocab --vocab``, ``kari rules check --vocab``
(a rule on the deepest value) and ``kari play --vocab`` (two fix20q games). Goal: each within seconds (the
chain used to cost every command that reads the vocabulary a time quadratic in its depth: over two minutes).

    python benchmarks/bench_vocabulary.py [--values 200000] [--isa 20000] [--parts 20000] [--chain 20000] [--limit 120]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LIBRARY = """
import random, sys, time
import duckdb
from kari.vocab.vocabulary import Vocabulary

values, isa = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(0)
steps = {}
start = time.perf_counter()
vocab = Vocabulary.load()
heads = sorted(vocab.values("MADE_OF"))
words = []
for i in range(values):
    stem = f"{rng.choice('bcdfghklmnprst')}{rng.choice('aeiou')}{rng.choice('klmnrst')}{i:x}"
    words.append(f"{stem}_{rng.choice(heads)}" if i % 4 == 0 else stem)
t = time.perf_counter()
added = [vocab.canonicalise("MADE_OF" if i % 2 else "SHAPE", w, f"kb.tsv:{i + 2}").value
         for i, w in enumerate(words)]
steps["canonicalise"] = time.perf_counter() - t
t = time.perf_counter()
order = [i for i in range(values) if i % 4 and i % 2]          # MADE_OF words that are not compounds
for _ in range(isa):
    a, b = sorted(rng.sample(range(len(order)), 2))             # parent earlier in the order: a DAG
    vocab.add_isa("MADE_OF", added[order[b]], added[order[a]])
steps["add_isa"] = time.perf_counter() - t
t = time.perf_counter()
vocab.link_compounds()
steps["link_compounds"] = time.perf_counter() - t
t = time.perf_counter()
problems = vocab.validate()
steps["validate"] = time.perf_counter() - t
t = time.perf_counter()
con = duckdb.connect()
rows = vocab.to_db(con)
steps["to_db"] = time.perf_counter() - t
t = time.perf_counter()
again = Vocabulary.from_db(con)
steps["from_db"] = time.perf_counter() - t
assert again.values("MADE_OF") == vocab.values("MADE_OF") and not problems, problems[:3]
steps["total"] = time.perf_counter() - start
print(f"{rows} vocabulary rows; " + ", ".join(f"{k} {v:.2f} s" for k, v in steps.items()))
"""


def write_parts_kb(path: Path, parts: int) -> None:
    """A KGTK file: object o_i HasA part p_i (distinct names, half of them compounds of a known part such as
    ``..._handle``, so they are-a that part's SHAPE value) and MadeOf a material; a tenth of the parts have a
    property of their own."""
    rng = random.Random(1)
    materials = ("metal", "wood", "plastic", "glass", "rubber", "stone")
    heads = ("handle", "blade", "wheel", "lid", "leg", "button", "strap", "spout")
    with path.open("w", encoding="utf-8") as out:
        out.write("node1\tlabel\tnode2\n")
        for i in range(parts):
            obj = f"thing{i:05d}"
            part = f"{rng.choice('bcdfgklmnprst')}{rng.choice('aeiou')}{rng.choice('bcdfgklmnprst')}ot{i:x}"
            if i % 2:
                part += f"_{heads[i % len(heads)]}"
            out.write(f"/c/en/{obj}\t/r/HasA\t/c/en/{part}\n")
            out.write(f"/c/en/{obj}\t/r/MadeOf\t/c/en/{materials[i % len(materials)]}\n")
            if i % 10 == 0:
                out.write(f"/c/en/{part}\t/r/HasProperty\t/c/en/sharp\n")


def write_chain_vocabulary(folder: Path, depth: int) -> None:
    """The shipped vocabulary files plus a MADE_OF is-a chain ``depth`` deep under ``metal``."""
    import shutil

    shutil.copytree(ROOT / "data" / "vocabulary", folder)
    with (folder / "values.tsv").open("a", encoding="utf-8") as values:
        values.writelines(f"MADE_OF\tdeep{i}\tvalue {i} of a deep chain\n" for i in range(depth))
    with (folder / "isa.tsv").open("a", encoding="utf-8") as isa:
        isa.write("MADE_OF\tdeep0\tmetal\n")
        isa.writelines(f"MADE_OF\tdeep{i}\tdeep{i - 1}\n" for i in range(1, depth))


def timed(argv: list[str], limit: float) -> tuple[float | None, str]:
    """Seconds from process start to exit (None past ``limit``) and the last line of its output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    start = time.perf_counter()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=limit, env=env)
    except subprocess.TimeoutExpired:
        return None, f"not finished after {limit:g} s"
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed: {done.stderr.strip()}")
    lines = (done.stdout.strip() or done.stderr.strip()).splitlines()
    return seconds, lines[-1] if lines else ""


def show(name: str, result: tuple[float | None, str]) -> None:
    seconds, note = result
    print(f"{name:34s} {'> limit' if seconds is None else f'{seconds:7.2f} s'}   {note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--values", type=int, default=200_000)
    parser.add_argument("--isa", type=int, default=20_000)
    parser.add_argument("--parts", type=int, default=20_000)
    parser.add_argument("--chain", type=int, default=20_000, help="depth of the is-a chain of (c)")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds allowed per step")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
    library = timed([sys.executable, "-c", LIBRARY, str(args.values), str(args.isa)], args.limit)
    show(f"library: {args.values:,} values, {args.isa:,} is-a", library)
    with tempfile.TemporaryDirectory(prefix="kari-bench-vocab-") as tmp:
        kb, db = Path(tmp) / "parts.tsv", Path(tmp) / "parts.duckdb"
        write_parts_kb(kb, args.parts)
        kari = [sys.executable, "-m", "kari"]
        show(f"kari kb load ({args.parts:,} part names)", timed([*kari, "kb", "load", str(kb), "--db", str(db)],
                                                               args.limit))
        if db.exists():
            show("kari vocab --db", timed([*kari, "vocab", "--db", str(db)], args.limit))
        chain, rules = Path(tmp) / "chain", Path(tmp) / "deep.kari"
        write_chain_vocabulary(chain, args.chain)
        rules.write_text(f"cut := MADE_OF:deep{args.chain - 1}\n", encoding="utf-8")
        deep = [timed([*kari, "vocab", "--vocab", str(chain)], args.limit),
                timed([*kari, "rules", "check", str(rules), "--vocab", str(chain)], args.limit),
                timed([*kari, "play", "-q", "fix20q", "-n", "2", "--runs", "1", "--vocab", str(chain), "-o",
                       str(Path(tmp) / "run"), "--quiet"], args.limit)]
        for name, result in zip(("vocab --vocab", "rules check --vocab", "play --vocab (2 games)"), deep):
            show(f"{args.chain:,}-deep chain: kari {name}", result)
    goal = library[0] is not None and library[0] < 10
    print(f"goal: library under 10 s -> {'met' if goal else 'NOT met'}; load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
