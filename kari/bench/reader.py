"""Reading a benchmark directory: its JSONL lines, and the typed :class:`~kari.bench.model.Benchmark`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from kari.bench.model import Affordance, Benchmark, Game, Label, ObjectRecord, Property
from kari.domain.canon import canonical_objects
from kari.domain.vocabulary import Vocabulary
from kari.errors import KariError
from kari.io.text import BadJSON, decode_json


def read_jsonl(path: Path, on_error: Callable[[KariError], None] | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line.

    A malformed line raises a ``FILE:LINE:COL`` :class:`KariError`; with ``on_error`` it is passed there instead
    and reading goes on (``kari bench validate`` reports every problem). A missing or non-UTF-8 file always raises.
    """
    if not path.is_file():
        raise KariError("file not found", file=str(path), code="missing-file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise KariError(f"not UTF-8 ({exc.reason} at byte {exc.start})", file=str(path), code="encoding") from None
    for number, line in enumerate(text.splitlines(), start=1):
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
        on_error(error)


def _field(record: dict[str, Any], key: str, kind: type, path: Path, line: int) -> Any:
    value = record.get(key)
    if not isinstance(value, kind):
        raise KariError(f"field {key!r} must be {kind.__name__}", file=str(path), line=line, code="schema")
    return value


def _strings(record: dict[str, Any], key: str, path: Path, line: int) -> tuple[str, ...]:
    value = _field(record, key, list, path, line)
    if not all(isinstance(item, str) for item in value):
        raise KariError(f"field {key!r} must be a list of strings", file=str(path), line=line, code="schema")
    return tuple(value)


def _object(record: dict[str, Any], path: Path, line: int) -> ObjectRecord:
    props = []
    for item in _field(record, "properties", list, path, line):
        if not isinstance(item, dict):
            raise KariError("each property must be an object", file=str(path), line=line, code="schema")
        raw = item.get("raw")
        props.append(Property(*(_field(item, k, str, path, line) for k in ("part", "predicate", "value")),
                              raw=raw if isinstance(raw, str) and raw else None))
    return ObjectRecord(
        id=_field(record, "id", str, path, line),
        description=record.get("description", "") or "",
        parts=_strings(record, "parts", path, line) if "parts" in record else (),
        properties=tuple(props),
        source=f"{path}:{line}",
    )


def load_benchmark(root: str | Path, vocab: Vocabulary | None, *, with_games: bool = True) -> Benchmark:
    """Load a benchmark directory; the first malformed line raises a :class:`KariError` with FILE:LINE.

    With a vocabulary every object is read into canonical values and ``vocab`` learns the benchmark's new words
    (:func:`kari.domain.canon.canonical_objects`; ``Benchmark.canon`` reports how); ``None`` keeps the words as
    written (only for tools that never evaluate properties). ``with_games=False`` skips ``games.jsonl``.
    """
    root = Path(root)
    if not root.is_dir():
        raise KariError("benchmark directory not found", file=str(root), code="missing-file")
    objects: dict[str, ObjectRecord] = {}
    for line, rec in read_jsonl(root / "objects.jsonl"):
        obj = _object(rec, root / "objects.jsonl", line)
        objects[obj.id] = obj
    affordances = {}
    for line, rec in read_jsonl(root / "affordances.jsonl"):
        aff = Affordance(_field(rec, "id", str, root / "affordances.jsonl", line), rec.get("description", "") or "")
        affordances[aff.id] = aff
    labels = []
    for line, rec in read_jsonl(root / "labels.jsonl"):
        path = root / "labels.jsonl"
        labels.append(Label(_field(rec, "object", str, path, line), _field(rec, "affordance", str, path, line),
                            _field(rec, "label", bool, path, line)))
    games = []
    games_path = root / "games.jsonl"
    if with_games and games_path.exists():
        for line, rec in read_jsonl(games_path):
            games.append(Game(_field(rec, "id", str, games_path, line), _field(rec, "object", str, games_path, line),
                              _field(rec, "target", str, games_path, line),
                              _strings(rec, "candidates", games_path, line)))
    canon = None
    if vocab is not None:
        canonical, canon = canonical_objects(list(objects.values()), vocab)
        objects = {obj.id: obj for obj in canonical}
    return Benchmark(root=root, objects=objects, affordances=affordances, labels=labels, games=games, canon=canon)


