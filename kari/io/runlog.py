"""A resumable run directory's two records: its settings (``config.json``) and its append-only JSONL log.

``kari play`` (``games.jsonl``) and ``kari creativity solve`` (``answers.jsonl``) append one record per finished
item and flush it; a rerun reads what is there and does the rest (the loop: :mod:`kari.io.runloop`).
:func:`check_settings` refuses a rerun with other settings; :func:`load_log` reads the log back, tolerating what
a crash can leave; :func:`settings_json` writes a settings record as ``config.json`` holds it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any, TypeVar

from kari.errors import KariError
from kari.io.text import holds_nul, load_json, read_text, text_lines
from kari.io.versions import FORMAT_KEY, RUN_FORMAT

CONFIG_FILE = "config.json"
"""A run directory's settings."""

SUMMARY_FILE = "summary.json"
"""A run directory's scores, rewritten at the end of every session."""

T = TypeVar("T")

RecordCheck = Callable[[dict[str, Any], Path, int], T]
"""Returns the (typed) record when the line has the fields its readers need, else raises a ``run-corrupt``
:class:`KariError`."""


def paths_as_paths(settings: Any, names: Collection[str]) -> None:
    """Read the ``names`` fields of a frozen settings dataclass given as ``str`` as :class:`~pathlib.Path`
    (call it from ``__post_init__``): paths stay ``Path`` from the command line to the file."""
    for name in names:
        value = getattr(settings, name)
        if value is not None and not isinstance(value, Path):
            object.__setattr__(settings, name, Path(value))


def settings_json(settings: Any, drop: Collection[str] = ()) -> dict[str, Any]:
    """A settings dataclass as ``config.json`` holds it: its fields but ``drop``, paths as strings."""
    data = {key: value for key, value in asdict(settings).items() if key not in drop}
    return {key: str(value) if isinstance(value, Path) else value for key, value in data.items()}


def check_settings(path: Path, settings: Mapping[str, Any], ignore: Collection[str] = ()) -> None:
    """Refuse to resume a run whose ``config.json`` at ``path`` differs from ``settings`` (keys in ``ignore``
    may differ: how many items to do, for example)."""
    old = read_config(path)
    if old is None:
        return
    new = json.loads(json.dumps(dict(settings)))
    skip = {*ignore, FORMAT_KEY}   # the file's format version is no setting (read_config checked it)
    diff = sorted(k for k in set(old) | set(new) if k not in skip and old.get(k) != new.get(k))
    if diff:
        raise KariError(f"this run directory was made with other settings ({', '.join(diff)}); use a new --out",
                        file=str(path), code="run-config")


def read_config(path: Path) -> dict[str, Any] | None:
    """A run directory's ``config.json`` (or another of its records: ``summary.json``); None when there is none
    yet; not a JSON object: ``run-config``; of a newer format than this kari reads: ``format-version``."""
    if not path.exists():
        return None
    data = load_json(read_text(path, "run configuration"), file=str(path), code="run-config")
    if not isinstance(data, dict):
        raise KariError("the run configuration is not a JSON object", file=str(path), code="run-config")
    RUN_FORMAT.version_of(data, str(path))
    return data


def load_log(path: Path, check: RecordCheck[T]) -> tuple[list[T], bool]:
    """Records already in the log at ``path`` and whether the file must be rewritten to be clean again: a last
    line without its newline (a crash mid-write) is kept when it is a whole record and dropped otherwise, and a
    line holding several records back to back (glued by a resume after such a crash) is split."""
    if not path.exists():
        return [], False
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    body, tail = data[:end], data[end:]
    try:
        lines = text_lines(body.decode("utf-8"))
    except UnicodeDecodeError as exc:
        at = body.count(b"\n", 0, exc.start) + 1
        raise KariError("corrupt record (not UTF-8)", file=str(path), line=at, code="run-corrupt") from None
    records: list[T] = []
    dirty = False
    for number, line in enumerate(lines, 1):
        if line.strip():
            found = _line_records(line)
            if found is None:
                raise KariError("corrupt record (not a JSON object)", file=str(path), line=number,
                                code="run-corrupt")
            if "\\u0000" in line and holds_nul(found):
                raise KariError("corrupt record (a string holds a NUL character, \\u0000)", file=str(path),
                                line=number, code="run-corrupt")
            records += [check(record, path, number) for record in found]
            dirty = dirty or len(found) > 1
    if tail.strip():
        found = _line_records(tail.decode("utf-8", "replace"))
        if found is not None and len(found) == 1:
            records.append(check(found[0], path, len(lines) + 1))
        dirty = True
    return records, dirty


def append(handle: IO[str], record: Mapping[str, Any]) -> None:
    """Append one record to an open log as one whole line and flush it (a crash loses at most this line). A full
    disk or another write failure is a :class:`KariError` naming the log file."""
    data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        handle.flush()                       # written straight to the file: a failed write leaves nothing
        view = memoryview(data)              # buffered for close() to fail on again
        while view:
            view = view[os.write(handle.fileno(), view):]
    except OSError as exc:
        raise KariError(f"cannot write: {exc.strerror or exc}", file=str(getattr(handle, "name", "") or None),
                        code="output-write") from None


def _line_records(line: str) -> list[dict[str, Any]] | None:
    """The JSON objects a line holds back to back (normally one), or None when it is anything else."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    pos = 0
    line = line.strip()
    try:
        while pos < len(line):
            value, pos = decoder.raw_decode(line, pos)
            if not isinstance(value, dict):
                return None
            found.append(value)
    except (ValueError, RecursionError):   # JSONDecodeError, or a number too long to convert
        return None
    return found
