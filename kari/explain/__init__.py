"""Proofs of rule verdicts: why a rule covers an object, or why not (``kari explain``, ``kari coverage --explain``).

* :func:`explain` (:mod:`kari.explain.proof`): one canonical rule on one object under one reading (``any-part``
  or ``strict``), with a :class:`Proof` per branch; pure, no I/O. Any :class:`~kari.core.benchmark.ObjectRecord`
  works, so a CreativityBench answer can explain its choice by passing the part-level object it scored
  (``kari.creativity.scene.entity_object``) and the vocabulary it read the parts' attributes into.
* :mod:`kari.explain.sources`: benchmark or KB objects, their vocabulary and the evidence of each fact (the
  object's line, or the KB edges with file and line).
* :mod:`kari.explain.render`: the plain-text form; :mod:`kari.explain.coverage`: one checked proof per row of a
  coverage table.
"""

from kari.explain.proof import BranchProof, Evidence, Proof, ProofNode, RecordEvidence, Support, explain

__all__ = ["BranchProof", "Evidence", "Proof", "ProofNode", "RecordEvidence", "Support", "explain"]
