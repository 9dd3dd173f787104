"""``kari report``: played runs compared side by side (docs/method.md, section 3).

:mod:`kari.report.writer` reads run directories and writes ``report.md``, ``report.json``, the leaderboard and
the IG figure; :mod:`kari.report.inputs` holds what a report reads besides the runs (its options, the coverage
split's source run, the benchmark objects, the rules runs were played with); :mod:`kari.report.comparisons`
computes the intervals and paired comparisons (``report.json``), :mod:`kari.report.intervals` writes their
Markdown, :mod:`kari.report.leaderboard` the leaderboard, :mod:`kari.report.html` the one-page HTML report;
:mod:`kari.report.ledger` is the KB-gap ledger (:mod:`kari.report.ledger_store`: its games and tables, also
written by ``kari coverage --ledger``).
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.report.writer import compare, load_run, report, report_loaded, write_report, write_report_loaded

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.report.writer": ("compare", "load_run", "report", "report_loaded", "write_report", "write_report_loaded"),
})
