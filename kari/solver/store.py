"""Write coverage results and representatives into a DuckDB file (the tables and views of ``kb/coverage.sql``
and ``kb/representatives.sql``).

Everything is replaced inside one transaction, so a failure leaves the previous tables intact. Only covered
pairs travel from Python (through a temporary CSV file, none for an empty table); the full rule x object table is built in SQL.
"""

from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kari.io.sql import count
from kari.core.game_names import MatchMode
from kari.io.transaction import transaction
from kari.resources import asset_path
from kari.core.solver_types import CoverageRow

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

Labels = Iterable[tuple[str, str, bool]]
"""``(affordance, object, label)`` triples."""
EXACT = MatchMode.EXACT.value
"""The ``match`` of a rule that answers for its own name (or a KB verb grouped into it)."""


def _csv(rows: Iterable[Sequence[Any]], folder: str) -> str | None:
    """The rows as a temporary CSV file in ``folder``, or None when there are none (DuckDB cannot read an empty
    CSV file with a fixed schema: it has nothing to sniff)."""
    fd, path = tempfile.mkstemp(prefix=".kari-coverage-", suffix=".csv", dir=folder)
    count = 0
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        for row in rows:
            writer.writerow(["" if v is None else v for v in row])
            count += 1
    if not count:
        os.unlink(path)
        return None
    return path


def _load(con: DuckDBPyConnection, table: str, columns: dict[str, str], rows: Iterable[Sequence[Any]],
          folder: str) -> None:
    """(Re)create the temporary table ``table`` with ``columns`` (name -> DuckDB type) holding ``rows``."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE {table} ({', '.join(f'{n} {t}' for n, t in columns.items())})")
    path = _csv(rows, folder)
    if path is None:
        return
    try:
        spec = ", ".join(f"'{name}': '{kind}'" for name, kind in columns.items())
        con.execute(f"INSERT INTO {table} SELECT * FROM read_csv(?, header=false, delim=',', quote='\"', "
                    f"escape='\"', nullstr='', auto_detect=false, columns={{{spec}}})", [path])
    finally:
        os.unlink(path)


def write_coverage(con: DuckDBPyConnection, rows: Sequence[CoverageRow], semantics: str, labels: Labels = (),
                   games: Iterable[tuple[str, str, str]] = (),
                   representatives: Mapping[str, Sequence[str]] | None = None, seed: int = 0,
                   folder: str | None = None,
                   matches: Iterable[tuple[str, str, str, float, str]] | None = None) -> None:
    """Replace the rows of ``coverage``, ``coverage_labels``, ``coverage_games``, ``rule_matches`` (and
    ``representatives`` when given); the tables and views are those of ``kb/coverage.sql`` (and
    ``kb/representatives.sql``). ``matches``: ``(target, rule affordance, verb, similarity, mode)`` rows; by
    default each rule answers for its own name only."""
    folder = folder or tempfile.gettempdir()
    rules = {(r.rule, r.affordance) for r in rows}
    if matches is None:
        matches = sorted({(a, a, a, 1.0, EXACT) for _, a in rules})
    objects = list(dict.fromkeys(r.object for r in rows))
    with transaction(con):
        _load(con, "_kari_rules", {"rule": "INTEGER", "affordance": "VARCHAR"}, sorted(rules), folder)
        _load(con, "_kari_objects", {"position": "INTEGER", "object": "VARCHAR"}, enumerate(objects), folder)
        _load(con, "_kari_hits", {"rule": "INTEGER", "object": "VARCHAR", "branch": "INTEGER", "part": "VARCHAR"},
              ((r.rule, r.object, r.branch, r.part) for r in rows if r.covered), folder)
        _load(con, "_kari_labels", {"affordance": "VARCHAR", "object": "VARCHAR", "label": "BOOLEAN"},
              labels, folder)
        _load(con, "_kari_games", {"game": "VARCHAR", "object": "VARCHAR", "target": "VARCHAR"}, games, folder)
        _load(con, "_kari_matches", {"target": "VARCHAR", "rule": "VARCHAR", "verb": "VARCHAR",
                                     "similarity": "DOUBLE", "match": "VARCHAR"}, matches, folder)
        con.execute(_sql("coverage.sql"))
        _replace(con, "coverage", """
            SELECT r.affordance, o.object, h.rule IS NOT NULL AS covered, h.branch, h.part, r.rule,
                   ?::VARCHAR AS semantics
            FROM _kari_rules r CROSS JOIN _kari_objects o
            LEFT JOIN _kari_hits h ON h.rule = r.rule AND h.object = o.object
            ORDER BY r.rule, o.position""", [str(semantics)])
        _replace(con, "coverage_labels",
                 "SELECT affordance, object, bool_or(label) AS label FROM _kari_labels GROUP BY ALL")
        _replace(con, "coverage_games", "SELECT * FROM _kari_games")
        _replace(con, "rule_matches", "SELECT DISTINCT * FROM _kari_matches ORDER BY ALL")
        if representatives is not None:
            write_representatives(con, representatives, seed, folder)
        for table in ("_kari_rules", "_kari_objects", "_kari_hits", "_kari_labels", "_kari_games", "_kari_matches"):
            con.execute(f"DROP TABLE IF EXISTS {table}")


def write_representatives(con: DuckDBPyConnection, representatives: Mapping[str, Sequence[str]], seed: int = 0,
                          folder: str | None = None) -> None:
    """Replace the rows of the ``representatives(affordance, object, rank, seed)`` table (in one transaction, or
    in the caller's)."""
    with transaction(con):
        _load(con, "_kari_reps", {"affordance": "VARCHAR", "object": "VARCHAR", "rank": "INTEGER", "seed": "INTEGER"},
              ((aff, obj, rank, seed) for aff, ids in representatives.items() for rank, obj in enumerate(ids, 1)),
              folder or tempfile.gettempdir())
        con.execute(_sql("representatives.sql"))
        _replace(con, "representatives", "SELECT * FROM _kari_reps")
        con.execute("DROP TABLE IF EXISTS _kari_reps")


def _sql(name: str) -> str:
    return asset_path("kb", name).read_text(encoding="utf-8")


def _replace(con: DuckDBPyConnection, table: str, query: str, params: Sequence[Any] = ()) -> None:
    """Replace every row of the kb/*.sql table ``table`` with the rows of ``query``, in their order."""
    con.execute(f"DELETE FROM {table}")
    con.execute(f"INSERT INTO {table} {query}", list(params))


def kb_labels(con: DuckDBPyConnection) -> list[tuple[str, str, bool]]:
    """Labels from the KB's ``affordance_evidence`` view (positive evidence wins); empty when there is none."""
    exists = count(con, "SELECT count(*) FROM duckdb_views() WHERE view_name = 'affordance_evidence'")
    if not exists:
        return []
    return [(v, o, bool(p)) for v, o, p in con.execute(
        "SELECT verb, object, bool_or(polarity = 'positive') FROM affordance_evidence GROUP BY ALL").fetchall()]
