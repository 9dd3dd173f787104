"""The kari KB store (DuckDB): load commonsense KGs, query them, derive object properties and affordances.

Modules: ``formats`` (input formats -> SQL), ``textfile`` (byte-level checks), ``maps`` (relation map and
value lexicon), ``store`` (open and load), ``query`` (stats, show, sql), ``views`` (object properties and
affordance evidence as typed records), ``graph`` (networkx views), ``export`` (KGTK TSV).
"""

from __future__ import annotations

from typing import Any

from kari.kb.export import export_kgtk
from kari.kb.query import run_sql, show_node, stats
from kari.kb.store import DEFAULT_DB, FileLoad, LoadReport, load_files, load_into, open_db
from kari.kb.views import AffordanceEvidence, affordance_evidence, objects_from_db

__all__ = ["DEFAULT_DB", "AffordanceEvidence", "FileLoad", "LoadReport", "affordance_evidence", "export_kgtk",
           "graph_view", "load_files", "load_into", "objects_from_db", "open_db", "run_sql", "show_node", "stats"]


def __getattr__(name: str) -> Any:
    """``graph_view`` is imported on first use (networkx is slow to import and most commands never need it)."""
    if name == "graph_view":
        from kari.kb.graph import graph_view

        return graph_view
    raise AttributeError(f"module 'kari.kb' has no attribute {name!r}")
