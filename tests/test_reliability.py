"""Regression tests for the cases issue 12 listed: each one broke (a traceback, lost data or a broken promise)
before it was fixed. The generated corpus in test_cli_fuzz.py looks for the rest of their kind."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from cli_support import kari, one_line
from llm_server import StubLLMServer, StubReply

from kari.cli import run
from kari.kb import load_into
from kari.resources import asset_path

KB_DATA = Path(__file__).parent / "data" / "kb"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    path = tmp_path / "kb.duckdb"
    load_into(path, [KB_DATA / "views_kb.tsv"])
    return path


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    return Path(shutil.copytree(asset_path("data", "bench"), tmp_path / "bench"))


@pytest.fixture
def ctrl_c_reaches_python():
    """The in-process Ctrl-C tests need Python's own SIGINT handler; a suite started as a background job of a
    non-interactive shell inherits SIGINT ignored, and kari rightly leaves an ignored SIGINT alone."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _bytes(*paths: Path) -> list[bytes]:
    return [p.read_bytes() for p in paths]


# ----------------------------------------------------------------------------------- tracebacks -> one line


def test_coverage_without_bench_uses_the_kb_objects(kb: Path, tmp_path: Path, capfd) -> None:
    rules = tmp_path / "r.kari"
    rules.write_text("cut := SHAPE:sharp_edge\n")
    code, out, err = kari(capfd, "coverage", "--rules", rules, "--db", kb)
    assert code == 0, err
    assert "1 rules x 4 objects = 4 pairs, covered 2/4" in out
    con = duckdb.connect(str(kb), read_only=True)
    assert con.execute("SELECT object FROM coverage WHERE covered ORDER BY 1").fetchall() == [("blade",), ("knife",)]
    assert con.execute("SELECT count(*) FROM coverage_games").fetchone() == (0,)


def test_a_huge_integer_in_a_rule_file_is_a_syntax_error_everywhere(kb: Path, tmp_path: Path, capfd) -> None:
    rules = tmp_path / "r.jsonl"
    rules.write_text('{"affordance": "cut", "rule": "SHAPE:sharp_edge", "note": ' + "9" * 5000 + "}\n")
    for argv in (("rules", "stats", rules), ("rules", "fmt", rules), ("coverage", "--rules", rules, "--db", kb),
                 ("play", "-q", "rules", "--rules", rules, "--match", "exact", "-o", tmp_path / "out", "-n", "1")):
        code, _, err = kari(capfd, *argv)
        assert code == 2 and f"{rules}:1: json-error: invalid JSON: Exceeds the limit" in one_line(err), argv
    code, out, err = kari(capfd, "rules", "check", rules)
    assert code == 1 and "json-error" in out and not (tmp_path / "out").exists()


def test_corrupt_and_truncated_gzip_name_the_file(kb: Path, tmp_path: Path, capfd) -> None:
    data = gzip.compress((KB_DATA / "cskg_excerpt.tsv").read_bytes())
    corrupt, truncated = tmp_path / "corrupt.tsv.gz", tmp_path / "truncated.tsv.gz"
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0xFF
    corrupt.write_bytes(bytes(flipped))
    truncated.write_bytes(data[: len(data) // 2])
    before = _bytes(kb)
    code, _, err = kari(capfd, "kb", "load", corrupt, "--db", kb)
    assert code == 2 and f"kari: {corrupt}" in one_line(err) and "kb-gzip" in err
    code, _, err = kari(capfd, "kb", "load", truncated, "--db", kb)
    assert code == 2 and f"kari: {truncated}: kb-gzip: truncated gzip data" in one_line(err)
    assert _bytes(kb) == before


def test_a_database_in_a_folder_that_is_not_writable(kb: Path, tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = Path(shutil.copy(kb, folder / "kb.duckdb"))
    before = db.read_bytes()
    folder.chmod(0o555)
    prefix: list[str] = []
    if os.geteuid() == 0:  # root ignores permissions unless it drops the capability
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv")
        prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]
    try:
        done = subprocess.run([*prefix, sys.executable, "-m", "kari", "kb", "load", str(KB_DATA / "triples.csv"),
                               "--db", str(db)], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        folder.chmod(0o755)
    assert done.returncode == 2 and "cannot write the database" in one_line(done.stderr), done.stderr
    assert db.read_bytes() == before and sorted(p.name for p in folder.iterdir()) == ["kb.duckdb"]


def test_games_with_non_string_candidates(bench: Path, tmp_path: Path, capfd) -> None:
    games = bench / "games.jsonl"
    lines = games.read_text().splitlines()
    first = json.loads(lines[0])
    first["candidates"][1] = {"x": 1}
    games.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    code, _, err = kari(capfd, "play", "--bench", bench, "-o", tmp_path / "out", "-n", "2")
    assert code == 2 and one_line(err) == f"kari: {games}:1: schema: field 'candidates' must be a list of strings"


@pytest.mark.parametrize("body, code", [
    (StubReply(body=b"<html>gateway says hello</html>", content_type="text/html"), "llm-protocol"),
    (StubReply(body=b'{"id": "x", "choices": [{"message": {"content": "ye'), "llm-unavailable"),
])
def test_llm_http_200_junk_in_induce_and_play(body: StubReply, code: str, bench: Path, tmp_path: Path,
                                              capfd) -> None:
    stub = StubLLMServer(respond=lambda request: body).start()
    try:
        llm = ("--base-url", stub.base_url, "--model", "m", "--llm-attempts", "2", "--cache-dir", tmp_path / "c")
        status, _, err = kari(capfd, "induce", "--bench", bench, "--llm", "openai", *llm, "--out",
                              tmp_path / "r.kari", "-a", "attack_with", "-q")
        assert status == 2 and f": {code}: " in one_line(err)
        manifest = json.loads((tmp_path / "r.run" / "manifest.json").read_text())
        assert manifest["status"] == "failed" and "LLM server" in manifest["error"]
        status, _, err = kari(capfd, "play", "--bench", bench, "-q", "llm", *llm, "-o", tmp_path / "p", "-n", "1")
        assert status == 2 and f": {code}: " in one_line(err)
    finally:
        stub.stop()


@pytest.mark.parametrize("argv, target, kind", [
    (("play", "-o", "{t}", "-n", "1"), "f", "file"),
    (("report", "{run}", "-o", "{t}"), "f", "file"),
    (("induce", "--bench", "{bench}", "--out", "{t}", "-q"), "d", "dir"),
    (("kb", "export", "{t}", "--db", "{kb}"), "d", "dir"),
    (("bench", "build", "{bench}", "-o", "{bench}"), None, None),
])
def test_outputs_that_exist_as_another_kind_of_thing(argv, target, kind, kb: Path, bench: Path, tmp_path: Path,
                                                     capfd) -> None:
    run_dir = tmp_path / "run"
    assert kari(capfd, "play", "--bench", bench, "-q", "fix20q", "-o", run_dir, "-n", "1")[0] == 0
    out = tmp_path / "out"
    if kind == "file":
        out.write_text("keep me\n")
    elif kind == "dir":
        out.mkdir()
    values = {"t": out, "run": run_dir, "bench": bench, "kb": kb}
    code, _, err = kari(capfd, *(a.format(**values) for a in argv))
    assert code == 2 and "output-kind" in one_line(err)
    assert (out.read_text() == "keep me\n") if kind == "file" else (not kind or list(out.iterdir()) == [])


def test_negative_limits_and_a_non_utf8_question_list(kb: Path, tmp_path: Path, capfd) -> None:
    code, _, err = kari(capfd, "kb", "sql", "SELECT 1", "--max-rows", "-1", "--db", kb)
    assert code == 2 and "usage: Invalid value for '--max-rows'" in one_line(err)
    code, _, err = kari(capfd, "kb", "show", "knife", "--limit", "-5", "--db", kb)
    assert code == 2 and "usage: Invalid value for '--limit'" in one_line(err)
    questions = tmp_path / "q.tsv"
    questions.write_bytes(b"dimension\tvalue\nSHAPE\t\xff\xfe\n")
    code, _, err = kari(capfd, "play", "-q", "fix20q", "--questions", questions, "-o", tmp_path / "o", "-n", "1")
    assert code == 2 and one_line(err) == f"kari: {questions}:2:7: encoding: not UTF-8 text (byte 0xff)"
    assert not (tmp_path / "o").exists()


def _sigint_after(argv: list[str], ready: Callable[[], bool], cwd: Path,
                  delay: float = 0.3) -> subprocess.CompletedProcess[str]:
    """Start ``kari ARGV``, send Ctrl-C (SIGINT) ``delay`` seconds after ``ready()`` holds, and wait for it."""
    proc = subprocess.Popen([sys.executable, "-m", "kari", *argv], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not ready() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_ctrl_c_during_kb_load(tmp_path: Path) -> None:
    """Was ``RuntimeError: Query interrupted`` (and a new database left behind)."""
    big = tmp_path / "big.tsv"
    with big.open("w") as handle:
        handle.write("node1\tlabel\tnode2\tdatasource\tweight\n")
        handle.writelines(f"/c/en/a{i}\t/r/IsA\t/c/en/b{i % 997}\tCN\t1.0\n" for i in range(1_500_000))
    db = tmp_path / "new.duckdb"
    done = _sigint_after(["kb", "load", str(big), "--db", str(db)], db.exists, tmp_path, delay=1.0)
    assert done.returncode == 130, done.stdout + done.stderr
    assert one_line(done.stderr) == f"kari: {big}: interrupted: stopped by Ctrl-C: nothing of this file was loaded " \
                                    "(the files before it are)"
    assert not list(tmp_path.glob("new.duckdb*"))


def test_ctrl_c_before_a_files_load_begins_names_the_file(tmp_path: Path, monkeypatch) -> None:
    """A Ctrl-C while the database opens (its schema installed) said only "kari: interrupted"; it names the file
    it kept from loading, as one inside the file's load does, and leaves no new database."""
    import kari.kb.store as store
    from kari.errors import ExitCode, KariError

    kb = tmp_path / "kb.tsv"
    kb.write_text("node1\tlabel\tnode2\n/c/en/a\t/r/IsA\t/c/en/b\n")

    def ctrl_c(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(store, "open_db", ctrl_c)
    with pytest.raises(KariError, match="nothing of this file was loaded") as caught:
        store.load_into(tmp_path / "new.duckdb", [kb])
    assert caught.value.file == str(kb) and caught.value.exit_code == ExitCode.INTERRUPTED
    assert not list(tmp_path.glob("new.duckdb*"))


def test_ctrl_c_during_induce_marks_the_run_interrupted(bench: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "r.run" / "manifest.json"
    done = _sigint_after(["induce", "--bench", str(bench), "--out", str(tmp_path / "r.kari"), "-q"],
                         lambda: manifest.exists(), tmp_path)
    assert done.returncode == 130 and "stopped by Ctrl-C" in one_line(done.stderr)
    assert json.loads(manifest.read_text())["status"] == "interrupted"


def test_a_ctrl_c_swallowed_by_a_library_still_ends_the_command(tmp_path: Path, capfd, monkeypatch,
                                                                ctrl_c_reaches_python) -> None:
    """clingo's Control.__del__ swallowed a KeyboardInterrupt and induce went on to exit 0."""
    from kari import rules as rules_package

    class SwallowsCtrlC:
        def __del__(self) -> None:
            signal.raise_signal(signal.SIGINT)   # raised inside __del__: Python prints "Exception ignored"

    def stats_that_swallow(rules):
        SwallowsCtrlC()
        return {"rules": len(rules)}

    monkeypatch.setattr(rules_package, "rule_stats", stats_that_swallow)
    rules = tmp_path / "r.kari"
    rules.write_text("cut := SHAPE:sharp_edge\n")
    code, out, err = kari(capfd, "rules", "stats", rules)
    assert code == 130 and "rules" in out and one_line(err) == "kari: interrupted"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


# ----------------------------------------------------------------------------------- data lost or corrupted


def test_kb_export_never_replaces_the_database_or_a_fifo(kb: Path, tmp_path: Path, capfd) -> None:
    before = kb.read_bytes()
    code, _, err = kari(capfd, "kb", "export", kb, "--db", kb)
    assert code == 2 and "is a database file; refusing to replace it" in one_line(err) and kb.read_bytes() == before
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = kari(capfd, "kb", "export", fifo, "--db", kb)
    assert code == 2 and "not a regular file" in one_line(err) and stat.S_ISFIFO(fifo.lstat().st_mode)


def test_kb_sql_cannot_write_reach_files_or_the_network(kb: Path, tmp_path: Path, capfd) -> None:
    other = Path(shutil.copy(kb, tmp_path / "other.duckdb"))
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    snapshot = _bytes(kb, other)
    for query in (f"ATTACH '{other}' AS o (READ_WRITE); DROP TABLE o.edges", f"ATTACH '{other}' AS o",
                  f"COPY (SELECT 1) TO '{victim}'", "INSTALL httpfs", f"SELECT * FROM read_csv('{victim}')",
                  "SET enable_external_access = true", "DROP TABLE edges", f"EXPORT DATABASE '{tmp_path / 'x'}'"):
        code, _, err = kari(capfd, "kb", "sql", query, "--db", kb)
        assert code == 2 and "kb-sql" in one_line(err), query
    assert _bytes(kb, other) == snapshot and victim.read_text() == "precious\n" and not (tmp_path / "x").exists()


def test_kb_sql_formats_and_wide_tables(kb: Path, capfd) -> None:
    query = "SELECT node1, relation, node2, repeat('w', 300) AS wide FROM edges ORDER BY node1, node2 LIMIT 3"
    code, out, err = kari(capfd, "kb", "sql", query, "--db", kb)
    assert code == 0 and "w" * 300 in out and "…" not in out
    code, out, _ = kari(capfd, "kb", "sql", query, "--db", kb, "--format", "json")
    rows = json.loads(out)
    assert len(rows) == 3 and set(rows[0]) == {"node1", "relation", "node2", "wide"}
    code, out, _ = kari(capfd, "kb", "sql", query, "--db", kb, "--format", "csv")
    assert out.splitlines()[0] == "node1,relation,node2,wide" and len(out.splitlines()) == 4
    code, out, err = kari(capfd, "kb", "sql", "SELECT node1 FROM edges", "--db", kb, "--format", "csv",
                          "--max-rows", "2")
    assert code == 0 and len(out.splitlines()) == 3 and "only the first 2 rows" in err


def test_a_run_directory_is_locked_while_written(bench: Path, tmp_path: Path, capfd) -> None:
    from kari.io.lock import folder_lock

    out = tmp_path / "run"
    out.mkdir()
    with folder_lock(out):     # another command is writing it
        code, _, err = kari(capfd, "play", "--bench", bench, "-o", out, "-n", "2")
        assert code == 2 and "locked: another kari command is writing this run directory" in one_line(err)
        code, _, err = kari(capfd, "induce", "--bench", bench, "--out", tmp_path / "r.kari", "--run-dir", out, "-q")
        assert code == 2 and "locked" in one_line(err)
    assert sorted(p.name for p in out.iterdir()) == [".kari.lock"]
    assert kari(capfd, "play", "--bench", bench, "-o", out, "-n", "2")[0] == 0


def test_two_plays_at_once_never_duplicate_records(bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "kari", "play", "--bench", str(bench), "-q", "greedy-ig", "-o", str(out), "-n", "40"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for _ in range(2)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    assert sorted(code for code, _ in results) in ([0, 0], [0, 2])
    for code, err in results:
        assert code == 0 or "locked" in one_line(err)
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == len({r["game"] for r in records}) == 40


def test_resume_repairs_a_partial_or_glued_last_record(bench: Path, tmp_path: Path, capfd) -> None:
    out = tmp_path / "run"
    assert kari(capfd, "play", "--bench", bench, "-q", "greedy-ig", "-o", out, "-n", "3")[0] == 0
    games = out / "games.jsonl"
    games.write_text(games.read_text().rstrip("\n"))   # killed just before the last newline
    assert kari(capfd, "play", "--bench", bench, "-q", "greedy-ig", "-o", out, "-n", "5")[0] == 0
    lines = games.read_text().splitlines()
    assert len(lines) == 5 and len({json.loads(x)["game"] for x in lines}) == 5
    games.write_text(lines[0] + lines[1] + "\n" + "\n".join(lines[2:]) + "\n")   # glued by an older kari
    code, _, err = kari(capfd, "report", out)
    assert code == 0, err
    assert kari(capfd, "play", "--bench", bench, "-q", "greedy-ig", "-o", out, "-n", "6")[0] == 0
    records = [json.loads(x) for x in games.read_text().splitlines()]
    assert len(records) == 6 == len({r["game"] for r in records})
    games.write_text(games.read_text() + lines[0][:50])   # cut mid-record: dropped
    assert kari(capfd, "play", "--bench", bench, "-q", "greedy-ig", "-o", out, "-n", "6")[0] == 0
    assert len(games.read_text().splitlines()) == 6


def test_an_unknown_header_is_refused_or_named(kb: Path, tmp_path: Path, capfd) -> None:
    almost = tmp_path / "almost.tsv"
    almost.write_text("id\tnode1\trel\tnode2\ne1\t/c/en/a\t/r/IsA\t/c/en/b\n")
    before = kb.read_bytes()
    code, _, err = kari(capfd, "kb", "load", almost, "--db", kb)
    assert code == 2 and "kb-header: line 1 looks like a header (id, node1, rel, node2)" in one_line(err)
    assert kb.read_bytes() == before
    headerless = tmp_path / "cols.tsv"
    headerless.write_text("col1\tcol2\tcol3\na\tb\tc\n")
    code, out, _ = kari(capfd, "kb", "load", headerless, "--db", kb)
    assert code == 0 and "(triples, no header: line 1 is data): 2 data lines" in out


# ----------------------------------------------------------------------------------- smaller promises


def test_a_language_tagged_double_quoted_string_names_the_kgtk_form(kb: Path, tmp_path: Path, capfd) -> None:
    path = tmp_path / "lang.tsv"
    path.write_text('node1\tlabel\tnode2\n/c/en/a\t/r/IsA\t"text"@en\n')
    code, _, err = kari(capfd, "kb", "load", path, "--db", kb)
    assert code == 2 and "takes no language tag (KGTK writes a language-qualified string as 'text'@lang)" in err
    path.write_text("node1\tlabel\tnode2\n/c/en/a\t/r/IsA\t'text'@en\n")
    assert kari(capfd, "kb", "load", path, "--db", kb)[0] == 0


def test_rules_check_on_a_missing_file_exits_2(tmp_path: Path, capfd) -> None:
    code, out, err = kari(capfd, "rules", "check", tmp_path / "missing.kari")
    assert code == 2 and "missing-file" in out and one_line(err).endswith("1 unreadable")


def test_failed_loads_and_coverage_create_no_database(tmp_path: Path, capfd) -> None:
    new = tmp_path / "new.duckdb"
    code, _, err = kari(capfd, "kb", "load", KB_DATA / "bad_columns.tsv", "--db", new)
    assert code == 2 and not new.exists() and not list(tmp_path.glob("new.duckdb*"))
    rules = tmp_path / "r.kari"
    rules.write_text("cut := SHAPE:sharp_edge\n")
    code, _, err = kari(capfd, "coverage", "--rules", rules, "--db", new)
    assert code == 2 and "database not found" in one_line(err) and not new.exists()


def test_outputs_honour_the_umask_and_fmt_keeps_mode_and_comments(kb: Path, tmp_path: Path, capfd) -> None:
    old = os.umask(0o022)
    try:
        assert kari(capfd, "kb", "export", tmp_path / "e.tsv", "--db", kb)[0] == 0
        assert stat.S_IMODE((tmp_path / "e.tsv").stat().st_mode) == 0o644
        os.umask(0o077)
        assert kari(capfd, "kb", "export", tmp_path / "private.tsv", "--db", kb)[0] == 0
        assert stat.S_IMODE((tmp_path / "private.tsv").stat().st_mode) == 0o600
    finally:
        os.umask(old)
    rules = tmp_path / "r.kari"
    rules.write_bytes("\ufeff# head\ncut := AND(SHAPE:sharp_edge,  MADE_OF:metal)\n# tail 1\n# tail 2\n".encode())
    rules.chmod(0o640)
    code, _, err = kari(capfd, "rules", "fmt", "-i", rules)
    assert code == 0, err
    assert rules.read_text() == "# head\ncut := AND(SHAPE:sharp_edge, MADE_OF:metal)\n# tail 1\n# tail 2\n"
    assert stat.S_IMODE(rules.stat().st_mode) == 0o640
    assert kari(capfd, "rules", "check", rules)[0] == 0


def test_pipeline_checks_its_options_before_any_work(tmp_path: Path, capfd) -> None:
    started = time.monotonic()
    code, _, err = kari(capfd, "pipeline", "--out", tmp_path / "p", "-q", "nonsense")
    assert code == 2 and "unknown questioner 'nonsense'" in one_line(err)
    assert not (tmp_path / "p").exists() and time.monotonic() - started < 5


def test_llm_timeout_and_attempts_are_options(bench: Path, tmp_path: Path, capfd) -> None:
    stub = StubLLMServer(respond=lambda request: StubReply(text="late", delay=3.0)).start()
    try:
        started = time.monotonic()
        code, _, err = kari(capfd, "play", "--bench", bench, "-q", "llm", "--base-url", stub.base_url, "--model",
                            "m", "--llm-timeout", "0.2", "--llm-attempts", "2", "--cache-dir", tmp_path / "c",
                            "-o", tmp_path / "p", "-n", "1")
        assert code == 2 and "failed after 2 attempts: timed out after 0.2 s" in one_line(err)
        assert time.monotonic() - started < 6 and stub.requests == 2
    finally:
        stub.stop()


# ----------------------------------------------------------------------------------- more of their kind


@pytest.mark.parametrize("reply", ['{"rule": ' + "9" * 5000 + "}", '{"rule": ' + "[" * 50_000 + "]" * 50_000 + "}"])
def test_llm_replies_with_huge_numbers_or_deep_nesting_are_llm_json_errors(reply: str) -> None:
    from kari.errors import KariError
    from kari.llm import extract_json_object
    from kari.rules import parse_rule_json

    with pytest.raises(KariError) as err:
        extract_json_object(reply)
    assert err.value.code == "llm-json"
    with pytest.raises(KariError) as err:
        parse_rule_json(reply)
    assert err.value.code in ("json-error", "nesting-too-deep")


def test_a_broken_induce_manifest_or_call_log_is_one_line(bench: Path, tmp_path: Path, capfd) -> None:
    argv = ("induce", "--bench", bench, "--out", tmp_path / "r.kari", "-a", "attack_with", "-q")
    assert kari(capfd, *argv)[0] == 0
    manifest = tmp_path / "r.run" / "manifest.json"
    manifest.write_text('{"cache_key": ' + "9" * 5000 + "}")
    code, _, err = kari(capfd, *argv)
    assert code == 2 and f"kari: {manifest}: induce-run-dir: invalid JSON: Exceeds the limit" in one_line(err)
    from kari.induce.rundir import RunDir

    calls = tmp_path / "r.run" / "calls" / "001.jsonl"
    calls.parent.mkdir()
    calls.write_text('{"cached": true, "prompt_tokens": 3}\n{"cached": fal')   # cut off by a crash
    assert RunDir(tmp_path / "r.run").calls() == [{"cached": True, "prompt_tokens": 3}]


def test_records_missing_the_fields_the_metrics_read_are_run_corrupt(bench: Path, tmp_path: Path, capfd) -> None:
    out = tmp_path / "run"
    assert kari(capfd, "play", "--bench", bench, "-q", "greedy-ig", "-o", out, "-n", "2")[0] == 0
    games = out / "games.jsonl"
    first, second = games.read_text().splitlines()
    record = json.loads(second)
    del record["success"]
    games.write_text(first + "\n" + json.dumps(record) + "\n")
    for argv in (("report", out), ("play", "--bench", bench, "-q", "greedy-ig", "-o", out, "-n", "3")):
        code, _, err = kari(capfd, *argv)
        assert code == 2 and one_line(err) == f"kari: {games}:2: run-corrupt: corrupt record: field 'success' " \
                                              "missing or not bool"


def test_broken_pipe_is_quiet(kb: Path) -> None:
    query = "SELECT * FROM range(200000)"
    proc = subprocess.Popen(f"{sys.executable} -m kari kb sql '{query}' --db {kb} --max-rows 200000 --format csv | head -1",
                            shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    out, err = proc.communicate(timeout=120)
    assert out == "range\n" and "Traceback" not in err and "Exception" not in err, err


@pytest.mark.parametrize("argv, limit", [(("bench", "build", "{bench}", "-o", "{out}"), 20_000),
                                         (("kb", "export", "{out}", "--db", "{kb}"), 5_000)])
def test_a_full_disk_is_one_line_and_leaves_no_output(argv, limit: int, kb: Path, bench: Path,
                                                      tmp_path: Path) -> None:
    """Writes beyond RLIMIT_FSIZE fail with EFBIG, as on a full disk or quota."""
    resource = pytest.importorskip("resource")

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    load_into(kb, [KB_DATA / "cskg_excerpt.tsv"])     # about 30 kB of edges to export
    out = tmp_path / "out" / "games.jsonl"
    command = [a.format(bench=bench, kb=kb, out=out) for a in argv]
    done = subprocess.run([sys.executable, "-m", "kari", *command], preexec_fn=small_files, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2 and "output-write: cannot write" in one_line(done.stderr)
    assert not out.exists() and (not out.parent.exists() or not list(out.parent.iterdir()))


def test_a_build_never_replaces_its_own_inputs(bench: Path, capfd) -> None:
    labels = bench / "labels.jsonl"
    before = labels.read_bytes()
    code, _, err = kari(capfd, "bench", "build", bench, "-o", labels)
    assert code == 2 and "is an input of this command" in one_line(err) and labels.read_bytes() == before


def test_an_unwritable_llm_cache_is_a_warning_not_a_failure(tmp_path: Path, caplog) -> None:
    from kari.llm import LLMConfig, make_chat_client

    stub = StubLLMServer().start()
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be\n")
    try:
        client = make_chat_client(LLMConfig(base_url=stub.base_url, model="m", cache_dir=blocker))
        with caplog.at_level("WARNING", logger="kari.llm"):
            replies = [client.chat([{"role": "user", "content": "hi"}], max_tokens=4) for _ in range(2)]
        assert [r.text for r in replies] == ["echo: hi"] * 2 and stub.requests == 2
        assert len([r for r in caplog.records if "cannot be written" in r.getMessage()]) == 1
    finally:
        stub.stop()


# ==================================================================================== issue 21: the second pass
# Each test below is a case issue 21 listed (or one more of its kind): it broke before it was fixed.


# ----------------------------------------------------------------------------------- one normaliser


def _sql_macros() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(asset_path("kb", "macros.sql").read_text(encoding="utf-8"))
    return con


def test_python_and_sql_normalise_every_code_point_alike() -> None:
    """normalise_term and kari_snake disagreed on 4,389 code points (U+0130 in 'İron', letters newer than
    Python's Unicode tables); a final sigma ('ΟΔΟΣ') too. Every code point, alone and between letters."""
    from kari.core.terms import normalise_term

    con = _sql_macros()
    codes = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    blocks = [codes[i: i + 64] for i in range(0, len(codes), 64)]
    # each code point between two letters (its class and its lower case both show), 64 to a string
    texts = ["".join(f"A{chr(c)}" for c in block) + "b" for block in blocks]
    texts += [chr(c) for c in range(0x80)] + ["ΑΣ", "ΑΣ Β", "Σ", "ςΣ", "İ", " İron ", "Ⅻ", "ǅ"]
    con.execute("CREATE TABLE t AS SELECT unnest(?) AS s", [texts])
    got = dict(con.execute("SELECT s, kari_snake(s) FROM t").fetchall())
    differ = [t for t in texts if normalise_term(t) != got[t]]
    assert not differ, [(t[:20], normalise_term(t)[:40], got[t][:40]) for t in differ[:5]]
    assert normalise_term("İron") == "iron" and normalise_term("ΟΔΟΣ") == "οδοσ"


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40))
def test_python_and_sql_normalise_any_text_alike(text: str) -> None:
    from kari.core.terms import normalise_term

    assert normalise_term(text) == _SQL.execute("SELECT kari_snake(?)", [text]).fetchone()[0]


_SQL = _sql_macros()


# ----------------------------------------------------------------------------------- silent wrong data


def _edges(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT node1, relation, node2, file FROM edges ORDER BY ALL").fetchall()
    finally:
        con.close()


KGTK_ONE = "node1\tlabel\tnode2\n/c/en/{0}\t/r/IsA\t/c/en/thing\n"


@pytest.mark.parametrize("name", ["a[1].tsv", "q*.tsv", "q?x.tsv", "[ab].tsv", "it's.tsv", "b\\x.tsv",
                                  "sp ace.tsv", "g[1].tsv.gz", "j[1].jsonl", "**.tsv"])
def test_glob_and_path_characters_in_a_file_name_load_exactly_that_file(name: str, tmp_path: Path, capfd) -> None:
    """DuckDB expanded 'a[1].tsv' to a1.tsv (10 lines read, 109 edges added from other files)."""
    for decoy in ("a1.tsv", "qzz.tsv", "qyx.tsv", "a.tsv", "b.tsv", "g1.tsv.gz", "j1.jsonl", "zz.tsv"):
        (tmp_path / decoy).write_bytes(gzip.compress(KGTK_ONE.format("decoy").encode()) if decoy.endswith(".gz")
                                       else b'{"subject": "decoy", "relation": "IsA", "object": "x"}\n'
                                       if decoy.endswith(".jsonl") else KGTK_ONE.format("decoy").encode())
    path = tmp_path / name
    text = (f'{{"subject": "mine", "relation": "IsA", "object": "thing"}}\n' if name.endswith(".jsonl")
            else KGTK_ONE.format("mine"))
    path.write_bytes(gzip.compress(text.encode()) if name.endswith(".gz") else text.encode())
    db = tmp_path / "kb.duckdb"
    code, out, err = kari(capfd, "kb", "load", path, "--db", db)
    assert code == 0, err
    assert ": 1 data lines, 1 new edges" in out
    edges = _edges(db)
    assert len(edges) == 1 and "mine" in edges[0][0] and edges[0][3] == str(path.resolve())


def test_a_relative_tilde_folder_is_that_folder_not_home(tmp_path: Path, capfd, monkeypatch) -> None:
    """DuckDB expands a leading '~' in file names and database paths to $HOME."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "~").mkdir()
    (tmp_path / "~" / "kb.tsv").write_text(KGTK_ONE.format("mine"))
    code, _, err = kari(capfd, "kb", "load", "~/kb.tsv", "--db", "~/kb.duckdb")
    assert code == 0, err
    assert (tmp_path / "~" / "kb.duckdb").is_file() and len(_edges(tmp_path / "~" / "kb.duckdb")) == 1


def _not_duckdb(kind: str, path: Path) -> None:
    if kind == "csv":
        path.write_text("a,b\n1,2\n")
    elif kind == "json":
        path.write_text('[{"a": 1}]\n')
    elif kind == "csv.gz":
        path.write_bytes(gzip.compress(b"a,b\n1,2\n"))
    elif kind == "parquet":
        con = duckdb.connect()
        con.execute(f"COPY (SELECT 1 AS a) TO '{path}' (FORMAT parquet)")
        con.close()
    elif kind == "sqlite":
        import sqlite3

        lite = sqlite3.connect(path)
        lite.execute("CREATE TABLE t (a)")
        lite.commit()
        lite.close()


@pytest.mark.parametrize("kind", ["csv", "json", "csv.gz", "parquet", "sqlite"])
@pytest.mark.parametrize("command", ["kb load", "creativity load", "coverage", "vocab", "kb stats"])
def test_a_db_that_is_not_a_duckdb_file_is_refused_before_duckdb_opens_it(kind: str, command: str, tmp_path: Path,
                                                                          capfd) -> None:
    """An existing CSV/JSON/Parquet/.csv.gz as --db was opened as an empty in-memory database ("N new edges", nothing
    stored); an SQLite file made DuckDB try to download an extension."""
    db = tmp_path / f"kb.{kind}"
    _not_duckdb(kind, db)
    before = db.read_bytes()
    rules = tmp_path / "r.kari"
    rules.write_text("cut := SHAPE:sharp_edge\n")
    argv = {"kb load": ("kb", "load", KB_DATA / "views_kb.tsv"),
            "creativity load": ("creativity", "load", asset_path("data", "creativity", "entities.jsonl")),
            "coverage": ("coverage", "--rules", rules, "--bench", asset_path("data", "bench")),
            "vocab": ("vocab",), "kb stats": ("kb", "stats")}[command]
    code, _, err = kari(capfd, *argv, "--db", db)
    assert code == 2 and f"kari: {db}: kb-db: not a DuckDB database: it looks like" in one_line(err)
    assert db.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == sorted([db.name, "r.kari"])


def test_duckdb_never_installs_or_loads_an_extension_by_itself(kb: Path) -> None:
    from kari.kb import open_db

    for read_only in (True, False):
        con = open_db(kb, read_only=read_only)
        assert con.execute("SELECT current_setting('autoinstall_known_extensions'), "
                           "current_setting('autoload_known_extensions')").fetchone() == (False, False)
        con.close()


def _kb_state(db: Path) -> tuple:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return tuple(con.execute(q).fetchall() for q in (
            "SELECT count(*), max(load_id) FROM edges", "SELECT load_id, file, edges_added FROM loads ORDER BY 1",
            "SELECT kind, predicate, term, value, provenance FROM vocabulary ORDER BY ALL"))
    finally:
        con.close()


def _parts_kb(path: Path, parts: int) -> Path:
    with path.open("w") as handle:
        handle.write("node1\tlabel\tnode2\n")
        for i in range(parts):
            handle.write(f"/c/en/thing{i}\t/r/HasA\t/c/en/gizmo{i}_handle\n/c/en/thing{i}\t/r/MadeOf\t/c/en/steel\n")
    return path


def test_ctrl_c_in_the_vocabulary_step_leaves_the_database_as_it_was(kb: Path, tmp_path: Path, capfd,
                                                                     monkeypatch, ctrl_c_reaches_python) -> None:
    """Ctrl-C 4-8 s into the vocabulary step of a KB with 20,000 part names exited 130 but left 40,000 new edges
    and a loads row committed, the vocabulary not updated. Here the real SIGINT handler fires while the vocabulary
    is written, the last step of the file's transaction."""
    from kari.vocab.vocabulary import Vocabulary

    before = _kb_state(kb)
    write_table = Vocabulary.write_table

    def interrupted_write(self, con):
        write_table(self, con)
        signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(Vocabulary, "write_table", interrupted_write)
    big = _parts_kb(tmp_path / "parts.tsv", 2000)
    code, _, err = kari(capfd, "kb", "load", big, "--db", kb)
    assert code == 130 and "interrupted: stopped by Ctrl-C: nothing of this file was loaded" in one_line(err)
    assert _kb_state(kb) == before


def test_the_files_before_a_bad_one_stay_loaded_with_their_words(tmp_path: Path, capfd) -> None:
    """Each file's words reach the vocabulary in that file's transaction (they were stored only after the last
    file, so a bad second file left the first one's words out of the vocabulary)."""
    db = tmp_path / "kb.duckdb"
    code, _, err = kari(capfd, "kb", "load", _parts_kb(tmp_path / "parts.tsv", 3), KB_DATA / "bad_columns.tsv",
                        "--db", db)
    assert code == 2 and "bad_columns.tsv" in one_line(err)
    con = duckdb.connect(str(db), read_only=True)
    terms = {t for (t,) in con.execute("SELECT term FROM vocabulary WHERE kind = 'value'").fetchall()}
    assert {"gizmo0_handle", "gizmo2_handle"} <= terms
    assert con.execute("SELECT count(*) FROM loads").fetchone() == (1,)


def test_vocabulary_step_runs_in_the_file_transaction(kb: Path, tmp_path: Path) -> None:
    """A failure inside the vocabulary step (here a KariError) rolls back the file's edges and loads row too."""
    from kari.errors import KariError
    from kari.kb.store import load_files, open_db

    before = _kb_state(kb)
    con = open_db(kb)

    def failing(con):
        raise KariError("the vocabulary step failed", code="test")

    from kari.kb import store

    try:
        with pytest.raises(KariError, match="vocabulary step failed"):
            store.load_file(con, _parts_kb(tmp_path / "p.tsv", 5), after=failing)
        with store.transaction(con):
            with store.transaction(con):          # an inner block joins the outer transaction
                con.execute("CREATE TABLE scratch (x INT)")
            assert con.execute("SELECT count(*) FROM scratch").fetchone() == (0,)
            con.execute("DROP TABLE scratch")
    finally:
        con.close()
    assert _kb_state(kb) == before
    assert load_files is not None


# ----------------------------------------------------------------------------------- kb sql is closed


def test_kb_sql_reaches_no_file_not_its_temp_folder_nor_its_own_file(kb: Path, tmp_path: Path, capfd) -> None:
    """COPY TO, glob() and read_text() worked inside <db>.tmp/, which DuckDB keeps among its allowed paths."""
    spill = Path(f"{kb}.tmp")
    spill.mkdir()
    for query in (f"COPY (SELECT 1) TO '{spill}/x.csv'", f"SELECT * FROM glob('{spill}/*')",
                  f"SELECT * FROM read_text('{kb}')", f"SELECT * FROM read_blob('{kb}')",
                  f"SELECT * FROM glob('{tmp_path}/*')", "SET temp_directory = '/tmp'",
                  "SET disabled_filesystems = ''"):
        code, _, err = kari(capfd, "kb", "sql", query, "--db", kb)
        assert code == 2 and "kb-sql" in one_line(err), query
    assert list(spill.iterdir()) == []


def test_kb_sql_stops_a_query_past_its_time_limit(kb: Path, capfd) -> None:
    """There was no time limit: a recursive CTE ran until SIGKILL."""
    started = time.monotonic()
    code, _, err = kari(capfd, "kb", "sql", "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) "
                        "SELECT count(*) FROM t", "--db", kb, "--timeout", "1")
    assert code == 2 and "did not finish within 1 s (--timeout) and was stopped" in one_line(err)
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("query", ["WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) "
                                   "SELECT count(*) FROM t", "SELECT count(*) FROM range(1000000000000::BIGINT)"])
def test_ctrl_c_stops_a_runaway_kb_sql_query_at_once(query: str, kb: Path, tmp_path: Path) -> None:
    """The recursive CTE ignored two SIGINTs (90 s); range(1e12) took 68 s to notice Ctrl-C."""
    started = time.monotonic()
    done = _sigint_after(["kb", "sql", query, "--db", str(kb)], lambda: time.monotonic() - started > 2, tmp_path,
                         delay=0.5)
    assert done.returncode == 130 and one_line(done.stderr) == "kari: interrupted"
    assert time.monotonic() - started < 20


def test_kb_sql_without_a_statement_or_with_a_huge_row_limit_is_one_line(kb: Path, capfd) -> None:
    for query in (";", " ; ; ", "/* only a comment */"):
        code, _, err = kari(capfd, "kb", "sql", query, "--db", kb)
        assert code == 2 and one_line(err) == "kari: kb-sql: the query holds no SQL statement", query
    code, _, err = kari(capfd, "kb", "sql", "SELECT 1", "--max-rows", "999999999999999999999", "--db", kb)
    assert code == 2 and "usage: Invalid value for '--max-rows'" in one_line(err)


# ----------------------------------------------------------------------------------- waits and memory


def _llm_argv(stub: StubLLMServer, tmp_path: Path, role: str) -> list[object]:
    parts = {"questioner": ("-q", "llm"), "oracle": ("-q", "fix20q", "--oracle", "llm"),
             "checker": ("-q", "fix20q", "--checker", "llm")}[role]
    return ["play", *parts, "--base-url", stub.base_url, "--model", "m", "--cache-dir", tmp_path / "cache",
            "-o", tmp_path / "run", "-n", "1", "--runs", "1"]


@pytest.mark.parametrize("role", ["questioner", "oracle", "checker"])
def test_a_server_that_drips_its_reply_is_cut_off_at_the_timeout(role: str, bench: Path, tmp_path: Path,
                                                                  capfd) -> None:
    """Headers, then one byte every 2 s: the timeout bounded each read, not the reply (> 120 s with
    --llm-timeout 3 --llm-attempts 2). Now each attempt ends at --llm-timeout."""
    stub = StubLLMServer(respond=lambda request: StubReply(text="MATERIAL:metal", drip=0.4)).start()
    try:
        started = time.monotonic()
        code, _, err = kari(capfd, *_llm_argv(stub, tmp_path, role), "--bench", bench, "--llm-timeout", "1",
                            "--llm-attempts", "2")
        elapsed = time.monotonic() - started
        assert code == 2 and "failed after 2 attempts: timed out after 1 s (the whole reply)" in one_line(err)
        assert elapsed < 10 and stub.requests == 2
    finally:
        stub.stop()


@pytest.mark.parametrize("role", ["questioner", "oracle", "checker"])
def test_a_lone_surrogate_in_a_reply_never_breaks_a_run(role: str, bench: Path, tmp_path: Path, capfd) -> None:
    """A reply holding "\\ud800" was an internal error (exit 70) for the questioner, oracle and checker."""
    stub = StubLLMServer(respond=lambda request: StubReply(text="MATERIAL:metal \ud800 yes")).start()
    try:
        code, _, err = kari(capfd, *_llm_argv(stub, tmp_path, role), "--bench", bench, "--llm-attempts", "1")
        assert code in (0, 2), err
        if code:
            one_line(err)
        for path in (tmp_path / "run").glob("*.jsonl"):
            path.read_bytes().decode("utf-8")            # every record is valid UTF-8
        assert stub.requests >= 1
    finally:
        stub.stop()


@pytest.mark.parametrize("kind", ["symlink-to-dev-zero", "fifo", "directory", "too-large", "symlink-to-a-file"])
def test_cache_entries_that_are_not_regular_files_are_misses(kind: str, tmp_path: Path) -> None:
    """A symlink to /dev/zero was read until the kernel killed kari (24 GB); a FIFO blocked forever."""
    from kari.llm import LLMConfig, make_chat_client
    from kari.llm import cache as cache_module

    stub = StubLLMServer().start()
    messages = [{"role": "user", "content": "hi"}]
    try:
        client = make_chat_client(LLMConfig(base_url=stub.base_url, model="m", cache_dir=tmp_path / "c"))
        assert client.chat(messages, max_tokens=4).text == "echo: hi" and stub.requests == 1
        entry = next((tmp_path / "c").rglob("*.json"))
        good = entry.read_bytes()
        entry.unlink()
        if kind == "symlink-to-dev-zero":
            entry.symlink_to("/dev/zero")
        elif kind == "fifo":
            os.mkfifo(entry)
        elif kind == "directory":
            entry.mkdir()
        elif kind == "too-large":
            entry.write_bytes(good[:-2] + b" " * (cache_module.MAX_ENTRY_BYTES + 1) + b"}\n")
        else:
            (tmp_path / "elsewhere.json").write_bytes(good)
            entry.symlink_to(tmp_path / "elsewhere.json")
        def hung(signum: int, frame: object) -> None:
            raise TimeoutError("reading the cache entry hung")

        previous = signal.signal(signal.SIGALRM, hung)
        signal.alarm(30)
        try:
            again = make_chat_client(LLMConfig(base_url=stub.base_url, model="m", cache_dir=tmp_path / "c"))
            reply = again.chat(messages, max_tokens=4)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
        assert reply.text == "echo: hi" and not reply.cached and stub.requests == 2
        assert again.cache.corrupt_entries == 1
        if kind != "directory":     # the live reply replaced the odd entry (a link itself, never its target)
            assert entry.is_file() and not entry.is_symlink() and json.loads(entry.read_text())["text"] == "echo: hi"
    finally:
        stub.stop()


def test_a_gzip_file_whose_first_line_never_ends_is_not_read_whole(tmp_path: Path) -> None:
    """A 3 MB .tsv.gz whose first line is 3 GiB was read whole into memory. Here 300 MiB without a newline:
    the error names the file and line and the process stays far below the line's size."""
    path = tmp_path / "endless.tsv.gz"
    chunk = b"a" * (1 << 20)
    with gzip.open(path, "wb", compresslevel=9) as handle:
        for _ in range(300):
            handle.write(chunk)
    # the child's own peak (VmHWM of its address space after exec; ru_maxrss would include this process's RSS at fork)
    script = ("import sys\nfrom kari.cli import run\ncode = run(sys.argv[2:])\nhwm = [l for l in "
              "open('/proc/self/status') if l.startswith('VmHWM')]\nopen(sys.argv[1], 'w').write(''.join(hwm))\n"
              "sys.exit(code)")
    report = tmp_path / "hwm.txt"
    done = subprocess.run([sys.executable, "-c", script, str(report), "kb", "load", str(path), "--db",
                           str(tmp_path / "kb.duckdb")], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    stderr = done.stderr
    assert done.returncode == 2
    peak_mib = int(report.read_text().split()[1]) / 1024 if report.read_text() else 0
    assert one_line(stderr) == (f"kari: {path}:1: line-too-long: line longer than 16,777,216 bytes (a text "
                                     "line kari reads is at most that long)")
    assert peak_mib < 250, peak_mib
    assert not (tmp_path / "kb.duckdb").exists()


BOUNDED = [
    (("play", "--runs", "100000000", "-o", "{t}/out"), "--runs"),
    (("play", "-n", "99999999999999999999", "-o", "{t}/out"), "--games"),
    (("induce", "--bench", "{bench}", "--rounds", "99999999999999999999", "--out", "{t}/r.kari"), "--rounds"),
    (("kb", "show", "knife", "--limit", "99999999999999999999", "--db", "{kb}"), "--limit"),
    (("kb", "sql", "SELECT 1", "--max-rows", "999999999999999999999", "--db", "{kb}"), "--max-rows"),
    (("play", "-q", "fix20q", "--softmax-temperature", "nan", "-o", "{t}/out"), "--softmax-temperature"),
    (("play", "-q", "llm", "--llm-timeout", "inf", "-o", "{t}/out"), "--llm-timeout"),
    (("play", "--llm-timeout", "nan", "-o", "{t}/out"), "--llm-timeout"),
    (("play", "--eps", "nan", "-o", "{t}/out"), "--eps"),
    (("play", "--oracle-noise", "inf", "-o", "{t}/out"), "--oracle-noise"),
    (("play", "--concurrency", "100000", "-o", "{t}/out"), "--concurrency"),
    (("induce", "--bench", "{bench}", "--llm-timeout", "inf", "--out", "{t}/r.kari"), "--llm-timeout"),
    (("induce", "--bench", "{bench}", "--min-precision", "nan", "--out", "{t}/r.kari"), "--min-precision"),
    (("induce", "--bench", "{bench}", "--cv", "0", "--out", "{t}/r.kari"), "--cv"),
    (("creativity", "solve", "--tasks", "{t}/t.jsonl", "--llm-timeout", "inf", "-o", "{t}/out"), "--llm-timeout"),
    (("export-prompts", "--rules", "{t}/r.kari", "--budget", "-1", "--out", "{t}/out"), "--budget"),
    (("coverage", "--rules", "{t}/r.kari", "--db", "{kb}", "--time-limit", "inf"), "--time-limit"),
    (("kb", "sql", "SELECT 1", "--timeout", "nan", "--db", "{kb}"), "--timeout"),
    (("bench", "build", "{bench}", "-n", "99999999999999999999", "-o", "{t}/g.jsonl"), "--games"),
]


@pytest.mark.parametrize("argv, option", BOUNDED, ids=[" ".join(a[:2]) + " " + o for a, o in BOUNDED])
def test_huge_counts_and_non_finite_numbers_are_refused_up_front(argv, option: str, kb: Path, bench: Path,
                                                                 tmp_path: Path, capfd) -> None:
    """play --runs 100000000 grew by 200 MB/s before its first game, induce --rounds 99999999999999999999 was
    killed at 24 GB; --softmax-temperature nan, --llm-timeout inf and kb show --limit 99...9 were exit 70;
    export-prompts --budget -1 wrote "at most -1 questions"; a failed induce --cv 0 left OUT.run/ behind."""
    started = time.monotonic()
    code, _, err = kari(capfd, *(a.format(t=tmp_path, kb=kb, bench=bench) for a in argv))
    assert code == 2 and f"usage: Invalid value for '{option}'" in one_line(err)
    assert time.monotonic() - started < 5
    assert not [p for p in tmp_path.iterdir() if p.name not in ("kb.duckdb", "bench")]


def test_every_count_option_names_its_bound_in_help(capfd) -> None:
    for argv, text in ((("play", "--help"), "1<=x<=1000"), (("induce", "--help"), "1<=x<=100"),
                       (("kb", "show", "--help"), "1<=x<=10000000"), (("play", "--help"), "0<x<=86400")):
        code, out, _ = kari(capfd, *argv)
        assert code == 0 and text in out, argv


# ----------------------------------------------------------------------------------- internal errors -> one line


def _damage(db: Path, how: str) -> None:
    con = duckdb.connect(str(db))
    if how == "vocabulary-columns":
        con.execute("DROP TABLE vocabulary")
        con.execute("CREATE TABLE vocabulary (x INTEGER, y VARCHAR)")
        con.execute("INSERT INTO vocabulary VALUES (1, 'a')")
    else:
        con.execute("DROP VIEW object_property")
    con.close()


@pytest.mark.parametrize("how", ["vocabulary-columns", "no-object-property-view"])
@pytest.mark.parametrize("command", ["coverage", "induce", "kb load", "kb stats", "kb sql"])
def test_a_damaged_kb_database_is_kb_damaged(how: str, command: str, kb: Path, tmp_path: Path, capfd) -> None:
    """A vocabulary table with other columns, or the object_property view dropped, were internal errors in
    coverage, induce and kb load."""
    _damage(kb, how)
    before = kb.read_bytes()
    rules = tmp_path / "r.kari"
    rules.write_text("cut := SHAPE:sharp_edge\n")
    argv = {"coverage": ("coverage", "--rules", rules), "induce": ("induce", "--out", tmp_path / "r2.kari", "-q"),
            "kb load": ("kb", "load", KB_DATA / "triples.csv"), "kb stats": ("kb", "stats"),
            "kb sql": ("kb", "sql", "SELECT 1")}[command]
    code, _, err = kari(capfd, *argv, "--db", kb)
    assert code == 2 and one_line(err).startswith(f"kari: {kb}: kb-damaged: the ")
    assert kb.read_bytes() == before


def test_output_the_terminal_cannot_encode_is_escaped(kb: Path) -> None:
    """PYTHONIOENCODING=ascii with non-ASCII output was an internal error."""
    for fmt in ("table", "csv", "json"):
        done = subprocess.run([sys.executable, "-m", "kari", "kb", "sql", "SELECT 'café' AS x", "--db", str(kb),
                               "--format", fmt], capture_output=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "ascii"})
        assert done.returncode == 0, done.stderr
        assert any(form in done.stdout for form in (b"caf\\xe9", b"caf\\u00e9", "café".encode())), done.stdout


def test_interactive_play_names_a_stdin_line_that_is_not_utf8(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "kari", "play", "--interactive", "-o", str(tmp_path / "run")],
                          input=b"MATERIAL:metal\n\xff\xfe not text\n", capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    assert one_line(done.stderr.decode()) == "kari: <stdin>:2: encoding: not UTF-8 text"


# ----------------------------------------------------------------------------------- smaller, same standard


def test_a_nul_escape_in_json_is_refused_like_a_nul_byte(kb: Path, bench: Path, tmp_path: Path, capfd) -> None:
    """A \\u0000 escape in JSONL put a NUL into the database although NUL bytes are refused."""
    triples = tmp_path / "t.jsonl"
    triples.write_text('{"subject": "a", "relation": "IsA", "object": "b"}\n'
                       '{"subject": "a\\u0000b", "relation": "IsA", "object": "c"}\n')
    before = kb.read_bytes()
    code, _, err = kari(capfd, "kb", "load", triples, "--db", kb)
    assert code == 2 and one_line(err) == f"kari: {triples}:2: kb-value: subject holds a NUL character (\\u0000)"
    assert kb.read_bytes() == before
    objects = bench / "objects.jsonl"
    lines = objects.read_text().splitlines()
    lines[2] = lines[2].replace('"description": "', '"description": "\\u0000', 1)
    objects.write_text("\n".join(lines) + "\n")
    code, out, err = kari(capfd, "bench", "validate", bench)
    assert code == 1 and f"{objects}:3:" in out and "NUL character" in out
    rules = tmp_path / "r.jsonl"
    rules.write_text('{"affordance": "cut", "rule": "SHAPE:sharp_edge", "note": "x\\u0000"}\n')
    code, _, err = kari(capfd, "rules", "stats", rules)
    assert code == 2 and f"{rules}:1:" in one_line(err) and "NUL character" in err
    escaped = tmp_path / "ok.jsonl"       # an escaped backslash before u0000 is text, not a NUL
    escaped.write_text('{"subject": "a\\\\u0000b", "relation": "IsA", "object": "c"}\n')
    assert kari(capfd, "kb", "load", escaped, "--db", kb)[0] == 0


def test_a_full_disk_names_the_file_of_a_run_log(bench: Path, tmp_path: Path) -> None:
    """"No space left on device" named no file (appends to games.jsonl and the LLM call log)."""
    resource = pytest.importorskip("resource")

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))  # plan.json (8 kB) fits, 5 records do not

    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "kari", "play", "--bench", str(bench), "-q", "greedy-ig", "-o", str(out),
                           "-n", "5"], preexec_fn=small_files, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    assert one_line(done.stderr).startswith(f"kari: {out / 'games.jsonl'}: output-write: cannot write: File too large")


def test_coverage_with_a_benchmark_creates_a_new_database(tmp_path: Path, capfd) -> None:
    """induce --bench B --db NEW created the database, coverage --bench B --db NEW refused ("database not
    found"): a user with a benchmark and hand-written rules had no command that makes one."""
    rules = tmp_path / "r.kari"
    rules.write_text("cut := SHAPE:sharp_edge\n")
    db = tmp_path / "new.duckdb"
    code, out, err = kari(capfd, "coverage", "--rules", rules, "--bench", asset_path("data", "bench"), "--db", db)
    assert code == 0, err
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM coverage").fetchone()[0] > 0
    assert con.execute("SELECT count(*) FROM vocabulary").fetchone()[0] > 0
    con.close()
    broken = tmp_path / "broken"
    shutil.copytree(asset_path("data", "bench"), broken)
    (broken / "objects.jsonl").write_text("")
    code, _, err = kari(capfd, "coverage", "--rules", rules, "--bench", broken, "--db", tmp_path / "other.duckdb")
    assert code == 2 and not list(tmp_path.glob("other.duckdb*"))


def test_export_prompts_never_replaces_its_rules_and_keeps_colliding_game_ids_apart(bench: Path, tmp_path: Path,
                                                                                     capfd) -> None:
    """--rules OUT/prompts.jsonl --out OUT overwrote its rules input; game ids a/b and a_b both became
    prompts/a_b.txt (one prompt lost)."""
    out = tmp_path / "out"
    out.mkdir()
    rules = out / "prompts.jsonl"
    rules.write_text('{"affordance": "cut", "rule": "SHAPE:sharp_edge"}\n')
    before = rules.read_bytes()
    code, _, err = kari(capfd, "export-prompts", "--rules", rules, "--bench", bench, "--match", "exact",
                        "--out", out, "-n", "2")
    assert code == 2 and f"kari: {rules}: output-is-input: is an input of this command" in one_line(err)
    assert rules.read_bytes() == before and sorted(p.name for p in out.iterdir()) == ["prompts.jsonl"]
    games = bench / "games.jsonl"
    records = [json.loads(line) for line in games.read_text().splitlines()[:3]]
    for record, new_id in zip(records, ("a/b", "a_b", "A_B")):
        record["id"] = new_id
    games.write_text("".join(json.dumps(r) + "\n" for r in records))
    code, _, err = kari(capfd, "export-prompts", "--rules", rules, "--bench", bench, "--match", "exact",
                        "--out", tmp_path / "p")
    assert code == 0, err
    files = sorted(p.name for p in (tmp_path / "p" / "prompts").iterdir())
    assert len(files) == 3 and all(name.endswith(".txt") for name in files)
    assert len({(tmp_path / "p" / "prompts" / name).read_text() for name in files}) >= 1


def test_induce_never_writes_its_jsonl_over_a_benchmark_file(bench: Path, tmp_path: Path, capfd) -> None:
    """induce --bench B --out B/objects.kari wrote B/objects.jsonl (the JSONL beside the output) over the
    benchmark's own file."""
    before = (bench / "objects.jsonl").read_bytes()
    code, _, err = kari(capfd, "induce", "--bench", bench, "--out", bench / "objects.kari", "-q")
    assert code == 2 and f"kari: {bench / 'objects.jsonl'}: output-is-input: is an input" in one_line(err)
    assert (bench / "objects.jsonl").read_bytes() == before and not (bench / "objects.run").exists()


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(st.one_of(st.none(), st.frozensets(st.sampled_from([("SHAPE", v, "whole") for v in "abcdef"]),
                                                     min_size=1)), max_size=14))
def test_subsumed_branches_are_those_of_the_pairwise_definition(sets) -> None:
    """The near-linear subsumption check (5,000 branches took 73 s) finds what comparing every pair finds."""
    from kari.rules.simplification import subsumed_indices

    pairwise = [i for i, mine in enumerate(sets) if mine is not None and any(
        j != i and other is not None and other <= mine and (other != mine or j < i) for j, other in enumerate(sets))]
    assert subsumed_indices(sets) == pairwise


def test_every_edge_keeps_its_own_line_when_the_file_is_read_on_all_threads(tmp_path: Path) -> None:
    """The raw lines are copied on all threads in file order and numbered by row id (the load used to number
    them on one thread): every edge must still name its own line, lists in node2 included."""
    path = tmp_path / "big.tsv"
    with path.open("w") as handle:
        handle.write("node1\tlabel\tnode2\n")
        for line in range(2, 400_002):
            node2 = f"/c/en/a{line}|/c/en/b{line}" if line % 97 == 0 else f"/c/en/x{line % 1000}"
            handle.write(f"/c/en/n{line}\t/r/RelatedTo\t{node2}\n")
    db = tmp_path / "kb.duckdb"
    load_into(db, [path])
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM edges").fetchone()[0] == 400_000 + 400_000 // 97
    assert con.execute("SELECT count(*) FROM edges WHERE line <> CAST(regexp_extract(node1, 'n([0-9]+)', 1) "
                       "AS BIGINT)").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM edges WHERE contains(node2, '/a') AND NOT ends_with(node2, "
                       "CAST(line AS VARCHAR))").fetchone()[0] == 0


WORDS = ["steel", "steels", "metal", "metallic", "glass", "glasses", "wooden", "wood", "forged_steel", "alu",
         "aluminium", "aluminum"]


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.lists(st.tuples(st.sampled_from(["value", "synonym", "lookup"]), st.sampled_from(WORDS),
                          st.sampled_from(WORDS)), max_size=25))
def test_lookups_kept_across_changes_equal_a_fresh_vocabulary(ops) -> None:
    """The vocabulary keeps cached lookups across additions (clearing them all made loading n words O(n^2)):
    every lookup must equal that of a vocabulary built afresh from the same rows."""
    from kari.vocab.vocabulary import Vocabulary
    from kari.errors import KariError

    vocab, values, synonyms = Vocabulary(), [], []
    for op, a, b in ops:
        if op == "value":
            vocab.add_value("MADE_OF", a)
            values.append(("MADE_OF", a))
        elif op == "synonym":
            try:
                vocab.add_synonym("MADE_OF", a, b)
            except KariError:
                continue
            synonyms.append(("MADE_OF", a, b))
        else:
            fresh = Vocabulary.from_rows(values=values, synonyms=synonyms)
            assert vocab.lookup("MADE_OF", a) == fresh.lookup("MADE_OF", a)
            assert vocab.lookup("MADE_OF", a, forms=False) == fresh.lookup("MADE_OF", a, forms=False)


def test_an_output_whose_temporary_sibling_cannot_be_made_is_named_as_given(tmp_path: Path) -> None:
    """A folder that refuses new files (here /proc) made the error name kari's temporary file
    (``/proc/.g.csv.1a2b3c4d.tmp``), a path the user never wrote."""
    from kari.errors import KariError
    from kari.io.atomic import atomic_write_text

    with pytest.raises(KariError) as caught:
        atomic_write_text("/proc/g.csv", "x")
    assert str(caught.value).startswith("/proc/g.csv: output-write: cannot write") and ".tmp" not in str(caught.value)
