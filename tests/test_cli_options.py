"""The CLI declares each shared option once (kari/cli/options.py): the LLM connection options and the rule
matching options read the same in every command that takes them, every LLMConfig of a command is built by
LLMOptions.config, and every "expected one of" message is written by kari.errors.unknown."""

from __future__ import annotations

import re
from pathlib import Path

from typing import Any

import pytest
import typer

from kari.cli import app
from kari.errors import KariError, choice, unknown
from kari.llm.config import LLMOptions

ROOT = Path(__file__).resolve().parents[1]
LLM_OPTIONS = ("--base-url", "--model", "--api-key-env", "--no-cache", "--cache-dir", "--llm-timeout",
               "--llm-attempts")
LLM_COMMANDS = (("play",), ("induce",), ("creativity", "solve"), ("creativity", "judge"))
MATCH_OPTIONS = ("--match-threshold", "--rule-match", "--top-k")
MATCH_COMMANDS = (("play",), ("export-prompts",), ("coverage",))


def _command(path: tuple[str, ...]) -> Any:
    """The click command at ``path`` (typer's vendored click: duck-typed)."""
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    return command


def _option(command: Any, flag: str) -> Any:
    return next((p for p in command.params if flag in getattr(p, "opts", ())), None)


def _shape(param: Any) -> tuple[object, ...]:
    return (tuple(param.opts), param.help, param.default, param.metavar, getattr(param, "min", None),
            getattr(param, "max", None))


@pytest.mark.parametrize("options, commands", [(LLM_OPTIONS, LLM_COMMANDS), (MATCH_OPTIONS, MATCH_COMMANDS)])
def test_a_shared_option_reads_the_same_in_every_command(options: tuple[str, ...],
                                                         commands: tuple[tuple[str, ...], ...]) -> None:
    for flag in options:
        shapes = {path: _option(_command(path), flag) for path in commands}
        present = {path: _shape(p) for path, p in shapes.items() if p is not None}
        assert len(present) >= 2, f"{flag} is in fewer than two of {commands}"
        assert len(set(present.values())) == 1, f"{flag} differs between commands: {present}"


def test_the_match_threshold_has_one_range() -> None:
    for path in MATCH_COMMANDS:
        help_text = _option(_command(path), "--match-threshold").help
        assert "[0<=x<=1]" in help_text, (path, help_text)


def test_llm_options_build_the_config_and_check_their_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KARI_LLM_BASE_URL", raising=False)
    monkeypatch.setenv("KARI_LLM_MODEL", "from-env")
    config = LLMOptions(base_url="http://127.0.0.1:9/v1", no_cache=True, timeout=3.0, attempts=2).config(7)
    assert (config.model, config.base_url, config.use_cache, config.timeout, config.max_retries,
            config.concurrency) == ("from-env", "http://127.0.0.1:9/v1", False, 3.0, 1, 7)
    assert LLMOptions().config().concurrency == 4
    with pytest.raises(KariError, match="--llm-timeout"):
        LLMOptions(timeout=0.0)


def test_one_builder_of_llm_configs_and_one_writer_of_choices() -> None:
    built = [p for p in (ROOT / "kari").rglob("*.py") if "LLMConfig.from_env(" in p.read_text(encoding="utf-8")
             and p.name != "config.py"]
    assert built == [], built
    hand_written = [f"{p.relative_to(ROOT)}:{n}" for p in (ROOT / "kari").rglob("*.py") if p.name != "errors.py"
                    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                    if re.search(r"expected one of|must be one of|\(known: ", line)]
    assert hand_written == [], hand_written
    assert str(unknown("mode", "x", ["a", "b"], code="c")) == "c: unknown mode 'x' (expected one of a or b)"
    assert choice("b", ["a", "b"], "mode", code="c") == "b"
    with pytest.raises(KariError, match=r"unknown mode 'z' \(expected one of a or b\)"):
        choice("z", ["a", "b"], "mode", code="c")
