"""KB-anchored induction: verb heads, verb grouping, pooled evidence, the settings search on sparse evidence, the
vectorised branch search and guard (checked against clingo), empty branches and the Auditor without embeddings."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from kari.core.benchmark import ObjectRecord, Property
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError
from kari.induce.auditor import Auditor
from kari.core.induce_config import InduceConfig
from kari.induce.fastsearch import VectorBranchSearch, vector_guard
from kari.induce.grouping import group_evidence, group_verbs, rule_name, wordnet_head
from kari.induce.guards import guard_branch
from kari.induce.inputs import Evidence
from kari.induce.loop import Components, induce_affordance
from kari.induce.offline import BranchSearch, KBValidator, ProposerSettings
from kari.induce.proposer import Proposal, ProposalTask
from kari.induce.tuning import choose_settings
from kari.induce.verbs import head_key, lexicon_of
from kari.rules.ast import And, Atom, Or


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load()


def obj(name: str, *props: tuple[str, str]) -> ObjectRecord:
    return ObjectRecord(name, "", (), tuple(Property("whole", p, v) for p, v in props))


# --- verb heads and groups ----------------------------------------------------------------------------------------

def test_head_keys_read_the_base_form_the_kb_itself_writes() -> None:
    verbs = ["cutting", "cut_bread", "cuts_loose_the_top_layer", "storing_drinks", "store_food", "as_a_weapon",
             "worn_by_women", "make_music", "make_noise", "keep_warm", "keeping_warm", "measuring", "opening"]
    known = lexicon_of(verbs).__contains__
    keys = {v: head_key(v, known) for v in verbs}
    assert keys["cutting"] == keys["cut_bread"] == keys["cuts_loose_the_top_layer"] == "cut"
    assert keys["storing_drinks"] == keys["store_food"] == "store"
    assert keys["as_a_weapon"] == "weapon" and keys["worn_by_women"] == "wear"
    assert keys["make_music"] == "make_music" != keys["make_noise"]  # a light verb keeps its object
    assert keys["keep_warm"] == keys["keeping_warm"] == "keep_warm"
    # no 'measure' / 'open' anywhere in this KB: the words stay as written (no made-up 'measur', 'opene')
    assert keys["measuring"] == "measuring" and keys["opening"] == "opening"


def test_groupings_lemma_wordnet_none() -> None:
    counts = {"cutting": 5, "cut_bread": 1, "decoration": 2, "decorate_a_room": 1, "keep": 1, "hold": 3, "part": 1}
    lemma = {g.verb: g.members for g in group_verbs(counts, "lemma")}
    assert lemma["cut"] == ("cut_bread", "cutting")
    assert "decoration" in lemma and "decorate" in lemma  # no morphology relates them
    assert "part_verb" in lemma  # a keyword of the rule language is never a rule name
    wordnet = {g.verb: g.members for g in group_verbs(counts, "wordnet")}
    assert wordnet["decorate"] == ("decorate_a_room", "decoration")  # decoration derives from decorate
    assert wordnet["hold"] == ("hold", "keep")  # one first WordNet sense (keep, maintain, hold)
    assert wordnet_head("worn") == "wear" and wordnet_head("storage") == "store"
    noise = {g.verb: g.members for g in group_verbs({"make_noise": 1, "makes_percussive_noises": 1}, "wordnet")}
    assert noise == {"make_noise": ("make_noise", "makes_percussive_noises")}  # the object's head, not its adjective
    none = group_verbs(counts, "none")
    assert [g.members for g in none] == [(v,) for v in sorted(counts)]
    with pytest.raises(KariError):
        group_verbs(counts, "stemming")
    assert rule_name("3d_print") == "v_3d_print" and rule_name("Or") == "or_verb"


class TableEmbedder:
    """Unit vectors from a table (the clustering's bookkeeping without the model)."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def encode(self, texts: list[str]) -> np.ndarray:
        rows = np.array([self.table[t] for t in texts], dtype=float)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_embedding_clusters_join_the_most_similar_centroid_above_the_threshold() -> None:
    table = {"cutting": [1, 0, 0], "slicing": [0.95, 0.3, 0], "storing": [0, 1, 0], "swim": [0, 0, 1]}
    groups = group_verbs({"cutting": 3, "slicing": 1, "storing": 2, "swim": 1}, "embedding", threshold=0.9,
                         embedder=TableEmbedder(table))
    assert {g.verb: g.members for g in groups} == {"cutting": ("cutting", "slicing"), "storing": ("storing",),
                                                   "swim": ("swim",)}
    apart = group_verbs({"cutting": 3, "slicing": 1}, "embedding", threshold=0.99, embedder=TableEmbedder(table))
    assert len(apart) == 2


def test_group_evidence_pools_positives_edges_and_keeps_the_members() -> None:
    knife, saw, bread = obj("knife", ("SHAPE", "bladed")), obj("saw", ("SHAPE", "toothed")), obj("bread")
    universe = (bread, knife, saw)
    ev = {"cutting": Evidence("cutting", "", (knife,), (), universe, {"knife": ("e1", "p1")}, raw=("cutting",)),
          "cut_wood": Evidence("cut_wood", "", (saw, knife), (bread,), universe, {"saw": ("e2",), "knife": ("e3",)},
                               raw=("cut wood",))}
    [(name, group)] = group_evidence(ev, "lemma").items()
    assert name == "cut" and [o.id for o in group.positives] == ["knife", "saw"]
    assert group.edges["knife"] == ("e3", "e1", "p1")  # members in name order: cut_wood, cutting
    assert [o.id for o in group.labelled_negatives] == ["bread"]
    assert [(m.verb, m.raw, m.positives) for m in group.members] == [("cut_wood", ("cut wood",), 2),
                                                                    ("cutting", ("cutting",), 1)]
    assert group.fingerprint() != ev["cut_wood"].fingerprint()


def test_induce_from_the_kb_database(tmp_path: Path) -> None:
    """--db: one rule per verb group, grounded in the KB's positives (affordance and property edges on every
    branch), its members and KB positives in the metadata, the grown vocabulary stored in the database."""
    import duckdb

    from kari.induce.run import induce
    from kari.kb.store import load_files, open_db
    from kari.resources import bundled_kb_file

    db = tmp_path / "kb.duckdb"
    con = open_db(db)
    load_files(con, [bundled_kb_file()])
    con.close()
    outcome = induce(out=tmp_path / "rules.kari", db=db, config=InduceConfig(affordances=("cut",)), argv=[])
    [rule] = outcome.rules
    members = {m["verb"] for m in rule.metadata["group"]["members"]}
    assert {"cutting", "cut_food", "as_a_cutting_instrument"} <= members
    assert rule.metadata["input"] == "kb" and len(rule.metadata["kb_positives"]) >= 10
    for meta in rule.branch_metadata:
        assert meta["covers"], "every branch covers a KB positive"
        assert set(meta["covers"]) <= set(rule.metadata["kb_positives"])
        assert any("UsedFor" in e or "CapableOf" in e for e in meta["edges"])
        assert any("HasProperty" in e or "MadeOf" in e or "HasA" in e for e in meta["edges"])
    counts = rule.metadata["evidence_counts"]
    assert counts["positives"] == len(rule.metadata["kb_positives"]) and counts["covered_positives"] >= 1
    assert outcome.scores["cut"].recall > 0
    with duckdb.connect(str(db), read_only=True) as con:
        kinds = dict(con.execute("SELECT kind, count(*) FROM vocabulary GROUP BY kind").fetchall())
    assert kinds["value"] > 100 and kinds["isa"] > 50


def test_the_settings_search_skips_evidence_that_cannot_separate_settings(vocab: Vocabulary) -> None:
    objects = [obj(f"o{i}", ("MADE_OF", "metal" if i % 2 else "wood")) for i in range(40)]
    sparse = {f"verb{i}": Evidence(f"verb{i}", "", (objects[i],), (), tuple(objects)) for i in range(30)}
    tuning = choose_settings(sparse, InduceConfig(), vocab, min_positives=10)
    assert tuning.chosen == {} and "cannot separate" in tuning.reason


def test_the_settings_search_judged_in_worker_processes_chooses_as_one_process(
        vocab: Vocabulary, monkeypatch: pytest.MonkeyPatch) -> None:
    from kari.induce import tuning
    from kari.io import jobs

    objects = [obj(f"o{i}", ("MADE_OF", "metal" if i % 3 else "wood"), ("SHAPE", "flat" if i % 2 else "round"))
               for i in range(60)]
    evidence = {"cut": Evidence("cut", "", tuple(objects[:12]), (), tuple(objects)),
                "roll": Evidence("roll", "", tuple(o for o in objects if o.id[-1] in "13579"), (), tuple(objects))}
    workers = []
    real = tuning.run_jobs
    monkeypatch.setattr(tuning, "run_jobs", lambda jobs, n: workers.append(n) or real(jobs, n))
    monkeypatch.setattr(tuning, "SPREAD_POSITIVES", 10 ** 6)
    alone = choose_settings(evidence, InduceConfig(), vocab)
    monkeypatch.setattr(tuning, "SPREAD_POSITIVES", 1)
    monkeypatch.setattr(jobs, "available_cores", lambda: 2)
    assert choose_settings(evidence, InduceConfig(), vocab) == alone and workers == [1, 2] and alone.scores


# --- the vectorised search and guard agree with clingo ------------------------------------------------------------

VALUES = {"MADE_OF": ["steel", "iron", "wood", "plastic", "glass", "rubber", "metal"],
          "SHAPE": ["flat", "round", "pointed", "hollow", "sharp_edge"],
          "SIZE": ["small", "medium", "large", "long", "thin"], "SURFACE": ["smooth", "rough", "shiny"]}


def _random_objects(rng: random.Random, n: int, prefix: str) -> list[ObjectRecord]:
    out = []
    for i in range(n):
        props = {(p, rng.choice(vs)) for p, vs in VALUES.items() for _ in range(rng.randint(0, 2))}
        out.append(obj(f"{prefix}{i}", *sorted(props)))
    return out


def _key(choice: object, targets: list[ObjectRecord], done: list[ObjectRecord], weight: float,
         vocab: Vocabulary) -> tuple[int, ...] | None:
    """propose.lp's lexicographic objective of an answer (lower is better)."""
    if choice is None:
        return None
    t = min(100, max(0, round(100 * weight)))
    gain = len(set(choice.covers) & {o.id for o in targets})  # type: ignore[attr-defined]
    cost = len(set(choice.negatives) - {o.id for o in done})  # type: ignore[attr-defined]
    atoms = list(choice.branch.atoms())  # type: ignore[attr-defined]
    depth = sum(len(vocab.ancestors(a.predicate, a.value)) for a in atoms)
    return (t * (gain + cost) - 100 * gain, -len(choice.covers), len(atoms), depth)  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(12))
def test_vectorised_branch_search_reaches_clingos_optimum(seed: int, vocab: Vocabulary) -> None:
    rng = random.Random(seed)
    positives, negatives = _random_objects(rng, rng.randint(1, 7), "p"), _random_objects(rng, rng.randint(3, 25), "n")
    settings = ProposerSettings(max_atoms=rng.choice([1, 2, 3]), min_support=rng.choice([1, 2]),
                                min_coverage=rng.choice([0.0, 0.2]), min_objects=rng.choice([1, 2, 3]),
                                m_estimate=rng.choice([0.0, 2.0]), min_precision=rng.choice([0.0, 0.3, 0.6]))
    clingo = BranchSearch(positives, negatives, vocab, settings)
    vector = VectorBranchSearch(positives, negatives, vocab, settings)
    for _ in range(3):
        targets = rng.sample(positives, rng.randint(1, len(positives)))
        focus = rng.sample(targets, rng.randint(0, len(targets)))
        done = rng.sample(negatives, rng.randint(0, len(negatives) // 2))
        weight = rng.choice([0.0, 0.2, 0.45])
        a = clingo.best(targets, round_targets=focus, done=done, weight=weight)
        b = vector.best(targets, round_targets=focus, done=done, weight=weight)
        assert _key(a, targets, done, weight, vocab) == _key(b, targets, done, weight, vocab)
        if b is not None:  # the answer's own coverage is what it says
            from kari.domain.objects import rule_holds
            from kari.rules.ast import Rule

            rule = Rule("x", b.branch)  # type: ignore[attr-defined]
            assert b.covers == tuple(sorted(o.id for o in positives if rule_holds(rule, o, vocab)))  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(12))
def test_both_searches_skip_refused_values_and_branches_alike(seed: int, vocab: Vocabulary) -> None:
    """A refused branch (and, separately, a refused value) is never chosen again: clingo and the vectorised
    search then reach the same next best answer."""
    from kari.induce.refusals import Refusals

    rng = random.Random(1000 + seed)
    positives, negatives = _random_objects(rng, rng.randint(2, 7), "p"), _random_objects(rng, rng.randint(3, 25), "n")
    settings = ProposerSettings(max_atoms=rng.choice([1, 2]), min_support=1, min_coverage=0.0, min_objects=1,
                                m_estimate=0.0, min_precision=rng.choice([0.0, 0.3]))
    first = VectorBranchSearch(positives, negatives, vocab, settings).best(positives)
    if first is None:
        return
    atoms = list(first.branch.atoms())  # type: ignore[attr-defined]
    for refused in (Refusals().plus(branches=[first.branch]),  # type: ignore[attr-defined]
                    Refusals().plus(values=[(atoms[0].predicate, atoms[0].value)])):
        a = BranchSearch(positives, negatives, vocab, settings, refused=refused).best(positives)
        b = VectorBranchSearch(positives, negatives, vocab, settings, refused=refused).best(positives)
        assert _key(a, positives, [], 0.5, vocab) == _key(b, positives, [], 0.5, vocab)
        for choice in (a, b):
            assert choice is None or refused.allows(choice.branch)  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(10))
def test_vectorised_guard_agrees_with_branch_lp(seed: int, vocab: Vocabulary) -> None:
    rng = random.Random(100 + seed)
    positives, negatives = _random_objects(rng, rng.randint(2, 8), "p"), _random_objects(rng, rng.randint(2, 20), "n")
    atoms = [Atom(p, rng.choice(VALUES[p])) for p in rng.choices(sorted(VALUES), k=rng.randint(1, 3))]
    found = vector_guard(atoms, positives, negatives, vocab, tolerance=5)
    conflicts, redundant, lifted = _branch_lp(atoms, positives, negatives, vocab)
    assert set(found.conflicts) == conflicts
    if conflicts:
        return
    assert found.redundant == redundant

    def cost(lift: dict[tuple[str, str], str]) -> tuple[int, int]:  # branch.lp's objective: depth, added negatives
        chosen = {(p, a) for (p, _), a in lift.items()}
        depth = sum(len(vocab.ancestors(p, a)) for p, a in chosen)
        holds = (lambda o, keys: all(a in {v for q, v in object_view(o, vocab).whole if q == p} for p, a in keys))
        was = {o.id for o in negatives if holds(o, lift)}
        now = {o.id for o in negatives if holds(o, chosen)}
        return depth, len(now - was)

    from kari.domain.objects import object_view

    assert cost(dict(found.lifted)) == cost(lifted)


def _branch_lp(atoms: list[Atom], positives: list[ObjectRecord], negatives: list[ObjectRecord],
               vocab: Vocabulary) -> tuple[set[tuple[str, str, str]], frozenset[tuple[str, str]], dict]:
    """solver/branch.lp itself on a whole-object conjunction: (conflicts, redundant atoms, lifting)."""
    from kari.induce.offline import avoid_facts
    from kari.solver.control import solve
    from kari.solver.facts import PREDICATE_OF_ASP, exclusive_facts, marks, object_facts, taxonomy_facts, value_facts

    objects = [*positives, *negatives]
    program = "\n".join([object_facts(objects, vocab), value_facts("given", [(a.predicate, a.value) for a in atoms]),
                         marks("positive", range(len(positives))),
                         marks("negative", range(len(positives), len(objects))),
                         taxonomy_facts(vocab), avoid_facts(vocab), exclusive_facts(vocab)])
    outcome = solve([program], ["facts.lp", "exclusive.lp", "branch.lp"], time_limit=30,
                    options=["--opt-mode=opt", "-c", "tol=5", "-c", "part=0"])
    found = [(str(a[0]), PREDICATE_OF_ASP[str(a[1])], *map(str, a[2:])) for a in outcome.atoms]
    conflicts = {(p, v1, v2) for name, p, v1, v2 in (f for f in found if f[0] == "conflict")}
    redundant = frozenset((p, v) for name, p, v in (f for f in found if f[0] == "redundant"))
    lifted = {(p, v): a for name, p, v, a in (f for f in found if f[0] == "lift")}
    return conflicts, redundant, lifted


def test_exclusive_values_never_share_a_branch(vocab: Vocabulary) -> None:
    both = obj("odd", ("SIZE", "small"), ("SIZE", "large"))
    result = guard_branch(And((Atom("SIZE", "small"), Atom("SIZE", "large"))), [both], [], vocab)
    assert result.branch is None and "exclusive group" in result.problems[0]


# --- branches that rest on no positive, and the Auditor without embeddings --------------------------------------

class _Fixed:
    """Proposes one given body once."""

    name = "fixed"

    def __init__(self, body: object) -> None:
        self.body = body

    def propose(self, task: ProposalTask) -> Proposal:
        body, self.body = self.body, None
        return Proposal(body, "{}") if body is not None else Proposal(None, "", "done", exhausted=True)


def test_a_branch_that_covers_no_positive_is_dropped(vocab: Vocabulary) -> None:
    knife, spoon = obj("knife", ("SHAPE", "sharp_edge")), obj("spoon", ("SHAPE", "round"))
    body = Or((Atom("SHAPE", "sharp_edge"), Atom("SHAPE", "hollow")))  # nothing known is hollow
    comps = Components(_Fixed(body), KBValidator(vocab), Auditor(vocab), vocab)
    result = induce_affordance(Evidence("cut", "", (knife,), (spoon,), ()), comps, InduceConfig(backend="openai",
                                                                                               groups=1))
    assert result["rule"] == {"op": "SHAPE", "role": "whole", "class": "sharp_edge"}
    assert any("covers no positive" in d["problems"][0] for d in result["dropped"])


def test_every_proposal_is_guarded_even_without_a_configured_guard(vocab: Vocabulary) -> None:
    odd = obj("odd", ("SIZE", "small"), ("SIZE", "large"))
    comps = Components(_Fixed(And((Atom("SIZE", "small"), Atom("SIZE", "large")))), KBValidator(vocab),
                       Auditor(vocab), vocab)  # an LLM-style proposer, no Guard given
    result = induce_affordance(Evidence("stack", "", (odd,), (), ()), comps,
                               InduceConfig(backend="openai", groups=1, repair_attempts=0))
    assert result["rule"] is None and "exclusive group" in result["dropped"][0]["problems"][0]


class _NoModel:
    def encode(self, texts: list[str]) -> np.ndarray:
        raise KariError("sentence-transformers is not installed", code="embed-missing")


def test_the_auditor_stops_without_embeddings_instead_of_adding_values_unjudged() -> None:
    local = Vocabulary.load()
    auditor = Auditor(local, embedder=lambda: _NoModel())
    known = auditor.audit(Atom("MADE_OF", "Metallic"), 0, affordance="cut", round=1)
    assert known.errors == [] and known.body == Atom("MADE_OF", "metal")  # no judgement needed: no model needed
    with pytest.raises(KariError) as caught:
        auditor.audit(Atom("SURFACE", "glittery_ish"), 0, affordance="cut", round=1)
    assert caught.value.code == "embed-missing" and "kari[embed]" in str(caught.value)
    assert "glittery_ish" not in local.values("SURFACE")


def test_the_wordnet_tables_rebuild_byte_identical(tmp_path: Path) -> None:
    """data/wordnet/ is what data/build/wordnet_verbs.py makes of a WordNet 3.0 database folder."""
    import subprocess
    import sys

    source = Path("/usr/share/wordnet")
    if not (source / "index.verb").is_file():
        pytest.skip("no WordNet 3.0 database folder at /usr/share/wordnet (Debian: apt-get install wordnet-base)")
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, str(root / "data" / "build" / "wordnet_verbs.py"), "--wordnet", str(source),
                    "--out", str(tmp_path)], check=True, capture_output=True)
    for name in ("verbs.tsv", "verb_forms.tsv", "noun_verbs.tsv"):
        assert (tmp_path / name).read_bytes() == (root / "data" / "wordnet" / name).read_bytes(), name
