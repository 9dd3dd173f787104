"""Screenshot of a ``kari report --html`` page in headless chromium (for the README's figure).

    python benchmarks/report_screenshot.py runs/quickstart/report/report.html docs/figures/report_html.png \
        --player greedy-ig@10+rules --game 3

Needs chromium, chromedriver and selenium (Debian: ``apt-get install chromium chromium-driver``; ``pip install
selenium``). It opens the page, picks the player in the filter, opens the transcript of the N-th game shown
and saves the window from the games list down as PNG.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--player", default="", help="the run to pick in the player filter")
    parser.add_argument("--game", type=int, default=0, help="which game row to open (0 = the first)")
    parser.add_argument("--size", default="1400,1150", help="window width,height in pixels")
    args = parser.parse_args()

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={args.size}", "--hide-scrollbars"):
        options.add_argument(arg)
    browser = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                               options=options)
    try:
        browser.get(args.page.resolve().as_uri())
        for _ in range(200):
            if browser.execute_script("return document.body.dataset.ready") == "1":
                break
            time.sleep(0.1)
        if args.player:
            Select(browser.find_element(By.ID, "f-player")).select_by_visible_text(args.player)
        browser.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")[args.game].click()
        time.sleep(0.3)
        browser.execute_script("document.getElementById('games').scrollIntoView()")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(args.out))
    finally:
        browser.quit()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
