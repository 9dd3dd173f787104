"""Oracles: they know the hidden object and answer each accepted question with Yes or No.

``kb``: symbolic, answers the checked ``(PREDICATE, value)`` pair from the object's properties and parts with the
vocabulary taxonomy (the domain core's ``has_property``, the single truth shared with metrics and the Validator).
``llm``: prompted with the object's description and properties; only its first Yes/No word counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from kari.core.benchmark import ObjectRecord
from kari.domain.objects import has_property
from kari.game.types import Question
from kari.vocab.vocabulary import Vocabulary
from kari.core.game_names import OracleKind
from kari.errors import KariError, unknown
from kari.llm import load_prompt

if TYPE_CHECKING:
    from kari.llm.client import ChatClient

ORACLE_MAX_TOKENS = 20
PLAYED_ORACLES = (OracleKind.KB, OracleKind.LLM)
"""The Oracles ``kari play`` plays (a person answers only in ``kari serve --mode oracle``)."""
_YES_NO = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class OracleReply:
    """The answer and, for an LLM Oracle, its raw text."""

    value: bool
    raw: str | None = None


class Oracle(Protocol):
    def answer(self, hidden: ObjectRecord, question: str, pair: Question) -> OracleReply:
        """Answer ``question`` (checked as ``pair``) about ``hidden``."""
        ...


class KBOracle:
    """Answers from the hidden object's property set, parts and the is-a taxonomy."""

    name = OracleKind.KB

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab

    def answer(self, hidden: ObjectRecord, question: str, pair: Question) -> OracleReply:
        return OracleReply(bool(has_property(hidden, pair[0], pair[1], self.vocab)))


def question_text(question: str, pair: Question) -> str:
    """Natural text for a question: structured ``DIMENSION:value`` questions are rendered, text is kept."""
    if "?" in question or " " in question.strip():
        return question
    predicate, value = pair
    words = value.replace("_", " ")
    return {
        "MADE_OF": f"Is it (or any part of it) made of {words}?",
        "SHAPE": f"Is it (or any part of it) {words} in shape?",
        "SIZE": f"Is it (or any part of it) {words} in size?",
        "SURFACE": f"Is its surface (or the surface of any part) {words}?",
    }.get(predicate, question)


def describe_object(obj: ObjectRecord) -> str:
    """The object's properties as prompt lines: ``- PREDICATE: value (part)``."""
    lines = [f"- {p.predicate}: {p.value.replace('_', ' ')}" + ("" if p.part == "whole" else f" ({p.part})")
             for p in obj.properties]
    if obj.parts:
        lines.append("- parts: " + ", ".join(obj.parts))
    return "\n".join(lines) or "- (no recorded properties)"


def parse_yes_no(text: str) -> bool | None:
    """The first Yes/No word of ``text`` (None when there is none)."""
    found = _YES_NO.search(text or "")
    return None if found is None else found.group(1).lower() == "yes"


class LLMOracle:
    """An LLM prompted with the hidden object; a reply without Yes/No counts as No (raw text kept)."""

    name = OracleKind.LLM

    def __init__(self, client: ChatClient) -> None:
        self.client = client

    def answer(self, hidden: ObjectRecord, question: str, pair: Question) -> OracleReply:
        system = load_prompt("oracle").render(object_name=hidden.id.replace("_", " "),
                               description=hidden.description or "(none)", properties=describe_object(hidden))
        messages = [{"role": "system", "content": system}, {"role": "user", "content": question_text(question, pair)}]
        reply = self.client.chat(messages, max_tokens=ORACLE_MAX_TOKENS, temperature=0.0, role="oracle")
        return OracleReply(bool(parse_yes_no(reply.text)), reply.text)


def make_oracle(name: str, vocab: Vocabulary, client: ChatClient | None = None) -> Oracle:
    """``kb`` or ``llm`` (the latter needs a chat client)."""
    if name == OracleKind.KB:
        return KBOracle(vocab)
    if name == OracleKind.LLM:
        if client is None:
            raise KariError("the llm Oracle needs an LLM endpoint (--model / --base-url)", code="game-config")
        return LLMOracle(client)
    if name == OracleKind.HUMAN:
        raise KariError("a person answers as Oracle only in a study: kari serve --mode oracle", code="game-config")
    raise unknown("oracle", name, PLAYED_ORACLES, code="game-config")
