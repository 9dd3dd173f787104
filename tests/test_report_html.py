"""``kari report --html``: one self-contained page, checked as data and in a real headless browser.

The browser test drives Debian's chromium with chromedriver through selenium (tests/browser.py: skipped without
them, saying why; with ``KARI_REQUIRE_BROWSER=1``, as in CI, it fails instead).
"""

from __future__ import annotations

import base64
import gzip
import json
import re

import pytest
from browser import browser as open_browser
from browser import wait
from call_counts import counting
from test_game_support import RULES_TEXT, write_bench, write_vocab

from kari.report.writer import ReportOptions, write_report
from kari.game.run import PlayConfig, play
from test_report import KB_RULES


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    root = tmp_path_factory.mktemp("html")
    (root / "rules.kari").write_text(RULES_TEXT)
    (root / "kb_rules.jsonl").write_text("".join(json.dumps(r) + "\n" for r in KB_RULES))
    bench, vocab = str(write_bench(root / "bench")), str(write_vocab(root / "vocab"))
    dirs = []
    for label, questioner, kw in [("optimal", "optimal", {}), ("greedy-ig", "greedy-ig", {"model_reps": 2}),
                                  ("greedy-ig+rules", "greedy-ig", {"model_reps": 2, "rules": str(root / "rules.kari"),
                                                                    "rule_match": "exact"}),
                                  ("greedy-ig+kb", "greedy-ig", {"model_reps": 2, "rule_match": "exact",
                                                                 "rules": str(root / "kb_rules.jsonl")})]:
        folder = root / "play" / label
        play(PlayConfig(bench=bench, questioner=questioner, vocab=vocab, **kw), folder, progress=False)
        dirs.append(folder)
    out = root / "report"
    write_report(dirs, out, ReportOptions(resamples=500, html=True))
    return out / "report.html"


def _data(text: str) -> dict:
    match = re.search(r'<script id="kari-data" type="application/json" data-encoding="([a-z0-9+]+)">(.*?)</script>',
                      text, re.S)
    assert match
    encoding, payload = match.groups()
    if encoding == "json":
        return json.loads(payload.replace("<\\/", "</"))
    return json.loads(gzip.decompress(base64.b64decode(payload)))


def test_the_page_is_self_contained(page):
    text = page.read_text()
    assert "<svg" in text and "<script src" not in text and "<link" not in text
    outside = {u for u in re.findall(r"""(?:src|href)\s*=\s*["']([^"'#][^"']*)""", text)}
    assert not outside, outside  # nothing is fetched: no file, no network
    assert not re.search(r"url\(\s*['\"]?https?:", text) and "@import" not in text
    assert len(text) < 1_000_000


def test_the_page_holds_every_game_the_proofs_and_the_rules(page):
    data = _data(page.read_text())
    assert [r["label"] for r in data["runs"]] == ["optimal", "greedy-ig", "greedy-ig+rules", "greedy-ig+kb"]
    assert [r["model"] for r in data["runs"]] == ["symbolic"] * 4
    assert [r["rule_source"] for r in data["runs"]] == [None, None, "file", "kb"]
    assert len(data["games"]) == 4 * 48
    ruled = [g for g in data["games"] if g["r"] == 2]
    with_rule = [g for g in ruled if g["rh"]]
    assert len(with_rule) == 24 and all(g.get("p") in data["proofs"] for g in with_rule)
    for g in with_rule:  # the proof's verdict is the game's own record of whether the rule covers the object
        assert ("NOT COVERED" not in data["proofs"][g["p"]]) == bool(g["rc"])
    turn = ruled[0]["T"][0]
    assert len(turn[5]) == len(ruled[0]["c"]) == len(turn[6])  # b_t and the soft belief over every candidate
    assert {r["affordance"] for r in data["rules"]} == {"cut", "burn", "see_through", "bounce"}
    cut = next(r for r in data["rules"] if r["affordance"] == "cut")
    assert cut["positives"] == 6 and cut["proofs"] and all("cut on" in p["text"] for p in cut["proofs"])
    assert data["report"]["comparisons"][0]["kind"] == "rules"
    # each benchmark affordance with the rule matched to it and that rule's recall on the affordance's positives
    matched = {r["affordance"]: r for r in data["affordance_rules"]}
    assert set(matched) == {"cut", "burn", "see_through", "bounce", "write_on", "wear", "build_with", "wrap"}
    assert matched["cut"]["rule"] == "cut" and matched["cut"]["recall"] == cut["recall"]
    assert matched["wear"]["rule"] is None and matched["wear"]["played"]  # a candidate no rule was matched to


def test_the_page_in_a_headless_browser(page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser = open_browser()
    try:
        browser.get(page.as_uri())
        wait(lambda: browser.execute_script("return document.body.dataset.ready") == "1", "the page")
        assert [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")] == []
        count = browser.find_element(By.ID, "games-count")
        assert count.text == "150 of 192 games shown (192 records in all)", count.text
        rows = browser.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")
        assert len(rows) == 150 and {r.find_elements(By.TAG_NAME, "td")[0].text for r in rows} == \
            {"optimal", "greedy-ig", "greedy-ig+rules", "greedy-ig+kb"}
        table1 = browser.find_element(By.ID, "table1")
        assert "Table 1" in table1.text and "McNemar p" in table1.text
        head = [th.text for th in table1.find_elements(By.CSS_SELECTOR, "thead th")]
        assert head[:3] == ["questioner", "model", "SR % [CI]"] and "SR % +KB rules [CI]" in head
        body = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
                for tr in table1.find_elements(By.CSS_SELECTOR, "tbody tr")]
        assert [row[0] for row in body].count("greedy-ig@2") == 1  # one row, both rule sources as columns
        ruled = next(row for row in body if row[0] == "greedy-ig@2")
        assert ruled[1] == "symbolic" and "[" in ruled[3] and "[" in ruled[6]
        assert "KB-anchored rules" in browser.find_element(By.ID, "coverage").text
        assert "2 of 8 (25.0%)" in browser.find_element(By.ID, "coverage").text
        assert "(45)" in browser.find_element(By.ID, "table1-kb").text  # the games left without KB evidence
        runs_head = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#runs thead th")]
        assert runs_head[:4] == ["run", "model", "served as", "rule source"] and "tokens" in runs_head
        matched = browser.find_element(By.ID, "matched")
        assert "none (below the threshold)" in matched.text and "recall on its positives" in matched.text
        assert browser.find_element(By.CSS_SELECTOR, "#budget svg").is_displayed()
        assert "t = 1" in browser.find_element(By.ID, "budget").text
        assert browser.find_element(By.CSS_SELECTOR, "#figure svg").is_displayed()
        assert " games (any-part reading); games by status: covered " in browser.find_element(By.ID, "gaps").text

        Select(browser.find_element(By.ID, "f-player")).select_by_visible_text("greedy-ig+rules")
        wait(lambda: count.text.startswith("48 of 48"), "the player filter")
        Select(browser.find_element(By.ID, "f-affordance")).select_by_visible_text("cut")
        wait(lambda: count.text.startswith("6 of 6"), "the affordance filter")
        rows = browser.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")
        assert {r.find_elements(By.TAG_NAME, "td")[3].text for r in rows} == {"cut"}
        assert browser.find_elements(By.CSS_SELECTOR, "#rules details.rule")[0].get_attribute("data-affordance") == "cut"

        transcript = browser.find_element(By.ID, "transcript")
        assert not transcript.is_displayed()
        rows[0].click()
        wait(transcript.is_displayed, "the transcript")
        assert "Hidden object" in transcript.text and "Guess:" in transcript.text
        turns = transcript.find_elements(By.CSS_SELECTOR, "tbody tr")
        assert len(turns) >= 2  # before any question, then each turn with its beliefs
        assert "soft" in turns[1].text
        assert "Proof of the target's rule" in transcript.text and "cut on" in transcript.text
        assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    finally:
        browser.quit()


def test_the_page_and_the_ledger_read_the_benchmark_and_rules_once(page, tmp_path):
    import kari.explain.sources
    import kari.induce.folds

    with counting({"objects": (kari.explain.sources, "open_objects"),
                   "rules": (kari.induce.folds, "read_rule_sets")}) as calls:
        made = write_report(sorted((page.parent.parent / "play").iterdir()), tmp_path / "again",
                            ReportOptions(resamples=50, html=True))
    assert made.ledger is not None and _data((tmp_path / "again" / "report.html").read_text())["proofs"]
    assert calls == {"objects": 1, "rules": 2}  # each rules file once: the benchmark rules and the KB rules


def test_figure_legends_sit_beside_the_data():
    from kari.game.plots import budget_figure, ig_figure

    series = {f"run {i}: a long player name (oracle kb, checker symbolic)": ([1.0, 0.8, 0.5], [30, 30, 30])
              for i in range(4)}
    for fig in (ig_figure(series), budget_figure({k: [0.0, 0.3, 0.6] for k in series})):
        fig.canvas.draw()
        ax = fig.axes[0]
        legend = ax.get_legend().get_window_extent()
        assert legend.x0 >= ax.get_window_extent().x1  # right of the axes: it covers no line
