"""What a resumable run is made of (:class:`Plan`, ``plan.json``), how its items are split into shards
(:class:`Shard`, ``--shard K/N``), and the check every reader of a run's log makes (:func:`check_records`).

An item is keyed ``(id, run)``: a game id and its run index (``kari play``), a task id and 0 (``kari creativity
solve``). The plan holds every id the inputs offer (in input order), the runs per id and the ids the run asked
for (``selected``, in order); a run does its runs one after the other, each over the selected ids in order. A record whose key repeats, whose id the inputs do not hold,
whose run index is past the runs or whose id belongs to another shard is refused, naming its FILE:LINE. A plan
may list its items (``items``) when a run is not every id times every run: a study in which each participant (a
run index) plays only the games assigned to them (``kari serve``); a record of an item not listed is refused too.

A shard ``K/N`` owns the ids whose rank among the plan's ids (sorted) is ``K - 1`` modulo ``N``: shards never
overlap, their union is every id, and their sizes differ by at most one over the whole input.

>>> plan = Plan("game", ("g3", "g1", "g2"), runs=2, selected=("g3", "g1"))
>>> plan.order
(('g3', 0), ('g1', 0), ('g3', 1), ('g1', 1))
>>> [plan.shard_of(i, 2) for i in ("g1", "g2", "g3")]
[1, 2, 1]
>>> plan.problem(("g4", 0), None), plan.problem(("g1", 2), None), plan.problem(("g2", 0), Shard(1, 2))
("game 'g4' is not in this run's inputs", 'run index 2 is past the runs of this run (2: 0..1)', "game 'g2' belongs to shard 2/2, not to this shard (1/2)")
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from kari.errors import KariError
from kari.io.text import load_json, read_text
from kari.io.versions import RUN_FORMAT

PLAN_FILE = "plan.json"
"""A run directory's plan (written by the run loop at the start of each session)."""
SHARD_KEY = "shard"
"""The ``config.json`` key of a shard's ``K/N`` (absent in a run that is not a shard)."""
MAX_SHARDS = 100_000
"""The most shards a run may be split into."""

ItemKey = tuple[str, int]
"""``(id, run index)`` of one item of a run."""
R = TypeVar("R")
_SHARD = re.compile(r"\s*(\d{1,9})\s*/\s*(\d{1,9})\s*")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (``1 <= index <= count``), written ``K/N``."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count <= MAX_SHARDS:
            raise KariError(f"a shard is K/N with 1 <= K <= N <= {MAX_SHARDS} (got {self.index}/{self.count})",
                            code="bad-option")

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"2/5"`` -> ``Shard(2, 5)``; anything else is a ``bad-option`` error."""
        match = _SHARD.fullmatch(str(text))
        if match is None:
            raise KariError(f"a shard is written K/N, e.g. 2/5 (got {text!r})", code="bad-option")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass(frozen=True)
class Plan:
    """Every id the inputs offer (``ids``, in input order), the runs per id and the ids asked for (``selected``,
    in the order they are played); ``noun`` names an item in messages."""

    noun: str
    ids: tuple[str, ...]
    runs: int = 1
    selected: tuple[str, ...] = ()
    items: tuple[ItemKey, ...] | None = None
    """The run's items when they are not every selected id in every run (None: all of them), in order."""

    @property
    def order(self) -> tuple[ItemKey, ...]:
        """The keys of the items asked for, in the order an unsharded run does them."""
        if self.items is not None:
            return self.items
        return tuple((item, run) for run in range(self.runs) for item in self.selected)

    @cached_property
    def listed(self) -> frozenset[ItemKey] | None:
        """The listed items as a set (None when the plan lists none)."""
        return None if self.items is None else frozenset(self.items)

    @cached_property
    def ranks(self) -> dict[str, int]:
        return {item: rank for rank, item in enumerate(sorted(set(self.ids)))}

    def shard_of(self, item: str, count: int) -> int:
        """The shard (1..count) that owns ``item``."""
        return self.ranks[item] % count + 1

    def owns(self, shard: Shard | None, item: str) -> bool:
        return shard is None or (item in self.ranks and self.shard_of(item, shard.count) == shard.index)

    def share(self, shard: Shard | None) -> list[ItemKey]:
        """The items of ``order`` the shard owns (all without a shard)."""
        return [key for key in self.order if self.owns(shard, key[0])]

    def unfinished(self, shard: Shard | None, have: set[ItemKey], where: str, code: str) -> None:
        """Refuse a run (or a shard) whose records, keyed ``have``, lack items of its share: a message naming how
        many and the first, and the mend (rerun its command to finish it)."""
        share = self.share(shard)
        lacking = [k for k in share if k not in have]
        if lacking:
            what = f"shard {shard}" if shard is not None else "this run"
            raise KariError(f"{what} is not finished: it lacks {len(lacking)} of its {len(share)} {self.noun}s "
                            f"(first: {self.describe(lacking[0])}); rerun its command to finish it", file=where,
                            code=code)

    def describe(self, key: ItemKey) -> str:
        item, run = key
        return f"{self.noun} {item!r}" + (f" run {run}" if self.runs > 1 or run else "")

    def problem(self, key: ItemKey, shard: Shard | None) -> str | None:
        """Why a record keyed ``key`` does not belong in this run (None when it does)."""
        item, run = key
        if item not in self.ranks:
            return f"{self.noun} {item!r} is not in this run's inputs"
        if not 0 <= run < self.runs:
            return f"run index {run} is past the runs of this run ({self.runs}: 0..{self.runs - 1})"
        if shard is not None and not self.owns(shard, item):
            return (f"{self.noun} {item!r} belongs to shard {self.shard_of(item, shard.count)}/{shard.count}, "
                    f"not to this shard ({shard})")
        if self.listed is not None and key not in self.listed:
            return f"{self.noun} {item!r} is not assigned to run {run} in this run's plan"
        return None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"noun": self.noun, "ids": list(self.ids), "runs": self.runs,
                                "selected": list(self.selected)}
        if self.items is not None:
            data["items"] = [[item, run] for item, run in self.items]
        return RUN_FORMAT.stamped(data)

    @classmethod
    def from_json(cls, data: Any, file: Path) -> Plan:
        """A ``plan.json`` object; a malformed one is a ``run-config`` error naming the file, one of a newer
        format a ``format-version`` error."""
        if isinstance(data, dict):
            RUN_FORMAT.version_of(data, str(file))
        try:
            items = data.get("items")
            plan = cls(str(data["noun"]), tuple(data["ids"]), data["runs"], tuple(data["selected"]),
                       None if items is None else tuple((item, run) for item, run in items))
            valid = all(isinstance(i, str) for i in (*plan.ids, *plan.selected)) and type(plan.runs) is int \
                and plan.runs >= 1 and set(plan.selected) <= set(plan.ids) \
                and all(isinstance(item, str) and item in plan.selected and type(run) is int and 0 <= run < plan.runs
                        for item, run in plan.items or ())
        except (KeyError, TypeError, ValueError, AttributeError):
            valid = False
        if not valid:
            raise KariError("broken plan: expected {noun, ids, runs, selected[, items]}", file=str(file),
                            code="run-config")
        return plan


def read_plan(folder: Path) -> Plan | None:
    """The plan of a run directory (None when it has none: a directory made before kari recorded one)."""
    path = folder / PLAN_FILE
    if not path.exists():
        return None
    return Plan.from_json(load_json(read_text(path, "run plan"), file=str(path), code="run-config"), path)


def shard_of_config(config: Mapping[str, Any], path: Path) -> Shard | None:
    """The shard a ``config.json`` records (None when the run is not a shard)."""
    text = config.get(SHARD_KEY)
    if text is None:
        return None
    try:
        return Shard.parse(text) if isinstance(text, str) else Shard.parse("")
    except KariError as exc:
        raise KariError(exc.message, file=str(path), code="run-config") from None


def check_records(records: Sequence[R], lines: Sequence[int], path: Path, key: Callable[[R], ItemKey],
                  plan: Plan | None, shard: Shard | None, noun: str = "item") -> None:
    """Refuse a log (``records`` read from ``path``, record i on line ``lines[i]``) holding a record twice or a
    record that is not in the run's ``plan`` or not in its ``shard``: a ``run-corrupt`` error at FILE:LINE.
    Without a plan (an older run directory) only repeated records are looked for."""
    seen: dict[ItemKey, int] = {}
    name = plan.describe if plan is not None else (lambda k: f"{noun} {k[0]!r}" + (f" run {k[1]}" if k[1] else ""))
    for record, line in zip(records, lines):
        item = key(record)
        if item in seen:
            raise KariError(f"duplicated record: {name(item)} is also on line {seen[item]}", file=str(path),
                            line=line, code="run-corrupt")
        seen[item] = line
        problem = plan.problem(item, shard) if plan is not None else None
        if problem:
            raise KariError(f"record out of place: {problem}", file=str(path), line=line, code="run-corrupt")


__all__ = ["ItemKey", "MAX_SHARDS", "PLAN_FILE", "Plan", "SHARD_KEY", "Shard", "check_records", "read_plan",
           "shard_of_config"]
