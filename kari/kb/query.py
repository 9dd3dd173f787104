"""Read-side queries of the KB: counts, one node's edges, and arbitrary read-only SQL."""

from __future__ import annotations

import math
import threading
import time
from typing import Any

import duckdb

from kari.io.sql import count, scalar
from kari.errors import KariError

SHOW_COLUMNS = ("node1", "relation", "node2", "source", "weight", "file", "line")


def stats(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """``{"edges", "nodes", "relations": {rel: n}, "sources": {src: n}, "files": [...]}`` (counts descending)."""
    edges = count(con, "SELECT count(*) FROM edges")
    nodes = count(con, "SELECT count(*) FROM (SELECT node1 FROM edges UNION SELECT node2 FROM edges)")

    def counts(column: str) -> dict[str, int]:
        rows = con.execute(f"SELECT coalesce({column}, ''), count(*) AS n FROM edges GROUP BY 1 "
                           "ORDER BY n DESC, 1").fetchall()
        return {key: n for key, n in rows}

    files = [{"file": f, "format": fmt, "edges_read": r, "edges_added": a}
             for f, fmt, r, a in con.execute("SELECT file, format, edges_read, edges_added FROM loads "
                                             "ORDER BY load_id").fetchall()]
    return {"edges": edges, "nodes": nodes, "relations": counts("relation"), "sources": counts("source"),
            "files": files}


def show_node(con: duckdb.DuckDBPyConnection, node: str, limit: int = 1000) -> list[dict[str, Any]]:
    """Edges touching ``node``: an exact node id, else every node whose readable label is ``node`` (read as a key:
    ``Knife`` is ``knife``; a name with no letter or digit matches no label)."""
    if limit < 1:
        raise KariError(f"the limit must be at least 1, got {limit}", code="bad-option")
    cols = ", ".join(SHOW_COLUMNS)
    rows = con.execute(f"SELECT {cols} FROM edges WHERE node1 = $n OR node2 = $n ORDER BY file, line LIMIT $l",
                       {"n": node, "l": limit}).fetchall()
    key = scalar(con, "SELECT kari_snake(kari_label(?))", [node])
    if not rows and key:  # a name without a letter or digit ('', '#') has no label key: it names no node
        rows = con.execute(
            f"SELECT {cols} FROM edges WHERE kari_snake(kari_node_label(node1, node1_label)) = $key "
            f"OR kari_snake(kari_node_label(node2, node2_label)) = $key ORDER BY file, line LIMIT $l",
            {"key": key, "l": limit}).fetchall()
    return [dict(zip(SHOW_COLUMNS, row)) for row in rows]


# User SQL may read the KB and nothing else: no files (COPY, read_csv, EXPORT, glob, read_text: the local file
# system is disabled, the database's own file and its temporary folder included), no other database (ATTACH), no
# extension download (INSTALL), no spilling to disk and no setting changes (the last statement locks the
# configuration). Memory is capped so a runaway query fails instead of taking the machine.
USER_SQL_SETTINGS = ("SET temp_directory = ''", "SET memory_limit = '4GB'", "SET enable_external_access = false",
                     "SET disabled_filesystems = 'LocalFileSystem'", "SET lock_configuration = true")
DEFAULT_SQL_TIMEOUT = 60.0


def lock_down(con: duckdb.DuckDBPyConnection) -> None:
    """Apply :data:`USER_SQL_SETTINGS` to ``con``: from now on it can only query its own database."""
    for statement in USER_SQL_SETTINGS:
        con.execute(statement)


def run_sql(con: duckdb.DuckDBPyConnection, query: str, max_rows: int = 1000,
            timeout: float = DEFAULT_SQL_TIMEOUT) -> tuple[list[str], list[tuple]]:
    """Run one user query on ``con`` after :func:`lock_down` (so the connection stays locked); return the column
    names and at most ``max_rows`` rows. Errors become a KariError (code ``kb-sql``). The query runs in a worker
    thread while this one waits: past ``timeout`` seconds, or at Ctrl-C, DuckDB is told to stop it at once
    (``interrupt``), so no query outlives its limit or ignores Ctrl-C."""
    if max_rows < 0:
        raise KariError(f"the row limit must be at least 0, got {max_rows}", code="bad-option")
    if not (math.isfinite(timeout) and timeout > 0):
        raise KariError(f"the time limit must be a finite number of seconds > 0, got {timeout}", code="bad-option")
    if not query.strip():
        raise KariError("the query is empty", code="kb-sql")
    lock_down(con)
    outcome: dict[str, Any] = {}
    done = threading.Event()       # not Thread.join: a join cut by Ctrl-C marks a running thread stopped

    def work() -> None:
        try:
            result = con.execute(query)
            if result is None:
                raise KariError("the query holds no SQL statement", code="kb-sql")
            if result.description is None:
                outcome["rows"] = [], []
                return
            outcome["rows"] = [d[0] for d in result.description], result.fetchmany(max_rows) if max_rows else []
        except BaseException as exc:  # handed to the waiting thread
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="kari-sql", daemon=True).start()
    try:
        finished = done.wait(timeout)
    except BaseException:                         # Ctrl-C while waiting: stop the query, then report it
        _stop(con, done)
        raise
    if not finished:
        _stop(con, done)
        raise KariError(f"the query did not finish within {timeout:g} s (--timeout) and was stopped", code="kb-sql")
    error = outcome.get("error")
    if isinstance(error, duckdb.Error):
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        if "has been disabled by configuration" in first or "operations are disabled" in first:
            first = f"files are out of reach: kb sql reads this KB's tables and views only ({first})"
        raise KariError(first, code="kb-sql") from None
    if error is not None:
        raise error
    rows: tuple[list[str], list[tuple[Any, ...]]] = outcome["rows"]
    return rows


def _stop(con: duckdb.DuckDBPyConnection, done: threading.Event) -> None:
    """Interrupt the running query and wait (briefly) for its thread to end."""
    con.interrupt()
    done.wait(10.0)
