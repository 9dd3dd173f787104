"""The root ``kari`` app: every group in :data:`COMMAND_MODULES` registered, and :func:`run`, the one place
where a failure becomes one line on stderr and an exit code."""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import re
import sys
from typing import Any, Protocol, cast

import typer

from kari import __version__
from kari.errors import INTERNAL_ERROR_EXIT, ExitCode, KariError

COMMAND_MODULES = ("kb", "bench", "vocab", "rules", "solver", "induce", "play", "merge", "pipeline", "llm",
                   "creativity", "explain", "serve")

app = typer.Typer(
    name="kari",
    help="Symbolic affordance reasoning: KB store, KARI rules, ASP solver, rule induction, Affordance20Q games.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kari {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """kari: symbolic affordance reasoning."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"kari.cli.{_name}").register(app)


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the command and exit with its code (see :func:`run`)."""
    sys.exit(run(argv))


def run(argv: list[str] | None = None) -> int:
    """Run one ``kari`` command line and return its exit code. Whatever goes wrong, the user sees one line
    ``kari: ...`` on stderr, never a traceback: a :class:`KariError` with its exit code; a usage error (2);
    Ctrl-C (130, even when a library swallowed the KeyboardInterrupt); an unexpected failure (70, code
    ``internal-error``: a bug; ``KARI_DEBUG=1`` re-raises it to show the traceback)."""
    from kari import interrupts

    ClickException, NoArgsIsHelpError = _click_errors()
    Abort, Exit = typer.Abort, typer.Exit
    args = list(sys.argv[1:] if argv is None else argv)
    command = _command()
    with interrupts.watching(), _printable_output():
        try:
            try:
                with command.make_context("kari", args) as ctx:
                    command.invoke(ctx)
                interrupts.check()
                return 0
            except Exit as exc:
                interrupts.check()
                return exc.exit_code
            except NoArgsIsHelpError as exc:
                cast(ClickError, exc).show()
                return cast(ClickError, exc).exit_code
            except ClickException as exc:
                context = getattr(exc, "ctx", None)
                hint = f" (see '{context.command_path} --help')" if context is not None else ""
                usage = cast(ClickError, exc)
                return _fail(f"usage: {usage.format_message()}{hint}", usage.exit_code)
            except KariError as exc:
                if interrupts.interrupted() and exc.code != "interrupted":
                    raise KeyboardInterrupt from exc
                return _fail(str(exc), exc.exit_code)
            except (KeyboardInterrupt, Abort):
                raise
            except BaseException:
                if interrupts.interrupted():
                    raise KeyboardInterrupt from None
                raise
        except (KeyboardInterrupt, Abort):
            return _fail("interrupted", ExitCode.INTERRUPTED)
        except BrokenPipeError:
            _silence_stdout()
            return ExitCode.BROKEN_PIPE
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            return _fail(f"{where}os-error: {exc.strerror or exc}", ExitCode.BAD_INPUT)
        except UnicodeDecodeError as exc:  # a reader that does not locate its own encoding errors
            return _fail(f"encoding: an input file is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
                         f"{exc.start})", ExitCode.BAD_INPUT)
        except RecursionError:
            return _fail("nesting-too-deep: the input nests too deeply to be read", ExitCode.BAD_INPUT)
        except MemoryError:
            return _fail("out-of-memory: not enough memory for this input (give kari more memory or a smaller "
                         "input)", ExitCode.BAD_INPUT)
        except Exception as exc:
            if _environmental(exc):     # DuckDB could not read or write a file, or ran out of memory
                return _fail(f"io-error: {str(exc).strip().splitlines()[0] if str(exc).strip() else exc!r}",
                             ExitCode.BAD_INPUT)
            if os.environ.get("KARI_DEBUG"):
                raise
            return _fail(f"internal-error: {type(exc).__name__}: {exc} (a bug in kari; KARI_DEBUG=1 shows the "
                         "traceback)", INTERNAL_ERROR_EXIT)


@functools.cache
def _command() -> Any:
    """The click command behind :data:`app` (built once: the app does not change after import)."""
    return typer.main.get_command(app)


class ClickError(Protocol):
    """What :func:`run` uses of a click exception (``ClickException``, ``NoArgsIsHelpError``)."""

    exit_code: int

    def show(self) -> None: ...

    def format_message(self) -> str: ...


def _click_errors() -> tuple[type[Exception], type[Exception]]:
    """``ClickException`` and ``NoArgsIsHelpError`` of the click that typer uses (vendored since typer 0.20)."""
    try:
        exceptions = importlib.import_module("typer._click.exceptions")
    except ImportError:
        exceptions = importlib.import_module("click.exceptions")
    click_exception: type[Exception] = exceptions.ClickException
    # click < 8.2 has no NoArgsIsHelpError: it prints the help and exits 0 by itself
    no_args: type[Exception] = getattr(exceptions, "NoArgsIsHelpError", None) or \
        type("NoArgsIsHelpError", (click_exception,), {})
    return click_exception, no_args


def _environmental(exc: Exception) -> bool:
    """A failure of the machine rather than of kari: DuckDB's I/O, permission and out-of-memory errors."""
    duckdb = sys.modules.get("duckdb")
    kinds = tuple(getattr(duckdb, name) for name in ("IOException", "PermissionException", "OutOfMemoryException")
                  if duckdb is not None and hasattr(duckdb, name))
    return bool(kinds) and isinstance(exc, kinds)


def _fail(message: str, code: int) -> int:
    """Print ``kari: MESSAGE`` as one line on stderr (control characters escaped) and return ``code``."""
    line = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", message)
    try:
        sys.stderr.write(f"kari: {line}\n")
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass
    return code


@contextlib.contextmanager
def _printable_output() -> Any:
    """While a command runs, text the terminal's encoding cannot show is written as backslash escapes
    (``PYTHONIOENCODING=ascii`` and a value ``café`` print ``caf\\xe9``) instead of failing."""
    changed = []
    for stream in (sys.stdout, sys.stderr):
        errors = getattr(stream, "errors", None)
        if errors not in (None, "backslashreplace") and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
                changed.append((stream, errors))
            except (ValueError, OSError, AttributeError):
                pass
    try:
        yield
    finally:
        for stream, errors in changed:
            try:
                stream.reconfigure(errors=errors)
            except (ValueError, OSError, AttributeError):
                pass


def _silence_stdout() -> None:
    """After a closed pipe (``kari ... | head``): send further output to /dev/null so exit does not fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
