"""Read the JSON records of a CreativityBench file, each with the line it starts on.

CreativityBench writes JSON Lines (its pipeline outputs), one indented JSON array (``*_readable.json``,
``sample_tasks.json``), single objects, or one object keyed by id whose values are the records (the entity
lookup ``1_entity_lookup.json`` its judge reads: ``{"scenario+entity_name": {entity}, ...}``); all are read by
scanning top-level JSON values, so every record knows its FILE:LINE and every malformed one fails with
``kari: FILE:LINE:COL: code: message``.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.io.text import holds_nul, read_text

_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"


@dataclass(frozen=True, slots=True)
class Located:
    """One record of a file and where it starts."""

    data: dict[str, Any]
    file: str
    line: int

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def error(self, message: str, code: str = "creativity-schema") -> KariError:
        """A one-line error about this record."""
        return KariError(message, file=self.file, line=self.line, code=code)


class _Lines:
    """Offsets of a text's line starts, for turning an offset into (line, column) in O(log n)."""

    def __init__(self, text: str) -> None:
        self.starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def position(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index] + 1


def _decode(text: str, pos: int, file: str, lines: _Lines) -> tuple[Any, int]:
    try:
        value, end = _DECODER.raw_decode(text, pos)
        if "\\u0000" in text[pos:end] and holds_nul(value):     # refused like a NUL byte
            line, col = lines.position(pos)
            raise KariError("a string holds a NUL character (\\u0000)", file=file, line=line, col=col, code="json")
        return value, end
    except json.JSONDecodeError as exc:
        line, col = lines.position(exc.pos)
        raise KariError(f"invalid JSON: {exc.msg}", file=file, line=line, col=col, code="json") from None
    except RecursionError:
        line, col = lines.position(pos)
        raise KariError("invalid JSON: nested too deeply", file=file, line=line, col=col, code="json") from None
    except ValueError as exc:  # an integer too long to convert
        line, col = lines.position(pos)
        raise KariError(f"invalid JSON: {str(exc).split(';')[0]}", file=file, line=line, col=col,
                        code="json") from None


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _SPACE:
        pos += 1
    return pos


def read_records(path: str | Path, what: str = "CreativityBench file") -> Iterator[Located]:
    """Every top-level JSON object of ``path`` (the elements of a top-level array), in order."""
    file = str(path)
    text = read_text(path, what)
    lines = _Lines(text)
    pos = _skip(text, 0)
    if pos == len(text):
        raise KariError(f"empty {what}: no records", file=file, line=1, code="creativity-empty")
    if text[pos] == "[":
        pos = _skip(text, pos + 1)
        first = True
        while True:
            if pos >= len(text):
                line, col = lines.position(pos)
                raise KariError("invalid JSON: unterminated array", file=file, line=line, col=col, code="json")
            if text[pos] == "]":
                pos = _skip(text, pos + 1)
                break
            if not first:
                if text[pos] != ",":
                    line, col = lines.position(pos)
                    raise KariError("invalid JSON: expected ',' or ']'", file=file, line=line, col=col, code="json")
                pos = _skip(text, pos + 1)
            record, end = _record(text, pos, file, lines)
            yield record
            pos = _skip(text, end)
            first = False
        if pos < len(text):
            line, col = lines.position(pos)
            raise KariError("unexpected text after the JSON array", file=file, line=line, col=col, code="json")
        return
    first = True
    while pos < len(text):
        record, end = _record(text, pos, file, lines)
        if first and _is_keyed_collection(record.data) and _skip(text, end) == len(text):
            yield from _members(text, pos, file, lines)
            return
        yield record
        pos = _skip(text, end)
        first = False


RECORD_KEYS = ("task_id", "entity_name")
"""A record names itself with one of these keys; an object with neither whose values all do is a keyed collection."""


def _is_keyed_collection(data: dict[str, Any]) -> bool:
    return bool(data) and not any(k in data for k in RECORD_KEYS) and all(
        isinstance(v, dict) and any(k in v for k in RECORD_KEYS) for v in data.values())


def _members(text: str, pos: int, file: str, lines: _Lines) -> Iterator[Located]:
    """The values of the one top-level object starting at ``pos`` (already known to be valid JSON), with their lines."""
    pos = _skip(text, pos + 1)
    while text[pos] != "}":
        _, pos = _DECODER.raw_decode(text, pos)          # the key
        pos = _skip(text, _skip(text, pos) + 1)          # past ':'
        record, pos = _record(text, pos, file, lines)
        yield record
        pos = _skip(text, pos)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)


def _record(text: str, pos: int, file: str, lines: _Lines) -> tuple[Located, int]:
    value, end = _decode(text, pos, file, lines)
    line, col = lines.position(pos)
    if not isinstance(value, dict):
        raise KariError(f"expected a JSON object, got {type(value).__name__}", file=file, line=line, col=col,
                        code="json")
    return Located(value, file, line), end
