"""``kari serve`` over real HTTP: a real server process on 127.0.0.1, 20 simulated participants playing whole games
at once on a benchmark kari did not build (tests/data/outside_bench), a crash (SIGKILL) in the middle that loses
no answered turn, the records read by ``kari report`` and the resume checks, the hidden object absent from every
response before its guess, one participant unable to read another's games, bounded requests, withdrawal, the
anonymised export and the human Oracle mode.
"""

from __future__ import annotations

import http.client
import json
import re
import threading
import time
import urllib.error
from collections import Counter, defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from cli_support import kari, one_line
from serve_support import OUTSIDE_BENCH, QUESTIONS, Participant, StudyServer, play_oracle, play_questioner, request

from kari.game.run import PlayConfig, checked_records, play

PARTICIPANTS, PER_GAME, GAMES = 20, 3, 40


@cache
def _rows(name: str) -> dict[str, Any]:
    lines = (OUTSIDE_BENCH / f"{name}.jsonl").read_text().splitlines()
    return {row["id"]: row for row in map(json.loads, lines)}


def _objects() -> dict[str, Any]:
    return _rows("objects")


def _games() -> dict[str, Any]:
    return _rows("games")


def _hidden_strings(game_id: str) -> set[str]:
    obj = _objects()[_games()[game_id]["object"]]
    return {s for s in (obj["id"], obj["id"].replace("_", " "), obj.get("description") or "") if s}


def _mentions(text: str, needle: str) -> bool:
    return re.search(r"(?<![A-Za-z0-9_])" + re.escape(needle) + r"(?![A-Za-z0-9_])", text, re.IGNORECASE) is not None


def _sessions(out: Path) -> dict[int, list[str]]:
    """Each participant's games in order, as the run's plan lists them."""
    plan = json.loads((out / "plan.json").read_text())
    sessions: dict[int, list[str]] = defaultdict(list)
    for game, run in plan["items"]:
        sessions[run].append(game)
    return sessions


def _check_no_leak(person: Participant, session: list[str]) -> int:
    """No reply names the hidden object of a game this participant had not guessed yet when the reply came
    (words the participant typed themselves, and the result of a game already guessed, excepted); returns the
    replies checked."""
    own = " ".join(QUESTIONS)
    for _, reply in person.seen:
        text = reply.body.decode("utf-8")
        try:
            view = json.loads(text)
            done = view.get("games_done", 0) if isinstance(view, dict) else 0
            if isinstance(view, dict):  # a guessed game's result may name anything (its object's description)
                view = {k: v for k, v in view.items() if k != "last"}
            text = json.dumps(view, ensure_ascii=False)
        except ValueError:
            done = 0
        finished = {s for game in session[:done] for s in _hidden_strings(game)}
        for game in session[done:]:
            for needle in _hidden_strings(game) - finished:
                if not _mentions(own, needle):
                    assert not _mentions(text, needle), (game, needle, text[:400])
    return len(person.seen)


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """20 participants play their 6 games each at once; the server is killed (SIGKILL) once a third of the
    turns are answered and started again; everyone carries on where they stood."""
    out = tmp_path_factory.mktemp("serve") / "study"
    server = StudyServer(out, ["--bench", str(OUTSIDE_BENCH), "--participants", str(PARTICIPANTS),
                               "--per-game", str(PER_GAME), "--games", str(GAMES)]).start()
    people = [server.participant(i) for i in range(PARTICIPANTS)]
    answered: dict[int, list[tuple[int, int, str]]] = defaultdict(list)  # participant -> (game, turn, question)
    latencies: list[float] = []
    crashed, restarted, lock = threading.Event(), threading.Event(), threading.Lock()
    errors: list[BaseException] = []

    def run(index: int) -> None:
        person = people[index]
        while True:
            try:
                state = play_questioner(person, on_turn=latencies.append)
                assert state["status"] == "done", state
                for _, reply in person.seen:
                    if reply.status == 200:
                        view = reply.data
                        game = view.get("game")
                        for turn in (game or {}).get("turns", []):
                            answered[index].append((game["number"], turn["turn"], turn["question"]))
                return
            except (urllib.error.URLError, http.client.HTTPException, OSError):
                assert crashed.is_set(), "the connection failed before the crash"
                restarted.wait(60)
            except BaseException as exc:  # noqa: BLE001 - reported by the test below
                with lock:
                    errors.append(exc)
                return

    def crash_once() -> None:
        while len(latencies) < PARTICIPANTS * 6 * 5 // 3:
            time.sleep(0.01)
        crashed.set()
        server.kill()
        server.start()
        restarted.set()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(PARTICIPANTS)]
    killer = threading.Thread(target=crash_once)
    for t in (*threads, killer):
        t.start()
    for t in (*threads, killer):
        t.join(600)
    try:
        assert not errors, errors
        yield {"out": out, "server": server, "people": people, "answered": answered, "latencies": latencies}
    finally:
        server.__exit__()


def test_twenty_participants_finish_every_game_and_the_crash_lost_no_answered_turn(study) -> None:
    out = study["out"]
    records = checked_records(out).records  # the resume checks: no record twice, each in the plan, at FILE:LINE
    assert len(records) == GAMES * PER_GAME
    per_game = Counter(r.game for r in records)
    assert set(per_game.values()) == {PER_GAME} and len(per_game) == GAMES
    by_person = defaultdict(list)
    for r in records:
        by_person[r.run].append(r.game)
        assert r.participant == f"P{r.run + 1:02d}" and r.questioner == "human"
    assert all(len(g) == len(set(g)) for g in by_person.values())  # nobody played a game twice
    sessions = _sessions(out)
    assert {run: sorted(games) for run, games in by_person.items()} == {run: sorted(g) for run, g in sessions.items()}
    recorded = {(r.run, sessions[r.run].index(r.game) + 1, t.turn, t.question) for r in records for t in r.turns}
    for index, turns in study["answered"].items():
        assert {(index, *t) for t in turns} <= recorded  # every answered turn is in the records, crash or not
    assert all(len(s) == GAMES * PER_GAME // PARTICIPANTS for s in sessions.values())


def test_the_records_carry_every_field_of_kari_play_and_the_new_ones(study, tmp_path: Path) -> None:
    played = tmp_path / "play"
    play(PlayConfig(bench=OUTSIDE_BENCH, questioner="greedy-ig", games=2), played, progress=False)
    machine = json.loads((played / "games.jsonl").read_text().splitlines()[0])
    for line in (study["out"] / "games.jsonl").read_text().splitlines():
        record = json.loads(line)
        assert set(record) == set(machine) | {"participant"}
        for turn in record["turns"]:
            assert set(turn) - {"b_soft", "oracle_raw", "flipped"} == \
                set(machine["turns"][0]) - {"b_soft", "oracle_raw", "flipped"} | {"time_s"}
            assert isinstance(turn["time_s"], float) and turn["time_s"] >= 0
        assert record["time_s"] >= sum(t["time_s"] for t in record["turns"]) - 0.01


def test_kari_report_compares_the_people_with_a_player_by_participant_clusters(study, tmp_path: Path, capfd) -> None:
    played = tmp_path / "greedy-ig"
    play(PlayConfig(bench=OUTSIDE_BENCH, questioner="greedy-ig", games=GAMES), played, progress=False)
    code, out, err = kari(capfd, "report", study["out"], played, "--out", tmp_path / "report", "--resamples", "500")
    assert code == 0, err
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    people = data["runs"][0]
    assert people["participants"] == PARTICIPANTS and people["records"] == GAMES * PER_GAME
    low, high = people["success_rate_ci_participants"]
    assert low <= people["success_rate"] <= high
    comparison = data["comparisons"][0]
    assert comparison["clustered"] == "participants" and comparison["games"] == GAMES
    assert comparison["pairs"] == GAMES * PER_GAME and comparison["mcnemar_p"] is None
    assert comparison["delta_ci"][0] <= comparison["delta"] <= comparison["delta_ci"][1]
    assert "cluster bootstrap over participants" in out


def test_no_response_names_a_hidden_object_before_its_guess(study) -> None:
    sessions = _sessions(study["out"])
    checked = sum(_check_no_leak(person, sessions[i]) for i, person in enumerate(study["people"]))
    assert checked > PARTICIPANTS * 6 * 4


def test_a_second_server_on_the_study_is_refused_and_a_restart_resumes(study, capfd) -> None:
    code, _, err = kari(capfd, "serve", "--out", study["out"], "--bench", OUTSIDE_BENCH, "--participants",
                        PARTICIPANTS, "--per-game", PER_GAME, "--games", GAMES, "--port", "0")
    assert code == 2 and "another kari command is writing" in one_line(err)
    code, _, err = study["server"].stop()
    assert code == 0, err
    code, _, err = kari(capfd, "serve", "--out", study["out"], "--bench", OUTSIDE_BENCH, "--participants", 19,
                        "--per-game", PER_GAME, "--games", GAMES, "--port", "0")
    assert code == 2 and "other settings (runs, study)" in one_line(err)
    server = study["server"].start()
    assert server.participant(3).state()["status"] == "done"
    assert server.coordinator()["progress"]["plays_finished"] == GAMES * PER_GAME


def test_the_export_is_anonymised_and_reads_as_a_run(study, tmp_path: Path, capfd) -> None:
    server = study["server"]
    server.stop()
    export = tmp_path / "export"
    code, out, err = kari(capfd, "serve", "--out", study["out"], "--export", export)
    server.start()
    assert code == 0 and f"{GAMES * PER_GAME} records exported" in out, err
    assert sorted(p.name for p in export.iterdir() if not p.name.endswith(".png") and p.name != ".kari.lock") == \
        ["config.json", "games.jsonl", "plan.json", "summary.json"]
    text = "".join(p.read_text() for p in export.iterdir() if p.suffix in (".json", ".jsonl"))
    links = server.links
    assert links["coordinator"] not in text and not any(t in text for t in links["participants"])
    old = checked_records(study["out"]).records
    new = checked_records(export).records  # the export passes the resume checks against its own plan
    assert sorted((r.game, tuple(t.question for t in r.turns)) for r in old) == \
        sorted((r.game, tuple(t.question for t in r.turns)) for r in new)
    assert all(r.participant == f"P{r.run + 1:02d}" for r in new)
    assert [r.run for r in new] == sorted(r.run for r in new)  # by participant, not in the order games finished
    code, _, err = kari(capfd, "report", export)
    assert code == 0, err


def test_unknown_links_are_404_and_say_nothing(study) -> None:
    server = study["server"]
    a = server.participant(0)
    assert request(server.base, a.api).data["participant"] == "P01"
    for path, body in (("/api/p/" + a.token[:-1] + ("x" if a.token[-1] != "x" else "y"), None), ("/p/nobody", None),
                       ("/api/p/nobody/ask", {}), ("/c/" + a.token, None), ("/api/c/" + a.token, None),
                       ("/c/" + a.token + "/report", None), ("/api/c/" + a.token + "/report", {}),
                       ("/static/links.json", None), ("/serve/links.json", None), ("/api/p/" + a.token + "/peek", {})):
        reply = request(server.base, path, body)
        assert reply.status == 404 and reply.data == {"error": "no such page"}, path


def test_requests_are_bounded_json_same_origin_and_get_security_headers(study) -> None:
    server = study["server"]
    person = server.participant(5)
    api = person.api
    big = request(server.base, f"{api}/ask", raw=json.dumps({"question": "x" * 5000}).encode(),
                  headers={"Content-Type": "application/json"})
    assert big.status == 413
    assert big.headers["content-security-policy"].startswith("default-src 'none'")
    form = request(server.base, f"{api}/consent", raw=b"a=1",
                   headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status == 400 and "JSON" in form.data["error"]
    cross = request(server.base, f"{api}/consent", {}, headers={"Origin": "http://evil.example"})
    assert cross.status == 403
    page = request(server.base, f"/p/{person.token}")
    assert page.status == 200 and "<script src=\"/static/participant.js\"" in page.body.decode()
    for reply in (page, request(server.base, api), request(server.base, "/static/participant.js")):
        assert reply.headers["x-content-type-options"] == "nosniff"
        assert reply.headers["referrer-policy"] == "no-referrer" and reply.headers["cache-control"] == "no-store"
        assert "'unsafe-inline'" not in reply.headers["content-security-policy"] and "server" not in reply.headers
    try:
        status = request(server.base, api, headers={"X-Long": "y" * 40_000}).status
    except (urllib.error.URLError, ConnectionError):
        status = 400  # the server closed the connection instead
    assert status in (400, 431)


def test_a_participant_withdraws_and_their_records_leave_the_study(study) -> None:
    server = study["server"]
    person = server.participant(7)
    before = checked_records(study["out"]).records
    assert any(r.run == 7 for r in before)
    assert person.step("withdraw", {}).status == 400  # it needs {"confirm": true}
    assert person.step("withdraw", {"confirm": True}).data["status"] == "withdrawn"
    after = checked_records(study["out"]).records
    assert [r for r in before if r.run != 7] == after
    journal = [json.loads(line) for line in (study["out"] / "serve" / "journal.jsonl").read_text().splitlines()]
    assert [e["kind"] for e in journal if e["participant"] == 7] == ["withdraw"]
    assert person.step("consent", {}).status == 410 and person.state()["status"] == "withdrawn"
    view = server.coordinator()
    assert view["progress"]["withdrawn"] == 1 and view["scores"]["records"] == len(after)
    server.stop()
    server.start()  # the withdrawal holds after a restart
    assert checked_records(study["out"]).records == after and server.participant(7).state()["status"] == "withdrawn"


def test_serve_without_the_extra_is_one_line_naming_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    hide = "import sys; sys.modules['starlette'] = sys.modules['uvicorn'] = None\n"  # find_spec: not installed
    done = subprocess.run([sys.executable, "-c", hide + "from kari.cli import main; main(sys.argv[1:])", "serve",
                           "--out", str(tmp_path / "s"), "--bench", str(OUTSIDE_BENCH)], capture_output=True, text=True)
    assert done.returncode == 2
    assert one_line(done.stderr) == ("kari: serve-missing: kari serve needs the serve extra: pip install "
                                     "'kari[serve]' (Starlette and uvicorn)")
    assert not (tmp_path / "s").exists()


def test_the_server_binds_this_machine_only_by_default(study) -> None:
    assert study["server"].base.startswith("http://127.0.0.1:")


def test_people_as_oracle_agree_with_the_benchmark_per_question_kind(tmp_path: Path, capfd) -> None:
    out = tmp_path / "oracle"
    with StudyServer(out, ["--bench", str(OUTSIDE_BENCH), "--mode", "oracle", "--participants", "4",
                           "--per-game", "2", "--games", "6"]) as server:
        answers = [lambda q: "yes", lambda q: "no", lambda q: "yes" if "made of" in q else "no",
                   lambda q: "no" if "size" in q else "yes"]
        for index, answer in enumerate(answers):
            state = play_oracle(server.participant(index), answer)
            assert state["status"] == "done"
            assert state["last"]["target"] and "object" not in state["last"]
        view = server.coordinator()
        code, _, err = server.stop()
    assert code == 0, err
    records = checked_records(out).records
    assert len(records) == 12 and {r.questioner for r in records} == {"greedy-ig"}
    config = json.loads((out / "config.json").read_text())
    assert config["oracle"] == "human" and config["study"]["mode"] == "oracle"
    agreement = json.loads((out / "agreement.json").read_text())
    turns = [t for r in records for t in r.turns if t.kb_answer is not None]
    assert agreement["overall"]["answers"] == len(turns) == view["agreement"]["overall"]["answers"]
    agree = sum(t.answer == t.kb_answer for t in turns)
    assert agreement["overall"]["agree"] == agree
    for kind, cell in agreement["by_kind"].items():
        mine = [t for t in turns if t.checker.pairs[0].startswith(kind + ":")]
        assert cell["answers"] == len(mine) and cell["agree"] == sum(t.answer == t.kb_answer for t in mine)
        low, high = cell["agreement_ci"]
        assert low <= cell["agreement"] <= high
    always_yes = next(r for r in records if r.participant == "P1")
    assert all(t.answer == "yes" for t in always_yes.turns if t.checker.accepted)
    code, _, err = kari(capfd, "report", out)
    assert code == 0, err
