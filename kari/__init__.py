"""kari: symbolic affordance reasoning (KB store, KARI rule language, ASP solver, induction, Affordance20Q).

The packages, bottom layer first (docs/architecture.md): ``kari.io``, ``kari.llm``; ``kari.domain`` (terms,
vocabulary, readings), ``kari.rules``; ``kari.bench``, ``kari.kb``; ``kari.solver``; ``kari.induce``;
``kari.game``, ``kari.creativity``; ``kari.study`` and ``kari.pipeline``; ``kari.cli``.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
