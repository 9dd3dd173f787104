"""DuckDB database files: what ``--db`` may name, and how kari connects to one.

A path is opened as a database only when it is new, empty or a DuckDB database (its magic bytes): a CSV, JSON,
Parquet, gzip or SQLite file given as ``--db`` is refused before DuckDB sees it (DuckDB would open a CSV file
as an empty in-memory database, or try to download the SQLite extension). Every connection kari opens has
DuckDB's extension auto-install and auto-load off, so no file or query makes DuckDB reach the network.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from kari.errors import KariError

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

CONNECT_SETTINGS = ("SET autoinstall_known_extensions = false", "SET autoload_known_extensions = false")
"""Run on every connection kari opens (as statements, not connect-time config: a process may hold other
connections to the same file, and DuckDB refuses a second connection with another configuration). The
magic-byte check keeps the files that would make DuckDB load an extension while connecting away from it."""
UNOPENABLE = ("?", "\\")
"""Characters DuckDB does not take literally in a database path (file names of inputs may hold them)."""
DUCKDB_MAGIC = (8, b"DUCK")
"""Offset and bytes of a DuckDB database file's magic number."""
_LOCK_HOLDER = re.compile(r"Conflicting lock is held in (.+?) \(PID (\d+)\)")


def check_database_file(path: str | Path) -> str:
    """The absolute path DuckDB should open for ``path`` (DuckDB expands a leading ``~`` the user may not
    mean), after checking that an existing file there is a DuckDB database: a folder, FIFO or device, and a
    file of another kind, are a :class:`KariError` (code ``kb-db``). An empty file or a new path is fine."""
    where = str(path)
    target = os.path.abspath(where)
    odd = [c for c in UNOPENABLE if c in target]
    if odd:
        raise KariError(f"DuckDB cannot open a database whose path holds {odd[0]!r} (it reads '?' as the start of "
                        "URL options and '\\' as a Windows folder separator); give another path", file=where,
                        code="kb-db")
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


def connect(path: str | Path, read_only: bool = False) -> DuckDBPyConnection:
    """A DuckDB connection to ``path`` (``:memory:``, or a file checked by :func:`check_database_file`) with
    :data:`CONNECT_SETTINGS` applied. A database another process holds open for writing is a :class:`KariError`
    (code ``locked``, naming that process); DuckDB's other errors propagate (callers word them)."""
    import duckdb

    target = str(path) if str(path) == ":memory:" else check_database_file(path)
    try:
        con = duckdb.connect(target, read_only=read_only)
    except duckdb.IOException as exc:
        held = _LOCK_HOLDER.search(str(exc))
        if held is None and "Could not set lock" not in str(exc):
            raise
        who = f" ({held.group(1).rsplit('/', 1)[-1]}, PID {held.group(2)})" if held else ""
        raise KariError(f"the database is locked by another process{who} that has it open for writing; wait for "
                        "it to finish", file=str(path), code="locked") from None
    try:
        for statement in CONNECT_SETTINGS:
            con.execute(statement)
    except BaseException:
        con.close()
        raise
    return con
