"""The KB store: open a DuckDB file with kari's schema, and load edge files into it.

Each file is loaded in one transaction: DuckDB reads and decodes it in one SQL statement (see
:mod:`kari.kb.formats`); the first malformed line aborts the load with ``FILE:LINE: what is wrong`` and the
database is left as it was. Edges are deduplicated on their content key (node1, relation, node2, source),
so loading a file twice adds nothing the second time.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from kari import interrupts
from kari.errors import KariError
from kari.kb import formats, textfile
from kari.kb.maps import refresh_maps
from kari.resources import asset_path

DEFAULT_DB = "kari.duckdb"
SQL_FILES = ("schema.sql", "vocabulary.sql", "macros.sql", "views.sql", "creativity.sql")
_BAD_LINE = "kari: malformed line"
LOAD_MEMORY_LIMIT = "1GB"
# While loading: rows need not be stored in file order (``line`` records it), which lets DuckDB insert on all
# threads without waiting for earlier batches (on 2 cores the order-preserving insert often ran on one).
LOAD_SETTINGS = {"preserve_insertion_order": "false"}

# One statement decodes, validates (error() on the first problem row met) and inserts the edges whose
# content key is not in the KB yet.
INSERT_SQL = """
INSERT INTO edges BY NAME
SELECT md5_number(concat_ws(chr(31), node1, relation, node2, coalesce(source, ''))) AS edge_key,
       coalesce(id, concat_ws('-', node1, relation, node2, source)) AS id,
       * EXCLUDE (id, problem), $file AS file, $load_id AS load_id
FROM ({staged}) AS st
WHERE CASE WHEN problem IS NULL THEN true ELSE error('""" + _BAD_LINE + """') END
  AND edge_key NOT IN (SELECT edge_key FROM edges)
"""
# Duplicates inside one file: keep the first line of each content key (within a line, the first member of a
# node2 list: ids ID-1 < ID-2 < ... by length, then text). Run only when there are duplicates (a DELETE makes
# DuckDB's commit of a large insert much slower; the window runs on duplicated keys only).
COUNT_SQL = "SELECT count(*), count(DISTINCT edge_key) FROM edges WHERE load_id = ?"
DEDUPE_SQL = """
DELETE FROM edges WHERE load_id = $load_id AND rowid IN (
  SELECT e.rowid FROM edges AS e
  JOIN (SELECT edge_key FROM edges WHERE load_id = $load_id GROUP BY edge_key HAVING count(*) > 1) USING (edge_key)
  WHERE e.load_id = $load_id
  QUALIFY row_number() OVER (PARTITION BY e.edge_key ORDER BY e.line, length(e.id), e.id, e.rowid) > 1)
"""


@dataclass(frozen=True)
class FileLoad:
    """What loading one file did."""

    file: str
    format: str
    lines: int
    edges_added: int
    seconds: float
    header: bool = True


@dataclass
class LoadReport:
    """The files loaded by one :func:`load_files` call, in order."""

    files: list[FileLoad] = field(default_factory=list)
    vocabulary: str = ""  # how the KB objects' words were read into the database's vocabulary (load_into)

    @property
    def edges_added(self) -> int:
        return sum(f.edges_added for f in self.files)

    def summary(self) -> str:
        """One line per file: ``FILE (FORMAT): N lines, M new edges, T s`` (FORMAT says when the file has no
        header line, so that a header kari did not recognise is noticed)."""
        lines = [f"{f.file} ({f.format}{'' if f.header else ', no header: line 1 is data'}): "
                 f"{f.lines} data lines, {f.edges_added} new edges, {f.seconds:.2f} s" for f in self.files]
        return "\n".join([*lines, *([f"vocabulary: {self.vocabulary}"] if self.vocabulary else [])])


def open_db(path: str | Path = DEFAULT_DB, read_only: bool = False, *, create: bool = True,
            lexicon: Path | None = None, relation_map: Path | None = None) -> duckdb.DuckDBPyConnection:
    """Open (creating if needed) a kari KB. A writable open installs the schema, macros and views and
    refreshes the relation map and value lexicon from their TSV files; a read-only open, or one with
    ``create=False``, needs an existing kari KB (a DuckDB file with an ``edges`` table)."""
    where = str(path)
    if where != ":memory:" and Path(where).exists() and not Path(where).is_file():
        raise KariError("not a database file (a folder, device or FIFO)", file=where, code="kb-db")
    if (read_only or not create) and where != ":memory:" and not Path(where).exists():
        raise KariError("database not found", file=where, code="kb-db")
    try:
        con = duckdb.connect(where, read_only=read_only)
    except duckdb.Error as exc:
        raise KariError(f"cannot open database: {_first_line(exc)}", file=where, code="kb-db") from None
    con.execute("SET enable_progress_bar = false")
    if read_only or not create:
        if not con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'edges'").fetchone()[0]:
            con.close()
            raise KariError("not a kari KB (no edges table)", file=where, code="kb-db")
        if read_only:
            return con
    try:
        con.execute("BEGIN TRANSACTION")
        _install_schema(con)
        refresh_maps(con, relation_map, lexicon)
        con.execute("COMMIT")
    except duckdb.Error as exc:
        rollback(con)
        con.close()
        raise KariError(f"cannot write the database: {_first_line(exc)}", file=where, code="kb-db") from None
    except BaseException:
        rollback(con)
        con.close()
        raise
    return con


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    """ROLLBACK the open transaction; nothing when DuckDB has already ended it (it aborts a transaction by
    itself after an I/O error, and a second ROLLBACK would fail with "no transaction is active")."""
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:
        pass


def _install_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Run kb/schema.sql, macros.sql and views.sql unless this database already has exactly these versions
    (their SHA-256 is kept in the table ``kari_meta``)."""
    texts = [asset_path("kb", name).read_text(encoding="utf-8") for name in SQL_FILES]
    digest = hashlib.sha256("\0".join(texts).encode()).hexdigest()
    con.execute("CREATE TABLE IF NOT EXISTS kari_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    if con.execute("SELECT value FROM kari_meta WHERE key = 'sql_sha256'").fetchone() == (digest,):
        return
    for text in texts:
        con.execute(text)
    con.execute("INSERT OR REPLACE INTO kari_meta VALUES ('sql_sha256', ?)", [digest])
    con.execute("DELETE FROM kari_meta WHERE key = 'maps_sha256'")  # a new schema: refill the maps too


def load_into(db: str | Path, paths: Iterable[str | Path], fmt: str = "auto", *,
              lexicon: Path | None = None) -> LoadReport:
    """Open (creating if needed) the KB file ``db``, :func:`load_files` into it, read the KB objects' words and
    part names into the database's vocabulary (:func:`kari.kb.views.store_kb_words`) and close it. Every file's
    format and header are checked before the database is touched; a database file this call created is removed
    again when no file could be loaded: a failed first load leaves nothing."""
    paths = [Path(p) for p in paths]
    for path in paths:
        formats.detect(path, fmt)
    where = Path(db)
    created = str(db) != ":memory:" and not where.exists()
    report = LoadReport()
    try:
        con = open_db(db, lexicon=lexicon)
        try:
            load_files(con, paths, fmt, report=report)
            from kari.kb.views import store_kb_words

            report.vocabulary = store_kb_words(con).summary()
        finally:
            con.close()
    except BaseException:
        if created and not report.files:
            for leftover in (where, where.with_name(where.name + ".wal")):
                leftover.unlink(missing_ok=True)
        raise
    return report


def load_files(con: duckdb.DuckDBPyConnection, paths: Iterable[str | Path], fmt: str = "auto", *,
               memory_limit: str | None = LOAD_MEMORY_LIMIT, report: LoadReport | None = None) -> LoadReport:
    """Load each file in its own transaction; the first bad file raises a :class:`KariError` (files before it
    stay loaded, the bad one adds nothing). DuckDB's memory is capped at ``memory_limit`` while loading
    (it spills to disk beyond it); None keeps the connection's setting. :data:`LOAD_SETTINGS` apply while
    loading too; every setting is restored afterwards. Each loaded file is added to ``report`` (a new one by
    default) as soon as it is committed, so a caller that passed it knows what a failure left loaded."""
    report = report if report is not None else LoadReport()
    settings = dict(LOAD_SETTINGS, **({"memory_limit": memory_limit} if memory_limit else {}))
    previous = {name: con.execute("SELECT current_setting(?)", [name]).fetchone()[0] for name in settings}
    try:
        for name, value in settings.items():
            con.execute(f"SET {name} = '{value}'")
        for path in paths:
            report.files.append(load_file(con, Path(path), fmt))
    except BaseException:
        try:
            _restore_settings(con, previous)
        except duckdb.Error:    # a connection DuckDB gave up on: the load's own error is the one to report
            pass
        raise
    _restore_settings(con, previous)
    return report


def _restore_settings(con: duckdb.DuckDBPyConnection, previous: dict[str, str]) -> None:
    for name, value in previous.items():       # RESET first: SET of a printed size may round it
        con.execute(f"RESET {name}")
        if con.execute("SELECT current_setting(?)", [name]).fetchone()[0] != value:
            con.execute(f"SET {name} = '{value}'")


def load_file(con: duckdb.DuckDBPyConnection, path: Path, fmt: str = "auto") -> FileLoad:
    """Load one file all-or-nothing; see :func:`load_files`. Python counts the lines (and looks for blank
    lines, which DuckDB would skip silently) in a thread while DuckDB loads."""
    start = time.perf_counter()
    src = formats.detect(path, fmt)
    file = str(path.resolve())
    stop = threading.Event()
    with ThreadPoolExecutor(max_workers=1) as pool:
        counting = pool.submit(textfile.count_lines, path, stop)
        try:
            con.execute("BEGIN TRANSACTION")
            load_id = con.execute("SELECT nextval('kari_load_seq')").fetchone()[0]
            con.execute(INSERT_SQL.format(staged=formats.staged_sql(src)), {"file": file, "load_id": load_id})
            inserted, added = con.execute(COUNT_SQL, [load_id]).fetchone()
            if inserted > added:
                con.execute(DEDUPE_SQL, {"load_id": load_id})
            count = counting.result()
            problem = count.first_problem(src.path)
            if problem is not None:
                raise problem
            lines = count.lines - int(src.header)
            con.execute("INSERT INTO loads (load_id, file, format, edges_read, edges_added) "
                        "VALUES (?, ?, ?, ?, ?)", [load_id, file, src.fmt, lines, added])
            con.execute("COMMIT")
        except duckdb.Error as exc:
            rollback(con)
            if interrupts.interrupted():
                stop.set()
                raise _interrupted(src) from None
            database = con.execute("SELECT path FROM duckdb_databases() "
                                   "WHERE database_name = current_database()").fetchone()[0]
            if database and database in str(exc):    # the database (its WAL, its spill folder), not the input
                stop.set()
                raise KariError(f"cannot write the database: {_first_line(exc)}", file=database,
                                code="kb-db") from None
            error = _locate(con, src, exc)
            earlier = counting.result().first_problem(src.path)
            if earlier is not None and (error.line is None or error.line > (earlier.line or 0)):
                error = earlier
            raise error from None
        except BaseException as exc:
            stop.set()
            rollback(con)
            if isinstance(exc, KeyboardInterrupt) or interrupts.interrupted():
                raise _interrupted(src) from None
            raise
    return FileLoad(str(path), src.fmt, lines, added, time.perf_counter() - start,
                    src.header or src.json_lines)


def _interrupted(src: formats.Source) -> KariError:
    return KariError("stopped by Ctrl-C: nothing of this file was loaded (the files before it are)", file=str(src.path),
                     code="interrupted", exit_code=130)


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _locate(con: duckdb.DuckDBPyConnection, src: formats.Source, exc: duckdb.Error) -> KariError:
    """Turn a DuckDB failure into a precise ``FILE:LINE`` error: a SQL query for value problems, a Python
    scan for structural ones (column count, encoding, bad JSON)."""
    where = str(src.path)
    if _BAD_LINE in str(exc):
        row = con.execute(f"SELECT line, problem FROM ({formats.staged_sql(src)}) AS st "
                          "WHERE problem IS NOT NULL ORDER BY line LIMIT 1").fetchone()
        if row is not None:
            return KariError(row[1], file=where, line=int(row[0]), code="kb-value")
    found = textfile.first_bad_line(src.path, len(src.columns), src.delim, src.json_lines, src.header)
    if found is not None:
        return found
    match = re.search(r"[Ll]ine:? (\d+)", str(exc))
    return KariError(_first_line(exc), file=where, line=int(match.group(1)) if match else None, code="kb-read")
