"""Ctrl-C that is never lost: while a command runs, SIGINT sets a flag before it raises KeyboardInterrupt.

Python cannot raise inside a destructor (``__del__``) or a C callback (it would print "Exception ignored in ..."
with a traceback: that report is silenced), and some libraries turn the interrupt into their own error
(DuckDB: "Query interrupted"); the flag remembers it anyway. Long loops call
:func:`check` between steps, and the CLI reports an interrupt (exit 130) even when the exception was swallowed.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_interrupted = threading.Event()


def _handler(signum: int, frame: FrameType | None) -> None:
    _interrupted.set()
    raise KeyboardInterrupt


def interrupted() -> bool:
    """Was Ctrl-C pressed since :func:`watching` began?"""
    return _interrupted.is_set()


def check() -> None:
    """Raise KeyboardInterrupt if Ctrl-C was pressed (even if the first KeyboardInterrupt was swallowed)."""
    if _interrupted.is_set():
        raise KeyboardInterrupt


@contextmanager
def watching() -> Iterator[None]:
    """Install the flagging SIGINT handler for the block (the flag is cleared when it starts and ends). A no-op
    outside the main thread, and where SIGINT is ignored (a background job of a non-interactive shell) or
    handled by someone else."""
    _interrupted.clear()
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        try:
            yield
        finally:
            _interrupted.clear()
        return
    previous = signal.signal(signal.SIGINT, _handler)
    previous_hook = sys.unraisablehook

    def quiet_about_ctrl_c(unraisable: sys.UnraisableHookArgs) -> None:
        """The KeyboardInterrupt a destructor could not raise is remembered by the flag: say nothing."""
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            previous_hook(unraisable)

    sys.unraisablehook = quiet_about_ctrl_c
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = previous_hook
        _interrupted.clear()      # the flag speaks for this block only: later library calls start clean
