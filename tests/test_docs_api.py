"""docs/api.md is a runnable user guide: its Python code blocks, run in order as one script, must work."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def guide_script() -> str:
    """The guide's ```python blocks, in order."""
    return "\n".join(re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S))


@pytest.mark.slow
def test_api_guide_runs_as_written(tmp_path: Path) -> None:
    script = guide_script()
    assert script.count("import") >= 5, "the guide lost its code blocks"
    (tmp_path / "guide.py").write_text(script, encoding="utf-8")
    result = subprocess.run([sys.executable, "guide.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "MPLBACKEND": "Agg"})
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "379 objects, 19 affordances, 594 games" in out
    assert "error affordance-value" in out and "# Affordance20Q runs" in out
    assert (tmp_path / "kari-api-example" / "report" / "report.md").is_file()
    assert (tmp_path / "kari-api-example" / "play" / "rules" / "games.jsonl").is_file()
