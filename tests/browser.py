"""A real headless browser for the page tests: Debian's chromium driven through chromedriver by selenium (the
``test`` extra). Without them a test is skipped, saying why (install: ``apt-get install chromium
chromium-driver``); with ``KARI_REQUIRE_BROWSER=1`` (as in CI) it fails instead."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from typing import Any

import pytest


def browser() -> Any:
    """A headless chromium driven by chromedriver, or a skip (a failure under KARI_REQUIRE_BROWSER=1)."""
    required = os.environ.get("KARI_REQUIRE_BROWSER") == "1"
    chromium = os.environ.get("KARI_CHROMIUM") or next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    driver = os.environ.get("KARI_CHROMEDRIVER") or shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        webdriver = None
    missing = [name for name, found in (("selenium (pip install -e '.[test]')", webdriver), ("chromium", chromium),
                                        ("chromedriver", driver)) if not found]
    if missing:
        reason = (f"no headless browser: {', '.join(missing)} missing (Debian: apt-get install chromium "
                  "chromium-driver; see README, Development)")
        if required:
            pytest.fail(reason + "; KARI_REQUIRE_BROWSER=1")
        pytest.skip(reason)
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


def wait(condition: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    """The first true value of ``condition()``, polled every 50 ms; an AssertionError after ``timeout`` s."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
