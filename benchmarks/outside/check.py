"""Check that benchmark directories are structurally valid, and count how many of their words kari already knows.

    python benchmarks/outside/check.py DIR [DIR ...] [--vocab data/vocabulary]

Structural checks (each problem printed as ``FILE:LINE: code: message``; exit 1 if there is any): every line is
a JSON object with the documented fields; object, affordance and game ids are unique; a property's predicate is
one of MADE_OF, SHAPE, SIZE, SURFACE and its part is ``whole`` or one of the object's listed parts; labels name
known objects and affordances and never say both true and false; every game has 8 distinct known candidates,
its object is known, its target is among the candidates and labelled true for the object, and each of the
7 distractors is labelled false for it (never unknown).

Word census (never a failure; ``--no-vocab`` skips it): with ``--vocab`` (default: kari's data/vocabulary), each
distinct (predicate, value) is sorted into canonical (a value in values.tsv), synonym (synonyms.tsv), banned
(banned.tsv) or unknown (none of these, as written). Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

PREDICATES = ("MADE_OF", "SHAPE", "SIZE", "SURFACE")
N_CANDIDATES = 8
SNAKE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*$")


class Checker:
    """Collects problems for one benchmark directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.problems: list[str] = []
        self.objects: dict[str, dict] = {}
        self.affordances: set[str] = set()
        self.labels: dict[tuple[str, str], bool] = {}
        self.games: list[dict] = []

    def problem(self, name: str, line: int, code: str, message: str) -> None:
        self.problems.append(f"{self.root / name}:{line}: {code}: {message}")

    def records(self, name: str) -> Iterator[tuple[int, dict]]:
        path = self.root / name
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            self.problem(name, 0, "missing-file", "not found")
            return
        except (OSError, UnicodeDecodeError) as error:
            self.problem(name, 0, "unreadable", str(error))
            return
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                self.problem(name, number, "json", error.msg)
                continue
            if not isinstance(record, dict):
                self.problem(name, number, "json", "not a JSON object")
                continue
            yield number, record

    def string(self, name: str, line: int, record: dict, key: str) -> str | None:
        value = record.get(key)
        if not isinstance(value, str) or not value:
            self.problem(name, line, "schema", f"field {key!r} must be a non-empty string")
            return None
        return value

    def check_objects(self) -> None:
        name = "objects.jsonl"
        for line, rec in self.records(name):
            ident = self.string(name, line, rec, "id")
            parts = rec.get("parts", [])
            if not isinstance(parts, list) or not all(isinstance(p, str) and p for p in parts):
                self.problem(name, line, "schema", "field 'parts' must be a list of non-empty strings")
                parts = []
            if len(set(parts)) != len(parts):
                self.problem(name, line, "duplicate-part", "a part is listed twice")
            if "whole" in parts:
                self.problem(name, line, "part", "'whole' is reserved and cannot be a part name")
            props = rec.get("properties")
            if not isinstance(props, list):
                self.problem(name, line, "schema", "field 'properties' must be a list")
                props = []
            if ident is None:
                continue
            if ident in self.objects:
                self.problem(name, line, "duplicate-id", f"object {ident!r} appears more than once")
                continue
            self.objects[ident] = rec
            seen: set[tuple[str, str, str]] = set()
            for index, prop in enumerate(props):
                if not isinstance(prop, dict) or not all(isinstance(prop.get(k), str) and prop.get(k)
                                                         for k in ("part", "predicate", "value")):
                    self.problem(name, line, "schema", f"property {index}: needs string fields part, predicate, value")
                    continue
                key = (prop["part"], prop["predicate"], prop["value"])
                if prop["predicate"] not in PREDICATES:
                    self.problem(name, line, "unknown-predicate", f"property {index}: {prop['predicate']!r}")
                if prop["part"] != "whole" and prop["part"] not in parts:
                    self.problem(name, line, "unknown-part", f"property {index}: part {prop['part']!r} is not listed")
                if key in seen:
                    self.problem(name, line, "duplicate-property", f"property {index}: {key} is listed twice")
                seen.add(key)

    def check_affordances(self) -> None:
        name = "affordances.jsonl"
        for line, rec in self.records(name):
            ident = self.string(name, line, rec, "id")
            if ident is None:
                continue
            if not SNAKE.match(ident):
                self.problem(name, line, "affordance-id", f"{ident!r} is not snake_case")
            if ident in self.affordances:
                self.problem(name, line, "duplicate-id", f"affordance {ident!r} appears more than once")
            self.affordances.add(ident)
            if not isinstance(rec.get("description", ""), str):
                self.problem(name, line, "schema", "field 'description' must be a string")

    def check_labels(self) -> None:
        name = "labels.jsonl"
        for line, rec in self.records(name):
            obj, aff, truth = self.string(name, line, rec, "object"), self.string(name, line, rec, "affordance"), \
                rec.get("label")
            if not isinstance(truth, bool):
                self.problem(name, line, "schema", "field 'label' must be true or false")
                continue
            if obj is not None and obj not in self.objects:
                self.problem(name, line, "unknown-object", f"{obj!r} is not in objects.jsonl")
            if aff is not None and aff not in self.affordances:
                self.problem(name, line, "unknown-affordance", f"{aff!r} is not in affordances.jsonl")
            if obj is None or aff is None:
                continue
            if (obj, aff) in self.labels:
                code = "duplicate-label" if self.labels[(obj, aff)] == truth else "conflicting-label"
                self.problem(name, line, code, f"({obj}, {aff}) is labelled more than once")
                continue
            self.labels[(obj, aff)] = truth

    def check_games(self) -> None:
        name = "games.jsonl"
        ids: set[str] = set()
        for line, rec in self.records(name):
            ident, obj, target = (self.string(name, line, rec, k) for k in ("id", "object", "target"))
            candidates = rec.get("candidates")
            if ident is not None:
                if ident in ids:
                    self.problem(name, line, "duplicate-id", f"game {ident!r} appears more than once")
                ids.add(ident)
            if not isinstance(candidates, list) or not all(isinstance(c, str) for c in candidates):
                self.problem(name, line, "schema", "field 'candidates' must be a list of strings")
                continue
            self.games.append(rec)
            if len(candidates) != N_CANDIDATES or len(set(candidates)) != N_CANDIDATES:
                self.problem(name, line, "candidates", f"expected {N_CANDIDATES} distinct candidates, got "
                             f"{len(candidates)} ({len(set(candidates))} distinct)")
            for cand in sorted(set(candidates) - self.affordances):
                self.problem(name, line, "unknown-affordance", f"candidate {cand!r} is not in affordances.jsonl")
            if obj is not None and obj not in self.objects:
                self.problem(name, line, "unknown-object", f"{obj!r} is not in objects.jsonl")
                continue
            if obj is None or target is None:
                continue
            if target not in candidates:
                self.problem(name, line, "target-not-candidate", f"target {target!r} is not a candidate")
            if self.labels.get((obj, target)) is not True:
                self.problem(name, line, "target-label", f"target {target!r} is not labelled true for {obj!r}")
            for cand in sorted(set(candidates) - {target}):
                if self.labels.get((obj, cand)) is not False:
                    self.problem(name, line, "distractor-label",
                                 f"distractor {cand!r} is not labelled false for {obj!r}")

    def run(self) -> None:
        self.check_objects()
        self.check_affordances()
        self.check_labels()
        self.check_games()


def read_vocabulary(folder: Path) -> tuple[set[tuple[str, str]], set[tuple[str, str]], set[str]]:
    """(predicate, value) canonical values, (predicate, synonym) pairs and banned terms from kari's TSV files."""
    def rows(name: str) -> list[dict[str, str]]:
        with (folder / name).open(encoding="utf-8", newline="") as handle:
            return list(csv.DictReader(handle, delimiter="\t"))
    values = {(r["predicate"], r["value"]) for r in rows("values.tsv")}
    synonyms = {(r["predicate"], r["synonym"]) for r in rows("synonyms.tsv")}
    banned = {r["term"] for r in rows("banned.tsv")}
    return values, synonyms, banned


def census(checker: Checker, vocab: tuple[set[tuple[str, str]], set[tuple[str, str]], set[str]]) -> dict:
    """Distinct (predicate, value) pairs and property rows per kind (canonical, synonym, banned, unknown)."""
    values, synonyms, banned = vocab
    kinds: dict[tuple[str, str], str] = {}
    rows: Counter[str] = Counter()
    for rec in checker.objects.values():
        for prop in rec.get("properties", []):
            if not isinstance(prop, dict):
                continue
            key = (prop.get("predicate"), prop.get("value"))
            kind = ("canonical" if key in values else "synonym" if key in synonyms
                    else "banned" if key[1] in banned else "unknown")
            kinds[key] = kind
            rows[kind] += 1
    distinct = Counter(kinds.values())
    unknown = sorted(f"{p}:{v}" for (p, v), k in kinds.items() if k == "unknown")
    return {"distinct": dict(distinct), "rows": dict(rows), "unknown_examples": unknown}


def summary(checker: Checker) -> dict:
    """Scale figures of a checked directory."""
    positives = Counter(a for (_, a), t in checker.labels.items() if t)
    negatives = Counter(a for (_, a), t in checker.labels.items() if not t)
    objects = checker.objects.values()
    return {
        "objects": len(checker.objects), "affordances": len(checker.affordances), "labels": len(checker.labels),
        "true_labels": sum(positives.values()), "games": len(checker.games),
        "objects_with_parts": sum(1 for r in objects if r.get("parts")),
        "part_property_rows": sum(1 for r in objects for p in r.get("properties", [])
                                  if isinstance(p, dict) and p.get("part") != "whole"),
        "min_positives": min((positives[a] for a in checker.affordances), default=0),
        "min_negatives": min((negatives[a] for a in checker.affordances), default=0),
        "games_per_target": dict(sorted(Counter(g.get("target") for g in checker.games).items())),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path, help="benchmark directories")
    default_vocab = Path(__file__).resolve().parents[2] / "data" / "vocabulary"
    parser.add_argument("--vocab", type=Path, default=default_vocab if default_vocab.is_dir() else None,
                        help="kari vocabulary folder for the word census (default: data/vocabulary)")
    parser.add_argument("--no-vocab", action="store_true", help="skip the word census")
    args = parser.parse_args(argv)
    vocab = None
    if args.vocab and not args.no_vocab:
        try:
            vocab = read_vocabulary(args.vocab)
        except (OSError, KeyError, UnicodeDecodeError) as error:
            print(f"check: {args.vocab}: cannot read the vocabulary: {error}", file=sys.stderr)
            return 2
    failed = False
    for root in args.dirs:
        checker = Checker(root)
        checker.run()
        for line in checker.problems:
            print(line)
        failed |= bool(checker.problems)
        status = "ok" if not checker.problems else f"{len(checker.problems)} problems"
        print(f"{root}: {status}")
        print(json.dumps(summary(checker), sort_keys=True))
        if vocab:
            words = census(checker, vocab)
            print(json.dumps({"distinct_values": words["distinct"], "property_rows": words["rows"]}, sort_keys=True))
            print("unknown to kari's vocabulary: " + " ".join(words["unknown_examples"]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
