"""The proof of a rule's verdict on one object, under either reading of PART (:mod:`kari.domain.objects`).

:func:`explain` walks a canonical rule over an object's closed view the way :func:`kari.domain.objects.evaluate_rule`
and the ASP coverage query decide it, and records why:

* a branch that **holds**: every atom with the facts that make it true -- the part the fact is stated on, the
  value stated, the is-a steps from that value to the atom's (``steel`` is-a ``metal``), whether the fact comes
  from a property or from a part's name (a part ``blade`` is ``SHAPE:bladed``), the word as written, and where
  it was stated (an :class:`Evidence` source: a benchmark line, KB edges with file and line); under ``strict``
  the part each PART variable binds;
* a branch that **fails**: the atoms that fail, each ``false`` because the object states an exclusive value
  (``SIZE:large`` against ``SIZE:small``: reason ``exclusive``), ``false`` because it states other values of
  that predicate and the closed view holds only what is stated (reason ``closed-view``), or ``unknown`` because
  nothing of that predicate is stated there at all (reason ``nothing-stated``: a gap the KB could fill; the
  verdict still reads it as false). Under ``strict`` a failing PART lists, for every part it could bind, why
  its body fails there.

The verdict ``(covered, branch, part)`` is the one the solver's coverage row holds (a property test keeps them
equal): the lowest holding branch and, under ``strict``, the smallest part bound to its first PART variable.

>>> from kari.core.benchmark import ObjectRecord, Property
>>> from kari.vocab.vocabulary import Vocabulary
>>> from kari.rules.ast import Atom, Rule
>>> v = Vocabulary.from_rows(values=[("MADE_OF", "steel"), ("MADE_OF", "metal")], isa=[("MADE_OF", "steel", "metal")])
>>> fork = ObjectRecord("fork", parts=("tines",), properties=(Property("tines", "MADE_OF", "steel"),))
>>> proof = explain(Rule("pierce", Atom("MADE_OF", "metal")), fork, v)
>>> proof.covered, proof.branches[0].tree.support[0].isa
(True, ('steel', 'metal'))
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kari.core.benchmark import ObjectRecord
from kari.domain.objects import ObjectView, base_facts, check_semantics, object_parts, object_view, part_shape
from kari.core.terms import WHOLE
from kari.vocab.vocabulary import Vocabulary
from kari.explain.induced import InducedFrom, induced_from
from kari.rules.ast import And, Atom, Node, Or, Part, Rule
from kari.rules.printer import to_text


class Evidence(Protocol):
    """Where an object's stated fact comes from: a list of JSON-able records (file, line, edge...)."""

    def lookup(self, obj: ObjectRecord, part: str, predicate: str, value: str, origin: str) -> list[dict[str, Any]]:
        ...


class RecordEvidence:
    """Evidence from the object record itself: its FILE:LINE (``ObjectRecord.source``) and the word as written."""

    def lookup(self, obj: ObjectRecord, part: str, predicate: str, value: str, origin: str) -> list[dict[str, Any]]:
        if not obj.source:
            return []
        file, _, line = obj.source.rpartition(":")
        where: dict[str, Any] = {"file": file, "line": int(line)} if line.isdigit() else {"file": obj.source}
        return [{"kind": "record", **where}]


@dataclass(frozen=True)
class Support:
    """A stated fact that makes an atom true."""

    part: str  # where the fact is stated: 'whole' or a part name
    predicate: str
    value: str  # the stated (canonical) value
    isa: tuple[str, ...]  # is-a steps from ``value`` to the atom's value (just ``(value,)`` when they are equal)
    origin: str  # 'property' (a stated property), 'inferred' (a completed one) or 'part-name' (the part's name)
    raw: tuple[str, ...] = ()  # the words as written, when they differ from ``value``
    evidence: tuple[dict[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"part": self.part, "predicate": self.predicate, "value": self.value, "isa": list(self.isa),
                "origin": self.origin, "raw": list(self.raw), "evidence": list(self.evidence)}


@dataclass(frozen=True)
class ProofNode:
    """One node of a rule body with its value on the object and why.

    ``op`` is ATOM, AND, OR or PART. Atoms carry ``atom``, ``on`` (the part or 'whole' they are read on),
    ``status`` (true / false / unknown), ``reason`` and ``support`` (true) or ``stated`` and ``conflict``
    (false). PART carries ``var`` with ``part`` (the bound part) when it holds, else ``tried``: one
    ``(part, body)`` per part it could bind (strict reading). AND / OR carry their ``args``: every argument
    under ``any-part``; under ``strict`` a holding OR keeps the argument that holds and a failing AND the
    arguments that fail.
    """

    op: str
    holds: bool
    atom: str | None = None
    role: str | None = None
    on: str | None = None
    status: str | None = None
    reason: str | None = None
    support: tuple[Support, ...] = ()
    stated: tuple[str, ...] = ()
    conflict: tuple[str, str] | None = None  # (stated value, exclusive group)
    var: str | None = None
    part: str | None = None
    tried: tuple[tuple[str, ProofNode], ...] = ()
    args: tuple[ProofNode, ...] = ()
    index: tuple[int, ...] = ()  # under strict, the positions in the node's arguments that ``args`` shows

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op, "holds": self.holds}
        if self.op == "ATOM":
            out.update(atom=self.atom, role=self.role, on=self.on, status=self.status, reason=self.reason)
            if self.holds:
                out["support"] = [s.to_json() for s in self.support]
            else:
                out["stated"] = list(self.stated)
                if self.conflict:
                    out["conflict"] = {"value": self.conflict[0], "group": self.conflict[1]}
        elif self.op == "PART":
            out["var"] = self.var
            if self.holds:
                out.update(part=self.part, body=self.args[0].to_json())
            else:
                out["reason"] = self.reason
                if self.args:  # any-part: the body read on the whole object
                    out["body"] = self.args[0].to_json()
                out["tried"] = [{"part": p, "body": n.to_json()} for p, n in self.tried]
        else:
            if self.reason:
                out["reason"] = self.reason
            out["args"] = [a.to_json() for a in self.args]
            if self.index:
                out["index"] = list(self.index)
        return out

    def atoms(self) -> Iterator[ProofNode]:
        """Every atom node below (and including) this one."""
        if self.op == "ATOM":
            yield self
        for node in (*self.args, *(n for _, n in self.tried)):
            yield from node.atoms()


@dataclass(frozen=True)
class BranchProof:
    """One top-level OR branch: its text, whether it holds, the PART bindings of its proof, the proof tree, and
    what the rules file records of its induction (:mod:`kari.explain.induced`)."""

    index: int
    text: str
    holds: bool
    tree: ProofNode
    binding: Mapping[str, str] = field(default_factory=dict)
    induced: InducedFrom | None = None  # what the rules file records of the branch's origin (kari induce)

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "text": self.text, "holds": self.holds, "binding": dict(self.binding),
                "proof": self.tree.to_json(), **({"induced": self.induced.to_json()} if self.induced else {})}


@dataclass(frozen=True)
class Proof:
    """A rule's verdict on one object under one reading, with a proof per branch."""

    affordance: str
    object: str
    semantics: str
    rule: str
    covered: bool
    branch: int | None
    part: str | None
    branches: tuple[BranchProof, ...]
    source: str = ""

    def verdict(self) -> tuple[bool, int | None, str | None]:
        """``(covered, branch, part)``: what a :class:`kari.core.solver_types.CoverageRow` says."""
        return self.covered, self.branch, self.part

    def to_json(self) -> dict[str, Any]:
        return {"affordance": self.affordance, "object": self.object, "object_source": self.source,
                "semantics": self.semantics, "rule": self.rule, "covered": self.covered, "branch": self.branch,
                "part": self.part, "branches": [b.to_json() for b in self.branches]}


# --- the walk ---------------------------------------------------------------------------------------------------

class _Facts:
    """An object's stated facts, its closed view and the vocabulary: what atoms are read against."""

    def __init__(self, obj: ObjectRecord, vocab: Vocabulary, evidence: Evidence | None) -> None:
        self.obj, self.vocab = obj, vocab
        self.view: ObjectView = object_view(obj, vocab)
        self.evidence = evidence or RecordEvidence()
        self.base = base_facts(obj, vocab)
        self.part_facts = {(name, "SHAPE", part_shape(name, vocab)) for name in object_parts(obj)}
        self._raw: dict[tuple[str, str, str], list[str]] = {}
        for prop in obj.properties:
            if prop.raw and prop.raw != prop.value:
                self._raw.setdefault((prop.part, prop.predicate, prop.value), []).append(prop.raw)
        self._parents = _parents(vocab)

    def closed(self, on: str) -> frozenset[tuple[str, str]]:
        return self.view.whole if on == WHOLE else self.view.parts[on]

    def stated_on(self, on: str, predicate: str) -> list[tuple[str, str, str]]:
        """The stated facts of ``predicate`` an atom read on ``on`` sees (the whole sees every part's)."""
        return [f for f in self.base if f[1] == predicate and (on == WHOLE or f[0] == on)]

    def atom(self, atom: Atom, on: str) -> ProofNode:
        """An atom read on ``on`` ('whole' or a part)."""
        holds = (atom.predicate, atom.value) in self.closed(on)
        stated = self.stated_on(on, atom.predicate)
        base: dict[str, Any] = dict(op="ATOM", holds=holds, atom=atom.key, role=atom.role, on=on)
        if holds:
            support = tuple(self._support(f, atom.value) for f in stated
                            if atom.value in self.vocab.ancestors(atom.predicate, f[2]))
            return ProofNode(**base, status="true", reason="stated" if any(len(s.isa) == 1 for s in support)
                             else "is-a", support=support)
        values = tuple(sorted({f[2] for f in stated}))
        group = self.vocab.exclusive_group(atom.predicate, atom.value)
        if group is not None:
            for fact in stated:
                for value in sorted(self.vocab.ancestors(atom.predicate, fact[2])):
                    if value != atom.value and self.vocab.exclusive_group(atom.predicate, value) == group:
                        return ProofNode(**base, status="false", reason="exclusive", stated=values,
                                         conflict=(fact[2] if value == fact[2] else f"{fact[2]} (is-a {value})", group))
        if values:
            return ProofNode(**base, status="false", reason="closed-view", stated=values)
        return ProofNode(**base, status="unknown", reason="nothing-stated")

    def _support(self, fact: tuple[str, str, str], target: str) -> Support:
        part, predicate, value = fact
        stated = [p for p in self.obj.properties if (p.part, p.predicate, p.value) == fact]
        origin = ("part-name" if fact in self.part_facts and not stated
                  else "inferred" if stated and all(p.inferred for p in stated) else "property")
        return Support(part, predicate, value, self.isa_path(predicate, value, target), origin,
                       tuple(self._raw.get(fact, ())),
                       tuple(self.evidence.lookup(self.obj, part, predicate, value, origin)))

    def isa_path(self, predicate: str, start: str, goal: str) -> tuple[str, ...]:
        """The shortest is-a chain from ``start`` up to ``goal`` (both included)."""
        if start == goal:
            return (start,)
        previous: dict[str, str] = {start: ""}
        frontier = [start]
        while frontier:
            following = []
            for value in frontier:
                for parent in sorted(self._parents.get((predicate, value), ())):
                    if parent not in previous:
                        previous[parent] = value
                        if parent == goal:
                            chain = [goal]
                            while chain[-1] != start:
                                chain.append(previous[chain[-1]])
                            return tuple(reversed(chain))
                        following.append(parent)
            frontier = following
        return (start, goal)  # not reached when the view holds the fact: the closure follows the same edges


def _parents(vocab: Vocabulary) -> dict[tuple[str, str], set[str]]:
    memo = vocab.memo("explain_isa_parents")
    if "parents" not in memo:
        parents: dict[tuple[str, str], set[str]] = {}
        for predicate, child, parent in vocab.isa_pairs():
            parents.setdefault((predicate, child), set()).add(parent)
        memo["parents"] = parents
    found: dict[tuple[str, str], set[str]] = memo["parents"]
    return found


def _any_part(node: Node, facts: _Facts) -> ProofNode:
    """The any-part reading: every atom on the whole object; the full tree."""
    if isinstance(node, Atom):
        return facts.atom(node, WHOLE)
    if isinstance(node, Part):
        body = _any_part(node.body, facts)
        return ProofNode("PART", body.holds, var=node.var, args=(body,),
                         reason=None if body.holds else "body-fails")
    args = tuple(_any_part(arg, facts) for arg in node.args)
    holds = all(a.holds for a in args) if isinstance(node, And) else any(a.holds for a in args)
    return ProofNode(node.op, holds, args=args)


_Bound = tuple[str, ...]


def _strict_proofs(node: Node, facts: _Facts, scope: dict[str, str], bound: _Bound) -> Iterator[tuple[ProofNode, _Bound]]:
    """Every way the strict reading makes ``node`` true (as :func:`kari.domain.objects._strict` enumerates them),
    each with its proof and the parts bound so far."""
    if isinstance(node, Atom):
        on = WHOLE if node.role == WHOLE else scope[node.role]
        proof = facts.atom(node, on)
        if proof.holds:
            yield proof, bound
    elif isinstance(node, Part):
        for part in facts.view.part_names:
            if part not in bound:
                for body, inner in _strict_proofs(node.body, facts, {**scope, node.var: part}, (*bound, part)):
                    yield ProofNode("PART", True, var=node.var, part=part, args=(body,)), inner
    elif isinstance(node, Or):
        for i, arg in enumerate(node.args):
            for proof, inner in _strict_proofs(arg, facts, scope, bound):
                yield ProofNode("OR", True, args=(proof,), index=(i,)), inner
    else:
        for proofs, inner in _strict_all(node.args, facts, scope, bound):
            yield ProofNode("AND", True, args=tuple(proofs), index=tuple(range(len(proofs)))), inner


def _strict_all(args: Sequence[Node], facts: _Facts, scope: dict[str, str],
                bound: _Bound) -> Iterator[tuple[list[ProofNode], _Bound]]:
    if not args:
        yield [], bound
        return
    for first, middle in _strict_proofs(args[0], facts, scope, bound):
        for rest, inner in _strict_all(args[1:], facts, scope, middle):
            yield [first, *rest], inner


def _strict_refutation(node: Node, facts: _Facts, scope: dict[str, str], bound: _Bound) -> ProofNode:
    """Why the strict reading cannot make ``node`` true given the parts bound so far."""
    if isinstance(node, Atom):
        return facts.atom(node, WHOLE if node.role == WHOLE else scope[node.role])
    if isinstance(node, Part):
        free = [p for p in facts.view.part_names if p not in bound]
        tried = tuple((p, _strict_refutation(node.body, facts, {**scope, node.var: p}, (*bound, p))) for p in free)
        reason = "no-free-part" if not free else "no-part-satisfies"
        if not facts.view.part_names:
            reason = "object-has-no-parts"
        return ProofNode("PART", False, var=node.var, tried=tried, reason=reason)
    if isinstance(node, Or):
        return ProofNode("OR", False, args=tuple(_strict_refutation(a, facts, scope, bound) for a in node.args),
                         index=tuple(range(len(node.args))))
    failing = [(i, arg) for i, arg in enumerate(node.args) if next(_strict_proofs(arg, facts, scope, bound), None) is None]
    if failing:
        return ProofNode("AND", False, args=tuple(_strict_refutation(a, facts, scope, bound) for _, a in failing),
                         index=tuple(i for i, _ in failing))
    # every argument holds on its own, but no choice of distinct parts makes them hold together
    return ProofNode("AND", False, reason="parts-must-differ",
                     args=tuple(next(_strict_proofs(a, facts, scope, bound))[0] for a in node.args),
                     index=tuple(range(len(node.args))))


def _bindings(node: ProofNode) -> dict[str, str]:
    out: dict[str, str] = {}
    if node.op == "PART" and node.holds and node.part is not None and node.var is not None:
        out[node.var] = node.part
    for arg in node.args:
        out.update(_bindings(arg))
    return out


def _strict_branch(branch: Node, facts: _Facts) -> tuple[ProofNode, str | None, bool]:
    """The branch's proof and witness part, or its refutation. The witness is the solver's: the smallest part
    bound first over every proof (None when no proof binds a part); the proof shown is the first that binds it."""
    proofs = list(_strict_proofs(branch, facts, {}, ()))
    if not proofs:
        return _strict_refutation(branch, facts, {}, ()), None, False
    parts = [bound[0] for _, bound in proofs if bound]
    if not parts:
        return proofs[0][0], None, True
    part = min(parts)
    return next(proof for proof, bound in proofs if bound and bound[0] == part), part, True


def explain(rule: Rule, obj: ObjectRecord, vocab: Vocabulary, semantics: str = "any-part",
            evidence: Evidence | None = None) -> Proof:
    """The verdict of a canonical ``rule`` on ``obj`` (its values read into ``vocab``, e.g. by
    :func:`kari.domain.canon.canonical_objects`) under ``semantics``, with a proof per branch.

    ``evidence`` says where each stated fact comes from (default: the object's own FILE:LINE); a CreativityBench
    answer passes the part-level object the solver scored (:func:`kari.creativity.scene.entity_object`)."""
    check_semantics(semantics)
    facts = _Facts(obj, vocab, evidence)
    branches = []
    verdict: tuple[int, str | None] | None = None
    for b, branch in enumerate(rule.branches()):
        if semantics == "any-part":
            tree, part = _any_part(branch, facts), None
            holds = tree.holds
        else:
            tree, part, holds = _strict_branch(branch, facts)
        meta = rule.branch_metadata[b] if b < len(rule.branch_metadata) else {}
        branches.append(BranchProof(b, to_text(branch), holds, tree, _bindings(tree) if holds else {},
                                    induced_from(meta, obj.id)))
        if holds and verdict is None:
            verdict = (b, part)
    return Proof(rule.affordance, obj.id, semantics, to_text(rule.body), verdict is not None,
                 None if verdict is None else verdict[0], None if verdict is None else verdict[1], tuple(branches),
                 obj.source)
