"""``kari report``: compare run directories side by side (Markdown, like the paper's Table 1) and draw IG over
turns for all runs.

Rows: one per run (questioner, oracle, checker, rules seen or not, SR, turns, and SR / turns on games whose
target has a matched rule vs. not). The covered/uncovered split of every row follows ONE source: the first run
(in the order given) whose records carry rule facts, and the report names that run, its rules file and how
many rules it holds. A second table pivots SR and turns per questioner, without and with rules; its delta is
"with rules minus without rules" for a questioner that has both kinds of run. The last section is the KB-gap
ledger of that same source run (:mod:`kari.report.ledger`; all of it in ``kb_gaps.csv``). Every column is defined
in the report itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.bench.reader import bench_inputs
from kari.errors import KariError
from kari.core.game_records import GAMES_FILE
from kari.io.escape import md
from kari.io.outputs import Input, Output, OutputKind, check_outputs, inputs_of
from kari.io.plan import PLAN_FILE
from kari.io.shards import distinct_dirs
from kari.io.runlog import CONFIG_FILE, SUMMARY_FILE
from kari.report.ledger_store import LEDGER_FILE, REPORT_TOP, report_ledger, write_ledger_file
from kari.rules.rulefile import rule_file_inputs
from kari.game.metrics import MIN_GAMES_PER_TURN, coverage_split, ig_by_turn, score
from kari.core.game_names import RuleColumn
from kari.core.game_settings import PlayConfig
from kari.game.plots import budget_figure, plot_ig, run_title, save_figure
from kari.game.run import checked_records, record_key
from kari.report.inputs import CoverageSource, ReportInputs, ReportOptions, coverage_source, open_source
from kari.game.summary import RunData, RunSummary
from kari.induce.folds import read_rule_sets
from kari.io.atomic import atomic_write_json, atomic_write_text
from kari.io.text import load_json, read_text
from kari.io.versions import RUN_FORMAT
from kari.report.budget import BUDGET_FIGURE, budget_section, budget_series
from kari.report.comparisons import Settings, report_data, table_key
from kari.report.html.page import render_html
from kari.report.intervals import sections
from kari.report.leaderboard import leaderboard_csv, leaderboard_rows
from kari.report.ledger import markdown_section

if TYPE_CHECKING:
    from kari.report.ledger import Ledger
    from kari.report.inputs import OpenedSource, RuleReader

FIGURE_FILE = "ig_over_turns.png"
REPORT_FILE = "report.md"
JSON_FILE = "report.json"
LEADERBOARD_CSV = "leaderboard.csv"
LEADERBOARD_JSON = "leaderboard.json"
HTML_FILE = "report.html"


def load_run(path: str | Path) -> RunData:
    """Read ``config.json``, ``summary.json`` and ``games.jsonl`` of a run directory."""
    root = Path(path)
    for name in (CONFIG_FILE, SUMMARY_FILE, GAMES_FILE):
        if not (root / name).is_file():
            raise KariError(f"not a finished run directory (no {name})", file=str(root), code="report-run")
    config, summary = (load_json(read_text(root / name), file=str(root / name), code="report-run")
                       for name in (CONFIG_FILE, SUMMARY_FILE))
    if not isinstance(config, dict) or not isinstance(summary, dict):
        raise KariError(f"{CONFIG_FILE} and {SUMMARY_FILE} must hold JSON objects", file=str(root), code="report-run")
    for name, data in ((CONFIG_FILE, config), (SUMMARY_FILE, summary)):
        RUN_FORMAT.version_of(data, str(root / name))  # a run of a newer kari is refused, never misread
    logged = checked_records(root)  # a repeated record, or one not of the run's inputs: FILE:LINE
    records = logged.records
    # a run stopped before its games were played (its summary may be an earlier session's); a plan that lists its
    # items (a human study's: each participant plays what they play) has no games it must hold
    if logged.plan is not None and logged.plan.items is None:
        logged.plan.unfinished(logged.shard, {record_key(r) for r in records}, str(root), "report-run")
    return RunData(root, PlayConfig.from_json(config, str(root / CONFIG_FILE)), RunSummary.from_json(summary), records)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _turns(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


COLUMNS = (
    ("run", "the run directory's name"),
    ("questioner / oracle / checker", "the three players (docs/method.md, section 3)"),
    ("model", "the model the run recorded (its name; `symbolic`: no LLM played; `not recorded`: an LLM run of an "
              "older kari)"),
    ("rules", "the source of the matched rules the questioner saw (kb, cross-fitted, bench or file; 'no' without "
              "rules)"),
    ("games", "distinct games played (a fix20q run plays each game 5 times and its SR is the mean over the runs)"),
    ("SR %", "success rate: the share of games whose final guess was the target, in percent"),
    ("turns", "mean number of question turns (accepted or rejected; the final guess not counted) over the "
              "SOLVED games only; '-' when no game was solved"),
    ("SR % covered / uncovered", "SR on the games whose target has / has no matched rule (see the coverage split "
                                 "below); '-' without rule facts"),
    ("turns covered / uncovered", "turns on those same two groups of games"),
)


def _definitions(figure: str | None) -> list[str]:
    lines = ["Columns:", ""] + [f"- **{name}**: {text}." for name, text in COLUMNS]
    if figure:
        lines += ["", f"Figure: [{figure}]({figure}), the mean information gain IG_t (bits) at each turn t, one line "
                      "per run, above the number of games that reached that turn; turns reached by fewer than "
                      f"{MIN_GAMES_PER_TURN} games are not drawn. Each run directory also holds its own "
                      "`ig_by_turn.png`, `dimensions_by_turn.png` and `success_by_affordance.png`."]
    return lines


_FIND = object()
"""``compare``'s default ``source``: find it in the runs."""


def compare(runs: Sequence[RunData], figure: str | None = None, data: Mapping[str, Any] | None = None,
            source: Any = _FIND) -> str:
    """The Markdown report text (``figure``: the IG figure's file name, to point to; ``data``: the
    ``report.json`` object to show the intervals of, computed with default settings when None; ``source``: the
    coverage split's source when already found, None for none)."""
    if source is _FIND:
        source = coverage_source(runs)
    if data is None:
        data = report_data(runs, source, Settings())
    covered = source.covered if source else None
    lines = ["# Affordance20Q runs", "",
             "| run | questioner | model | oracle | checker | rules | games | SR % | turns | SR % covered "
             "| SR % uncovered | turns covered | turns uncovered |",
             "|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for run in runs:
        overall = score(run.records)
        split = coverage_split(run.records, covered) if covered else None
        cov: Mapping[str, Any] = (split or {}).get("covered", {})
        unc: Mapping[str, Any] = (split or {}).get("uncovered", {})
        cfg = run.config
        lines.append(f"| {md(run.label)} | {md(cfg.questioner)} | {md(run.model.label)} | {md(cfg.oracle)} | "
                     f"{md(cfg.checker)} | {md(run.rule_source or 'no')} | {len({r.game for r in run.records})} | "
                     f"{_pct(overall['success_rate'])} | {_turns(overall['avg_turns_solved'])} | "
                     f"{_pct(cov.get('success_rate'))} | {_pct(unc.get('success_rate'))} | "
                     f"{_turns(cov.get('avg_turns_solved'))} | {_turns(unc.get('avg_turns_solved'))} |")
    lines += ["", *_definitions(figure), ""]
    lines.append(source.describe() if source else
                 "Coverage split: none of these runs was played with a rules file (--rules), so the covered / "
                 "uncovered columns are empty.")
    lines += ["", "## SR and turns per questioner and model, without rules and with each rule source (Table 1 "
                  "layout)", "",
              "| questioner | model | SR % | turns | SR % +KB rules | turns +KB rules | delta (points) | SR % +benchmark "
              "rules | turns +benchmark rules | delta (points) | tokens |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    table: dict[tuple[str, str], dict[str | None, RunData]] = {}
    for run in runs:
        table.setdefault(table_key(run), {}).setdefault(run.table_source, run)
    for (name, model), cells in table.items():
        base = score(cells[None].records) if None in cells else {}
        row = [md(name), md(model), _pct(base.get("success_rate")), _turns(base.get("avg_turns_solved"))]
        for column in RuleColumn:
            ruled = score(cells[column].records) if column in cells else {}
            delta = ("-" if base.get("success_rate") is None or ruled.get("success_rate") is None
                     else f"{100 * (ruled['success_rate'] - base['success_rate']):+.1f}")
            row += [_pct(ruled.get("success_rate")), _turns(ruled.get("avg_turns_solved")), delta]
        tokens = [run.tokens for run in cells.values() if run.tokens is not None]
        row.append(f"{sum(tokens):,}" if tokens else "-")
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "One row per questioner and model (the model the run recorded: its name, `symbolic` when no LLM "
                  "played, `not recorded` for an LLM run of an older kari); each model's runs with rules are "
                  "paired with that model's own run without them. SR % / turns: runs of that questioner without "
                  "rules; +KB rules: runs given the KB-anchored rules "
                  "(induced from the KB's positives, matched to the candidates by sentence similarity); +benchmark "
                  "rules: runs given benchmark-supervised rules (the cross-fitted RULES.cv, or another rules file); "
                  "the first run of each kind counts. **delta** is SR with those rules minus SR without, in "
                  "percentage points; '-' unless both runs exist (the `rules` player always sees rules, `optimal` "
                  "and `fix20q` never do). **tokens**: prompt and completion tokens of the row's LLM calls."]
    lines += sections(data)
    budget = budget_section(data, BUDGET_FIGURE if figure else None)
    lines += ["", *budget] if budget else []
    if "kb_gaps" in data:
        gaps = markdown_section(data["kb_gaps"], data.get("kb_gaps_note", ""))
        lines += ["", *gaps] if gaps else []
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Report:
    """What :func:`report_figures` made: the Markdown text, the ``report.json`` object and the leaderboard rows."""

    markdown: str
    data: dict[str, Any]
    leaderboard: list[dict[str, Any]]
    source: CoverageSource | None = None
    ledger: Ledger | None = None  # the KB-gap ledger of the source run (kari.report.ledger_store.report_ledger)


def report_figures(runs: Sequence[RunData], options: ReportOptions = ReportOptions(),
                   inputs: ReportInputs | None = None) -> tuple[list[RunData], Report]:
    """Every figure of the report on runs already read (or just played: :func:`kari.game.run.play_loaded`'s);
    nothing is written. ``inputs``: the benchmark objects and rule sets the caller already holds."""
    if not runs:
        raise KariError("give at least one run directory", code="report-run")
    if options.resamples < 1:
        raise KariError(f"--resamples must be >= 1 (got {options.resamples})", code="bad-option")
    runs = RunData.unique_labels(runs)
    source = coverage_source(runs)
    data = report_data(runs, source, Settings(resamples=options.resamples, seed=options.seed))
    ledger, note = report_ledger(runs, source, options, inputs)
    data["kb_gaps"] = None if ledger is None else ledger.to_json(REPORT_TOP)
    data["kb_gaps_note"] = note
    return runs, Report("", data, leaderboard_rows(data), source, ledger)


def report(run_dirs: Sequence[str | Path], out: str | Path | None = None,
           options: ReportOptions = ReportOptions()) -> str:
    """Compare ``run_dirs``; with ``out``, also write ``report.md``, ``report.json``, ``leaderboard.csv``,
    ``leaderboard.json`` and ``ig_over_turns.png`` there (and ``report.html`` with ``options.html``)."""
    return write_report(run_dirs, out, options).markdown


def write_report(run_dirs: Sequence[str | Path], out: str | Path | None = None,
                 options: ReportOptions = ReportOptions()) -> Report:
    """:func:`report`, returning the Markdown, the JSON object and the leaderboard."""
    if options.html and out is None:
        raise KariError("--html writes report.html into the report folder: give --out DIR", code="bad-option")
    run_dirs = distinct_dirs(run_dirs, none="give at least one run directory", once="each run is reported once",
                             code="report-run")
    if out is not None:  # before any work: no report file over a run's file or another input
        check_outputs([report_output(out, options)], report_inputs(run_dirs, options))
    return write_report_loaded([load_run(p) for p in run_dirs], out, options)


def report_output(out: str | Path, options: ReportOptions) -> Output:
    """The report folder as :func:`kari.io.outputs.check_outputs` sees it: the files a report writes there."""
    return Output(Path(out), "--out", OutputKind.FOLDER,
                  names=(REPORT_FILE, JSON_FILE, LEADERBOARD_CSV, LEADERBOARD_JSON, FIGURE_FILE, BUDGET_FIGURE,
                         LEDGER_FILE, *((HTML_FILE,) if options.html else ())))


def report_inputs(run_dirs: Sequence[str | Path], options: ReportOptions) -> list[Input]:
    """The files a report reads: each run directory's files, ``--rules`` (with its metadata twin), the files
    of ``--bench`` and the ``--db`` database."""
    runs = [Input(Path(d) / name, f"the run's {name}") for d in run_dirs
            for name in (CONFIG_FILE, SUMMARY_FILE, GAMES_FILE, PLAN_FILE)]
    return [*runs, *(rule_file_inputs(options.rules) if options.rules is not None else ()),
            *bench_inputs(options.bench), *inputs_of("--db", [options.db])]


def report_loaded(runs: Sequence[RunData], out: str | Path | None = None,
                  options: ReportOptions = ReportOptions(), inputs: ReportInputs | None = None) -> str:
    """:func:`report` on runs already read (or just played: :func:`kari.game.run.play_loaded`'s); ``inputs``:
    the benchmark objects and rule sets the caller already holds (the pipeline's study)."""
    return write_report_loaded(runs, out, options, inputs).markdown


def write_report_loaded(runs: Sequence[RunData], out: str | Path | None = None,
                        options: ReportOptions = ReportOptions(), inputs: ReportInputs | None = None) -> Report:
    """:func:`write_report` on runs already read. With ``options.html`` the benchmark objects and the rules the
    runs were played with are read once, for both the KB-gap ledger and the page."""
    if options.html and out is None:
        raise KariError("--html writes report.html into the report folder: give --out DIR", code="bad-option")
    if not options.html:
        return _write_report_loaded(runs, out, options, inputs)


    opened = open_source(runs, options)
    read = cache(read_rule_sets)
    try:
        if inputs is None and opened[0] is not None:
            inputs = ReportInputs(opened[0], read)
        return _write_report_loaded(runs, out, options, inputs, (opened, read))
    finally:
        if opened[0] is not None:
            opened[0].close()


def _write_report_loaded(runs: Sequence[RunData], out: str | Path | None, options: ReportOptions,
                         inputs: ReportInputs | None, page: tuple[OpenedSource, RuleReader] | None = None) -> Report:
    """:func:`write_report_loaded`; ``page``: the objects and the rule reader of the HTML page."""
    runs, made = report_figures(runs, options, inputs)
    text = compare(runs, FIGURE_FILE if out is not None else None, made.data, made.source)
    made = Report(text, made.data, made.leaderboard, made.source, made.ledger)
    if out is not None:
        folder = Path(out)
        check_outputs([report_output(out, options)], report_inputs([run.path for run in runs], options))
        series = _ig_series(runs)
        html = None
        if options.html:
            html = render_html(runs, made.data, series, options, *(page or ()))  # all computed before any write
        atomic_write_text(folder / REPORT_FILE, text)
        atomic_write_json(folder / JSON_FILE, made.data)
        atomic_write_text(folder / LEADERBOARD_CSV, leaderboard_csv(made.leaderboard))
        atomic_write_json(folder / LEADERBOARD_JSON, made.leaderboard)
        plot_ig(series, folder / FIGURE_FILE, title="Information gain over turns, per run")
        save_figure(budget_figure(budget_series(made.data)), folder / BUDGET_FIGURE)
        if html is not None:
            atomic_write_text(folder / HTML_FILE, html)
        if made.ledger is not None:
            write_ledger_file(made.ledger, folder / LEDGER_FILE)
    return made


def _ig_series(runs: Sequence[RunData]) -> Mapping[str, tuple[list[float], list[int]]]:
    """IG per turn and games per turn of each run, labelled with the run and, when it differs, its questioner."""
    series = {}
    for run in runs:
        who = run_title(run.config)
        label = who if run.label == run.config.questioner else f"{run.label}: {who}"
        series[label] = ig_by_turn(run.records)
    return series
