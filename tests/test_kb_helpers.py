"""Shared helpers of the tests/test_kb_*.py files (no tests here)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data" / "kb"
CONTENT = ("id, node1, relation, node2, node1_label, node2_label, relation_label, relation_dimension, source, "
           "sentence, weight, qstrength, quantifier, score, tuple_provenance")


def edge_set(con) -> set[tuple]:
    """Every edge's content (no file/line provenance)."""
    return set(con.execute(f"SELECT {CONTENT} FROM edges").fetchall())


def snapshot(con) -> tuple:
    """Everything a failed load must leave untouched."""
    return (sorted(con.execute("SELECT * FROM edges").fetchall(), key=repr),
            con.execute("SELECT load_id, file, edges_added FROM loads ORDER BY load_id").fetchall())
