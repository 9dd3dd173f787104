"""Locate the declarative assets (kb/, grammar/, solver/, data/) in a checkout or an installed wheel.

In a wheel they live in ``kari/_assets/<name>``; in a source checkout (or an editable install) they are the
top-level folders beside the ``kari`` package.
"""

from __future__ import annotations

from pathlib import Path

ASSET_DIRS = ("kb", "grammar", "solver", "data")
_PACKAGE_DIR = Path(__file__).resolve().parent


def asset_path(name: str, *parts: str) -> Path:
    """Path of an asset folder (or a file inside it), e.g. ``asset_path("solver", "coverage.lp")``."""
    if name not in ASSET_DIRS:
        raise ValueError(f"{name!r} is not an asset folder ({', '.join(ASSET_DIRS)})")
    for root in (_PACKAGE_DIR / "_assets" / name, _PACKAGE_DIR.parent / name):
        if root.is_dir():
            return root.joinpath(*parts)
    raise FileNotFoundError(f"kari asset folder {name!r} is missing from this installation")


def bundled_bench_dir() -> Path:
    """The Affordance20Q-format benchmark shipped with kari."""
    return asset_path("data", "bench")


def bundled_kb_file() -> Path:
    """The default KB triples file shipped with kari."""
    return asset_path("data", "kb", "kari_kb.tsv")
