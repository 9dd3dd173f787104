"""PNG figures of runs (matplotlib, Agg backend, atomic writes): IG per turn, question dimensions per turn,
success rate per affordance, and IG over turns for several runs side by side."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kari.io.atomic import atomic_open

KIND_COLOURS = {"MATERIAL": "#4477aa", "SHAPE": "#ee6677", "SIZE": "#228833", "SURFACE": "#ccbb44",
                "FUNCTION": "#66ccee", "CATEGORY": "#aa3377", "REJECTED": "#bbbbbb"}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> None:
    with atomic_open(path, "wb", encoding=None) as handle:
        fig.savefig(handle, format="png", dpi=120, bbox_inches="tight")
    _pyplot().close(fig)


def plot_ig(series: Mapping[str, Sequence[float]], path: Path, title: str = "Information gain per turn") -> None:
    """One line per labelled IG_t series (turn 1, 2, ...)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for label, values in series.items():
        ax.plot(range(1, len(values) + 1), values, marker="o", markersize=3, label=label)
    ax.set_xlabel("turn t")
    ax.set_ylabel("mean IG_t (bits)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if len(series) > 1:
        ax.legend(fontsize=8)
    _save(fig, path)


def plot_dimension_share(shares: Sequence[Mapping[str, float]], path: Path) -> None:
    """Stacked bars: the share of each question kind at each turn."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    turns = list(range(1, len(shares) + 1))
    bottom = [0.0] * len(shares)
    for kind, colour in KIND_COLOURS.items():
        heights = [s.get(kind, 0.0) for s in shares]
        if any(heights):
            ax.bar(turns, heights, bottom=bottom, color=colour, label=kind)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.set_xlabel("turn t")
    ax.set_ylabel("share of questions")
    ax.set_title("Question dimensions per turn")
    ax.set_ylim(0, 1.0)
    ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.15))
    _save(fig, path)


def plot_success_by_affordance(by_affordance: Mapping[str, Mapping[str, Any]], path: Path) -> None:
    """Horizontal bars: success rate per target affordance, best first."""
    plt = _pyplot()
    items = sorted(by_affordance.items(), key=lambda kv: (kv[1]["success_rate"] or 0.0, kv[0]))
    fig, ax = plt.subplots(figsize=(6.4, max(2.5, 0.22 * len(items) + 1)))
    ax.barh([k for k, _ in items], [v["success_rate"] or 0.0 for _, v in items], color="#4477aa")
    ax.set_xlim(0, 1.0)
    ax.set_xlabel("success rate")
    ax.set_title("Success rate per target affordance")
    ax.tick_params(axis="y", labelsize=7)
    _save(fig, path)


def plot_run(summary: Mapping[str, Any], out: Path) -> list[Path]:
    """The three figures of one run, written into ``out``."""
    paths = [out / "ig_by_turn.png", out / "dimensions_by_turn.png", out / "success_by_affordance.png"]
    plot_ig({summary.get("config", {}).get("questioner", "run"): summary["ig_by_turn"]}, paths[0])
    plot_dimension_share(summary["dimension_share_by_turn"], paths[1])
    plot_success_by_affordance(summary["by_affordance"], paths[2])
    return paths
