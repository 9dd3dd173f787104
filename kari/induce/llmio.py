"""The induction loop's one door to a chat model: prompt files, JSON replies, the call log.

Every role (proposer, validator, auditor) asks through :meth:`LLMSession.ask_json`; a reply that is not a JSON
object comes back as ``data=None`` with the reason, never as an exception, so callers can repair or drop it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kari.llm import extract_json_object, load_prompt
from kari.llm.config import DEFAULT_MAX_TOKENS
from kari.llm.types import ChatRequest

ROLES = ("proposer", "validator", "auditor")


@dataclass(frozen=True)
class JSONReply:
    """A parsed reply: ``data`` is the JSON object, or None with ``error`` saying why."""

    data: dict[str, Any] | None
    text: str
    error: str | None = None
    cached: bool = False


class LLMSession:
    """A chat client plus the induction prompts and the run's call log."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.prompts = {role: load_prompt(role) for role in ROLES}

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
    ) -> JSONReply:
        """Send the role's system prompt, ``request`` and any repair ``feedback``; parse one JSON object."""
        reply = self.client.chat(
            self._messages(role, request, feedback),
            max_tokens=max_tokens,
            temperature=0.0,
            json_schema=schema,
            role=role,
        )
        return _parse(reply)

    def ask_json_many(
        self, role: str, requests: Sequence[str], *, max_tokens: int = DEFAULT_MAX_TOKENS,
        schema: Mapping[str, Any] | None = None
    ) -> list[JSONReply]:
        """Several independent requests of one role (sent concurrently by the client)."""
        batch = [ChatRequest(self._messages(role, r, ()), max_tokens, 0.0, schema, role) for r in requests]
        return [_parse(reply) for reply in self.client.chat_many(batch)]

    def _messages(self, role: str, request: str, feedback: Sequence[str]) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": self.prompts[role].text}, {"role": "user", "content": request}]
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
