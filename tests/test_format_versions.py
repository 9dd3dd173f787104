"""Format versions (docs/formats.md, "Format versions"): rules files' JSONL lines (kari-rules), run records
(config.json, summary.json, plan.json: kari-run) and reports (report.json: kari-report) name their version with
``"format": "KIND/N"``; version 1 of the rules and run records is written untagged, as every kari before wrote
it (a run's files unchanged byte for byte), a later version with its tag first; an object without a tag reads as
version 1, a newer version or another kind is refused by name with a one-line error naming the file."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from test_game_support import RULES_TEXT, write_bench, write_vocab

from kari.cli import run
from kari.core.game_settings import PlayConfig
from kari.errors import KariError
from kari.game.run import play
from kari.io.versions import RULES_FORMAT, RUN_FORMAT, FormatVersion
from kari.rules.rulefile import dump_rules_jsonl, load_rules

OLD = Path(__file__).parent / "data" / "old_runs"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("versions")
    config = PlayConfig(bench=write_bench(root / "bench"), questioner="greedy-ig", vocab=write_vocab(root / "vocab"),
                        games=3)
    play(config, root / "run", progress=False)
    return root / "run"


def _copy(folder: Path, to: Path) -> Path:
    to.mkdir()
    for path in folder.iterdir():
        if path.is_file() and not path.name.startswith("."):
            (to / path.name).write_bytes(path.read_bytes())
    return to


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


def test_version_1_is_written_as_before_and_the_report_carries_its_tag(played: Path, tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("config.json", "summary.json", "plan.json"):
        assert "format" not in json.loads((played / name).read_text()), name      # kari-run/1: untagged
    assert run(["report", str(played), "--out", str(tmp_path / "report")]) == 0
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert list(report)[0] == "format" and report["format"] == "kari-report/1"
    rules = tmp_path / "rules.kari"
    rules.write_text(RULES_TEXT)
    capsys.readouterr()
    assert run(["rules", "fmt", str(rules), "--to", "json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines and all("format" not in line for line in lines)                 # kari-rules/1: untagged


def test_a_later_version_is_written_with_its_tag_first() -> None:
    later = FormatVersion("kari-run", current=2, tagged_from=2)
    assert later.written_tag == "kari-run/2"
    assert list(later.stamped({"games": 3, "format": "kari-run/1"}).items()) == [("format", "kari-run/2"), ("games", 3)]
    assert RUN_FORMAT.written_tag is None and RUN_FORMAT.stamped({"format": "kari-run/1", "games": 3}) == {"games": 3}
    assert later.version_of({}) == 1 and later.version_of({"format": "kari-run/2"}) == 2


def test_rule_lines_tagged_or_not_read_as_version_1(tmp_path: Path) -> None:
    old = OLD / "rules.jsonl"
    assert "format" not in json.loads(old.read_text().splitlines()[0])
    assert run(["rules", "check", str(old)]) == 0
    tagged = tmp_path / "tagged.jsonl"
    tagged.write_text("".join(json.dumps({"format": RULES_FORMAT.tag, **json.loads(line)}) + "\n"
                              for line in old.read_text().splitlines()))
    assert run(["rules", "check", str(tagged)]) == 0
    assert load_rules(tagged) == load_rules(old)        # the tag is no metadata of the rule
    assert dump_rules_jsonl(load_rules(tagged)) == old.read_text(encoding="utf-8")


def test_a_newer_rules_line_is_refused_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = (OLD / "rules.jsonl").read_text().splitlines()
    newer = tmp_path / "newer.jsonl"
    newer.write_text(lines[0] + "\n" + json.dumps({"format": "kari-rules/2", **json.loads(lines[1])}) + "\n")
    message = f"{newer}:2: format-version: kari-rules/2 is newer than this kari reads (kari-rules/1): upgrade kari"
    capsys.readouterr()
    assert run(["rules", "check", str(newer)]) == 1          # a finding of the check, at FILE:LINE
    assert message in capsys.readouterr().out
    assert run(["rules", "stats", str(newer)]) == 2          # a command that reads the rules refuses them
    assert _one_line(capsys.readouterr().err) == f"kari: {message}"


@pytest.mark.parametrize("name", ["config.json", "summary.json", "plan.json"])
def test_a_run_record_of_a_newer_kari_is_refused_by_report(name: str, played: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder = _copy(played, tmp_path / "run")
    data = json.loads((folder / name).read_text())
    (folder / name).write_text(json.dumps({**data, "format": "kari-run/7"}))
    capsys.readouterr()
    assert run(["report", str(folder)]) == 2
    assert _one_line(capsys.readouterr().err) == (f"kari: {folder / name}: format-version: kari-run/7 is newer "
                                                  "than this kari reads (kari-run/1): upgrade kari")


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")}


def test_a_newer_config_stops_a_resume_before_anything_is_written(played: Path, tmp_path: Path) -> None:
    folder = _copy(played, tmp_path / "run")
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "format": "kari-run/2"}))
    before = _files(folder)
    with pytest.raises(KariError, match="format-version: kari-run/2 is newer than this kari reads") as info:
        play(replace(PlayConfig.from_json(config), games=4), folder, progress=False)
    assert info.value.file == str(folder / "config.json") and _files(folder) == before


def test_a_run_tagged_with_version_1_reads_and_resumes(played: Path, tmp_path: Path) -> None:
    folder = _copy(played, tmp_path / "run")
    for name in ("config.json", "summary.json", "plan.json"):
        data = json.loads((folder / name).read_text())
        (folder / name).write_text(json.dumps({"format": "kari-run/1", **data}, indent=2))
    assert run(["report", str(folder)]) == 0
    config = PlayConfig.from_json(json.loads((folder / "config.json").read_text()))
    play(replace(config, games=4), folder, progress=False)     # resumed (the tag is no setting): one more game
    assert len((folder / "games.jsonl").read_text().splitlines()) == 4


def test_a_format_of_another_kind_is_refused() -> None:
    with pytest.raises(Exception, match="'kari-rules/1' is not a kari-run format"):
        RUN_FORMAT.version_of({"format": "kari-rules/1"}, "config.json")
    assert FormatVersion("kari-x", 3).version_of({"format": "kari-x/2"}) == 2
