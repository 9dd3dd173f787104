"""A small mutation run over kari's core modules: does some test fail when a plausible bug is put in?

Each mutant replaces one snippet of one module by a plausible bug (a metric averaged over the wrong games, a
check that looks at the wrong files, a limit tolerating one line too many...). The script copies the checkout
(``kari/``, ``tests/`` and the assets) into a temporary folder, applies one mutant at a time there (never in the
checkout), runs the tests named for it (``pytest -x``) and counts the mutant *killed* when they fail, *survived*
when they pass. The mutation score is killed / mutants. Run by hand, like the benchmarks (a few minutes per
mutant set on 2 cores):

    python benchmarks/mutation.py                  # every mutant, the checkout's tests
    python benchmarks/mutation.py --only optimal   # mutants whose name contains 'optimal'
    python benchmarks/mutation.py --tests OTHER/tests   # the same mutants judged by another checkout's tests
    python benchmarks/mutation.py --root OTHER     # another checkout (code and tests), e.g. an older commit
    python benchmarks/mutation.py --list

Each mutant must apply (its snippet occurs exactly once) and compile; a mutant whose snippet is not in the
checkout (``--root`` an older one) is reported as not applicable, never counted. Each mutant's tests must pass on the unmutated copy first (run once per
distinct selection); a mutant whose tests fail unmutated is reported as not judged.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("kari", "tests", "kb", "solver", "grammar", "data", "pyproject.toml")


@dataclass(frozen=True)
class Mutant:
    """One plausible bug: in ``module``, ``old`` (occurring exactly once) becomes ``new``; judged by ``tests``
    (pytest arguments: files, ``-k`` expressions)."""

    name: str
    module: str
    old: str
    new: str
    tests: tuple[str, ...]
    why: str


MUTANTS = (
    Mutant("turns-over-all-games", "kari/game/metrics.py",
           "_mean(r.n_turns for r in records if r.success))", "_mean(r.n_turns for r in records))",
           ("tests/test_mutation_gaps.py", "tests/test_stats.py", "tests/test_game_play.py"),
           "avg_turns_solved averaged over every game instead of the solved ones"),
    Mutant("optimal-stale-plan", "kari/game/questioners/optimal.py",
           "return last.pair is None or last.answer != self.expected", "return last.pair is None",
           ("tests/test_mutation_gaps.py", "tests/test_game_play.py", "tests/test_game_engine.py"),
           "Optimal keeps its plan after an answer it did not expect (a noisy Oracle)"),
    Mutant("resume-blind-to-dropped-input", "kari/io/fingerprint.py",
           "for name in [*new, *(n for n in old if n not in new)]:", "for name in new:",
           ("tests/test_mutation_gaps.py", "tests/test_run_inputs.py", "tests/test_shards.py"),
           "a resume check that ignores an input read before and not now"),
    Mutant("output-check-by-path", "kari/io/outputs.py",
           "read.setdefault(file_key(item.path), item)", "read.setdefault(('path', str(item.path)), item)",
           ("tests/test_hostile_trial.py", "tests/test_mutation_gaps.py", "tests/test_reliability.py",
            "tests/test_cli_fuzz.py", "-k", "output or overlap or input or link or twin"),
           "outputs compared to inputs by the path as written (a symlink, .. or a hard link slips through)"),
    Mutant("output-over-input-accepted", "kari/io/outputs.py",
           "            if found is not None:\n", "            if found is not None and found.what == '':\n",
           ("tests/test_hostile_trial.py", "tests/test_mutation_gaps.py", "tests/test_reliability.py", "-k",
            "output or input or twin or build or over"),
           "an output that is one of the command's inputs is accepted"),
    Mutant("write-in-place", "kari/io/atomic.py",
           "if target.is_file() else None\n        fd, tmp = _create_temp(target)",
           "if target.is_file() else None\n        fd, tmp = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, "
           "0o666), target",
           ("tests/test_mutation_gaps.py", "tests/test_reliability.py", "-k", "write or disk or fails or umask"),
           "outputs written in place instead of to a temporary file renamed over the target"),
    Mutant("duplicate-records-kept", "kari/io/plan.py",
           "        if item in seen:\n", "        if item in seen and False:\n",
           ("tests/test_shards.py", "tests/test_run_inputs.py", "tests/test_reliability.py", "-k",
            "duplicate or twice or glued or merge or resume"),
           "a log holding a record twice is read as a run"),
    Mutant("isa-not-transitive", "kari/vocab/vocabulary.py",
           "                if parent not in seen:\n                    seen.add(parent)\n"
           "                    stack.append(parent)\n        return False",
           "                if parent not in seen:\n                    seen.add(parent)\n        return False",
           ("tests/test_data_vocabulary.py", "tests/test_vocabulary_db.py", "tests/test_hostile_trial.py", "-k",
            "isa or deep or taxonomy or satisf or ancestor or vocab"),
           "is-a lookups follow one link only"),
    Mutant("cycle-check-wrong-state", "kari/vocab/vocabulary.py",
           "                if state.get(key) == 1:", "                if state.get(key) == 2:",
           ("tests/test_data_vocabulary.py", "tests/test_hostile_trial.py", "tests/test_vocabulary_db.py"),
           "the bulk is-a cycle check marks the wrong nodes"),
    Mutant("guess-not-normalised", "kari/core/game_records.py",
           "        if normalise_term(cand) == wanted:", "        if cand == wanted:",
           ("tests/test_game_engine.py", "tests/test_game_llm.py"),
           "a guess compared with each candidate as written, not normalised ('pierce through' misses 'Pierce-Through')"),
    Mutant("wilson-wrong-centre", "kari/stats.py",
           "centre = (p + z * z / (2 * n)) / denominator", "centre = (p + z * z / n) / denominator",
           ("tests/test_stats.py",), "the Wilson interval's centre off by a factor"),
    Mutant("rule-words-not-linked", "kari/domain/canon.py",
           "    canonical = [canonical_rule(rule, vocab, report) for rule in rules]\n    vocab.link_compounds()",
           "    canonical = [canonical_rule(rule, vocab, report) for rule in rules]",
           ("tests/test_hostile_trial.py", "tests/test_solver_coverage.py", "-k", "coverage or repeatable"),
           "a rule's new word is linked to the objects' compounds only after the solver ran"),
    Mutant("last-line-tolerated", "kari/kb/store.py",
           "    if read == lines:\n", "    if read >= lines - 1:\n",
           ("tests/test_hostile_trial.py", "tests/test_kb_load.py", "-k", "line or load"),
           "kb load tolerates one line DuckDB did not read (the last one)"),
    Mutant("markdown-pipes-kept", "kari/io/escape.py",
           '.replace("\\\\", "\\\\\\\\").replace("|", "\\\\|")', '.replace("\\\\", "\\\\\\\\")',
           ("tests/test_hostile_trial.py", "tests/test_report.py", "-k", "hostile or report or markdown"),
           "a pipe in an id splits a report.md table cell"),
    Mutant("csv-numbers-prefixed", "kari/io/escape.py",
           " and not _NUMBER.fullmatch(value)", "",
           ("tests/test_hostile_trial.py", "tests/test_report.py", "-k", "csv or hostile or leaderboard"),
           "a negative number in a CSV cell is turned into text"),
    Mutant("questioner-not-checked", "kari/core/game_records.py",
           "if record.questioner and isinstance(named, str) and named and record.questioner != named:",
           "if record.questioner and isinstance(named, str) and named and record.questioner != named and False:",
           ("tests/test_hostile_trial.py", "tests/test_shards.py", "-k", "merge or questioner or shard"),
           "a shard whose config names another questioner than its records is merged"),
    Mutant("reply-limit-in-kib", "kari/llm/openai_backend.py",
           "                if size > limit:", "                if size > limit * 1024:",
           ("tests/test_hostile_trial.py", "tests/test_llm_client.py", "-k", "reply or ending or limit or llm"),
           "the reply size limit read as KiB"),
    Mutant("duckdb-magic-offset", "kari/io/dbfile.py",
           "if head and head[at: at + len(magic)] != magic:", "if head and head[: len(magic)] != magic:",
           ("tests/test_kb_cli.py", "tests/test_reliability.py", "-k", "duckdb or db or stats"),
           "the DuckDB magic bytes looked for at the wrong offset"),
    Mutant("reload-duplicates-edges", "kari/kb/store.py",
           'new_only="" if empty else NEW_ONLY', 'new_only=""',
           ("tests/test_kb_load.py", "tests/test_kb_cli.py"),
           "a file loaded twice adds its edges twice"),
    Mutant("memory-error-exit-1", "kari/cli/root.py",
           '"input)", ExitCode.BAD_INPUT)', '"input)", ExitCode.FINDINGS)',
           ("tests/test_hostile_trial.py", "-k", "memory"),
           "out of memory exits 1, the code of check findings"),
    Mutant("shard-not-checked", "kari/io/plan.py",
           "        problem = plan.problem(item, shard) if plan is not None else None",
           "        problem = plan.problem(item, None) if plan is not None else None",
           ("tests/test_shards.py", "tests/test_run_inputs.py"),
           "a record of another shard is accepted in a shard's log"),
)


def copy_checkout(target: Path, root: Path, tests: Path | None) -> None:
    """The code and assets of the checkout ``root`` (and ``tests``, or its own tests) under ``target``."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "*.duckdb", "runs")
    for name in COPIED:
        source = root / name
        if name == "tests" and tests is not None:
            source = tests
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        elif source.exists():
            shutil.copy2(source, target / name)


def run_tests(copy: Path, tests: tuple[str, ...], timeout: float) -> tuple[bool, float, str]:
    """(passed, seconds, last line) of ``pytest -x`` on ``tests`` in ``copy``, in one process (``-n 0``: a few
    tests, where worker processes would cost more than they save)."""
    env = {**os.environ, "PYTHONPATH": str(copy), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-n", "0", "-p", "no:cacheprovider",
                               *tests],
                              cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, time.perf_counter() - start, f"timed out after {timeout:g} s (counted as killed)"
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return done.returncode == 0, time.perf_counter() - start, lines[-1] if lines else done.stderr.strip()[-200:]


def applies(copy: Path, mutant: Mutant) -> bool:
    """Does the mutant's snippet occur exactly once in its module of the copy?"""
    path = copy / mutant.module
    return path.is_file() and path.read_text(encoding="utf-8").count(mutant.old) == 1


def apply(copy: Path, mutant: Mutant) -> str:
    """Put the mutant into the copy; returns the module's original text (a mutant that does not compile is a
    SystemExit: an error of this script)."""
    path = copy / mutant.module
    text = path.read_text(encoding="utf-8")
    mutated = text.replace(mutant.old, mutant.new)
    compile(mutated, str(path), "exec")
    path.write_text(mutated, encoding="utf-8")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="only mutants whose name contains this text")
    parser.add_argument("--tests", type=Path, default=None, help="judge with this tests folder instead")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to mutate (default: this one)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per mutant's test run")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if args.only in m.name]
    if args.list:
        for m in chosen:
            print(f"{m.name:32s} {m.module:36s} {m.why}")
        return
    with tempfile.TemporaryDirectory(prefix="kari-mutation-") as tmp:
        copy = Path(tmp)
        copy_checkout(copy, args.root, args.tests)
        baseline: dict[tuple[str, ...], tuple[bool, str]] = {}
        killed = broken = absent = 0
        for mutant in chosen:
            if not applies(copy, mutant):
                absent += 1
                print(f"n/a      {mutant.name:32s} its code is not in this checkout", flush=True)
                continue
            tests = tuple(t for t in mutant.tests if not t.startswith("tests/") or (copy / t).exists())
            if not any(t.startswith("tests/") for t in tests):    # none of its test files exists in this folder
                print(f"SURVIVED {mutant.name:32s}      0 s  {mutant.why}  [no test file of it here]", flush=True)
                continue
            if tests not in baseline:       # the unmutated copy must pass the selection: else nothing is judged
                passed, _, last = run_tests(copy, tests, args.timeout)
                baseline[tests] = (passed, last)
            if not baseline[tests][0]:
                broken += 1
                print(f"error    {mutant.name:32s} the unmutated copy fails its tests: {baseline[tests][1][:100]}",
                      flush=True)
                continue
            original = apply(copy, mutant)
            try:
                survived, seconds, last = run_tests(copy, tests, args.timeout)
            finally:
                (copy / mutant.module).write_text(original, encoding="utf-8")
            killed += not survived
            print(f"{'SURVIVED' if survived else 'killed  '} {mutant.name:32s} {seconds:6.0f} s  {mutant.why}"
                  + (f"  [{last[:100]}]" if survived else ""), flush=True)
        judged = len(chosen) - broken - absent
        print(f"mutation score: {killed} of {judged} killed ({100 * killed / max(judged, 1):.0f}%)"
              + (f"; {broken} not judged (their tests fail unmutated)" if broken else "")
              + (f"; {absent} not applicable" if absent else ""), flush=True)


if __name__ == "__main__":
    main()
