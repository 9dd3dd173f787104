"""The kari KB store (DuckDB): load commonsense KGs, query them, derive object properties and affordances.

Modules: ``formats`` (input formats -> SQL), ``textfile`` (byte-level checks), ``maps`` (relation map and
value lexicon), ``store`` (open and load), ``query`` (stats, show, sql), ``views`` (object properties and
affordance evidence as typed records), ``graph`` (networkx views), ``export`` (KGTK TSV).
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.kb.export import export_kgtk
    from kari.kb.graph import graph_view
    from kari.kb.query import run_sql, show_node, stats
    from kari.kb.store import DEFAULT_DB, FileLoad, LoadReport, load_files, load_into, open_db
    from kari.kb.views import AffordanceEvidence, affordance_evidence, objects_from_db

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.kb.export": ("export_kgtk",),
    "kari.kb.graph": ("graph_view",),
    "kari.kb.query": ("run_sql", "show_node", "stats"),
    "kari.kb.store": ("DEFAULT_DB", "FileLoad", "LoadReport", "load_files", "load_into", "open_db"),
    "kari.kb.views": ("AffordanceEvidence", "affordance_evidence", "objects_from_db"),
})
