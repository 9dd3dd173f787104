"""PNG figures of runs (matplotlib, Agg backend, atomic writes): IG per turn, question dimensions per turn,
success rate per affordance, and IG over turns for several runs side by side.

Per-turn figures have integer turn ticks, show how many games reached each turn, and leave out turns reached by
fewer than :data:`~kari.game.metrics.MIN_GAMES_PER_TURN` games (a mean over two games is noise)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kari.game.metrics import MIN_GAMES_PER_TURN, reliable_turns, sees_rules
from kari.core.game_names import RULE_SUFFIXES, RUN_PLOTS
from kari.core.game_settings import PlayConfig
from kari.game.summary import RunSummary, Score
from kari.io.atomic import atomic_open

KIND_COLOURS = {"MATERIAL": "#4477aa", "SHAPE": "#ee6677", "SIZE": "#228833", "SURFACE": "#ccbb44",
                "FUNCTION": "#66ccee", "CATEGORY": "#aa3377", "REJECTED": "#bbbbbb"}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: Path) -> None:
    """A figure written to ``path`` as PNG (atomically), and closed."""
    _save(fig, path)


def _save(fig: Any, path: Path) -> None:
    with atomic_open(path, "wb", encoding=None) as handle:
        fig.savefig(handle, format="png", dpi=120, bbox_inches="tight")
    _pyplot().close(fig)


def _integer_turns(ax: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def ig_figure(series: Mapping[str, tuple[Sequence[float], Sequence[int]]], title: str = "Information gain per turn",
              min_games: int = MIN_GAMES_PER_TURN) -> Any:
    """The IG figure (a matplotlib Figure): mean IG_t per turn, one line per labelled ``(ig_by_turn,
    games_by_turn)`` series, above the number of games that reached each turn; turns reached by fewer than
    ``min_games`` games are not drawn."""
    plt = _pyplot()
    fig, (ax, games_ax) = plt.subplots(2, 1, figsize=(6.4, 4.8), sharex=True,
                                       gridspec_kw={"height_ratios": [3, 1], "hspace": 0.08})
    for label, (values, counts) in series.items():
        turns = reliable_turns(counts, min_games)
        ax.plot(turns, [values[t - 1] for t in turns], marker="o", markersize=3, label=label)
        games_ax.plot(turns, [counts[t - 1] for t in turns], marker=".", markersize=3, label=label)
    ax.set_ylabel("mean IG_t (bits)")
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if len(series) > 1:
        outside_legend(ax)
    games_ax.set_ylabel("games at t", fontsize=8)
    games_ax.set_ylim(bottom=0)
    games_ax.grid(alpha=0.3)
    games_ax.set_xlabel(f"turn t (turns reached by fewer than {min_games} games are not drawn)")
    _integer_turns(games_ax)
    return fig


def outside_legend(ax: Any) -> None:
    """The legend to the right of the axes, where it hides no line."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False)


def budget_figure(series: Mapping[str, Sequence[float]],
                  title: str = "Success rate against the question budget") -> Any:
    """SR within t questions (a matplotlib Figure): one step line per labelled series of shares at t = 0, 1, ...
    (:func:`kari.report.budget.budget_curve`), the legend beside the axes."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for label, values in series.items():
        ax.step(range(len(values)), values, where="post", marker="o", markersize=2.5, label=label)
    ax.set_xlabel("question budget t (games won with at most t questions asked)")
    ax.set_ylabel("success rate within t")
    ax.set_ylim(0, 1.0)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    _integer_turns(ax)
    if series:
        outside_legend(ax)
    return fig


def plot_ig(series: Mapping[str, tuple[Sequence[float], Sequence[int]]], path: Path,
            title: str = "Information gain per turn", min_games: int = MIN_GAMES_PER_TURN) -> None:
    """:func:`ig_figure` written to ``path`` as PNG."""
    _save(ig_figure(series, title, min_games), path)


def figure_svg(fig: Any) -> str:
    """A figure as an SVG document (text kept as text, so it stays small and sharp), and close it."""
    plt = _pyplot()
    buffer = io.StringIO()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "kari"}):
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def plot_dimension_share(shares: Sequence[Mapping[str, float]], counts: Sequence[int], path: Path,
                         title: str = "Question dimensions per turn", min_games: int = MIN_GAMES_PER_TURN) -> None:
    """Stacked bars: the share of each question kind at each turn reached by at least ``min_games`` games."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    turns = reliable_turns(counts, min_games)
    bottom = [0.0] * len(turns)
    drawn = False
    for kind, colour in KIND_COLOURS.items():
        heights = [shares[t - 1].get(kind, 0.0) for t in turns]
        if any(heights):
            ax.bar(turns, heights, bottom=bottom, color=colour, label=kind)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
            drawn = True
    ax.set_xlabel(f"turn t (turns reached by fewer than {min_games} games are not drawn)")
    ax.set_ylabel("share of questions")
    ax.set_title(title)
    ax.set_ylim(0, 1.0)
    _integer_turns(ax)
    if drawn:  # a run without any question (e.g. a game ended at once) has nothing to label
        ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.18))
    _save(fig, path)


def plot_success_by_affordance(by_affordance: Mapping[str, Score], path: Path,
                               title: str = "Success rate per target affordance") -> None:
    """Horizontal bars: success rate per target affordance, best first."""
    plt = _pyplot()
    items = sorted(by_affordance.items(), key=lambda kv: (kv[1].success_rate or 0.0, kv[0]))
    fig, ax = plt.subplots(figsize=(6.4, max(2.5, 0.22 * len(items) + 1)))
    ax.barh([k for k, _ in items], [v.success_rate or 0.0 for _, v in items], color="#4477aa")
    ax.set_xlim(0, 1.0)
    ax.set_xlabel("success rate")
    ax.set_title(title)
    ax.tick_params(axis="y", labelsize=7)
    _save(fig, path)


def plot_lines(series: Mapping[str, Sequence[tuple[float, float]]], path: Path, *, title: str, xlabel: str,
               ylabel: str) -> None:
    """One line with markers per labelled series of (x, y) points (e.g. success rate against Oracle noise)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for label, points in series.items():
        ax.plot([x for x, _ in points], [y for _, y in points], marker="o", markersize=3, label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if series:
        outside_legend(ax)
    _save(fig, path)


def run_title(config: PlayConfig) -> str:
    """Who played: ``"greedy-ig (oracle kb, checker symbolic)"``, with ``+ rules`` when rules were given."""
    text = str(config.questioner)
    if sees_rules(config) and not text.endswith(RULE_SUFFIXES):
        text += " + rules"
    return f"{text} (oracle {config.oracle}, checker {config.checker})"


def plot_run(summary: RunSummary, config: PlayConfig, out: Path) -> list[Path]:
    """The three figures of one run (played with ``config``), written into ``out``, titled with the players."""
    paths = [out / name for name in RUN_PLOTS]
    who = run_title(config)
    counts = summary.ig_by_turn_games
    plot_ig({who: (summary.ig_by_turn, counts)}, paths[0], title=f"Information gain per turn: {who}")
    plot_dimension_share(summary.dimension_share_by_turn, counts, paths[1],
                         title=f"Question dimensions per turn: {who}")
    plot_success_by_affordance(summary.by_affordance, paths[2], title=f"Success rate per target affordance: {who}")
    return paths
