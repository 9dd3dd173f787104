"""The page of ``kari report --html`` put together: its template, style sheet, script, data and figure."""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any

from kari.game.plots import budget_figure, figure_svg, ig_figure
from kari.io.escape import script_json
from kari.report.budget import budget_series
from kari.report.html.data import page_data

if TYPE_CHECKING:
    from kari.report.inputs import OpenedSource, ReportOptions, RuleReader
    from kari.game.summary import RunData

COMPRESS_ABOVE = 200_000
"""Data larger than this many bytes (as JSON) is embedded gzip-compressed."""


def _asset(name: str) -> str:
    return resources.files("kari.report.html").joinpath(name).read_text(encoding="utf-8")


def _script_safe(text: str) -> str:
    """Text that can sit inside a ``<script>`` element: no ``</`` can end it early."""
    return text.replace("</", "<\\/")


def embed_data(obj: Any) -> tuple[str, str]:
    """``(encoding, payload)``: ``json`` with the JSON text, or ``gzip+base64`` when the JSON is large."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    raw = text.encode("utf-8")
    if len(raw) <= COMPRESS_ABOVE:
        return "json", script_json(text)
    return "gzip+base64", base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def render_html(runs: Sequence[RunData], data: Mapping[str, Any],
                series: Mapping[str, tuple[list[float], list[int]]], options: ReportOptions,
                opened: OpenedSource | None = None, read: RuleReader | None = None) -> str:
    """The whole page as one string (``opened``, ``read``: as in :func:`kari.report.html.data.page_data`)."""
    encoding, payload = embed_data(page_data(runs, data, options, opened, read))
    figure = figure_svg(ig_figure(series, title="Information gain over turns, per run"))
    budget = figure_svg(budget_figure(budget_series(data)))
    names = ", ".join(run.label for run in runs)
    parts = {"TITLE": html.escape(f"kari report: {names}"), "CSS": _asset("report.css"), "FIGURE": figure,
             "BUDGET": budget,
             "ENCODING": encoding, "DATA": payload, "JS": _script_safe(_asset("report.js"))}
    return re.sub(r"\{\{([A-Z]+)\}\}", lambda m: parts[m.group(1)], _asset("template.html"))  # one pass
