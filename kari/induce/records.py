"""Typed records of an induction run: one affordance's result (``RUN/affordances/<verb>.json``) and the
cross-validation summary (``RULES.cv/cv.json``), each read from and written to its JSON object key for key
(:mod:`kari.core.records`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kari.core.records import JsonRecord, Layout
from kari.rules.ast import Node
from kari.rules.jsonform import node_from_json


@dataclass(frozen=True, eq=False)
class InductionResult(JsonRecord):
    """One finished affordance: its evidence fingerprint, the rule (its JSON form; :attr:`body` the node), the
    provenance and training evidence of each branch, the counts, the Validator's recall, the whole rule's
    training evidence counts (None without a rule), what stayed unanswered, the rounds, the dropped proposals,
    the vocabulary events and the time it took; for a KB verb group (KB input only) the grouping method with its
    member verbs (``group``), the group's KB positive objects (``kb_positives``) and the KB kin pooled with them
    as weighed positives (``kb_pooled``, :mod:`kari.induce.pooling`) and how each is kin of which positive
    (``kb_pooled_via``: kin -> ``{"of", "as", "via"}`` records, :class:`kari.induce.inputs.KinLink`); without a
    rule, why (``no_rule``, :func:`kari.induce.loop.no_rule_reason`); with an LLM, the calls and tokens it took
    per role (``llm``: role -> calls, prompt_tokens, completion_tokens, cache hits included)."""

    affordance: str
    evidence: str
    rule: Mapping[str, Any] | None
    branches: Sequence[Mapping[str, Any]]
    positives: int
    negatives: int
    negatives_source: str
    covered: int
    recall: float | None
    evidence_counts: Mapping[str, int] | None
    unanswered: Mapping[str, Sequence[str]]
    rounds: Sequence[Mapping[str, Any]]
    dropped: Sequence[Mapping[str, Any]]
    vocab_events: Sequence[Mapping[str, Any]]
    seconds: float
    group: Mapping[str, Any] | None = None
    kb_positives: Sequence[str] | None = None
    kb_pooled: Sequence[str] | None = None
    kb_pooled_via: Mapping[str, Sequence[Mapping[str, str]]] | None = None
    no_rule: str | None = None
    llm: Mapping[str, Mapping[str, int]] | None = None
    layout: Layout | None = None

    KEYS = ("affordance", "evidence", "rule", "branches", "positives", "negatives", "negatives_source", "covered",
            "recall", "evidence_counts", "unanswered", "rounds", "dropped", "vocab_events", "seconds", "group",
            "kb_positives", "kb_pooled", "kb_pooled_via", "no_rule", "llm")
    OPTIONAL = ("group", "kb_positives", "kb_pooled", "kb_pooled_via", "no_rule", "llm")

    @property
    def body(self) -> Node | None:
        """The rule's body as a node (None when no rule was found)."""
        return None if self.rule is None else node_from_json(self.rule)


@dataclass(frozen=True, eq=False)
class CVSummary(JsonRecord):
    """``cv.json``: K, the seed, the negatives and the semantics the folds were judged with, the pooled held-out
    and in-sample scores (macro and micro) with their gap, each affordance's scores and failing branches, and
    the settings each fold chose by inner cross-validation."""

    k: int
    seed: int
    negatives: str
    semantics: str
    pooled: Mapping[str, Any]
    affordances: Mapping[str, Mapping[str, Any]]
    settings_by_fold: Mapping[str, Mapping[str, Any]]
    layout: Layout | None = None

    KEYS = ("k", "seed", "negatives", "semantics", "pooled", "affordances", "settings_by_fold")

    @property
    def macro_f1(self) -> tuple[float, float]:
        """(held-out, in-sample) macro F1."""
        return self.pooled["heldout"]["macro"]["f1"], self.pooled["in_sample"]["macro"]["f1"]
