"""kari bench validate: the shipped benchmark passes; each kind of problem is caught at the right file:line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kari.bench.validate import validate_bench
from kari.cli import app
from kari.errors import KariError
from kari.resources import bundled_bench_dir


@pytest.fixture()
def bench(tmp_path: Path) -> Path:
    target = tmp_path / "bench"
    shutil.copytree(bundled_bench_dir(), target)
    return target


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, records: list) -> None:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")


def _codes(root: Path) -> list[tuple[str, int, str]]:
    return [(Path(p.file).name, p.line, p.code) for p in validate_bench(root).problems]


def test_shipped_bench_is_valid() -> None:
    report = validate_bench(bundled_bench_dir())
    assert report.ok, [str(p) for p in report.problems[:5]]
    assert report.counts["games.jsonl"] > 0


def test_bad_json_is_a_problem_but_words_are_notes(bench: Path) -> None:
    objects = _lines(bench / "objects.jsonl")
    objects[4]["properties"][0] = {"part": "whole", "predicate": "MADE_OF", "value": "metallic"}
    objects[5]["properties"].append({"part": "whole", "predicate": "MADE_OF", "value": "Kevlar"})
    objects[6]["properties"].append({"part": "whole", "predicate": "SHAPE", "value": "absorbent"})
    objects[7]["properties"].append({"part": "lid", "predicate": "COLOR", "value": "red"})
    _write(bench / "objects.jsonl", [*objects[:9], "{not json", *objects[9:]])
    report = validate_bench(bench)
    problems = _codes(bench)
    assert ("objects.jsonl", 8, "unknown-part") in problems
    assert ("objects.jsonl", 8, "unknown-predicate") in problems
    assert ("objects.jsonl", 10, "json") in problems
    assert not [p for p in problems if p[2] in ("unknown-value", "banned-value")]
    mapped = report.words.distinct("synonym")
    assert ("MADE_OF", "metallic", "metal", f"{bench / 'objects.jsonl'}:5") in mapped
    assert ("MADE_OF", "Kevlar", "kevlar", f"{bench / 'objects.jsonl'}:6") in report.words.distinct("added")
    assert [row[:3] for row in report.words.distinct("banned")] == [("SHAPE", "absorbent", None)]


def test_label_problems(bench: Path) -> None:
    labels = _lines(bench / "labels.jsonl")
    first = labels[0]
    labels += [{"object": "no_such_object", "affordance": first["affordance"], "label": True},
               {"object": first["object"], "affordance": "no_such_aff", "label": False},
               {**first, "label": not first["label"]},
               {**first, "label": "yes"}]
    _write(bench / "labels.jsonl", labels)
    n = len(labels)
    assert set(_codes(bench)) >= {("labels.jsonl", n - 3, "unknown-object"), ("labels.jsonl", n - 2, "unknown-affordance"),
                                  ("labels.jsonl", n - 1, "conflicting-label"), ("labels.jsonl", n, "schema")}


def test_game_problems(bench: Path) -> None:
    games = _lines(bench / "games.jsonl")
    labels = {(r["object"], r["affordance"]): r["label"] for r in _lines(bench / "labels.jsonl")}
    g = games[0]
    distractor = next(c for c in g["candidates"] if c != g["target"])
    positives = [a for (o, a), t in labels.items() if o == g["object"] and t and a != g["target"]]
    games[1] = {**games[1], "candidates": games[1]["candidates"][:7]}                     # line 2: 7 candidates
    games[2] = {**games[2], "target": next(c for c in games[2]["candidates"]
                                           if c != games[2]["target"])}                   # line 3: target false
    games[3] = {**games[3], "object": "ghost"}                                            # line 4: unknown object
    games[4] = {**games[4], "candidates": [*games[4]["candidates"][:7], "no_such_aff"]}  # line 5
    games[5] = {**games[5], "id": games[0]["id"]}                                         # line 6: duplicate id
    if positives:                                                                         # line 1: distractor true
        games[0] = {**g, "candidates": [positives[0] if c == distractor else c for c in g["candidates"]]}
    _write(bench / "games.jsonl", games)
    problems = _codes(bench)
    assert ("games.jsonl", 2, "candidates") in problems
    assert ("games.jsonl", 3, "target-label") in problems
    assert ("games.jsonl", 4, "unknown-object") in problems
    assert ("games.jsonl", 5, "unknown-affordance") in problems
    assert ("games.jsonl", 6, "duplicate-id") in problems
    if positives:
        assert ("games.jsonl", 1, "distractor-label") in problems


def test_unlabelled_distractor(bench: Path) -> None:
    games = _lines(bench / "games.jsonl")
    labels = [r for r in _lines(bench / "labels.jsonl")
              if not (r["object"] == games[0]["object"] and r["affordance"] == next(
                  c for c in games[0]["candidates"] if c != games[0]["target"]))]
    _write(bench / "labels.jsonl", labels)
    assert ("games.jsonl", 1, "distractor-label") in _codes(bench)


def test_unreadable_input_raises(tmp_path: Path, bench: Path) -> None:
    with pytest.raises(KariError):
        validate_bench(tmp_path / "missing")
    (bench / "labels.jsonl").unlink()
    with pytest.raises(KariError, match="labels.jsonl"):
        validate_bench(bench)


def test_cli_exit_codes(bench: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["bench", "validate", str(bench)]).exit_code == 0
    (bench / "affordances.jsonl").write_text('{"id": "Not Snake"}\n', encoding="utf-8")
    result = runner.invoke(app, ["bench", "validate", str(bench)])
    assert result.exit_code == 1
    assert "affordances.jsonl:1: affordance-id" in result.output


def test_a_bom_and_json_strings_with_line_separators_read_as_written(bench: Path) -> None:
    """A BOM at the start of objects.jsonl was 'invalid JSON' (every other reader drops it), and a description
    holding U+2028 or a form feed split its line in two (str.splitlines), so the object was lost and every later
    line number was off by one."""
    objects = bench / "objects.jsonl"
    rows = _lines(objects)
    rows[0]["description"] = "a line\u2028separator, a paragraph\u2029one and a \x0c feed"
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    objects.write_text("\ufeff" + text, encoding="utf-8")
    report = validate_bench(bench)
    assert report.ok, [str(p) for p in report.problems[:3]]
    assert report.counts["objects.jsonl"] == len(rows)
    rows[5] = "{not json"
    objects.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\r\n"
                               for r in rows), encoding="utf-8")
    assert ("objects.jsonl", 6, "json") in _codes(bench)
