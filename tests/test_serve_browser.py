"""``kari serve`` in a real headless browser (Debian's chromium through chromedriver, tests/browser.py): two
participants play their whole study through the page, one of them closing the tab and coming back to the game where
it stood, and the server is killed (SIGKILL) and started again between two of their turns; a question written as
markup shows as the text it is; the coordinator's page shows the progress and builds the report, which opens."""

from __future__ import annotations

import json
from typing import Any

import pytest
from browser import browser as open_browser
from browser import wait
from serve_support import OUTSIDE_BENCH, StudyServer, free_port

from kari.game.run import checked_records

MARKUP = "<b>bold</b><img src=x onerror=alert(1)>"


@pytest.fixture
def server(tmp_path) -> Any:
    server = StudyServer(tmp_path / "study", ["--bench", str(OUTSIDE_BENCH), "--participants", "2", "--games", "4"],
                         port=free_port()).start()
    try:
        yield server
    finally:
        server.__exit__()


def _status(page: Any) -> str:
    return page.execute_script("return document.body.dataset.status || ''")


def _ask(page: Any, question: str) -> None:
    from selenium.webdriver.common.by import By

    before = len(page.find_elements(By.CSS_SELECTOR, "#turns li"))
    box = page.find_element(By.ID, "question")
    box.clear()
    box.send_keys(question)
    page.find_element(By.ID, "ask").click()
    wait(lambda: len(page.find_elements(By.CSS_SELECTOR, "#turns li")) == before + 1, f"the answer to {question!r}")


def _guess_first(page: Any) -> None:
    from selenium.webdriver.common.by import By

    done = page.find_element(By.ID, "progress").text
    page.find_elements(By.CSS_SELECTOR, "button.guess")[0].click()
    wait(lambda: page.switch_to.alert, "the confirmation").accept()
    wait(lambda: page.find_element(By.ID, "progress").text != done, "the guess")


def _start_next(page: Any) -> None:
    from selenium.webdriver.common.by import By

    wait(lambda: _status(page) in ("ready", "done"), "the result")
    if _status(page) == "ready":
        page.find_element(By.ID, "start").click()
        wait(lambda: _status(page) == "playing", "the next game")


def _open(page: Any, url: str, status: str) -> None:
    page.get(url)
    wait(lambda: _status(page) == status, f"the page in state {status}")


def test_two_participants_play_through_the_page_with_a_closed_tab_and_a_server_restart(server) -> None:
    from selenium.webdriver.common.by import By

    links = server.links
    url = lambda index: f"{server.base}/p/{links['participants'][index]}"  # noqa: E731
    first = open_browser()
    try:
        _open(first, url(0), "consent")
        assert "EDIT THIS TEXT" in first.find_element(By.ID, "consent-text").text
        first.find_element(By.ID, "agree").click()
        wait(lambda: _status(first) == "playing", "the first game")
        candidates = first.find_elements(By.CSS_SELECTOR, "#candidate-list li .candidate")
        assert len(candidates) == 8 and "How to play" in first.find_element(By.ID, "instructions").text
        _ask(first, "Is it made of metal?")
        _ask(first, MARKUP)
        turns = first.find_elements(By.CSS_SELECTOR, "#turns li")
        assert MARKUP in turns[1].text and not first.find_elements(By.CSS_SELECTOR, "#turns b, #turns img")
        assert "Yes" in turns[0].text or "No" in turns[0].text
        first.quit()  # the tab is closed mid-game ...

        first = open_browser()  # ... and opened again: the game is where it stood
        _open(first, url(0), "playing")
        assert [li.text.split(" (read as")[0] for li in first.find_elements(By.CSS_SELECTOR, "#turns li")][:1] == \
            ["Is it made of metal?"]
        assert len(first.find_elements(By.CSS_SELECTOR, "#turns li")) == 2
        _ask(first, "Is it round?")

        server.kill()  # the server dies between two turns and comes back on the same port
        server.start()
        first.refresh()
        wait(lambda: _status(first) == "playing", "the page after the restart")
        assert len(first.find_elements(By.CSS_SELECTOR, "#turns li")) == 3  # no answered turn lost
        _ask(first, "Is it flat?")
        _guess_first(first)
        assert "The hidden object was" in first.find_element(By.ID, "result-object").text
        _start_next(first)
        _ask(first, "Is it made of wood?")
        _guess_first(first)
        wait(lambda: _status(first) == "done", "the end of the study")
        assert [e for e in first.get_log("browser") if e["level"] == "SEVERE"
                and "Failed to load resource" not in e["message"]] == []
    finally:
        first.quit()

    second = open_browser()
    try:
        _open(second, url(1), "consent")
        second.find_element(By.ID, "agree").click()
        for _ in range(2):
            wait(lambda: _status(second) == "playing", "a game")
            _ask(second, "Is it large?")
            _guess_first(second)
            _start_next(second)
        wait(lambda: _status(second) == "done", "the end of the study")

        second.get(f"{server.base}/c/{links['coordinator']}")
        wait(lambda: second.execute_script("return document.body.dataset.ready") == "1", "the coordinator's page")
        assert "4 of 4 planned plays" in second.find_element(By.ID, "progress").text
        assert second.find_element(By.ID, "scores").text.startswith("SR ")
        second.find_element(By.ID, "build").click()
        link = wait(lambda: second.find_element(By.ID, "report-link").is_displayed()
                    and second.find_element(By.ID, "report-link"), "the report", timeout=120)
        second.get(link.get_attribute("href"))
        wait(lambda: second.execute_script("return document.body.dataset.ready") == "1", "the report page")
        assert "4 of 4 games shown" in second.find_element(By.ID, "games-count").text
        assert [e for e in second.get_log("browser") if e["level"] == "SEVERE"] == []
    finally:
        second.quit()
    records = checked_records(server.out).records
    assert len(records) == 4 and [len(r.turns) for r in records if r.run == 0] == [4, 1]
    questions = [t.question for r in records if r.run == 0 for t in r.turns]
    assert questions == ["Is it made of metal?", MARKUP, "Is it round?", "Is it flat?", "Is it made of wood?"]
    assert json.loads((server.out / "summary.json").read_text())["records"] == 4
