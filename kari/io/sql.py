"""Typed reads of DuckDB results that always hold one row (a count, an ``EXISTS``, a setting, a sequence's next
value): :func:`row`, :func:`scalar`, :func:`count`. A query of that kind that returns no row is a bug in kari
(a :class:`RuntimeError`), never a ``None`` indexed later."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # duckdb is imported by the stores that open a connection
    from duckdb import DuckDBPyConnection


def row(con: DuckDBPyConnection, query: str, params: Sequence[object] | None = None) -> tuple[Any, ...]:
    """The one row ``query`` returns."""
    found = con.execute(query, params).fetchone()
    if found is None:
        raise RuntimeError(f"the query returned no row: {query}")
    return found


def scalar(con: DuckDBPyConnection, query: str, params: Sequence[object] | None = None) -> Any:
    """The first column of the one row ``query`` returns."""
    return row(con, query, params)[0]


def count(con: DuckDBPyConnection, query: str, params: Sequence[object] | None = None) -> int:
    """The integer ``query`` returns (``SELECT count(*) ...``)."""
    return int(scalar(con, query, params))


__all__ = ["count", "row", "scalar"]
