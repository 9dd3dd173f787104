"""Coverage tables and views in DuckDB, and the `kari coverage` command end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
from solver_fixtures import a
from typer.testing import CliRunner

from kari.cli import app
from kari.rules.ast import Rule
from kari.core.solver_types import CoverageRow
from kari.solver.store import write_coverage


def test_views_compute_recall_precision_and_the_game_figure(tmp_path: Path) -> None:
    rows = [CoverageRow("cut", "knife", True, 0, "blade", 0), CoverageRow("cut", "mug", True, 1, None, 0),
            CoverageRow("cut", "saw", False, None, None, 0), CoverageRow("eat", "knife", False, None, None, 1),
            CoverageRow("eat", "mug", False, None, None, 1), CoverageRow("eat", "saw", False, None, None, 1)]
    labels = [("cut", "knife", True), ("cut", "saw", True), ("cut", "mug", False), ("eat", "mug", False)]
    con = duckdb.connect(str(tmp_path / "c.duckdb"))
    write_coverage(con, rows, "strict", labels, [("g1", "knife", "cut"), ("g2", "saw", "cut"), ("g3", "mug", "fly")],
                   {"cut": ["knife", "saw"]}, folder=str(tmp_path))
    assert con.execute("SELECT count(*), count(part), sum(covered::INT) FROM coverage").fetchone() == (6, 1, 2)
    assert con.execute("SELECT positives, covered_positives, recall FROM rule_recall WHERE rule = 0").fetchone() == (2, 1, 0.5)
    assert con.execute("SELECT recall FROM rule_recall WHERE rule = 1").fetchone() == (None,)
    assert con.execute("SELECT true_positives, false_positives, precision, false_positive_rate FROM rule_precision "
                       "WHERE rule = 0").fetchone() == (1, 1, 0.5, 1.0)
    assert con.execute("SELECT covered_objects, share FROM affordance_coverage WHERE affordance = 'cut'").fetchone() == (2, 0.6667)
    assert con.execute("SELECT game, has_rule, target_covers_object FROM game_rule_match ORDER BY game").fetchall() == [
        ("g1", True, True), ("g2", True, False), ("g3", False, False)]
    assert con.execute("SELECT * FROM representatives ORDER BY rank").fetchall() == [("cut", "knife", 1, 0), ("cut", "saw", 2, 0)]
    assert not list(tmp_path.glob(".kari-coverage-*"))  # temporary files are gone


def _bench(root: Path) -> Path:
    objects = [{"id": "knife", "parts": ["blade"], "properties": [
                   {"part": "blade", "predicate": "SHAPE", "value": "sharp_edge"},
                   {"part": "blade", "predicate": "MADE_OF", "value": "steel"}]},
               {"id": "mug", "parts": [], "properties": [{"part": "whole", "predicate": "SHAPE", "value": "hollow"}]}]
    files = {"objects.jsonl": objects, "affordances.jsonl": [{"id": "cut"}, {"id": "hold_things"}],
             "labels.jsonl": [{"object": "knife", "affordance": "cut", "label": True},
                              {"object": "mug", "affordance": "cut", "label": False}],
             "games.jsonl": [{"id": "g1", "object": "knife", "target": "cut", "candidates": ["cut", "hold_things"]},
                             {"id": "g2", "object": "mug", "target": "hold_things", "candidates": ["cut", "hold_things"]}]}
    root.mkdir()
    for name, records in files.items():
        (root / name).write_text("".join(json.dumps(r) + "\n" for r in records))
    return root


def _empty_kb(path: Path) -> Path:
    from kari.kb import open_db

    open_db(path).close()
    return path


def test_kari_coverage_writes_tables_and_prints_the_summary(tmp_path: Path) -> None:
    from kari.rules import dump_rules_kari

    rules = tmp_path / "rules.kari"
    rules.write_text(dump_rules_kari([Rule("cut", a("SHAPE:sharp_edge")), Rule("pierce", a("MADE_OF:metal"))]))
    db = _empty_kb(tmp_path / "kb.duckdb")
    result = CliRunner().invoke(app, ["coverage", "--rules", str(rules), "--db", str(db),
                                      "--bench", str(_bench(tmp_path / "bench")), "--semantics", "strict"])
    assert result.exit_code == 0, result.output
    assert "2 rules x 2 objects = 4 pairs, covered 2/4" in result.output
    assert "affordances 1 of 2 (50.0%)" in result.output  # cut matched by sentence similarity, hold_things not
    assert "games whose target has a matched rule 1 of 2 (50.0%)" in result.output
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT affordance, object, covered FROM coverage WHERE covered ORDER BY ALL").fetchall() == [
        ("cut", "knife", True), ("pierce", "knife", True)]
    assert con.execute("SELECT recall FROM rule_recall WHERE affordance = 'cut'").fetchone() == (1.0,)


def test_kari_coverage_bad_value_is_one_line_naming_the_rule(tmp_path: Path) -> None:
    rules = tmp_path / "rules.kari"
    rules.write_text("cut := MADE_OF:sharp_edge\n")
    out = subprocess.run([sys.executable, "-m", "kari", "coverage", "--rules", str(rules), "--db",
                          str(_empty_kb(tmp_path / "kb.duckdb")), "--bench", str(_bench(tmp_path / "bench"))],
                         check=False, capture_output=True, text=True)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "cut" in out.stderr and "ill-typed" in out.stderr and len(out.stderr.strip().splitlines()) == 1
