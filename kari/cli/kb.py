"""``kari kb load/stats/sql/show/export``: thin shells over :mod:`kari.kb`."""

from __future__ import annotations

import json
from pathlib import Path

import typer

DB_OPTION = typer.Option("kari.duckdb", "--db", help="DuckDB file of the KB.")

kb_app = typer.Typer(help="The KB store (DuckDB): load KGTK / CSKG / Aristo / triples files and query them.",
                     no_args_is_help=True)


@kb_app.command("load")
def load(
    files: list[Path] = typer.Argument(..., help="Edge files (.tsv, .tsv.gz, .csv, .jsonl)."),
    db: str = DB_OPTION,
    fmt: str = typer.Option("auto", "--format", help="auto | kgtk | cskg5 | aristo | triples"),
    lexicon: Path | None = typer.Option(None, "--lexicon", help="Value lexicon TSV (default: kb/value_lexicon.tsv)."),
) -> None:
    """Load files, each all-or-nothing; reloading a file adds no duplicate edges. Then the KB objects' words and
    part names are read into the database's vocabulary (new words added with their FILE:LINE)."""
    from kari.kb import load_files, open_db
    from kari.kb.views import store_kb_words

    con = open_db(db, lexicon=lexicon)
    try:
        report = load_files(con, files, fmt)
        words = store_kb_words(con)
    finally:
        con.close()
    typer.echo(report.summary())
    typer.echo(f"vocabulary: {words.summary()}")


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


@kb_app.command("sql")
def sql(
    query: str = typer.Argument(..., help="A SQL query (the connection is read-only)."),
    db: str = DB_OPTION,
    max_rows: int = typer.Option(1000, "--max-rows", help="Print at most this many rows."),
) -> None:
    """Run a read-only query and print a table."""
    from kari.kb import open_db
    from kari.kb.query import run_sql

    con = open_db(db, read_only=True)
    try:
        columns, rows = run_sql(con, query, max_rows)
    finally:
        con.close()
    _print_table(columns, rows)


@kb_app.command("show")
def show(node: str = typer.Argument(..., help="A node id (/c/en/knife) or a label (knife)."), db: str = DB_OPTION,
         limit: int = typer.Option(1000, "--limit")) -> None:
    """Print the edges of one node."""
    from kari.errors import KariError
    from kari.kb import open_db
    from kari.kb.query import SHOW_COLUMNS, show_node

    con = open_db(db, read_only=True)
    try:
        rows = show_node(con, node, limit)
    finally:
        con.close()
    if not rows:
        raise KariError(f"no edges for node {node!r}", file=db, code="kb-node", exit_code=1)
    _print_table(list(SHOW_COLUMNS), [tuple(r.values()) for r in rows])


@kb_app.command("export")
def export(out: Path = typer.Argument(..., help="Output KGTK TSV (.tsv or .tsv.gz)."), db: str = DB_OPTION) -> None:
    """Write all edges as a KGTK edge file (full header); loading it back gives the same edges."""
    from kari.kb import open_db
    from kari.kb.export import export_kgtk

    con = open_db(db, read_only=True)
    try:
        count = export_kgtk(con, out)
    finally:
        con.close()
    typer.echo(f"{out}: {count} edges")


def _print_table(columns: list[str], rows: list[tuple]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(*columns, show_lines=False)
    for row in rows:
        table.add_row(*("" if v is None else str(v) for v in row))
    Console(width=200).print(table)


def register(app: typer.Typer) -> None:
    """Add the ``kb`` group to the root app."""
    app.add_typer(kb_app, name="kb")
