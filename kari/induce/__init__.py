"""KARI rule induction (method.md 2): Proposer, Validator and Auditor in a three-round, add-only loop.

Entry point: :func:`kari.induce.run.induce` (the ``kari induce`` command is a thin shell over it).
"""
