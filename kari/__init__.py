"""kari: symbolic affordance reasoning (KB store, KARI rule language, ASP solver, induction, Affordance20Q)."""

__version__ = "0.1.0"
