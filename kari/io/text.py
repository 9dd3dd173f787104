"""Reading input text: one-line errors (``FILE:LINE:COL: code: message``) for a missing, non-regular or
non-UTF-8 file, a byte-order mark dropped, lines read with a bound on their length (a file without newlines is
never read whole), and JSON decoding that fails cleanly on every malformed value (bad syntax, numbers too long
for Python's int conversion, nesting deeper than the recursion limit, a NUL character written as ``\\u0000``)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from kari.errors import KariError

BOM = "\ufeff"
MAX_LINE_BYTES = 16 * 2**20
"""The longest line a line reader accepts (DuckDB's ``max_line_size`` for KB files is the same)."""


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


class LineReader(Protocol):
    """A binary file (plain or gzip) read line by line."""

    def readline(self, size: int = -1, /) -> bytes: ...


def text_lines(text: str) -> list[str]:
    """The lines of ``text``, split at LF only, each without a CR before it (no empty last line for a text that
    ends in LF): a JSON string may hold U+2028, U+0085 or a form feed written as they are, at which
    ``str.splitlines`` would cut a record in two."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def read_lines(handle: LineReader, where: str, max_line: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line_number, raw_line)`` from a binary handle, each line read with a bound: a line longer than
    ``max_line`` bytes raises a :class:`KariError` naming ``where`` and the line (code ``line-too-long``)
    after at most ``max_line`` bytes were read, so a file without newlines is never held in memory whole."""
    number = 0
    while raw := handle.readline(max_line + 1):
        number += 1
        if len(raw) > max_line and not raw.endswith(b"\n"):
            raise KariError(f"line longer than {max_line:,} bytes (a text line kari reads is at most that long)",
                            file=where, line=number, code="line-too-long")
        yield number, raw


def decode_line(raw: bytes, where: str, number: int, code: str = "encoding") -> str:
    """One line as text without its line ending (and, on line 1, without a byte-order mark); invalid UTF-8
    raises ``FILE:LINE:COL`` (the column of the first bad byte)."""
    raw = raw.rstrip(b"\n").removesuffix(b"\r")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        col = len(raw[: exc.start].decode("utf-8", "replace")) + 1
        raise KariError(f"not UTF-8 (byte 0x{raw[exc.start]:02x})", file=where, line=number, col=col,
                        code=code) from None
    return text.removeprefix(BOM) if number == 1 else text


def iter_text_lines(path: str | os.PathLike[str], what: str = "file") -> Iterator[tuple[int, str]]:
    """``(line_number, text)`` of each line of a UTF-8 text file (a BOM dropped), read with a bound on the
    line length; a missing or non-regular file, a bad byte or an over-long line is a located
    :class:`KariError`."""
    where = str(path)
    file = Path(path)
    if not file.exists():
        raise KariError(f"{what} not found", file=where, code="missing-file")
    if not file.is_file():
        raise KariError(f"{what} is not a regular file", file=where, code="missing-file")
    try:
        handle = open(file, "rb")
    except OSError as exc:
        raise KariError(f"cannot read the {what}: {exc.strerror or exc}", file=where, code="unreadable") from None
    with handle:
        for number, raw in read_lines(handle, where):
            yield number, decode_line(raw, where, number)


class BadJSON(ValueError):
    """A JSON text that does not decode: ``message`` says why, ``line`` and ``col`` where, when known."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's members as a dict, refusing a key given twice (``{"op": "AND", "op": "OR"}``: which one the
    writer meant is unknown; json keeps the last silently): an ``object_pairs_hook``."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise BadJSON(f"invalid JSON: the key {key!r} twice in one object")
        out[key] = value
    return out


def decode_json(text: str, *, strict_keys: bool = False) -> Any:
    """``json.loads`` that raises only :class:`BadJSON`, whatever is wrong with ``text``. A string holding a NUL
    character (written ``\\u0000``) is refused like a NUL byte: no kari input holds one. ``strict_keys``: a key
    given twice in one object is refused too (:func:`unique_keys`; rule records, where it changes the rule)."""
    try:
        value = json.loads(text, object_pairs_hook=unique_keys if strict_keys else None)
    except BadJSON:
        raise
    except json.JSONDecodeError as exc:
        raise BadJSON(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise BadJSON("invalid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer of more than sys.get_int_max_str_digits() digits
        raise BadJSON(f"invalid JSON: {str(exc).split(';')[0]}") from None
    if "\\u0000" in text and holds_nul(value):
        at = text.index("\\u0000")
        line = text.count("\n", 0, at) + 1
        raise BadJSON("a string holds a NUL character (\\u0000); no kari input holds one", line,
                      at - (text.rfind("\n", 0, at) + 1) + 1)
    return value


def holds_nul(value: Any) -> bool:
    """Does a decoded JSON value hold a NUL character in any key or string? (an explicit stack: no recursion;
    for readers that decode JSON themselves)"""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\0" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def load_json(text: str, *, file: str | None = None, line: int | None = None, code: str = "json") -> Any:
    """:func:`decode_json` with a located :class:`KariError` (exit code 2) instead of :class:`BadJSON`; ``line``
    is the line ``text`` starts on (a JSON Lines record), else the error's own line in ``text`` is used."""
    try:
        return decode_json(text)
    except BadJSON as exc:
        at = line if line is not None else exc.line
        raise KariError(exc.message, file=file, line=at, col=exc.col, code=code) from None
