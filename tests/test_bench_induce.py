"""benchmarks/bench_induce.py on a small slice of the bundled benchmark: identical folds for every method, the
table and the ratios (RIPPER and the tree only where the benchmark extra is installed)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from kari.resources import bundled_bench_dir

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_induce.py"


def _load():
    spec = importlib.util.spec_from_file_location("bench_induce", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_induce"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_bench_induce_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    methods = ["kari", "baseline"]
    for name, module in (("ripper", "wittgenstein"), ("tree", "sklearn")):
        if importlib.util.find_spec(module) is not None and importlib.util.find_spec("pandas") is not None:
            methods.append(name)
    code = bench.main(["--bench", str(bundled_bench_dir()), "--cv", "2", "--affordance", "slice",
                       "--affordance", "keep_warm", "--methods", ",".join(methods), "--no-tune"])
    out = capsys.readouterr().out
    assert code == 0
    assert "2-fold CV by object" in out and "kari held-out macro F1" in out
    assert out.count("slice") == 1 and out.count("keep_warm") == 1
    for name in methods[1:]:
        assert f"kari / {name}: held-out macro F1 ratio" in out


def test_one_atom_baseline_picks_the_best_training_f1() -> None:
    bench = _load()
    a, b = ("SHAPE", "flat"), ("SIZE", "small")
    train = [frozenset({a, b}), frozenset({a}), frozenset({b}), frozenset({b})]
    # a: 2 TP 0 FP (F1 0.8); b: 1 TP 2 FP
    assert bench.one_atom(train, [True, True, False, False], [frozenset({a}), frozenset({b})]) == [True, False]


def test_unknown_method_is_an_error() -> None:
    bench = _load()
    with pytest.raises(SystemExit):
        bench.main(["--methods", "kari,c45"])
