"""Byte-level facts about an input file, read in Python: its first line, line counts, and the exact location
of the first malformed line (used only after DuckDB has reported a problem, or to check for blank lines).

Files ending in ``.gz`` (or starting with the gzip magic bytes) are decompressed on the fly.
"""

from __future__ import annotations

import csv
import gzip
import io
import re
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from kari.errors import KariError
from kari.io.text import MAX_LINE_BYTES, BadJSON, decode_json, read_lines
from kari.io.text import decode_line as _decode_line

_CHUNK = 1 << 24
_BLANK = re.compile(rb"\n\r?\n")


def is_gzip(path: Path) -> bool:
    """True for gzip-compressed files (by magic bytes, whatever the extension)."""
    with open(path, "rb") as handle:
        return handle.read(2) == b"\x1f\x8b"


def open_bytes(path: Path) -> gzip.GzipFile | io.BufferedReader:
    """Open ``path`` for binary reading, decompressing gzip files."""
    return gzip.GzipFile(path, "rb") if is_gzip(path) else open(path, "rb")


@contextmanager
def reading(path: Path) -> Iterator[None]:
    """Turn what a damaged gzip file raises while it is read (corrupt or truncated data) into a KariError."""
    try:
        yield
    except (zlib.error, EOFError, gzip.BadGzipFile) as exc:
        what = "truncated" if isinstance(exc, EOFError) else "corrupt"
        raise KariError(f"{what} gzip data: {exc}", file=str(path), code="kb-gzip") from None


def check_readable(path: Path) -> None:
    """Raise a :class:`KariError` when ``path`` is missing, a directory or unreadable."""
    if not path.exists():
        raise KariError("file not found", file=str(path), code="missing-file")
    if not path.is_file():
        raise KariError("not a regular file", file=str(path), code="missing-file")
    try:
        with reading(path), open_bytes(path) as handle:
            handle.read(1)
    except OSError as exc:
        raise KariError(f"cannot read file: {exc}", file=str(path), code="kb-read") from None


def decode_line(raw: bytes, path: Path, number: int) -> str:
    """One line as text, without its line ending (a BOM dropped on line 1); invalid UTF-8 raises
    ``FILE:LINE:COL``."""
    return _decode_line(raw, str(path), number, code="kb-encoding")


def first_line(path: Path) -> str | None:
    """The first line of the file (BOM removed), or None for an empty file; a first line longer than
    :data:`~kari.io.text.MAX_LINE_BYTES` is an error, found without reading more than that."""
    with reading(path), open_bytes(path) as handle:
        raw = next(read_lines(handle, str(path)), (1, b""))[1]
    if not raw:
        return None
    return decode_line(raw, path, 1)


def blank_line_error(path: Path, line: int) -> KariError:
    """The error for a blank line before the end of a file."""
    return KariError("empty line (blank lines are only allowed at the end of a file)", file=str(path), line=line,
                     code="kb-blank")


@dataclass(frozen=True)
class LineCount:
    """``lines``: lines up to the last non-blank one; ``first_blank``: first blank line before it, if any (looked
    for only when ``blanks_checked``); ``first_nul``: first line holding a NUL byte, if any (never valid in a text
    KB file)."""

    lines: int
    first_blank: int | None
    first_nul: int | None = None
    blanks_checked: bool = True

    def with_blanks(self, path: Path) -> LineCount:
        """This count with the blank lines looked for (a second pass over the file when they were not)."""
        return self if self.blanks_checked else count_lines(path)

    def first_problem(self, path: Path) -> KariError | None:
        """The blank line or NUL byte that comes first in the file, as a located error (None when neither; blank
        lines are looked for here only when a NUL byte was found, to tell which comes first)."""
        if self.first_nul is not None and not self.blanks_checked:
            return self.with_blanks(path).first_problem(path)
        found = [(line, kind) for line, kind in ((self.first_blank, "blank"), (self.first_nul, "nul")) if line]
        if not found:
            return None
        line, kind = min(found)
        if kind == "nul":
            return KariError("NUL byte (a text KB file never holds one)", file=str(path), line=line, code="kb-nul")
        return blank_line_error(path, line)


def count_lines(path: Path, stop: threading.Event | None = None, blanks: bool = True) -> LineCount:
    """Count lines in large chunks (memchr speed); locate the first NUL byte and, with ``blanks``, the first blank
    line that has content after it (the costlier half of the pass: a reader that skips blank lines finds them as
    a shortfall of rows, :meth:`LineCount.with_blanks` names them). Setting ``stop`` ends the count early (the
    result is then meaningless)."""
    newlines = 0          # newlines in the chunks read so far
    first_blank: int | None = None
    first_nul: int | None = None
    tail = last = b""
    with reading(path), open_bytes(path) as handle:
        while (stop is None or not stop.is_set()) and (chunk := handle.read(_CHUNK)):
            if first_nul is None and (at := chunk.find(b"\0")) >= 0:
                first_nul = newlines + chunk.count(b"\n", 0, at) + 1
            if blanks and first_blank is None:
                first_blank = _blank_line(tail + chunk[:2], newlines - tail.count(b"\n"))
                if first_blank is None:
                    first_blank = _blank_line(chunk, newlines)
                tail = (tail + chunk)[-2:] if len(chunk) < 2 else chunk[-2:]
            newlines += chunk.count(b"\n")
            last = chunk
    stripped = last.rstrip(b"\r\n")
    if not stripped and newlines > last.count(b"\n"):      # a whole chunk of blank lines at the end: rare
        last_content = max((n for n, text in iter_lines(path) if text.strip()), default=0)
    else:
        last_content = newlines - last.count(b"\n") + stripped.count(b"\n") + (1 if stripped else 0)
    if first_blank is not None and first_blank > last_content:
        first_blank = None           # only trailing blank lines: allowed
    return LineCount(last_content, first_blank, first_nul, blanks)


def _blank_line(buf: bytes, newlines_before: int) -> int | None:
    """Number of the first blank line starting inside ``buf`` (``newlines_before`` newlines precede it).
    One regex pass (about twice as fast as two ``bytes.find`` calls, which stall on every newline)."""
    hit = _BLANK.search(buf)
    return newlines_before + buf[: hit.start() + 1].count(b"\n") + 1 if hit else None


def iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)``; the first undecodable or over-long line raises ``FILE:LINE:COL``."""
    with reading(path), open_bytes(path) as handle:
        for number, raw in read_lines(handle, str(path), MAX_LINE_BYTES):
            yield number, decode_line(raw, path, number)


def first_bad_line(path: Path, columns: int, delim: str, json_lines: bool, header: bool) -> KariError | None:
    """The first line that is not valid UTF-8, holds a carriage return DuckDB's CSV reader cannot take (inside the
    line, or a line ending other than the first line's; not in JSON Lines, where a CR is whitespace), is blank
    before the end, has the wrong column count, or is bad JSON.

    This is the precise (slow, Python) pass run after DuckDB reported a problem it located only roughly.
    """
    blank: int | None = None
    crlf: bool | None = None              # how the first line ends: DuckDB's reader takes one line ending per file
    for number, raw, text in _raw_and_text_lines(path):
        ending = None if json_lines else _ending_problem(raw, crlf)
        if ending is not None:
            return KariError(ending[0], file=str(path), line=number, col=ending[1], code="kb-line-ending")
        if crlf is None and raw.endswith(b"\n"):
            crlf = raw.endswith(b"\r\n")
        if not text.strip():
            blank = blank or number
            continue
        if blank is not None:
            return blank_line_error(path, blank)
        if header and number == 1:
            continue
        if json_lines:
            problem = _json_problem(text)
            if problem:
                return KariError(problem[0], file=str(path), line=number, col=problem[1], code="kb-json")
            continue
        found = len(next(csv.reader([text], delimiter=delim))) if delim == "," else text.count(delim) + 1
        if found != columns:
            return KariError(f"expected {columns} columns, found {found}", file=str(path), line=number,
                             code="kb-columns")
    return None


def _raw_and_text_lines(path: Path) -> Iterator[tuple[int, bytes, str]]:
    """``(line_number, raw bytes, text)`` of each line, as :func:`iter_lines` reads them."""
    with reading(path), open_bytes(path) as handle:
        for number, raw in read_lines(handle, str(path), MAX_LINE_BYTES):
            yield number, raw, decode_line(raw, path, number)


def _ending_problem(raw: bytes, crlf: bool | None) -> tuple[str, int | None] | None:
    """What is wrong with a line's carriage returns, given how the file's first line ended (``crlf``; None before
    it): a CR inside the line (with its column), or a line ending other than the first line's (DuckDB reads one
    line ending per file; a file that is CRLF or LF throughout loads either way)."""
    body = raw.removesuffix(b"\n").removesuffix(b"\r")
    if (at := body.find(b"\r")) >= 0:
        return ("a carriage return (CR) inside the line; a KB file's lines end in LF or CRLF, one of them "
                "throughout", len(body[:at].decode("utf-8", "replace")) + 1)
    if crlf is not None and raw.endswith(b"\n") and raw.endswith(b"\r\n") != crlf:
        first, this = ("CRLF", "LF") if crlf else ("LF", "CRLF")
        return (f"the line ends in {this} where the file's first line ends in {first}; use one line ending "
                "throughout", None)
    return None


def _json_problem(text: str) -> tuple[str, int | None] | None:
    try:
        value = decode_json(text)
    except BadJSON as exc:
        return exc.message, exc.col
    if not isinstance(value, dict):
        return "expected a JSON object", None
    return None
