"""``kari induce --cv K``: folds by object, rules that never saw their fold, held-out scores, cross-fitted files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kari.core.benchmark import ObjectRecord, Property
from kari.cli import main
from kari.domain.objects import rule_holds
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError
from kari.core.induce_config import InduceConfig
from kari.induce.folds import assign_folds, load_cross_fitted, restrict
from kari.induce.heldout import branch_checks, heldout_scores, pooled
from kari.induce.inputs import Evidence, from_bench
from kari.induce.run import induce
from kari.resources import bundled_bench_dir
from kari.rules import load_rules
from kari.rules.ast import Atom, Rule

AFFORDANCES = ("slice", "open", "keep_warm")


def test_folds_are_seeded_balanced_and_by_object() -> None:
    ids = [f"o{i}" for i in range(23)]
    folds = assign_folds(ids, 5, seed=3)
    assert set(folds) == set(ids) and set(folds.values()) == set(range(5))
    sizes = sorted(list(folds.values()).count(f) for f in range(5))
    assert sizes[-1] - sizes[0] <= 1
    assert folds == assign_folds(list(reversed(ids)) + ids[:3], 5, seed=3)
    assert folds != assign_folds(ids, 5, seed=4)
    with pytest.raises(KariError, match="at least 2 folds"):
        assign_folds(ids, 1)
    with pytest.raises(KariError, match="needs at least 30 objects"):
        assign_folds(ids, 30)


def _obj(name: str) -> ObjectRecord:
    return ObjectRecord(name, properties=(Property("whole", "SHAPE", "flat"),))


def test_restrict_keeps_the_choice_of_negatives() -> None:
    a, b, c, d = (_obj(x) for x in "abcd")
    labelled = Evidence("cut", "", (a,), (b,), (a, b, c, d))
    kept = restrict(labelled, {"a", "c", "d"})  # no labelled negative left: auto still means labelled
    assert kept.positives == (a,) and kept.labelled_negatives == () and kept.negatives("auto") == ()
    closed = restrict(Evidence("cut", "", (a,), (), (a, b, c, d)), {"a", "b"})
    assert closed.negatives("auto") == (b,)


def test_heldout_scores_judge_each_fold_on_its_own_objects() -> None:
    vocab = Vocabulary.load()
    flat = [ObjectRecord(f"f{i}", properties=(Property("whole", "SHAPE", "flat"),)) for i in range(4)]
    round_ = [ObjectRecord(f"r{i}", properties=(Property("whole", "SHAPE", "round"),)) for i in range(4)]
    ev = Evidence("roll", "", tuple(round_[:3] + flat[:1]), tuple(flat[1:] + round_[3:]), tuple(flat + round_))
    fold_of = {o.id: i % 2 for i, o in enumerate(flat + round_)}  # f0 f2 r0 r2 in fold 0
    rules = {0: [Rule("roll", Atom("SHAPE", "round"))], 1: [Rule("roll", Atom("SHAPE", "flat"))]}
    score = heldout_scores(rules, {"roll": ev}, fold_of, vocab)["roll"]
    # fold 0 (round rule): positives r0 r2 f0 -> covers r0 r2; negative f2 not covered
    # fold 1 (flat rule): positives r1, negatives f1 f3 r3 -> covers f1 f3 only
    assert (score.positives, score.covered, score.negatives, score.false_positives) == (4, 2, 4, 2)
    assert pooled({"roll": score})["micro"]["f1"] == pytest.approx(0.5)
    checks = branch_checks(rules, [rules[0][0]], {"roll": ev}, fold_of, vocab)["roll"]
    assert [(c.fold, c.true_positives, c.false_positives, c.fails, c.in_final_rule) for c in checks] == [
        (0, 2, 0, False, True), (1, 0, 2, True, False)]


@pytest.fixture(scope="module")
def cv_run(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("cv") / "rules.kari"
    config = InduceConfig(affordances=AFFORDANCES, tune=False)
    return induce(out=out, bench=bundled_bench_dir(), config=config, argv=[], cv=3)


def test_fold_rules_never_saw_their_fold(cv_run) -> None:
    rules, fold_of = load_cross_fitted(cv_run.out)
    assert sorted(rules) == [0, 1, 2]
    evidence = from_bench(bundled_bench_dir(), Vocabulary.load())
    assert set(fold_of) == {o.id for ev in evidence.values() for o in ev.universe}
    for fold, fold_rules in rules.items():
        assert [r.affordance for r in fold_rules] == list(AFFORDANCES)
        for rule in fold_rules:
            for meta in rule.branch_metadata:
                used = {*meta["motivated_by"], *meta["covers"], *meta["evidence"]["positives"],
                        *meta["evidence"]["negatives"]}
                assert used and all(fold_of[o] != fold for o in used), (fold, rule.affordance)
        assert load_rules(cv_run.out.with_suffix(".cv") / f"fold{fold}.kari") == [
            Rule(r.affordance, r.body) for r in fold_rules]


def test_cv_json_matches_an_independent_count(cv_run) -> None:
    summary = json.loads((cv_run.out.with_suffix(".cv") / "cv.json").read_text())
    assert summary == cv_run.cv and summary["k"] == 3 and summary["seed"] == 0
    vocab = Vocabulary.load()
    evidence = from_bench(bundled_bench_dir(), vocab)
    rules, fold_of = load_cross_fitted(cv_run.out.with_suffix(".cv"))
    f1s = []
    for aff in AFFORDANCES:
        ev = evidence[aff]

        def predicted(obj: ObjectRecord) -> bool:
            rule = next((r for r in rules[fold_of[obj.id]] if r.affordance == aff), None)
            return rule is not None and rule_holds(rule, obj, vocab)

        tp = sum(predicted(o) for o in ev.positives)
        fp = sum(predicted(o) for o in ev.labelled_negatives)
        row = summary["affordances"][aff]
        assert (row["heldout"]["true_positives"], row["heldout"]["false_positives"]) == (tp, fp)
        assert row["heldout"]["false_negatives"] == len(ev.positives) - tp
        assert row["positives"] == len(ev.positives)
        assert row["in_sample"]["f1"] == pytest.approx(cv_run.scores[aff].f1, abs=1e-4)
        f1s.append(2 * tp / (tp + fp + len(ev.positives)))
    assert summary["pooled"]["heldout"]["macro"]["f1"] == pytest.approx(sum(f1s) / len(f1s), abs=1e-4)
    assert summary["pooled"]["gap_macro_f1"] == pytest.approx(
        summary["pooled"]["in_sample"]["macro"]["f1"] - summary["pooled"]["heldout"]["macro"]["f1"], abs=1e-4)


def test_report_and_resume(cv_run, tmp_path: Path) -> None:
    report = (cv_run.run_dir / "report.md").read_text()
    assert "## Held-out evaluation" in report and "Branches that fail on held-out objects" in report
    assert "| slice |" in report.split("## Held-out evaluation")[1]
    manifests = [json.loads((cv_run.run_dir / "cv" / f"fold{k}" / "manifest.json").read_text()) for k in range(3)]
    assert all(m["status"] == "finished" for m in manifests)
    again = induce(out=cv_run.out, bench=bundled_bench_dir(), config=InduceConfig(affordances=AFFORDANCES, tune=False),
                   argv=[], cv=3)
    assert again.cv == cv_run.cv and again.resumed == sorted(AFFORDANCES)
    for k in range(3):
        manifest = json.loads((cv_run.run_dir / "cv" / f"fold{k}" / "manifest.json").read_text())
        assert manifest["sessions"] == 2 and manifest["resumed_affordances"] == sorted(AFFORDANCES)


def test_load_cross_fitted_errors(tmp_path: Path, cv_run) -> None:
    with pytest.raises(KariError, match="kari induce --cv"):
        load_cross_fitted(tmp_path / "nothing.kari")
    broken = tmp_path / "broken.cv"
    broken.mkdir()
    (broken / "folds.json").write_text('{"k": 2, "fold_of": {"a": 5}}')
    with pytest.raises(KariError, match="fold outside 0..1"):
        load_cross_fitted(broken)
    (broken / "folds.json").write_text("{not json")
    with pytest.raises(KariError, match="broken folds file"):
        load_cross_fitted(broken)


def test_cli_cv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.kari"
    with pytest.raises(SystemExit) as exit_info:
        main(["induce", "--bench", str(bundled_bench_dir()), "--out", str(out), "-a", "slice", "--cv", "2",
              "--no-tune", "-q"])
    assert exit_info.value.code in (0, None)
    assert "2-fold held-out mean F1" in capsys.readouterr().out
    assert sorted(p.name for p in out.with_suffix(".cv").iterdir()) == [
        "cv.json", "fold0.jsonl", "fold0.kari", "fold1.jsonl", "fold1.kari", "folds.json"]
    with pytest.raises(SystemExit) as exit_info:
        main(["induce", "--bench", str(bundled_bench_dir()), "--out", str(tmp_path / "x.kari"), "-a", "slice",
              "--cv", "1"])
    assert exit_info.value.code == 2 and "'--cv': Input should be greater than or equal to 2" in capsys.readouterr().err
    assert not (tmp_path / "x.kari").exists()
