"""Reading input text: one-line errors (``FILE:LINE:COL: code: message``) for a missing, non-regular or
non-UTF-8 file, a byte-order mark dropped, and JSON decoding that fails cleanly on every malformed value
(bad syntax, numbers too long for Python's int conversion, nesting deeper than the recursion limit)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from kari.errors import KariError

BOM = "\ufeff"


def read_text(path: str | os.PathLike[str], what: str = "file") -> str:
    """The UTF-8 text of ``path`` without a leading byte-order mark; a :class:`KariError` (exit code 2) when it
    is missing, not a regular file, unreadable or not UTF-8 (located at the first bad byte)."""
    where = str(path)
    file = Path(path)
    if not file.exists():
        raise KariError(f"{what} not found", file=where, code="missing-file")
    if not file.is_file():
        raise KariError(f"{what} is not a regular file", file=where, code="missing-file")
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise KariError(f"cannot read the {what}: {exc.strerror or exc}", file=where, code="unreadable") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8", "replace")
        line, col = before.count("\n") + 1, len(before) - before.rfind("\n")
        raise KariError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", file=where, line=line, col=col,
                        code="encoding") from None
    return text.removeprefix(BOM)


class BadJSON(ValueError):
    """A JSON text that does not decode: ``message`` says why, ``line`` and ``col`` where, when known."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


def decode_json(text: str) -> Any:
    """``json.loads`` that raises only :class:`BadJSON`, whatever is wrong with ``text``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadJSON(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise BadJSON("invalid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer of more than sys.get_int_max_str_digits() digits
        raise BadJSON(f"invalid JSON: {str(exc).split(';')[0]}") from None


def load_json(text: str, *, file: str | None = None, line: int | None = None, code: str = "json") -> Any:
    """:func:`decode_json` with a located :class:`KariError` (exit code 2) instead of :class:`BadJSON`; ``line``
    is the line ``text`` starts on (a JSON Lines record), else the error's own line in ``text`` is used."""
    try:
        return decode_json(text)
    except BadJSON as exc:
        at = line if line is not None else exc.line
        raise KariError(exc.message, file=file, line=at, col=exc.col, code=code) from None
