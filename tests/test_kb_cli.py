"""``kari kb ...``: output, exit codes, one-line errors. In-process through ``kari.cli.main`` (which turns a
KariError into one stderr line and the exit code), plus one real subprocess run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from test_kb_helpers import DATA

from kari.cli import main


def kari(capsys, *args: str) -> tuple[int, str, str]:
    """Run ``kari kb ARGS`` in-process; return (exit code, stdout, stderr)."""
    try:
        main(["kb", *args])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "kb.duckdb"
    done = subprocess.run([sys.executable, "-m", "kari", "kb", "load", str(DATA / "views_kb.tsv"),
                           str(DATA / "triples.csv"), "--db", str(path)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "views_kb.tsv (kgtk): 12 data lines, 12 new edges" in done.stdout
    return path


def test_bad_file_in_a_subprocess(db):
    done = subprocess.run([sys.executable, "-m", "kari", "kb", "load", str(DATA / "bad_escape.tsv"), "--db", str(db)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == f"kari: {DATA / 'bad_escape.tsv'}:3: kb-value: column node2: bad backslash escape"


def test_stats(db, capsys):
    code, out, _ = kari(capsys, "stats", "--db", str(db), "--json")
    result = json.loads(out)
    assert code == 0 and result["edges"] == 14 and result["relations"]["/r/MadeOf"] == 3
    assert result["sources"]["hand"] == 2
    code, out, _ = kari(capsys, "stats", "--db", str(db))
    assert code == 0 and out.startswith("edges\t14\nnodes\t")


def test_sql_is_read_only(db, capsys):
    code, out, _ = kari(capsys, "sql", "--db", str(db),
                        "SELECT object, part, value FROM object_property WHERE object = 'spoon' ORDER BY part")
    assert code == 0 and "bowl" in out and "round" in out
    code, _, err = kari(capsys, "sql", "--db", str(db), "DELETE FROM edges")
    assert code == 2 and "read-only" in err and len(err.strip().splitlines()) == 1
    code, _, err = kari(capsys, "sql", "--db", str(db), "SELEC 1")
    assert code == 2 and "kb-sql" in err


def test_show(db, capsys):
    code, out, _ = kari(capsys, "show", "/c/en/knife", "--db", str(db))    # no such id: matched by label
    assert code == 0 and "/r/HasA" in out and "triples.csv" in out
    code, _, err = kari(capsys, "show", "unicorn", "--db", str(db))
    assert code == 1 and "no edges" in err


def test_failed_load_leaves_db_unchanged(db, capsys):
    code, _, err = kari(capsys, "load", str(DATA / "bad_columns.tsv"), "--db", str(db))
    assert code == 2 and f"{DATA / 'bad_columns.tsv'}:4:" in err
    assert json.loads(kari(capsys, "stats", "--db", str(db), "--json")[1])["edges"] == 14


def test_export_and_default_db(db, capsys, tmp_path, monkeypatch):
    out = tmp_path / "edges.tsv"
    code, text, _ = kari(capsys, "export", "--db", str(db), str(out))
    assert code == 0 and out.read_text(encoding="utf-8").startswith("id\tnode1\trelation\tnode2")
    monkeypatch.chdir(tmp_path)
    code, text, _ = kari(capsys, "load", str(out), "--format", "kgtk")      # default ./kari.duckdb
    assert code == 0 and (tmp_path / "kari.duckdb").is_file() and "14 new edges" in text


def test_missing_db_and_unknown_format(tmp_path, capsys):
    code, _, err = kari(capsys, "stats", "--db", str(tmp_path / "none.duckdb"))
    assert code == 2 and "database not found" in err
    code, _, err = kari(capsys, "load", str(DATA / "triples.csv"), "--db", str(tmp_path / "x.duckdb"),
                        "--format", "rdf")
    assert code == 2 and "unknown format" in err
