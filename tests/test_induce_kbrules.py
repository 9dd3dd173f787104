"""KB rules worth having (issue 25, items 1-3): only affordances become targets, senses chosen from a phrase's
context, thin groups pooled into hypernyms, object facts completed from the KB's classes (inferred, with their
edges), pooled kin and weighed implicit negatives in the branch search, each KB rule's precision held out within
the KB, flagged rules skipped by players unless asked for."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cli_support import kari, one_line
from kari.core.benchmark import ObjectRecord, Property
from kari.core.induce_config import InduceConfig
from kari.induce import wordnet
from kari.induce.completion import complete
from kari.induce.fastsearch import VectorBranchSearch, units
from kari.induce.inputs import Evidence, KinLink, Weights
from kari.induce.kbcontext import KBContext, read_context
from kari.induce.kbweights import MIN_POSITIVES, heldout_precision
from kari.induce.kinship import IsA, Kinship, kinship
from kari.induce.offline import ProposerSettings, SymbolicProposer
from kari.induce.pooling import evidence_objects, kin_of, negative_weight, split_thin
from kari.induce.proposer import ProposalTask
from kari.induce.senses import backoff_keys, choose_sense, kb_domain, object_classes, object_sense
from kari.induce.targets import LeftOut, Phrase, Reason, read_phrase
from kari.rules.ast import Atom, Rule
from kari.vocab.vocabulary import Vocabulary


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load()


def obj(name: str, *props: tuple[str, str]) -> ObjectRecord:
    return ObjectRecord(name, "", (), tuple(Property("whole", p, v) for p, v in props))


# --- item 1: only affordances get rules; senses stay apart ---------------------------------------------------------

@pytest.mark.parametrize("text, reason", [("be", Reason.FUNCTION_WORD), ("it", Reason.FUNCTION_WORD),
                                          ("use with computer", Reason.FUNCTION_WORD),
                                          ("chemistry", Reason.NO_VERB), ("accurately", Reason.ADVERB),
                                          ("42 times", Reason.NUMBER)])
def test_function_words_adverbs_and_verbless_phrases_are_no_targets(text: str, reason: Reason) -> None:
    reading = read_phrase(text)
    assert isinstance(reading, LeftOut) and reading.reason == reason


def test_a_phrase_is_read_as_its_head_verb() -> None:
    cases = {"accurately perform placement": "perform", "as an abrader": "abrade", "decoration": "decorate",
             "worn by arabs": "wear", "to be eaten": "eat", "make noise": "make_noise",
             "switch on the light": "switch_on", "worn on a hat": "wear"}  # a PP, not the verb 'wear on'
    for text, head in cases.items():
        reading = read_phrase(text)
        assert isinstance(reading, Phrase) and reading.head == head, (text, reading)
    light = read_phrase("put the drink in")
    assert isinstance(light, Phrase) and light.light and light.key == "put_drink"
    assert read_phrase("peel a label").transitive and not read_phrase("cutting").transitive  # type: ignore[union-attr]


def test_a_light_verb_keeps_the_head_of_its_object() -> None:
    """The object's head is the last word of its noun phrase (not its first adjective); a light verb and that
    word that are one WordNet verb are read as it, unless a pronoun is the object."""
    keys = {"make a yard sale table": "make_table", "keep hands warm": "keep_warm", "put the drink in": "put_drink",
            "make beautiful origami shapes with": "make_shape"}
    for text, key in keys.items():
        reading = read_phrase(text)
        assert isinstance(reading, Phrase) and reading.light and reading.key == key, (text, reading)
    for text in ("makes percussive noises", "make spooky noises in a haunted house"):
        reading = read_phrase(text)
        assert isinstance(reading, Phrase) and reading.head == "make_noise" and not reading.light, (text, reading)
    pronoun = read_phrase("make it sound good")    # 'make good' is a WordNet verb, but the object here is 'it'
    assert isinstance(pronoun, Phrase) and pronoun.head == "make" and pronoun.light


def test_a_sense_is_chosen_from_the_phrase_and_its_positives_classes() -> None:
    band = choose_sense(read_phrase("play in a band"), classes=object_classes("harmonica"))  # type: ignore[arg-type]
    hockey = choose_sense(read_phrase("playing hockey"), classes=object_classes("hockey_skate"))  # type: ignore[arg-type]
    assert "instrument" in wordnet.verb_synset(band.synset).gloss  # type: ignore[arg-type]
    assert "games or sport" in wordnet.verb_synset(hockey.synset).gloss  # type: ignore[arg-type]
    assert band.synset != hockey.synset
    bare = choose_sense(read_phrase("play"))  # type: ignore[arg-type]
    most = max(wordnet.verb_senses("play"), key=lambda s: (s.tags, -s.rank))
    assert bare.synset == most.synset  # nothing to go on: the most frequent sense
    peel = choose_sense(read_phrase("peel a label"), classes=object_classes("guitar_pick"))  # type: ignore[arg-type]
    assert wordnet.verb_synset(peel.synset).transitive  # type: ignore[arg-type]  # 'come off in flakes' takes no object


def test_an_objects_sense_is_the_one_its_sentence_names_else_a_thing_people_use() -> None:
    assert wordnet.noun_synset(object_sense("mouse")).lexname == "noun.artifact"  # type: ignore[arg-type, union-attr]
    second = dict(wordnet.noun_senses("knife"))[2]
    assert object_sense("knife", ["WordNet knife.n.02: a weapon with a handle and blade"]) == second
    assert object_sense("frying_pan") and "pan" in object_classes("frying_pan")
    assert object_sense("no_such_thing_xyz") is None


def test_thin_groups_pool_into_their_senses_hypernym_never_a_root() -> None:
    chop = next(s.synset for s in wordnet.verb_senses("chop"))
    parent = wordnet.verb_synset(chop).hypernyms[0]
    keys = {"chop": (f"wn:{chop}", "chop"), "cut": (f"wn:{parent}", "cut"), "put_drink": ("light:put:put_drink", "put_drink")}
    moved = backoff_keys(keys, {"chop": {"axe"}, "cut": {"knife", "saw", "scissors"}, "put_drink": {"chalice"}})
    assert moved["chop"][0] == f"wn:{parent}" and moved["cut"] == keys["cut"]
    assert moved["put_drink"][0].startswith("wn:")  # a thin light verb: the light verb's own sense
    root = next(s.synset for s in wordnet.verb_senses("change") if not wordnet.verb_synset(s.synset).hypernyms)
    assert backoff_keys({"change": (f"wn:{root}", "change")}, {"change": {"x"}})["change"][0] == f"wn:{root}"


# --- item 2: completion, kin, weighed negatives ---------------------------------------------------------------------

def test_completion_inherits_what_the_object_does_not_state_marked_inferred_with_edges() -> None:
    pan = ObjectRecord("pan", "", (), (Property("whole", "MADE_OF", "metal", edges=("pan-MadeOf-metal",)),
                                       Property("whole", "SIZE", "large", edges=("pan-HasProperty-large",))))
    frying = ObjectRecord("frying_pan", "", (), (Property("whole", "SIZE", "small", edges=("fp-small",)),))
    skillet = ObjectRecord("skillet", "", (), ())
    kin = Kinship({"frying_pan": (IsA("frying_pan", "pan", 1, "wordnet:03400231>03880531"),),
                   "skillet": (IsA("skillet", "pan", 1, "e-isa"),)}, {"pan": ("frying_pan", "skillet")})
    objects, inferred = complete([pan, frying, skillet], kin)
    [fact] = inferred["frying_pan"]  # SIZE is stated (small): only MADE_OF is inherited
    assert (fact.predicate, fact.value, fact.via, fact.edges, fact.inferred) == \
        ("MADE_OF", "metal", "pan", ("pan-MadeOf-metal",), True)
    added = [p for p in objects["frying_pan"].properties if p.inferred]
    assert [(p.predicate, p.value, p.edges) for p in added] == [("MADE_OF", "metal", ("pan-MadeOf-metal",))]
    assert {(f.predicate, f.value) for f in inferred["skillet"]} == {("MADE_OF", "metal"), ("SIZE", "large")}
    assert all("e-isa" in f.edges for f in inferred["skillet"])  # a KB is-a edge is cited with the fact
    assert objects["pan"] is pan and "pan" not in inferred


def test_kinship_from_wordnet_hypernyms_and_kb_isa_edges() -> None:
    objects = [obj("pan"), obj("frying_pan"), obj("saucepan"), obj("dutch_oven"), obj("widget"), obj("gadget")]
    kin = kinship(objects, KBContext(isa=(("widget", "gadget", "e9"),)))
    assert any(link.parent == "pan" and link.how.startswith("wordnet:") for link in kin.parents["frying_pan"])
    assert ("saucepan", "pan") in kin.sibling_links("frying_pan")
    assert [(link.parent, link.how) for link in kin.parents["widget"]] == [("gadget", "e9")]
    weights, sources = kin_of(["frying_pan"], kin)
    assert "pan" in weights and "saucepan" in weights and "frying_pan" not in weights
    [parent] = sources["pan"]
    assert (parent.positive, parent.relation) == ("frying_pan", "parent") and parent.via.startswith("wordnet:")
    assert KinLink("frying_pan", "sibling", "pan") in sources["saucepan"]  # the parent the two share
    assert KinLink("frying_pan", "sibling", "pan").to_json() == {"of": "frying_pan", "as": "sibling", "via": "pan"}
    knife = ObjectRecord("knife", "", ("blade",), ())
    _, by_part = kin_of(["knife"], kinship([knife, obj("blade")], KBContext()))
    assert by_part == {"blade": (KinLink("knife", "part"),)}
    assert by_part["blade"][0].to_json() == {"of": "knife", "as": "part"}


def test_an_object_takes_its_most_frequent_sense_when_that_sense_is_in_the_kbs_domain() -> None:
    """In a KB about animals a dog is the animal (a parent ``domestic_animal``), not the pawl that the artifact
    preference reads it as (a parent ``catch``, whose facts it would inherit); in a KB about things people use the
    artifact preference stands (the computer mouse)."""
    pets = [obj(n) for n in ("dog", "cat", "hamster", "kitten", "ferret", "catch", "domestic_animal", "carnivore")]
    assert kb_domain(o.id for o in pets) == "noun.animal"
    assert [link.parent for link in kinship(pets, KBContext()).parents["dog"]] == ["catch"]  # no domain: the pawl
    read = kinship(pets, KBContext(domain="noun.animal"))
    assert [(link.parent, link.level) for link in read.parents["dog"]] == [("domestic_animal", 1), ("carnivore", 2)]
    assert [link.parent for link in read.parents["cat"]] == ["carnivore"]
    things = ["mouse", "keyboard", "monitor", "cable", "desk", "lamp"]
    assert kb_domain(things) == "noun.artifact"
    assert wordnet.noun_synset(object_sense("mouse", (), "noun.artifact")).lexname == "noun.artifact"
    assert object_sense("sponge", (), "noun.animal") == object_sense("sponge")  # its first sense is no animal


def test_kb_input_reads_objects_in_the_kbs_domain(tmp_path: Path) -> None:
    """Through ``kari induce --db``'s KB input: in a KB about pets a dog inherits nothing from a door catch."""
    from kari.induce.kbinput import kb_evidence
    from kari.kb.store import load_files, open_db

    edges = [(pet, "UsedFor", "cuddling") for pet in ("dog", "cat", "hamster", "kitten", "ferret", "puppy")]
    edges += [(pet, "HasA", "fur") for pet in ("dog", "cat", "hamster", "kitten", "ferret", "puppy")]
    edges += [("catch", "MadeOf", "metal"), ("catch", "UsedFor", "fastening"), ("latch", "MadeOf", "metal")]
    kb = tmp_path / "pets.tsv"
    kb.write_text("id\tnode1\trelation\tnode2\n" + "".join(f"e{i}\t{a}\t{r}\t{b}\n" for i, (a, r, b) in
                                                            enumerate(edges)), encoding="utf-8")
    con = open_db(tmp_path / "pets.duckdb")
    load_files(con, [kb])
    con.close()
    grouped, _ = kb_evidence(tmp_path / "pets.duckdb", Vocabulary.load(), InduceConfig())
    [cuddle] = [ev for ev in grouped.values() if "dog" in {o.id for o in ev.positives}]
    dog = next(o for o in cuddle.positives if o.id == "dog")
    assert not [p for p in dog.properties if p.predicate == "MADE_OF"], dog.properties
    assert "catch" not in {o.id for o in cuddle.pooled}


def test_implicit_negatives_weigh_more_the_more_uses_the_kb_states() -> None:
    values = [negative_weight(d) for d in range(6)]
    assert values == sorted(values) and 0 < values[0] < 0.2 and values[-1] < 1


def test_the_branch_search_weighs_objects(vocab: Vocabulary) -> None:
    """Unweighted, MADE_OF:metal covers 3 positives and 2 negatives, SHAPE:flat 2 positives and no negative; when the
    two negatives barely count (PU weights), the wider branch is better."""
    positives = [obj(f"p{i}", ("MADE_OF", "metal"), *([("SHAPE", "flat")] if i < 2 else [])) for i in range(3)]
    negatives = [obj(f"n{i}", ("MADE_OF", "metal")) for i in range(2)]
    settings = ProposerSettings(max_atoms=1, min_support=1, min_objects=1, min_precision=0.0)
    plain = VectorBranchSearch(positives, negatives, vocab, settings)
    weighed = VectorBranchSearch(positives, negatives, vocab, settings,
                                 weights={n.id: 0.125 for n in negatives})
    at = plain.best(positives, weight=0.6)
    assert at is not None and at.branch == Atom("SHAPE", "flat")
    heavy = weighed.best(positives, weight=0.6)
    assert heavy is not None and heavy.covers == ("p0", "p1", "p2") and heavy.negatives == ("n0", "n1")
    same = VectorBranchSearch(positives, negatives, vocab, settings, weights={o.id: 1.0 for o in positives})
    assert same.best(positives, weight=0.6).branch == at.branch  # type: ignore[union-attr]
    assert units(0.125) == 1 and units(1.0) == 8 and units(0.0) == 0


def test_pooled_kin_count_but_never_make_a_branch_alone(vocab: Vocabulary) -> None:
    stated = [obj("axe", ("MADE_OF", "metal"))]
    kin = [obj(f"k{i}", ("SHAPE", "sharp_edge")) for i in range(4)]
    universe = tuple([*stated, *kin, *(obj(f"n{i}", ("MADE_OF", "wood")) for i in range(4))])
    proposer = SymbolicProposer(vocab, ProposerSettings(min_support=1, min_objects=1, min_precision=0.0))
    task = ProposalTask("chop", "", 1, None, tuple(stated), tuple(o for o in universe if o.id.startswith("n")),
                        seen=tuple(stated), pooled=tuple(kin))
    proposal = proposer.propose(task)
    assert proposal.body is not None
    assert all(Atom("SHAPE", "sharp_edge") not in (b.atoms() if hasattr(b, "atoms") else ())
               or Atom("MADE_OF", "metal") in b.atoms()
               for b in (proposal.body.args if hasattr(proposal.body, "args") else (proposal.body,)))


def test_weights_share_their_base_and_digest_their_own() -> None:
    base = Weights({"a": 0.5, "b": 0.25})
    one, two = base.with_own({"k": 1.0}), base.with_own({"k": 0.5})
    assert one["a"] == 0.5 and one["k"] == 1.0 and one.get("zz", 1.0) == 1.0 and len(one) == 3
    assert one.digest() != two.digest() and one.digest() == base.with_own({"k": 1.0}).digest()


def test_a_group_resting_on_one_kb_object_gets_no_rule_and_is_recorded_as_left_out() -> None:
    from kari.induce.grouping import VerbMember

    knife, saw = obj("knife", ("SHAPE", "sharp_edge")), obj("saw", ("SHAPE", "sharp_edge"))
    lone = Evidence("whittle", "", (knife,), (), (knife, saw),
                    members=(VerbMember("whittle", ("whittle",), 1), VerbMember("whittle_wood", ("whittle wood",), 1)))
    pooled = Evidence("saw_off", "", (saw,), (), (knife, saw), pooled=(knife,))
    pair = Evidence("cut", "", (knife, saw), (), (knife, saw))
    part = Evidence("grip", "", (obj("handle"),), (), (), part_level=True)
    groups = {"whittle": lone, "saw_off": pooled, "cut": pair, "grip": part}
    assert [evidence_objects(ev) for ev in groups.values()] == [1, 2, 2, 1]
    kept, left = split_thin(groups, 2)
    assert set(kept) == {"saw_off", "cut", "grip"}          # kin count; a part-level group keeps its one part
    assert [(r["verb"], r["reason"], r["positives"]) for r in left] == [("whittle", "thin-evidence", 1),
                                                                       ("whittle_wood", "thin-evidence", 1)]
    assert "knife" in str(left[0]["detail"]) and "fewer than 2" in str(left[0]["detail"])
    assert set(split_thin(groups, 1)[0]) == set(groups)
    assert set(split_thin(groups, 3)[0]) == {"grip"}


# --- item 3: held-out precision and flags --------------------------------------------------------------------------

def _group(n_pos: int, vocab: Vocabulary) -> Evidence:
    positives = tuple(obj(f"cutter{i}", ("SHAPE", "sharp_edge"), ("MADE_OF", "metal")) for i in range(n_pos))
    negatives = tuple(obj(f"thing{i}", ("MADE_OF", "wood" if i % 2 else "metal")) for i in range(30))
    return Evidence("cut", "", positives, (), (*positives, *negatives), weights=Weights({o.id: 0.5 for o in negatives}))


def test_a_clear_rule_is_better_than_the_base_rate_out_of_sample(vocab: Vocabulary) -> None:
    estimate = heldout_precision(_group(6, vocab), InduceConfig(tune=False).for_input("db"), vocab)
    assert not estimate.flagged and estimate.folds == 3 and estimate.positives == 6
    assert estimate.precision is not None and estimate.precision > estimate.base_rate
    assert estimate.recall == 1.0 and estimate.to_json()["flagged"] is False


def test_a_rule_on_one_positive_is_flagged_it_cannot_be_judged_out_of_sample(vocab: Vocabulary) -> None:
    estimate = heldout_precision(_group(1, vocab), InduceConfig(tune=False).for_input("db"), vocab)
    assert estimate.flagged and str(MIN_POSITIVES) in estimate.reason and estimate.precision is None


def test_a_rule_no_better_than_the_base_rate_is_flagged(vocab: Vocabulary) -> None:
    """Positives that share nothing the negatives lack: out of sample the rule finds no more positives per object
    covered than an everything-rule."""
    positives = tuple(obj(f"p{i}", ("MADE_OF", "wood" if i % 2 else "metal")) for i in range(4))
    negatives = tuple(obj(f"n{i}", ("MADE_OF", "wood" if i % 2 else "metal")) for i in range(40))
    ev = Evidence("vague", "", positives, (), (*positives, *negatives))
    estimate = heldout_precision(ev, InduceConfig(tune=False).for_input("db"), vocab)
    assert estimate.flagged, estimate


# --- players and files ---------------------------------------------------------------------------------------------

def test_players_skip_flagged_rules_unless_asked_to_use_them(vocab: Vocabulary) -> None:
    from kari.core.game_settings import PlayConfig
    from kari.game.match import RuleSource
    from kari.rules.anchors import usable_rules
    from kari.rules.anchors import is_flagged
    from kari.induce.folds import RuleSets

    good = Rule("cut", Atom("SHAPE", "sharp_edge"), {"flagged": False, "heldout": {"precision": 0.5}})
    bad = Rule("peel", Atom("MADE_OF", "metal"), {"flagged": True})
    assert is_flagged(bad) and not is_flagged(good)
    assert usable_rules([good, bad]) == [good] and usable_rules([good, bad], "use") == [good, bad]
    source = RuleSource.of(RuleSets(Path("r.jsonl"), {0: [good, bad]}, None), vocab, mode="exact")
    assert source.skipped == 1 and [r.affordance for r in source.matchers[0].rules] == ["cut"]
    used = RuleSource.of(RuleSets(Path("r.jsonl"), {0: [good, bad]}, None), vocab, mode="exact", flagged="use")
    assert used.skipped == 0 and len(used.matchers[0].rules) == 2
    config = PlayConfig(bench=Path("b"), questioner="greedy-ig")
    assert config.flagged == "skip" and "flagged_rules" not in config.identity()
    assert PlayConfig(bench=Path("b"), questioner="greedy-ig", flagged_rules="use").identity()["flagged_rules"] == "use"


def test_heldout_estimates_spread_over_worker_processes_are_those_of_one_process(
        vocab: Vocabulary, monkeypatch: pytest.MonkeyPatch) -> None:
    from kari.induce import kbweights
    from kari.io import jobs

    groups = {f"cut{n}": replace(_group(n, vocab), affordance=f"cut{n}") for n in (1, 2, 3, 5, 6)}
    rules = [Rule(a, Atom("SHAPE", "sharp_edge")) for a in groups] + [Rule("unjudged", Atom("SHAPE", "flat"))]
    config = InduceConfig(tune=False).for_input("db")
    spread = []
    monkeypatch.setattr(kbweights, "spread_over", lambda n: spread.append(n) or 1)
    serial = kbweights.weigh_rules(rules, groups, config, vocab)
    forked_in: set[int] = set()

    def run_jobs(todo: list[Any], workers: int) -> list[Any]:  # the real pool, recording where each job ran
        forked_in.update(jobs.run_jobs([lambda: os.getpid() for _ in todo], workers))
        return jobs.run_jobs(todo, workers)

    monkeypatch.setattr(kbweights, "spread_over", lambda n: 2)
    monkeypatch.setattr(kbweights, "run_jobs", run_jobs)
    assert kbweights.weigh_rules(rules, groups, config, vocab) == serial
    assert spread == [5] and os.getpid() not in forked_in
    assert list(serial[1]) == list(groups) and serial[0][-1] == rules[-1]
    assert jobs.spread_over(jobs.MIN_SPREAD - 1) == 1 and jobs.spread_over(jobs.MIN_SPREAD) == jobs.available_cores()


def test_a_kb_rule_is_weighed_by_its_heldout_precision() -> None:
    from kari.game.rule_weights import rule_weight

    heldout = {"precision": 0.6, "positives": 10, "covered_positives": 6, "covered_negative_weight": 4.0,
               "covered_negatives": 8}
    rule = Rule("cut", Atom("SHAPE", "sharp_edge"), {"heldout": heldout, "flagged": False,
                                                     "evidence_counts": {"positives": 10, "covered_positives": 10,
                                                                         "covered_negatives": 0, "negatives": 90}})
    weight = rule_weight(rule)
    assert weight.basis == "heldout" and weight.support == 6
    in_sample = rule_weight(Rule("cut", Atom("SHAPE", "sharp_edge"), {"evidence_counts": rule.metadata["evidence_counts"]}))
    assert in_sample.basis == "evidence" and weight.satisfied < in_sample.satisfied  # held out: less sure


def test_a_min_kb_objects_below_one_is_refused(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    code, _, err = kari(capfd, "induce", "--db", tmp_path / "kb.duckdb", "--min-kb-objects", "0",
                        "--out", tmp_path / "rules.kari")
    assert code == 2 and "--min-kb-objects" in one_line(err)
    assert not (tmp_path / "rules.kari").exists()


def test_bad_flagged_rules_value_is_refused(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    code, _, err = kari(capfd, "play", "--bench", "tests/data/raw_mini", "--questioner", "greedy-ig",
                        "--flagged-rules", "maybe", "--out", tmp_path / "run")
    assert code == 2 and "--flagged-rules" in one_line(err)


# --- end to end on the bundled KB ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bundled_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from kari.kb.store import load_files, open_db
    from kari.resources import bundled_kb_file

    db = tmp_path_factory.mktemp("kb") / "kb.duckdb"
    con = open_db(db)
    load_files(con, [bundled_kb_file()])
    con.close()
    return db


def test_no_group_of_the_bundled_kb_is_a_function_word_or_an_adverb(bundled_db: Path) -> None:
    from kari.induce.kbinput import kb_evidence
    from kari.vocab.vocabulary import open_vocabulary

    grouped, info = kb_evidence(bundled_db, open_vocabulary(db=bundled_db), InduceConfig())
    assert not {"be", "it", "accurately", "with"} & set(grouped)
    left = {row["verb"]: row for row in info["left_out"]}
    assert left["be"]["reason"] == "function-word" and left["it"]["reason"] == "function-word"
    members = {m.verb for ev in grouped.values() for m in ev.members}
    assert "accurately_perform_placement" in members  # its head is the verb, 'perform'
    assert not members & set(left)
    assert int(info["inferred_facts"]) > 0 and any(ev.pooled for ev in grouped.values())
    assert "word:be" not in json.dumps(info)
    thin = [row for row in info["left_out"] if row["reason"] == "thin-evidence"]
    assert thin and all(evidence_objects(ev) >= 2 for ev in grouped.values() if not ev.part_level)
    everything, info_all = kb_evidence(bundled_db, open_vocabulary(db=bundled_db), InduceConfig(min_kb_objects=1))
    assert not [row for row in info_all["left_out"] if row["reason"] == "thin-evidence"]
    again = {m.verb for g in set(everything) - set(grouped) for m in everything[g].members}
    assert again == {row["verb"] for row in thin}          # exactly the thin groups' verbs come back


def test_induce_db_writes_heldout_precision_flags_and_what_was_left_out(bundled_db: Path, tmp_path: Path) -> None:
    from kari.induce.run import induce

    out = tmp_path / "rules.kari"
    outcome = induce(out=out, db=bundled_db, config=InduceConfig(affordances=("cut", "carry", "make_music")), argv=[])
    rows = {json.loads(line)["affordance"]: json.loads(line) for line in out.with_suffix(".jsonl").read_text().splitlines()}
    assert set(rows) >= {"cut", "carry"}
    for row in rows.values():
        held = row["heldout"]
        assert set(held) >= {"precision", "positives", "covered_positives", "base_rate", "flagged", "flag_reason"}
        assert row["flagged"] == held["flagged"]
        if held["flagged"]:
            assert held["flag_reason"]
        else:
            assert held["precision"] > held["base_rate"]
    assert not rows["cut"]["flagged"]
    pooled = [row for row in rows.values() if row.get("kb_pooled")]
    assert pooled  # every pooled kin says of which stated positive it is kin, and how
    for row in pooled:
        assert set(row["kb_pooled_via"]) == set(row["kb_pooled"])
        for links in row["kb_pooled_via"].values():
            assert links and all(link["of"] in row["kb_positives"] and link["as"] in {"part", "parent", "sibling"}
                                 for link in links)
    run = outcome.run_dir
    assert (run / "heldout.json").is_file() and (run / "left_out.jsonl").is_file()
    report = (run / "report.md").read_text()
    assert "## Left out" in report and "function-word" in report
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["input"]["left_out"]["function-word"] >= 2
    again = induce(out=out, db=bundled_db, config=InduceConfig(affordances=("cut", "carry", "make_music")), argv=[])
    assert [r.metadata["heldout"] for r in again.rules] == [r.metadata["heldout"] for r in outcome.rules]  # resumed
    saved = json.loads((run / "heldout.json").read_text())
    saved["rules"]["cut"]["precision"] = 0.123456  # a resumed run reads this back; --fresh must start over
    (run / "heldout.json").write_text(json.dumps(saved))
    fresh = induce(out=out, db=bundled_db, config=InduceConfig(affordances=("cut", "carry", "make_music")), argv=[],
                   fresh=True)
    assert [r.metadata["heldout"] for r in fresh.rules] == [r.metadata["heldout"] for r in outcome.rules]


def test_the_wordnet_sense_tables_rebuild_byte_identical(tmp_path: Path) -> None:
    """data/wordnet/'s sense tables are what data/build/wordnet_senses.py makes of a WordNet 3.0 database folder."""
    import subprocess
    import sys

    source = Path("/usr/share/wordnet")
    if not (source / "index.sense").is_file():
        pytest.skip("no WordNet 3.0 database with its sense index at /usr/share/wordnet (Debian: apt-get install "
                    "wordnet-base wordnet-sense-index)")
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, str(root / "data" / "build" / "wordnet_senses.py"), "--wordnet", str(source),
                    "--out", str(tmp_path)], check=True, capture_output=True)
    for name in ("verb_senses.tsv", "verb_synsets.tsv", "noun_senses.tsv", "noun_synsets.tsv", "adverbs.tsv"):
        assert (tmp_path / name).read_bytes() == (root / "data" / "wordnet" / name).read_bytes(), name


def test_kb_context_reads_isa_edges_sentences_and_verb_counts(tmp_path: Path) -> None:
    from kari.kb.store import load_files, open_db

    kb = tmp_path / "kb.tsv"
    header = "id\tnode1\trelation\tnode2\tnode1;label\tnode2;label\trelation;label\trelation;dimension\tsource\tsentence\n"
    rows = ["e1\t/c/en/skillet\t/r/IsA\t/c/en/pan\tskillet\tpan\tis a\t\tConceptNet\t",
            "e2\t/c/en/pan\t/r/MadeOf\t/c/en/metal\tpan\tmetal\tmade of\t\tConceptNet\t",
            "e3\t/c/en/skillet\t/r/UsedFor\t/c/en/frying\tskillet\tfrying\tused for\t\tConceptNet\tWordNet skillet.n.01: a pan used for frying",
            "e4\t/c/en/skillet\t/r/HasProperty\t/c/en/flat\tskillet\tflat\thas property\t\tConceptNet\t"]
    kb.write_text(header + "\n".join(rows) + "\n", encoding="utf-8")
    db = tmp_path / "kb.duckdb"
    con = open_db(db)
    load_files(con, [kb])
    con.close()
    context = read_context(db)
    assert ("skillet", "pan", "e1") in context.isa
    assert context.verb_counts["skillet"] == 1 and context.verb_relations["frying"] == ("used for",)
    assert context.object_sentences["skillet"] and context.verb_sentences["frying"]
    from kari.induce.kbinput import kb_evidence
    from kari.vocab.vocabulary import open_vocabulary

    grouped, _ = kb_evidence(db, open_vocabulary(db=db), InduceConfig())
    [group] = grouped.values()
    [skillet] = group.positives
    inherited = [p for p in skillet.properties if p.inferred]
    assert [(p.predicate, p.value) for p in inherited] == [("MADE_OF", "metal")] and "e1" in inherited[0].edges
    assert group.members[0].statements == ("used_for_frying",)


def _coverage_skips_flagged_rules_everywhere(capfd: pytest.CaptureFixture[str], tmp_path: Path, rules: Path) -> None:
    """``kari coverage --flagged-rules skip`` leaves the flagged rules out of its tables, its proofs and its ledger
    alike (the proofs are checked against the table's rule numbers, so all three must read the same rules)."""
    import duckdb

    db, proofs, ledger = tmp_path / "skip.duckdb", tmp_path / "proofs.jsonl", tmp_path / "gaps.jsonl"
    code, stdout, err = kari(capfd, "coverage", "--rules", rules, "--bench", "tests/data/raw_mini", "--db", db,
                             "--rule-match", "exact", "--flagged-rules", "skip", "--explain", proofs, "--ledger", ledger)
    assert code == 0, err
    assert "1 rules (2 flagged KB rules left out, as players leave them out: --flagged-rules skip) x " in stdout
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT DISTINCT rule, affordance FROM coverage").fetchall() == [(0, "cut")]
        assert {r for (r,) in con.execute("SELECT DISTINCT rule FROM rule_matches").fetchall()} == {"cut"}
        ledger_rules = dict(con.execute("SELECT target, list(DISTINCT rule) FROM kb_gap_games GROUP BY ALL").fetchall())
        assert ledger_rules["cut"] == ["cut"] and ledger_rules["cook_in"] == [None], ledger_rules  # no rule: skipped
    finally:
        con.close()
    proofs_of = [json.loads(line) for line in proofs.read_text().splitlines()]
    assert proofs_of and {(p["rule_index"], p["affordance"]) for p in proofs_of} == {(0, "cut")}
    code, _, err = kari(capfd, "coverage", "--rules", rules, "--bench", "tests/data/raw_mini", "--db",
                        tmp_path / "bad.duckdb", "--flagged-rules", "maybe")
    assert code == 2 and "--flagged-rules" in one_line(err) and not (tmp_path / "bad.duckdb").exists()


def test_a_run_summary_counts_the_rules_given_and_the_flagged_ones_skipped(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    from kari.rules.rulefile import dump_rules_jsonl

    rules = tmp_path / "rules.jsonl"  # KB-style rules of raw_mini's affordances: one unflagged, two flagged
    rules.write_text(dump_rules_jsonl([  # the unflagged rule last: its number differs once the others are left out
        Rule("cook_in", Atom("MADE_OF", "metal"), {"flagged": True, "kb_positives": ["pan"]}),
        Rule("carry_things_in", Atom("SHAPE", "hollow"), {"flagged": True, "kb_positives": ["bag"]}),
        Rule("cut", Atom("SHAPE", "sharp_edge"), {"flagged": False, "kb_positives": ["knife", "axe"]})]))
    given = {}
    for flagged in ("skip", "use"):
        out = tmp_path / flagged
        code, stdout, err = kari(capfd, "play", "--bench", "tests/data/raw_mini", "--questioner", "greedy-ig",
                                 "--rules", rules, "--rule-match", "exact", "--flagged-rules", flagged,
                                 "--games", 2, "--out", out)
        assert code == 0, err
        given[flagged] = json.loads((out / "summary.json").read_text())["rules_given"]
        assert ("2 flagged KB rules skipped" in stdout) == (flagged == "skip"), stdout
    assert given == {"skip": {"rule_sets": 1, "rules": 1, "flagged_skipped": 2},
                     "use": {"rule_sets": 1, "rules": 3, "flagged_skipped": 0}}
    code, stdout, err = kari(capfd, "coverage", "--rules", rules, "--bench", "tests/data/raw_mini", "--db",
                             tmp_path / "coverage.duckdb", "--rule-match", "exact")
    assert code == 0, err  # coverage counts every rule, and says how many of them the players skip
    assert ("3 rules (2 of them flagged KB rules, counted here; kari play and kari pipeline skip them unless "
            "--flagged-rules use, and kari coverage --flagged-rules skip leaves them out) x " in stdout)
    _coverage_skips_flagged_rules_everywhere(capfd, tmp_path, rules)
    shards = [tmp_path / f"shard{k}" for k in (1, 2)]
    for k, shard in enumerate(shards, 1):
        assert kari(capfd, "play", "--bench", "tests/data/raw_mini", "--questioner", "greedy-ig", "--rules", rules,
                    "--rule-match", "exact", "--games", 2, "--shard", f"{k}/2", "--out", shard)[0] == 0
    assert kari(capfd, "merge", *shards, "--out", tmp_path / "merged")[0] == 0
    merged = json.loads((tmp_path / "merged" / "summary.json").read_text())
    assert merged["rules_given"] == given["skip"]  # the shards' record, as the run played unsharded
    assert kari(capfd, "report", tmp_path / "skip", "--out", tmp_path / "report")[0] == 0
    report = (tmp_path / "report" / "report.md").read_text()
    assert ("3 rules (2 of them flagged as no better than the KB's base rate and skipped by the player: 1 used)"
            in report)
