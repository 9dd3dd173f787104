"""A study's grid: which players play, with which models and servers, and how the runs are spread over the
cores (``kari pipeline --study FILE.toml`` and ``kari pipeline``'s options).

A study file is TOML; every key is optional, a relative path is read from the file's folder, an unknown key is
an error at its line::

    out = "runs/grid"               # the output folder (--out)
    bench = "my_bench"              # benchmark directory (--bench; default: the bundled one)
    kb = ["kb.tsv"]                 # KB files (--kb; default: the bundled KGTK KB)
    players = ["optimal", "llm", "llm+kb", "llm+rules"]   # NAME[@K][+kb|+rules] (--questioner)
    games = 40                      # the first N games (--games)
    seed = 0                        # --seed (an LLM player's sampling seed of run k is seed + k)
    runs = 3                        # runs per game (--runs; default: the player's own)
    jobs = 2                        # players (and shards) played at once (--jobs; default: the cores)
    shards = 1                      # each player's games split into N shards, played apart and merged (--shards)
    flagged_rules = "skip"          # flagged KB rules: "skip" or "use" them, in play and coverage (--flagged-rules)
    [llm]                           # how every model is called (the command's LLM options)
    cache_dir = "cache"             # the reply cache (default $KARI_CACHE_DIR, ~/.cache/kari/llm)
    no_cache = false
    timeout = 60.0                  # seconds per reply
    attempts = 5                    # attempts per call
    [[models]]                      # one table per model: each LLM player plays once with each
    name = "m1"                     # the model name sent
    base_url = "http://127.0.0.1:8080/v1"   # its server (default $KARI_LLM_BASE_URL)
    api_key_env = "OPENAI_API_KEY"
    temperature = 0.0               # the questioner's sampling temperature
    concurrency = 4                 # games (and calls) in flight
    label = "m1"                    # its folder under play/ (default: the name, made a file name)

LLM players (``llm``, ``llm+kb``, ``llm+rules``) play once per model, into ``play/<label>/<player>``; the
others once, into ``play/<player>``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from kari.core.game_defaults import DEFAULT_QUESTIONERS
from kari.core.game_names import FlaggedRules, Player
from kari.errors import KariError, choice, unknown
from kari.io.text import read_text
from kari.llm.config import DEFAULT_ATTEMPTS, DEFAULT_TIMEOUT, LLMConfig, LLMOptions


@dataclass(frozen=True)
class ModelSpec:
    """One model of the grid: its name, server, key, the questioner's sampling temperature, the games in flight
    and its folder under ``play/``."""

    name: str
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float | None = None
    concurrency: int = 4
    label: str | None = None

    @property
    def folder(self) -> str:
        """The model's folder name under ``play/``."""
        return self.label or re.sub(r"[^A-Za-z0-9._-]+", "_", self.name).strip("._") or "model"


@dataclass(frozen=True)
class LLMCalls:
    """How every model of the grid is called: the reply cache, the time per reply and the attempts per call."""

    cache_dir: Path | None = None
    no_cache: bool = False
    timeout: float = DEFAULT_TIMEOUT
    attempts: int = DEFAULT_ATTEMPTS

    def config(self, model: ModelSpec) -> LLMConfig:
        """The endpoint of ``model`` (:class:`~kari.llm.config.LLMConfig`; its server from the environment when
        the study names none)."""
        return LLMOptions(base_url=model.base_url, model=model.name, api_key_env=model.api_key_env,
                          no_cache=self.no_cache, cache_dir=self.cache_dir, timeout=self.timeout,
                          attempts=self.attempts).config(concurrency=model.concurrency)


@dataclass(frozen=True)
class GridSpec:
    """A whole grid (module docstring); None fields are the pipeline's defaults."""

    players: tuple[str, ...] = DEFAULT_QUESTIONERS
    models: tuple[ModelSpec, ...] = ()
    out: Path | None = None
    bench: Path | None = None
    kb: tuple[Path, ...] = ()
    games: int | None = None
    seed: int = 0
    runs: int | None = None
    jobs: int | None = None
    shards: int = 1
    llm: LLMCalls = field(default_factory=LLMCalls)
    flagged_rules: str | None = None  # None: the players' default (skip), and their config.json does not name it

    def with_options(self, **given: Any) -> GridSpec:
        """The spec with the command line's options that were given (not None, not empty) in place of the
        file's."""
        return replace(self, **{k: v for k, v in given.items() if v is not None and v != () and v != []})

    def check(self) -> None:
        """A :class:`KariError` (``bad-option``) for settings that do not fit together."""
        if self.shards < 1 or (self.jobs is not None and self.jobs < 1) or (self.runs is not None and self.runs < 1):
            raise KariError("--shards, --jobs and --runs must be >= 1", code="bad-option")
        if self.flagged_rules is not None:
            choice(self.flagged_rules, FlaggedRules, "--flagged-rules", code="bad-option")
        llm = [p for p in self.players if is_llm_player(p)]
        if llm and not self.models:
            raise KariError(f"the player {llm[0]!r} needs a model: give --model NAME (and --base-url) or a study's "
                            "[[models]]", code="bad-option")
        if self.models and not llm:
            raise KariError("models are given but no LLM player plays them: add llm, llm+kb or llm+rules to the "
                            "players", code="bad-option")
        folders = [m.folder for m in self.models]
        if len(set(folders)) != len(folders):
            raise KariError(f"two models share the folder {next(f for f in folders if folders.count(f) > 1)!r}: "
                            "give each a label", code="bad-option")
        for model in self.models:
            if model.concurrency < 1 or (model.temperature is not None and not 0.0 <= model.temperature <= 2.0):
                raise KariError(f"model {model.name!r}: concurrency must be >= 1 and temperature in [0, 2]",
                                code="bad-option")


def is_llm_player(spec: str) -> bool:
    """Does the player ``NAME[@K][+kb|+rules]`` need a model (its base name is ``llm``)?"""
    return re.split(r"[@+]", spec, maxsplit=1)[0] == Player.LLM


KEYS = {"out", "bench", "kb", "players", "games", "seed", "runs", "jobs", "shards", "flagged_rules", "llm", "models"}
PATH_KEYS = {"out", "bench"}
MODEL_KEYS = {f.name for f in fields(ModelSpec)}
LLM_KEYS = {f.name for f in fields(LLMCalls)}


def read_study(path: str | Path) -> GridSpec:
    """The grid a study file describes (module docstring); a malformed file or an unknown key is a
    :class:`KariError` at its line."""
    file = Path(path)
    text = read_text(file, "study file")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line = int(where[1]) if where else (max(1, len(text.splitlines())) if "end of document" in str(exc) else None)
        raise KariError(re.sub(r" \(at (line \d+, column \d+|end of document)\)", "", str(exc)), file=str(file),
                        line=line, col=int(where[2]) if where else None, code="study-file") from None
    here = file.resolve().parent

    def bad(message: str, key: str) -> KariError:
        return KariError(message, file=str(file), line=_line_of(text, key), code="study-file")

    extra = sorted(set(data) - KEYS)
    if extra:
        raise bad(unknown("key", extra[0], sorted(KEYS), code="study-file").message, extra[0])
    values: dict[str, Any] = {}
    for key, kind in (("out", str), ("bench", str), ("games", int), ("seed", int), ("runs", int), ("jobs", int),
                      ("shards", int), ("flagged_rules", str)):
        if key in data:
            if not isinstance(data[key], kind) or isinstance(data[key], bool):
                raise bad(f"{key!r} must be a {kind.__name__}", key)
            values[key] = here / data[key] if key in PATH_KEYS else data[key]
    if "flagged_rules" in values:
        try:
            choice(values["flagged_rules"], FlaggedRules, "flagged_rules value", code="study-file")
        except KariError as exc:
            raise bad(exc.message, "flagged_rules") from None
    for key in ("kb", "players"):
        if key in data:
            if not isinstance(data[key], list) or not all(isinstance(v, str) for v in data[key]):
                raise bad(f"{key!r} must be a list of strings", key)
            values[key] = tuple(here / v for v in data[key]) if key == "kb" else tuple(data[key])
    if "llm" in data:
        values["llm"] = _llm_calls(data["llm"], here, bad)
    if "models" in data:
        if not isinstance(data["models"], list) or not all(isinstance(m, dict) for m in data["models"]):
            raise bad("'models' must be an array of tables ([[models]])", "models")
        values["models"] = tuple(_model(m, bad) for m in data["models"])
    return GridSpec(**values)


MODEL_TYPES: dict[str, tuple[type, ...]] = {"name": (str,), "base_url": (str,), "api_key_env": (str,),
                                            "temperature": (int, float), "concurrency": (int,), "label": (str,)}
LLM_TYPES: dict[str, tuple[type, ...]] = {"cache_dir": (str,), "no_cache": (bool,), "timeout": (int, float),
                                          "attempts": (int,)}


def _typed(data: Mapping[str, Any], types: Mapping[str, tuple[type, ...]], table: str, bad: Any) -> None:
    for key, value in data.items():
        kinds = types[key]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise bad(f"{key!r} in {table} must be {' or '.join(k.__name__ for k in kinds)}", key)


def _llm_calls(data: Any, here: Path, bad: Any) -> LLMCalls:
    if not isinstance(data, Mapping):
        raise bad("'llm' must be a table ([llm])", "llm")
    extra = sorted(set(data) - LLM_KEYS)
    if extra:
        raise bad(unknown("key", extra[0], sorted(LLM_KEYS), code="study-file").message + " in [llm]", extra[0])
    _typed(data, LLM_TYPES, "[llm]", bad)
    values = dict(data)
    if "cache_dir" in values:
        values["cache_dir"] = here / str(values["cache_dir"])
    return LLMCalls(**values)


def _model(data: Mapping[str, Any], bad: Any) -> ModelSpec:
    extra = sorted(set(data) - MODEL_KEYS)
    if extra:
        raise bad(unknown("key", extra[0], sorted(MODEL_KEYS), code="study-file").message + " in [[models]]",
                  extra[0])
    if not isinstance(data.get("name"), str) or not data["name"]:
        raise bad("every [[models]] table needs a name", "models")
    _typed(data, MODEL_TYPES, "[[models]]", bad)
    return ModelSpec(**data)


def _line_of(text: str, key: str) -> int | None:
    """The first line that sets ``key`` (for the error's location)."""
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(rf"\s*\[*\s*{re.escape(key)}\s*[=\]]", line):
            return number
    return None


def grid_cells(spec: GridSpec) -> list[tuple[str, ModelSpec | None]]:
    """The runs of the grid, in report order: every player without a model in the order given, then for each
    model every LLM player in the order given."""
    cells: list[tuple[str, ModelSpec | None]] = [(p, None) for p in spec.players if not is_llm_player(p)]
    return cells + [(p, m) for m in spec.models for p in spec.players if is_llm_player(p)]


def model_specs(names: Sequence[str], base_url: str | None = None, temperature: float | None = None,
                concurrency: int | None = None) -> tuple[ModelSpec, ...]:
    """The models of ``kari pipeline --model NAME ...``: one server for all."""
    return tuple(ModelSpec(name, base_url, temperature=temperature, concurrency=concurrency or ModelSpec.concurrency)
                 for name in names)
