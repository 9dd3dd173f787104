"""Where the objects, vocabulary, rules and evidence of a proof come from: a benchmark directory or a KB.

* ``--bench DIR``: the benchmark's objects; each fact's evidence is the object's line in ``objects.jsonl`` with
  the word as written; the vocabulary is the KB's when ``--db`` is given too (as ``kari coverage`` reads it),
  else ``--vocab DIR`` or the shipped one.
* ``--db PATH`` alone: the KB's objects (the ``object_property`` view); each fact's evidence is the KB edges
  that state it, with their relation, raw term, source, file and line, and for a property inherited from a
  part's own node the HasA / PartOf edge that makes it a part; a part-name fact cites the part edges.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.bench.reader import read_benchmark
from kari.core.benchmark import ObjectRecord
from kari.core.terms import PREDICATES
from kari.domain.canon import canonical_objects, canonical_rules
from kari.vocab.vocabulary import Vocabulary, db_vocabulary, open_vocabulary
from kari.errors import KariError
from kari.explain.proof import Evidence, RecordEvidence
from kari.rules import load_rule_file, parse_rule
from kari.rules.ast import Rule

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection


class KBEvidence:
    """The KB edges behind each stated fact of a KB object, read from the ``object_property`` and
    ``object_parts`` views (one query each, on the first lookup)."""

    def __init__(self, con: DuckDBPyConnection, vocab: Vocabulary) -> None:
        self.con, self.vocab = con, vocab
        self._facts: dict[tuple[str, str, str, str], list[dict[str, Any]]] | None = None
        self._parts: dict[tuple[str, str], list[dict[str, Any]]] = {}

    def _load(self) -> dict[tuple[str, str, str, str], list[dict[str, Any]]]:
        facts: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
        rows = self.con.execute(
            "SELECT p.object, p.part, p.predicate, p.value, p.raw, p.relation, p.edge_id, p.source, p.file, p.line, "
            "p.part_edge_id, e.relation, e.file, e.line FROM object_property p "
            "LEFT JOIN edges e ON e.id = p.part_edge_id "
            "WHERE p.predicate IS NOT NULL ORDER BY p.object, p.file, p.line, p.edge_id").fetchall()
        for obj, part, predicate, value, raw, relation, edge, source, file, line, part_edge, p_rel, p_file, p_line in rows:
            if predicate not in PREDICATES:
                continue
            canonical = self.vocab.normalise(predicate, value) or value
            record: dict[str, Any] = {"kind": "kb-edge", "edge_id": edge, "relation": relation, "raw": raw,
                                      "source": source, "file": file, "line": line}
            if part_edge:
                record["part_edge"] = {"edge_id": part_edge, "relation": p_rel, "file": p_file, "line": p_line}
            facts.setdefault((obj, part, predicate, canonical), []).append(record)
        for obj, part, relation, edge, source, file, line in self.con.execute(
                "SELECT object, part, relation, edge_id, source, file, line FROM object_parts "
                "ORDER BY object, file, line, edge_id").fetchall():
            self._parts.setdefault((obj, part), []).append({"kind": "kb-edge", "edge_id": edge, "relation": relation,
                                                            "source": source, "file": file, "line": line})
        self._facts = facts
        return facts

    def lookup(self, obj: ObjectRecord, part: str, predicate: str, value: str, origin: str) -> list[dict[str, Any]]:
        facts = self._facts
        if facts is None:
            facts = self._load()
        if origin == "part-name":
            return list(self._parts.get((obj.id, part), []))
        return list(facts.get((obj.id, part, predicate, value), []))


@dataclass
class ObjectSource:
    """Objects read into one vocabulary, with the evidence of their facts and a name for where they came from."""

    objects: dict[str, ObjectRecord]
    vocab: Vocabulary
    evidence: Evidence
    where: str
    con: DuckDBPyConnection | None = None  # an open read-only KB connection (closed by :meth:`close`)

    def get(self, object_id: str) -> ObjectRecord:
        obj = self.objects.get(object_id)
        if obj is None:
            close = sorted(o for o in self.objects if object_id in o or o in object_id)[:5]
            hint = f" (similar: {', '.join(close)})" if close else ""
            raise KariError(f"no object {object_id!r} in {self.where}{hint}", code="unknown-object")
        return obj

    @property
    def kb(self) -> DuckDBPyConnection:
        """The open KB connection of a source read with a database (a ``bad-option`` error without one)."""
        if self.con is None:
            raise KariError(f"{self.where} has no KB database (give --db PATH)", code="bad-option")
        return self.con

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None

    def __enter__(self) -> ObjectSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_objects(bench: str | Path | None = None, db: str | Path | None = None,
                 vocab_dir: str | Path | None = None) -> ObjectSource:
    """The objects of a benchmark (``bench``) or of a KB (``db`` alone), read into the vocabulary a command
    would use (the KB's when ``db`` is given); see the module docstring for the evidence of each."""
    if bench is None and db is None:
        raise KariError("give --bench DIR (a benchmark's objects) or --db PATH (a KB's objects)", code="bad-option")
    if db is not None and vocab_dir is not None:
        raise KariError("give either --vocab FOLDER or --db DATABASE, not both", code="vocab-source")
    con: DuckDBPyConnection | None = None
    if db is not None:
        from kari.kb import open_db

        con = open_db(db, read_only=True)
    try:
        vocab = db_vocabulary(con) if con is not None else open_vocabulary(vocab_dir)
        if bench is not None:
            raw = list(read_benchmark(bench, None, games=False).checked().objects.values())
            evidence: Evidence = RecordEvidence()
            where = f"the benchmark {bench}"
        else:
            from kari.kb import objects_from_db

            assert con is not None  # db given without bench
            raw = objects_from_db(con)
            evidence = KBEvidence(con, vocab)
            where = f"the KB {db}"
        objects, _ = canonical_objects(raw, vocab)
    except BaseException:
        if con is not None:
            con.close()
        raise
    return ObjectSource({o.id: o for o in objects}, vocab, evidence, where, con)


def read_rules(vocab: Vocabulary, rules_file: str | Path | None = None, rule_text: str | None = None,
               affordance: str | None = None) -> list[Rule]:
    """The rules to explain, read into ``vocab``: every rule of ``rules_file`` (only ``affordance``'s when
    given), or the one rule ``rule_text`` (named ``affordance``, default ``rule``)."""
    if (rules_file is None) == (rule_text is None):
        raise KariError("give either --rules FILE or --rule TEXT", code="bad-option")
    if rule_text is not None:
        rules = [Rule(affordance or "rule", parse_rule(rule_text))]
    elif rules_file is not None:
        rules = load_rule_file(rules_file)  # a .kari file with its .jsonl twin's metadata
        if affordance is not None:
            rules = [r for r in rules if r.affordance == affordance]
            if not rules:
                raise KariError(f"no rule for {affordance!r} in the rules file", file=str(rules_file),
                                code="unknown-affordance")
    return canonical_rules(rules, vocab)
