"""Checkers: map a question to ``(PREDICATE, value)`` pairs and flag FUNCTION / CATEGORY questions.

``symbolic``: a structured ``DIMENSION:value`` question passes straight through after vocabulary normalisation;
free text is scanned for vocabulary values and synonyms (longest phrase first), with dimension words ("made
of", "shape", "surface", ...) breaking ties, and a shipped cue list (``cues.tsv``) plus the candidates' verbs
flags FUNCTION and CATEGORY questions. ``llm``: an LLM returns the pairs and the flag as JSON.
A question is accepted only when it is unflagged and probes exactly one property (method.md 3).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Protocol

from kari.errors import KariError, unknown
from kari.game.types import CheckResult, Question
from kari.core.terms import PREDICATES, PREDICATE_OF_DIMENSION
from kari.core.terms import normalise_term
from kari.vocab.vocabulary import Vocabulary
from kari.core.game_names import FLAGS, CheckerKind
from kari.llm import extract_json_object, load_prompt

if TYPE_CHECKING:
    from kari.llm.client import ChatClient

CHECKER_MAX_TOKENS = 50
_STRUCTURED = re.compile(r"^\s*([A-Za-z_]+)\s*:\s*([^?:]+?)\s*\??\s*$")
_WORD = re.compile(r"[a-z0-9]+")
_MAX_NGRAM = 4
# Words never read as property values in free text (dimension names and question scaffolding).
_SKIP = frozenset("a an and any are as be by can could do does for from has have how in is it its made material "
                  "materials of on or part parts shape shaped size sized surface texture the this to what which "
                  "with would object thing".split())
_LOCATORS = frozenset("the its their this that".split())  # "the handle", "its blade": the subject, a part
_CONTEXT = {
    "MADE_OF": ("made of", "made from", "made out of", "material", "consist", "composed"),
    "SHAPE": ("shape", "shaped", "form"),
    "SIZE": ("size", "sized", "dimension", "how big"),
    "SURFACE": ("surface", "texture", "feel", "touch"),
}


class Checker(Protocol):
    def check(self, question: str, candidates: Sequence[str] = ()) -> CheckResult:
        """The Checker's verdict on ``question`` in a game with ``candidates``."""
        ...


def predicate_of_dimension(name: str) -> str | None:
    """``MATERIAL``/``MADE_OF`` -> ``MADE_OF``; ``SHAPE`` -> ``SHAPE`` ...; None for anything else."""
    upper = name.strip().upper()
    if upper in PREDICATES:
        return upper
    return PREDICATE_OF_DIMENSION.get(upper)


@lru_cache(maxsize=1)
def load_cues() -> tuple[tuple[str, str], ...]:
    """The shipped ``(FLAG, cue phrase)`` list."""
    text = resources.files("kari.game").joinpath("cues.tsv").read_text(encoding="utf-8")
    cues = []
    for number, line in enumerate(text.splitlines()[1:], start=2):
        if not line.strip() or line.startswith("#"):
            continue
        kind, _, cue = line.partition("\t")
        if kind not in FLAGS or not cue.strip():
            raise KariError("expected FUNCTION|CATEGORY<TAB>cue", file="kari/game/cues.tsv", line=number, code="cues")
        cues.append((kind, cue.strip().lower()))
    return tuple(cues)


class SymbolicChecker:
    """Vocabulary-driven Checker for structured and free-text questions."""

    name = CheckerKind.SYMBOLIC

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self.cues = [(kind, re.compile(r"\b" + re.escape(cue) + r"\b")) for kind, cue in load_cues()]

    def check(self, question: str, candidates: Sequence[str] = ()) -> CheckResult:
        text = (question or "").strip()
        if not text:
            return CheckResult((), reason="empty question")
        structured = _STRUCTURED.match(text)
        if structured and " " not in structured.group(1):
            return self._structured(structured.group(1), structured.group(2))
        lower = " ".join(_WORD.findall(text.lower()))
        flag = self._flag(lower, candidates)
        pairs = self.extract(lower)
        if flag:
            return CheckResult(pairs, flag=flag)
        if not pairs:
            return CheckResult((), reason="no physical property recognised")
        if len(pairs) > 1:
            return CheckResult(pairs, reason="compound question (more than one property)")
        return CheckResult(pairs)

    def _structured(self, dimension: str, raw_value: str) -> CheckResult:
        if dimension.upper() in FLAGS:
            return CheckResult((), flag=dimension.upper())
        predicate = predicate_of_dimension(dimension)
        if predicate is None:
            return CheckResult((), reason=f"unknown dimension {dimension!r}")
        value = self.vocab.normalise(predicate, raw_value)
        if value is None:
            return CheckResult((), reason=f"unknown {predicate} value {normalise_term(raw_value)!r}")
        return CheckResult((Question(predicate, value),))

    def _flag(self, lower: str, candidates: Sequence[str]) -> str | None:
        for kind, pattern in self.cues:
            if pattern.search(lower):
                return kind
        words = set(lower.split())
        for cand in candidates:
            verb = normalise_term(cand).split("_")[0]
            if len(verb) > 2 and words & _inflections(verb):
                return "FUNCTION"
        return None

    def extract(self, lower: str) -> tuple[Question, ...]:
        """Every ``(PREDICATE, value)`` named in lower-cased ``lower``, longest phrases first, no overlaps.

        A part named as the subject of a question about another property ("is THE HANDLE made of plastic?",
        "is ITS blade sharp?") locates the property rather than asking about the part: such a SHAPE pair is
        dropped when another property is asked."""
        words = lower.split()
        preferred = [p for p in PREDICATES if any(re.search(r"\b" + c + r"\b", lower) for c in _CONTEXT[p])]
        taken = [False] * len(words)
        found: list[tuple[int, Question]] = []
        for size in range(min(_MAX_NGRAM, len(words)), 0, -1):
            for start in range(len(words) - size + 1):
                if any(taken[start:start + size]):
                    continue
                phrase = words[start:start + size]
                if size == 1 and phrase[0] in _SKIP:
                    continue
                pair = self._lookup("_".join(phrase), preferred)
                if pair is not None:
                    found.append((start, pair))
                    taken[start:start + size] = [True] * size
        located = {pair for start, pair in found
                   if pair[0] == "SHAPE" and (words[start] in _LOCATORS or start > 0 and words[start - 1] in _LOCATORS)}
        if len({pair for _, pair in found} - located) >= 1:
            found = [(start, pair) for start, pair in found if pair not in located]
        out: list[Question] = []
        for _, pair in sorted(found):
            if pair not in out:
                out.append(pair)
        return tuple(out)

    def _lookup(self, term: str, preferred: Sequence[str]) -> Question | None:
        for variant in (term, term[:-1] if term.endswith("s") and len(term) > 3 else None):
            if not variant:
                continue
            hits = [Question(p, v) for p in PREDICATES if (v := self.vocab.normalise(p, variant)) is not None]
            if hits:
                return next((h for h in hits if h[0] in preferred), hits[0])
        return None


def _inflections(verb: str) -> set[str]:
    stem = verb[:-1] if verb.endswith("e") else verb
    return {verb, verb + "s", verb + "es", stem + "ing", stem + "ed", verb + "d", verb + verb[-1] + "ing"}


CHECKER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pairs": {"type": "array", "items": {"type": "object", "properties": {
            "dimension": {"type": "string", "enum": ["MATERIAL", "SHAPE", "SIZE", "SURFACE"]},
            "value": {"type": "string"}}, "required": ["dimension", "value"]}},
        "flag": {"type": "string", "enum": ["NONE", "FUNCTION", "CATEGORY"]},
    },
    "required": ["pairs", "flag"],
}


class LLMChecker:
    """An LLM maps the question to JSON ``{"pairs": [{"dimension", "value"}], "flag"}``; junk is a rejection."""

    name = CheckerKind.LLM

    def __init__(self, client: ChatClient, vocab: Vocabulary) -> None:
        self.client = client
        self.vocab = vocab

    def check(self, question: str, candidates: Sequence[str] = ()) -> CheckResult:
        system = load_prompt("checker").render()
        messages = [{"role": "system", "content": system}, {"role": "user", "content": question}]
        reply = self.client.chat(messages, max_tokens=CHECKER_MAX_TOKENS, temperature=0.0, json_schema=CHECKER_SCHEMA,
                                 role="checker")
        parsed = _safe_json(extract_json_object, reply.text)
        if not isinstance(parsed, dict):
            return CheckResult((), reason="checker reply is not JSON", raw=reply.text)
        flag = str(parsed.get("flag") or "NONE").upper()
        pairs: list[Question] = []
        for item in parsed.get("pairs") or []:
            if not isinstance(item, dict):
                continue
            predicate = predicate_of_dimension(str(item.get("dimension", "")))
            raw_value = str(item.get("value", "")).strip()
            if predicate is None or not raw_value:
                continue
            pair = Question(predicate, self.vocab.normalise(predicate, raw_value) or normalise_term(raw_value))
            if pair not in pairs:
                pairs.append(pair)
        if flag in FLAGS:
            return CheckResult(tuple(pairs), flag=flag, raw=reply.text)
        if not pairs:
            return CheckResult((), reason="no physical property recognised", raw=reply.text)
        if len(pairs) > 1:
            return CheckResult(tuple(pairs), reason="compound question (more than one property)", raw=reply.text)
        return CheckResult(tuple(pairs), raw=reply.text)


def _safe_json(extract: Any, text: str) -> Any:
    try:
        return extract(text)
    except (KariError, ValueError):
        return None


def make_checker(name: str, vocab: Vocabulary, client: ChatClient | None = None) -> Checker:
    """``symbolic`` or ``llm`` (the latter needs a chat client)."""
    if name == CheckerKind.SYMBOLIC:
        return SymbolicChecker(vocab)
    if name == CheckerKind.LLM:
        if client is None:
            raise KariError("the llm Checker needs an LLM endpoint (--model / --base-url)", code="game-config")
        return LLMChecker(client, vocab)
    raise unknown("checker", name, CheckerKind, code="game-config")
