"""networkx views of a selection of the KB (never the whole KB unless asked for explicitly)."""

from __future__ import annotations

from collections.abc import Iterable

import duckdb
import networkx as nx

from kari.errors import KariError

DEFAULT_LIMIT = 100_000


def graph_view(con: duckdb.DuckDBPyConnection, relations: Iterable[str] | None = None,
               nodes: Iterable[str] | None = None, limit: int = DEFAULT_LIMIT, *,
               all_edges: bool = False) -> nx.MultiDiGraph:
    """A MultiDiGraph of the edges whose relation is in ``relations`` and/or that touch a node of ``nodes``
    (node ids). At least one filter, or ``all_edges=True``, is required. At most ``limit`` edges are taken;
    ``G.graph["truncated"]`` tells whether more matched. Nodes carry ``label``; edges (keyed by edge id) carry
    ``relation``, ``source``, ``weight``, ``file`` and ``line``."""
    rels = sorted(set(relations)) if relations is not None else None
    node_ids = sorted(set(nodes)) if nodes is not None else None
    if rels is None and node_ids is None and not all_edges:
        raise KariError("graph_view needs relations=, nodes= or all_edges=True (the whole KB may be huge)",
                        code="kb-graph")
    conditions, params = [], []
    if rels is not None:
        conditions.append("list_contains(?, relation)")
        params.append(rels)
    if node_ids is not None:
        conditions.append("(list_contains(?, node1) OR list_contains(?, node2))")
        params += [node_ids, node_ids]
    where = ("WHERE " + " AND ".join(conditions)) if conditions else ""
    rows = con.execute(
        "SELECT id, node1, relation, node2, kari_node_label(node1, node1_label), kari_node_label(node2, node2_label), "
        f"source, weight, file, line FROM edges {where} ORDER BY file, line LIMIT ?", [*params, limit + 1]).fetchall()
    graph = nx.MultiDiGraph(truncated=len(rows) > limit)
    for edge_id, n1, rel, n2, label1, label2, source, weight, file, line in rows[:limit]:
        graph.add_node(n1, label=label1)
        graph.add_node(n2, label=label2)
        graph.add_edge(n1, n2, key=edge_id, relation=rel, source=source, weight=weight, file=file, line=line)
    return graph
