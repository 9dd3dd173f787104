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
from llm_server import StubLLMServer, StubReply

from kari.cli import run
from kari.kb import load_into
from kari.resources import asset_path

KB_DATA = Path(__file__).parent / "data" / "kb"
ROOT = Path(__file__).resolve().parents[1]


def kari(capfd: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    """Run one ``kari`` command line in-process; (exit code, stdout, stderr)."""
    capfd.readouterr()
    code = run([str(a) for a in argv])
    out, err = capfd.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("kari: ") and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    path = tmp_path / "kb.duckdb"
    load_into(path, [KB_DATA / "views_kb.tsv"])
    return path


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    return Path(shutil.copytree(asset_path("data", "bench"), tmp_path / "bench"))


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
        assert code == 1 and f"{rules}:1: json-error: invalid JSON: Exceeds the limit" in one_line(err), argv
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


def test_ctrl_c_during_induce_marks_the_run_interrupted(bench: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "r.run" / "manifest.json"
    done = _sigint_after(["induce", "--bench", str(bench), "--out", str(tmp_path / "r.kari"), "-q"],
                         lambda: manifest.exists(), tmp_path)
    assert done.returncode == 130 and "stopped by Ctrl-C" in one_line(done.stderr)
    assert json.loads(manifest.read_text())["status"] == "interrupted"


def test_a_ctrl_c_swallowed_by_a_library_still_ends_the_command(tmp_path: Path, capfd, monkeypatch) -> None:
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
    from kari.domain.terms import normalise_term

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
    from kari.domain.terms import normalise_term

    assert normalise_term(text) == _SQL.execute("SELECT kari_snake(?)", [text]).fetchone()[0]


_SQL = _sql_macros()
