"""Rules that travel: a rules file induced in a KB database carries the values it introduced (its ``.jsonl``
twin), so ``rules check``, ``play``, ``coverage`` and ``explain`` read it without ``--db``; without the record
the refusal names the mend. ``kari explain`` matches a benchmark affordance to its rule as the players do.

The KB is written as a user writes feature norms (KGTK edges): pets have a part ``fur``, which the KB's database
reads as a SHAPE value, while the shipped vocabulary knows ``fur`` only as a material.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cli_support import kari, one_line
from kari.domain.canon import canonical_rule
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError
from kari.rules import load_rule_file
from kari.rules.ast import Atom, Rule
from kari.rules.values import recorded_values, vocabulary_for

PETS = ("cat", "dog", "rabbit", "hamster", "guinea_pig", "ferret", "kitten", "puppy")
AFFORDANCES = ("cuddle", "clean", "eat_with", "sit_on", "cut", "roll", "wear", "pour_from")


def _norms() -> str:
    rows = ["id\tnode1\trelation\tnode2\tnode1;label\tnode2;label\trelation;label\trelation;dimension\tsource\tsentence"]
    edges: list[tuple[str, str, str]] = []
    for pet in PETS:
        edges += [(pet, "HasA", "fur"), (pet, "HasA", "tail"), (pet, "UsedFor", "cuddling"),
                  (pet, "HasProperty", "small")]
    for animal in ("lizard", "snake", "fish"):
        edges += [(animal, "HasA", "tail"), (animal, "HasA", "scales"), (animal, "HasProperty", "small")]
    for thing, prop in (("sponge", "soft"), ("towel", "soft"), ("cushion", "soft"), ("rock", "hard"),
                        ("table", "hard"), ("spoon", "hard")):
        edges.append((thing, "HasProperty", prop))
    edges += [("sponge", "UsedFor", "cleaning"), ("towel", "UsedFor", "cleaning")]
    rows += [f"n{i}\t{a}\t{r}\t{b}\t\t\t\t\tnorms\t" for i, (a, r, b) in enumerate(edges, start=1)]
    return "\n".join(rows) + "\n"


def _bench(root: Path) -> Path:
    """A hand-written benchmark of pets and things (parts with fur) with the affordance ``cuddle_up``, which
    no rule is named but ``cuddle`` means much the same."""
    objects = {
        "tabby": (["fur", "whiskers", "tail"], "cuddle"), "spaniel": (["fur", "ears", "tail"], "cuddle"),
        "lop_rabbit": (["fur", "ears"], "cuddle"), "chinchilla": (["fur", "tail"], "cuddle"),
        "iguana": (["scales", "tail"], ""), "goldfish": (["scales", "fins"], ""),
        "bath_towel": (["hem"], "clean"), "dish_sponge": (["scourer"], "clean"),
        "teaspoon": (["bowl", "handle"], "eat_with"), "stool": (["seat", "legs"], "sit_on"),
        "scissors": (["blades", "handles"], "cut"), "ball": ([], "roll"), "scarf": (["fringe"], "wear"),
        "jug": (["spout", "handle"], "pour_from"),
    }
    root.mkdir()
    (root / "objects.jsonl").write_text("".join(json.dumps(
        {"id": o, "description": o.replace("_", " "), "parts": parts,
         "properties": [{"part": "whole", "predicate": "SIZE", "value": "small"}]}) + "\n"
        for o, (parts, _) in objects.items()))
    names = (*AFFORDANCES, "cuddle_up")
    (root / "affordances.jsonl").write_text("".join(json.dumps({"id": a, "description": a.replace("_", " ")}) + "\n"
                                                    for a in names))
    truth = {(o, a): a in aff.split() or (a == "cuddle_up" and "cuddle" in aff)
             for o, (_, aff) in objects.items() for a in names}
    (root / "labels.jsonl").write_text("".join(json.dumps({"object": o, "affordance": a, "label": t}) + "\n"
                                               for (o, a), t in truth.items()))
    games = [{"id": f"g{i}", "object": o, "target": "cuddle",
              "candidates": ["cuddle", *[a for a in AFFORDANCES if a != "cuddle"]]}
             for i, o in enumerate(("tabby", "spaniel"), start=1)]
    (root / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    return root


@pytest.fixture(scope="module")
def induced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from kari.induce.run import induce
    from kari.kb.store import load_files, open_db

    root = tmp_path_factory.mktemp("travel")
    kb = root / "norms.tsv"
    kb.write_text(_norms(), encoding="utf-8")
    db = root / "norms.duckdb"
    con = open_db(db)
    load_files(con, [kb])
    con.close()
    outcome = induce(out=root / "rules" / "rules.kari", db=db, argv=[])
    alone = root / "alone"
    alone.mkdir()
    shutil.copy(outcome.out, alone / "rules.kari")
    return {"root": root, "db": db, "rules": outcome.out, "jsonl": outcome.jsonl, "alone": alone / "rules.kari",
            "bench": _bench(root / "bench")}


def test_a_rules_file_records_the_values_it_introduced(induced: dict[str, Path]) -> None:
    cuddle = next(r for r in load_rule_file(induced["rules"]) if r.affordance == "cuddle")
    assert cuddle.body == Atom("SHAPE", "fur")
    [fur] = recorded_values(cuddle).values()
    assert (fur.predicate, fur.value, fur.part) == ("SHAPE", "fur", True)
    assert fur.provenance.startswith(str(induced["root"] / "norms.tsv") + ":")
    shipped = Vocabulary.load()  # never written to: fur is still a material only
    assert shipped.predicates_of("fur") == {"MADE_OF"}


def test_rules_check_reads_the_record_without_db(induced: dict[str, Path], capfd: pytest.CaptureFixture[str]) -> None:
    for path in (induced["rules"], induced["jsonl"]):
        code, _, err = kari(capfd, "rules", "check", path)
        assert code == 0 and "0 error(s)" in err
    code, out, _ = kari(capfd, "rules", "check", induced["alone"])  # the .kari file without its .jsonl
    assert code == 1
    assert "'fur' is a MADE_OF value, not a SHAPE value" in out and "give it as --db" in out and ".jsonl" in out
    code, _, err = kari(capfd, "rules", "check", induced["alone"], "--db", induced["db"])
    assert code == 0 and "0 error(s)" in err


def test_the_record_is_applied_to_its_own_rules_only() -> None:
    vocab = Vocabulary.load()
    travelled = Rule("cuddle", Atom("SHAPE", "fur"), {"values": [{"predicate": "SHAPE", "value": "fur",
                                                                  "provenance": "kb.tsv:5", "part": True}]})
    mine = vocabulary_for([travelled], vocab)
    assert mine is not vocab and mine.has_value("SHAPE", "fur") and mine.is_part_noun("SHAPE", "fur")
    assert not vocab.has_value("SHAPE", "fur")  # the vocabulary given is left as it was
    with pytest.raises(KariError, match=r"SHAPE:fur is ill-typed: 'fur' is a MADE_OF value here .*--db"):
        canonical_rule(Rule("cuddle", Atom("SHAPE", "fur"), {"backend": "offline"}), Vocabulary.load())
    with pytest.raises(KariError, match=r"SHAPE:fur is ill-typed: 'fur' is a MADE_OF value$"):  # hand-written
        canonical_rule(Rule("cuddle", Atom("SHAPE", "fur")), Vocabulary.load())
    read = canonical_rule(travelled, vocab)
    assert read.body == Atom("SHAPE", "fur") and vocab.provenance("SHAPE", "fur") == "kb.tsv:5"
    with pytest.raises(KariError, match="rule-values|metadata 'values'"):
        canonical_rule(Rule("x", Atom("SHAPE", "fur"), {"values": [{"predicate": "COLOUR", "value": "fur"}]}),
                       Vocabulary.load())


def test_coverage_play_and_explain_without_db(induced: dict[str, Path], tmp_path: Path,
                                              capfd: pytest.CaptureFixture[str]) -> None:
    bench = induced["bench"]
    code, out, err = kari(capfd, "coverage", "--rules", induced["rules"], "--bench", bench, "--db",
                          tmp_path / "cov.duckdb", "--rule-match", "exact")
    assert code == 0, err
    code, _, err = kari(capfd, "play", "--bench", bench, "--questioner", "rules", "--rules", induced["rules"],
                        "--rule-match", "exact", "--out", tmp_path / "play")
    assert code == 0, err
    records = [json.loads(line) for line in (tmp_path / "play" / "games.jsonl").read_text().splitlines()]
    assert records and all(r["rules"]["target_has_rule"] and r["rules"]["target_rule_covers_object"] for r in records)
    code, out, err = kari(capfd, "explain", "cuddle", "tabby", "--rules", induced["rules"], "--bench", bench,
                          "--rule-match", "exact", "--semantics", "any-part")
    assert code == 0 and "COVERED by branch 0" in out and "the part's name 'fur'" in out, err
    # on a benchmark where no part is named fur (its vocabulary reads fur as a material only), the record is
    # what lets the rule in; without it every command refuses the rule, naming the mend
    other = Path(__file__).parent / "data" / "part_words"
    for rules, refused in ((induced["rules"], False), (induced["alone"], True)):
        for n, argv in enumerate((
                ("coverage", "--rules", rules, "--bench", other, "--db", tmp_path / f"c{refused}.duckdb",
                 "--rule-match", "exact"),
                ("play", "--bench", other, "--questioner", "rules", "--rules", rules, "--rule-match", "exact",
                 "--games", "2", "--out", tmp_path / f"p{refused}"),
                ("explain", "cuddle", "jam_jar", "--rules", rules, "--bench", other, "--rule-match", "exact"))):
            code, _, err = kari(capfd, *argv)
            if refused:
                line = one_line(err)
                assert code == 2 and "ill-typed" in line and "give it as --db" in line, (n, err)
            else:
                assert code == 0, (n, err)


@pytest.mark.embed
def test_explain_matches_an_affordance_to_its_rule_by_similarity(induced: dict[str, Path],
                                                                capfd: pytest.CaptureFixture[str]) -> None:
    bench = induced["bench"]
    code, out, err = kari(capfd, "explain", "cuddle_up", "tabby", "--rules", induced["rules"], "--bench", bench,
                          "--semantics", "any-part")
    assert code == 0, err
    head = out.splitlines()[0]
    assert head.startswith("cuddle_up -> rule cuddle (similarity ") and "as the players match rules" in head
    from kari.game.match import RuleMatcher
    from kari.domain.canon import canonical_rules

    players = RuleMatcher(canonical_rules(load_rule_file(induced["rules"]), Vocabulary.load()))
    [best] = players.match(["cuddle_up"])["cuddle_up"]
    assert best.rule.affordance == "cuddle" and f"similarity {best.similarity:.3f}" in head
    code, out, _ = kari(capfd, "explain", "cuddle_up", "tabby", "--rules", induced["rules"], "--bench", bench,
                        "--semantics", "any-part", "--json")
    assert json.loads(out)["match"] == {"affordance": "cuddle_up", **best.to_json()}
    # --rule-match exact keeps the old behaviour: a rule named so, or an error
    code, _, err = kari(capfd, "explain", "cuddle_up", "tabby", "--rules", induced["rules"], "--bench", bench,
                        "--rule-match", "exact")
    assert code == 2 and "no rule for 'cuddle_up'" in one_line(err)
    code, _, err = kari(capfd, "explain", "cuddle_up", "tabby", "--rules", induced["rules"], "--bench", bench,
                        "--match-threshold", "0.99")
    assert code == 2 and "no rule matches 'cuddle_up' at similarity >= 0.99 (nearest: cuddle" in one_line(err)
