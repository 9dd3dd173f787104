"""The Proposer: the only component that writes rules (method.md 2).

A proposal is the FULL rule body the Proposer wants: in round 1 a seed rule, later the current rule with ONE
new OR branch appended. The loop, not the Proposer, checks that the proposal is valid and add-only.
Two implementations: :class:`LLMProposer` here and the symbolic one in :mod:`kari.induce.offline`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kari.core.benchmark import ObjectRecord
from kari.induce.llmio import LLMSession, connected
from kari.induce.refusals import Refusals
from kari.rules import parse_rule_json, to_json
from kari.rules.ast import Node

RULE_SCHEMA = {"type": "object", "properties": {"rule": {"type": "object"}}, "required": ["rule"]}
"""The reply shape asked for in JSON mode (the rule itself is checked by the parser, not by the schema)."""


@dataclass(frozen=True)
class ProposalTask:
    """What the Proposer is asked: seed a rule (``current`` None) or extend ``current`` for ``targets`` (the
    uncovered positives of this round), knowing the ``negatives`` and the positives ``seen`` so far."""

    affordance: str
    description: str
    round: int
    current: Node | None
    targets: tuple[ObjectRecord, ...]
    negatives: tuple[ObjectRecord, ...] = ()
    feedback: tuple[str, ...] = ()
    seen: tuple[ObjectRecord, ...] = ()  # every positive of the rounds so far (targets included)
    refused: Refusals = Refusals()  # values and branches the guards refused this round: never proposed again
    pooled: tuple[ObjectRecord, ...] = ()  # KB kin of the positives: weighed positive evidence, never targets
    weights: Mapping[str, float] = field(default_factory=dict)  # object id -> weight (1 when absent)

    @property
    def seeding(self) -> bool:
        return self.current is None


@dataclass(frozen=True)
class Proposal:
    """A proposed rule body, or the reason there is none.

    ``exhausted``: the Proposer has nothing to propose (repairs cannot help); otherwise a missing body is an
    invalid reply that the loop feeds back for repair.
    """

    body: Node | None
    raw: str = ""
    error: str | None = None
    exhausted: bool = False


class Proposer(Protocol):
    """Drafts or extends a rule."""

    name: str

    def propose(self, task: ProposalTask) -> Proposal: ...


def describe_object(obj: ObjectRecord) -> str:
    """One line per object for prompts: ``id: description | PRED:value (part) ...``."""
    facts = sorted({f"{p.predicate}:{p.value}" + ("" if p.part == "whole" else f" ({p.part})") for p in obj.properties})
    head = f"{obj.id}: {obj.description}" if obj.description else obj.id
    return f"- {head} | " + ", ".join(facts) if facts else f"- {head} | (no known properties)"


class LLMProposer:
    """Asks a chat model for the rule in the JSON form of the language (method.md 1)."""

    name = "llm"

    def __init__(self, session: LLMSession | None, max_objects: int = 20, max_tokens: int = 400) -> None:
        self.session = session
        self.max_objects = max_objects
        self.max_tokens = max_tokens

    def propose(self, task: ProposalTask) -> Proposal:
        request = proposal_request(task, self.max_objects)
        reply = connected(self.session, "proposer").ask_json(
            "proposer", request, feedback=task.feedback, max_tokens=self.max_tokens, schema=RULE_SCHEMA
        )
        if reply.data is None:
            return Proposal(None, reply.text, reply.error or "no JSON object in the reply")
        rule = reply.data.get("rule", reply.data)
        try:
            body = parse_rule_json(json.dumps(rule))
        except Exception as exc:  # noqa: BLE001 - any parse failure is fed back to the model
            return Proposal(None, reply.text, f"the rule does not parse: {exc}")
        return Proposal(body, reply.text)


def proposal_request(task: ProposalTask, max_objects: int = 20) -> str:
    """The user message asking for the seed rule (``task.current`` None) or for one more branch of it, with the
    first ``max_objects`` target objects."""
    objects = "\n".join(describe_object(o) for o in task.targets[:max_objects])
    head = f"Affordance: {task.affordance}" + (f" ({task.description})" if task.description else "")
    if task.seeding or task.current is None:
        return head + f"\nRound {task.round}: draft the seed rule from these positive objects.\n{objects}"
    current = json.dumps(to_json(task.current), separators=(",", ":"))
    return (head + f"\nRound {task.round}. Current rule (keep every branch unchanged):\n{current}\n"
            + f"These positive objects are not covered yet; append ONE new OR branch for them.\n{objects}")


def summarise_feedback(messages: Sequence[str], refused: Refusals = Refusals()) -> str:
    """The repair message shown to the Proposer after a rejected proposal: the problems, then every value and
    branch refused so far this round (never to be proposed again: the next best branch instead)."""
    lines = refused.lines()
    return (
        "Your previous proposal was rejected:\n"
        + "\n".join(f"- {m}" for m in messages)
        + ("\nRefused this round (" + "; ".join(lines) + "): propose the next best branch without them."
           if lines else "")
        + "\nReply again with the corrected rule as one JSON object."
    )
