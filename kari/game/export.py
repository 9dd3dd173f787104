"""``kari export-prompts``: the Questioner's system prompt of every game with the matched rules appended, as one
text file per game and a JSONL, plus which games have their target covered by a matched rule.

A game's file is ``prompts/<id>.txt`` when the id is a safe, unique file name; otherwise (``a/b``, or ids that
differ only in case) the unsafe characters become ``_`` and the first 8 hex digits of the id's SHA-1 are added
(``a_b-5b19f2b1.txt``), so no two games share a file. No output may replace one of the command's inputs.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path
from typing import Any

from kari.bench.reader import bench_inputs, read_benchmark
from kari.io.atomic import atomic_write_json, atomic_write_jsonl, atomic_write_text
from kari.io.outputs import Output, OutputKind, check_outputs
from kari.core.game_names import MatchMode
from kari.core.game_defaults import BUDGET, MATCH_THRESHOLD, TOP_K
from kari.game.match import RuleSource, coverage_record
from kari.game.questioners.llm import system_prompt
from kari.game.run import select_games
from kari.rules.rulefile import rule_file_inputs
from kari.vocab.vocabulary import open_vocabulary

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def export_prompts(bench_dir: str | Path, rules_path: str | Path, out: str | Path, *,
                   threshold: float = MATCH_THRESHOLD, top_k: int = TOP_K, games: int | None = None,
                   budget: int = BUDGET, vocab_dir: str | None = None,
                   match_mode: str = MatchMode.EMBEDDING) -> dict[str, Any]:
    """Write ``prompts/<game>.txt``, ``prompts.jsonl`` and ``coverage.json`` into ``out``; return the coverage."""
    # before any work: never over an input (--rules OUT/prompts.jsonl)
    check_outputs([Output(Path(out), "--out", OutputKind.FOLDER, names=("prompts/", "prompts.jsonl", "coverage.json"))],
                  [*rule_file_inputs(rules_path), *bench_inputs(bench_dir)])
    vocab = open_vocabulary(vocab_dir)
    bench = read_benchmark(bench_dir, vocab).checked()
    chosen = select_games(bench.games, games, ())
    source = RuleSource.load(rules_path, vocab, threshold, top_k, match_mode)
    descriptions = {a.id: a.description for a in bench.affordances.values()}
    folder = Path(out)
    names = prompt_file_names([game.id for game in chosen])
    rows = []
    for game in chosen:
        matches = source.for_object(game.object)[0].match(game.candidates)
        prompt = system_prompt(game.candidates, descriptions, budget, matches)
        facts = coverage_record(matches, game.target, bench.objects[game.object], vocab)
        atomic_write_text(folder / "prompts" / names[game.id], prompt)
        rows.append({"game": game.id, "target": game.target, "candidates": list(game.candidates),
                     "system_prompt": prompt, **facts})
    atomic_write_jsonl(folder / "prompts.jsonl", rows)
    covered = [r["game"] for r in rows if r["target_has_rule"]]
    coverage = {"games": len(rows), "target_covered": len(covered),
                "target_covered_share": round(len(covered) / len(rows), 6) if rows else None,
                "target_rule_covers_object": sum(1 for r in rows if r["target_rule_covers_object"]),
                "covered_games": covered, "threshold": threshold, "top_k": top_k, "match": match_mode}
    atomic_write_json(folder / "coverage.json", coverage)
    return coverage


def prompt_file_names(ids: list[str]) -> dict[str, str]:
    """Game id -> its prompt file name: the id itself when it is a safe file name no other id shares (case
    ignored), else the safe spelling with 8 hex digits of the id's SHA-1 (see the module docstring)."""
    safe = {game_id: _UNSAFE.sub("_", game_id) for game_id in ids}
    seen = Counter(name.lower() for name in safe.values())
    return {game_id: f"{name}.txt" if name == game_id and seen[name.lower()] == 1
            else f"{name}-{hashlib.sha1(game_id.encode('utf-8')).hexdigest()[:8]}.txt"
            for game_id, name in safe.items()}
