"""The induction loop's one door to a chat model: prompt files, JSON replies, the calls each rule made.

Every role (proposer, validator, auditor) asks through :meth:`LLMSession.ask_json`; a reply that is not a JSON
object comes back as ``data=None`` with the reason, never as an exception, so callers can repair or drop it.
:meth:`LLMSession.for_affordance` gives one affordance's view of the session: its calls are tagged with the
affordance in the call log and counted in its own :class:`CallTally` (the rule's calls and tokens per role, cache
hits included, so the count is the same for any concurrency, shard or resume). While a request waits on the
server, the session lets go of the run's local work (``waiting``: :class:`kari.induce.workers.LocalWork`), so other
affordances compute meanwhile.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kari.errors import KariError
from kari.llm import extract_json_object, load_prompt
from kari.llm.config import DEFAULT_MAX_TOKENS
from kari.llm.types import ChatRequest

if TYPE_CHECKING:
    from kari.llm.client import ChatClient

ROLES = ("proposer", "validator", "auditor")
PROMPTS = (*ROLES, "validator_batch")
"""The prompt files the loop uses: one per role, and the Validator's for several objects per request."""


@dataclass(frozen=True)
class JSONReply:
    """A parsed reply: ``data`` is the JSON object, or None with ``error`` saying why."""

    data: dict[str, Any] | None
    text: str
    error: str | None = None
    cached: bool = False


class CallTally:
    """Calls, prompt tokens and completion tokens per role (thread-safe), as one rule's ``llm`` record holds them."""

    FIELDS = ("calls", "prompt_tokens", "completion_tokens")

    def __init__(self) -> None:
        self._counts: dict[str, dict[str, int]] = {}
        self._lock = threading.Lock()

    def add(self, role: str, reply: Any) -> None:
        with self._lock:
            row = self._counts.setdefault(role, dict.fromkeys(self.FIELDS, 0))
            row["calls"] += 1
            row["prompt_tokens"] += int(reply.prompt_tokens)
            row["completion_tokens"] += int(reply.completion_tokens)

    def to_json(self) -> dict[str, dict[str, int]]:
        """Role -> {calls, prompt_tokens, completion_tokens}, roles in :data:`ROLES` order."""
        with self._lock:
            return {role: dict(self._counts[role]) for role in sorted(self._counts, key=_role_rank)}


class LabelTally:
    """The atom labels a run's Validator was asked and those it answered with a usable YES or NO, over every
    affordance of the run (thread-safe; shared by :meth:`LLMSession.for_affordance`)."""

    def __init__(self) -> None:
        self.asked = 0
        self.answered = 0
        self._lock = threading.Lock()

    def add(self, asked: int, answered: int) -> tuple[int, int]:
        """Count ``asked`` labels, ``answered`` of them usable; the run's totals so far."""
        with self._lock:
            self.asked += asked
            self.answered += answered
            return self.asked, self.answered


def _role_rank(role: str) -> tuple[int, str]:
    return (ROLES.index(role) if role in ROLES else len(ROLES), role)


def no_wait() -> AbstractContextManager[None]:
    return nullcontext()


class LLMSession:
    """A chat client plus the induction prompts, the affordance asked about and its tally."""

    def __init__(self, client: ChatClient, *, waiting: Callable[[], AbstractContextManager[Any]] = no_wait,
                 affordance: str = "", tally: CallTally | None = None,
                 prompts: Mapping[str, Any] | None = None, labels: LabelTally | None = None) -> None:
        self.client = client
        self.prompts = dict(prompts) if prompts is not None else {name: load_prompt(name) for name in PROMPTS}
        self.waiting = waiting
        self.affordance = affordance
        self.tally = tally if tally is not None else CallTally()
        self.labels = labels if labels is not None else LabelTally()

    def for_affordance(self, affordance: str) -> LLMSession:
        """The same client, prompts and Validator label tally, asking about ``affordance`` with a call tally of
        its own."""
        return LLMSession(self.client, waiting=self.waiting, affordance=affordance, prompts=self.prompts,
                          labels=self.labels)

    def prompt_versions(self) -> dict[str, str]:
        """Prompt name -> version (recorded in the run manifest)."""
        return {role: str(p.version) for role, p in self.prompts.items()}

    def ask_json(
        self,
        role: str,
        request: str,
        *,
        feedback: Sequence[str] = (),
        max_tokens: int = DEFAULT_MAX_TOKENS,
        schema: Mapping[str, Any] | None = None,
        prompt: str | None = None,
    ) -> JSONReply:
        """Send the system prompt of ``role`` (or of ``prompt``), ``request`` and any repair ``feedback``; parse
        one JSON object."""
        messages = self._messages(prompt or role, request, feedback)
        with self.waiting():
            reply = self.client.chat(messages, max_tokens=max_tokens, temperature=0.0, json_schema=schema, role=role,
                                     tag=self.affordance)
        self.tally.add(role, reply)
        return _parse(reply)

    def ask_json_many(
        self, role: str, requests: Sequence[str], *, max_tokens: int = DEFAULT_MAX_TOKENS,
        schema: Mapping[str, Any] | None = None, prompt: str | None = None
    ) -> list[JSONReply]:
        """Several independent requests of one role (sent concurrently by the client)."""
        batch = [ChatRequest(self._messages(prompt or role, r, ()), max_tokens, 0.0, schema, role, self.affordance)
                 for r in requests]
        with self.waiting():
            replies = self.client.chat_many(batch)
        for reply in replies:
            self.tally.add(role, reply)
        return [_parse(reply) for reply in replies]

    def _messages(self, prompt: str, request: str, feedback: Sequence[str]) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": self.prompts[prompt].text}, {"role": "user", "content": request}]
        return messages + [{"role": "user", "content": note} for note in feedback]


def _parse(reply: Any) -> JSONReply:
    """The JSON object in a reply, or the reason there is none."""
    try:
        data = extract_json_object(reply.text)
    except Exception as exc:  # noqa: BLE001 - junk replies are data for the repair loop
        return JSONReply(None, reply.text, f"the reply is not a JSON object ({exc})", reply.cached)
    if not isinstance(data, dict):
        return JSONReply(None, reply.text, "the reply is not a JSON object", reply.cached)
    return JSONReply(data, reply.text, None, reply.cached)


def connected(session: LLMSession | None, role: str) -> LLMSession:
    """``session``, which the LLM ``role`` cannot ask without (a role built for its limits alone, as the cost
    estimate of ``kari induce --dry-run`` builds them, has none): a ``llm-config`` error when None."""
    if session is None:
        raise KariError(f"the LLM {role} has no LLM session (it was built for its limits only)", code="llm-config")
    return session
