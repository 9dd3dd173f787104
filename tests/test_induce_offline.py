"""End-to-end offline induction on the bundled benchmark: rules' validity and recall, outputs, resume, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kari.cli import main
from kari.errors import KariError
from kari.core.induce_config import InduceConfig
from kari.induce.inputs import from_bench
from kari.induce.run import induce
from kari.resources import bundled_bench_dir
from kari.rules import check_rule, load_rules
from kari.vocab.vocabulary import Vocabulary

AFFORDANCES = ("slice", "open", "switch_on", "break")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("induce") / "rules.kari"
    config = InduceConfig(affordances=AFFORDANCES)
    return induce(out=out, bench=bundled_bench_dir(), config=config, argv=[])


def test_rules_are_valid_and_recall_is_sensible(run) -> None:
    vocab = Vocabulary.load()
    rules = load_rules(run.out)
    assert [r.affordance for r in rules] == list(AFFORDANCES)
    for rule in rules:
        assert [d for d in check_rule(rule, vocab, AFFORDANCES) if d.is_error] == []
        assert 1 <= len(rule.branches()) <= 3  # one round offline: at most 3 seed branches
        assert all(a.value != "material" for a in rule.atoms())
    for aff, score in run.scores.items():
        assert score.f1 >= 0.35, aff
        assert score.precision is not None and score.precision >= 0.5, aff
    mean_recall = sum(s.recall for s in run.scores.values()) / len(run.scores)
    assert mean_recall >= 0.4


def test_beats_the_one_atom_baseline_on_f1(run) -> None:
    """The trivial baseline (most frequent property of the positives) has far lower precision."""
    from kari.induce.report import score_rules
    from kari.rules.ast import Atom, Rule

    evidence = from_bench(bundled_bench_dir(), Vocabulary.load())
    baseline = []
    for aff in AFFORDANCES:
        counts: dict[tuple[str, str], int] = {}
        for obj in evidence[aff].positives:
            for key in {(p.predicate, p.value) for p in obj.properties}:
                counts[key] = counts.get(key, 0) + 1
        (pred, value), _ = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        baseline.append(Rule(aff, Atom(pred, value)))
    base = score_rules(baseline, evidence, Vocabulary.load())
    assert sum(run.scores[a].f1 > base[a].f1 for a in AFFORDANCES) >= 3


def test_outputs_and_provenance(run) -> None:
    lines = [json.loads(x) for x in run.jsonl.read_text().splitlines() if x.strip()]
    assert len(lines) == len(AFFORDANCES)
    rules = load_rules(run.jsonl)
    evidence = from_bench(bundled_bench_dir(), Vocabulary.load())
    for rule in rules:
        assert len(rule.branch_metadata) == len(rule.branches())
        positives = {o.id for o in evidence[rule.affordance].positives}
        for meta in rule.branch_metadata:
            assert meta["round"] == 1
            assert set(meta["motivated_by"]) <= positives and meta["motivated_by"]
            assert set(meta["covers"]) <= positives
            found = meta["evidence"]  # the branch's training evidence, by the objects' facts
            assert set(found["positives"]) <= positives and len(found["positives"]) == found["support"] >= 2
            assert found["precision"] == round(found["support"] / (found["support"] + found["negatives_covered"]), 4)
    manifest = json.loads((run.run_dir / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["seed"] == 0 and manifest["cache_key"]
    assert manifest["models"]["proposer"].startswith("symbolic")
    coverage = [json.loads(x) for x in (run.run_dir / "coverage.jsonl").read_text().splitlines()]
    assert {(c["affordance"], c["round"]) for c in coverage} == {(a, 1) for a in AFFORDANCES}
    report = (run.run_dir / "report.md").read_text()
    assert "| slice |" in report and "Vocabulary growth" in report and "## Timers" in report
    assert "Settings chosen by 3-fold inner cross-validation" in report and "# support" in report
    tuning = json.loads((run.run_dir / "tuning.json").read_text())
    assert tuning["chosen"] in [c for c in ({k: v for k, v in c.items() if k != "inner_macro_f1"}
                                            for c in tuning["candidates"])]


def test_resume_after_interrupt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run) -> None:
    import kari.induce.run as run_module

    real = run_module.induce_affordance
    calls: list[str] = []

    def flaky(ev, *args, **kwargs):
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(ev.affordance)
        return real(ev, *args, **kwargs)

    monkeypatch.setattr(run_module, "induce_affordance", flaky)
    out = tmp_path / "rules.kari"
    config = InduceConfig(affordances=AFFORDANCES)
    with pytest.raises(KariError) as err:
        induce(out=out, bench=bundled_bench_dir(), config=config, argv=[])
    assert err.value.exit_code == 130 and not out.exists()
    assert len(list((tmp_path / "rules.run" / "affordances").glob("*.json"))) == 2
    monkeypatch.setattr(run_module, "induce_affordance", real)
    again = induce(out=out, bench=bundled_bench_dir(), config=config, argv=[])
    assert again.resumed == sorted(calls)
    assert out.read_text() == run.out.read_text()  # same rules as an uninterrupted run
    with pytest.raises(KariError, match="other settings"):
        induce(out=out, bench=bundled_bench_dir(), config=InduceConfig(affordances=AFFORDANCES, seed=1), argv=[])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bench", "BENCH", "--affordance", "fly_to_moon"], "unknown affordance 'fly_to_moon'"),
        (["--bench", "MISSING"], "benchmark directory not found"),
        ([], "give --bench DIR or --db PATH"),
        (["--bench", "BENCH", "--llm", "gpt"], "unknown backend (--llm) 'gpt' (expected one of offline or openai)"),
    ],
)
def test_bad_input_is_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    args = [str(bundled_bench_dir()) if a == "BENCH" else str(tmp_path / "nope") if a == "MISSING" else a for a in args]
    with pytest.raises(SystemExit) as exit_info:
        main(["induce", "--out", str(tmp_path / "r.kari"), *args])
    assert exit_info.value.code != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err
    assert not (tmp_path / "r.kari").exists()


def test_cli_writes_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main_args = ["induce", "--bench", str(bundled_bench_dir()), "--out", str(tmp_path / "r.kari"), "-a", "slice", "-q"]
    with pytest.raises(SystemExit) as exit_info:
        main(main_args)
    assert exit_info.value.code in (0, None)
    assert "1 rules for 1 affordances" in capsys.readouterr().out
    assert load_rules(tmp_path / "r.kari")[0].affordance == "slice"



def test_an_offline_run_spread_over_worker_processes_writes_the_rules_of_one_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from kari.induce import run as run_module
    from kari.induce.loop import induce_affordance
    from kari.io import jobs

    config = InduceConfig(tune=False)
    monkeypatch.setattr(run_module, "spread_over", lambda n: 1)
    serial = induce(out=tmp_path / "one" / "rules.kari", bench=bundled_bench_dir(), config=config, argv=[])
    ran_in: list[int] = []

    def recorded(*args: object, **kwargs: object) -> object:
        ran_in.append(os.getpid())     # in a forked worker: the list the parent holds stays empty
        return induce_affordance(*args, **kwargs)  # type: ignore[arg-type]

    handed: list[str] = []
    real_run_jobs = jobs.run_jobs

    def run_jobs(todo: list, workers: int, each=None) -> list:  # type: ignore[no-untyped-def]
        return real_run_jobs(todo, workers, each=lambda v: handed.append(v[0].affordance) or each(v))

    monkeypatch.setattr(run_module, "spread_over", lambda n: 2)
    monkeypatch.setattr(run_module, "induce_affordance", recorded)
    monkeypatch.setattr(run_module, "run_jobs", run_jobs)
    forked = induce(out=tmp_path / "two" / "rules.kari", bench=bundled_bench_dir(), config=config, argv=[])
    assert ran_in == [] and handed == list(serial.results)   # handed over in order, from the workers
    assert (tmp_path / "one" / "rules.kari").read_bytes() == (tmp_path / "two" / "rules.kari").read_bytes()
    assert (tmp_path / "one" / "rules.jsonl").read_bytes() == (tmp_path / "two" / "rules.jsonl").read_bytes()
    assert sorted(p.name for p in forked.run_dir.glob("affordances/*.json")) == \
        sorted(p.name for p in serial.run_dir.glob("affordances/*.json"))     # each saved by its worker
    calls = {name: stats[0] for name, stats in forked.timers.stats.items()}
    assert calls == {name: stats[0] for name, stats in serial.timers.stats.items()} and calls["propose"] > 0
