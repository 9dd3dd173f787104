"""The one transaction helper of kari's DuckDB stores: :func:`transaction` (a block that commits whole or rolls
back whole, nested blocks joining the outer one) and :func:`rollback` (which copes with a transaction DuckDB
already aborted). Every store (the KB, the coverage tables, the vocabulary, the CreativityBench tables) writes
through it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import duckdb

_IN_TRANSACTION: set[int] = set()


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Run the block as one transaction of ``con``: COMMIT when it ends, ROLLBACK when it raises anything
    (a KeyboardInterrupt too; :func:`rollback` copes with a transaction DuckDB already aborted). Inside another
    ``transaction(con)`` the block joins the outer transaction: the outer one commits or rolls back all of it."""
    key = id(con)
    if key in _IN_TRANSACTION:
        yield
        return
    con.execute("BEGIN TRANSACTION")
    _IN_TRANSACTION.add(key)
    try:
        yield
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise
    finally:
        _IN_TRANSACTION.discard(key)


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    """ROLLBACK the open transaction; nothing when DuckDB has already ended it (it aborts a transaction by
    itself after an I/O error, and a second ROLLBACK would fail with "no transaction is active")."""
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:
        pass
