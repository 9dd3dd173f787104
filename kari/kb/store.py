"""The KB store: open a DuckDB file with kari's schema, and load edge files into it.

Each file is loaded in one transaction (:func:`transaction`): DuckDB reads and decodes it in one SQL statement
(see :mod:`kari.kb.formats`); the first malformed line aborts the load with ``FILE:LINE: what is wrong`` and the
database is left as it was. Edges are deduplicated on their content key (node1, relation, node2, source),
so loading a file twice adds nothing the second time. :func:`load_into` also brings the database's vocabulary
up to date inside each file's transaction, so a load stopped at any point (Ctrl-C, a full disk) leaves the
edges, the ``loads`` row and the vocabulary of that file all absent.

A path given as ``--db`` is opened only when it is a new path or an existing DuckDB database (checked by its
magic bytes: a CSV, JSON, Parquet, gzip or SQLite file is refused before DuckDB sees it), and DuckDB never
installs or loads an extension by itself (no download, whatever the file holds). An existing KB whose kari
tables, views or macros were changed by something else is refused (code ``kb-damaged``).
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from kari.io.sql import count, row, scalar
from kari import interrupts
from kari.errors import ExitCode, KariError
from kari.io.dbfile import check_database_file, connect
from kari.io.outputs import Output, OutputKind, check_outputs, inputs_of
from kari.kb import formats, textfile
from kari.kb.maps import refresh_maps
from kari.kb.template import copy_template, ensure_template, read_template
from kari.io.transaction import rollback, transaction
from kari.kb.views import store_kb_words
from kari.resources import asset_path

DEFAULT_DB = "kari.duckdb"
SQL_FILES = ("schema.sql", "vocabulary.sql", "macros.sql", "views.sql", "creativity.sql")
_BAD_LINE = "kari: malformed line"
LOAD_MEMORY_LIMIT = "1GB"
# While loading: rows need not be stored in file order (``line`` records it), which lets DuckDB insert on all
# threads without waiting for earlier batches (on 2 cores the order-preserving insert often ran on one).
LOAD_SETTINGS = {"preserve_insertion_order": "false"}

# An edge's content: what makes two edges one (a NULL source is ''). No key is stored.
CONTENT = "node1, relation, node2, coalesce(source, '')"
# One statement decodes, validates (error() on the first problem row met) and inserts the edges whose
# content is not in the KB yet.
INSERT_SQL = """
INSERT INTO edges BY NAME
SELECT coalesce(id, concat_ws('-', node1, relation, node2, source)) AS id,
       * EXCLUDE (id, problem), $file AS file, $load_id AS load_id
FROM ({staged}) AS st
WHERE CASE WHEN problem IS NULL THEN true ELSE error('""" + _BAD_LINE + """') END {new_only}
"""
# The edges already in the KB, compared by a 128-bit digest of their content made for this statement (never
# stored: two independent 64-bit hashes, of the columns and of their joined text); skipped while the KB holds
# no edge. A join on the four text columns themselves takes twice as long and more memory than the limit on a
# reload of 2,000,000 edges.
DIGEST = (f"(hash({CONTENT})::UHUGEINT << 64 | hash(concat_ws(chr(31), {CONTENT}))::UHUGEINT)")
NEW_ONLY = f"AND {DIGEST} NOT IN (SELECT {DIGEST} FROM edges)"
RAW_TABLE = "kari_raw_lines"
# Duplicates inside one file: keep the first line of each content (within a line, the first member of a node2
# list: ids ID-1 < ID-2 < ... by length, then text). Run only when there may be duplicates: fewer distinct
# content hashes than rows (a hash collision only costs this exact pass; a DELETE makes DuckDB's commit of a
# large insert much slower; the window runs on duplicated contents only).
COUNT_SQL = f"SELECT count(*), count(DISTINCT hash({CONTENT})) FROM edges WHERE load_id = ?"
DEDUPE_SQL = f"""
DELETE FROM edges WHERE load_id = $load_id AND rowid IN (
  SELECT rowid FROM edges
  WHERE load_id = $load_id AND row({CONTENT}) IN (
    SELECT row({CONTENT}) FROM edges WHERE load_id = $load_id GROUP BY ALL HAVING count(*) > 1)
  QUALIFY row_number() OVER (PARTITION BY {CONTENT} ORDER BY line, length(id), id, rowid) > 1)
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
    ``create=False``, needs an existing kari KB (a DuckDB file with an ``edges`` table). An existing file that
    is not a DuckDB database, or a KB whose kari tables, views or macros were changed, is a :class:`KariError`
    before anything is written."""
    where = str(path)
    new = where == ":memory:" or not Path(where).exists() or Path(where).stat().st_size == 0
    if (read_only or not create) and where != ":memory:" and not Path(where).exists():
        raise KariError("database not found", file=where, code="kb-db")
    if new and not read_only and where != ":memory:":
        if create:
            _drop_empty_file(where)
        template = _template()
        if template is not None:     # the schema and default maps come ready (kari.kb.template)
            copy_template(template, check_database_file(where))
    try:
        con = connect(where, read_only=read_only)
    except duckdb.Error as exc:
        raise KariError(f"cannot open database: {_first_line(exc)}", file=where, code="kb-db") from None
    try:
        con.execute("SET enable_progress_bar = false")
        if read_only or not create:
            if not count(con, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'edges'"):
                raise KariError("not a kari KB (no edges table)", file=where, code="kb-db")
        if not read_only:
            try:
                with transaction(con):
                    _install_schema(con)
                    refresh_maps(con, relation_map, lexicon)
            except duckdb.Error as exc:
                raise KariError(f"cannot write the database: {_first_line(exc)}", file=where,
                                code="kb-db") from None
        if not new:                          # a database this open created has kari's schema as installed
            check_schema(con, where)
    except BaseException:
        con.close()
        raise
    return con


def _drop_empty_file(where: str) -> None:
    """Remove an empty file at a new database's path (made by ``touch`` or ``mktemp``): it holds nothing, and
    DuckDB 2 refuses to open it as a database; the new database takes its place. A file that is not empty, or
    cannot be removed, is left for the open to judge."""
    path = Path(where)
    try:
        if path.is_file() and path.stat().st_size == 0:
            path.unlink()
    except OSError:
        pass


@functools.cache
def _sql_texts() -> tuple[str, ...]:
    return tuple(asset_path("kb", name).read_text(encoding="utf-8") for name in SQL_FILES)


@functools.cache
def _sql_digest() -> str:
    """SHA-256 of the SQL files as this kari installs them (kept in ``kari_meta`` as ``sql_sha256``)."""
    return hashlib.sha256("\0".join(_sql_texts()).encode()).hexdigest()


def _install_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Run kb/schema.sql, macros.sql and views.sql unless this database already has exactly these versions
    (their SHA-256 is kept in the table ``kari_meta``)."""
    texts = _sql_texts()
    digest = _sql_digest()
    con.execute("CREATE TABLE IF NOT EXISTS kari_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    if con.execute("SELECT value FROM kari_meta WHERE key = 'sql_sha256'").fetchone() == (digest,):
        return
    for text in texts:
        con.execute(text)
    con.execute("INSERT OR REPLACE INTO kari_meta VALUES ('sql_sha256', ?)", [digest])
    con.execute("DELETE FROM kari_meta WHERE key = 'maps_sha256'")  # a new schema: refill the maps too


@functools.cache
def _template() -> Path | None:
    """The cached empty KB of this schema and DuckDB (:mod:`kari.kb.template`), built on first use; None when it
    cannot be kept."""
    return ensure_template(_sql_digest(), _build_template, _is_current_schema)


def _build_template(con: duckdb.DuckDBPyConnection) -> None:
    with transaction(con):
        _install_schema(con)
        refresh_maps(con)


def _is_current_schema(con: duckdb.DuckDBPyConnection) -> bool:
    return con.execute("SELECT value FROM kari_meta WHERE key = 'sql_sha256'").fetchone() == (_sql_digest(),)


@functools.cache
def _expected_catalog() -> dict[str, tuple[str, ...]]:
    """kari's own catalog, as a freshly installed KB has it: ``table:NAME`` / ``view:NAME`` -> its columns with
    types, ``macro:NAME`` and ``sequence:NAME`` -> (); read from the cached empty KB when there is one."""
    template = _template()
    if template is not None:
        try:
            return read_template(template, _catalog)
        except (duckdb.Error, KariError):
            pass
    con = connect(":memory:")
    try:
        _install_schema(con)
        return _catalog(con)
    finally:
        con.close()


def _catalog(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, ...]]:
    """The main schema's tables and views (with their columns and types), macros and sequences."""
    found: dict[str, tuple[str, ...]] = {}
    kinds = dict(con.execute("SELECT table_name, 'table' FROM duckdb_tables() WHERE schema_name = 'main' "
                             "AND database_name = current_database() UNION ALL SELECT view_name, 'view' "
                             "FROM duckdb_views() WHERE NOT internal AND schema_name = 'main' "
                             "AND database_name = current_database()").fetchall())
    for name, columns in con.execute(
            "SELECT table_name, list(column_name || ' ' || data_type ORDER BY column_index) FROM duckdb_columns() "
            "WHERE schema_name = 'main' AND database_name = current_database() GROUP BY ALL").fetchall():
        if name in kinds:
            found[f"{kinds[name]}:{name}"] = tuple(columns)
    for name in kinds:
        found.setdefault(f"{kinds[name]}:{name}", ())
    for (name,) in con.execute("SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_type IN "
                               "('macro', 'table_macro') AND NOT internal AND schema_name = 'main' "
                               "AND database_name = current_database()").fetchall():
        found[f"macro:{name}"] = ()
    for (name,) in con.execute("SELECT sequence_name FROM duckdb_sequences() WHERE schema_name = 'main' "
                               "AND database_name = current_database()").fetchall():
        found[f"sequence:{name}"] = ()
    return found


def check_schema(con: duckdb.DuckDBPyConnection, where: str) -> None:
    """Raise ``kb-damaged`` when one of kari's tables, views, macros or sequences is missing or a table or view
    has other columns than kari gives it (something other than kari changed the database). Objects that are
    not kari's are ignored."""
    if not count(con, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'kari_meta' "
                       "AND database_name = current_database()"):
        return                           # never opened for writing by kari: no schema to check yet
    if con.execute("SELECT value FROM kari_meta WHERE key = 'sql_sha256'").fetchone() != (_sql_digest(),):
        return                           # another version's schema (a read-only open cannot update it)
    have = _catalog(con)
    for key, columns in _expected_catalog().items():
        kind, name = key.split(":", 1)
        if key not in have:
            raise KariError(f"the {kind} {name!r} of kari's schema is missing; an older kari made the database "
                            "or something other than kari changed it (load the KB again into a new database)",
                            file=where, code="kb-damaged")
        if have[key] != columns:
            raise KariError(f"the {kind} {name!r} has the columns ({', '.join(have[key])}) where kari's schema "
                            f"has ({', '.join(columns)}); an older kari made the database or something other than "
                            "kari changed it (load the KB again into a new database)", file=where, code="kb-damaged")


def load_into(db: str | Path, paths: Iterable[str | Path], fmt: str = "auto", *,
              lexicon: Path | None = None) -> LoadReport:
    """Open (creating if needed) the KB file ``db``, :func:`load_files` into it with the vocabulary step (the
    KB objects' words and part names read into the database's vocabulary, :func:`kari.kb.views.store_kb_words`,
    in each file's transaction) and close it. Every file's format and header are checked before the database is
    touched; a database file this call created is removed again when no file could be loaded: a failed first
    load leaves nothing."""
    files = [Path(p) for p in paths]
    check_outputs([Output(Path(db), "--db", OutputKind.DATABASE)],
                  [*inputs_of("a KB file", files), *inputs_of("--lexicon", [lexicon])])
    for path in files:
        formats.detect(path, fmt)
    report = LoadReport()
    with removed_unless(db, lambda: bool(report.files)):
        try:
            con = open_db(db, lexicon=lexicon)
            try:
                load_files(con, files, fmt, report=report, vocabulary=True)
            finally:
                con.close()
        except (KeyboardInterrupt, duckdb.Error) as exc:
            # a Ctrl-C outside a file's own load (opening the database, installing its schema, between files)
            # names the file it kept from loading, as one inside it does
            if files and len(report.files) < len(files) and (isinstance(exc, KeyboardInterrupt)
                                                             or interrupts.interrupted()):
                raise _interrupted_file(files[len(report.files)]) from None
            raise
    return report


@contextmanager
def removed_unless(db: str | Path, keep: Callable[[], bool] = lambda: False) -> Iterator[None]:
    """Remove the database file ``db`` (and its WAL) when the block fails, it did not exist before the block
    and ``keep()`` is false: a command that fails before storing anything leaves no new database behind."""
    created = str(db) != ":memory:" and not Path(db).exists()
    try:
        yield
    except BaseException:
        if created and not keep():
            remove_database(db)
        raise


def remove_database(db: str | Path) -> None:
    """Delete the database file ``db`` and its WAL (a new database a failed command created)."""
    if str(db) == ":memory:":
        return
    where = Path(db)
    for leftover in (where, where.with_name(where.name + ".wal")):
        leftover.unlink(missing_ok=True)


def load_files(con: duckdb.DuckDBPyConnection, paths: Iterable[str | Path], fmt: str = "auto", *,
               memory_limit: str | None = LOAD_MEMORY_LIMIT, report: LoadReport | None = None,
               vocabulary: bool = False) -> LoadReport:
    """Load each file in its own transaction; the first bad file raises a :class:`KariError` (files before it
    stay loaded, the bad one adds nothing). With ``vocabulary`` each file's transaction also stores the
    database's vocabulary with the KB objects' words read in (``report.vocabulary`` then says how the last
    file's step read them). DuckDB's memory is capped at ``memory_limit`` while loading (it spills to disk
    beyond it); None keeps the connection's setting. :data:`LOAD_SETTINGS` apply while loading too; every setting
    is restored afterwards. Each loaded file is added to ``report`` (a new one by default) as soon as it is
    committed, so a caller that passed it knows what a failure left loaded."""
    report = report if report is not None else LoadReport()
    settings = dict(LOAD_SETTINGS, **({"memory_limit": memory_limit} if memory_limit else {}))
    previous = {name: scalar(con, "SELECT current_setting(?)", [name]) for name in settings}
    after: Callable[[duckdb.DuckDBPyConnection], None] | None = None
    if vocabulary:
        def after(con: duckdb.DuckDBPyConnection) -> None:
            report.vocabulary = store_kb_words(con).summary()
    try:
        for name, value in settings.items():
            con.execute(f"SET {name} = '{value}'")
        for path in paths:
            report.files.append(load_file(con, Path(path), fmt, after=after))
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
        if scalar(con, "SELECT current_setting(?)", [name]) != value:
            con.execute(f"SET {name} = '{value}'")


def load_file(con: duckdb.DuckDBPyConnection, path: Path, fmt: str = "auto", *,
              after: Callable[[duckdb.DuckDBPyConnection], None] | None = None) -> FileLoad:
    """Load one file all-or-nothing; see :func:`load_files`. Python counts the lines (and looks for NUL bytes)
    in a thread while DuckDB loads; a blank line, which DuckDB skips silently, shows as a row fewer than lines
    and is then looked for. ``after(con)`` runs inside the
    file's transaction once its edges are in (the vocabulary step): if it fails, nothing of the file stays."""
    start = time.perf_counter()
    src = formats.detect(path, fmt)
    file = str(path.resolve())
    stop = threading.Event()
    with ThreadPoolExecutor(max_workers=1) as pool:
        counting = pool.submit(textfile.count_lines, path, stop, False)   # blank lines: a shortfall of rows
        try:
            _copy_raw_lines(con, src)        # a temporary table, outside the transaction: nothing of the KB
            with transaction(con):
                load_id = scalar(con, "SELECT nextval('kari_load_seq')")
                empty = not scalar(con, "SELECT EXISTS (SELECT 1 FROM edges)")
                staged = formats.staged_sql(src, formats.table_reader_sql(src, RAW_TABLE))
                con.execute(INSERT_SQL.format(staged=staged, new_only="" if empty else NEW_ONLY),
                            {"file": file, "load_id": load_id})
                inserted, distinct = row(con, COUNT_SQL, [load_id])
                added = inserted
                if inserted > distinct:
                    con.execute(DEDUPE_SQL, {"load_id": load_id})
                    added = count(con, "SELECT count(*) FROM edges WHERE load_id = ?", [load_id])
                counted = counting.result()
                problem = counted.first_problem(src.path)
                if problem is not None:
                    raise problem
                lines = counted.lines - int(src.header)
                _check_every_line_read(con, src, lines, counted)
                con.execute("INSERT INTO loads (load_id, file, format, edges_read, edges_added) "
                            "VALUES (?, ?, ?, ?, ?)", [load_id, file, src.fmt, lines, added])
                if after is not None:
                    after(con)
                interrupts.check()      # a Ctrl-C a library swallowed: nothing of this file is committed
        except duckdb.Error as exc:
            stop.set()
            _drop_raw_lines(con)
            if interrupts.interrupted():
                raise _interrupted(src) from None
            raise _load_error(con, src, exc, counting) from None
        except BaseException as exc:
            stop.set()
            _drop_raw_lines(con)
            if isinstance(exc, KeyboardInterrupt) or interrupts.interrupted():
                raise _interrupted(src) from None
            if isinstance(exc, OSError):     # a full disk or another I/O failure while writing the database
                raise _database_write_error(con, exc) from None
            raise
        _drop_raw_lines(con)
    return FileLoad(str(path), src.fmt, lines, added, time.perf_counter() - start,
                    src.header or src.json_lines)


def _copy_raw_lines(con: duckdb.DuckDBPyConnection, src: formats.Source) -> None:
    """Read the file's raw lines into the temporary table :data:`RAW_TABLE` on all threads, in file order
    (``preserve_insertion_order`` on for this statement only), so that a row's ``rowid`` (0, 1, ... in a
    committed table) numbers its line."""
    previous = scalar(con, "SELECT current_setting('preserve_insertion_order')")
    con.execute("SET preserve_insertion_order = true")
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {RAW_TABLE} AS SELECT * FROM {formats.scan_sql(src)}")
    finally:
        con.execute(f"SET preserve_insertion_order = {str(previous).lower()}")


def _check_every_line_read(con: duckdb.DuckDBPyConnection, src: formats.Source, lines: int,
                           counted: textfile.LineCount) -> None:
    """DuckDB read one row per data line: a line it skipped (a blank line before the end, which DuckDB skips
    silently; a last line longer than its buffer, dropped without an error) is named at FILE:LINE; nothing of
    the file is loaded."""
    read = count(con, f"SELECT count(*) FROM {RAW_TABLE}")
    if read == lines:
        return
    blank = counted.with_blanks(src.path).first_problem(src.path)
    if blank is not None:
        raise blank
    found = textfile.first_bad_line(src.path, len(src.columns), src.delim, src.json_lines, src.header)
    if found is not None:
        raise found
    raise KariError(f"DuckDB read {read:,} of the file's {lines:,} data lines (a line it could not read?); "
                    "nothing of this file was loaded", file=str(src.path), code="kb-read")


def _drop_raw_lines(con: duckdb.DuckDBPyConnection) -> None:
    try:
        con.execute(f"DROP TABLE IF EXISTS {RAW_TABLE}")
    except duckdb.Error:        # a connection DuckDB gave up on: the load's own error is the one to report
        pass


def _database_path(con: duckdb.DuckDBPyConnection) -> str:
    return str(scalar(con, "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"))


def _database_write_error(con: duckdb.DuckDBPyConnection, exc: BaseException) -> KariError:
    return KariError(f"cannot write the database: {_first_line(exc)}", file=_database_path(con) or None,
                     code="kb-db")


def _load_error(con: duckdb.DuckDBPyConnection, src: formats.Source, exc: duckdb.Error,
                counting: Any) -> KariError:
    """The located error for a DuckDB failure while loading ``src``: the database itself (its WAL, its spill
    folder: a full disk) or the first bad line of the input."""
    database = _database_path(con)
    if database and database in str(exc):    # the database (its WAL, its spill folder), not the input
        return _database_write_error(con, exc)
    error = _locate(con, src, exc)
    earlier = counting.result().with_blanks(src.path).first_problem(src.path)
    if earlier is not None and (error.line is None or error.line > (earlier.line or 0)):
        error = earlier
    return error


def _interrupted(src: formats.Source) -> KariError:
    return _interrupted_file(src.path)


def _interrupted_file(path: Path) -> KariError:
    return KariError("stopped by Ctrl-C: nothing of this file was loaded (the files before it are)", file=str(path),
                     code="interrupted", exit_code=ExitCode.INTERRUPTED)


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
