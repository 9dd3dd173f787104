"""Content fingerprints of the inputs a run reads, so that a run directory never mixes records of two inputs.

A fingerprint is a small JSON object that ``config.json`` keeps under ``inputs`` (one entry per input): what
the input is and where it was read from, and the SHA-256 of its content, per file for a file (``sha256``) or a
folder (``files``: each file a reader takes from it; ``null`` for an optional file that is absent) and per
table for a KB database (``tables``: the rows a command reads). :func:`changes` names what differs between two
sets of fingerprints; :func:`check_unchanged` turns a difference into the one-line error of a refused resume.

>>> old = {"bench": {"what": "the benchmark", "path": "b", "files": {"games.jsonl": "1", "objects.jsonl": "2"}}}
>>> new = {"bench": {"what": "the benchmark", "path": "b", "files": {"games.jsonl": "3", "objects.jsonl": "2"}}}
>>> changes(old, new)
['the benchmark b (games.jsonl)']
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.errors import KariError
from kari.io.sql import row

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

INPUTS_KEY = "inputs"
"""The ``config.json`` key of a run's fingerprints."""

_CHUNK = 1 << 20


def file_digest(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes (hex), read in chunks."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError as exc:
        raise KariError(f"cannot read the input to fingerprint it: {exc.strerror or exc}", file=str(path),
                        code="unreadable") from None
    return digest.hexdigest()


def file_input(what: str, path: str | os.PathLike[str]) -> dict[str, Any]:
    """The fingerprint of one input file."""
    return {"what": what, "path": str(path), "sha256": file_digest(path)}


def folder_input(what: str, folder: str | os.PathLike[str], names: Iterable[str]) -> dict[str, Any]:
    """The fingerprint of the files ``names`` of an input folder (an absent one recorded as ``None``)."""
    root = Path(folder)
    files = {name: file_digest(root / name) if (root / name).is_file() else None for name in sorted(set(names))}
    return {"what": what, "path": str(root), "files": files}


def table_input(what: str, path: str | os.PathLike[str], digests: Mapping[str, str]) -> dict[str, Any]:
    """The fingerprint of a database: the digest of each table (or query) a command reads from it."""
    return {"what": what, "path": str(path), "tables": dict(sorted(digests.items()))}


def table_digest(con: DuckDBPyConnection, table: str) -> str:
    """The digest of a DuckDB table's rows in their stored order (``rowid``: the order a reader that sorts by
    it sees), computed by DuckDB; the row count is part of it."""
    return _digest(con, f'SELECT md5(to_json(t)::VARCHAR) AS h, t.rowid AS n FROM "{table}" t', "n")


def query_digest(con: DuckDBPyConnection, query: str) -> str:
    """The digest of the rows a DuckDB query returns, as a set (their order does not count)."""
    return _digest(con, f"SELECT md5(to_json(q)::VARCHAR) AS h FROM ({query}) q", "h")


def _digest(con: DuckDBPyConnection, rows: str, order: str) -> str:
    count, digest = row(con, f"SELECT count(*), coalesce(md5(string_agg(h, ',' ORDER BY {order})), '') "
                                  f"FROM ({rows})")
    return f"{count}:{digest}"


def changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What differs between two sets of fingerprints, one phrase per input (``the benchmark B (games.jsonl)``),
    in the order of ``new``."""
    out = []
    for name in [*new, *(n for n in old if n not in new)]:
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        entry = after if isinstance(after, Mapping) else before
        what = f"{entry.get('what', name)} {entry.get('path', '')}".strip() if isinstance(entry, Mapping) else name
        if not isinstance(before, Mapping) or not isinstance(after, Mapping):
            out.append(f"{what} ({'not read before' if before is None else 'not read now'})")
            continue
        parts = [key for part in ("files", "tables") for key in _differing(before.get(part), after.get(part))]
        if before.get("path") != after.get("path"):
            parts.insert(0, f"was {before.get('path')}")
        out.append(f"{what} ({', '.join(parts)})" if parts else what)
    return out


def _differing(before: Any, after: Any) -> list[str]:
    if not isinstance(before, Mapping) or not isinstance(after, Mapping):
        return [] if before == after else ["content"]
    return [key for key in sorted(set(before) | set(after)) if before.get(key) != after.get(key)]


def check_unchanged(config_path: Path, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    """Refuse to go on in a run directory whose recorded fingerprints ``old`` differ from the inputs' ``new``
    ones: a ``run-inputs`` error at ``config.json`` naming the first input that changed."""
    found = changes(old, new)
    if found:
        more = f" and {len(found) - 1} more input(s)" if len(found) > 1 else ""
        raise KariError(f"{found[0]}{more} changed since this run directory was made; resuming would mix records "
                        f"of two inputs: start afresh with a new --out (or remove {config_path.parent})",
                        file=str(config_path), code="run-inputs")


__all__ = ["INPUTS_KEY", "changes", "check_unchanged", "file_digest", "file_input", "folder_input", "query_digest",
           "table_digest", "table_input"]
