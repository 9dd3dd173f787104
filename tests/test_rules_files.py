"""Rule files (.kari, .jsonl) and the ``kari rules`` commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kari.cli import main
from kari.errors import KariError
from kari.resources import asset_path
from kari.rules import (
    Rule,
    RuleSyntaxError,
    check_file,
    dump_rules_jsonl,
    dump_rules_kari,
    load_rules,
    parse_rule,
    rule_stats,
)
from kari.vocab.vocabulary import Vocabulary

PAPER = asset_path("grammar", "examples", "valid", "paper.kari")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_kari_and_jsonl_round_trip(tmp_path: Path) -> None:
    rules = load_rules(PAPER)
    assert rules[0].metadata["comments"][0].startswith("The two rules printed")
    (tmp_path / "a.kari").write_text(dump_rules_kari(rules))
    (tmp_path / "b.kari").write_text(dump_rules_kari(rules, pretty=True))
    (tmp_path / "c.jsonl").write_text(dump_rules_jsonl(rules))
    for name in ("a.kari", "b.kari", "c.jsonl"):
        again = load_rules(tmp_path / name)
        assert again == rules
        assert again[0].metadata == rules[0].metadata
    assert dump_rules_kari(load_rules(tmp_path / "a.kari")) == dump_rules_kari(rules)  # canonical is a fixpoint


def test_an_affordance_name_may_start_with_a_digit(tmp_path: Path) -> None:
    """A benchmark affordance `3d_print` got a rule from kari induce that no command could read back (the .kari
    header and the .jsonl record took only names starting with a letter or '_')."""
    rules = [Rule("3d_print", parse_rule("OR(MADE_OF:plastic, SHAPE:flat)")), Rule("cut", parse_rule("SHAPE:sharp_edge"))]
    (tmp_path / "r.kari").write_text(dump_rules_kari(rules))
    (tmp_path / "r.jsonl").write_text(dump_rules_jsonl(rules))
    for name in ("r.kari", "r.jsonl"):
        assert load_rules(tmp_path / name) == rules
        assert [d for d in check_file(tmp_path / name, Vocabulary.load()) if d.severity == "error"] == []
    (tmp_path / "bad.jsonl").write_text('{"affordance": "3d print", "rule": "SHAPE:flat"}\n')
    with pytest.raises(RuleSyntaxError) as info:
        load_rules(tmp_path / "bad.jsonl")
    assert info.value.code == "json-schema" and "letters, digits and '_'" in info.value.message


def test_branch_metadata_lives_in_jsonl(tmp_path: Path) -> None:
    rule = Rule("cut", parse_rule("OR(SHAPE:sharp_edge, SHAPE:serrated)"), {"model": "m"},
                ({"round": 1, "objects": ["knife"]}, {"round": 2, "objects": ["saw"]}))
    path = tmp_path / "r.jsonl"
    path.write_text(dump_rules_jsonl([rule]))
    (loaded,) = load_rules(path)
    assert loaded.branch_metadata == rule.branch_metadata and loaded.metadata == {"model": "m"}


@pytest.mark.parametrize("content, code", [
    ("", "empty-file"),
    ("# just a comment\n\n", "empty-file"),
    ("cut := AND(SHAPE:flat\n", "syntax-error"),
    ("cut := SHAPE:flat\ncut := SHAPE:round\n", "duplicate-affordance"),
])
def test_load_rules_errors(tmp_path: Path, content: str, code: str) -> None:
    path = tmp_path / "r.kari"
    path.write_text(content)
    with pytest.raises(RuleSyntaxError) as info:
        load_rules(path)
    assert info.value.code == code and info.value.file == str(path)


def test_a_jsonl_record_with_a_key_twice_is_refused(tmp_path: Path) -> None:
    """{"op": "AND", "op": "OR", ...} in a rules .jsonl was read as the OR (json keeps the last key)."""
    path = tmp_path / "r.jsonl"
    path.write_text('{"affordance": "cut", "rule": {"op": "AND", "op": "OR", "args": [{"op": "SHAPE", "class": '
                    '"flat"}]}}\n')
    with pytest.raises(RuleSyntaxError) as info:
        load_rules(path)
    assert info.value.line == 1 and "the key 'op' twice" in info.value.message


def test_unreadable_files(tmp_path: Path) -> None:
    (tmp_path / "bad.kari").write_bytes(b"cut := SHAPE:flat\n\xff\xfe")
    with pytest.raises(KariError, match="UTF-8"):
        load_rules(tmp_path / "bad.kari")
    with pytest.raises(KariError, match="unknown rule file type"):
        load_rules(tmp_path / "rules.txt")
    with pytest.raises(KariError, match="not found"):
        load_rules(tmp_path / "missing.kari")


def test_one_bad_rule_does_not_hide_the_others(tmp_path: Path) -> None:
    path = tmp_path / "r.kari"
    path.write_text("a := AND(SHAPE:flat,\n  SIZE:)\nb := MADE_OF:cylinder\nc := SHAPE:flat\n")
    found = [(d.code, d.line, d.col) for d in check_file(path, Vocabulary.load())]
    assert found == [("syntax-error", 2, 8), ("ill-typed-value", 3, 14)]


def test_stats() -> None:
    figures = rule_stats(load_rules(PAPER))
    assert figures["rules"] == 2 and figures["branches"]["total"] == 7
    assert figures["atoms"] == {"total": 19, "MADE_OF": 7, "SHAPE": 7, "SIZE": 4, "SURFACE": 1}
    assert figures["parts"] == 3 and figures["depth"]["max"] == 4


def test_cli_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "rules", "check", str(PAPER))[0] == 0
    bad = tmp_path / "bad.kari"
    bad.write_text("cut := AND(SHAPE:flat, MADE_OF:cylinder, SURFACE:zorgy)\n")
    code, out, _ = run(capsys, "rules", "check", str(PAPER), str(bad))
    assert code == 1
    assert out.splitlines() == [f"{bad}:1:32: ill-typed-value: 'cylinder' is a SHAPE value, not a MADE_OF value",
                                f"{bad}:1:50: unknown-value (warning): 'zorgy' is not in the SURFACE vocabulary"]
    warn = tmp_path / "warn.kari"
    warn.write_text("cut := SURFACE:zorgy\n")
    assert run(capsys, "rules", "check", str(warn))[0] == 0
    assert run(capsys, "rules", "check", "--strict", str(warn))[0] == 1


def test_cli_fmt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.kari"
    path.write_text("# keep me\ncut:\n  or( shape : sharp_edge ,\n  OR(SHAPE:serrated, made_of:Metallic))\n")
    code, out, _ = run(capsys, "rules", "fmt", str(path), "--simplify", "--normalise")
    assert code == 0 and out == "# keep me\ncut := OR(SHAPE:sharp_edge, SHAPE:serrated, MADE_OF:metal)\n"
    code, out, _ = run(capsys, "rules", "fmt", str(path), "--to", "json")
    assert json.loads(out)["rule"]["op"] == "OR"
    code, out, _ = run(capsys, "rules", "fmt", str(path), "--to", "english")
    assert out.startswith("cut: the object has a sharp edge, or")
    assert run(capsys, "rules", "fmt", str(path), "--in-place")[0] == 0
    assert path.read_text() == "# keep me\ncut := OR(SHAPE:sharp_edge, OR(SHAPE:serrated, MADE_OF:metallic))\n"
    code, _, err = run(capsys, "rules", "fmt", str(path), "--in-place", "--to", "json")
    assert code != 0 and "--in-place" in err and "Traceback" not in err
    broken = tmp_path / "broken.kari"
    broken.write_text("cut := AND(\n")
    code, _, err = run(capsys, "rules", "fmt", str(broken), "--in-place")
    assert code != 0 and err.count("\n") == 1 and broken.read_text() == "cut := AND(\n"


def test_cli_stats(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "stats", str(PAPER), "--json")
    assert code == 0 and json.loads(out)["rules"] == 2
