"""Benchmark the ``kari kb load`` command on a synthetic CSKG-shaped KGTK file (default 2,000,000 edges).

The file has CSKG's full header, several labels in one cell (``a|as``) in a fifth of the rows and KGTK
escapes (``\"``, ``\|``, ``\t`` in a "string" and a label) in 1% of them. Its relations come in CSKG's mix: the
shares of the 53 relations of a 17,324-edge random sample of CSKG (usc-isi-i2/kgtk,
examples/sample_data/cskg/cskg_sample.tsv: /r/RelatedTo 26%, rdfs:subClassOf 18%, vg:InImage 17%, ...,
/r/PartOf 0.12%, /r/HasA 0.035%, /r/HasProperty 0.029%), with /r/MadeOf, absent from that sample, at ConceptNet's
0.01%. The property relations point at what CSKG's do: /r/MadeOf at materials and /r/HasProperty at shapes,
sizes and surfaces of kari's value lexicon (half of them; the rest are other words), /r/HasA and /r/PartOf at
part names, so the objects they make have typed properties and the vocabulary step reads their words (a file
without them reads none: "0 words"). Both measurements are whole
processes, timed from process start to exit as a user sees them: (a) the floor, a Python process that imports
DuckDB and copies the file into a table with DuckDB's own plain ``read_csv`` (no decoding, no checks), and (b)
``python -m kari kb load FILE --db NEW`` (detect, decode, validate, dedupe, insert, the vocabulary step). Peak RSS
and CPU time (user + sys, all threads) come from the process's own rusage; wall time on a shared 2-core machine
depends on what else runs, so the load average is printed before and after. Both run with Python's bytecode
cache on, as an installed wheel has it (:func:`child_env`). Goal: the command within 1.5x of
the floor (the best run of each; with ``--repeat N`` also the median of the N per-pair ratios, each command run
against the floor run just before it, which a drift of a shared machine's speed does not move as much).

    python benchmarks/bench_kb_load.py [--edges 2000000] [--duplicates 0] [--repeat 1] [--file PATH] [--keep]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEADER = "id\tnode1\trelation\tnode2\tnode1;label\tnode2;label\trelation;label\trelation;dimension\tsource\tsentence\n"
CSKG_SAMPLE_MIX = {
    "/r/RelatedTo": 4552, "rdfs:subClassOf": 3154, "vg:InImage": 2996, "/r/Synonym": 1499, "mw:PartOfSpeech": 818,
    "mw:POSForm": 444, "/r/Antonym": 439, "mw:IsPOSFormOf": 438, "/r/FormOf": 340, "/r/DerivedFrom": 330,
    "vg:subject": 291, "/r/IsA": 237, "/r/HasContext": 234, "vg:object": 231, "at:xWant": 144, "at:xAttr": 140,
    "mw:OMWordnetOffset": 115, "at:xNeed": 102, "at:xEffect": 99, "at:xReact": 72, "at:xIntent": 66,
    "/r/EtymologicallyRelatedTo": 64, "at:oWant": 55, "vg:PWordnetSynset": 50, "mw:HasInstance": 38,
    "/r/UsedFor": 37, "/r/SimilarTo": 37, "at:oReact": 29, "at:oEffect": 29, "/r/HasPrerequisite": 29,
    "/r/AtLocation": 29, "/r/CapableOf": 25, "/r/MannerOf": 23, "/r/HasSubevent": 22, "/r/PartOf": 21,
    "fn:HasLexicalUnit": 15, "/r/Causes": 13, "fn:HasFrameElement": 12, "/r/MotivatedByGoal": 10,
    "/r/ReceivesAction": 7, "/r/HasA": 6, "/r/HasProperty": 5, "/r/HasFirstSubevent": 5, "/r/CausesDesire": 5,
    "/r/NotDesires": 4, "/r/HasLastSubevent": 3, "/r/DistinctFrom": 3, "/r/DefinedAs": 2, "fn:IsCausativeOf": 1,
    "fn:InheritsFrom": 1, "/r/NotHasProperty": 1, "/r/InstanceOf": 1, "/r/Desires": 1,
    "/r/MadeOf": 2,   # not in the sample; ConceptNet's share (about 0.01%)
}
"""Edges per relation in a 17,324-edge random CSKG sample (the file's relation mix)."""
SOURCES = {"/r/": "CN", "rdfs:": "WN", "vg:": "VG", "at:": "AT", "mw:": "MW", "fn:": "FN"}
PARTS = ("handle", "blade", "wheel", "lid", "leg", "button", "strap", "spout", "tail", "flag", "screen", "door")


def relation_cycle(seed: int) -> list[tuple[str, str, str]]:
    """(relation, label, source) of each edge of one shuffled round of :data:`CSKG_SAMPLE_MIX`."""
    rounds = []
    for rel, count in CSKG_SAMPLE_MIX.items():
        name = rel.split(":", 1)[-1].rsplit("/", 1)[-1]
        label = "".join(f" {c.lower()}" if c.isupper() else c for c in name).strip()
        source = next(s for prefix, s in SOURCES.items() if rel.startswith(prefix))
        rounds += [(rel, label, source)] * count
    random.Random(seed).shuffle(rounds)
    return rounds


def lexicon_words() -> dict[str, list[str]]:
    """Raw words of kari's value lexicon by predicate (kb/value_lexicon.tsv)."""
    words: dict[str, list[str]] = {}
    lines = (ROOT / "kb" / "value_lexicon.tsv").read_text(encoding="utf-8").splitlines()[1:]
    for raw, predicate, _ in (line.split("\t") for line in lines if line.strip()):
        words.setdefault(predicate, []).append(raw.replace(" ", "_"))
    return words


def generate(path: Path, edges: int, duplicates: int = 0, seed: int = 0) -> None:
    """Write ``edges`` distinct CSKG-shaped KGTK edges (full header, CSKG's relation mix) to ``path``, then
    ``duplicates`` repeated lines (real CSKG files hold no duplicate edges; duplicates exercise the dedupe
    path)."""
    rng = random.Random(seed)
    n = 300_000
    words = [f"{rng.choice('bcdfghklmnprst')}{rng.choice('aeiou')}{i:x}" for i in range(n)]
    rng.shuffle(words)
    relations = relation_cycle(seed)
    lexicon = lexicon_words()
    targets = {"/r/MadeOf": lexicon.get("MADE_OF", []),
               "/r/HasProperty": lexicon.get("SURFACE", []) + lexicon.get("SHAPE", []) + lexicon.get("SIZE", []),
               "/r/HasA": list(PARTS), "/r/PartOf": list(PARTS)}
    with open(path, "w", encoding="utf-8", buffering=1 << 22) as out:
        out.write(HEADER)
        batch = []
        for i in range(edges + duplicates):
            j = i if i < edges else rng.randrange(edges)
            # (j mod n, j div n) -> (a, b) is one-to-one for j < n * n: every edge is distinct
            a, b = words[j % n], words[(j % n * 7919 + j // n * 104_729) % n]
            rel, rel_label, source = relations[j % len(relations)]
            typed = targets.get(rel)
            if typed and j % 2:        # half of the property edges point at a word kari types
                b = f"{typed[j // 2 % len(typed)]}_{j:x}" if rel in ("/r/HasA", "/r/PartOf") and j % 4 == 1 \
                    else typed[j // 2 % len(typed)]
            sentence = f"[[{a}]] is {rel_label} [[{b}]] ." if j % 3 == 0 else ""
            labels = f"{a}|{a}s" if j % 5 == 0 else a
            if j % 100 == 7:          # KGTK escapes in 1% of the rows
                sentence = f'"[[{a}]] is \\"{rel_label}\\" \\| [[{b}]]\\t."'
                labels = f"{a}\\|{b}|{a}s"
            batch.append(f"/c/en/{a}-{rel}-/c/en/{b}-{j:07d}\t/c/en/{a}/n\t{rel}\t/c/en/{b}\t{labels}\t{b}\t"
                         f"{rel_label}\t\t{source}\t{sentence}\n")
            if len(batch) == 100_000:
                out.write("".join(batch))
                batch.clear()
        out.write("".join(batch))


DUCKDB_PLAIN = """
import sys
import duckdb
con = duckdb.connect(sys.argv[2])
con.execute("CREATE TABLE t AS SELECT * FROM read_csv(?, delim='\\t', header=true, quote='', escape='', "
            "all_varchar=true)", [sys.argv[1]])
print(con.execute("SELECT count(*) FROM t").fetchone()[0])
con.close()
"""
ROOT = Path(__file__).resolve().parents[1]


def child_env() -> dict[str, str]:
    """The benchmark's processes run with kari on the path and Python's bytecode cache on, as after installing a
    wheel (pip compiles it); a host that sets ``PYTHONDONTWRITEBYTECODE`` would otherwise make kari compile its
    modules from source at every start (about 0.1-0.2 s here) while DuckDB's installed bytecode is read."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def measure(argv: list[str], db: Path) -> dict:
    """Run ``argv`` as a new process (into the new database ``db``): wall seconds from start to exit, CPU
    seconds and peak RSS from its rusage, and its last line of output."""
    for leftover in (db, Path(str(db) + ".wal")):
        leftover.unlink(missing_ok=True)
    env = child_env()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    out, err = proc.stdout.read().decode(), proc.stderr.read().decode()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed ({proc.returncode}): {err.strip()}")
    return {"seconds": seconds, "cpu_seconds": usage.ru_utime + usage.ru_stime,
            "peak_rss_mib": usage.ru_maxrss / 1024, "last": (out.strip().splitlines() or [""])[-1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edges", type=int, default=2_000_000)
    parser.add_argument("--duplicates", type=int, default=0, help="append this many repeated lines")
    parser.add_argument("--file", type=Path, default=None,
                        help="default: /tmp/kari_bench_cskg_mix_<edges>_<duplicates>.tsv (generated if missing)")
    parser.add_argument("--keep", action="store_true", help="keep the generated file and databases")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run both this many times, alternating; best kept (and the per-pair ratios printed)")
    args = parser.parse_args()
    args.file = args.file or Path(tempfile.gettempdir()) / f"kari_bench_cskg_mix_{args.edges}_{args.duplicates}.tsv"
    if not args.file.exists():
        start = time.perf_counter()
        generate(args.file, args.edges, args.duplicates)
        print(f"generated {args.file} ({args.file.stat().st_size / 2**20:.0f} MiB) in "
              f"{time.perf_counter() - start:.1f} s")
    db_dir = Path(tempfile.mkdtemp(prefix="kari-bench-"))
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
    runs: dict[str, list[dict]] = {"duckdb read_csv": [], "kari kb load": []}
    # kari's bytecode, compiled before the timed runs as pip compiles a wheel's at install (``kb load --help`` would
    # leave out the modules the load imports only when it runs)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "kari")], env=child_env(), check=True,
                   stdout=subprocess.DEVNULL)
    for _ in range(args.repeat):
        runs["duckdb read_csv"].append(measure([sys.executable, "-c", DUCKDB_PLAIN, str(args.file),
                                                str(db_dir / "plain.duckdb")], db_dir / "plain.duckdb"))
        runs["kari kb load"].append(measure([sys.executable, "-m", "kari", "kb", "load", str(args.file), "--db",
                                             str(db_dir / "kari.duckdb")], db_dir / "kari.duckdb"))
    best = {name: min(ms, key=lambda m: m["seconds"]) for name, ms in runs.items()}
    for name, m in best.items():
        times = ", ".join(f"{r['seconds']:.2f}" for r in runs[name])
        print(f"{name:16s} {m['seconds']:7.2f} s (runs: {times})  CPU {m['cpu_seconds']:6.2f} s  "
              f"peak RSS {m['peak_rss_mib']:6.0f} MiB   {m['last'][:90]}")
    plain, kari = best["duckdb read_csv"], best["kari kb load"]
    ratio = kari["seconds"] / plain["seconds"]
    print(f"ratio command/floor: time {ratio:.2f}x, CPU {kari['cpu_seconds'] / plain['cpu_seconds']:.2f}x, "
          f"RSS {kari['peak_rss_mib'] / plain['peak_rss_mib']:.2f}x; goal within 1.5x -> "
          f"{'met' if ratio <= 1.5 else 'NOT met'}")
    if args.repeat > 1:  # each run beside the floor run just before it: a drift of the machine's speed cancels out
        pairs = sorted(k["seconds"] / p["seconds"] for p, k in zip(runs["duckdb read_csv"], runs["kari kb load"]))
        print(f"per-pair ratios (each command run / the floor run before it): median {statistics.median(pairs):.2f}x, "
              f"range {pairs[0]:.2f}-{pairs[-1]:.2f}x")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if not args.keep:
        for path in db_dir.iterdir():
            path.unlink()
        db_dir.rmdir()


if __name__ == "__main__":
    main()
