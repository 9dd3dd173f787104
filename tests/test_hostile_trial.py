"""Regression tests for the defects the third hostile trial found (issue 28): each broke before it was fixed.

Outputs over inputs and over each other, repeatable coverage, bounded lines and LLM replies, safe report
files, consistent exit codes, deep is-a taxonomies, consistent records in ``kari merge`` and ``kari report``.
The generated corpus in test_cli_fuzz.py looks for the rest of their kind (its ``overlap/`` cases put every
output option over every input and over the other outputs).
"""

from __future__ import annotations

import gzip
import json
import shutil
import threading
import time
from pathlib import Path

import duckdb
import pytest
from cli_support import kari, one_line
from llm_server import StubLLMServer, StubReply

from kari.errors import KariError
from kari.resources import asset_path

KB_DATA = Path(__file__).parent / "data" / "kb"


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    return Path(shutil.copytree(asset_path("data", "bench"), tmp_path / "bench"))


def _rules(folder: Path, text: str = "cut := SHAPE:sharp_edge\n", twin: bool = True) -> Path:
    """A .kari rules file and, with ``twin``, its .jsonl metadata twin."""
    from kari.rules import load_rules
    from kari.rules.rulefile import format_rules

    path = folder / "R.kari"
    path.write_text(text, encoding="utf-8")
    if twin:
        path.with_suffix(".jsonl").write_text(format_rules(load_rules(path), "json"), encoding="utf-8")
    return path


def _digests(*paths: Path) -> list[bytes]:
    return [p.read_bytes() for p in paths]


# ----------------------------------------------------------------------------------- 1. outputs over inputs


def test_coverage_never_writes_its_ledger_over_the_benchmark(bench: Path, tmp_path: Path, capfd) -> None:
    """--bench B --ledger B/objects.jsonl replaced the benchmark's 38 objects with an empty ledger."""
    rules = _rules(tmp_path)
    before = _digests(bench / "objects.jsonl")
    code, _, err = kari(capfd, "coverage", "--rules", rules, "--db", tmp_path / "new.duckdb", "--bench", bench,
                        "--match", "exact", "--ledger", bench / "objects.jsonl")
    assert code == 2 and "output-is-input" in one_line(err) and "objects.jsonl" in err
    assert _digests(bench / "objects.jsonl") == before and not (tmp_path / "new.duckdb").exists()


def test_coverage_never_writes_its_proofs_over_the_rules_metadata_twin(tmp_path: Path, capfd) -> None:
    """--rules R.kari --explain R.jsonl overwrote the twin the same command reads (a later play failed)."""
    from kari.kb import load_into

    load_into(tmp_path / "kb.duckdb", [KB_DATA / "views_kb.tsv"])
    rules = _rules(tmp_path)
    twin = rules.with_suffix(".jsonl")
    before = _digests(twin)
    for given in (twin, tmp_path / "sub" / ".." / "R.jsonl"):
        code, _, err = kari(capfd, "coverage", "--rules", rules, "--db", tmp_path / "kb.duckdb", "--explain", given)
        assert code == 2 and "output-is-input" in one_line(err) and "metadata twin of --rules" in err
    link = tmp_path / "proofs.jsonl"
    link.symlink_to(twin)
    code, _, err = kari(capfd, "coverage", "--rules", rules, "--db", tmp_path / "kb.duckdb", "--explain", link)
    assert code == 2 and "output-is-input" in one_line(err)
    assert _digests(twin) == before


def test_coverage_never_writes_its_proofs_where_a_rules_twin_would_be_read(bench: Path, tmp_path: Path, capfd) -> None:
    """--rules R.kari --explain R.jsonl with no R.jsonl yet was accepted: the proofs became the rules' metadata and
    every later command reading R.kari failed; so was --explain at the twin of the file a linked --rules leads to."""
    rules = _rules(tmp_path, twin=False)
    (tmp_path / "links").mkdir()
    link = tmp_path / "links" / "L.kari"
    link.symlink_to(rules)
    for given, explain in ((rules, rules.with_suffix(".jsonl")), (link, link.with_suffix(".jsonl")),
                           (link, rules.with_suffix(".jsonl"))):
        code, _, err = kari(capfd, "coverage", "--rules", given, "--db", tmp_path / "new.duckdb", "--bench", bench,
                            "--match", "exact", "--explain", explain)
        assert code == 2 and "output-is-input" in one_line(err) and "metadata twin of --rules" in err, err
        assert not explain.exists() and not (tmp_path / "new.duckdb").exists()
    assert kari(capfd, "rules", "check", rules)[0] == 0


def test_two_outputs_that_are_one_file_are_refused(bench: Path, tmp_path: Path, capfd) -> None:
    """--ledger X --explain X was accepted and the proofs were silently replaced by the ledger."""
    rules = _rules(tmp_path)
    code, _, err = kari(capfd, "coverage", "--rules", rules, "--db", tmp_path / "new.duckdb", "--bench", bench,
                        "--match", "exact", "--ledger", tmp_path / "x.jsonl", "--explain", tmp_path / "x.jsonl")
    assert code == 2 and "outputs-collide" in one_line(err) and "--ledger and --explain are one file" in err
    assert not (tmp_path / "x.jsonl").exists() and not (tmp_path / "new.duckdb").exists()


def test_play_never_appends_its_records_to_a_rules_twin_in_its_run_directory(bench: Path, tmp_path: Path,
                                                                            capfd) -> None:
    """--rules OUT/games.kari reads OUT/games.jsonl (its metadata twin): play would append records to it."""
    out = tmp_path / "out"
    out.mkdir()
    rules = _rules(out)
    rules.rename(out / "games.kari")
    rules.with_suffix(".jsonl").rename(out / "games.jsonl")
    before = _digests(out / "games.jsonl")
    code, _, err = kari(capfd, "play", "-q", "rules", "--rules", out / "games.kari", "--match", "exact", "--bench",
                        bench, "-n", "1", "-o", out)
    assert code == 2 and "output-is-input" in one_line(err) and "metadata twin of --rules" in err
    assert _digests(out / "games.jsonl") == before


def test_one_check_sees_through_links_dots_and_folders(tmp_path: Path) -> None:
    """The rule is one function: a written file is an input when it is one inode with it (a hard or symbolic
    link) or resolves to it (``..``, a folder yet to be made); a folder output's names count, and two outputs
    that resolve to one file collide."""
    from kari.io.outputs import Input, Output, OutputKind, check_outputs

    source = tmp_path / "in.jsonl"
    source.write_text("{}\n")
    (tmp_path / "hard.jsonl").hardlink_to(source)
    reads = [Input(source, "--in")]
    for given in (tmp_path / "hard.jsonl", tmp_path / "new" / ".." / "in.jsonl"):
        with pytest.raises(KariError) as caught:
            check_outputs([Output(given, "--out")], reads)
        assert caught.value.code == "output-is-input"
    with pytest.raises(KariError) as caught:
        check_outputs([Output(tmp_path, "--out", OutputKind.FOLDER, names=("in.jsonl",))], reads)
    assert caught.value.code == "output-is-input"
    with pytest.raises(KariError) as caught:
        check_outputs([Output(tmp_path / "a" / "x", "--a"), Output(tmp_path / "b" / ".." / "a" / "x", "--b")])
    assert caught.value.code == "outputs-collide"
    check_outputs([Output(tmp_path, "--out", OutputKind.FOLDER, names=("other.jsonl",)),
                   Output(tmp_path / "x.csv", "--x")], reads)      # no overlap: accepted
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hard.jsonl", "in.jsonl"]   # and nothing made


# ----------------------------------------------------------------------------------- 2. repeatable coverage


def _zorbium_bench(tmp_path: Path) -> Path:
    """A hand-written benchmark whose object is made of a compound ('blue_zorbium') of a word only a rule
    brings ('zorbium'): the rule's word links the object's compound to it (is-a) when it is read."""
    folder = tmp_path / "zb"
    folder.mkdir()
    prop = lambda predicate, value: {"part": "whole", "predicate": predicate, "value": value}  # noqa: E731
    objects = [{"id": "rod", "description": "a rod", "parts": [],
                "properties": [prop("MADE_OF", "blue_zorbium"), prop("SHAPE", "cylindrical")]},
               {"id": "cup", "description": "a cup", "parts": [],
                "properties": [prop("MADE_OF", "ceramic"), prop("SHAPE", "hollow")]}]
    (folder / "objects.jsonl").write_text("".join(json.dumps(o) + "\n" for o in objects))
    (folder / "affordances.jsonl").write_text(json.dumps({"id": "conduct", "description": "conduct heat"}) + "\n")
    (folder / "labels.jsonl").write_text("".join(json.dumps({"object": o, "affordance": "conduct", "label": o == "rod"})
                                                 + "\n" for o in ("rod", "cup")))
    (folder / "games.jsonl").write_text("")
    return folder


def test_coverage_into_a_new_database_is_repeatable(tmp_path: Path, capfd) -> None:
    """The rule's new word was linked to the object's compound only after the solver had run: the first run
    missed the covered pair, the second (over the stored vocabulary) found it (92,938 vs 92,940 rows)."""
    bench = _zorbium_bench(tmp_path)
    rules = _rules(tmp_path, "conduct := MADE_OF:zorbium\n", twin=False)
    db = tmp_path / "new.duckdb"
    rows = []
    for _ in range(2):
        code, out, err = kari(capfd, "coverage", "--rules", rules, "--db", db, "--bench", bench, "--match", "exact",
                              "--explain", tmp_path / "proofs.jsonl")
        assert code == 0, err
        con = duckdb.connect(str(db), read_only=True)
        rows.append(con.execute("SELECT rule, object, covered, branch, part FROM coverage ORDER BY ALL").fetchall())
        con.close()
    assert rows[0] == rows[1] and (0, "rod", True, 0, None) in rows[0]


def test_a_proof_that_disagrees_with_the_solver_says_what_differs_and_exits_70(tmp_path: Path, capfd) -> None:
    """--explain stopped with exit 2 and no word of what differed; a disagreement is a bug in kari."""
    bench = _zorbium_bench(tmp_path)
    rules = _rules(tmp_path, "conduct := MADE_OF:zorbium\n", twin=False)
    db = tmp_path / "new.duckdb"
    assert kari(capfd, "coverage", "--rules", rules, "--db", db, "--bench", bench, "--match", "exact")[0] == 0
    con = duckdb.connect(str(db))
    con.execute("UPDATE coverage SET covered = NOT covered WHERE object = 'rod'")
    con.close()
    from kari.explain.coverage import write_coverage_proofs

    with pytest.raises(KariError) as caught:
        write_coverage_proofs(rules, db, tmp_path / "proofs.jsonl", bench)
    assert caught.value.exit_code == 70 and caught.value.code == "explain-mismatch"
    assert "covered: proof True, solver False" in caught.value.message
    assert not (tmp_path / "proofs.jsonl").exists()


# ----------------------------------------------------------------------------------- 3. bounded lines and replies


@pytest.mark.parametrize("compressed", [False, True])
def test_a_last_line_over_the_limit_is_refused_not_dropped(compressed: bool, tmp_path: Path, capfd) -> None:
    """A last line over about 256 MiB (plain or in a small .gz) was dropped: '6 data lines, 5 new edges'."""
    head = b"node1\tlabel\tnode2\n" + b"".join(f"/c/en/a{i}\t/r/IsA\t/c/en/b\n".encode() for i in range(5))
    last = b"/c/en/x\t/r/IsA\t/c/en/" + b"y" * (300 * 2**20)
    path = tmp_path / ("big.tsv.gz" if compressed else "big.tsv")
    if compressed:
        with gzip.open(path, "wb", compresslevel=1) as handle:
            handle.write(head)
            handle.write(last)
    else:
        path.write_bytes(head + last)
    del last
    code, out, err = kari(capfd, "kb", "load", path, "--db", tmp_path / "kb.duckdb")
    assert code == 2 and f"{path}:7: line-too-long" in one_line(err), out
    assert not (tmp_path / "kb.duckdb").exists()


def _client(stub: StubLLMServer, tmp_path: Path, **settings: object):
    from kari.llm import CallLog, LLMConfig, make_chat_client

    config = LLMConfig(base_url=stub.base_url, model="m", cache_dir=tmp_path / "cache", backoff_base=0.01,
                       **settings)  # type: ignore[arg-type]
    log = CallLog(tmp_path / "calls.jsonl")
    return make_chat_client(config, log), log


def test_a_never_ending_reply_is_cut_off_at_the_size_limit(tmp_path: Path) -> None:
    """A server streaming a never-ending body fast grew memory without bound until the timeout (3-5 GB)."""
    endless = StubReply(endless=b"x" * 65536)
    stub = StubLLMServer(respond=lambda request: endless).start()
    try:
        client, log = _client(stub, tmp_path, max_reply_bytes=2**20, timeout=30.0, max_retries=1)
        started = time.monotonic()
        with pytest.raises(KariError) as caught:
            client.chat([{"role": "user", "content": "hi"}], max_tokens=8, role="oracle")
        assert time.monotonic() - started < 20
        assert caught.value.code == "llm-unavailable" and "larger than 1,048,576 bytes" in caught.value.message
        assert stub.requests == 2
        deadline = time.monotonic() + 10
        while len(endless.sent) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(endless.sent) == 2 and max(endless.sent) < 64 * 2**20   # the client hung up near the limit
        assert [r["error"] for r in log.records if "error" in r]           # the failure is in the call log
        assert not list((tmp_path / "cache").rglob("*.json"))              # nothing cached
    finally:
        stub.stop()


def test_an_abandoned_attempt_stops_reading(tmp_path: Path) -> None:
    """An attempt given up at its timeout went on reading in its thread (a fast body never ends a read)."""
    endless = StubReply(endless=b"x" * 4096)
    stub = StubLLMServer(respond=lambda request: endless).start()
    try:
        client, _ = _client(stub, tmp_path, timeout=1.0, max_retries=0, max_reply_bytes=2**30)
        with pytest.raises(KariError, match="timed out after 1 s"):
            client.chat([{"role": "user", "content": "hi"}], max_tokens=8)
        deadline = time.monotonic() + 5
        while not endless.sent and time.monotonic() < deadline:
            time.sleep(0.05)
        assert endless.sent, "the abandoned attempt is still reading"
    finally:
        stub.stop()


def test_a_reply_over_the_limit_never_reaches_the_games_or_the_cache(bench: Path, tmp_path: Path, capfd) -> None:
    """A 300 MB reply went into games.jsonl and the cache (2.6 GB for one induction)."""
    stub = StubLLMServer(respond=lambda request: StubReply(text="y" * (2 * 2**20))).start()
    try:
        code, _, err = kari(capfd, "play", "-q", "llm", "--bench", bench, "--base-url", stub.base_url, "--model", "m",
                            "--cache-dir", tmp_path / "cache", "-o", tmp_path / "run", "-n", "1", "--runs", "1",
                            "--llm-attempts", "1", "--llm-max-bytes", str(2**20))
        assert code == 2 and "larger than 1,048,576 bytes (--llm-max-bytes)" in one_line(err)
        games = tmp_path / "run" / "games.jsonl"
        assert not games.exists() or games.stat().st_size == 0
        assert not list((tmp_path / "cache").rglob("*.json"))
    finally:
        stub.stop()


def test_a_cache_entry_over_the_read_limit_is_not_written(tmp_path: Path) -> None:
    """Entries over 64 MiB were written (and never read back)."""
    from kari.llm.cache import MAX_ENTRY_BYTES, CachedReply, ReplyCache

    cache = ReplyCache(tmp_path)
    big = CachedReply("z" * (MAX_ENTRY_BYTES + 1), 1, 1, 0.1)
    assert cache.put("ab" * 32, {"model": "m"}, big) == big  # the run goes on with its reply, uncached
    assert not cache.path("ab" * 32).exists() and cache.oversized == 1
    cache.put("cd" * 32, {"model": "m"}, CachedReply("small", 1, 1, 0.1))
    assert cache.get("cd" * 32) is not None and cache.path("cd" * 32).exists()


def test_a_reply_nested_too_deeply_names_the_server(tmp_path: Path) -> None:
    """A body nested 200,000 deep was blamed on the user's input ('the input nests too deeply') and named no
    server."""
    stub = StubLLMServer(respond=lambda request: StubReply(body=b"[" * 200_000 + b"]" * 200_000)).start()
    try:
        client, _ = _client(stub, tmp_path, max_retries=0)
        with pytest.raises(KariError) as caught:
            client.chat([{"role": "user", "content": "hi"}], max_tokens=8)
        assert caught.value.code == "llm-protocol" and stub.base_url in caught.value.message
        assert "nested too deeply" in caught.value.message
    finally:
        stub.stop()


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/v1\n", "http://127.0.0.1:8080/v 1", "ftp://host/v1",
                                 "127.0.0.1:8080", "http://:80/v1", "http://h:99999/v1"])
def test_a_base_url_that_is_no_url_is_a_usage_error(url: str, bench: Path, tmp_path: Path, capfd) -> None:
    """A base URL with a newline was an internal error (exit 70)."""
    code, _, err = kari(capfd, "play", "-q", "llm", "--bench", bench, "--base-url", url, "--model", "m", "-o",
                        tmp_path / "run", "-n", "1")
    assert code == 2 and "bad-option: the LLM base URL" in one_line(err)
    assert not (tmp_path / "run").exists()


# ----------------------------------------------------------------------------------- 4. safe outputs

HOSTILE = "<!--<script>|x\n=HYPERLINK(\"http://e\")<b>"
"""An object id and a game id built to break every writer: an HTML comment that swallows a script element, a
table pipe, a newline, a spreadsheet formula, raw HTML."""


def _hostile_bench(tmp_path: Path) -> Path:
    """The synthetic benchmark with one object (and its game) renamed to :data:`HOSTILE`."""
    from test_game_support import write_bench

    root = write_bench(tmp_path / "hb")
    old = "cut_obj0"
    for name in ("objects", "labels", "games"):
        path = root / f"{name}.jsonl"
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        for row in rows:
            for key in ("id", "object"):
                if row.get(key) == old:
                    row[key] = HOSTILE
                elif row.get(key) == f"g_{old}":
                    row[key] = f"g {HOSTILE}"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def _table_cells(line: str) -> int:
    """The cells of a Markdown table row (pipes not escaped by a backslash)."""
    import re

    return len(re.findall(r"(?<!\\)\|", line)) - 1


def test_hostile_ids_go_safely_through_every_writer(tmp_path: Path, capfd) -> None:
    """report.html stopped rendering on an id holding '<!--<script>'; report.md tables broke on '|' or a
    newline and copied raw HTML; kb_gaps.csv and leaderboard.csv wrote '=...' cells as they are."""
    import csv
    import io
    import re

    from test_game_support import RULES_TEXT, write_vocab

    bench, vocab = _hostile_bench(tmp_path), write_vocab(tmp_path / "vocab")
    (tmp_path / "rules.kari").write_text(RULES_TEXT)
    runs = []
    for name, extra in ((f"run {HOSTILE}".replace("\n", " ").replace("/", "_"), ("-q", "greedy-ig")),
                        ("ruled", ("-q", "greedy-ig", "--rules", tmp_path / "rules.kari", "--match", "exact"))):
        out = tmp_path / name
        code, _, err = kari(capfd, "play", "--bench", bench, "--vocab", vocab, "-o", out, *extra, "--model-reps", "2")
        assert code == 0, err
        runs.append(out)
    code, out, err = kari(capfd, "report", *runs, "-o", tmp_path / "rep", "--html", "--resamples", "200",
                          "--bench", bench)
    assert code == 0, err
    markdown = (tmp_path / "rep" / "report.md").read_text()
    assert "<!--" not in markdown and "<script" not in markdown and "<b>" not in markdown
    for block in re.split(r"\n\s*\n", markdown):
        rows = [line for line in block.splitlines() if line.startswith("|")]
        assert len({_table_cells(line) for line in rows}) <= 1, block      # every row as wide as its header
    page = (tmp_path / "rep" / "report.html").read_text()
    data = re.search(r'<script id="kari-data"[^>]*>(.*?)</script>', page, re.S)
    assert data and "<" not in data.group(1)                              # nothing in the data can end or open a tag
    parsed = json.loads(data.group(1))
    assert any(g.get("o") == HOSTILE for g in parsed["games"]) or HOSTILE in json.dumps(parsed)
    assert page.count("<script") == 2                                    # the data element and the page's script
    for name in ("leaderboard.csv", "kb_gaps.csv"):
        path = tmp_path / "rep" / name
        if path.exists():
            for row in csv.reader(io.StringIO(path.read_text())):
                for cell in row:
                    assert not cell.startswith(("=", "+", "@")) and not re.match(r"-[^\d.]", cell), (name, cell)
    code, out, err = kari(capfd, "report", *runs, "--format", "csv", "--resamples", "200")
    assert code == 0 and not any(c.startswith("=") for r in csv.reader(io.StringIO(out)) for c in r)


def test_a_negative_number_stays_a_number_in_csv() -> None:
    from kari.io.escape import csv_cell

    assert [csv_cell(v) for v in (-1, -0.25, "-0.25", "-1e-3", "12%", "-x", "=1", "@a", "+1+1")] == \
        [-1, -0.25, "-0.25", "-1e-3", "12%", "'-x", "'=1", "'@a", "'+1+1"]


# ----------------------------------------------------------------------------------- 5. exits and messages


def test_out_of_memory_exits_as_bad_input(monkeypatch: pytest.MonkeyPatch, capfd) -> None:
    """MemoryError exited 1, the code of check findings."""
    import kari.bench.show as show

    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(show, "bench_overview", exhausted)
    code, _, err = kari(capfd, "bench", "show")
    assert code == 2 and "out-of-memory" in one_line(err)


@pytest.mark.parametrize("command", ["coverage", "play", "explain", "compile", "stats"])
def test_a_malformed_rules_file_exits_2_everywhere(command: str, bench: Path, tmp_path: Path, capfd) -> None:
    """A malformed rules file given to coverage, play or explain exited 1 (a banned value 2)."""
    from kari.kb import load_into

    rules = _rules(tmp_path, "cut := AND(SHAPE:flat\n", twin=False)
    db = tmp_path / "kb.duckdb"
    load_into(db, [KB_DATA / "views_kb.tsv"])
    argv = {"coverage": ("coverage", "--rules", rules, "--db", db),
            "play": ("play", "-q", "rules", "--rules", rules, "--match", "exact", "--bench", bench, "-o",
                     tmp_path / "run", "-n", "1"),
            "explain": ("explain", "cut", "knife", "--rules", rules, "--db", db),
            "compile": ("rules", "compile", rules), "stats": ("rules", "stats", rules)}[command]
    code, _, err = kari(capfd, *argv)
    assert code == 2 and "syntax-error" in one_line(err)
    code, out, _ = kari(capfd, "rules", "check", rules)
    assert code == 1 and "syntax-error" in out                            # a finding of the checker: exit 1


def test_a_locked_database_is_reported_as_locked(tmp_path: Path, capfd) -> None:
    """A database another process holds open was 'not a DuckDB database'."""
    import subprocess
    import sys

    from kari.kb import load_into

    db = tmp_path / "kb.duckdb"
    load_into(db, [KB_DATA / "views_kb.tsv"])
    holder = subprocess.Popen([sys.executable, "-c", f"import duckdb, time; c = duckdb.connect({str(db)!r}); "
                               "print('ready', flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        for argv in (("vocab", "--db", db), ("kb", "stats", "--db", db), ("rules", "check", _rules(tmp_path),
                                                                            "--db", db)):
            code, out, err = kari(capfd, *argv)
            line = err.strip().splitlines()[-1] if argv[0] == "rules" else one_line(err)
            assert code == 2 and "locked: the database is locked by another process" in out + line, argv
            assert f"PID {holder.pid}" in out + line
    finally:
        holder.kill()
        holder.wait()


def test_shape_underscore_is_an_error_in_check_as_in_compile(tmp_path: Path, capfd) -> None:
    """SHAPE:_ passed rules check (a warning) and was refused by rules compile."""
    rules = _rules(tmp_path, "cut := AND(SHAPE:_, MADE_OF:metal)\n", twin=False)
    code, out, _ = kari(capfd, "rules", "check", rules)
    assert code == 1 and "empty-value" in out
    code, _, err = kari(capfd, "rules", "compile", rules)
    assert code == 2 and "empty-value" in one_line(err)


def test_affordance_ids_differing_only_in_case_are_duplicates(tmp_path: Path, capfd) -> None:
    """cut and Cut in one rules file passed as two affordances (the matcher reads them as one)."""
    rules = _rules(tmp_path, "cut := SHAPE:sharp_edge\nCut := MADE_OF:metal\n", twin=False)
    code, out, _ = kari(capfd, "rules", "check", rules)
    assert code == 1 and "duplicate-affordance" in out and "first on line 1 as 'cut'" in out
    code, _, err = kari(capfd, "rules", "stats", rules)
    assert code == 2 and "duplicate-affordance" in one_line(err)


def _shards(tmp_path: Path, capfd) -> list[Path]:
    dirs = [tmp_path / f"s{k}" for k in (1, 2)]
    for k, folder in enumerate(dirs, 1):
        code, _, err = kari(capfd, "play", "-q", "fix20q", "-n", "4", "--runs", "1", "--shard", f"{k}/2", "-o", folder)
        assert code == 0, err
    return dirs


def test_merge_and_report_refuse_a_success_whose_guess_is_not_its_target(tmp_path: Path, capfd) -> None:
    """A record with success: true whose guess is not its target was merged and reported."""
    dirs = _shards(tmp_path, capfd)
    log = dirs[1] / "games.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    lost = next(i for i, r in enumerate(records) if not r["success"])
    records[lost]["success"] = True
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    for argv in (("merge", *dirs, "-o", tmp_path / "merged"), ("report", dirs[1])):
        code, _, err = kari(capfd, *argv)
        assert code == 2 and f"{log}:{lost + 1}: run-corrupt: inconsistent game record: success is true" in one_line(err)
    assert not (tmp_path / "merged").exists()


def test_a_record_whose_turn_count_is_not_its_turns_is_refused(tmp_path: Path, capfd) -> None:
    """n_turns: 1 on a record of eleven turns was reported (the turns figures moved) and merged."""
    dirs = _shards(tmp_path, capfd)
    log = dirs[1] / "games.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    records[0]["n_turns"] = len(records[0]["turns"]) + 1
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    for argv in (("merge", *dirs, "-o", tmp_path / "merged"), ("report", dirs[1])):
        code, _, err = kari(capfd, *argv)
        assert code == 2 and f"{log}:1: run-corrupt: inconsistent game record: n_turns is" in one_line(err), err


def test_a_resume_refuses_a_record_that_is_not_the_benchmarks_game(tmp_path: Path, capfd) -> None:
    """A lost game's target set to its guess (and success to true: consistent in itself) was resumed over and
    counted: SR 33.3% became 36.7%."""
    out = tmp_path / "run"
    argv = ("play", "-q", "greedy-ig", "-n", "4", "-o", out)
    assert kari(capfd, *argv)[0] == 0
    log = out / "games.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    wrong = next(i for i, r in enumerate(records) if not r["success"] and r["guess"])
    records[wrong]["target"], records[wrong]["success"] = records[wrong]["guess"], True
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    before = log.read_bytes()
    code, _, err = kari(capfd, *argv[:4], "8", "-o", out)
    assert code == 2 and "run-record" in one_line(err) and f"game {records[wrong]['game']}" in err, err
    assert log.read_bytes() == before


def test_report_refuses_a_run_that_lacks_games_of_its_plan(tmp_path: Path, capfd) -> None:
    """A run resumed with more games and stopped (its summary.json still the earlier run's), or whose last
    record was torn off, was reported from whatever its log held, with no note (merge refused the same)."""
    out = tmp_path / "run"
    assert kari(capfd, "play", "-q", "greedy-ig", "-n", "4", "-o", out)[0] == 0
    log = out / "games.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:-1]) + lines[-1][:-40])
    code, _, err = kari(capfd, "report", out, "--out", tmp_path / "report")
    assert code == 2 and "report-run: this run is not finished: it lacks 1 of its 4 games" in one_line(err), err
    assert not (tmp_path / "report").exists()


def test_report_refuses_a_run_given_twice(tmp_path: Path, capfd) -> None:
    """`kari report r r` listed one run twice, and paired it with itself."""
    out = tmp_path / "run"
    assert kari(capfd, "play", "-q", "greedy-ig", "-n", "2", "-o", out)[0] == 0
    code, _, err = kari(capfd, "report", out, tmp_path / "x" / ".." / "run")
    assert code == 2 and "report-run: given twice (also as" in one_line(err) and "each run is reported once" in err


def test_merge_refuses_shards_whose_config_names_another_questioner(tmp_path: Path, capfd) -> None:
    """Both shards' config.json saying 'random' over fix20q records was merged as a random run."""
    dirs = _shards(tmp_path, capfd)
    for folder in dirs:
        config = folder / "config.json"
        config.write_text(config.read_text().replace('"questioner": "fix20q"', '"questioner": "random"'))
    code, _, err = kari(capfd, "merge", *dirs, "-o", tmp_path / "merged")
    assert code == 2 and "its questioner 'fix20q' is not the run's ('random' in config.json)" in one_line(err)


# ----------------------------------------------------------------------------------- 6. deep taxonomies


def _deep_vocab(folder: Path, depth: int, cycle: bool = False) -> Path:
    """The shipped vocabulary plus a MADE_OF chain deep0 is-a metal, deep1 is-a deep0, ... (and, with
    ``cycle``, one last row that closes a cycle)."""
    shutil.copytree(asset_path("data", "vocabulary"), folder)
    with (folder / "values.tsv").open("a") as values:
        values.writelines(f"MADE_OF\tdeep{i}\tdeep value {i}\n" for i in range(depth))
    with (folder / "isa.tsv").open("a") as isa:
        isa.write("MADE_OF\tdeep0\tmetal\n")
        isa.writelines(f"MADE_OF\tdeep{i}\tdeep{i - 1}\n" for i in range(1, depth))
        if cycle:
            isa.write(f"MADE_OF\tdeep0\tdeep{depth - 1}\n")
    return folder


def test_a_deep_taxonomy_is_read_without_its_closure(tmp_path: Path, capfd) -> None:
    """A 20,000-deep chain took over two minutes in every command that reads the vocabulary (each is-a link
    walked every ancestor; validate built every closure): the links are now read in bulk with one cycle check,
    and ancestry is looked up. Speed is the benchmark's (benchmarks/bench_vocabulary.py --chain)."""
    from kari.vocab.vocabulary import KEPT_ANCESTORS, Vocabulary

    vocab = Vocabulary.load(_deep_vocab(tmp_path / "vocab", 20_000))
    assert vocab.validate() == []
    assert vocab.satisfies("MADE_OF", "deep19999", "metal") and vocab.satisfies("MADE_OF", "deep19999", "deep3")
    assert not vocab.satisfies("MADE_OF", "deep3", "deep19999") and not vocab.satisfies("MADE_OF", "steel", "deep0")
    assert len(vocab.ancestors("MADE_OF", "deep19999")) == 20_000 + len(vocab.ancestors("MADE_OF", "metal"))
    assert all(len(kept) <= KEPT_ANCESTORS for kept in vocab._ancestors.values())   # no closure held
    rules = _rules(tmp_path, "cut := MADE_OF:deep19999\n", twin=False)
    code, out, err = kari(capfd, "rules", "check", rules, "--vocab", tmp_path / "vocab")
    assert code == 0, out + err


def test_a_cycle_in_a_deep_taxonomy_is_located_at_its_row(tmp_path: Path, capfd) -> None:
    """The bulk check still names the first row that closes a cycle, at FILE:LINE, with a short cycle text."""
    folder = _deep_vocab(tmp_path / "vocab", 5_000, cycle=True)
    isa = folder / "isa.tsv"
    line = len(isa.read_text().splitlines())
    code, _, err = kari(capfd, "vocab", "--vocab", folder)
    assert code == 2 and f"{isa}:{line}: vocab-isa-cycle: MADE_OF: is-a deep0 -> deep4999 would close a cycle" \
        in one_line(err) and "more)" in err and len(err) < 400


@pytest.mark.parametrize(("name", "text", "line"), [
    ("R.kari", "cut := SHAPE:sharp_edge\n# wood is a material\npeel := SHAPE:wood\n", 3),
    ("R.jsonl", '{"affordance": "cut", "rule": "SHAPE:sharp_edge"}\n{"affordance": "peel", "rule": "SHAPE:wood"}\n', 2),
])
def test_a_rule_refused_by_coverage_is_named_at_its_file_and_line(bench: Path, tmp_path: Path, capfd, name: str,
                                                                  text: str, line: int) -> None:
    """`kari coverage` refused an ill-typed rule value with no FILE:LINE (`kari rules check` names it)."""
    rules = tmp_path / name
    rules.write_text(text, encoding="utf-8")
    code, _, err = kari(capfd, "coverage", "--rules", rules, "--db", tmp_path / "new.duckdb", "--bench", bench,
                        "--match", "exact")
    assert code == 2 and one_line(err).startswith(f"kari: {rules}:{line}: ill-typed-value: rule 'peel'"), err


def test_report_never_pairs_records_of_one_game_id_that_hide_other_games() -> None:
    """Runs on two benchmarks whose game ids name other games were paired 'on the same games' (McNemar
    p < 0.0001 over 30 pairs that all hid different objects)."""
    from kari.report.comparisons import Settings, paired

    def record(game: str, obj: str, success: bool) -> dict:
        return {"game": game, "object": obj, "target": "cut", "candidates": ["cut", "peel"], "success": success,
                "n_turns": 3, "run": 0}

    a = [record("g1", "knife", True), record("g2", "axe", True)]
    b = [record("g1", "knife", False), record("g2", "banana", False)]
    got = paired(a, b, Settings(resamples=50))
    assert (got["pairs"], got["different_games"], got["discordant"]) == (1, 1, {"b": 1, "c": 0})
