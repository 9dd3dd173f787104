"""The benchmarks kari did not build itself (tests/data/outside_bench, tests/data/raw_mini) are structurally valid,
and the outside benchmark rebuilds byte-identically from its public sources when they are at hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"
SOURCES = ROOT.parent / "shared" / "data"


def test_outside_benchmarks_pass_the_independent_structural_check() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "outside" / "check.py"), "--no-vocab",
                          str(DATA / "outside_bench"), str(DATA / "raw_mini")], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.skipif(not SOURCES.is_dir(), reason="needs the public data sets the outside benchmark is built from")
def test_outside_benchmark_rebuilds_byte_identically(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "outside" / "build.py"), "--sources", str(SOURCES),
                    "--out", str(tmp_path)], check=True, capture_output=True)
    for name in ("objects", "affordances", "labels", "games"):
        assert (tmp_path / f"{name}.jsonl").read_bytes() == (DATA / "outside_bench" / f"{name}.jsonl").read_bytes()
