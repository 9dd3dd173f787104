"""The Validator: labels every atom of the current rule YES/NO for a positive object (method.md 2).

Coverage is then decided in code from the labels (``kari.solver.covered_by_labels``), never by the Validator.
An atom the Validator could not answer (a junk LLM reply, after repairs) counts as NO and is recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kari.core.benchmark import ObjectRecord
from kari.induce.llmio import LLMSession
from kari.induce.proposer import describe_object
from kari.rules.ast import Atom

LABEL_SCHEMA = {
    "type": "object",
    "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string", "enum": ["YES", "NO"]}}},
    "required": ["labels"],
}


@dataclass(frozen=True)
class AtomLabels:
    """YES/NO per atom, and the atom keys that got no usable answer (counted as NO)."""

    labels: dict[Atom, bool]
    unanswered: tuple[str, ...] = field(default=())


class Validator(Protocol):
    """Labels atoms for objects."""

    name: str

    def label_many(
        self, affordance: str, objects: Sequence[ObjectRecord], atoms: Sequence[Atom]
    ) -> list[AtomLabels]: ...


def _answer(value: object) -> bool | None:
    text = str(value).strip().upper() if isinstance(value, (str, bool)) else ""
    if isinstance(value, bool):
        return value
    return True if text in ("YES", "Y", "TRUE") else False if text in ("NO", "N", "FALSE") else None


class LLMValidator:
    """Asks a chat model about each object (one call per object, all atoms of the rule at once)."""

    name = "llm"

    def __init__(self, session: LLMSession, repair_attempts: int = 1, max_tokens: int = 256) -> None:
        self.session = session
        self.repair_attempts = repair_attempts
        self.max_tokens = max_tokens

    def label_many(self, affordance: str, objects: Sequence[ObjectRecord], atoms: Sequence[Atom]) -> list[AtomLabels]:
        keys = sorted({a.key for a in atoms})
        requests = [self._request(obj, keys) for obj in objects]
        replies = self.session.ask_json_many("validator", requests, max_tokens=self.max_tokens, schema=LABEL_SCHEMA)
        out = []
        for obj, request, reply in zip(objects, requests, replies):
            answers = self._answers(reply.data, keys)
            for _ in range(self.repair_attempts):
                missing = [k for k in keys if k not in answers]
                if not missing:
                    break
                note = (
                    f"Your reply did not label {', '.join(missing)} with YES or NO"
                    + (f" ({reply.error})" if reply.error else "")
                    + '. Reply with {"labels": {...}} only.'
                )
                reply = self.session.ask_json(
                    "validator", request, feedback=(note,), max_tokens=self.max_tokens, schema=LABEL_SCHEMA
                )
                answers.update({k: v for k, v in self._answers(reply.data, keys).items() if k not in answers})
            labels = {a: answers.get(a.key, False) for a in atoms}
            out.append(AtomLabels(labels, tuple(k for k in keys if k not in answers)))
        return out

    @staticmethod
    def _request(obj: ObjectRecord, keys: Sequence[str]) -> str:
        return (
            "Object:\n"
            + describe_object(obj)
            + "\nLabel each property YES or NO for this object:\n"
            + "\n".join(f"- {k}" for k in keys)
        )

    @staticmethod
    def _answers(data: dict | None, keys: Sequence[str]) -> dict[str, bool]:
        if not data:
            return {}
        labels = data.get("labels", data)
        if not isinstance(labels, dict):
            return {}
        found = {str(k).replace(" ", "").upper(): _answer(v) for k, v in labels.items()}
        return {k: found[k.upper()] for k in keys if found.get(k.upper()) is not None}
