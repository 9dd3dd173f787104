"""Affordance20Q benchmark directories: the typed records (:mod:`kari.core.benchmark`), the one reader that checks
and loads a directory (:mod:`kari.bench.reader`), an overview and game sampling."""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.bench.reader import (
        LoadedBenchmark, canonical_benchmark, load_benchmark, read_benchmark, read_jsonl, read_labelled
    )
    from kari.bench.validate import Problem, ValidationReport, require_valid, validate_bench
    from kari.bench.show import bench_overview
    from kari.bench.build import build_games

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.bench.reader": ("LoadedBenchmark", "canonical_benchmark", "load_benchmark", "read_benchmark", "read_jsonl",
                           "read_labelled"),
    "kari.bench.validate": ("Problem", "ValidationReport", "require_valid", "validate_bench"),
    "kari.bench.show": ("bench_overview",),
    "kari.bench.build": ("build_games",),
})
