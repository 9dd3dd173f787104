"""CreativityBench in kari: a part-level affordance KB, tool-choice tasks and their solvers (docs/creativity.md).

One module per concern:

- :mod:`kari.creativity.records`: reading CreativityBench files (a JSON array, JSON Lines, concatenated objects or
  one object keyed by id, as its entity lookup), each record with its FILE:LINE;
- :mod:`kari.creativity.model`: the typed KB (entity -> parts -> physical / state attributes -> affordances) and
  tasks, parsed from CreativityBench's assembled-entity and task records;
- :mod:`kari.creativity.attributes`: free-text attributes read into KARI atoms (lexicon, then optional embedding
  match; the raw text kept) and a part's state (accessible, safe);
- :mod:`kari.creativity.store`: the DuckDB tables and views of ``kb/creativity.sql`` (``kari creativity load``);
- :mod:`kari.creativity.goals`: a task's goal mapped to an affordance that has a KARI rule;
- :mod:`kari.creativity.scene`: a task's candidates (entity, part) with their atoms and state;
- :mod:`kari.creativity.symbolic`: tool choice as a clingo query (``solver/creativity.lp``), with its proof;
- :mod:`kari.creativity.instructions`: the symbolic solver's how-to-use, built from the proof, state and KB;
- :mod:`kari.creativity.prompting`: the LLM solver's modes and prompt pieces, and the reading of its replies;
- :mod:`kari.creativity.llm_solver`: the LLM solver (static and cot modes, optionally with the matched rules);
- :mod:`kari.creativity.answers`: the typed record of one ``answers.jsonl`` line;
- :mod:`kari.creativity.interactive`: the interactive mode (one exploration per turn, a turn budget);
- :mod:`kari.creativity.metrics`: CreativityBench's judge scoring (exact match, word-F1 snap, prediction relation);
- :mod:`kari.creativity.answering`: one task's answer record (goal, samples per temperature, scores);
- :mod:`kari.creativity.summary`: ``summary.json`` of a run;
- :mod:`kari.creativity.exchange`: answers in the benchmark's runner and judge formats, both ways;
- :mod:`kari.creativity.scoring`: ``kari creativity score`` (its output files scored, checked against its judge);
- :mod:`kari.creativity.rubric`: the six-field how-to-use rubric and its symbolic scorer;
- :mod:`kari.creativity.judge`: ``kari creativity judge`` (LLM rubric and reasonability, symbolic fallback);
- :mod:`kari.creativity.run`: ``kari creativity solve`` (resumable answers.jsonl, summary.json).
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.creativity.model import Entity, Part, Task, read_tasks
    from kari.creativity.run import SolveConfig, solve_loaded, solve_tasks
    from kari.creativity.store import load_creativity

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.creativity.model": ("Entity", "Part", "Task", "read_tasks"),
    "kari.creativity.run": ("SolveConfig", "solve_loaded", "solve_tasks"),
    "kari.creativity.store": ("load_creativity",),
})
