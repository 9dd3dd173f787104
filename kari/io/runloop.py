"""The one resumable run loop: items answered into a locked run directory, one record each, resumed on rerun.

``kari play`` (``games.jsonl``), ``kari creativity solve`` (``answers.jsonl``) and ``kari creativity judge``
(``judgements.jsonl`` beside the answers it judges, with its own ``judge_config.json``: :class:`RunFiles`) run it:

1. :func:`resumable` creates and locks the directory (a second writer fails at once; a directory created for a
   command that then fails before writing anything is removed again);
2. :meth:`ResumableRun.check_resume` refuses a rerun with other settings (``config.json``; the item counts may
   differ), another shard, or inputs whose content changed (their fingerprints, :mod:`kari.io.fingerprint`);
3. :meth:`ResumableRun.start` reads the log back (:func:`kari.io.runlog.load_log`: a half-written last line is
   dropped, a whole one kept, glued lines split), refuses a log holding a record twice or a record that is not
   in the run's plan (:func:`kari.io.plan.check_records`), and only then writes ``config.json``, ``plan.json``
   and, when a crash left it unclean, the log;
4. :meth:`ResumableRun.todo` keeps the items of this shard not in the log yet; :meth:`ResumableRun.record`
   appends each new record as one whole line and flushes it, behind a progress bar;
5. the command writes ``summary.json`` (the scores of every record of the directory) atomically, as ``kari
   merge`` does for shards joined.

Records are typed: the command's reader turns a JSON line into its record (or a ``run-corrupt`` error) and
each record serialises itself with ``to_json()``. :func:`read_checked_log` is the same reading and checking
for the commands that read a finished run (``kari report``, ``kari creativity judge``, ``kari merge``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from tqdm import tqdm

from kari.errors import KariError
from kari.io.atomic import atomic_write_json, atomic_write_jsonl
from kari.io.fingerprint import INPUTS_KEY, check_unchanged
from kari.io.lock import output_folder
from kari.io.outputs import Input, Output, OutputKind, check_outputs
from kari.io.plan import PLAN_FILE, SHARD_KEY, ItemKey, Plan, Shard, check_records, read_plan, shard_of_config
from kari.io.runlog import CONFIG_FILE, SUMMARY_FILE, append, check_settings, load_log, read_config
from kari.io.versions import RUN_FORMAT


class Record(Protocol):
    def to_json(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=Record)
T = TypeVar("T")

OLD_RUN = ("was made by an older kari that recorded no fingerprints of its inputs and no plan, so its records "
           "cannot be checked against them")
"""Why a run directory from before fingerprints cannot be resumed (and what ``kari report`` notes about it)."""


@dataclass(frozen=True)
class RunLog(Generic[R]):
    """A command's log of records: its file name (``games.jsonl``), how to read one JSON line into a record (or
    a ``run-corrupt`` error), the record's key, the noun of an item in messages (``game``) and, optionally, why
    a record cannot be one of its run's (``problem(record, config)``: a text, or None when it agrees with
    itself and with the run's ``config.json``)."""

    file: str
    read: Callable[[dict[str, Any], Path, int], R]
    key: Callable[[R], ItemKey]
    noun: str
    problem: Callable[[R, Mapping[str, Any]], str | None] | None = None

    def check(self, records: Sequence[R], lines: Sequence[int], path: Path, config: Mapping[str, Any]) -> None:
        """Refuse the first record that :attr:`problem` finds inconsistent, at FILE:LINE (code ``run-corrupt``)."""
        if self.problem is None:
            return
        for record, line in zip(records, lines):
            why = self.problem(record, config)
            if why is not None:
                raise KariError(f"inconsistent {self.noun} record: {why}", file=str(path), line=line,
                                code="run-corrupt")


@dataclass(frozen=True)
class RunFiles:
    """The names of a run directory's settings, plan and summary files (the log's is its :class:`RunLog`'s);
    ``plan`` None: the run writes no plan (a run over another run's records, such as ``kari creativity
    judge``)."""

    config: str = CONFIG_FILE
    summary: str = SUMMARY_FILE
    plan: str | None = PLAN_FILE


@dataclass(frozen=True)
class RunSpec(Generic[R]):
    """One run directory: its log (:class:`RunLog`) and its settings.

    ``settings`` must match on resume; ``counts`` (how many items were asked for) may differ; ``config.json``
    holds both, in that order, then the ``shard`` (when the run is one) and the ``inputs``: the fingerprints
    of what the run reads, which must match on resume too (None: the run records none). ``reads`` are the
    files the command reads: no file the run writes (its log, ``config.json``, ``plan.json``, ``summary.json``
    and the names in ``writes``) may be one of them. ``plan`` is what the run is made of (``plan.json``): every
    record must be an item of it, once, of this ``shard``. ``files`` names the directory's files
    (:class:`RunFiles`)."""

    folder: Path
    log: RunLog[R]
    settings: Mapping[str, Any]
    counts: Mapping[str, Any]
    inputs: Mapping[str, Any] | None = field(default_factory=dict)
    reads: tuple[Input, ...] = ()
    writes: tuple[str, ...] = ()
    plan: Plan | None = None
    shard: Shard | None = None
    files: RunFiles = RunFiles()

    def identity(self) -> dict[str, Any]:
        """What a resumed run must share with this one besides its inputs: the settings and the shard."""
        return {**self.settings, **({SHARD_KEY: str(self.shard)} if self.shard is not None else {})}

    def config(self) -> dict[str, Any]:
        """The ``config.json`` object (its format version first)."""
        return RUN_FORMAT.stamped({**self.settings, **self.counts,
                                   **({SHARD_KEY: str(self.shard)} if self.shard is not None else {}),
                                   **({INPUTS_KEY: dict(self.inputs)} if self.inputs is not None else {})})

    def written(self) -> tuple[str, ...]:
        """The files the run writes into its directory (:func:`run_files`)."""
        return run_files(self.log, self.writes, self.files)


class ResumableRun(Generic[R]):
    """The steps of one session in a locked run directory (see the module docstring)."""

    def __init__(self, spec: RunSpec[R]) -> None:
        if spec.shard is not None and spec.plan is None:
            raise ValueError("a shard needs the run's plan")
        self.spec = spec
        self.records: list[R] = []

    @property
    def log_path(self) -> Path:
        return self.spec.folder / self.spec.log.file

    def check_resume(self) -> None:
        """Refuse to go on in a directory made with other settings, as another shard, or over inputs whose
        content changed since; a directory of an older kari (no fingerprints) is refused once it holds records."""
        path = self.spec.folder / self.spec.files.config
        old = read_config(path)
        if old is None:
            return
        check_settings(path, self.spec.identity(), ignore=(*self.spec.counts, INPUTS_KEY))
        if self.spec.inputs is None:
            return
        if INPUTS_KEY not in old:
            if self.log_path.is_file() and self.log_path.read_bytes().strip():
                raise KariError(f"this run directory {OLD_RUN}: start afresh with a new --out (kari report still "
                                "reads it)", file=str(path), code="run-inputs")
            return
        if not isinstance(old[INPUTS_KEY], dict):
            raise KariError(f"{INPUTS_KEY!r} is not a JSON object", file=str(path), code="run-config")
        check_unchanged(path, old[INPUTS_KEY], self.spec.inputs)

    def start(self) -> list[R]:
        """Read the records already there and check them (nothing is written before they pass), then write
        ``config.json`` and ``plan.json`` (and the log again when a crash left it unclean)."""
        self.check_resume()
        self.records, lines, dirty = read_log(self.log_path, self.spec.log.read)
        check_records(self.records, lines, self.log_path, self.spec.log.key, self.spec.plan, self.spec.shard)
        self.spec.log.check(self.records, lines, self.log_path, self.spec.config())
        atomic_write_json(self.spec.folder / self.spec.files.config, self.spec.config())
        if self.spec.plan is not None and self.spec.files.plan is not None:
            atomic_write_json(self.spec.folder / self.spec.files.plan, self.spec.plan.to_json())
        if dirty:
            atomic_write_jsonl(self.log_path, [r.to_json() for r in self.records])
        return self.records

    def todo(self, items: Iterable[T], key: Callable[[T], ItemKey]) -> list[T]:
        """The items of this shard whose key no record of the log has yet, in order."""
        done = {self.spec.log.key(r) for r in self.records}
        plan, shard = self.spec.plan, self.spec.shard
        return [item for item in items if (k := key(item)) not in done and (plan is None or plan.owns(shard, k[0]))]

    def record(self, results: Iterable[R], total: int, *, desc: str, unit: str, progress: bool) -> list[R]:
        """Append each result to the log as it comes (one whole line, flushed) and return every record."""
        bar = tqdm(total=total, desc=desc, unit=unit, disable=not progress, leave=False)
        try:
            with self.log_path.open("a", encoding="utf-8") as handle:
                for result in results:
                    append(handle, result.to_json())
                    self.records.append(result)
                    bar.update(1)
        finally:
            bar.close()
        return self.records

    def append(self, record: R) -> None:
        """Append one record to the log (one whole line, flushed before this returns): a run whose items come one
        by one, as a person finishes them (``kari serve``)."""
        with self.log_path.open("a", encoding="utf-8") as handle:
            append(handle, record.to_json())
        self.records.append(record)

    def drop(self, unwanted: Callable[[R], bool]) -> list[R]:
        """Rewrite the log without the records ``unwanted`` picks (atomically) and return them (a participant
        who withdraws from a study takes their records with them)."""
        gone = [r for r in self.records if unwanted(r)]
        if gone:
            self.records = [r for r in self.records if not unwanted(r)]
            atomic_write_jsonl(self.log_path, [r.to_json() for r in self.records])
        return gone


def run_files(log: RunLog[Any], writes: Iterable[str] = (), files: RunFiles = RunFiles()) -> tuple[str, ...]:
    """The names a run writes into its directory: its log, ``config.json``, ``plan.json`` (unless it writes
    none), ``summary.json`` (or the names ``files`` gives them) and ``writes`` (plots)."""
    names = (log.file, files.config, files.plan, files.summary, *writes)
    return tuple(name for name in names if name is not None)


def check_run_outputs(folder: Path, log: RunLog[Any], reads: Iterable[Input], writes: Iterable[str] = ()) -> None:
    """Refuse a run directory whose files (:func:`run_files`) would replace one of the files the run ``reads``
    (:func:`kari.io.outputs.check_outputs`): a command calls it before it reads its inputs."""
    check_outputs([Output(folder, "--out", OutputKind.FOLDER, names=run_files(log, writes))], reads)


@contextmanager
def resumable(spec: RunSpec[R]) -> Iterator[ResumableRun[R]]:
    """Create and lock ``spec.folder`` for the block (:func:`kari.io.lock.output_folder`), after checking that
    none of the files the run writes is one of the files it reads."""
    with output_folder(spec.folder, writes=spec.written(), inputs=spec.reads):
        yield ResumableRun(spec)


def read_log(path: Path, read: Callable[[dict[str, Any], Path, int], R]) -> tuple[list[R], list[int], bool]:
    """:func:`kari.io.runlog.load_log` with the line each record was read from."""
    lines: list[int] = []

    def check(record: dict[str, Any], file: Path, line: int) -> R:
        typed = read(record, file, line)
        lines.append(line)
        return typed

    records, dirty = load_log(path, check)
    return records, lines, dirty


@dataclass(frozen=True)
class LoggedRun(Generic[R]):
    """A run directory read back and checked: its ``config.json``, plan, shard and records, and a note when it
    is a directory of an older kari whose records could be checked for repeats only."""

    folder: Path
    config: dict[str, Any]
    plan: Plan | None
    shard: Shard | None
    records: list[R]
    note: str | None = None


def read_checked_log(folder: Path, log: RunLog[R]) -> LoggedRun[R]:
    """Read a run directory's log and refuse it when it holds a record twice, a record not in the run's plan
    or one of another shard (FILE:LINE), as a resume does."""
    config_path = folder / CONFIG_FILE
    config = read_config(config_path)
    if config is None:
        raise KariError(f"not a run directory (no {CONFIG_FILE})", file=str(folder), code="run-config")
    plan, shard = read_plan(folder), shard_of_config(config, config_path)
    if shard is not None and plan is None:
        raise KariError(f"a shard without its {PLAN_FILE}", file=str(folder), code="run-config")
    path = folder / log.file
    records, lines, _ = read_log(path, log.read)
    check_records(records, lines, path, log.key, plan, shard, log.noun)
    log.check(records, lines, path, config)
    return LoggedRun(folder, config, plan, shard, records, old_run_note(folder))


def old_run_note(folder: Path) -> str | None:
    """What ``kari report`` says of a run directory made before kari recorded fingerprints and plans (None for
    a directory that has them, or that is no run directory)."""
    try:
        config = read_config(folder / CONFIG_FILE)
    except KariError:
        return None
    if config is None or (INPUTS_KEY in config and (folder / PLAN_FILE).is_file()):
        return None
    return f"{folder} {OLD_RUN}: only repeated records were looked for"


class Totals(Protocol):
    def as_dict(self) -> dict[str, Any]: ...


class Metered(Protocol):
    """What a run reads of its chat client (:class:`kari.llm.client.ChatClient`): its token totals."""

    @property
    def usage(self) -> Totals: ...


def usage_of(client: Metered | None) -> dict[str, Any]:
    """The summary's ``llm_usage`` entry of a chat client (none without one)."""
    return {} if client is None else {"llm_usage": client.usage.as_dict()}


__all__ = ["LoggedRun", "OLD_RUN", "Record", "ResumableRun", "RunFiles", "RunLog", "RunSpec", "old_run_note",
           "read_checked_log",
           "read_log", "resumable", "usage_of"]
