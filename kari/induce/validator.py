"""The Validator: labels every atom of the current rule YES/NO for a positive object (method.md 2).

Coverage is then decided in code from the labels (``kari.solver.covered_by_labels``), never by the Validator.
An atom the Validator could not answer (a junk LLM reply, after repairs) counts as NO and is recorded; a run
whose first :data:`UNUSABLE_AFTER` labels all went unanswered stops (:func:`check_usable`).

The LLM Validator asks about one object per request by default. With ``batch`` = K > 1 it asks about up to K
objects per request (the prompt ``validator_batch``: the same question, each object judged on its own, the labels
keyed by object id); an object the reply leaves without a YES or NO for some property is asked again on its own
(the one-object request and its repairs), so every label still answers the one-object question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kari.core.benchmark import ObjectRecord
from kari.errors import KariError
from kari.induce.llmio import LLMSession, connected
from kari.induce.proposer import describe_object
from kari.rules.ast import Atom

LABELS: dict[str, object] = {"type": "object", "additionalProperties": {"type": "string", "enum": ["YES", "NO"]}}
"""Property -> YES or NO."""
LABEL_SCHEMA = {"type": "object", "properties": {"labels": LABELS}, "required": ["labels"]}


UNUSABLE_AFTER = 20
"""Atom labels of a run (over all its affordances) that may all go unanswered before it stops: a Validator that
has answered none of them is not following its prompt (a reply in another shape, or a model too small), and every
label read as NO would make every rule cover nothing."""


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


BATCH_SCHEMA = {
    "type": "object",
    "properties": {"labels": {"type": "object", "additionalProperties": LABELS}},
    "required": ["labels"],
}
"""The reply shape of a request about several objects: object id -> property -> YES/NO."""


def check_usable(affordance: str, asked: int, answered: int, where: str) -> None:
    """An ``llm-unusable`` error (exit 2) when the run has asked at least :data:`UNUSABLE_AFTER` atom labels and
    none was answered (``affordance``: the one asked about last; ``where``: the Validator, its model and server)."""
    if asked >= UNUSABLE_AFTER and not answered:
        raise KariError(f"the Validator ({where}) gave no usable YES or NO for any of the first {asked} atom labels "
                        f"of this run (the last asked about {affordance!r}): a reply in another shape than the "
                        "validator prompt's JSON, or a model too small to follow it; the finished affordances are "
                        "kept and a rerun goes on", code="llm-unusable")


class LLMValidator:
    """Asks a chat model about each object (all atoms of the rule at once), one object per request or ``batch``
    objects per request."""

    name = "llm"

    def __init__(self, session: LLMSession | None, repair_attempts: int = 1, max_tokens: int = 256, batch: int = 1,
                 max_tokens_per_object: int = 128) -> None:
        self.session = session
        self.repair_attempts = repair_attempts
        self.max_tokens = max_tokens
        self.batch = batch
        self.max_tokens_per_object = max_tokens_per_object

    @property
    def where(self) -> str:
        """``llm, model M at URL`` (error messages)."""
        if self.session is None:
            return self.name
        config = self.session.client.config
        return f"{self.name}, model {config.model} at {config.base_url}"

    def label_many(self, affordance: str, objects: Sequence[ObjectRecord], atoms: Sequence[Atom]) -> list[AtomLabels]:
        keys = sorted({a.key for a in atoms})
        found = self._batched(objects, keys) if self.batch > 1 and len(objects) > 1 else {}
        alone = [obj for obj in objects if len(found.get(obj.id, {})) < len(keys)]
        labelled = dict(zip((o.id for o in alone), self._one_by_one(alone, keys, found)))
        out = []
        for obj in objects:
            answers = labelled.get(obj.id, found.get(obj.id, {}))
            labels = {a: answers.get(a.key, False) for a in atoms}
            out.append(AtomLabels(labels, tuple(k for k in keys if k not in answers)))
        asked, answered = connected(self.session, "validator").labels.add(
            len(keys) * len(objects), sum(len(keys) - len(labels.unanswered) for labels in out))
        check_usable(affordance, asked, answered, self.where)
        return out

    def _batched(self, objects: Sequence[ObjectRecord], keys: Sequence[str]) -> dict[str, dict[str, bool]]:
        """Object id -> the labels the requests about ``batch`` objects each gave (possibly incomplete)."""
        chunks = [objects[i: i + self.batch] for i in range(0, len(objects), self.batch)]
        requests = [self._batch_request(chunk, keys) for chunk in chunks]
        budget = max(self.max_tokens, self.max_tokens_per_object * self.batch)
        replies = connected(self.session, "validator").ask_json_many("validator", requests, max_tokens=budget,
                                                                     schema=BATCH_SCHEMA, prompt="validator_batch")
        found: dict[str, dict[str, bool]] = {}
        for chunk, reply in zip(chunks, replies):
            labels = (reply.data or {}).get("labels")
            by_id = {str(k).strip(): v for k, v in labels.items()} if isinstance(labels, dict) else {}
            for obj in chunk:
                entry = by_id.get(obj.id)
                found[obj.id] = self._answers({"labels": entry}, keys) if isinstance(entry, dict) else {}
        return found

    def _one_by_one(self, objects: Sequence[ObjectRecord], keys: Sequence[str],
                    known: dict[str, dict[str, bool]]) -> list[dict[str, bool]]:
        """Each object's labels from a request about it alone (and its repairs), on top of those ``known``."""
        requests = [self._request(obj, keys) for obj in objects]
        replies = connected(self.session, "validator").ask_json_many("validator", requests, max_tokens=self.max_tokens,
                                                                     schema=LABEL_SCHEMA)
        out = []
        for obj, request, reply in zip(objects, requests, replies):
            answers = {**self._answers(reply.data, keys), **known.get(obj.id, {})}
            for _ in range(self.repair_attempts):
                missing = [k for k in keys if k not in answers]
                if not missing:
                    break
                note = (
                    f"Your reply did not label {', '.join(missing)} with YES or NO"
                    + (f" ({reply.error})" if reply.error else "")
                    + '. Reply with {"labels": {...}} only.'
                )
                reply = connected(self.session, "validator").ask_json(
                    "validator", request, feedback=(note,), max_tokens=self.max_tokens, schema=LABEL_SCHEMA
                )
                answers.update({k: v for k, v in self._answers(reply.data, keys).items() if k not in answers})
            out.append(answers)
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
    def _batch_request(objects: Sequence[ObjectRecord], keys: Sequence[str]) -> str:
        return (
            "Objects:\n"
            + "\n".join(describe_object(obj) for obj in objects)
            + "\nLabel each property YES or NO for each object (keys: the object ids "
            + ", ".join(obj.id for obj in objects)
            + "):\n"
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
        return {k: answer for k in keys if (answer := found.get(k.upper())) is not None}
