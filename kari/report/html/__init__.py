"""``kari report --html``: one self-contained HTML page (no network, no server) over a set of runs.

The page holds its data inline (:func:`kari.report.html.data.page_data`, as JSON, gzip-compressed and base64
encoded when large; the browser inflates it with its built-in ``DecompressionStream``), its hand-written
script and style sheet (``report.js``, ``report.css``, beside this module) and the IG figure as inline SVG.
It shows Table 1 with intervals and paired tests, every run with intervals, the IG figure, the games with
filters by player, affordance and outcome, each game's transcript (question, checker verdict, answer, IG, the
hard belief b_t and the soft belief over the candidates at every turn, the guess with its belief, the proof
of the target's rule on the hidden object), SR per affordance, the player-vs-player comparisons, and each rule
with its coverage and proofs.
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.report.html.data import page_data
    from kari.report.html.page import COMPRESS_ABOVE, embed_data, render_html

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.report.html.data": ("page_data",),
    "kari.report.html.page": ("COMPRESS_ABOVE", "embed_data", "render_html"),
})
