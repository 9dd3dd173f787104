"""Text from the data (ids, run names, questions, rule atoms) made safe for the files people open: Markdown, a
CSV file read by a spreadsheet, JSON inside an HTML ``<script>`` element, HTML itself.

>>> md("a|b\\n<i>c</i>")
'a\\\\|b &lt;i&gt;c&lt;/i&gt;'
>>> csv_cell("=HYPERLINK(1)"), csv_cell("-2+3"), csv_cell(-2.5), csv_cell("-2.5")
("'=HYPERLINK(1)", "'-2+3", -2.5, '-2.5')
>>> script_json('{"id": "<!--<script>"}')
'{"id": "\\\\u003c!--\\\\u003cscript\\\\u003e"}'
"""

from __future__ import annotations

import html
import re
from typing import Any

__all__ = ["csv_cell", "csv_row", "html_text", "md", "md_row", "script_json"]

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?%?")


def md(value: Any) -> str:
    """``value`` as text inside Markdown (a table cell or a sentence): HTML's ``&``, ``<``, ``>`` escaped (no
    raw HTML reaches the page), ``\\`` and ``|`` escaped (no pipe splits a table cell), every run of white space,
    a newline included, one space (no newline ends a table row or a list item)."""
    text = html.escape(str(value), quote=False).replace("\\", "\\\\").replace("|", "\\|")
    return " ".join(text.split())


def md_row(cells: Any) -> str:
    """One Markdown table row of ``cells``, each through :func:`md`."""
    return "| " + " | ".join(md(cell) for cell in cells) + " |"


def csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet will not run as a formula: a text cell starting with ``=``, ``+``, ``-``, ``@``,
    a tab or a carriage return gets a leading ``'`` (OWASP's advice); numbers, and text that is a plain number
    (``-2.5``), stay as they are."""
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_row(cells: Any) -> list[Any]:
    """:func:`csv_cell` of each cell."""
    return [csv_cell(cell) for cell in cells]


def script_json(text: str) -> str:
    """JSON text that can sit inside an HTML ``<script>`` element whatever its strings hold: every ``<``, ``>``
    and ``&`` written as a JSON escape (``\\u003c``...), so neither ``</script>`` nor ``<!--<script>`` (which
    makes the element swallow the page's own script) can occur; the JSON value is unchanged."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def html_text(value: Any) -> str:
    """``value`` as HTML text (``&``, ``<``, ``>`` and quotes escaped)."""
    return html.escape(str(value), quote=True)
