"""Benchmark ``kari kb load`` on a synthetic CSKG-shaped KGTK file (default 6,000,000 edges).

Prints the wall time and peak RSS of (a) DuckDB's own plain ``read_csv`` of the file into a table and (b) kari's
load (decode, validate, dedupe, insert) into a fresh KB, and their ratio. Each measurement runs in its own
process so peak RSS is per step; CPU time (user + sys, all threads) is printed too, as wall time on a shared
2-core machine depends on what else runs. Goal: kari under 15 s and 2 GiB for 6M edges.

    python benchmarks/bench_kb_load.py [--edges 6000000] [--duplicates 0] [--file PATH] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEADER = "id\tnode1\trelation\tnode2\tnode1;label\tnode2;label\trelation;label\trelation;dimension\tsource\tsentence\n"
RELATIONS = [("/r/RelatedTo", "related to", "CN"), ("rdfs:subClassOf", "subclass of", "WN"),
             ("vg:InImage", "in image", "VG"), ("/r/Synonym", "synonym", "CN"), ("/r/IsA", "is a", "CN"),
             ("/r/UsedFor", "used for", "CN"), ("/r/HasA", "has a", "CN"), ("/r/PartOf", "part of", "CN"),
             ("/r/HasProperty", "has property", "CN"), ("/r/MadeOf", "made of", "CN"),
             ("/r/CapableOf", "capable of", "CN"), ("at:xWant", "x want", "AT")]


def generate(path: Path, edges: int, duplicates: int = 0, seed: int = 0) -> None:
    """Write ``edges`` distinct CSKG-shaped KGTK edges (full header) to ``path``, then ``duplicates`` repeated
    lines (real CSKG files hold no duplicate edges; duplicates exercise the dedupe path)."""
    rng = random.Random(seed)
    n = 300_000
    words = [f"{rng.choice('bcdfghklmnprst')}{rng.choice('aeiou')}{i:x}" for i in range(n)]
    rng.shuffle(words)
    with open(path, "w", encoding="utf-8", buffering=1 << 22) as out:
        out.write(HEADER)
        batch = []
        for i in range(edges + duplicates):
            j = i if i < edges else rng.randrange(edges)
            # (j mod n, j div n) -> (a, b) is one-to-one for j < n * n: every edge is distinct
            a, b = words[j % n], words[(j % n * 7919 + j // n * 104_729) % n]
            rel, rel_label, source = RELATIONS[j % len(RELATIONS)]
            sentence = f"[[{a}]] is {rel_label} [[{b}]] ." if j % 3 == 0 else ""
            labels = f"{a}|{a}s" if j % 5 == 0 else a
            batch.append(f"/c/en/{a}-{rel}-/c/en/{b}-{j:07d}\t/c/en/{a}/n\t{rel}\t/c/en/{b}\t{labels}\t{b}\t"
                         f"{rel_label}\t\t{source}\t{sentence}\n")
            if len(batch) == 100_000:
                out.write("".join(batch))
                batch.clear()
        out.write("".join(batch))


DUCKDB_PLAIN = """
import duckdb, json, resource, sys, time
start = time.perf_counter()
con = duckdb.connect(sys.argv[2])
con.execute("CREATE TABLE t AS SELECT * FROM read_csv(?, delim='\\t', header=true, quote='', escape='', "
            "all_varchar=true)", [sys.argv[1]])
rows = con.execute("SELECT count(*) FROM t").fetchone()[0]
con.close()
print(json.dumps({"seconds": time.perf_counter() - start, "rows": rows,
                  "cpu_seconds": sum(resource.getrusage(resource.RUSAGE_SELF)[:2]),
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

KARI_LOAD = """
import json, resource, sys, time
start = time.perf_counter()
from kari.kb import load_files, open_db
con = open_db(sys.argv[2])
report = load_files(con, [sys.argv[1]])
con.close()
print(json.dumps({"seconds": time.perf_counter() - start, "rows": report.edges_added,
                  "cpu_seconds": sum(resource.getrusage(resource.RUSAGE_SELF)[:2]),
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(script: str, data: Path, db: Path) -> dict:
    for leftover in (db, Path(str(db) + ".wal")):
        leftover.unlink(missing_ok=True)
    out = subprocess.run([sys.executable, "-c", script, str(data), str(db)], check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edges", type=int, default=6_000_000)
    parser.add_argument("--duplicates", type=int, default=0, help="append this many repeated lines")
    parser.add_argument("--file", type=Path, default=None,
                        help="default: /tmp/kari_bench_cskg_<edges>_<duplicates>.tsv (generated if missing)")
    parser.add_argument("--keep", action="store_true", help="keep the generated file and databases")
    args = parser.parse_args()
    args.file = args.file or Path(tempfile.gettempdir()) / f"kari_bench_cskg_{args.edges}_{args.duplicates}.tsv"
    if not args.file.exists():
        start = time.perf_counter()
        generate(args.file, args.edges, args.duplicates)
        print(f"generated {args.file} ({args.file.stat().st_size / 2**20:.0f} MiB) in "
              f"{time.perf_counter() - start:.1f} s")
    db_dir = Path(tempfile.mkdtemp(prefix="kari-bench-"))
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
    plain = measure(DUCKDB_PLAIN, args.file, db_dir / "plain.duckdb")
    kari = measure(KARI_LOAD, args.file, db_dir / "kari.duckdb")
    for name, m in (("duckdb read_csv", plain), ("kari kb load", kari)):
        print(f"{name:16s} {m['rows']:>10,} rows  {m['seconds']:7.2f} s  (CPU {m['cpu_seconds']:6.2f} s)  "
              f"peak RSS {m['peak_rss_mib']:7.0f} MiB")
    print(f"ratio kari/duckdb: time {kari['seconds'] / plain['seconds']:.2f}x, "
          f"RSS {kari['peak_rss_mib'] / plain['peak_rss_mib']:.2f}x; goal: < 15 s, < 2048 MiB -> "
          f"{'met' if kari['seconds'] < 15 and kari['peak_rss_mib'] < 2048 else 'NOT met'}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if not args.keep:
        for path in db_dir.iterdir():
            path.unlink()
        db_dir.rmdir()


if __name__ == "__main__":
    main()
