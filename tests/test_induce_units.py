"""Units of the KARI loop: split, the clingo Proposer, the KB Validator, add-only, the Auditor, the repair cycle."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kari.core.benchmark import ObjectRecord, Property
from kari.induce.auditor import Auditor
from kari.core.induce_config import InduceConfig
from kari.induce.inputs import Evidence
from kari.induce.loop import Components, add_only_problems, induce_affordance
from kari.induce.offline import KBValidator, ProposerSettings, SymbolicProposer, best_branch
from kari.induce.proposer import Proposal, ProposalTask
from kari.induce.split import split_groups
from kari.rules.ast import And, Atom, Or, Part
from kari.vocab.vocabulary import Vocabulary


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load()


def obj(name: str, *props: tuple[str, ...]) -> ObjectRecord:
    parts = tuple(sorted({p[0] for p in props if len(p) == 3}))
    return ObjectRecord(name, "", parts, tuple(Property(*p) if len(p) == 3 else Property("whole", *p) for p in props))


KNIFE = obj("knife", ("blade", "MADE_OF", "steel"), ("blade", "SHAPE", "sharp_edge"), ("handle", "MADE_OF", "wood"))
AXE = obj("axe", ("head", "MADE_OF", "iron"), ("head", "SHAPE", "sharp_edge"), ("handle", "MADE_OF", "wood"))
SCISSORS = obj("scissors", ("MADE_OF", "steel"), ("SHAPE", "sharp_edge"))
SPOON = obj("spoon", ("MADE_OF", "steel"), ("SHAPE", "round"))
# the sharp part is plastic, the metal part is blunt: covered by AND on the whole object, not by one PART
RAZOR_TOY = obj("toy", ("edge", "MADE_OF", "plastic"), ("edge", "SHAPE", "sharp_edge"), ("pin", "MADE_OF", "steel"))
PAPER = obj("paper", ("MADE_OF", "paper"), ("SHAPE", "sharp_edge"))


def test_split_is_seeded_and_complete() -> None:
    ids = [f"o{i}" for i in range(11)]
    groups = split_groups(ids, 3, seed=4, salt="cut")
    assert groups == split_groups(list(reversed(ids)), 3, seed=4, salt="cut")
    assert sorted(x for g in groups for x in g) == sorted(ids)
    assert groups != split_groups(ids, 3, seed=5, salt="cut")
    assert split_groups(["a"], 3) == [["a"], [], []]


def test_proposer_generalises_with_the_taxonomy(vocab: Vocabulary) -> None:
    choice = best_branch([KNIFE, AXE, SCISSORS], [SPOON, PAPER], vocab)
    assert choice is not None and choice.optimal
    # sharp_edge alone would cover the paper negative; steel and iron generalise to the most general value that
    # still excludes paper (rigid_material, above metal)
    assert set(choice.branch.atoms()) == {Atom("MADE_OF", "rigid_material"), Atom("SHAPE", "sharp_edge")}
    assert choice.covers == ("axe", "knife", "scissors") and choice.negatives == ()


EXACT = ProposerSettings(min_support=1, min_objects=1, min_precision=1.0, m_estimate=0)
"""No noise allowance: a branch must cover no negative."""


def test_proposer_prefers_fewer_atoms_then_coverage_first(vocab: Vocabulary) -> None:
    choice = best_branch([KNIFE, AXE, SCISSORS], [SPOON], vocab)
    assert choice is not None and choice.branch == Atom("SHAPE", "sharp_edge")
    # with a precision floor of 1.0 the negative must be excluded; max one atom makes that impossible here
    twin = obj("twin", ("MADE_OF", "steel"), ("SHAPE", "sharp_edge"))
    assert best_branch([SCISSORS], [twin], vocab, EXACT) is None


def test_strict_semantics_proposes_a_part(vocab: Vocabulary) -> None:
    cutter = obj(
        "cutter", ("blade", "MADE_OF", "steel"), ("blade", "SHAPE", "sharp_edge"), ("grip", "MADE_OF", "plastic")
    )
    # (parts are SHAPE facts too: the two grips are named differently, so no part name is shared)
    chisel = obj("chisel", ("tip", "MADE_OF", "iron"), ("tip", "SHAPE", "sharp_edge"), ("handle", "MADE_OF", "plastic"))
    negatives = [RAZOR_TOY, PAPER, SPOON]
    choice = best_branch([cutter, chisel], negatives, vocab, replace(EXACT, strict=True))
    assert choice is not None and choice.covers == ("chisel", "cutter")
    assert choice.branch == Part("x", And((Atom("MADE_OF", "rigid_material", "x"), Atom("SHAPE", "sharp_edge", "x"))))
    # on the whole object (any-part reading) no branch covers both without the toy
    loose = best_branch([cutter, chisel], negatives, vocab, EXACT)
    assert loose is not None and len(loose.covers) == 1


def test_min_support_and_rare_values(vocab: Vocabulary) -> None:
    lonely = obj("lonely", ("MADE_OF", "glass"), ("SHAPE", "round"))
    assert best_branch([KNIFE, lonely], [SPOON, PAPER], vocab, replace(EXACT, min_support=2)) is None
    assert best_branch([KNIFE, lonely], [SPOON, PAPER], vocab, EXACT) is not None
    # a value only one object holds is never proposed with min_objects=2, however well it separates
    only_glass = best_branch([lonely], [SPOON, PAPER], vocab, replace(EXACT, min_objects=2))
    assert only_glass is None
    # ... and a share of the positives: the knife and the axe share atoms, the rubber ball shares none with them
    ball = obj("ball", ("MADE_OF", "rubber"), ("SHAPE", "round"))
    share = best_branch([KNIFE, AXE, ball], [PAPER], vocab, replace(EXACT, min_coverage=0.6))
    assert share is not None and set(share.covers) == {"axe", "knife"}
    assert best_branch([KNIFE, AXE, ball], [PAPER], vocab, replace(EXACT, min_coverage=0.9)) is None


def test_kb_validator_uses_the_taxonomy(vocab: Vocabulary) -> None:
    atoms = [Atom("MADE_OF", "metal", "x"), Atom("MADE_OF", "wood"), Atom("SHAPE", "round")]
    [labels] = KBValidator(vocab).label_many("cut", [KNIFE], atoms)
    assert labels.labels == {atoms[0]: True, atoms[1]: True, atoms[2]: False} and labels.unanswered == ()


def test_add_only() -> None:
    a, b, c = Atom("SHAPE", "flat"), Atom("MADE_OF", "metal"), Atom("SIZE", "small")
    assert add_only_problems(None, Or((a, b))) == []
    assert add_only_problems(Or((a, b)), Or((a, b, c))) == []
    assert add_only_problems(a, Or((a, c))) == []
    assert "changes or reorders" in add_only_problems(Or((a, b)), Or((b, a, c)))[0]
    assert "exactly ONE" in add_only_problems(Or((a, b)), Or((a, b, c, Atom("SIZE", "long"))))[0]
    assert "exactly ONE" in add_only_problems(Or((a, b)), Or((a, b)))[0]


def test_auditor_maps_checks_and_adds(vocab: Vocabulary) -> None:
    local = Vocabulary.load()
    auditor = Auditor(local)  # no embedder: exact / normalised matching, then NEW
    body = Or((Atom("SHAPE", "flat"), And((Atom("MADE_OF", "Metallic"), Atom("SURFACE", "glittery_ish")))))
    result = auditor.audit(body, 1, affordance="decorate", round=2)
    assert result.errors == []
    assert result.body == Or((Atom("SHAPE", "flat"), And((Atom("MADE_OF", "metal"), Atom("SURFACE", "glittery_ish")))))
    assert [(e.decision, e.value) for e in result.events] == [("normalised", "metal"), ("new", "glittery_ish")]
    assert "glittery_ish" not in local.values("SURFACE")  # nothing changes before the proposal is accepted
    result.commit()
    assert local.provenance("SURFACE", "glittery_ish") == "induce:decorate:round2"
    bad = auditor.audit(
        Or((Atom("MADE_OF", "cylindrical"), Atom("SHAPE", "foldable"), Atom("SHAPE", "decorate"))),
        0,
        affordance="decorate",
        round=1,
    )
    assert bad.body is None and len(bad.errors) == 3
    assert "ill-typed" in bad.errors[0] and "dynamic" in bad.errors[1] and "affordance itself" in bad.errors[2]


class _ScriptedProposer:
    """Returns the given proposals in order (to drive the repair cycle)."""

    name = "scripted"

    def __init__(self, proposals: list[Proposal]) -> None:
        self.proposals = proposals
        self.feedback: list[tuple[str, ...]] = []

    def propose(self, task: ProposalTask) -> Proposal:
        self.feedback.append(task.feedback)
        return self.proposals.pop(0)


def test_repair_then_drop_is_recorded(vocab: Vocabulary) -> None:
    local = Vocabulary.load()
    good = Atom("SHAPE", "sharp_edge")
    proposer = _ScriptedProposer(
        [
            Proposal(None, "junk", "the reply is not a JSON object"),
            Proposal(Atom("MADE_OF", "cylindrical"), "{}"),
            Proposal(good, "{}"),
        ]
        + [Proposal(Or((Atom("SHAPE", "round"), good)), "{}")] * 3
    )
    comps = Components(proposer, KBValidator(local), Auditor(local), local)
    ev = Evidence("cut", "", (KNIFE, AXE, SCISSORS, PAPER, SPOON, RAZOR_TOY), (), ())
    result = induce_affordance(ev, comps, InduceConfig(groups=2, repair_attempts=2, backend="openai"))
    first, second = result["rounds"]
    assert (first["outcome"], first["attempts"]) == ("accepted", 3)
    assert "not a JSON object" in proposer.feedback[1][0] and "ill-typed" in proposer.feedback[2][1]
    if second["targets"]:  # round 2 proposals change the existing branch: rejected 3 times, then dropped
        assert second["outcome"] == "dropped"
        assert all("changes or reorders" in d["problems"][0] for d in result["dropped"][2:])
    assert result["rule"] == {"op": "SHAPE", "role": "whole", "class": "sharp_edge"}
    assert len(result["dropped"]) == 2 + (3 if second["targets"] else 0)


def test_offline_loop_on_toy_data(vocab: Vocabulary) -> None:
    local = Vocabulary.load()
    comps = Components(SymbolicProposer(local), KBValidator(local), Auditor(local), local)
    ev = Evidence("cut", "", (KNIFE, AXE, SCISSORS), (SPOON, PAPER), ())
    result = induce_affordance(ev, comps, InduceConfig())
    assert result["recall"] == 1.0 and result["negatives_source"] == "labelled"
    assert all(b["covers"] for b in result["branches"])


@pytest.mark.embed
def test_auditor_embedding_synonyms_and_when_unsure_new() -> None:
    pytest.importorskip("sentence_transformers")
    from kari.induce.auditor import make_embedder

    local = Vocabulary.load()
    auditor = Auditor(local, embedder=make_embedder, accept=0.8, reject=0.5)
    result = auditor.audit(
        Or((Atom("MADE_OF", "stainless steel alloy"), Atom("SURFACE", "quantum_flux"), Atom("MADE_OF", "stainless steels"))),
        0, affordance="cut", round=1
    )
    assert result.errors == []
    decisions = {e.raw: (e.decision, e.value) for e in result.events}
    assert decisions["stainless steel alloy"] == ("embedding", "stainless_steel")
    assert decisions["stainless steels"] == ("normalised", "stainless_steel")  # a plural: a word form, no embedding
    assert decisions["quantum_flux"][0] == "new"  # far from every SURFACE value: a new value, not a guess
    result.commit()
    assert local.normalise("MADE_OF", "stainless steel alloy") == "stainless_steel"


def test_timers_from_a_worker_add_to_the_runs_timers() -> None:
    from kari.induce.timers import Timers

    run, worker = Timers({"propose": [2, 1.0, 0.75]}), Timers({"propose": [1, 0.5, 0.5], "guard": [3, 0.3, 0.2]})
    run.merge(worker.stats)
    assert run.stats == {"propose": [3, 1.5, 0.75], "guard": [3, 0.3, 0.2]}


@pytest.mark.parametrize("workers", [1, 2])
def test_run_jobs_hands_each_value_over_in_order_as_it_comes(workers: int) -> None:
    import os

    from kari.io.jobs import run_jobs

    seen: list[tuple[int, int]] = []
    values = run_jobs([lambda n=n: (n, os.getpid()) for n in range(5)], workers, each=seen.append)
    assert seen == values and [n for n, _ in values] == [0, 1, 2, 3, 4]
    assert all(pid == os.getpid() for _, pid in values) == (workers == 1)
