"""The KARI loop (method.md 2): per affordance, rounds of propose -> audit (-> validate) with add-only rules.

The positives and the known negatives are split into seeded groups, one per round (three for an LLM, the
paper's loop; one for the offline Proposer: ``InduceConfig.rounds``); each round reveals one more group of both.
Round 1 seeds a rule from group 1. Rounds 2..n: the Validator labels the rule's atoms for each object of the
new group, coverage is decided from the labels, and the Proposer appends ONE OR branch for the uncovered
objects. Every proposal is parsed, checked add-only, audited, guarded (:mod:`kari.induce.guards`: simplified,
exclusive values rejected, lifted up the taxonomy, subsumed branches rejected) and statically checked; a
rejected one is retried with the reasons fed back (at most ``repair_attempts`` times), then dropped and
recorded. The finished rule is tidied (subsumed branches dropped) and every branch records its evidence.

Every affordance is audited against the vocabulary as the run started: the values and synonyms the Auditor adds
for one affordance go into its own copy of the vocabulary (``Components.fork``), so that its later rounds see
them and no other affordance does. The run merges every affordance's additions afterwards, in affordance order
(:func:`replay_vocabulary`): the rules do not depend on the order in which the affordances were induced, nor on
how many were induced at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from dataclasses import dataclass, field, replace
from typing import Any

from kari.core.benchmark import ObjectRecord
from kari.explain.provenance import branch_provenance
from kari.induce.auditor import Auditor, VocabEvent
from kari.core.induce_config import InduceConfig, Negatives
from kari.induce.guards import Guard, tidy
from kari.induce.inputs import Evidence
from kari.induce.proposer import Proposal, ProposalTask, Proposer, summarise_feedback
from kari.induce.refusals import Refusals, refused_by_diagnostics
from kari.induce.split import split_groups
from kari.induce.timers import Timers
from kari.induce.validator import Validator
from kari.rules.ast import Atom, Node, Or, Rule, any_of
from kari.core.terms import Semantics, normalise_term
from kari.domain.objects import rule_holds
from kari.induce.partkb import part_branch
from kari.vocab.vocabulary import Vocabulary
from kari.induce.records import InductionResult
from kari.rules import check_rule, to_json, to_text
from kari.solver import covered_by_labels


@dataclass
class Components:
    """The three roles of one run. ``fork(vocab)`` builds the same roles on another vocabulary (a copy the
    affordance's own additions go into); without it, additions go into ``vocab`` itself."""

    proposer: Proposer
    validator: Validator
    auditor: Auditor
    vocab: Vocabulary
    guard: Guard | None = None  # None: the default guards (Guard(vocab)); a proposal is never unguarded
    fork: Callable[[Vocabulary], Components] | None = None


@dataclass
class _State:
    """What one affordance's loop accumulates."""

    evidence: Evidence
    body: Node | None = None
    branch_meta: list[dict[str, Any]] = field(default_factory=list)
    labels: dict[str, dict[Atom, bool]] = field(default_factory=dict)  # object id -> atom labels
    unanswered: dict[str, set[str]] = field(default_factory=dict)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    events: list[VocabEvent] = field(default_factory=list)

    def rule(self) -> Rule:
        if self.body is None:
            raise ValueError(f"no rule body for {self.evidence.affordance} yet")
        return Rule(self.evidence.affordance, self.body)


def branches_of(body: Node | None) -> tuple[Node, ...]:
    """Top-level OR branches (none for no rule)."""
    if body is None:
        return ()
    return body.args if isinstance(body, Or) else (body,)


def _branch_key(node: Node) -> str:
    return normalise_term(to_text(node).replace(" ", ""))


def add_only_problems(current: Node | None, proposed: Node) -> list[str]:
    """Why ``proposed`` is not ``current`` plus exactly one appended OR branch ([] when it is)."""
    old, new = branches_of(current), branches_of(proposed)
    if current is None:
        return []
    if [_branch_key(b) for b in new[: len(old)]] != [_branch_key(b) for b in old]:
        return [f"the proposal changes or reorders existing branches; keep all {len(old)} of them unchanged, in order"]
    if len(new) != len(old) + 1:
        return [f"append exactly ONE new OR branch (the proposal has {len(new) - len(old)} new branches)"]
    return []


def _labels(state: _State, comps: Components, objects: Sequence[ObjectRecord], timers: Timers) -> None:
    """Make sure every object has a label for every atom of the current rule (asks only what is missing)."""
    atoms = sorted(set(state.rule().atoms()), key=lambda a: (a.predicate, a.value, a.role)) if state.body else []
    todo: dict[tuple[Atom, ...], list[ObjectRecord]] = {}
    for obj in objects:
        missing = tuple(a for a in atoms if a not in state.labels.get(obj.id, {}))
        if missing:
            todo.setdefault(missing, []).append(obj)
    for missing, objs in todo.items():
        with timers("validate"):
            answers = comps.validator.label_many(state.evidence.affordance, objs, missing)
        for obj, answer in zip(objs, answers):
            state.labels.setdefault(obj.id, {}).update(answer.labels)
            if answer.unanswered:
                state.unanswered.setdefault(obj.id, set()).update(answer.unanswered)


def _covered(state: _State, objects: Sequence[ObjectRecord], timers: Timers) -> list[str]:
    """Ids of ``objects`` the current rule covers according to the Validator's labels."""
    if state.body is None:
        return []
    rule = state.rule()
    with timers("coverage"):
        return [o.id for o in objects if covered_by_labels(rule, state.labels.get(o.id, {})).covered]


@dataclass
class _Verdict:
    """One proposal checked: the accepted body (None when rejected), the problems, the Auditor's result, the guard
    changes per new branch, and what the rejection refuses for the rest of the round."""

    body: Node | None
    problems: list[str]
    audit: Any = None
    changes: list[list[str]] = field(default_factory=list)
    refused: Refusals = Refusals()


def _check(
    state: _State, comps: Components, proposal: Proposal, task: ProposalTask, affordances: Sequence[str],
    timers: Timers
) -> _Verdict:
    """Validate one proposal: parse result, add-only, Auditor, guards, static check. A rejection by the
    Auditor, the guards or the static check refuses the values or branches it names (:mod:`kari.induce.refusals`)."""
    if proposal.body is None:
        return _Verdict(None, [proposal.error or "no rule in the reply"])
    problems = add_only_problems(state.body, proposal.body)
    if problems:
        return _Verdict(None, problems)
    first_new = len(branches_of(state.body))
    with timers("audit"):
        audit = comps.auditor.audit(proposal.body, first_new, affordance=state.evidence.affordance, round=task.round)
    if audit.errors or audit.body is None:
        return _Verdict(None, audit.errors, refused=Refusals().plus(values=audit.refused))
    guard = comps.guard if comps.guard is not None else Guard(comps.vocab)  # every path is guarded
    with timers("guard"):
        guarded = guard.check(audit.body, first_new, task.seen or task.targets, task.negatives,
                              avoid=task.refused.values)
    if guarded.body is None:
        return _Verdict(None, guarded.problems, refused=Refusals().plus(branches=guarded.refused))
    with timers("check"):
        diagnostics = check_rule(Rule(state.evidence.affordance, guarded.body), comps.vocab, affordances)
    errors = [d for d in diagnostics if d.is_error and not _is_new_value(d, audit.events)]
    if not errors:
        return _Verdict(guarded.body, [], audit, guarded.changes)
    values, branches = refused_by_diagnostics(guarded.body, errors, first_new)
    proposed = branches_of(proposal.body)
    as_proposed = [proposed[i] for i, b in enumerate(branches_of(guarded.body)) if b in branches and i < len(proposed)]
    return _Verdict(None, [str(d) for d in errors], refused=Refusals().plus(values, [*branches, *as_proposed]))


def _is_new_value(diagnostic: Any, events: Sequence[VocabEvent]) -> bool:
    """An 'unknown value' diagnostic about a value the Auditor has just accepted as NEW is not a problem."""
    news = {e.value for e in events if e.decision == "new"}
    return "unknown" in str(diagnostic.code) and any(v in diagnostic.message for v in news)


def _propose(
    state: _State,
    comps: Components,
    task: ProposalTask,
    config: InduceConfig,
    affordances: Sequence[str],
    timers: Timers,
) -> tuple[str, int, Components]:
    """Run the propose/repair cycle for one round; returns (outcome, attempts, the roles from now on: on their own
    copy of the vocabulary once the Auditor added to it). What a rejection refuses is refused for the rest of the
    round: the next attempt is asked for the next best branch, never the same one."""
    feedback: list[str] = []
    refused = Refusals()
    for attempt in range(1, config.repair_attempts + 2):
        with timers("propose"):
            proposal = comps.proposer.propose(replace(task, feedback=tuple(feedback), refused=refused))
        if proposal.exhausted:
            return "no-branch", attempt, comps
        verdict = _check(state, comps, proposal, replace(task, refused=refused), affordances, timers)
        if verdict.body is not None:
            comps = _committed(comps, verdict.audit)
            state.events += verdict.audit.events
            state.body = verdict.body
            for change in verdict.changes:
                state.branch_meta.append(
                    {
                        "round": task.round,
                        "motivated_by": [o.id for o in task.targets],
                        "source": comps.proposer.name,
                        "attempt": attempt,
                        **({"guard": change} if change else {}),
                    }
                )
            return "accepted", attempt, comps
        repeated = bool(refused) and proposal.body is not None and not _new_branches_allowed(state, proposal, refused)
        refused = refused | verdict.refused
        state.dropped.append(
            {"round": task.round, "attempt": attempt, "problems": verdict.problems, "reply": proposal.raw[:2000],
             **({"refused": refused.lines()} if refused else {}), **({"repeated": True} if repeated else {})}
        )
        feedback.append(summarise_feedback(verdict.problems, refused))
    return "dropped", config.repair_attempts + 1, comps


def _committed(comps: Components, audit: Any) -> Components:
    """The roles after an accepted proposal's vocabulary changes: applied to a copy of the vocabulary, with the
    roles built on it (the first time this affordance changes it), so the run's vocabulary stays as it started."""
    if not audit.pending or comps.fork is None:
        audit.commit()
        return comps
    own = comps.fork(comps.vocab.copy())
    apply_events(own.vocab, [e.to_json() for e in audit.events])
    audit.pending.clear()
    return own


def _new_branches_allowed(state: _State, proposal: Proposal, refused: Refusals) -> bool:
    """Does every new branch of ``proposal`` avoid what was refused earlier in the round?"""
    assert proposal.body is not None
    return all(refused.allows(b) for b in branches_of(proposal.body)[len(branches_of(state.body)):])


def induce_affordance(
    evidence: Evidence,
    comps: Components,
    config: InduceConfig,
    *,
    affordances: Sequence[str] = (),
    timers: Timers | None = None,
) -> InductionResult:
    """Run the loop for one affordance; returns its result (rule, provenance, rounds, events)."""
    timers = timers if timers is not None else Timers()
    start = time.perf_counter()
    state = _State(evidence)
    by_id = {o.id: o for o in evidence.positives}
    negatives = evidence.negatives(config.negatives)
    groups = split_groups(list(by_id), config.rounds, config.seed, evidence.affordance)
    negative_by_id = {o.id: o for o in negatives}
    negative_groups = split_groups(list(negative_by_id), config.rounds, config.seed,
                                   evidence.affordance + ":negatives")
    seen: list[ObjectRecord] = []
    seen_negatives: list[ObjectRecord] = []
    for round_no, (group_ids, negative_ids) in enumerate(zip(groups, negative_groups), start=1):
        group = [by_id[i] for i in group_ids]
        seen += group
        seen_negatives += [negative_by_id[i] for i in negative_ids]
        _labels(state, comps, group, timers)
        covered = set(_covered(state, group, timers))
        targets = tuple(o for o in group if o.id not in covered)
        record: dict[str, Any] = {
            "round": round_no,
            "group": group_ids,
            "covered_before": sorted(covered),
            "targets": [o.id for o in targets],
        }
        if targets:
            task = ProposalTask(evidence.affordance, evidence.description, round_no, state.body, targets,
                                tuple(seen_negatives), seen=tuple(seen), pooled=evidence.pooled,
                                weights=evidence.weights)
            record["outcome"], record["attempts"], comps = _propose(state, comps, task, config, affordances, timers)
        else:
            record["outcome"], record["attempts"] = ("skipped", 0)
        _labels(state, comps, seen, timers)
        seen_covered = _covered(state, seen, timers)
        record.update(
            branches=len(branches_of(state.body)),
            seen=len(seen),
            covered_seen=len(seen_covered),
            recall_seen=round(len(seen_covered) / len(seen), 4) if seen else None,
        )
        state.rounds.append(record)
    return _result(state, evidence, negatives, config, comps.vocab, to_json, time.perf_counter() - start, timers)


def _result(
    state: _State,
    evidence: Evidence,
    negatives: Sequence[ObjectRecord],
    config: InduceConfig,
    vocab: Vocabulary,
    to_json: Any,
    seconds: float,
    timers: Timers,
) -> InductionResult:
    """The finished affordance: rule JSON (tidied: :func:`kari.induce.guards.tidy`), per-branch provenance
    (covers; per positive whose facts make it true, the facts and KB edges behind each atom:
    :func:`kari.explain.provenance.branch_provenance`) and evidence (:func:`branch_evidence`), rounds, drops,
    events."""
    branches, state.branch_meta = tidy(branches_of(state.body), state.branch_meta, vocab)
    kept: list[tuple[Node, dict[str, Any]]] = []
    for meta, branch in zip(state.branch_meta, branches):
        covers = [
            o.id
            for o in evidence.positives
            if o.id in state.labels and branch.evaluate(partial(_label, state.labels[o.id]))
        ]
        meta["evidence"] = branch_evidence(Rule(evidence.affordance, branch), evidence.positives, negatives,
                                           vocab, config.semantics)
        if not covers and not meta["evidence"]["support"]:  # it rests on no positive (e.g. only Auditor-new values)
            state.dropped.append({"round": meta.get("round"), "attempt": meta.get("attempt"),
                                  "problems": ["the branch covers no positive"], "reply": _text(branch)})
            continue
        meta["covers"] = covers
        held = set(meta["evidence"]["positives"])  # the positives whose facts make the branch true
        with timers("provenance"):
            meta["provenance"], meta["edges"] = branch_provenance(
                branch, [o for o in evidence.positives if o.id in held], evidence.edges, vocab, config.semantics)
        kept.append((branch, meta))
    branches, state.branch_meta = [b for b, _ in kept], [m for _, m in kept]
    if evidence.part_level:
        branches = [part_branch(b) for b in branches]
    state.body = any_of(branches) if branches else None
    covered = _covered(state, evidence.positives, timers)
    whole = (branch_evidence(Rule(evidence.affordance, state.body), evidence.positives, negatives, vocab,
                             config.semantics) if state.body is not None else None)
    return InductionResult(
        affordance=evidence.affordance,
        evidence=evidence.fingerprint(),
        rule=to_json(state.body) if state.body is not None else None,
        branches=state.branch_meta,
        positives=len(evidence.positives),
        negatives=len(negatives),
        negatives_source=Negatives.CLOSED_WORLD if evidence.uses_closed_world(config.negatives) else Negatives.LABELLED,
        covered=len(covered),
        recall=round(len(covered) / len(evidence.positives), 4) if evidence.positives else None,
        evidence_counts=None if whole is None else {
            "positives": len(evidence.positives), "negatives": len(negatives),
            "covered_positives": whole["support"], "covered_negatives": whole["negatives_covered"]},
        unanswered={k: sorted(v) for k, v in sorted(state.unanswered.items())},
        rounds=state.rounds,
        dropped=state.dropped,
        vocab_events=[e.to_json() for e in state.events],
        seconds=round(seconds, 3),
        **_kb_group(evidence),
        no_rule=no_rule_reason(state.rounds, state.dropped) if state.body is None else None,
    )


def _label(labels: Mapping[Atom, bool], atom: Atom) -> bool:
    """An atom's answer among one object's labels (an atom not asked about: False)."""
    return labels.get(atom, False)


def no_rule_reason(rounds: Sequence[Mapping[str, Any]], dropped: Sequence[Mapping[str, Any]]) -> str:
    """Why an affordance ended without a rule, from its rounds and dropped proposals: every proposal refused
    (with the last problems, and whether a refused branch was proposed again), every branch dropped for
    covering no positive, or no branch meeting the Proposer's settings."""
    refused = [d for d in dropped if d.get("problems") != ["the branch covers no positive"]]
    if any(r.get("outcome") == "dropped" for r in rounds) and refused:
        last = refused[-1]
        again = sum(bool(d.get("repeated")) for d in refused)
        return (f"every proposal was refused ({len(refused)} attempts"
                + (f", {again} of them proposing a refused value or branch again" if again else "")
                + f"); last: {'; '.join(last.get('problems', []))[:300]}")
    if len(refused) < len(dropped):
        return "every accepted branch covered no positive (dropped)"
    return "no branch meets the Proposer's support and precision settings and raises F1"


def _kb_group(evidence: Evidence) -> dict[str, Any]:
    """The KB verbs behind a grouped affordance and its positive objects (KB input only)."""
    if not evidence.members:
        return {}
    return {"group": {"method": evidence.grouping, "members": [m.to_json() for m in evidence.members]},
            "kb_positives": [o.id for o in evidence.positives],
            **({"kb_pooled": [o.id for o in evidence.pooled],
                "kb_pooled_via": {o.id: [link.to_json() for link in evidence.pooled_from.get(o.id, ())]
                                  for o in evidence.pooled}} if evidence.pooled else {})}


def _text(node: Node) -> str:
    return to_text(node)


def branch_evidence(branch: Rule, positives: Sequence[ObjectRecord], negatives: Sequence[ObjectRecord],
                    vocab: Vocabulary, semantics: str) -> dict[str, Any]:
    """What one branch (as a rule) covers among the training objects, by their facts: support (positives
    covered), negatives covered, precision, and the objects."""
    if semantics == Semantics.ANY_PART:  # one vectorised pass over every object (KB-scale closed-world negatives)
        from kari.induce.fastsearch import AtomMatrix, holds_rule, rule_keys

        covered = holds_rule(branch.body, AtomMatrix([*positives, *negatives], vocab, rule_keys(branch.body)))
        hits = [o.id for o, hit in zip(positives, covered) if hit]
        misses = [o.id for o, hit in zip(negatives, covered[len(positives):]) if hit]
    else:
        hits = [o.id for o in positives if rule_holds(branch, o, vocab, semantics)]
        misses = [o.id for o in negatives if rule_holds(branch, o, vocab, semantics)]
    return {"support": len(hits), "negatives_covered": len(misses),
            "precision": round(len(hits) / (len(hits) + len(misses)), 4) if hits or misses else None,
            "positives": hits, "negatives": misses[:LISTED_NEGATIVES]}


LISTED_NEGATIVES = 50
"""Negatives a branch's evidence lists by id (their count is always complete: closed-world KB negatives run to
hundreds)."""


def checked_names(chosen: Sequence[Evidence]) -> list[str]:
    """The affordances whose verbs no rule value may be (:func:`kari.rules.check_rule`): every one of a benchmark;
    for KB verb groups (thousands of verbs, ``light`` and ``cover`` among them) each rule's own only."""
    return [] if any(ev.members for ev in chosen) else [ev.affordance for ev in chosen]


def replay_vocabulary(vocab: Vocabulary, results: Mapping[str, InductionResult]) -> None:
    """Apply the vocabulary changes of finished affordances, in affordance order (the run's merge of what each
    affordance's Auditor added)."""
    for aff in sorted(results):
        apply_events(vocab, results[aff].vocab_events or ())


def apply_events(vocab: Vocabulary, events: Sequence[Mapping[str, Any]]) -> None:
    """Apply Auditor decisions (their JSON form) to ``vocab``: a ``new`` value is added, an ``embedding`` or
    ``llm-synonym`` decision adds a synonym; exact and normalised matches change nothing."""
    for event in events:
        if event["decision"] == "new":
            vocab.add_value(event["predicate"], event["value"], event.get("provenance", ""))
        elif event["decision"] in ("embedding", "llm-synonym"):
            vocab.add_synonym(event["predicate"], normalise_term(event["raw"]), event["value"])


def rule_from_result(result: InductionResult, metadata: Mapping[str, Any]) -> Rule | None:
    """The :class:`Rule` (with per-branch provenance) of a finished affordance, or None without a rule."""
    body = result.body
    if body is None:
        return None
    note = (
        f"induced by kari induce ({metadata.get('backend', '?')}): covers {result.covered} of "
        f"{result.positives} positives by the Validator's labels"
    )
    kb = {k: value for k in ("group", "kb_positives", "kb_pooled", "kb_pooled_via", "evidence_counts")
          if (value := getattr(result, k)) is not None}
    return Rule(
        result.affordance,
        body,
        {**metadata, "recall_validator": result.recall, **kb, "comments": [note]},
        tuple(result.branches or ()),
    )
