"""``kari kb load/stats/sql/show/export``: thin shells over :mod:`kari.kb`."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import typer

from kari.cli.options import MAX_ROWS, count, output, output_argument, timeout
from kari.core.formats import KBFormat, SqlFormat

DB_OPTION = typer.Option("kari.duckdb", "--db", help="DuckDB file of the KB.")

kb_app = typer.Typer(help="The KB store (DuckDB): load KGTK / CSKG / Aristo / triples files and query them.",
                     no_args_is_help=True)


@kb_app.command("load")
def load(
    files: list[Path] = typer.Argument(..., help="Edge files (.tsv, .tsv.gz, .csv, .jsonl)."),
    db: Path = output(Path("kari.duckdb"), "--db", kind="database", help="DuckDB file of the KB (created if missing)."),
    fmt: str = typer.Option(KBFormat.AUTO.value, "--format", help=f"{' | '.join(KBFormat)}."),
    lexicon: Path | None = typer.Option(None, "--lexicon", help="Value lexicon TSV (default: kb/value_lexicon.tsv)."),
) -> None:
    """Load files, each all-or-nothing; reloading a file adds no duplicate edges. Then the KB objects' words and
    part names are read into the database's vocabulary (new words added with their FILE:LINE). A new --db that no
    file could be loaded into is removed again."""
    from kari.kb import load_into

    typer.echo(load_into(db, files, fmt, lexicon=lexicon).summary())


@kb_app.command("stats")
def stats(db: str = DB_OPTION, as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Edges, nodes, edges per relation and per source."""
    from kari.kb import open_db
    from kari.kb.query import stats as kb_stats

    con = open_db(db, read_only=True)
    try:
        result = kb_stats(con)
    finally:
        con.close()
    if as_json:
        typer.echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    typer.echo(f"edges\t{result['edges']}\nnodes\t{result['nodes']}")
    for title in ("relations", "sources"):
        typer.echo(f"\n{title}")
        for key, count in result[title].items():
            typer.echo(f"  {key or '(none)'}\t{count}")


SQL_FORMATS: tuple[str, ...] = tuple(SqlFormat)


@kb_app.command("sql")
def sql(
    query: str = typer.Argument(..., help="A SQL query over the KB's tables and views."),
    db: str = DB_OPTION,
    max_rows: int = count(1000, "--max-rows", low=0, high=MAX_ROWS, help="Print at most this many rows."),
    timeout_s: float = timeout(60.0, "--timeout", help="Stop the query after this many seconds."),
    fmt: str = typer.Option(SqlFormat.TABLE.value, "--format", help="table (never cuts a value) | csv | json (a list "
                            "of row objects)."),
) -> None:
    """Run a read-only query and print its rows. The query can read this KB's tables and views and nothing else:
    no writes, no files (COPY, read_csv, EXPORT, glob, read_text), no other database (ATTACH), no extension
    installs and no settings changes; it may use up to 4 GB of memory and never spills to disk. A query still
    running after --timeout seconds, or at Ctrl-C, is stopped at once. A note on stderr says when more rows
    than --max-rows exist."""
    from kari.errors import choice
    from kari.kb import open_db
    from kari.kb.query import run_sql

    choice(fmt, SqlFormat, "output format", code="bad-option")
    con = open_db(db, read_only=True)
    try:
        columns, rows = run_sql(con, query, max_rows + 1, timeout=timeout_s)
    finally:
        con.close()
    shown = rows[:max_rows]
    {"table": _print_table, "csv": _print_csv, "json": _print_json}[fmt](columns, shown)
    if len(rows) > max_rows:
        typer.echo(f"(only the first {max_rows} rows are shown; raise --max-rows for more)", err=True)


@kb_app.command("show")
def show(node: str = typer.Argument(..., help="A node id (/c/en/knife) or a label (knife)."), db: str = DB_OPTION,
         limit: int = count(1000, "--limit", high=MAX_ROWS, help="Print at most this many edges.")) -> None:
    """Print the edges of one node."""
    from kari.errors import ExitCode, KariError
    from kari.kb import open_db
    from kari.kb.query import SHOW_COLUMNS, show_node

    con = open_db(db, read_only=True)
    try:
        rows = show_node(con, node, limit)
    finally:
        con.close()
    if not rows:
        raise KariError(f"no edges for node {node!r}", file=db, code="kb-node", exit_code=ExitCode.FINDINGS)
    _print_table(list(SHOW_COLUMNS), [tuple(r.values()) for r in rows])


@kb_app.command("export")
def export(out: Path = output_argument(..., help="Output KGTK TSV (.tsv or .tsv.gz)."),
           db: str = DB_OPTION) -> None:
    """Write all edges as a KGTK edge file (full header); loading it back gives the same edges."""
    from kari.kb.export import export_file

    count = export_file(db, out)
    typer.echo(f"{out}: {count} edges")


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def _print_table(columns: list[str], rows: list[tuple]) -> None:
    """A table that never cuts a value: as wide as its content when stdout is not a terminal, cells folded
    (wrapped) to fit a terminal's width. Values are shown as text, never as Rich markup."""
    from rich.console import Console
    from rich.table import Table

    table = Table(*columns, show_lines=False)
    for column in table.columns:
        column.overflow = "fold"
    cells = [tuple(_cell(v) for v in row) for row in rows]
    for row in cells:
        table.add_row(*row)
    console = Console(markup=False, highlight=False, emoji=False)
    if not console.is_terminal:
        widths = [max([len(c) for c in (name, *(row[i] for row in cells)) for c in c.splitlines() or [""]])
                  for i, name in enumerate(columns)]
        console = Console(markup=False, highlight=False, emoji=False, width=max(80, sum(widths) + 3 * len(widths) + 1))
    console.print(table)


def _print_csv(columns: list[str], rows: list[tuple]) -> None:
    import csv
    import sys

    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(tuple(_cell(v) for v in row) for row in rows)


def _print_json(columns: list[str], rows: list[tuple]) -> None:
    seen: dict[str, int] = {}
    keys = []
    for name in columns:      # SELECT 1 AS a, 2 AS a: keep both, as a and a:2
        seen[name] = seen.get(name, 0) + 1
        keys.append(name if seen[name] == 1 else f"{name}:{seen[name]}")
    records = [{key: _jsonable(v) for key, v in zip(keys, row)} for row in rows]
    typer.echo(json.dumps(records, indent=2, ensure_ascii=False, allow_nan=False))


def _jsonable(value: Any) -> Any:
    """A JSON value for a DuckDB result value (dates, decimals, UUIDs, blobs and NaN become text)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


def register(app: typer.Typer) -> None:
    """Add the ``kb`` group to the root app."""
    app.add_typer(kb_app, name="kb")
