"""``kari bench show``: affordance ids with descriptions and counts, as a table or JSON."""

from __future__ import annotations

import json

import pytest
from test_game_support import MATERIAL_OF, PER_AFFORDANCE, write_bench
from typer.testing import CliRunner

from kari.bench.show import bench_overview
from kari.cli import app


def test_overview_counts_the_synthetic_benchmark(tmp_path):
    overview = bench_overview(write_bench(tmp_path / "bench"))
    assert [a.id for a in overview.affordances] == sorted(MATERIAL_OF)
    assert overview.objects == len(MATERIAL_OF) * PER_AFFORDANCE == overview.games
    cut = next(a for a in overview.affordances if a.id == "cut")
    assert cut.positives == PER_AFFORDANCE and cut.games_as_target == PER_AFFORDANCE
    assert cut.games_as_candidate == overview.games and overview.candidates_per_game == [len(MATERIAL_OF)]


def test_cli_table_and_json_on_the_bundled_benchmark():
    runner = CliRunner()
    text = runner.invoke(app, ["bench", "show"])
    assert text.exit_code == 0, text.output
    assert "objects: 379" in text.output and "games: 594 (8 candidates each)" in text.output
    assert any(line.startswith("attack_with ") and "weapon" in line for line in text.output.splitlines())
    data = json.loads(runner.invoke(app, ["bench", "show", "--json"]).output)
    assert data["games"] == 594 and len(data["affordances"]) == 19
    assert sum(a["positives"] for a in data["affordances"]) == data["positive_labels"] == 650
    assert sum(a["games_as_target"] for a in data["affordances"]) == 594


def test_missing_directory_is_a_one_line_error(tmp_path):
    from kari.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["bench", "show", str(tmp_path / "nothing")])
    assert exc.value.code == 2
