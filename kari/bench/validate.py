"""Check a benchmark directory and report every problem with its file and line.

Structural checks (problems): each line is a JSON object with the right fields and types; ids are unique and
resolve; property predicates are the four kari predicates, on ``whole`` or a listed part; labels are not
contradictory; every game id is unique and every game has 8 distinct candidates, its target labelled true for
its object and every distractor labelled false (never unknown, never true).

Vocabulary findings are not problems: every value and part name is read through the vocabulary
(:mod:`kari.domain.canon`) and the report counts the words that were canonical, mapped (synonyms, word forms),
added as new values, or banned (never facts); ``kari bench validate`` prints them as notes.

Unreadable input (a missing directory or file, bad UTF-8) raises :class:`KariError` (exit 2); everything else is
collected as a :class:`Problem` so one run shows them all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kari.bench.model import ObjectRecord, Property

from kari.bench.reader import read_jsonl
from kari.domain.canon import CanonReport, canonical_objects
from kari.domain.terms import PREDICATES, WHOLE
from kari.domain.vocabulary import Vocabulary
from kari.errors import KariError

N_CANDIDATES = 8
_SNAKE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*$")


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem at ``file:line``."""

    file: str
    line: int
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.code}: {self.message}"


@dataclass
class ValidationReport:
    """Every structural problem found, how many records of each file were read, and how the words were read."""

    root: Path
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    words: CanonReport = field(default_factory=CanonReport)

    @property
    def ok(self) -> bool:
        return not self.problems


class _Checker:
    def __init__(self, root: Path, vocab: Vocabulary) -> None:
        self.root, self.vocab = root, vocab
        self.report = ValidationReport(root)
        self.objects: dict[str, set[str]] = {}  # id -> parts
        self.object_records: list[ObjectRecord] = []  # well-formed properties, for the vocabulary notes
        self.affordances: set[str] = set()
        self.labels: dict[tuple[str, str], bool] = {}

    def problem(self, name: str, line: int, code: str, message: str) -> None:
        self.report.problems.append(Problem(str(self.root / name), line, code, message))

    def records(self, name: str) -> Iterator[tuple[int, dict[str, Any]]]:
        def report(error: KariError) -> None:
            column = f" (column {error.col})" if error.col is not None else ""
            self.problem(name, error.line or 0, "json", error.message + column)

        count = 0
        for number, record in read_jsonl(self.root / name, on_error=report):
            count += 1
            yield number, record
        self.report.counts[name] = count

    def field(self, name: str, line: int, record: dict[str, Any], key: str, kind: type) -> Any:
        value = record.get(key)
        if not isinstance(value, kind) or (kind is str and not value):
            self.problem(name, line, "schema", f"field {key!r} must be a non-empty {kind.__name__}"
                         if kind is str else f"field {key!r} must be a {kind.__name__}")
            return None
        return value

    def unique(self, name: str, line: int, seen: set[str], ident: str) -> bool:
        if ident in seen:
            self.problem(name, line, "duplicate-id", f"id {ident!r} appears more than once")
            return False
        seen.add(ident)
        return True

    # --- files ------------------------------------------------------------------------------------------------
    def check_objects(self) -> None:
        name = "objects.jsonl"
        for line, rec in self.records(name):
            ident = self.field(name, line, rec, "id", str)
            parts = rec.get("parts", [])
            if not isinstance(parts, list) or not all(isinstance(p, str) and p for p in parts):
                self.problem(name, line, "schema", "field 'parts' must be a list of non-empty strings")
                parts = []
            if WHOLE in parts:
                self.problem(name, line, "part", f"{WHOLE!r} is reserved and cannot be a part name")
            if "description" in rec and not isinstance(rec["description"], str):
                self.problem(name, line, "schema", "field 'description' must be a string")
            props = self.field(name, line, rec, "properties", list) or []
            if ident is not None and self.unique(name, line, set(self.objects), ident):
                self.objects[ident] = set(parts)
            seen: set[tuple[str, str, str]] = set()
            good = [Property(*key) for index, prop in enumerate(props)
                    if (key := self.check_property(name, line, index, prop, set(parts), seen)) is not None]
            self.object_records.append(ObjectRecord(ident or f"line {line}", parts=tuple(parts), properties=tuple(good),
                                             source=f"{self.root / name}:{line}"))

    def check_property(self, name: str, line: int, index: int, prop: Any, parts: set[str],
                       seen: set[tuple[str, str, str]]) -> tuple[str, str, str] | None:
        """Report what is wrong with one property; its ``(part, predicate, value)`` when it is well-formed."""
        where = f"property {index}"
        if not isinstance(prop, dict) or not all(isinstance(prop.get(k), str) and prop.get(k)
                                                 for k in ("part", "predicate", "value")):
            self.problem(name, line, "schema", f"{where}: needs non-empty string fields part, predicate, value")
            return None
        part, predicate, value = prop["part"], prop["predicate"], prop["value"]
        if part != WHOLE and part not in parts:
            self.problem(name, line, "unknown-part", f"{where}: part {part!r} is not in the object's parts")
        if predicate not in PREDICATES:
            self.problem(name, line, "unknown-predicate", f"{where}: predicate {predicate!r} is not one of "
                         f"{', '.join(PREDICATES)}")
            return None
        if (part, predicate, value) in seen:
            self.problem(name, line, "duplicate-property", f"{where}: {part} {predicate}:{value} is listed twice")
        seen.add((part, predicate, value))
        return part, predicate, value

    def check_affordances(self) -> None:
        name = "affordances.jsonl"
        for line, rec in self.records(name):
            ident = self.field(name, line, rec, "id", str)
            if ident is None:
                continue
            if not _SNAKE.match(ident):
                self.problem(name, line, "affordance-id", f"affordance id {ident!r} is not snake_case")
            if self.unique(name, line, self.affordances, ident) and "description" in rec \
                    and not isinstance(rec["description"], str):
                self.problem(name, line, "schema", "field 'description' must be a string")

    def check_labels(self) -> None:
        name = "labels.jsonl"
        for line, rec in self.records(name):
            obj, aff = self.field(name, line, rec, "object", str), self.field(name, line, rec, "affordance", str)
            truth = rec.get("label")
            if not isinstance(truth, bool):
                self.problem(name, line, "schema", "field 'label' must be true or false")
            if obj is not None and obj not in self.objects:
                self.problem(name, line, "unknown-object", f"object {obj!r} is not in objects.jsonl")
            if aff is not None and aff not in self.affordances:
                self.problem(name, line, "unknown-affordance", f"affordance {aff!r} is not in affordances.jsonl")
            if obj is None or aff is None or not isinstance(truth, bool):
                continue
            previous = self.labels.get((obj, aff))
            if previous is not None:
                code = "duplicate-label" if previous == truth else "conflicting-label"
                self.problem(name, line, code, f"({obj}, {aff}) is labelled more than once")
            else:
                self.labels[(obj, aff)] = truth

    def check_games(self) -> None:
        name = "games.jsonl"
        ids: set[str] = set()
        for line, rec in self.records(name):
            ident = self.field(name, line, rec, "id", str)
            obj, target = self.field(name, line, rec, "object", str), self.field(name, line, rec, "target", str)
            candidates = self.field(name, line, rec, "candidates", list)
            if ident is not None:
                self.unique(name, line, ids, ident)
            if obj is not None and obj not in self.objects:
                self.problem(name, line, "unknown-object", f"object {obj!r} is not in objects.jsonl")
                obj = None
            if candidates is None:
                continue
            if not all(isinstance(c, str) for c in candidates):
                self.problem(name, line, "schema", "field 'candidates' must be a list of strings")
                continue
            if len(candidates) != N_CANDIDATES or len(set(candidates)) != len(candidates):
                self.problem(name, line, "candidates", f"expected {N_CANDIDATES} distinct candidates, got "
                             f"{len(candidates)} ({len(set(candidates))} distinct)")
            for cand in sorted(set(candidates) - self.affordances):
                self.problem(name, line, "unknown-affordance", f"candidate {cand!r} is not in affordances.jsonl")
            if target is None:
                continue
            if target not in candidates:
                self.problem(name, line, "target-not-candidate", f"target {target!r} is not among the candidates")
            if obj is None:
                continue
            if self.labels.get((obj, target)) is not True:
                state = {False: "labelled false", None: "unlabelled"}[self.labels.get((obj, target))]
                self.problem(name, line, "target-label", f"target {target!r} is {state} for {obj!r}, not true")
            for cand in sorted(set(candidates) - {target}):
                if cand in self.affordances and self.labels.get((obj, cand)) is not False:
                    state = {True: "labelled true", None: "unlabelled"}[self.labels.get((obj, cand))]
                    self.problem(name, line, "distractor-label", f"distractor {cand!r} is {state} for {obj!r}, "
                                 "must be labelled false")


def validate_bench(root: str | Path, vocab: Vocabulary | None = None, *, games: bool = True) -> ValidationReport:
    """Check the benchmark directory ``root``, reading its words through ``vocab`` (default: the shipped
    vocabulary, which learns the benchmark's new words); ``games=False`` skips ``games.jsonl`` (for commands
    that never play it)."""
    root = Path(root)
    if not root.is_dir():
        raise KariError("benchmark directory not found", file=str(root), code="missing-file")
    checker = _Checker(root, vocab if vocab is not None else Vocabulary.load())
    checker.check_objects()
    checker.check_affordances()
    checker.check_labels()
    if games:
        checker.check_games()
    checker.report.words = canonical_objects(checker.object_records, checker.vocab)[1]
    return checker.report


def require_valid(root: str | Path, vocab: Vocabulary, *, games: bool = True) -> ValidationReport:
    """:func:`validate_bench`, raising the first structural problem (with FILE:LINE and the count) as a
    :class:`KariError`: what every command that reads a benchmark runs first."""
    report = validate_bench(root, vocab, games=games)
    if report.problems:
        first = report.problems[0]
        more = f" (and {len(report.problems) - 1} more problems: run `kari bench validate`)" if len(report.problems) > 1 else ""
        raise KariError(first.message + more, file=first.file, line=first.line, code=first.code)
    return report
