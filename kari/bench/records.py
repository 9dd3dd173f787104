"""The pieces of the one benchmark parser (:mod:`kari.bench.parser`): what a problem is, the report of a
directory, and the checks of one line, one field and one property."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kari.core.benchmark import Property
from kari.domain.canon import CanonReport
from kari.core.terms import PREDICATES, WHOLE
from kari.errors import KariError
from kari.io.text import BOM, BadJSON, decode_json, text_lines

@dataclass(frozen=True, slots=True)
class Problem:
    """One problem at ``file:line``; ``fatal`` when the line could not be read into a record."""

    file: str
    line: int
    code: str
    message: str
    fatal: bool = field(default=False, compare=False)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.code}: {self.message}"

    def error(self, more: int = 0) -> KariError:
        """This problem as a located :class:`KariError` (``more``: how many problems follow it)."""
        tail = f" (and {more} more problems: run `kari bench validate`)" if more else ""
        return KariError(self.message + tail, file=self.file, line=self.line, code=self.code)


@dataclass
class ValidationReport:
    """Every structural problem found, how many records of each file were read, and how the words were read."""

    root: Path
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    words: CanonReport = field(default_factory=CanonReport)

    @property
    def ok(self) -> bool:
        return not self.problems

    def raise_first(self, *, fatal_only: bool = False, lenient: tuple[str, ...] = ()) -> None:
        """Raise the first problem as a :class:`KariError` (with how many follow it); with ``fatal_only`` only a
        fatal one counts, and in the ``lenient`` files (by name) only a fatal one."""
        found = [p for p in self.problems if p.fatal or not (fatal_only or Path(p.file).name in lenient)]
        if found:
            raise found[0].error(0 if fatal_only else len(found) - 1)


LineProblem = Callable[[int, str, str], None]
"""Receives ``(line, code, message)`` of a line that is not a JSON object."""


def read_jsonl(path: Path, on_error: LineProblem | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of ``path``.

    A malformed line raises a ``FILE:LINE:COL`` :class:`KariError`; with ``on_error`` it is passed there instead
    and reading goes on. A missing or non-UTF-8 file always raises. Lines end at LF (a CR before it is dropped), so
    a JSON string holding U+2028 or a form feed stays on its line; a BOM at the start is dropped, as every reader
    of kari drops it.
    """
    if not path.is_file():
        raise KariError("file not found", file=str(path), code="missing-file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise KariError(f"not UTF-8 ({exc.reason} at byte {exc.start})", file=str(path), code="encoding") from None
    for number, line in enumerate(text_lines(text.removeprefix(BOM)), start=1):
        if not line.strip():
            continue
        try:
            record = decode_json(line)
        except BadJSON as exc:
            error = KariError(exc.message, file=str(path), line=number, col=exc.col, code="json")
        else:
            if isinstance(record, dict):
                yield number, record
                continue
            error = KariError("expected a JSON object", file=str(path), line=number, code="json")
        if on_error is None:
            raise error
        on_error(number, "json", error.message + (f" (column {error.col})" if error.col is not None else ""))


def checked_field(record: dict[str, Any], key: str, kind: type) -> tuple[Any, str | None]:
    """``(value, None)`` when ``record[key]`` is a ``kind`` (a non-empty one for strings), else the value and
    what is wrong with it."""
    value = record.get(key)
    if isinstance(value, kind) and (kind is not str or value):
        return value, None
    return value, (f"field {key!r} must be a non-empty {kind.__name__}" if kind is str
                   else f"field {key!r} must be a {kind.__name__}")


def check_property(item: Any, index: int, parts: set[str], seen: set[tuple[str, str, str]]
                   ) -> tuple[Property | None, list[tuple[str, str, bool]]]:
    """One property of an object: the :class:`Property` when it is well-formed (kari predicate, non-empty
    strings), and its problems as ``(code, message, fatal)``."""
    where, keys = f"property {index}", ("part", "predicate", "value")
    if not isinstance(item, dict) or not all(isinstance(item.get(k), str) and item.get(k) for k in keys):
        fatal = not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in keys)
        return None, [("schema", f"{where}: needs non-empty string fields part, predicate, value", fatal)]
    part, predicate, value = item["part"], item["predicate"], item["value"]
    problems = []
    if part != WHOLE and part not in parts:
        problems.append(("unknown-part", f"{where}: part {part!r} is not in the object's parts", False))
    if predicate not in PREDICATES:
        problems.append(("unknown-predicate", f"{where}: predicate {predicate!r} is not one of "
                         f"{', '.join(PREDICATES)}", False))
        return None, problems
    if (part, predicate, value) in seen:
        problems.append(("duplicate-property", f"{where}: {part} {predicate}:{value} is listed twice", False))
    seen.add((part, predicate, value))
    raw = item.get("raw")
    return Property(part, predicate, value, raw if isinstance(raw, str) and raw else None), problems
