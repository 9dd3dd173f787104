"""Every CLI command on generated bad inputs (issue 12's acceptance test, extended by issue 21).

A seeded mutation corpus built from the bundled files (truncation, NUL bytes, bad UTF-8, huge numbers, deep
nesting, wrong types, garbage, empty files, ``\\u0000`` escapes), bad option values (every numeric option of every
command with a huge count, a negative one, ``nan`` and ``inf``), hostile SQL, outputs that already exist as the
wrong kind of thing (a folder, FIFO or database where a file goes; a file where a folder goes), outputs that are
the command's own inputs, and ``--db`` files that are not DuckDB databases. Each case runs one ``kari`` command
line in-process (:func:`kari.cli.run`, the entry point's own code) in a fresh copy of a small world and asserts
that the command

- exits non-zero, and not with the internal-error code;
- prints exactly one line on stderr, ``kari: ...``, and no traceback anywhere;
- leaves every file of the world byte-identical: nothing changed, created or removed (inputs, databases and
  the outputs it refused alike).

A second, hypothesis-driven test feeds arbitrary bytes to the readers: there a success is allowed, but a failure
must keep the same contract. Two more kinds have their own contract: file names with glob and path characters
(``a[1].tsv``, ``*``, ``?``, a folder named ``~``) must be read and written exactly as named, and slow or
malformed LLM servers (a real HTTP server on 127.0.0.1 that drips its reply, sends junk, a lone surrogate, HTTP
errors) must cost at most ``--llm-timeout`` per attempt and end in one line, never an internal error.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import shutil
import signal
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kari.cli import INTERNAL_ERROR_EXIT, run
from kari.resources import asset_path

KB_DATA = Path(__file__).parent / "data" / "kb"
BENCH_FILES = ("objects.jsonl", "affordances.jsonl", "labels.jsonl", "games.jsonl")
RULES = """\
# rules over bundled affordances
cut := OR(PART(x, AND(SHAPE:sharp_edge, MADE_OF:metal)), AND(SHAPE:sharp_edge, SIZE:hand_sized))
attack_with := AND(SHAPE:sharp_edge, SIZE:heavy)
make_music := OR(AND(SHAPE:hollow, MADE_OF:wood), AND(SHAPE:hollow, MADE_OF:metal))
"""
HUGE = "9" * 5000
DEEP = "[" * 100_000 + "]" * 100_000
TIMEOUT_S = 30


# --------------------------------------------------------------------------------------------- the world


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small valid world every case starts from: a benchmark, rule files, a question list, KB files, a KB
    database, a vocabulary folder and a finished play run."""
    from kari.game.run import PlayConfig, play
    from kari.io.plan import Shard
    from kari.kb import load_into
    from kari.rules import load_rules
    from kari.rules.rulefile import format_rules

    root = tmp_path_factory.mktemp("world")
    shutil.copytree(asset_path("data", "bench"), root / "bench")
    shutil.copytree(asset_path("data", "vocabulary"), root / "vocab")
    shutil.copy(asset_path("data", "fix20q.tsv"), root / "questions.tsv")
    (root / "rules.kari").write_text(RULES, encoding="utf-8")
    (root / "rules.jsonl").write_text(format_rules(load_rules(root / "rules.kari"), "json"), encoding="utf-8")
    (root / "kb").mkdir()
    for name in ("views_kb.tsv", "cskg_excerpt.tsv", "triples.csv", "triples.jsonl", "aristo_readme_rows.tsv",
                 "triples_headerless.tsv"):
        shutil.copy(KB_DATA / name, root / "kb" / name)
    (root / "kb" / "views_kb.tsv.gz").write_bytes(gzip.compress((KB_DATA / "views_kb.tsv").read_bytes(), mtime=0))
    load_into(root / "kb.duckdb", [KB_DATA / "views_kb.tsv"])
    play(PlayConfig(bench=str(root / "bench"), questioner="fix20q", games=2, runs=1), root / "run", progress=False)
    for k in (1, 2):                  # a run played in two shards (kari merge joins them)
        play(PlayConfig(bench=str(root / "bench"), questioner="fix20q", games=2, runs=1), root / f"shard{k}",
             progress=False, shard=Shard(k, 2))
    (root / "notes.txt").write_text("not a folder, not a database\n", encoding="utf-8")
    _creativity_world(root / "cb")
    return root


def _creativity_world(folder: Path) -> None:
    """Two bundled CreativityBench tasks (as JSON Lines), their entities and the bundled rules."""
    from kari.creativity.records import read_records

    folder.mkdir()
    tasks = [r.data for r in read_records(asset_path("data", "creativity", "tasks.json"))][:2]
    names = {e["name"] for t in tasks for e in t["entities"]}
    entities = [r.data for r in read_records(asset_path("data", "creativity", "entities.jsonl"))
                if r.data["entity_name"] in names]
    for name, records in (("tasks.jsonl", tasks), ("entities.jsonl", entities)):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    shutil.copy(asset_path("data", "creativity", "rules.kari"), folder / "rules.kari")
    from kari.creativity.run import SolveConfig, solve_tasks

    solve_tasks(SolveConfig(tasks=str(folder / "tasks.jsonl"), rules=str(folder / "rules.kari"), goal="oracle"),
                folder / "run", progress=False)
    outputs = {t["task_id"]: [{"temperature": 0.0, "reasoning": "", "gold_entity": t["golds"][0]["gold_entity"],
                               "gold_part": t["golds"][0]["gold_part"], "how_to_use": "Use it.", "sample_idx": 0}]
               for t in tasks}       # answers in the benchmark runner's format
    (folder / "outputs.json").write_text(json.dumps(outputs, indent=2), encoding="utf-8")


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry below ``root``: kind, mode and (for files) a content digest. FIFOs are never opened."""
    out: dict[str, tuple] = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        rel = str(path.relative_to(root))
        if stat.S_ISREG(info.st_mode):
            out[rel] = ("file", stat.S_IMODE(info.st_mode), hashlib.sha256(path.read_bytes()).hexdigest())
        else:
            out[rel] = (stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode))
    return out


# --------------------------------------------------------------------------------------------- mutations

Mutation = Callable[[bytes, random.Random], bytes]


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _pick(lines: list[bytes], rng: random.Random, skip_header: bool) -> int:
    """A random line holding content (not the header)."""
    first = 1 if skip_header else 0
    candidates = [i for i in range(first, len(lines)) if lines[i].strip()]
    return rng.choice(candidates)


def _with_line(data: bytes, rng: random.Random, skip_header: bool, change: Callable[[bytes], bytes]) -> bytes:
    lines = _lines(data)
    i = _pick(lines, rng, skip_header)
    lines[i] = change(lines[i])
    return b"".join(lines)


def _record_change(edit: Callable[[dict], object]) -> Callable[[bytes], bytes]:
    """Edit one JSON record (``edit`` may return a replacement text)."""
    def change(line: bytes) -> bytes:
        record = json.loads(line)
        text = edit(record)
        return (text if isinstance(text, str) else json.dumps(record)).encode() + b"\n"
    return change


def jsonl_mutations(wrong_types: dict[str, object], skip_header: bool = False,
                    read_field: str | None = None) -> dict[str, Mutation]:
    """Mutations that make a JSON Lines file invalid whatever line they hit. Huge numbers and deep nesting go
    into an extra key (kari's JSON reader fails on them), or into ``read_field`` for a reader that ignores
    unknown keys."""
    def cut(line: bytes) -> bytes:
        body = line.rstrip(b"\n")
        return body[: random.Random(len(body)).randrange(1, len(body) - 1)] + b"\n"

    def nul(line: bytes) -> bytes:
        at = line.index(b'"') + 1
        return line[:at] + b"\x00" + line[at:]

    def nul_escape(line: bytes) -> bytes:      # valid JSON whose string holds a NUL character
        record = json.loads(line)
        key = next(k for k, v in record.items() if isinstance(v, str))
        record[key] = f"{record.get(key) or ''}\x00x"
        return json.dumps(record).encode() + b"\n"

    def extra(value: str) -> Callable[[bytes], bytes]:
        if read_field is not None:
            return _record_change(lambda r: json.dumps({**r, read_field: "@"}).replace('"@"', value))
        return _record_change(lambda r: json.dumps(r)[:-1] + f', "extra": {value}}}')

    mutations: dict[str, Mutation] = {
        "truncated-line": lambda d, rng: _with_line(d, rng, skip_header, cut),
        "nul": lambda d, rng: _with_line(d, rng, skip_header, nul),
        "bad-utf8": lambda d, rng: _with_line(d, rng, skip_header, lambda line: line[:3] + b"\xff\xfe" + line[3:]),
        "huge-number": lambda d, rng: _with_line(d, rng, skip_header, extra(HUGE)),
        "deep-nesting": lambda d, rng: _with_line(d, rng, skip_header, extra(DEEP)),
        "not-an-object": lambda d, rng: _with_line(d, rng, skip_header, lambda line: b'["a", 1]\n'),
        "garbage-line": lambda d, rng: _with_line(d, rng, skip_header, lambda line: b"%%% this is not json\n"),
        "nul-escape": lambda d, rng: _with_line(d, rng, skip_header, nul_escape),
    }
    for key, value in wrong_types.items():
        def set_field(record: dict, key: str = key, value: object = value) -> None:
            record[key] = value
        mutations[f"wrong-type-{key}"] = (lambda d, rng, f=set_field: _with_line(d, rng, skip_header,
                                                                                 _record_change(f)))
    return mutations


def _cut_before_last_delimiter(delim: bytes) -> Mutation:
    def mutate(data: bytes, rng: random.Random) -> bytes:
        lines = _lines(data)
        i = _pick(lines, rng, skip_header=True)
        line = lines[i]
        return b"".join(lines[:i]) + line[: rng.randrange(0, line.rindex(delim))]
    return mutate


def table_mutations(delim: bytes, numeric_column: int | None, header: bool = True) -> dict[str, Mutation]:
    """Mutations that make a delimited KB file invalid whatever line they hit."""
    def in_line(change: Callable[[bytes], bytes]) -> Mutation:
        return lambda d, rng: _with_line(d, rng, header, change)

    def huge(line: bytes) -> bytes:
        fields = line.rstrip(b"\r\n").split(delim)
        fields[numeric_column] = HUGE.encode()  # type: ignore[index]
        return delim.join(fields) + b"\n"

    mutations: dict[str, Mutation] = {
        "truncated": _cut_before_last_delimiter(delim),
        "nul": in_line(lambda line: line[:2] + b"\x00" + line[2:]),
        "bad-utf8": in_line(lambda line: line[:2] + b"\xff\xfe" + line[2:]),
        "extra-column": in_line(lambda line: line.rstrip(b"\r\n") + delim + b"extra\n"),
        "blank-line": in_line(lambda line: b"\n" + line),
        "garbage": lambda d, rng: bytes(rng.randrange(256) for _ in range(4000)),
        "empty": lambda d, rng: b"",
    }
    if numeric_column is not None:
        mutations["huge-number"] = in_line(huge)
    if delim == b"\t":        # a CR inside a TSV line (CSV quotes may hold one)
        mutations["stray-cr"] = in_line(lambda line: line[:2] + b"\r" + line[2:])
    return mutations


def kari_mutations() -> dict[str, Mutation]:
    """Mutations that make a .kari rule file fail to parse."""
    def cut(data: bytes, rng: random.Random) -> bytes:
        start = data.rindex(b":=") + 3
        return data[: rng.randrange(start, data.rindex(b")"))]

    def in_body(insert: bytes) -> Mutation:
        def mutate(data: bytes, rng: random.Random) -> bytes:
            at = data.index(b":= ") + 3 + rng.randrange(0, 10)
            return data[:at] + insert + data[at:]
        return mutate

    return {
        "truncated": cut,
        "nul": in_body(b"\x00"),
        "bad-utf8": in_body(b"\xff"),
        "deep-nesting": lambda d, rng: d + b"deep := " + b"AND(" * 100_000 + b"SHAPE:flat" + b")" * 100_000 + b"\n",
        "garbage": lambda d, rng: d + b"%%% not a rule\n",
        "empty": lambda d, rng: b"",
        "no-rule": lambda d, rng: b"# only a comment\n",
        "case-duplicate": lambda d, rng: d + b"Cut := SHAPE:flat\n",        # issue 28: two affordances
    }


def gzip_mutations() -> dict[str, Mutation]:
    def corrupt(data: bytes, rng: random.Random) -> bytes:
        body = bytearray(data)
        for _ in range(8):
            body[rng.randrange(12, len(body) - 8)] ^= 0xFF
        return bytes(body)
    return {"gz-truncated": lambda d, rng: d[: len(d) * 2 // 3], "gz-corrupt": corrupt}


def database_mutations() -> dict[str, Mutation]:
    def flip(data: bytes, rng: random.Random) -> bytes:
        body = bytearray(data)
        for _ in range(64):
            body[rng.randrange(8192, len(body))] ^= 0xFF
        return bytes(body)
    return {
        "db-truncated": lambda d, rng: d[:10_000],
        "db-garbled": flip,
        "db-garbage": lambda d, rng: bytes(rng.randrange(256) for _ in range(len(d) // 64)),
        "db-text": lambda d, rng: b"this is a text file\n",
    }


# --------------------------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    """One command line (``{w}`` is the world folder) and what to do to the world before it runs."""

    name: str
    argv: tuple[str, ...]
    target: str | None = None            # file to replace with ``mutate(original)``
    mutate: Mutation | None = None
    kind: str | None = None              # or: make ``target`` a "dir", "fifo", "missing" or copy of "db"
    source: str | None = None            # with kind "link" or "copy": what ``target`` links to or copies
    expect: tuple[str, ...] = ()         # the error line names one of these codes
    copies: tuple[tuple[str, str], ...] = ()   # more (target, source) copies made first


BENCH_WRONG_TYPES = {
    "objects.jsonl": {"id": 7, "properties": {"a": 1}, "parts": [{"x": 1}]},
    "affordances.jsonl": {"id": ["cut"]},
    "labels.jsonl": {"label": "yes", "object": None},
    "games.jsonl": {"candidates": [{"x": 1}] * 8, "target": 3.5},
}
BENCH_COMMANDS = {
    "validate": ("bench", "validate", "{w}/bench"),
    "build": ("bench", "build", "{w}/bench", "-o", "{w}/new_games.jsonl"),
    "play": ("play", "--bench", "{w}/bench", "-o", "{w}/out", "-n", "2"),
    "induce": ("induce", "--bench", "{w}/bench", "--out", "{w}/out.kari", "-q"),
    "coverage": ("coverage", "--rules", "{w}/rules.kari", "--db", "{w}/kb.duckdb", "--bench", "{w}/bench"),
    "export-prompts": ("export-prompts", "--rules", "{w}/rules.kari", "--bench", "{w}/bench", "--match", "exact",
                       "--out", "{w}/out"),
    "pipeline": ("pipeline", "--bench", "{w}/bench", "--out", "{w}/out", "-n", "1"),
    "explain": ("explain", "cut", "knife", "--rules", "{w}/rules.kari", "--bench", "{w}/bench"),
}
RULE_COMMANDS = {
    "check": ("rules", "check", "{r}"),
    "fmt": ("rules", "fmt", "{r}"),
    "fmt-i": ("rules", "fmt", "-i", "{r}"),
    "stats": ("rules", "stats", "{r}"),
    "compile": ("rules", "compile", "{r}"),
    "coverage": ("coverage", "--rules", "{r}", "--db", "{w}/kb.duckdb", "--bench", "{w}/bench"),
    "play": ("play", "-q", "rules", "--rules", "{r}", "--match", "exact", "-o", "{w}/out", "-n", "1"),
    "export-prompts": ("export-prompts", "--rules", "{r}", "--match", "exact", "--out", "{w}/out"),
    "explain": ("explain", "cut", "knife", "--rules", "{r}", "--bench", "{w}/bench", "--json"),
}
DB_COMMANDS = {
    "stats": ("kb", "stats", "--db", "{w}/kb.duckdb"),
    "sql": ("kb", "sql", "SELECT count(*) FROM edges", "--db", "{w}/kb.duckdb"),
    "show": ("kb", "show", "knife", "--db", "{w}/kb.duckdb"),
    "export": ("kb", "export", "{w}/out.tsv", "--db", "{w}/kb.duckdb"),
    "load": ("kb", "load", "{w}/kb/triples.csv", "--db", "{w}/kb.duckdb"),
    "coverage": ("coverage", "--rules", "{w}/rules.kari", "--db", "{w}/kb.duckdb"),
    "induce": ("induce", "--db", "{w}/kb.duckdb", "--out", "{w}/out.kari", "-q"),
    "explain": ("explain", "cut", "knife", "--rules", "{w}/rules.kari", "--db", "{w}/kb.duckdb"),
}


# Commands for which a missing or empty file is bad input (elsewhere it is an empty list: no games to score)
NEEDS = {"objects.jsonl": set(BENCH_COMMANDS) - {"validate"}, "games.jsonl": {"play", "pipeline"}}


def spread(index: int, commands: dict[str, tuple[str, ...]], every: int = 3) -> dict[str, tuple[str, ...]]:
    """Every ``every``-th command, starting at a point that moves with ``index``: each mutation runs on a few
    commands, and each command meets every file with a share of the mutations (the corpus stays fast)."""
    return {k: v for i, (k, v) in enumerate(commands.items()) if (i + index) % every == 0}


def bench_cases() -> Iterator[Case]:
    for number, name in enumerate(BENCH_FILES):
        mutations = {**jsonl_mutations(BENCH_WRONG_TYPES[name]), "empty-file": lambda d, rng: b"",
                     "missing": None, "fifo": None}
        for index, (label, mutate) in enumerate(mutations.items()):
            needed = NEEDS.get(name, set()) if label in ("empty-file", "missing") else set(BENCH_COMMANDS)
            for command, argv in spread(number + index, {k: v for k, v in BENCH_COMMANDS.items() if k in needed},
                                        every=1 if label in ("empty-file", "missing") else 3).items():
                if command in ("build", "explain") and name == "games.jsonl":
                    continue                  # bench build does not read the games it replaces, explain no game
                kind = label if label in ("missing", "fifo") else None
                yield Case(f"bench/{name}/{label}/{command}", argv, f"bench/{name}", mutate, kind)


def rule_cases() -> Iterator[Case]:
    for name, mutations in (("rules.kari", kari_mutations()),
                            ("rules.jsonl", {**jsonl_mutations({"rule": 7, "affordance": ["x"], "branches": "b"}),
                                             "empty": lambda d, rng: b""})):
        for index, (label, mutate) in enumerate(mutations.items()):
            for command, argv in spread(index, RULE_COMMANDS).items():
                target = f"{{w}}/{name}"
                yield Case(f"{name}/{label}/{command}", tuple(a.replace("{r}", target) for a in argv), name, mutate)
    for command in ("check", "compile", "coverage", "play", "explain"):   # issue 28: a warning in check only
        argv = tuple(a.replace("{r}", "{w}/rules.kari") for a in RULE_COMMANDS[command])
        yield Case(f"rules.kari/empty-value/{command}", argv, "rules.kari",
                   lambda d, rng: d.replace(b"cut := OR(", b"cut := OR(SHAPE:_, "))
    for kind in ("missing", "dir", "fifo"):
        for command in ("check", "stats", "coverage"):
            argv = tuple(a.replace("{r}", "{w}/rules.kari") for a in RULE_COMMANDS[command])
            yield Case(f"rules.kari/{kind}/{command}", argv, "rules.kari", kind=kind)
    yield Case("rules/unknown-suffix", ("rules", "check", "{w}/notes.txt"))


def kb_file_cases() -> Iterator[Case]:
    files = {
        "views_kb.tsv": table_mutations(b"\t", None),
        "cskg_excerpt.tsv": table_mutations(b"\t", 4),
        "triples.csv": table_mutations(b",", 3),
        "aristo_readme_rows.tsv": table_mutations(b"\t", 6),
        "triples_headerless.tsv": {k: v for k, v in table_mutations(b"\t", None, header=False).items()
                                   if k not in ("truncated",)},
        "triples.jsonl": jsonl_mutations({"subject": {"a": 1}, "object": [1, 2], "weight": "heavy"},
                                         read_field="weight"),
        "views_kb.tsv.gz": gzip_mutations(),
    }
    for name, mutations in files.items():
        for index, (label, mutate) in enumerate(mutations.items()):
            for db in ("kb.duckdb", "new.duckdb")[index % 2: index % 2 + 1]:
                yield Case(f"kb/{name}/{label}/{db}", ("kb", "load", f"{{w}}/kb/{name}", "--db", f"{{w}}/{db}"),
                           f"kb/{name}", mutate)
    for kind in ("missing", "dir", "fifo"):
        yield Case(f"kb/views_kb.tsv/{kind}", ("kb", "load", "{w}/kb/views_kb.tsv", "--db", "{w}/kb.duckdb"),
                   "kb/views_kb.tsv", kind=kind)
    for label, tail in (("last-line-too-long", b"/c/en/x\t/r/IsA\t/c/en/" + b"y" * (17 * 2**20)),  # issue 28
                        ("long-line-then-newline", b"/c/en/x\t/r/IsA\t/c/en/" + b"y" * (17 * 2**20) + b"\n")):
        yield Case(f"kb/views_kb.tsv/{label}", ("kb", "load", "{w}/kb/views_kb.tsv", "--db", "{w}/kb.duckdb"),
                   "kb/views_kb.tsv", lambda d, rng, tail=tail: d + tail)
    yield Case("kb/unknown-header", ("kb", "load", "{w}/kb/views_kb.tsv", "--db", "{w}/kb.duckdb"),
               "kb/views_kb.tsv", lambda d, rng: b"id\tnode1\trel\tnode2\ne1\ta\tb\tc\n")


def database_cases() -> Iterator[Case]:
    for label, mutate in database_mutations().items():
        for command, argv in DB_COMMANDS.items():
            yield Case(f"db/{label}/{command}", argv, "kb.duckdb", mutate)
    for kind in ("missing", "dir", "fifo"):
        for command, argv in DB_COMMANDS.items():
            if kind == "missing" and command == "load":
                continue                          # kb load creates a missing database: that is its job
            yield Case(f"db/{kind}/{command}", argv, "kb.duckdb", kind=kind)
    not_kari = lambda d, rng: _duckdb_without_edges()  # noqa: E731
    for command in ("stats", "sql", "coverage", "induce"):
        yield Case(f"db/not-a-kari-kb/{command}", DB_COMMANDS[command], "kb.duckdb", not_kari)


def _duckdb_without_edges() -> bytes:
    import tempfile

    import duckdb

    with tempfile.TemporaryDirectory() as tmp:
        con = duckdb.connect(f"{tmp}/other.duckdb")
        con.execute("CREATE TABLE t AS SELECT 1 AS x")
        con.close()
        return Path(f"{tmp}/other.duckdb").read_bytes()


SQL = [
    "SELEC 1", "DELETE FROM edges", "DROP TABLE edges", "CREATE TABLE t AS SELECT 1",
    "ATTACH '{w}/kb.duckdb' AS again (READ_WRITE)", "COPY edges TO '{w}/leak.csv'",
    "EXPORT DATABASE '{w}/exported'", "SELECT * FROM read_csv('{w}/notes.txt')", "INSTALL httpfs", "LOAD httpfs",
    "SET threads = 1", "PRAGMA memory_limit = '1GB'", "SET enable_external_access = true", "SELECT $1",
    "SELECT 'unterminated", "SELECT \x00", "", "CALL dbgen(sf = 0.01)",
]


def sql_cases() -> Iterator[Case]:
    for number, query in enumerate(SQL):
        yield Case(f"sql/{number}", ("kb", "sql", query, "--db", "{w}/kb.duckdb"))


def _flip_success(record: dict) -> None:
    """A record whose success no longer agrees with its guess and target."""
    record["success"] = not record["success"]


def run_dir_cases() -> Iterator[Case]:
    play_again = ("play", "--bench", "{w}/bench", "-q", "fix20q", "-o", "{w}/run", "-n", "2")
    report = ("report", "{w}/run")
    wrong = {"success": "maybe", "turns": [{"turn": "one"}], "game": 7, "run": "first"}
    games = {k: v for k, v in jsonl_mutations(wrong, skip_header=True).items()
             if k not in ("truncated-line", "nul-escape")}   # resume's own checks: issue 21, another change
    games["cut-middle-line"] = lambda d, rng: (lambda lines: lines[0][: len(lines[0]) // 2] + b"\n" + b"".join(
        lines[1:]))(_lines(d))
    games["success-flipped"] = lambda d, rng: _with_line(d, rng, False, _record_change(_flip_success))  # issue 28
    for label, mutate in games.items():
        for command, argv in (("play", play_again), ("report", report)):
            yield Case(f"run/games.jsonl/{label}/{command}", argv, "run/games.jsonl", mutate)
    broken_json = {"truncated": lambda d, rng: d[: len(d) // 2], "huge-number": lambda d, rng: HUGE.encode(),
                   "deep-nesting": lambda d, rng: DEEP.encode(), "bad-utf8": lambda d, rng: b"\xff" + d,
                   "not-an-object": lambda d, rng: b"[1, 2]\n"}
    for name, commands in (("config.json", (("play", play_again), ("report", report))),
                           ("summary.json", (("report", report),))):
        for label, mutate in broken_json.items():
            for command, argv in commands:
                yield Case(f"run/{name}/{label}/{command}", argv, f"run/{name}", mutate)
    yield Case("run/not-a-run/report", ("report", "{w}/bench"))
    yield Case("run/missing/report", ("report", "{w}/nowhere"))


def question_cases() -> Iterator[Case]:
    argv = ("play", "-q", "fix20q", "--questions", "{w}/questions.tsv", "-o", "{w}/out", "-n", "1")
    mutations: dict[str, Mutation] = {
        "bad-utf8": lambda d, rng: d + b"SHAPE\t\xff\xfe\n",
        "truncated": _cut_before_last_delimiter(b"\t"),
        "nul": lambda d, rng: d + b"SHAPE\tfl\x00at\n",
        "unknown-dimension": lambda d, rng: d + b"COLOUR\tred\n",
        "empty": lambda d, rng: b"",
        "no-header": lambda d, rng: b"MATERIAL\tmetal\n",
    }
    for label, mutate in mutations.items():
        yield Case(f"questions/{label}", argv, "questions.tsv", mutate)
    for kind in ("missing", "dir", "fifo"):
        yield Case(f"questions/{kind}", argv, "questions.tsv", kind=kind)


def vocabulary_cases() -> Iterator[Case]:
    commands = {"check": ("rules", "check", "{w}/rules.kari", "--vocab", "{w}/vocab"),
                "play": ("play", "--vocab", "{w}/vocab", "-o", "{w}/out", "-n", "1")}
    mutations = {"bad-utf8": lambda d, rng: d + b"\xff\n", "truncated": _cut_before_last_delimiter(b"\t"),
                 "empty": lambda d, rng: b""}
    for name in ("values.tsv", "isa.tsv"):
        extra = {"isa-cycle": lambda d, rng: d + b"MADE_OF\tmaterial\tsteel\n"} if name == "isa.tsv" else {}
        for label, mutate in {**mutations, **extra}.items():
            for command, argv in commands.items():
                yield Case(f"vocab/{name}/{label}/{command}", argv, f"vocab/{name}", mutate)
    for command, argv in commands.items():
        yield Case(f"vocab/missing/{command}", argv, "vocab", kind="missing")


def option_cases() -> Iterator[Case]:
    db = ("--db", "{w}/kb.duckdb")
    play = ("play", "-o", "{w}/out", "-n", "1")
    induce = ("induce", "--bench", "{w}/bench", "--out", "{w}/out.kari", "-q")
    prompts = ("export-prompts", "--rules", "{w}/rules.kari", "--match", "exact", "--out", "{w}/out")
    lines = {
        "kb-sql-negative-rows": ("kb", "sql", "SELECT 1", "--max-rows", "-1", *db),
        "kb-sql-format": ("kb", "sql", "SELECT 1", "--format", "xml", *db),
        "kb-sql-rows-not-int": ("kb", "sql", "SELECT 1", "--max-rows", "many", *db),
        "kb-show-negative-limit": ("kb", "show", "knife", "--limit", "-5", *db),
        "kb-show-zero-limit": ("kb", "show", "knife", "--limit", "0", *db),
        "kb-show-unknown": ("kb", "show", "\x00unicorn", *db),
        "kb-load-format": ("kb", "load", "{w}/kb/views_kb.tsv", "--format", "rdf", *db),
        "kb-load-no-files": ("kb", "load", *db),
        "kb-load-lexicon": ("kb", "load", "{w}/kb/views_kb.tsv", "--lexicon", "{w}/notes.txt", *db),
        "kb-unknown-command": ("kb", "drop"),
        "unknown-option": ("rules", "check", "{w}/rules.kari", "--frobnicate"),
        "rules-fmt-to": ("rules", "fmt", "{w}/rules.kari", "--to", "yaml"),
        "rules-fmt-inplace-english": ("rules", "fmt", "-i", "{w}/rules.kari", "--to", "english"),
        "rules-compile-semantics": ("rules", "compile", "{w}/rules.kari", "--semantics", "loose"),
        "coverage-semantics": ("coverage", "--rules", "{w}/rules.kari", *db, "--semantics", "loose"),
        "coverage-no-rules": ("coverage", *db),
        "coverage-time-limit": ("coverage", "--rules", "{w}/rules.kari", *db, "--time-limit", "0"),
        "induce-backend": (*induce, "--llm", "magic"),
        "induce-negatives": (*induce, "--negatives", "some"),
        "induce-max-atoms": (*induce, "--max-atoms", "0"),
        "induce-limit": (*induce, "--limit", "0"),
        "induce-min-precision": (*induce, "--min-precision", "2"),
        "induce-unknown-affordance": (*induce, "--affordance", "fly_to_the_moon"),
        "induce-no-input": ("induce", "--out", "{w}/out.kari"),
        "induce-db-is-a-folder": ("induce", "--bench", "{w}/bench", "--db", "{w}", "--out", "{w}/out.kari"),
        "induce-jsonl-out": ("induce", "--bench", "{w}/bench", "--out", "{w}/out.jsonl"),
        "induce-openai-no-model": (*induce, "--llm", "openai", "--base-url", "http://127.0.0.1:9/v1"),
        "induce-llm-timeout": (*induce, "--llm-timeout", "0"),
        "induce-llm-attempts": (*induce, "--llm-attempts", "0"),
        "play-questioner": (*play, "-q", "nobody"),
        "play-rules-without-file": (*play, "-q", "rules"),
        "play-games": ("play", "-o", "{w}/out", "--games", "0"),
        "play-runs": (*play, "--runs", "0"),
        "play-budget": (*play, "--budget", "0"),
        "play-reps": (*play, "--reps", "0"),
        "play-game-id": (*play, "--game", "nope"),
        "play-softmax-temperature": (*play, "-q", "fix20q", "--softmax-temperature", "0"),
        "play-match": (*play, "--rules", "{w}/rules.kari", "--match", "fuzzy"),
        "play-top-k": (*play, "--rules", "{w}/rules.kari", "--match", "exact", "--top-k", "0"),
        "play-oracle": (*play, "--oracle", "psychic"),
        "play-checker": (*play, "--checker", "lenient"),
        "play-llm-without-model": (*play, "-q", "llm"),
        "play-llm-attempts": (*play, "--llm-attempts", "0"),
        "play-llm-timeout": (*play, "--llm-timeout", "-1"),
        "play-base-url-newline": (*play, "-q", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1\n"),
        "play-base-url-no-scheme": (*play, "-q", "llm", "--model", "m", "--base-url", "127.0.0.1:9"),
        "induce-base-url-newline": (*induce, "--llm", "openai", "--model", "m", "--base-url", "http://h:9/v1\nx"),
        "play-max-tokens": (*play, "-q", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--max-tokens",
                            "0"),
        "play-bench-missing": ("play", "--bench", "{w}/nowhere", "-o", "{w}/out"),
        "report-nothing": ("report",),
        "report-format": ("report", "{w}/run", "--format", "xml"),
        "report-resamples": ("report", "{w}/run", "--resamples", "0"),
        "report-html-without-out": ("report", "{w}/run", "--html"),
        "explain-no-objects": ("explain", "cut", "knife", "--rules", "{w}/rules.kari"),
        "explain-rule-and-rules": ("explain", "cut", "knife", "--rules", "{w}/rules.kari", "--rule", "SHAPE:flat",
                                   *db),
        "explain-no-rule": ("explain", "cut", "knife", *db),
        "explain-unknown-object": ("explain", "cut", "unicorn", "--rules", "{w}/rules.kari", *db),
        "explain-unknown-affordance": ("explain", "fly", "knife", "--rules", "{w}/rules.kari", *db),
        "explain-semantics": ("explain", "cut", "knife", "--rules", "{w}/rules.kari", *db, "--semantics", "loose"),
        "explain-bad-rule": ("explain", "cut", "knife", "--rule", "AND(SHAPE:flat", *db),
        "explain-unknown-predicate": ("explain", "cut", "knife", "--rule", "COLOUR:red", *db),
        "explain-vocab-and-db": ("explain", "cut", "knife", "--rule", "SHAPE:flat", *db, "--vocab", "{w}/vocab"),
        "prompts-top-k": (*prompts, "--top-k", "0"),
        "prompts-match": ("export-prompts", "--rules", "{w}/rules.kari", "--match", "fuzzy", "--out", "{w}/out"),
        "prompts-games": (*prompts, "--games", "0"),
        "pipeline-questioner": ("pipeline", "--out", "{w}/out", "-q", "nonsense"),
        "pipeline-online-questioner": ("pipeline", "--out", "{w}/out", "-q", "llm"),
        "pipeline-games": ("pipeline", "--out", "{w}/out", "-n", "0"),
        "pipeline-kb-missing": ("pipeline", "--out", "{w}/out", "--kb", "{w}/nowhere.tsv"),
        "bench-build-games": ("bench", "build", "{w}/bench", "-o", "{w}/g.jsonl", "--games", "0"),
        "bench-build-min-positives": ("bench", "build", "{w}/bench", "-o", "{w}/g.jsonl", "--min-positives", "0"),
        "bench-build-no-eligible": ("bench", "build", "{w}/bench", "-o", "{w}/g.jsonl", "--min-positives", "100000"),
        "bench-validate-file": ("bench", "validate", "{w}/notes.txt"),
        "bench-validate-missing": ("bench", "validate", "{w}/nowhere"),
        "vocab-predicate": ("vocab", "--predicate", "COLOUR"),
        "vocab-db-missing": ("vocab", "--db", "{w}/nowhere.duckdb"),
        "vocab-both-sources": ("vocab", "--db", "{w}/kb.duckdb", "--vocab", "{w}"),
        "vocab-bench-missing": ("vocab", "--bench", "{w}/nowhere"),
        "bench-show-missing": ("bench", "show", "{w}/nowhere"),
        "bench-show-file": ("bench", "show", "{w}/notes.txt"),
        "llm-serve-model-missing": ("llm", "serve", "--model-file", "{w}/nowhere.gguf"),
        "llm-serve-not-gguf": ("llm", "serve", "--model-file", "{w}/notes.txt"),
        "llm-serve-port": ("llm", "serve", "--port", "0"),
        "serve-mode": (*SERVE, "--mode", "nonsense"),
        "serve-per-game": (*SERVE, "--participants", "2", "--per-game", "3"),
        "serve-too-few-plays": (*SERVE, "--participants", "1000", "--games", "1"),
        "serve-oracle-questioner": (*SERVE, "--mode", "oracle", "--questioner", "optimal"),
        "serve-questioner-mode-questioner": (*SERVE, "--questioner", "greedy-ig"),
        "serve-consent-missing": (*SERVE, "--consent", "{w}/nowhere.txt"),
        "serve-consent-not-utf8": (*SERVE, "--consent", "{w}/kb.duckdb"),
        "serve-bench-missing": ("serve", "--out", "{w}/study", "--bench", "{w}/nowhere"),
        "serve-out-is-a-play-run": ("serve", "--out", "{w}/run", "--bench", "{w}/bench"),
        "serve-export-not-a-study": ("serve", "--out", "{w}/run", "--export", "{w}/exported"),
        "serve-export-no-run": ("serve", "--out", "{w}/nowhere", "--export", "{w}/exported"),
        "serve-host": (*SERVE, "--host", "256.1.1.1"),
    }
    for name, argv in lines.items():
        yield Case(f"option/{name}", argv)


def output_kind_cases() -> Iterator[Case]:
    """Outputs that exist as the wrong kind of thing: each is refused before any work and left as it was."""
    file_outputs = {
        "kb-export": ("kb", "export", "{o}", "--db", "{w}/kb.duckdb"),
        "bench-build": ("bench", "build", "{w}/bench", "-o", "{o}"),
        "induce-out": ("induce", "--bench", "{w}/bench", "--out", "{o}", "-q"),
    }
    for command, argv in file_outputs.items():
        for kind, target in (("dir", "out.kari"), ("fifo", "out.kari"), ("db", "out.kari"),
                             ("under-a-file", "notes.txt/out.kari")):
            resolved = tuple(a.replace("{o}", f"{{w}}/{target}") for a in argv)
            yield Case(f"output/{command}/{kind}", resolved, None if kind == "under-a-file" else target,
                       kind=None if kind == "under-a-file" else kind)
    yield Case("output/kb-export/the-database", ("kb", "export", "{w}/kb.duckdb", "--db", "{w}/kb.duckdb"))
    yield Case("output/bench-build/the-bench", ("bench", "build", "{w}/bench", "-o", "{w}/bench"))
    dir_outputs = {
        "play": ("play", "-o", "{o}", "-n", "1"),
        "report": ("report", "{w}/run", "-o", "{o}"),
        "export-prompts": ("export-prompts", "--rules", "{w}/rules.kari", "--match", "exact", "--out", "{o}"),
        "pipeline": ("pipeline", "--out", "{o}", "-n", "1"),
        "induce-run-dir": ("induce", "--bench", "{w}/bench", "--out", "{w}/out.kari", "--run-dir", "{o}", "-q"),
    }
    for command, argv in dir_outputs.items():
        for kind, target in (("file", "notes.txt"), ("fifo", "out"), ("under-a-file", "notes.txt/out")):
            resolved = tuple(a.replace("{o}", f"{{w}}/{target}") for a in argv)
            yield Case(f"output/{command}/{kind}", resolved, "out" if kind == "fifo" else None,
                       kind="fifo" if kind == "fifo" else None)
    yield Case("output/report/report.md-is-a-dir", ("report", "{w}/run", "-o", "{w}/rep"), "rep/report.md",
               kind="dir")
    for kind in ("dir", "fifo"):
        yield Case(f"output/coverage-explain/{kind}", ("coverage", "--rules", "{w}/rules.kari", "--db",
                                                        "{w}/kb.duckdb", "--explain", "{w}/proofs.jsonl"),
                   "proofs.jsonl", kind=kind)
        yield Case(f"output/report-html/{kind}", ("report", "{w}/run", "-o", "{w}/rep", "--html"),
                   "rep/report.html", kind=kind)
        yield Case(f"output/kb-load-db/{kind}", ("kb", "load", "{w}/kb/views_kb.tsv", "--db", "{w}/x.duckdb"),
                   "x.duckdb", kind=kind)
        yield Case(f"output/coverage-db/{kind}", ("coverage", "--rules", "{w}/rules.kari", "--db", "{w}/x.duckdb"),
                   "x.duckdb", kind=kind)


CB_SOLVE = ("creativity", "solve", "--tasks", "{w}/cb/tasks.jsonl", "--rules", "{w}/cb/rules.kari", "-o", "{w}/out",
            "--goal", "lexical", "--quiet")
CB_LOAD = ("creativity", "load", "{w}/cb/entities.jsonl", "{w}/cb/tasks.jsonl")
CB_JUDGE = ("creativity", "judge", "{w}/cb/run", "--quiet", "--judge", "symbolic")
CB_SCORE = ("creativity", "score", "{w}/cb/outputs.json", "--tasks", "{w}/cb/tasks.jsonl")
OUTPUTS_MUTATIONS: dict[str, Mutation] = {
    "empty": lambda d, rng: b"",
    "cut": lambda d, rng: d[: len(d) // 2],
    "an-array": lambda d, rng: b"[" + d + b"]",
    "samples-not-a-list": lambda d, rng: json.dumps({k: 3 for k in json.loads(d)}).encode(),
    "bad-utf8": lambda d, rng: d[:5] + b"\xff" + d[5:],
    "huge-number": lambda d, rng: d[:-2] + b', "x": ' + HUGE.encode() + b"}\n",
}


def creativity_cases() -> Iterator[Case]:
    """kari creativity load / solve on broken task and entity files, bad options and wrong output kinds."""
    files = {
        "tasks.jsonl": (jsonl_mutations({"task_id": 7, "entities": "scene", "golds": [1], "task": ["x"]}),
                        {"solve": CB_SOLVE, "load": (*CB_LOAD, "--db", "{w}/kb.duckdb"),
                         "load-new-db": (*CB_LOAD, "--db", "{w}/new.duckdb")}),
        "entities.jsonl": (jsonl_mutations({"entity_name": ["x"], "parts": {"a": 1}}),
                           {"load": (*CB_LOAD, "--db", "{w}/kb.duckdb"),
                            "load-new-db": (*CB_LOAD, "--db", "{w}/new.duckdb")}),
    }
    for name, (mutations, commands) in files.items():
        mutations = {**mutations, "empty": lambda d, rng: b"", "array-cut": lambda d, rng: b"[" + d[: len(d) // 2]}
        for index, (label, mutate) in enumerate(mutations.items()):
            for command, argv in spread(index, commands, every=2).items():
                yield Case(f"creativity/{name}/{label}/{command}", argv, f"cb/{name}", mutate)
        for kind in ("missing", "dir", "fifo"):
            command, argv = next(iter(commands.items()))
            yield Case(f"creativity/{name}/{kind}/{command}", argv, f"cb/{name}", kind=kind)
    options = {
        "solver": (*CB_SOLVE, "--solver", "oracle"),
        "goal": (*CB_SOLVE, "--goal", "psychic"),
        "goal-threshold": (*CB_SOLVE, "--goal-threshold", "2"),
        "llm-no-model": (*CB_SOLVE, "--solver", "llm"),
        "llm-goal-no-model": (*CB_SOLVE, "--goal", "llm"),
        "limit": (*CB_SOLVE, "-n", "0"),
        "max-tokens": (*CB_SOLVE, "--solver", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                       "--max-tokens", "0"),
        "db-missing": (*CB_SOLVE, "--db", "{w}/nowhere.duckdb"),
        "db-not-kari": (*CB_SOLVE, "--db", "{w}/notes.txt"),
        "rules-not-rules": ("creativity", "solve", "--tasks", "{w}/cb/tasks.jsonl", "--rules", "{w}/notes.txt",
                            "-o", "{w}/out"),
        "rules-broken": ("creativity", "solve", "--tasks", "{w}/cb/tasks.jsonl", "--rules", "{w}/rules.kari",
                         "-o", "{w}/out"),
        "affordances-missing": (*CB_SOLVE, "--affordances", "{w}/nowhere.jsonl"),
        "load-no-files": ("creativity", "load", "--db", "{w}/kb.duckdb"),
        "load-db-is-a-folder": (*CB_LOAD, "--db", "{w}/cb"),
        "judge-no-run-dir": ("creativity", "judge"),
        "judge-not-a-run": (*CB_JUDGE[:2], "{w}/cb", *CB_JUDGE[3:]),
        "judge-method": (*CB_JUDGE[:-2], "--judge", "psychic"),
        "judge-llm-no-model": CB_JUDGE[:3],
        "judge-limit": (*CB_JUDGE, "-n", "0"),
        "judge-max-tokens": (*CB_JUDGE, "--max-tokens", "0"),
        "judge-entities-missing": (*CB_JUDGE, "--entities", "{w}/nowhere.json"),
        "judge-entities-not-entities": (*CB_JUDGE, "--entities", "{w}/cb/tasks.jsonl"),
        "judge-db-not-kari": (*CB_JUDGE, "--db", "{w}/notes.txt"),
        "score-no-tasks": ("creativity", "score", "{w}/cb/outputs.json"),
        "score-tasks-missing": (*CB_SCORE[:3], "--tasks", "{w}/nowhere.json"),
        "score-tasks-are-entities": (*CB_SCORE[:3], "--tasks", "{w}/cb/entities.jsonl"),
        "score-input-is-a-task-file": ("creativity", "score", "{w}/cb/tasks.jsonl", *CB_SCORE[3:]),
        "solve-mode": (*CB_SOLVE, "--solver", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                       "--mode", "dream"),
        "solve-temperature": (*CB_SOLVE, "--solver", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                              "--temperature", "9"),
        "solve-symbolic-mode": (*CB_SOLVE, "--mode", "cot"),
        "solve-max-turns": (*CB_SOLVE, "--solver", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                            "--mode", "interactive", "--max-turns", "0"),
    }
    for name, argv in options.items():
        yield Case(f"option/creativity-{name}", argv, "rules.kari" if name == "rules-broken" else None,
                   (lambda d, rng: b"cut := AND(\n") if name == "rules-broken" else None)
    for kind, target in (("file", "notes.txt"), ("fifo", "out"), ("under-a-file", "notes.txt/out")):
        argv = tuple(a.replace("{w}/out", f"{{w}}/{target}") for a in CB_SOLVE)
        yield Case(f"output/creativity-solve/{kind}", argv, "out" if kind == "fifo" else None,
                   kind="fifo" if kind == "fifo" else None)
    for kind in ("dir", "fifo"):
        yield Case(f"output/creativity-load-db/{kind}", (*CB_LOAD, "--db", "{w}/x.duckdb"), "x.duckdb", kind=kind)
    for label, mutate in OUTPUTS_MUTATIONS.items():
        yield Case(f"creativity/outputs.json/{label}/score", CB_SCORE, "cb/outputs.json", mutate)
    for kind in ("missing", "dir", "fifo"):
        yield Case(f"creativity/outputs.json/{kind}/score", CB_SCORE, "cb/outputs.json", kind=kind)
    for index, (label, mutate) in enumerate(jsonl_mutations({"samples": "x", "task_id": 3, "goal": []}).items()):
        yield Case(f"creativity/answers.jsonl/{label}/judge", CB_JUDGE, "cb/run/answers.jsonl", mutate)
    yield Case("creativity/run-config/garbage/judge", CB_JUDGE, "cb/run/config.json", lambda d, rng: b"{nope")
    yield Case("creativity/run-config/missing/judge", CB_JUDGE, "cb/run/config.json", kind="missing")
    for kind, target in (("file", "notes.txt"), ("under-a-file", "notes.txt/out")):
        yield Case(f"output/creativity-score/{kind}", (*CB_SCORE, "-o", f"{{w}}/{target}"))


SERVE = ("serve", "--out", "{w}/study", "--bench", "{w}/bench")
"""``kari serve`` on the world's benchmark: every case of it fails before a server starts."""

# A valid command line for every command; numeric_option_cases appends one bad number to it.
BASE_ARGV: dict[tuple[str, ...], tuple[str, ...]] = {
    ("kb", "load"): ("kb", "load", "{w}/kb/views_kb.tsv", "--db", "{w}/kb.duckdb"),
    ("kb", "stats"): DB_COMMANDS["stats"], ("kb", "sql"): DB_COMMANDS["sql"], ("kb", "show"): DB_COMMANDS["show"],
    ("kb", "export"): DB_COMMANDS["export"],
    ("vocab",): ("vocab",), ("bench", "show"): ("bench", "show", "{w}/bench"),
    ("bench", "validate"): BENCH_COMMANDS["validate"], ("bench", "build"): BENCH_COMMANDS["build"],
    ("rules", "check"): ("rules", "check", "{w}/rules.kari"), ("rules", "fmt"): ("rules", "fmt", "{w}/rules.kari"),
    ("rules", "stats"): ("rules", "stats", "{w}/rules.kari"),
    ("rules", "compile"): ("rules", "compile", "{w}/rules.kari"),
    ("coverage",): DB_COMMANDS["coverage"], ("induce",): BENCH_COMMANDS["induce"],
    ("play",): BENCH_COMMANDS["play"], ("report",): ("report", "{w}/run"),
    ("export-prompts",): BENCH_COMMANDS["export-prompts"], ("pipeline",): BENCH_COMMANDS["pipeline"],
    ("llm", "serve"): ("llm", "serve", "--model-file", "{w}/nowhere.gguf"),
    ("creativity", "load"): (*CB_LOAD, "--db", "{w}/kb.duckdb"), ("creativity", "solve"): CB_SOLVE,
    ("creativity", "judge"): CB_JUDGE, ("creativity", "score"): CB_SCORE, ("explain",): BENCH_COMMANDS["explain"],
    ("creativity", "compare"): ("creativity", "compare", "{w}/run", "{w}/run"),
    ("serve",): SERVE,
}


def cli_params() -> Iterator[tuple[tuple[str, ...], object]]:
    """(command path, parameter) of every parameter of every command of the CLI."""
    from typer.main import get_command

    from kari.cli import app

    def leaves(command: object, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], object]]:
        children = getattr(command, "commands", None)
        if not children:
            yield prefix, command
            return
        for name, child in children.items():
            yield from leaves(child, (*prefix, name))

    for path, command in leaves(get_command(app)):
        for param in command.params:  # type: ignore[attr-defined]
            yield path, param


def _numeric_options() -> Iterator[tuple[tuple[str, ...], str, type, int | None]]:
    """(command path, option, int or float, its lower bound) for every numeric option of the CLI."""
    for path, param in cli_params():
        kind = getattr(getattr(param, "type_descriptor", None), "annotation", None)
        if kind in (int, float) and param.opts[0].startswith("--"):  # type: ignore[attr-defined]
            yield path, param.opts[0], kind, getattr(param, "min", None)  # type: ignore[attr-defined]


def numeric_option_cases() -> Iterator[Case]:
    """Huge counts, negative counts and non-finite numbers for every numeric option of every command (issue 21:
    --runs 100000000 grew memory before the first game, --softmax-temperature nan was an internal error)."""
    for path, option, kind, low in _numeric_options():
        values = ["9" * 25] + (["-1"] if low is not None and low >= 0 else []) if kind is int else ["nan", "inf",
                                                                                                     "-inf"]
        for value in values:
            yield Case(f"number/{'-'.join(path)}/{option}/{value[:6]}", (*BASE_ARGV[path], option, value))


def not_duckdb_cases() -> Iterator[Case]:
    """--db naming an existing file that is not a DuckDB database (DuckDB opened a CSV as an empty in-memory
    database and reported new edges; an SQLite file made it try to download an extension)."""
    files = {"csv": b"a,b\n1,2\n", "json": b'[{"a": 1}]\n', "csv.gz": gzip.compress(b"a,b\n1,2\n", mtime=0),
             "sqlite": b"SQLite format 3\x00" + bytes(84), "parquet": b"PAR1" + bytes(60) + b"PAR1"}
    commands = {"kb-load": ("kb", "load", "{w}/kb/views_kb.tsv", "--db", "{w}/x.db"),
                "kb-stats": ("kb", "stats", "--db", "{w}/x.db"), "vocab": ("vocab", "--db", "{w}/x.db"),
                "coverage": ("coverage", "--rules", "{w}/rules.kari", "--bench", "{w}/bench", "--db", "{w}/x.db"),
                "induce": ("induce", "--bench", "{w}/bench", "--db", "{w}/x.db", "--out", "{w}/out.kari", "-q"),
                "creativity-load": (*CB_LOAD, "--db", "{w}/x.db"),
                "rules-check": ("rules", "check", "{w}/rules.kari", "--db", "{w}/x.db")}
    for index, (kind, data) in enumerate(files.items()):
        for command, argv in spread(index, commands, every=2).items():
            yield Case(f"db-not-duckdb/{kind}/{command}", argv, "x.db", lambda d, rng, data=data: data)


def output_is_input_cases() -> Iterator[Case]:
    """An output that is one of the command's own inputs is refused before any work (issue 21:
    export-prompts --rules OUT/prompts.jsonl --out OUT overwrote its rules; induce --out B/objects.kari wrote
    B/objects.jsonl over the benchmark's file)."""
    lines = {
        "export-prompts-rules-in-out": ("export-prompts", "--rules", "{w}/run/prompts.jsonl", "--match", "exact",
                                        "--out", "{w}/run", "-n", "1"),
        "export-prompts-rules-are-coverage": ("export-prompts", "--rules", "{w}/run/coverage.json", "--match",
                                              "exact", "--out", "{w}/run", "-n", "1"),
        "induce-jsonl-over-objects": ("induce", "--bench", "{w}/bench", "--out", "{w}/bench/objects.kari", "-q"),
        "induce-jsonl-over-labels": ("induce", "--bench", "{w}/bench", "--out", "{w}/bench/labels.kari", "-q"),
        "induce-out-is-the-db": ("induce", "--bench", "{w}/bench", "--db", "{w}/kb.duckdb", "--out", "{w}/kb.duckdb",
                                 "-q"),
        "bench-build-over-objects": ("bench", "build", "{w}/bench", "-o", "{w}/bench/objects.jsonl"),
        "bench-build-over-labels": ("bench", "build", "{w}/bench", "-o", "{w}/bench/labels.jsonl"),
        "kb-export-over-the-db": ("kb", "export", "{w}/kb.duckdb", "--db", "{w}/kb.duckdb"),
        "play-out-is-the-bench": ("play", "--bench", "{w}/bench", "-q", "fix20q", "-o", "{w}/bench", "-n", "1"),
        "play-questions-are-the-config": ("play", "-q", "fix20q", "--questions", "{w}/run/config.json", "-o", "{w}/run",
                                          "-n", "1"),
        "creativity-tasks-are-the-answers": ("creativity", "solve", "--tasks", "{w}/cb/answers.jsonl", "--rules",
                                             "{w}/cb/rules.kari", "-o", "{w}/cb", "--quiet"),
    }
    targets = {"export-prompts-rules-in-out": ("run/prompts.jsonl", _one_rule),
               "export-prompts-rules-are-coverage": ("run/coverage.json", _one_rule),
               "creativity-tasks-are-the-answers": ("cb/answers.jsonl", _two_tasks)}
    for name, argv in lines.items():
        target, mutate = targets.get(name, (None, None))
        yield Case(f"output-is-input/{name}", argv, target, mutate)


def _one_rule(data: bytes, rng: random.Random) -> bytes:
    return b'{"affordance": "cut", "rule": "SHAPE:sharp_edge"}\n'


def _two_tasks(data: bytes, rng: random.Random) -> bytes:
    from kari.creativity.records import read_records

    tasks = [r.data for r in read_records(asset_path("data", "creativity", "tasks.json"))][:2]
    return "".join(json.dumps(t) + "\n" for t in tasks).encode()


BAD_SHARDS = {"zero": "0/3", "past-n": "4/3", "of-zero": "1/0", "letters": "a/b", "huge": f"1/{HUGE}",
              "too-many": "1/999999999", "negative": "-1/3", "no-slash": "3", "three-parts": "1/3/5", "empty": "",
              "nul": "1\x00/3"}
SHARDS = ("{w}/shard1", "{w}/shard2")


def shard_cases() -> Iterator[Case]:
    """--shard K/N values that are no shard, kari merge over shards that do not form one run (or an --out it
    may not write), and induce --fold without its --cv or outside it: one line each, nothing written."""
    for label, value in BAD_SHARDS.items():
        yield Case(f"shard/{label}/play", (*BENCH_COMMANDS["play"], "--shard", value))
        yield Case(f"shard/{label}/creativity-solve", (*CB_SOLVE, "--shard", value))
    yield Case("shard/interactive", ("play", "--interactive", "--shard", "1/2", "-o", "{w}/out"))
    merge = ("merge", *SHARDS, "--out", "{w}/merged")
    lines = {
        "no-dirs": ("merge", "--out", "{w}/merged"),
        "no-dirs-no-out": ("merge",),
        "no-out": ("merge", *SHARDS),
        "a-shard-missing": ("merge", SHARDS[0], "--out", "{w}/merged"),
        "a-shard-twice": ("merge", SHARDS[0], SHARDS[0], SHARDS[1], "--out", "{w}/merged"),
        "not-a-shard": ("merge", *SHARDS, "{w}/run", "--out", "{w}/merged"),
        "not-a-run": ("merge", *SHARDS, "{w}/bench", "--out", "{w}/merged"),
        "nowhere": ("merge", *SHARDS, "{w}/nowhere", "--out", "{w}/merged"),
        "a-file": ("merge", *SHARDS, "{w}/notes.txt", "--out", "{w}/merged"),
        "play-and-creativity": ("merge", *SHARDS, "{w}/cb/run", "--out", "{w}/merged"),
        "out-is-a-shard": ("merge", *SHARDS, "--out", SHARDS[1]),
        "out-is-a-file": ("merge", *SHARDS, "--out", "{w}/notes.txt"),
        "out-not-empty": ("merge", *SHARDS, "--out", "{w}/bench"),
        "out-under-a-file": ("merge", *SHARDS, "--out", "{w}/notes.txt/merged"),
    }
    for name, argv in lines.items():
        yield Case(f"merge/{name}", argv)
    yield Case("merge/out-is-a-fifo", merge, "merged", kind="fifo")
    log = {k: v for k, v in jsonl_mutations({"game": 7, "run": "first"}).items() if k != "truncated-line"}
    log["duplicated-record"] = lambda d, rng: d + d.splitlines(keepends=True)[0]
    log["success-flipped"] = lambda d, rng: _with_line(d, rng, False, _record_change(_flip_success))  # issue 28
    for label, mutate in log.items():
        yield Case(f"merge/games.jsonl/{label}", merge, "shard2/games.jsonl", mutate)
    for label, mutate in (("garbage", lambda d, rng: b"{nope"), ("other-shard", lambda d, rng: d.replace(
            b'"shard": "2/2"', b'"shard": "1/2"')), ("other-seed", lambda d, rng: d.replace(b'"seed": 0', b'"seed": 1'))):
        yield Case(f"merge/config.json/{label}", merge, "shard2/config.json", mutate)
    for name in ("shard1", "shard2"):      # issue 28: configs that name another questioner than the records
        yield Case(f"merge/config.json/other-questioner/{name}", merge, f"{name}/config.json",
                   lambda d, rng: d.replace(b'"questioner": "fix20q"', b'"questioner": "random"'))
    yield Case("merge/plan.json/missing", merge, "shard2/plan.json", kind="missing")
    yield Case("merge/config.json/missing", merge, "shard2/config.json", kind="missing")
    induce = ("induce", "--bench", "{w}/bench", "--out", "{w}/out.kari", "-q")
    for name, extra in (("without-cv", ("--fold", "0")), ("past-k", ("--cv", "3", "--fold", "3")),
                        ("negative", ("--cv", "3", "--fold", "-1")), ("not-a-number", ("--cv", "3", "--fold", "a"))):
        yield Case(f"fold/{name}", (*induce, *extra))


# Every command with an option that writes: a command line giving each of its outputs a new name (under
# {w}/new/) and each input it can read; the generator below puts outputs over inputs and over each other.
WRITERS: dict[tuple[str, ...], tuple[tuple[str, ...], dict[str, str]]] = {
    ("kb", "load"): (("kb", "load", "{w}/kb/views_kb.tsv", "{w}/kb/triples.csv", "--db", "{w}/new/kb.duckdb"),
                     {"--db": "{w}/new/kb.duckdb"}),
    ("kb", "export"): (("kb", "export", "{w}/new/out.tsv", "--db", "{w}/kb.duckdb"), {"out": "{w}/new/out.tsv"}),
    ("bench", "build"): (("bench", "build", "{w}/bench", "-o", "{w}/new/games.jsonl"), {"--out": "{w}/new/games.jsonl"}),
    ("coverage",): (("coverage", "--rules", "{w}/rules.kari", "--db", "{w}/new/cov.duckdb", "--bench", "{w}/bench",
                     "--match", "exact", "--explain", "{w}/new/proofs.jsonl", "--ledger", "{w}/new/ledger.csv"),
                    {"--db": "{w}/new/cov.duckdb", "--explain": "{w}/new/proofs.jsonl",
                     "--ledger": "{w}/new/ledger.csv"}),
    ("play",): (("play", "-q", "fix20q", "--bench", "{w}/bench", "--rules", "{w}/rules.kari", "--match", "exact",
                 "--questions", "{w}/questions.tsv", "--vocab", "{w}/vocab", "-n", "1", "-o", "{w}/new/run"),
                {"--out": "{w}/new/run"}),
    ("report",): (("report", "{w}/run", "--rules", "{w}/rules.kari", "--bench", "{w}/bench", "--db", "{w}/kb.duckdb",
                   "-o", "{w}/new/report"), {"--out": "{w}/new/report"}),
    ("export-prompts",): (("export-prompts", "--rules", "{w}/rules.kari", "--bench", "{w}/bench", "--match", "exact",
                           "-n", "1", "--out", "{w}/new/prompts"), {"--out": "{w}/new/prompts"}),
    ("induce",): (("induce", "--bench", "{w}/bench", "--db", "{w}/new/ind.duckdb", "--out", "{w}/new/rules.kari",
                   "--run-dir", "{w}/new/rules.run", "--cv", "2", "-q"),
                  {"--out": "{w}/new/rules.kari", "--db": "{w}/new/ind.duckdb", "--run-dir": "{w}/new/rules.run"}),
    ("merge",): (("merge", "{w}/shard1", "{w}/shard2", "--out", "{w}/new/merged"), {"--out": "{w}/new/merged"}),
    ("pipeline",): (("pipeline", "--kb", "{w}/kb/views_kb.tsv", "--bench", "{w}/bench", "-n", "1", "--out",
                     "{w}/new/pipe"), {"--out": "{w}/new/pipe"}),
    ("creativity", "load"): (("creativity", "load", "{w}/cb/entities.jsonl", "{w}/cb/tasks.jsonl", "--db",
                              "{w}/new/cb.duckdb"), {"--db": "{w}/new/cb.duckdb"}),
    ("creativity", "solve"): (("creativity", "solve", "--tasks", "{w}/cb/tasks.jsonl", "--rules", "{w}/cb/rules.kari",
                               "--goal", "lexical", "--quiet", "-o", "{w}/new/solve"), {"--out": "{w}/new/solve"}),
    ("creativity", "judge"): (("creativity", "judge", "{w}/cb/run", "--judge", "symbolic", "--entities",
                               "{w}/cb/entities.jsonl", "--quiet"), {"run_dir": "{w}/cb/run"}),
    ("creativity", "score"): (("creativity", "score", "{w}/cb/outputs.json", "--tasks", "{w}/cb/tasks.jsonl", "-o",
                               "{w}/new/scores"), {"--out": "{w}/new/scores"}),
}
OVERLAP_CODES = ("output-is-input", "outputs-collide", "output-kind")
ALSO_REFUSED = {("creativity", "judge"): ("creativity-config",)}
"""Other refusals of an overlap: a file given as the judge's run directory is read as a runner output file of the
benchmark, which needs --tasks and --out (so nothing is written over it)."""


def _folder_writes() -> dict[tuple[tuple[str, ...], str], tuple[str, ...]]:
    """The names each folder output writes, as the commands declare them."""
    from kari.creativity.judge import JUDGE_CONFIG_FILE, JUDGE_SUMMARY_FILE, JUDGEMENTS_FILE
    from kari.creativity.run import ANSWER_LOG
    from kari.creativity.scoring import SCORES_FILE
    from kari.core.game_names import RUN_PLOTS
    from kari.core.game_records import GAMES_FILE
    from kari.report.writer import report_output
    from kari.report.inputs import ReportOptions
    from kari.game.run import GAME_LOG
    from kari.induce.rundir import RunDir
    from kari.io.plan import PLAN_FILE
    from kari.io.runlog import CONFIG_FILE, SUMMARY_FILE
    from kari.io.runloop import run_files
    from kari.pipeline import PIPELINE_DB, PIPELINE_WRITES

    return {(("play",), "--out"): run_files(GAME_LOG, RUN_PLOTS),
            (("report",), "--out"): report_output("r", ReportOptions()).names,
            (("export-prompts",), "--out"): ("prompts/", "prompts.jsonl", "coverage.json"),
            (("induce",), "--run-dir"): RunDir.NAMES,
            (("merge",), "--out"): (CONFIG_FILE, PLAN_FILE, GAMES_FILE),
            (("pipeline",), "--out"): (*PIPELINE_WRITES, PIPELINE_DB),
            (("creativity", "solve"), "--out"): run_files(ANSWER_LOG),
            (("creativity", "judge"), "run_dir"): (JUDGEMENTS_FILE, JUDGE_CONFIG_FILE, JUDGE_SUMMARY_FILE),
            (("creativity", "score"), "--out"): (SCORES_FILE, SUMMARY_FILE)}


def _output_params() -> Iterator[tuple[tuple[str, ...], str, str]]:
    """(command path, option or argument name, kind) of every parameter marked as an output
    (:func:`kari.cli.options.output`)."""
    from kari.cli.options import OutputPath

    for path, param in cli_params():
        info = getattr(getattr(param, "type_descriptor", None), "parameter_info", None)
        marker = getattr(info, "parser", None)
        if isinstance(marker, OutputPath):
            opts = param.opts  # type: ignore[attr-defined]
            yield path, opts[0] if opts[0].startswith("--") else param.name, marker.kind  # type: ignore[attr-defined]


NOT_READ = {("bench", "build"): {"bench/games.jsonl"}}
"""Files of an input folder a command does not read (bench build writes the games it samples)."""
FOLDER_FILES = {"bench": BENCH_FILES, "vocab": ("values.tsv", "isa.tsv", "synonyms.tsv", "banned.tsv"),
                "run": ("config.json", "summary.json", "games.jsonl", "plan.json"),
                "shard1": ("config.json", "plan.json", "games.jsonl"), "shard2": ("config.json", "plan.json", "games.jsonl")}
TWINS = {"rules.kari": "rules.jsonl"}
"""The .kari files of the world with a metadata twin beside them."""


def _world_inputs(command: tuple[str, ...], argv: tuple[str, ...], outputs: dict[str, str]) -> list[str]:
    """The files of the template world a command line reads: each ``{w}/...`` argument that is not an output,
    a folder as its files, a .kari file with the .jsonl twin beside it."""
    found: list[str] = []
    for arg in argv:
        if not arg.startswith("{w}/") or arg in outputs.values():
            continue
        rel = arg[len("{w}/"):]
        if rel in FOLDER_FILES:
            found += [f"{rel}/{n}" for n in FOLDER_FILES[rel]]
        else:
            found += [rel, *((TWINS[rel],) if rel in TWINS else ())]
    return [rel for rel in found if rel not in NOT_READ.get(command, set())]


def _over(argv: tuple[str, ...], old: str, new: str) -> tuple[str, ...]:
    return tuple(new if a == old else a for a in argv)


def output_overlap_cases() -> Iterator[Case]:
    """For every option that writes (issue 28: coverage --bench B --ledger B/objects.jsonl replaced the
    benchmark's objects, --rules R.kari --explain R.jsonl the rules' metadata twin, --ledger X --explain X lost
    the proofs): the output named as each input the command reads (directly, through a symbolic link, through
    a path with ``..``), an input placed in an output folder under a name the command writes there (a .kari
    input with its metadata twin there), an output folder that is an input folder holding such a name, and two
    outputs named as one file. Each is refused before any work, naming the overlap, and changes nothing."""
    writes = _folder_writes()
    for command, name, kind in _output_params():
        if kind == "cache":
            continue                  # an LLM reply cache only adds content-addressed files: never over one
        argv, outputs = WRITERS[command]
        codes = OVERLAP_CODES + ALSO_REFUSED.get(command, ())
        value = outputs[name]
        label = "-".join(command) + "/" + name.strip("-")
        inputs = _world_inputs(command, argv, outputs)
        if kind in ("file", "database"):
            for index, rel in enumerate(inputs):
                named = rel
                if command == ("induce",) and name == "--out":       # --out R.kari writes R.jsonl beside it
                    named = str(Path(rel).with_suffix(".kari"))
                yield Case(f"overlap/{label}/is/{rel}", _over(argv, value, f"{{w}}/{named}"), expect=codes)
                if index in (0, len(inputs) - 1):
                    if named == rel:                 # (a twin is beside the link, not beside what it points to)
                        yield Case(f"overlap/{label}/links-to/{rel}", _over(argv, value, "{w}/link.out"), "link.out",
                                   kind="link", source=named, expect=codes)
                    yield Case(f"overlap/{label}/dotdot/{rel}", _over(argv, value, f"{{w}}/new/../{named}"),
                               expect=codes)
        else:
            names = writes[(command, name)]
            folder_rel = value[len("{w}/"):]
            yield Case(f"overlap/{label}/is/{inputs[0]}", _over(argv, value, f"{{w}}/{inputs[0]}"),
                       expect=codes)
            for rel in inputs:
                given = f"{{w}}/{rel}"
                if given not in argv:
                    continue                          # a file of an input folder or a twin: not named itself
                for written in (n for n in names if not n.endswith("/")):
                    if Path(written).suffix == Path(rel).suffix:
                        moved = f"{folder_rel}/{written}"
                        yield Case(f"overlap/{label}/holds-input/{written}/{rel}", _over(argv, given, f"{{w}}/{moved}"),
                                   moved, kind="copy", source=rel, expect=codes)
                        break
                    if rel in TWINS and Path(written).suffix == ".jsonl":   # R.kari's twin R.jsonl read too
                        moved = f"{folder_rel}/{Path(written).stem}.kari"
                        yield Case(f"overlap/{label}/holds-twin/{written}/{rel}", _over(argv, given, f"{{w}}/{moved}"),
                                   moved, kind="copy", source=rel, copies=((f"{folder_rel}/{written}", TWINS[rel]),),
                                   expect=codes)
                        break
            for folder in sorted({rel.split("/")[0] for rel in inputs if rel.split("/")[0] in FOLDER_FILES}):
                held = {rel.split("/", 1)[1] for rel in inputs if rel.startswith(folder + "/")}
                if held & set(names):
                    yield Case(f"overlap/{label}/is-input-folder/{folder}", _over(argv, value, f"{{w}}/{folder}"),
                               expect=codes)
        for other, other_value in outputs.items():
            if other == name:
                continue
            into = value
            if kind == "folder":
                into = f"{value}/{next(n for n in writes[(command, name)] if not n.endswith('/'))}"
            yield Case(f"overlap/{label}/and/{other.strip('-')}", _over(argv, other_value, into),
                       expect=codes)


def test_every_output_option_has_overlap_cases() -> None:
    """A new option that writes must be added to WRITERS (and, for a folder, to _folder_writes)."""
    params = [(c, n) for c, n, k in _output_params() if k != "cache"]
    assert params and all(c in WRITERS and n in WRITERS[c][1] for c, n in params), params
    named = {c.name.split("/")[1] for c in CASES if c.name.startswith("overlap/")}
    assert {"-".join(c) for c, _ in params} <= named


CASES = [*bench_cases(), *rule_cases(), *kb_file_cases(), *database_cases(), *sql_cases(), *run_dir_cases(),
         *question_cases(), *vocabulary_cases(), *option_cases(), *output_kind_cases(), *creativity_cases(),
         *numeric_option_cases(), *not_duckdb_cases(), *output_is_input_cases(), *shard_cases(),
         *output_overlap_cases()]


# --------------------------------------------------------------------------------------------- running


class Hung(BaseException):
    """A case ran longer than TIMEOUT_S (a FIFO opened for reading would block forever)."""


# Files a command may write in place (DuckDB, an appended games.jsonl): each case gets its own copy. Every
# other file is a hard link to the template (cheap): kari replaces files only by renaming a new one over them.
IN_PLACE = ("kb.duckdb", "run/games.jsonl")


def _copy_world(template: Path, world: Path) -> None:
    def link(src: str, dst: str) -> None:
        if Path(src).relative_to(template).as_posix() in IN_PLACE:
            shutil.copy2(src, dst)
        else:
            os.link(src, dst)
    shutil.copytree(template, world, copy_function=link)


def _prepare(case: Case, world: Path) -> None:
    for target, source in case.copies:
        (world / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(world / source, world / target)
    if case.target is None:
        return
    path = world / case.target
    if case.mutate is not None:
        data = case.mutate(path.read_bytes() if path.exists() else b"", random.Random(case.name))
        path.unlink(missing_ok=True)        # break the hard link before writing
        path.write_bytes(data)
        return
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if case.kind == "dir":
        path.mkdir()
    elif case.kind == "fifo":
        os.mkfifo(path)
    elif case.kind == "db":
        shutil.copy(world / "kb.duckdb", path)
    elif case.kind == "link":
        path.symlink_to(world / case.source)  # type: ignore[operator]
    elif case.kind == "copy":
        shutil.copy(world / case.source, path)  # type: ignore[operator]


def _run(argv: list[str]) -> int:
    def hung(signum: int, frame: object) -> None:
        raise Hung(f"no answer after {TIMEOUT_S} s: {argv}")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(TIMEOUT_S)
    try:
        return run(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def check_contract(code: int, out: str, err: str) -> None:
    """The one-line-error contract of a failed command."""
    lines = [line for line in err.splitlines() if line.strip()]
    assert code != 0, f"exit 0 on a bad input\nstdout: {out[-2000:]}\nstderr: {err[-2000:]}"
    assert "Traceback" not in out + err, err[-3000:]
    assert len(lines) == 1 and lines[0].startswith("kari: "), f"stderr is not one 'kari:' line:\n{err[-3000:]}"
    assert code != INTERNAL_ERROR_EXIT and "internal-error" not in lines[0], lines[0]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_gives_one_line_and_changes_nothing(case: Case, template: Path, tmp_path: Path,
                                                      capfd: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    world = tmp_path / "w"
    _copy_world(template, world)
    try:
        _prepare(case, world)
        monkeypatch.chdir(world)
        monkeypatch.setenv("KARI_CACHE_DIR", str(tmp_path / "llm-cache"))
        before = snapshot(world)
        capfd.readouterr()
        code = _run([arg.replace("{w}", str(world)) for arg in case.argv])
        out, err = capfd.readouterr()
        check_contract(code, out, err)
        assert not case.expect or any(f": {c}: " in err for c in case.expect), err
        after = snapshot(world)
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        assert not changed, f"the failed command changed the world: {changed[:10]}"
    finally:
        shutil.rmtree(world, ignore_errors=True)


def test_the_corpus_is_large_and_covers_every_command() -> None:
    """The corpus drives every command of the CLI (a new command must be added here)."""
    from typer.main import get_command

    from kari.cli import app

    def leaves(command: object, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
        children = getattr(command, "commands", None)
        if not children:
            yield prefix
            return
        for name, child in children.items():
            yield from leaves(child, (*prefix, name))

    commands = set(leaves(get_command(app)))
    driven = {tuple(c.argv[:2]) if c.argv[0] in ("kb", "bench", "rules", "llm", "creativity") else (c.argv[0],)
              for c in CASES}
    assert commands <= driven, commands - driven
    assert len(CASES) >= 300


# --------------------------------------------------------------------------------------------- hypothesis

READERS = {
    "kgtk": ("kb", "load", "{f}.tsv", "--db", "{w}/kb.duckdb"),
    "jsonl-triples": ("kb", "load", "{f}.jsonl", "--db", "{w}/kb.duckdb"),
    "kari": ("rules", "stats", "{f}.kari"),
    "rules-jsonl": ("rules", "check", "{f}.jsonl"),
}
PREFIXES = {"kgtk": b"node1\tlabel\tnode2\n/c/en/a\t/r/IsA\t", "jsonl-triples": b'{"subject": "a", "relation": ',
            "kari": b"cut := ", "rules-jsonl": b'{"affordance": "cut", "rule": '}


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(reader=st.sampled_from(sorted(READERS)), tail=st.binary(max_size=300))
def test_arbitrary_bytes_never_break_the_contract(reader: str, tail: bytes, template: Path,
                                                  tmp_path_factory: pytest.TempPathFactory,
                                                  capfd: pytest.CaptureFixture[str]) -> None:
    world = tmp_path_factory.mktemp("h")
    shutil.copy(template / "kb.duckdb", world / "kb.duckdb")
    argv = [a.replace("{w}", str(world)) for a in READERS[reader]]
    path = Path(next(a for a in argv if "{f}" in a).replace("{f}", str(world / "input")))
    path.write_bytes(PREFIXES[reader] + tail)
    argv = [str(path) if "{f}" in a else a for a in argv]
    database = (world / "kb.duckdb").read_bytes()
    capfd.readouterr()
    code = _run(argv)
    out, err = capfd.readouterr()
    if code != 0:
        check_contract(code, out, err)
        assert (world / "kb.duckdb").read_bytes() == database
    else:
        assert "Traceback" not in out + err


# --------------------------------------------------------------------------------------------- names


NAMES = ["a[1]", "q*", "q?x", "[ab]", "it's", "sp ace", "b\\x", "**", "~"]


@pytest.mark.parametrize("name", NAMES)
def test_names_with_glob_and_path_characters_are_read_and_written_as_named(name: str, template: Path,
                                                                         tmp_path: Path, capfd,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Every input and output named with glob or path characters is that file: DuckDB expanded globs in file
    names (kb load 'a[1].tsv' read a1.tsv) and a leading '~'. Decoys that a glob would match stay untouched,
    and a relative '~' is a folder in the working directory, never $HOME."""
    world = tmp_path / "w"
    _copy_world(template, world)
    monkeypatch.chdir(world)
    folder = Path(name)                     # relative on purpose: '~' must stay a folder here
    folder.mkdir()
    for decoy in ("a1", "qz", "qyx", "a", "b", "zz"):
        (world / decoy).mkdir(exist_ok=True)
        shutil.copy(KB_DATA / "triples.csv", world / decoy / "kb.csv")
    shutil.copy(KB_DATA / "views_kb.tsv", folder / "kb.tsv")
    shutil.copy(world / "rules.kari", folder / "rules.kari")
    shutil.copytree(world / "bench", folder / "bench")
    before = snapshot(world)
    db = f"{name}/kb.duckdb"
    if "?" in name or "\\" in name:       # DuckDB reads these two in a database path otherwise: refused, one line
        code = _run(["kb", "load", f"{name}/kb.tsv", "--db", db])
        assert code == 2 and "DuckDB cannot open a database whose path holds" in capfd.readouterr().err
        db = "plain.duckdb"
    steps = [("kb", "load", f"{name}/kb.tsv", "--db", db),
             ("kb", "export", f"{name}/out.tsv", "--db", db),
             ("kb", "load", f"{name}/out.tsv", "--db", db),
             ("rules", "check", f"{name}/rules.kari"),
             ("rules", "fmt", "-i", f"{name}/rules.kari"),
             ("coverage", "--rules", f"{name}/rules.kari", "--db", db),
             ("play", "--bench", f"{name}/bench", "-q", "fix20q", "-n", "1", "--runs", "1", "-o", f"{name}/run"),
             ("report", f"{name}/run", "-o", f"{name}/report")]
    for argv in steps:
        code, out, err = (lambda c: (c, *capfd.readouterr()))(_run(list(argv)))
        assert code == 0, f"{argv}: {err}"
    con = duckdb.connect(str(world / db), read_only=True)
    files = {f for (f,) in con.execute("SELECT DISTINCT file FROM edges").fetchall()}
    con.close()
    assert files == {str((folder / "kb.tsv").resolve())}      # the reload of out.tsv added nothing new
    after = snapshot(world)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert changed and all(k.startswith((f"{name}/", "plain.duckdb")) for k in changed), sorted(changed)[:5]
    assert not (Path.home() / "kb.duckdb").exists() or name != "~"


# --------------------------------------------------------------------------------------------- servers


def _llm_behaviours() -> dict[str, Callable[[dict], object]]:
    from llm_server import StubReply

    return {
        "drips": lambda body: StubReply(text="MATERIAL:metal", drip=0.4),
        "html": lambda body: StubReply(body=b"<html>gateway</html>", content_type="text/html"),
        "truncated-json": lambda body: StubReply(body=b'{"id": "x", "choices": [{"message": {"content": "ye'),
        "no-choices": lambda body: StubReply(body=b'{"id": "x", "choices": []}'),
        "content-is-a-list": lambda body: StubReply(body=b'{"id": "x", "choices": [{"message": {"content": [1]}}]}'),
        "lone-surrogate": lambda body: StubReply(text="MATERIAL:metal \ud800 yes"),
        "http-500": lambda body: StubReply(status=500),
        "http-404": lambda body: StubReply(status=404),
        "huge-number": lambda body: StubReply(text='{"rule": ' + "9" * 5000 + "}"),
        "stalls": lambda body: StubReply(text="late", delay=5.0),
        "never-ends": lambda body: StubReply(endless=b"y" * 65536),                   # issue 28: cut at the limit
        "nested-deep": lambda body: StubReply(body=b"[" * 200_000 + b"]" * 200_000),  # issue 28: names the server
    }


LLM_COMMANDS = {
    "questioner": ("play", "--bench", "{w}/bench", "-q", "llm", "-n", "1", "--runs", "1", "-o", "{w}/out"),
    "oracle": ("play", "--bench", "{w}/bench", "-q", "fix20q", "--oracle", "llm", "-n", "1", "--runs", "1",
               "-o", "{w}/out"),
    "checker": ("play", "--bench", "{w}/bench", "-q", "fix20q", "--checker", "llm", "-n", "1", "--runs", "1",
                "-o", "{w}/out"),
    "induce": ("induce", "--bench", "{w}/bench", "--llm", "openai", "-a", "attack_with", "--out", "{w}/out.kari",
               "-q"),
    "creativity": (*CB_SOLVE, "--solver", "llm"),
}


@pytest.mark.parametrize("behaviour", sorted(_llm_behaviours()))
def test_slow_and_malformed_llm_servers_cost_at_most_the_timeout(behaviour: str, template: Path, tmp_path: Path,
                                                                  capfd, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real HTTP server on 127.0.0.1 answering every request the same bad way, behind every LLM role: each
    command ends within the timeout per attempt (plus backoff), in one line or a success, never exit 70, and
    its inputs are unchanged (a failed run may leave its own run directory)."""
    from llm_server import StubLLMServer

    stub = StubLLMServer(respond=_llm_behaviours()[behaviour]).start()
    try:
        for number, (role, argv) in enumerate(LLM_COMMANDS.items()):
            world = tmp_path / f"w{number}"
            _copy_world(template, world)
            monkeypatch.chdir(world)
            before = snapshot(world)
            started = time.monotonic()
            capfd.readouterr()
            code = _run([a.replace("{w}", str(world)) for a in argv] + [
                "--base-url", stub.base_url, "--model", "m", "--llm-timeout", "1", "--llm-attempts", "2",
                "--cache-dir", str(tmp_path / f"cache{number}")])
            out, err = capfd.readouterr()
            elapsed = time.monotonic() - started
            assert code != INTERNAL_ERROR_EXIT and "Traceback" not in out + err, f"{role}: {err[-2000:]}"
            if code:
                check_contract(code, out, err)
            assert elapsed < 15, f"{role}: {elapsed:.1f} s"
            after = snapshot(world)
            assert all(before[k] == after.get(k) for k in before), f"{role}: an input changed"
    finally:
        stub.stop()
