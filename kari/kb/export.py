"""Write the KB's edges as a KGTK edge file (full CSKG header plus kari's extra columns), atomically.

Loading the written file gives the same edges (same content key and fields); only file/line provenance
changes, to the exported file.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import duckdb

from kari.io.sql import count
from kari.errors import KariError
from kari.io.atomic import atomic_open, check_output_file
from kari.io.outputs import Input, Output, check_outputs
from kari.kb.store import open_db

KGTK_HEADER = ("id", "node1", "relation", "node2", "node1;label", "node2;label", "relation;label",
               "relation;dimension", "source", "sentence")
EXTRA = ("weight", "qstrength", "quantifier", "score", "tuple_provenance")
_LABELS = ("node1_label", "node2_label", "relation_label")


def export_sql() -> str:
    """The SELECT giving one KGTK line per edge (text columns encoded as KGTK values, labels as stored)."""
    cols = []
    for header, column in zip(KGTK_HEADER + EXTRA, ("id", "node1", "relation", "node2", *_LABELS,
                                                    "relation_dimension", "source", "sentence", *EXTRA)):
        if column in _LABELS:
            expr = column
        elif column in ("weight", "qstrength", "score"):
            expr = f"CAST({column} AS VARCHAR)"
        else:
            expr = f"kgtk_encode({column})"
        cols.append(f'{expr} AS "{header}"')
    return f"SELECT {', '.join(cols)} FROM edges ORDER BY load_id, line, node2"


def export_file(db: str | Path, out: str | Path) -> int:
    """``kari kb export``: check ``out`` against the database it exports (:func:`kari.io.outputs.check_outputs`),
    then :func:`export_kgtk` from ``db`` opened read-only."""
    check_outputs([Output(Path(out), "OUT")], [Input(Path(db), "--db")])
    con = open_db(db, read_only=True)
    try:
        return export_kgtk(con, out)
    finally:
        con.close()


def export_kgtk(con: duckdb.DuckDBPyConnection, out: str | Path) -> int:
    """Write every edge to ``out`` (``.gz`` compresses) and return the number of edges written. ``out`` must
    not be a directory, device or database file (checked before any work)."""
    check_output_file(out)
    out = Path(out)
    compression = "gzip" if out.name.endswith(".gz") else "none"
    parent = out.parent.resolve() if out.parent.exists() else None   # absolute: DuckDB expands a leading ~
    with tempfile.TemporaryDirectory(prefix=".kari-export-", dir=parent) as tmp:
        staging = Path(tmp).resolve() / "edges.tsv"
        try:
            con.execute(f"COPY ({export_sql()}) TO '{str(staging).replace(chr(39), chr(39) * 2)}' "
                        f"(FORMAT csv, DELIMITER '\t', HEADER true, QUOTE '', ESCAPE '', NULLSTR '', "
                        f"COMPRESSION '{compression}')")
        except (duckdb.IOException, duckdb.PermissionException) as exc:   # a full disk, a quota, no permission
            first = str(exc).strip().splitlines()[0]
            raise KariError(f"cannot write: {first}", file=str(out), code="output-write") from None
        with open(staging, "rb") as src, atomic_open(out, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    return count(con, "SELECT count(*) FROM edges")
