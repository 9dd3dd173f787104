"""What an LLM induction will cost, from the evidence's counts, before any call (``kari induce --dry-run``).

The loop's requests follow from each affordance's positives and its seeded groups (:func:`kari.induce.split.
split_groups`, the groups the run will use): round 1 asks the Proposer for a seed rule and the Validator about
the group's objects; each later round with objects asks the Validator about the new group (the rule so far), the
Proposer for one more branch, and the Validator about every object seen so far (the new branch's atoms). The
*expected* count assumes every round proposes and its first proposal is accepted; *at most* lets every proposal
and every Validator request use all its repairs (``repair_attempts``). The Auditor asks only about a new value
whose similarity to the vocabulary is undecided: expected 0, not bounded in advance.

Prompt tokens are estimated from the real request texts (the system prompts, the objects' lines, a rule of
:data:`ATOMS_PER_BRANCH` atoms per branch) at :data:`CHARS_PER_TOKEN` characters per token (what a small
tokenizer makes of these structured lines); completion tokens from the reply's JSON shape, and at most ``max_tokens`` per request.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kari.core.benchmark import ObjectRecord
from kari.core.induce_config import InduceConfig
from kari.induce.inputs import Evidence
from kari.induce.llmio import ROLES
from kari.induce.proposer import LLMProposer, ProposalTask, proposal_request
from kari.induce.split import split_groups
from kari.induce.validator import LLMValidator
from kari.rules.ast import And, Atom, Node, any_of
from kari.rules import to_json

CHARS_PER_TOKEN = 3
"""Characters per token of the estimate: 2.85 measured on these requests with SmolLM2-135M's tokenizer (49k tokens;
larger vocabularies, Qwen's or Llama's, give fewer tokens)."""
ATOMS_PER_BRANCH = 2
"""The atoms each proposed branch is assumed to have (the Proposer's prompt: one to three is usual)."""
MESSAGE_OVERHEAD = 8
"""Tokens a chat template adds per request (role markers)."""


@dataclass(frozen=True)
class RoleCost:
    """One role's requests (expected and at most) and tokens (prompt expected; completion expected and at
    most)."""

    requests: int = 0
    most_requests: int | None = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    most_completion_tokens: int | None = 0

    def plus(self, other: RoleCost) -> RoleCost:
        return RoleCost(self.requests + other.requests, _add(self.most_requests, other.most_requests),
                        self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens,
                        _add(self.most_completion_tokens, other.most_completion_tokens))


def _add(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


@dataclass(frozen=True)
class AffordanceCost:
    """The expected cost of one affordance (a KB verb group: ``verbs`` of them)."""

    affordance: str
    verbs: int
    positives: int
    roles: Mapping[str, RoleCost] = field(default_factory=dict)

    @property
    def requests(self) -> int:
        return sum(r.requests for r in self.roles.values())


def tokens(text: str) -> int:
    """The estimated tokens of ``text``."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


class CostModel:
    """Estimates per affordance for one run's settings and prompts (``prompts``: name -> prompt text)."""

    def __init__(self, config: InduceConfig, prompts: Mapping[str, str]) -> None:
        self.config = config
        self.prompts = prompts
        self.proposer = LLMProposer(None)  # no session: only its limits are read
        self.validator = LLMValidator(None, repair_attempts=config.repair_attempts, batch=config.validator_batch)

    def estimate(self, evidence: Evidence) -> AffordanceCost:
        """The requests and tokens per role the loop is expected to take for ``evidence``."""
        config = self.config
        by_id = {o.id: o for o in evidence.positives}
        groups = [[by_id[i] for i in g] for g in split_groups(list(by_id), config.rounds, config.seed,
                                                               evidence.affordance)]
        proposer, validator = RoleCost(), RoleCost()
        seen: list[ObjectRecord] = []
        branches = 0
        for round_no, group in enumerate(groups, start=1):
            if not group:
                continue
            if branches:
                validator = validator.plus(self._labels(group, branches * ATOMS_PER_BRANCH))
            seen += group
            proposer = proposer.plus(self._proposal(evidence, round_no, branches, group))
            branches += 1
            validator = validator.plus(self._labels(seen, ATOMS_PER_BRANCH))
        members = len(evidence.members) or 1
        return AffordanceCost(evidence.affordance, members, len(evidence.positives),
                              {"proposer": proposer, "validator": validator,
                               "auditor": RoleCost(most_requests=None, most_completion_tokens=None)})

    def _proposal(self, evidence: Evidence, round_no: int, branches: int, targets: Sequence[ObjectRecord]) -> RoleCost:
        current = _rule(branches) if branches else None
        task = ProposalTask(evidence.affordance, evidence.description, round_no, current, tuple(targets))
        prompt = tokens(self.prompts["proposer"]) + tokens(proposal_request(task, self.proposer.max_objects))
        reply = tokens(json.dumps({"rule": _rule_json(branches + 1)}))
        tries = self.config.repair_attempts + 1
        return RoleCost(1, tries, prompt + MESSAGE_OVERHEAD, reply, tries * self.proposer.max_tokens)

    def _labels(self, objects: Sequence[ObjectRecord], atoms: int) -> RoleCost:
        """One label request per object (or per ``batch`` objects) about ``atoms`` atoms."""
        keys = [f"{p}:{v}" for p, v in _atoms(atoms)]
        validator, repairs = self.validator, self.config.repair_attempts
        if validator.batch > 1 and len(objects) > 1:
            chunks = [objects[i: i + validator.batch] for i in range(0, len(objects), validator.batch)]
            texts = [(self.prompts["validator_batch"], validator._batch_request(c, keys)) for c in chunks]
            reply = sum(tokens(json.dumps({"labels": {o.id: dict.fromkeys(keys, "YES") for o in c}})) for c in chunks)
            most = len(chunks) + len(objects) * (1 + repairs)
            per_batch = max(validator.max_tokens, validator.max_tokens_per_object * validator.batch)
            most_tokens = len(chunks) * per_batch + len(objects) * (1 + repairs) * validator.max_tokens
        else:
            texts = [(self.prompts["validator"], validator._request(o, keys)) for o in objects]
            reply = len(objects) * tokens(json.dumps({"labels": dict.fromkeys(keys, "YES")}))
            most = len(objects) * (1 + repairs)
            most_tokens = most * validator.max_tokens
        prompt = sum(tokens(system) + tokens(text) + MESSAGE_OVERHEAD for system, text in texts)
        return RoleCost(len(texts), most, prompt, reply, most_tokens)


def _atoms(n: int) -> list[tuple[str, str]]:
    """``n`` atoms of a typical length."""
    typical = [("MADE_OF", "metal"), ("SHAPE", "sharp_edge"), ("SIZE", "small"), ("SURFACE", "smooth")]
    return [typical[i % len(typical)] for i in range(n)]


def _rule(branches: int) -> Node:
    pairs = _atoms(branches * ATOMS_PER_BRANCH)
    return any_of([And(tuple(Atom(p, v) for p, v in pairs[i: i + ATOMS_PER_BRANCH]))
                   for i in range(0, len(pairs), ATOMS_PER_BRANCH)])


def _rule_json(branches: int) -> object:
    return to_json(_rule(branches))


def total(costs: Iterable[AffordanceCost]) -> dict[str, RoleCost]:
    """Role -> the summed cost of ``costs``."""
    out = {role: RoleCost() for role in ROLES}
    out["auditor"] = RoleCost(most_requests=None, most_completion_tokens=None)
    for cost in costs:
        out = {role: out[role].plus(cost.roles.get(role, RoleCost())) for role in out}
    return out




def render(costs: Sequence[AffordanceCost], *, header: str, llm: bool, concurrency: int) -> str:
    """The dry run's text: one line per affordance (verb group), then the totals per role."""
    lines = [header, ""]
    width = max([len("affordance"), *(len(c.affordance) for c in costs)])
    if not llm:
        lines.append(f"{'affordance':<{width}}  {'verbs':>6}  {'positives':>9}")
        lines += [f"{c.affordance:<{width}}  {c.verbs:>6}  {c.positives:>9}" for c in costs]
        lines += ["", f"{len(costs)} affordances; the offline backend makes no LLM request."]
        return "\n".join(lines) + "\n"
    lines.append(f"{'affordance':<{width}}  {'verbs':>6}  {'positives':>9}  {'proposer':>8}  {'validator':>9}  "
                 f"{'prompt tok.':>11}  {'completion tok.':>15}")
    for c in costs:
        prompt = sum(r.prompt_tokens for r in c.roles.values())
        completion = sum(r.completion_tokens for r in c.roles.values())
        lines.append(f"{c.affordance:<{width}}  {c.verbs:>6}  {c.positives:>9}  {c.roles['proposer'].requests:>8}  "
                     f"{c.roles['validator'].requests:>9}  {prompt:>11,}  {completion:>15,}")
    sums = total(costs)
    lines += ["", "expected requests and tokens per role (every round proposes once, accepted first time; at most: "
                  "every repair used):",
              f"{'role':<10} {'requests':>10} {'at most':>10} {'prompt tokens':>14} {'completion tokens':>18} "
              f"{'at most':>12}"]
    for role, r in sums.items():
        most = "-" if r.most_requests is None else f"{r.most_requests:,}"
        most_tokens = "-" if r.most_completion_tokens is None else f"{r.most_completion_tokens:,}"
        lines.append(f"{role:<10} {r.requests:>10,} {most:>10} {r.prompt_tokens:>14,} {r.completion_tokens:>18,} "
                     f"{most_tokens:>12}")
    requests = sum(r.requests for r in sums.values())
    tokens_all = sum(r.prompt_tokens + r.completion_tokens for r in sums.values())
    rules = max(len(costs), 1)
    lines += ["",
              f"{len(costs)} affordances: {requests:,} requests ({requests / rules:.1f} per rule), about "
              f"{tokens_all:,} tokens ({tokens_all / rules:,.0f} per rule; {CHARS_PER_TOKEN} characters a token); "
              "the Auditor asks only about an undecided new value.",
              f"At 1 s per reply: about {_duration(requests)} one request at a time, {_duration(requests / concurrency)} "
              f"with --concurrency {concurrency} against a server that answers {concurrency} at once."]
    return "\n".join(lines) + "\n"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


__all__ = ["AffordanceCost", "CHARS_PER_TOKEN", "CostModel", "RoleCost", "render", "tokens", "total"]
