"""The part-level KB in DuckDB (tables and views of ``kb/creativity.sql``): ``kari creativity load`` and the
reads the solvers make.

Each file is parsed whole first (a malformed record fails with its FILE:LINE before the database is touched), then
written in one transaction: an entity or task loaded again replaces its rows, so a reload adds nothing. The
attributes' KARI atoms are read with the database's own vocabulary, which learns the new material words
(:meth:`~kari.vocab.vocabulary.Vocabulary.canonicalise`) and is stored back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.creativity.attributes import AtomReading, PartState, part_state, read_attributes
from kari.creativity.model import EnablingAttribute, Entity, Part, PartAffordance, Task, read_file
from kari.vocab.vocabulary import Vocabulary, db_vocabulary
from kari.errors import KariError
from kari.io.outputs import Output, OutputKind, check_outputs, inputs_of

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection
    from kari.embeddings import Embedder

TABLES = ("cb_entities", "cb_parts", "cb_part_attributes", "cb_part_atoms", "cb_part_affordances",
          "cb_affordance_attributes")


@dataclass(frozen=True, slots=True)
class KBPart:
    """A part as the solvers see it: its atoms (with raw text), its state (and the state's words) and its
    affordances, from the KB rows of one (entity, scenario)."""

    entity: str
    part: str
    readings: tuple[AtomReading, ...]
    state: PartState
    affordances: tuple[PartAffordance, ...] = ()
    state_texts: Mapping[str, str] = field(default_factory=dict)
    physical_texts: Mapping[str, str] = field(default_factory=dict)
    scenario: str = ""


@dataclass
class LoadSummary:
    """What one ``kari creativity load`` did, per file."""

    files: list[tuple[str, int, int, int]] = field(default_factory=list)  # (file, entities, tasks, atoms)
    vocabulary_added: int = 0

    def text(self) -> str:
        lines = [f"{f}: {e} entities, {t} tasks, {a} part atoms" for f, e, t, a in self.files]
        return "\n".join([*lines, f"vocabulary: {self.vocabulary_added} new values"])


def part_readings(entity: Entity, part: Part, vocab: Vocabulary, embedder: Embedder | None = None) -> list[AtomReading]:
    """The atoms of one KB part (physical attributes; moisture and temperature of its state)."""
    texts = {**{k: v for k, v in part.physical.items()},
             **{k: v for k, v in part.state.items() if k in ("moisture", "temperature")}}
    return read_attributes(texts, vocab, entity.source, embedder)


def load_creativity(db: str | Path, paths: Sequence[str | Path], *, embedder: Embedder | None = None) -> LoadSummary:
    """Load CreativityBench entity and task files into the KB database ``db`` (created when missing)."""
    from kari.io.transaction import transaction
    from kari.kb.store import open_db

    check_outputs([Output(Path(db), "--db", OutputKind.DATABASE)], inputs_of("a CreativityBench file", paths))
    parsed = [(str(p), *read_file(Path(p))) for p in paths]  # every file is read before the database is touched
    summary = LoadSummary()
    where = Path(db)
    created = str(db) != ":memory:" and not where.exists()
    con = open_db(db)
    try:
        _check_schema(con, str(db))
        vocab = db_vocabulary(con)
        before = len(vocab.added_values())
        for file, entities, tasks in parsed:
            rows = _entity_rows(entities, vocab, embedder)
            with transaction(con):
                _write(con, entities, tasks, rows)
            summary.files.append((file, len(entities), len(tasks), len(rows["cb_part_atoms"])))
        summary.vocabulary_added = len(vocab.added_values()) - before
        if summary.vocabulary_added:
            vocab.link_compounds()
            vocab.to_db(con)
    except BaseException:
        con.close()
        if created and not summary.files:
            for leftover in (where, where.with_name(where.name + ".wal")):
                leftover.unlink(missing_ok=True)
        raise
    con.close()
    return summary


def _check_schema(con: DuckDBPyConnection, db: str) -> None:
    """Refuse a database whose CreativityBench tables an older kari made (no scenario or modality columns)."""
    for table, column in (("cb_parts", "scenario"), ("cb_affordance_attributes", "modality"),
                          ("cb_task_entities", "judge_parts")):
        columns = {row[1] for row in con.execute(f"PRAGMA table_info('{table}')").fetchall()}
        if column not in columns:
            raise KariError(f"its {table} table has no {column} column (an older kari made it); load into a new "
                            "database", file=db, code="creativity-db")


def _entity_rows(entities: Iterable[Entity], vocab: Vocabulary, embedder: Embedder | None) -> dict[str, list[tuple]]:
    rows: dict[str, list[tuple]] = {name: [] for name in TABLES}
    for entity in entities:
        file, line = _where(entity.source)
        rows["cb_entities"].append((entity.name, entity.scenario, file, line))
        for part in entity.parts:
            key = (entity.name, entity.scenario, part.name)
            rows["cb_parts"].append((*key, list(part.connected_to), part.connection))
            rows["cb_part_attributes"] += [(*key, "physical", k, v) for k, v in part.physical.items()]
            rows["cb_part_attributes"] += [(*key, "state", k, v) for k, v in part.state.items()]
            rows["cb_part_atoms"] += [(*key, r.attribute, r.predicate, r.value, r.raw, r.how, r.score)
                                      for r in part_readings(entity, part, vocab, embedder)]
            for n, aff in enumerate(part.affordances, 1):
                rows["cb_part_affordances"].append(
                    (*key, n, aff.action, aff.kind, aff.level, aff.typicality, aff.use_condition,
                     aff.environment_condition, aff.recipient_condition, aff.example_recipient, aff.failure_case,
                     aff.level_text))
                rows["cb_affordance_attributes"] += [(*key, n, i, a.statement, a.kind, a.modality, a.explanation)
                                                     for i, a in enumerate(aff.attributes, 1)]
    return rows


def _write(con: DuckDBPyConnection, entities: Sequence[Entity], tasks: Sequence[Task],
           rows: dict[str, list[tuple]]) -> None:
    keys = [[e.name, e.scenario] for e in entities]
    for table in TABLES:
        if keys:
            con.executemany(f"DELETE FROM {table} WHERE entity = ? AND scenario IS NOT DISTINCT FROM ?", keys)
        if rows[table]:
            marks = ", ".join("?" * len(rows[table][0]))
            con.executemany(f"INSERT INTO {table} VALUES ({marks})", rows[table])
    ids = [[t.id] for t in tasks]
    if ids:
        con.executemany("DELETE FROM cb_tasks WHERE task_id = ?", ids)
        con.executemany("DELETE FROM cb_task_entities WHERE task_id = ?", ids)
        con.executemany("INSERT INTO cb_tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [(t.id, t.scenario, t.task, t.environment, len(t.entities), t.gold.entity, t.gold.part,
                          t.gold.action, json.dumps(dict(t.raw), ensure_ascii=False), *_where(t.source))
                         for t in tasks])
        con.executemany("INSERT INTO cb_task_entities VALUES (?, ?, ?, ?, ?)",
                        [(t.id, e.name, i, list(e.parts), list(e.judge_parts))
                         for t in tasks for i, e in enumerate(t.entities)])


def _where(source: str) -> tuple[str, int | None]:
    file, _, line = source.rpartition(":")
    return file, int(line) if line.isdigit() else None


def kb_parts(con: DuckDBPyConnection, entities: Iterable[str], scenario: str = "") -> dict[tuple[str, str], KBPart]:
    """The KB's parts of the named entities: ``(entity, part) -> KBPart``. An entity the KB holds in several
    scenarios is read from the rows of ``scenario`` when there are any, else from its first scenario by name."""
    wanted = sorted(set(entities))
    if not wanted:
        return {}
    where = "WHERE entity IN (SELECT unnest(?))"
    try:
        scenarios = con.execute(f"SELECT DISTINCT entity, coalesce(scenario, '') FROM cb_parts {where}",
                                [wanted]).fetchall()
        chosen = _chosen_scenarios(scenarios, scenario)
        atoms = con.execute("SELECT entity, scenario, part, attribute, predicate, value, raw, how, score "
                            f"FROM cb_part_atoms {where} ORDER BY rowid", [wanted]).fetchall()
        texts = con.execute(f"SELECT entity, scenario, part, kind, attribute, raw FROM cb_part_attributes {where} "
                            "ORDER BY rowid", [wanted]).fetchall()
        parts = con.execute(f"SELECT entity, scenario, part FROM cb_parts {where} ORDER BY rowid",
                            [wanted]).fetchall()
        affs = con.execute("SELECT entity, scenario, part, n, action, kind, level, level_text, use_condition, "
                           "environment_condition, recipient_condition, example_recipient, failure_case "
                           f"FROM cb_part_affordances {where} ORDER BY entity, part, n", [wanted]).fetchall()
        enabling = con.execute("SELECT entity, scenario, part, n, statement, kind, modality, explanation "
                               f"FROM cb_affordance_attributes {where} ORDER BY entity, part, n, position",
                               [wanted]).fetchall()
    except Exception as exc:  # a database without the CreativityBench tables, or one an older kari wrote
        raise KariError(f"cannot read the CreativityBench tables: {str(exc).splitlines()[0]} (load the files into "
                        "a new database with 'kari creativity load')", code="creativity-db") from None

    def keep(entity: str, scen: str | None) -> bool:
        return chosen.get(entity) == (scen or "")

    readings: dict[tuple[str, str], list[AtomReading]] = {}
    for entity, scen, part, attribute, predicate, value, raw, how, score in atoms:
        if keep(entity, scen):
            readings.setdefault((entity, part), []).append(AtomReading(attribute, predicate, value, raw, how, score))
    state: dict[tuple[str, str], dict[str, str]] = {}
    physical: dict[tuple[str, str], dict[str, str]] = {}
    for entity, scen, part, kind, attribute, raw in texts:
        if keep(entity, scen):
            (state if kind == "state" else physical).setdefault((entity, part), {})[attribute] = raw or ""
    listed: dict[tuple[str, str, int], list[EnablingAttribute]] = {}
    for entity, scen, part, n, statement, kind, modality, explanation in enabling:
        if keep(entity, scen):
            listed.setdefault((entity, part, n), []).append(
                EnablingAttribute(statement or "", kind or "", modality or "", explanation or ""))
    affordances: dict[tuple[str, str], list[PartAffordance]] = {}
    for entity, scen, part, n, action, kind, level, level_text, use, env, recipient, example, failure in affs:
        if keep(entity, scen):
            affordances.setdefault((entity, part), []).append(PartAffordance(
                action, kind, level or 0, level_text or "", use or "NA", env or "NA", recipient or "NA",
                tuple(listed.get((entity, part, n), ())), example or "", failure or ""))
    out = {}
    for entity, scen, part in parts:
        if keep(entity, scen):
            key = (entity, part)
            out[key] = KBPart(entity, part, tuple(readings.get(key, ())), part_state(state.get(key, {})),
                              tuple(affordances.get(key, ())), state.get(key, {}), physical.get(key, {}), scen or "")
    return out


def _chosen_scenarios(rows: Iterable[tuple[str, str]], scenario: str) -> dict[str, str]:
    """``entity -> the scenario its rows are read from``: the task's when the KB has it, else the first by name."""
    found: dict[str, set[str]] = {}
    for entity, scen in rows:
        found.setdefault(entity, set()).add(scen)
    return {e: scenario if scenario in s else min(s) for e, s in found.items()}


def open_kb(db: str | Path) -> Any:
    """A read-only connection to a KB database holding CreativityBench tables."""
    from kari.kb.store import open_db

    return open_db(db, read_only=True)
