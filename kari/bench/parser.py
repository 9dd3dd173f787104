"""The one parser of a benchmark directory: every line checked and read into typed records in one pass.

Structural checks (problems): each line is a JSON object with the right fields and types; ids are unique and
resolve; property predicates are the four kari predicates, on ``whole`` or a listed part; labels are not
contradictory; every game id is unique and every game has 8 distinct candidates, its target labelled true for
its object and every distractor labelled false (never unknown, never true). A problem is *fatal* when its line
cannot be read into a typed record at all (bad JSON, a field of the wrong type).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kari.core.benchmark import Affordance, Game, Label, ObjectRecord, Property
from kari.bench.records import Problem, ValidationReport, check_property, checked_field, read_jsonl
from kari.core.terms import WHOLE

N_CANDIDATES = 8
_SNAKE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*$")


class Parser:
    """Reads the four files of ``root`` in order, collecting problems and the records they hold."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.report = ValidationReport(root)
        self.objects: dict[str, ObjectRecord] = {}  # by id, as a reader keeps them (a repeated id: the last line)
        self.lines: list[ObjectRecord] = []  # one per objects.jsonl line, its well-formed properties (the notes)
        self.parts: dict[str, set[str]] = {}  # id -> parts, of the first line of each id (the checks)
        self.affordances: dict[str, Affordance] = {}
        self.labels: list[Label] = []
        self.label_of: dict[tuple[str, str], bool] = {}
        self.games: list[Game] = []

    def problem(self, name: str, line: int, code: str, message: str, fatal: bool = False) -> None:
        self.report.problems.append(Problem(str(self.root / name), line, code, message, fatal))

    def records(self, name: str) -> Iterator[tuple[int, dict[str, Any]]]:
        count = 0
        for number, record in read_jsonl(self.root / name, lambda line, code, text: self.problem(
                name, line, code, text, fatal=True)):
            count += 1
            yield number, record
        self.report.counts[name] = count

    def field(self, name: str, line: int, record: dict[str, Any], key: str, kind: type) -> Any:
        """``record[key]`` when it is a (non-empty, for strings) ``kind``, else None and a problem (fatal when
        the value is not even a ``kind``)."""
        value, message = checked_field(record, key, kind)
        if message:
            self.problem(name, line, "schema", message, fatal=not isinstance(value, kind))
        return None if message else value

    def unique(self, name: str, line: int, seen: set[str], ident: str) -> bool:
        if ident in seen:
            self.problem(name, line, "duplicate-id", f"id {ident!r} appears more than once")
            return False
        seen.add(ident)
        return True

    # --- files ------------------------------------------------------------------------------------------------
    def read_objects(self) -> None:
        name = "objects.jsonl"
        for line, rec in self.records(name):
            ident = self.field(name, line, rec, "id", str)
            parts = rec.get("parts", [])
            if not isinstance(parts, list) or not all(isinstance(p, str) and p for p in parts):
                self.problem(name, line, "schema", "field 'parts' must be a list of non-empty strings",
                             fatal=not isinstance(parts, list) or not all(isinstance(p, str) for p in parts))
                parts = [p for p in parts if isinstance(p, str) and p] if isinstance(parts, list) else []
            if WHOLE in parts:
                self.problem(name, line, "part", f"{WHOLE!r} is reserved and cannot be a part name")
            description = rec.get("description", "")
            if "description" in rec and not isinstance(description, str):
                self.problem(name, line, "schema", "field 'description' must be a string")
            props = self.field(name, line, rec, "properties", list) or []
            if ident is not None and self.unique(name, line, set(self.parts), ident):
                self.parts[ident] = set(parts)
            seen: set[tuple[str, str, str]] = set()
            good = [prop for index, item in enumerate(props)
                    if (prop := self.read_property(name, line, index, item, set(parts), seen)) is not None]
            source = f"{self.root / name}:{line}"
            self.lines.append(ObjectRecord(ident or f"line {line}", parts=tuple(parts), properties=tuple(good),
                                           source=source))
            if ident is not None:
                self.objects[ident] = ObjectRecord(ident, description if isinstance(description, str) else "",
                                                   tuple(parts), tuple(good), source=source)

    def read_property(self, name: str, line: int, index: int, item: Any, parts: set[str],
                      seen: set[tuple[str, str, str]]) -> Property | None:
        """One property, when it is well-formed; else None and its problems."""
        prop, problems = check_property(item, index, parts, seen)
        for code, message, fatal in problems:
            self.problem(name, line, code, message, fatal)
        return prop

    def read_affordances(self) -> None:
        name = "affordances.jsonl"
        for line, rec in self.records(name):
            ident = self.field(name, line, rec, "id", str)
            if ident is None:
                continue
            if not _SNAKE.match(ident):
                self.problem(name, line, "affordance-id", f"affordance id {ident!r} is not snake_case")
            description = rec.get("description", "")
            if self.unique(name, line, set(self.affordances), ident) and not isinstance(description, str):
                self.problem(name, line, "schema", "field 'description' must be a string")
            self.affordances[ident] = Affordance(ident, description if isinstance(description, str) else "")

    def read_labels(self) -> None:
        name = "labels.jsonl"
        for line, rec in self.records(name):
            obj, aff = self.field(name, line, rec, "object", str), self.field(name, line, rec, "affordance", str)
            truth = rec.get("label")
            if not isinstance(truth, bool):
                self.problem(name, line, "schema", "field 'label' must be true or false", fatal=True)
            if obj is not None and obj not in self.parts:
                self.problem(name, line, "unknown-object", f"object {obj!r} is not in objects.jsonl")
            if aff is not None and aff not in self.affordances:
                self.problem(name, line, "unknown-affordance", f"affordance {aff!r} is not in affordances.jsonl")
            if obj is None or aff is None or not isinstance(truth, bool):
                continue
            self.labels.append(Label(obj, aff, truth))
            previous = self.label_of.get((obj, aff))
            if previous is not None:
                code = "duplicate-label" if previous == truth else "conflicting-label"
                self.problem(name, line, code, f"({obj}, {aff}) is labelled more than once")
            else:
                self.label_of[(obj, aff)] = truth

    def read_games(self) -> None:
        name = "games.jsonl"
        ids: set[str] = set()
        for line, rec in self.records(name):
            ident = self.field(name, line, rec, "id", str)
            obj, target = self.field(name, line, rec, "object", str), self.field(name, line, rec, "target", str)
            candidates = self.field(name, line, rec, "candidates", list)
            if ident is not None:
                self.unique(name, line, ids, ident)
            if candidates is not None and not all(isinstance(c, str) for c in candidates):
                self.problem(name, line, "schema", "field 'candidates' must be a list of strings", fatal=True)
                candidates = None
            if None not in (ident, obj, target, candidates):
                self.games.append(Game(ident, obj, target, tuple(candidates)))
            if obj is not None and obj not in self.parts:
                self.problem(name, line, "unknown-object", f"object {obj!r} is not in objects.jsonl")
                obj = None
            if candidates is not None:
                self.check_game(name, line, obj, target, candidates)

    def check_game(self, name: str, line: int, obj: str | None, target: str | None, candidates: list[str]) -> None:
        """The candidates of one game: 8 distinct known affordances, the target true and the distractors false."""
        if len(candidates) != N_CANDIDATES or len(set(candidates)) != len(candidates):
            self.problem(name, line, "candidates", f"expected {N_CANDIDATES} distinct candidates, got "
                         f"{len(candidates)} ({len(set(candidates))} distinct)")
        for cand in sorted(set(candidates) - set(self.affordances)):
            self.problem(name, line, "unknown-affordance", f"candidate {cand!r} is not in affordances.jsonl")
        if target is None:
            return
        if target not in candidates:
            self.problem(name, line, "target-not-candidate", f"target {target!r} is not among the candidates")
        if obj is None:
            return
        if self.label_of.get((obj, target)) is not True:
            state = {False: "labelled false", None: "unlabelled"}[self.label_of.get((obj, target))]
            self.problem(name, line, "target-label", f"target {target!r} is {state} for {obj!r}, not true")
        for cand in sorted(set(candidates) - {target}):
            if cand in self.affordances and self.label_of.get((obj, cand)) is not False:
                state = {True: "labelled true", None: "unlabelled"}[self.label_of.get((obj, cand))]
                self.problem(name, line, "distractor-label", f"distractor {cand!r} is {state} for {obj!r}, "
                             "must be labelled false")


