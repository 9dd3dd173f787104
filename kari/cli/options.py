"""Typed option checkers shared by every command: counts with an upper bound and finite numbers in a range,
checked when the command line is parsed (before any work), with the bound shown in ``--help``; and the options
several commands share, each declared once as an ``Annotated`` alias (a command writes ``model: Model = None``).

A count past its bound (``--runs 100000000``) or a number that is not finite (``nan``, ``inf``) is a usage
error (exit 2), never a run that eats the machine's memory or an internal error later on.

The LLM connection (:data:`BaseUrl`, :data:`Model`, :data:`ApiKeyEnv`, :data:`NoCache`, :data:`CacheDir`,
:data:`LLMTimeout`, :data:`LLMAttempts`, :data:`LLMMaxBytes`, defaults :data:`LLM_DEFAULTS`) is gathered into one
:class:`kari.llm.config.LLMOptions`, whose ``config()`` builds the command's ``LLMConfig``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from kari.core import game_defaults
from kari.core.game_names import FlaggedRules, MatchMode
from kari.errors import one_of
from kari.llm.config import DEFAULT_MAX_REPLY_BYTES, MAX_REPLY_BYTES, LLMOptions

# Upper bounds of count options: far above any real use, low enough that nothing is allocated per unit
# before the first step can fail.
MAX_GAMES = 10_000_000          # games played, prompts written, tasks solved
MAX_RUNS = 1_000                # runs per game
MAX_BUDGET = 1_000              # questions per game
MAX_ITEMS = 1_000_000           # representatives, rules per candidate, affordances, supports, words listed
MAX_ROWS = 10_000_000           # rows printed by kb sql, edges by kb show
MAX_TOKENS = 1_000_000          # LLM tokens per reply
MAX_ATTEMPTS = 100              # LLM attempts per call, repair attempts
MAX_ROUNDS = 100                # induction rounds, cross-validation folds
MAX_CONCURRENCY = 256           # games (and LLM calls) in flight
MAX_CALLS = 1_000_000_000       # LLM calls one command may spend (--budget-calls)
MAX_TOTAL_TOKENS = 10**13       # LLM tokens one command may spend (--budget-tokens)
MAX_BATCH = 64                  # objects per LLM Validator request
MAX_RESAMPLES = 1_000_000       # bootstrap resamples of one interval
MAX_SECONDS = 86_400.0          # any time limit: one day
SEED_RANGE = (0, 2**63 - 1)     # seeds: what every random source accepts


def count(default: Any, *names: str, low: int = 1, high: int, help: str, **extra: Any) -> Any:
    """An integer option in ``[low, high]`` (typer shows the range in --help)."""
    return typer.Option(default, *names, min=low, max=high, help=help, **extra)


def seed(default: int | None, *names: str, help: str) -> Any:
    """A seed option (a non-negative 63-bit integer; None: unset, the command picks)."""
    return typer.Option(default, *names, min=SEED_RANGE[0], max=SEED_RANGE[1], help=help)


def number(default: Any, *names: str, low: float | None = None, high: float | None = None,
           low_open: bool = False, high_open: bool = False, help: str, **extra: Any) -> Any:
    """A finite float option within the given bounds (``low_open``: ``low`` itself is excluded); the range is
    appended to the help text."""
    check = finite(low, high, low_open, high_open)
    return typer.Option(default, *names, parser=check, metavar="FLOAT", help=f"{help} [{check.range_text}]",
                        **extra)


class finite:  # noqa: N801 - used like a function: finite(0, 1)(text)
    """Parse a finite float within bounds; raise :class:`typer.BadParameter` (a usage error) otherwise."""

    def __init__(self, low: float | None, high: float | None, low_open: bool = False,
                 high_open: bool = False) -> None:
        self.low, self.high, self.low_open, self.high_open = low, high, low_open, high_open
        left = "" if low is None else f"{low:g}{'<' if low_open else '<='}"
        right = "" if high is None else f"{'<' if high_open else '<='}{high:g}"
        self.range_text = f"{left}x{right}" if (left or right) else "finite"

    def __call__(self, value: Any) -> float:
        if value is None or isinstance(value, bool):
            return value  # type: ignore[return-value]  # typer hands defaults (None, a flag) through unparsed
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise typer.BadParameter(f"{value!r} is not a number") from None
        if not math.isfinite(number):
            raise typer.BadParameter(f"{value!r} is not a finite number")
        if (self.low is not None and (number <= self.low if self.low_open else number < self.low)) or \
                (self.high is not None and (number >= self.high if self.high_open else number > self.high)):
            raise typer.BadParameter(f"{value!r} is not in the range {self.range_text}")
        return number


def timeout(default: float, *names: str, help: str) -> Any:
    """A time limit in seconds: finite, above 0, at most a day."""
    return number(default, *names, low=0.0, high=MAX_SECONDS, low_open=True, help=help)


def budget_calls(*names: str, help: str) -> Any:
    """``--budget-calls N``: at most N live LLM calls (cache hits are free); None: no limit."""
    return count(None, *names, high=MAX_CALLS, metavar="N", help=help)


def budget_tokens(*names: str, help: str) -> Any:
    """``--budget-tokens N``: no new live LLM call once the replies so far report N tokens; None: no limit."""
    return count(None, *names, high=MAX_TOTAL_TOKENS, metavar="N", help=help)


def shard(*names: str, help: str) -> Any:
    """A ``--shard K/N`` option (shard K of N, ``1 <= K <= N``, N at most :data:`kari.io.plan.MAX_SHARDS`),
    parsed into a :class:`kari.io.plan.Shard`; None when not given."""
    from kari.io.plan import MAX_SHARDS

    return typer.Option(None, *names, parser=parse_shard, metavar="K/N", help=f"{help} [1<=K<=N<={MAX_SHARDS}]")


def parse_shard(value: Any) -> Any:
    """``"2/5"`` as a :class:`kari.io.plan.Shard`; anything else a usage error."""
    from kari.errors import KariError
    from kari.io.plan import Shard

    if value is None or isinstance(value, Shard):
        return value
    try:
        return Shard.parse(value)
    except KariError as exc:
        raise typer.BadParameter(exc.message) from None


Parser = Callable[[Any], Any]


def _range_text(low: float | None, high: float | None, low_open: bool = False, high_open: bool = False) -> str:
    return finite(low, high, low_open, high_open).range_text


class OutputPath:
    """The parser of an option that names something a command writes (:func:`output`): the value as a
    :class:`~pathlib.Path`. ``kind`` (a :class:`kari.io.outputs.OutputKind` value, or ``cache`` for an LLM
    reply cache, which only ever adds new files) marks the option, so ``tests/test_cli_fuzz.py`` finds every
    option that writes."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.__name__ = f"output {kind}"

    def __call__(self, value: Any) -> Any:
        return value if value is None or isinstance(value, Path) else Path(value)


OUTPUT_METAVARS = {"file": "FILE", "folder": "DIR", "database": "DB", "cache": "DIR"}


def output(default: Any, *names: str, kind: str = "file", help: str, **extra: Any) -> Any:
    """An option naming an output (``kind``: file, folder, database or cache; see :class:`OutputPath`)."""
    metavar = extra.pop("metavar", OUTPUT_METAVARS[kind])
    return typer.Option(default, *names, parser=OutputPath(kind), metavar=metavar, help=help, **extra)


def output_argument(default: Any, *, kind: str = "file", help: str, **extra: Any) -> Any:
    """An argument naming an output (see :func:`output`)."""
    return typer.Argument(default, parser=OutputPath(kind), help=help, **extra)


# --- options several commands share, declared once ------------------------------------------------------------

LLM_DEFAULTS = LLMOptions()
"""The defaults of the LLM connection options."""

BaseUrl = Annotated[Optional[str], typer.Option(  # noqa: UP007 - typer reads the annotation at run time
    "--base-url", help="LLM server URL (default $KARI_LLM_BASE_URL, else OpenAI's API).")]
Model = Annotated[Optional[str], typer.Option("--model", help="LLM model name (default $KARI_LLM_MODEL).")]
ApiKeyEnv = Annotated[str, typer.Option("--api-key-env", help="Environment variable holding the LLM API key.")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the LLM reply cache.")]
CacheDir = Annotated[Optional[Path], typer.Option(
    "--cache-dir", parser=OutputPath("cache"), metavar=OUTPUT_METAVARS["cache"],
    help="LLM reply cache folder (default $KARI_CACHE_DIR, else ~/.cache/kari/llm).")]
LLMTimeout = Annotated[float, typer.Option(
    "--llm-timeout", parser=finite(0.0, MAX_SECONDS, low_open=True), metavar="FLOAT",
    help="Seconds to wait for one LLM reply before the attempt counts as failed "
         f"[{_range_text(0.0, MAX_SECONDS, low_open=True)}].")]
LLMAttempts = Annotated[int, typer.Option(
    "--llm-attempts", min=1, max=MAX_ATTEMPTS,
    help="Attempts per LLM call (timeouts, connection errors, HTTP 429 and 5xx are retried with backoff).")]
LLMMaxBytes = Annotated[int, typer.Option(
    "--llm-max-bytes", min=1, max=MAX_REPLY_BYTES,
    help="Largest LLM reply body read, in bytes: a server that sends more is cut off there and the attempt fails "
         "(retried, then an error naming the server); nothing of it is kept or cached.")]


def llm_options(base_url: str | None, model: str | None, api_key_env: str, no_cache: bool, cache_dir: Path | None,
                llm_timeout: float, llm_attempts: int, llm_max_bytes: int = DEFAULT_MAX_REPLY_BYTES) -> LLMOptions:
    """The LLM connection options of a command line, gathered."""
    return LLMOptions(base_url, model, api_key_env, no_cache, cache_dir, llm_timeout, llm_attempts, llm_max_bytes)


MATCH_RANGE = (0.0, 1.0)
"""``--match-threshold``: a sentence similarity, the range :class:`kari.game.match.RuleMatcher` accepts."""
MatchThreshold = Annotated[float, typer.Option(
    "--match-threshold", parser=finite(*MATCH_RANGE), metavar="FLOAT",
    help="Rule matching: the minimum sentence similarity of a rule verb and an affordance for a match "
         f"[{_range_text(*MATCH_RANGE)}].")]
RuleMatch = Annotated[str, typer.Option(
    "--rule-match", "--match",
    help=f"Rule matching, {one_of(MatchMode)}: embedding by MiniLM sentence similarity (needs kari[embed]), "
         "exact by identical verb ids.")]
TopK = Annotated[int, typer.Option("--top-k", min=1, max=MAX_ITEMS, help="Rules matched per candidate.")]
FLAGGED_HELP = (f"KB rules kari induce --db flagged (held-out precision within the KB no better than the base rate, "
                f"or not estimable): {one_of(FlaggedRules)} them (default {game_defaults.FLAGGED_RULES}).")
"""The help of ``--flagged-rules`` (``kari play``, ``kari pipeline``)."""

MATCH_DEFAULTS = (game_defaults.MATCH_THRESHOLD, MatchMode.EMBEDDING.value, game_defaults.TOP_K)
"""The defaults of ``--match-threshold``, ``--rule-match`` and ``--top-k``."""
