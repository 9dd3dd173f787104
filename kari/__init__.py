"""kari: symbolic affordance reasoning (KB store, KARI rule language, ASP solver, induction, Affordance20Q).

The packages, bottom layer first (docs/architecture.md; each folder is one layer): ``kari.io``, ``kari.llm``;
``kari.core`` (terms and records); ``kari.vocab``, ``kari.rules``; ``kari.domain`` (readings); ``kari.bench``,
``kari.kb``; ``kari.explain``; ``kari.solver``; ``kari.induce``; ``kari.game``, ``kari.creativity``;
``kari.report``; ``kari.study`` and ``kari.pipeline``; ``kari.cli``.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
