"""DuckDB database files: what ``--db`` may name, and how kari connects to one.

A path is opened as a database only when it is new, empty or a DuckDB database (its magic bytes): a CSV, JSON,
Parquet, gzip or SQLite file given as ``--db`` is refused before DuckDB sees it (DuckDB would open a CSV file
as an empty in-memory database, or try to download the SQLite extension). Every connection kari opens has
DuckDB's extension auto-install and auto-load off, so no file makes DuckDB reach the network.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kari.errors import KariError

CONNECT_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
"""The DuckDB settings of every connection kari opens."""
DUCKDB_MAGIC = (8, b"DUCK")
"""Offset and bytes of a DuckDB database file's magic number."""


def check_database_file(path: str | Path) -> str:
    """The absolute path DuckDB should open for ``path`` (DuckDB expands a leading ``~`` the user may not
    mean), after checking that an existing file there is a DuckDB database: a folder, FIFO or device, and a
    file of another kind, are a :class:`KariError` (code ``kb-db``). An empty file or a new path is fine."""
    where = str(path)
    target = os.path.abspath(where)
    if not os.path.exists(target):
        return target
    if not os.path.isfile(target):
        raise KariError("not a database file (a folder, device or FIFO)", file=where, code="kb-db")
    try:
        with open(target, "rb") as handle:
            head = handle.read(16)
    except OSError as exc:
        raise KariError(f"cannot read the database file: {exc.strerror or exc}", file=where, code="kb-db") from None
    at, magic = DUCKDB_MAGIC
    if head and head[at: at + len(magic)] != magic:
        raise KariError(f"not a DuckDB database: it looks like {file_kind(head)}; --db names a kari KB file or a new "
                        "path", file=where, code="kb-db")
    return target


def file_kind(head: bytes) -> str:
    """What a file that is not a DuckDB database looks like, from its first bytes."""
    if head.startswith(b"SQLite format 3\x00"):
        return "an SQLite database"
    if head.startswith(b"\x1f\x8b"):
        return "gzip-compressed data"
    if head.startswith(b"PAR1"):
        return "a Parquet file"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text[:1] in (b"{", b"["):
        return "JSON text"
    if all(32 <= b < 127 or b in (9, 10, 13) or b >= 128 for b in head):
        return "a text file (CSV, TSV or another text format)"
    return "a binary file of another kind"


def connect(path: str | Path, read_only: bool = False) -> Any:
    """A DuckDB connection to the database file ``path`` (checked by :func:`check_database_file`), opened with
    :data:`CONNECT_CONFIG`. DuckDB's own errors propagate (callers word them)."""
    import duckdb

    return duckdb.connect(check_database_file(path), read_only=read_only, config=CONNECT_CONFIG)
