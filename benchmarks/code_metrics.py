"""Code metrics of a kari checkout (issue 29's counts), read from the source with :mod:`ast`.

Counts, over ``kari/``:
- public functions returning exactly ``dict[str, Any]`` outside JSON converters (a function whose name says
  ``json``, ``to_dict`` or ``as_dict``);
- parameters annotated exactly ``Any``;
- function-level imports (per 1,000 lines); how many load no heavy library (``tests/import_graph.HEAVY``),
  neither themselves nor through the kari modules they load; how many put off no heavy library (load none that
  their module does not load anyway: what the import policy refuses outside ``kari/cli/``);
- string-key lookups (``x["key"]`` read, ``x.get("key")``) per 1,000 lines, per package;
- arrows back up at folder level: folder pairs that import each other (a folder is a top-level package of
  ``kari``, its subfolders included; a module at the root is its own), and the folders caught in a circle;
- ``kari --help`` start-up time (median of ``--runs`` processes) and the heavy libraries it imports;
- with ``--pipeline``: the wall time of ``kari pipeline`` on the bundled data (minutes; run under ``nice``).

Run: python benchmarks/code_metrics.py [--root CHECKOUT] [--runs 7] [--pipeline] [--json]
(``--root`` reads another checkout, e.g. an older commit exported with ``git archive``; kari is imported from it
for the timings.)
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the import graph reader

from import_graph import HEAVY, ImportGraph, help_probe, strongly_connected  # noqa: E402

JSON_CONVERTER_WORDS = ("json", "to_dict", "as_dict")


def _annotation(node: ast.expr | None) -> str:
    return "" if node is None else ast.unparse(node).replace("typing.", "")


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def count_source(graph: ImportGraph) -> dict[str, object]:
    """The source counts of one checkout."""
    lines_by_package: Counter[str] = Counter()
    lookups_by_package: Counter[str] = Counter()
    dict_returns: list[str] = []
    any_params = 0
    function_imports = light_imports = deferring_nothing = deferring_nothing_outside_cli = 0
    for module, path in graph.modules.items():
        tree = graph.tree(module)
        folder = graph.folder(module)
        package = folder if folder in graph.modules and graph.is_package(folder) and folder != "kari" \
            else "kari (root)"
        lines_by_package[package] += len(path.read_text(encoding="utf-8").splitlines())
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                    and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                lookups_by_package[package] += 1
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                lookups_by_package[package] += 1
        for function in _functions(tree):
            arguments = function.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                     *(a for a in (arguments.vararg, arguments.kwarg) if a is not None)]
            any_params += sum(_annotation(a.annotation) == "Any" for a in every)
            public = not function.name.startswith("_")
            converter = any(word in function.name.lower() for word in JSON_CONVERTER_WORDS)
            if public and not converter and _annotation(function.returns) == "dict[str, Any]":
                dict_returns.append(f"{module}.{function.name}")
        for statement in graph.function_imports(module):
            function_imports += 1
            light_imports += not graph.heavy_loaded(statement)
            if not graph.defers_heavy(statement):
                deferring_nothing += 1
                deferring_nothing_outside_cli += not module.startswith("kari.cli")
    lines = sum(lines_by_package.values())
    return {
        "lines": lines,
        "dict_str_any_returns": len(dict_returns),
        "any_parameters": any_params,
        "function_imports": function_imports,
        "function_imports_per_1000_lines": round(1000 * function_imports / lines, 1),
        "function_imports_light": light_imports,
        "function_imports_deferring_no_heavy_library": deferring_nothing,
        "function_imports_deferring_no_heavy_library_outside_cli": deferring_nothing_outside_cli,
        "string_key_lookups": sum(lookups_by_package.values()),
        "string_key_lookups_per_1000_lines": {
            package: round(1000 * lookups_by_package[package] / lines_by_package[package], 1)
            for package in sorted(lines_by_package)},
    }


def folder_arrows(graph: ImportGraph) -> dict[str, object]:
    """Folder pairs that import each other, and the folders in a circle (strongly connected, more than one)."""
    edges = graph.folder_edges()
    pairs = sorted(f"{a} <-> {b}" for a in edges for b in edges[a] if a < b and a in edges.get(b, ()))
    circles = strongly_connected(sorted({graph.folder(m) for m in graph.modules}), edges)
    return {"folder_pairs_importing_each_other": pairs, "folder_arrows_back_up": len(pairs),
            "folder_circles": circles}


def _environment(root: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(root), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}


def help_startup(root: Path, runs: int) -> dict[str, object]:
    """``kari --help`` in fresh processes: the median wall time, and the heavy libraries it imported."""
    times = []
    loaded = ""
    probe = help_probe(sorted(HEAVY))
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", probe], env=_environment(root), cwd=root,
                              capture_output=True, text=True, check=True)
        times.append(time.perf_counter() - start)
        loaded = done.stderr.rpartition("LOADED")[2].strip()
    return {"help_seconds_median": round(statistics.median(times), 3), "help_seconds_min": round(min(times), 3),
            "help_heavy_imports": loaded.split()}


def pipeline_wall(root: Path) -> dict[str, object]:
    """Wall time of ``kari pipeline`` (bundled data, offline) into a new temporary folder."""
    with tempfile.TemporaryDirectory(prefix="kari-metrics-") as scratch:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "kari", "pipeline", "--out", str(Path(scratch) / "run")],
                       env=_environment(root), cwd=root, check=True, stdout=subprocess.DEVNULL)
        return {"pipeline_seconds": round(time.perf_counter() - start, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                        help="the checkout to read (default: this one)")
    parser.add_argument("--runs", type=int, default=7, help="processes timed for kari --help (0: skip)")
    parser.add_argument("--pipeline", action="store_true", help="also time kari pipeline (minutes)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    root = args.root.resolve()
    graph = ImportGraph(root)
    result: dict[str, object] = {**count_source(graph), **folder_arrows(graph)}
    if args.runs:
        result.update(help_startup(root, args.runs))
    if args.pipeline:
        result.update(pipeline_wall(root))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for key, value in result.items():
        if isinstance(value, dict):
            print(f"{key}:")
            for name, figure in value.items():
                print(f"  {name:<24} {figure}")
        else:
            print(f"{key:<40} {value}")


if __name__ == "__main__":
    main()
