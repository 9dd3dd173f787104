"""Resume trusts nothing (issue 21): a run directory records a content fingerprint of every input it reads, a
resume over changed inputs is refused naming the input, and a log holding a record twice, a game or task that is
not in the inputs, a run index past the runs or an item of another shard is refused by resume and by every
command that reads it (report, creativity judge; creativity score for its own input files), at FILE:LINE.
Each failed command leaves the run directory as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from cli_support import kari, one_line
from test_game_support import RULES_TEXT, write_bench, write_questions, write_vocab

from kari.resources import asset_path

CB = asset_path("data", "creativity")


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture()
def world(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path
    (root / "rules.kari").write_text(RULES_TEXT)
    questions = write_questions(root / "q.tsv", [("SHAPE", "flat"), ("SIZE", "small"), ("MATERIAL", "metal")])
    return {"bench": write_bench(root / "bench"), "vocab": write_vocab(root / "vocab"), "rules": root / "rules.kari",
            "questions": questions, "root": root}


def play_argv(world: dict[str, Path], out: Path, *extra: object) -> list[object]:
    return ["play", "--bench", world["bench"], "--vocab", world["vocab"], "-q", "greedy-ig", "-o", out, "--quiet",
            *extra]


def edit_games(path: Path, change) -> None:
    """Rewrite games.jsonl line by line (``change(index, record)`` returns the records to write for it)."""
    lines = path.read_text().splitlines()
    out = []
    for index, line in enumerate(lines):
        out += [json.dumps(r) for r in change(index, json.loads(line))]
    path.write_text("\n".join(out) + "\n")


# ----------------------------------------------------------------------------------- changed inputs


def test_play_over_a_benchmark_changed_at_the_same_path_is_refused(world, capfd) -> None:
    # the case: 20 games played, the benchmark's content replaced at the same path, then a resume of
    # every game mixed the 20 old records with the new ones
    out = world["root"] / "run"
    assert kari(capfd, *play_argv(world, out, "-n", "20"))[0] == 0
    before = files(out)
    games = world["bench"] / "games.jsonl"
    rows = [json.loads(x) for x in games.read_text().splitlines()]
    rows[0]["candidates"] = rows[0]["candidates"][::-1]             # same ids, other content
    games.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = kari(capfd, *play_argv(world, out))
    line = one_line(err)
    assert code == 2 and f"{out / 'config.json'}: run-inputs: the benchmark {world['bench']} (games.jsonl) " \
                          "changed since this run directory was made" in line
    assert "start afresh with a new --out" in line
    assert files(out) == before                                      # nothing appended, nothing rewritten
    assert kari(capfd, *play_argv(world, world["root"] / "fresh"))[0] == 0   # afresh: fine


@pytest.mark.parametrize("changed", ["objects", "rules", "questions", "vocabulary"])
def test_every_input_a_play_reads_is_fingerprinted(world, capfd, changed: str) -> None:
    out = world["root"] / "run"
    extra = {"rules": ["-q", "rules", "--rules", world["rules"], "--match", "exact"],
             "questions": ["-q", "fix20q", "--questions", world["questions"], "--runs", "1"]}.get(changed, [])
    assert kari(capfd, *play_argv(world, out, "-n", "3", *extra))[0] == 0
    target, what = {"objects": (world["bench"] / "objects.jsonl", "the benchmark"),
                    "rules": (world["rules"], "the rules file"),
                    "questions": (world["questions"], "the question list"),
                    "vocabulary": (world["vocab"] / "synonyms.tsv", "the vocabulary")}[changed]
    text = target.read_text()
    target.write_text({"objects": text.replace('"smooth"', '"rough"', 1), "rules": text + "wrap := MADE_OF:plastic\n",
                       "questions": text + "SHAPE\tround\n", "vocabulary": text + "MADE_OF\tsteely\tsteel\n"}[changed])
    before = files(out)
    code, _, err = kari(capfd, *play_argv(world, out, "-n", "5", *extra))
    assert code == 2 and f"run-inputs: {what} " in one_line(err), err
    assert files(out) == before


def test_play_over_a_changed_cross_fitted_fold_file_is_refused(world, capfd) -> None:
    rules = world["root"] / "rules.kari"
    assert kari(capfd, "induce", "--bench", world["bench"], "--out", rules, "--cv", "2", "-q")[0] == 0
    out = world["root"] / "run"
    argv = play_argv(world, out, "-n", "4", "-q", "rules", "--rules", rules.with_suffix(".cv"), "--match", "exact")
    assert kari(capfd, *argv)[0] == 0
    fold = rules.with_suffix(".cv") / "fold1.jsonl"
    fold.write_text(fold.read_text().splitlines()[0] + "\n")
    code, _, err = kari(capfd, *argv)
    assert code == 2 and "the cross-fitted rules" in one_line(err) and "(fold1.jsonl)" in err


def test_play_over_changed_rule_metadata_beside_a_kari_file_is_refused(world, capfd) -> None:
    """A ``.kari`` file of ``kari induce`` takes its KB verbs and evidence from the ``.jsonl`` beside it, so that
    file is an input too."""
    rules = world["root"] / "induced.kari"
    assert kari(capfd, "induce", "--bench", world["bench"], "--out", rules, "-q")[0] == 0
    out = world["root"] / "run"
    argv = play_argv(world, out, "-n", "4", "-q", "rules", "--rules", rules, "--match", "exact")
    assert kari(capfd, *argv)[0] == 0
    meta = rules.with_suffix(".jsonl")
    rows = [json.loads(x) for x in meta.read_text().splitlines()]
    rows[0].setdefault("metadata", {})["note"] = "edited"
    meta.write_text("".join(json.dumps(r) + "\n" for r in rows))
    before = files(out)
    code, _, err = kari(capfd, *argv)
    assert code == 2 and "run-inputs: the rules file" in one_line(err), err
    assert files(out) == before


def test_play_over_a_changed_kb_vocabulary_is_refused(world, capfd, tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    assert kari(capfd, "kb", "load", asset_path("data", "kb", "kari_kb.tsv"), "--db", db)[0] == 0
    bench = asset_path("data", "bench")
    out = tmp_path / "run"
    argv = ["play", "--bench", bench, "--db", db, "-q", "optimal", "-n", "2", "-o", out, "--quiet"]
    assert kari(capfd, *argv)[0] == 0
    assert kari(capfd, *argv)[0] == 0                              # same content: resumed
    con = duckdb.connect(str(db))
    con.execute("INSERT INTO vocabulary VALUES ('synonym', 'MADE_OF', 'steely', 'steel', 'test')")
    con.close()
    code, _, err = kari(capfd, *argv)
    assert code == 2 and f"run-inputs: the KB database's vocabulary {db} (vocabulary)" in one_line(err)


# ----------------------------------------------------------------------------------- tampered logs


@pytest.mark.parametrize("tamper", ["duplicate", "unknown-game", "run-past-runs", "other-shard"])
def test_a_tampered_log_is_refused_by_resume_and_report(world, capfd, tamper: str) -> None:
    out = world["root"] / "run"
    shard = ["--shard", "1/2"] if tamper == "other-shard" else []
    assert kari(capfd, *play_argv(world, out, "-n", "6", *shard))[0] == 0
    games = out / "games.jsonl"
    if tamper == "duplicate":
        edit_games(games, lambda i, r: [r, r] if i == 1 else [r])
        where, message = 3, "duplicated record: game 'g_cut_obj1' is also on line 2"
    elif tamper == "unknown-game":
        edit_games(games, lambda i, r: [{**r, "game": "g_nowhere"} if i == 2 else r])
        where, message = 3, "game 'g_nowhere' is not in this run's inputs"
    elif tamper == "run-past-runs":
        edit_games(games, lambda i, r: [{**r, "run": 7} if i == 0 else r])
        where, message = 1, "run index 7 is past the runs of this run (1: 0..0)"
    else:
        other = next(g["id"] for g in map(json.loads, (world["bench"] / "games.jsonl").read_text().splitlines()[:6])
                     if g["id"] not in {json.loads(x)["game"] for x in games.read_text().splitlines()})
        edit_games(games, lambda i, r: [r, {**r, "game": other}] if i == 0 else [r])
        where, message = 2, f"game '{other}' belongs to shard 2/2, not to this shard (1/2)"
    before = files(out)
    for argv in (play_argv(world, out, "-n", "8", *shard), ["report", out]):
        code, _, err = kari(capfd, *argv)
        line = one_line(err)
        assert code == 2 and line.startswith(f"kari: {games}:{where}: run-corrupt: ") and message in line, argv[0]
        assert files(out) == before, argv[0]


def test_a_resume_with_another_shard_is_refused(world, capfd) -> None:
    out = world["root"] / "run"
    assert kari(capfd, *play_argv(world, out, "-n", "4", "--shard", "1/2"))[0] == 0
    for shard in (["--shard", "2/2"], []):
        code, _, err = kari(capfd, *play_argv(world, out, "-n", "4", *shard))
        assert code == 2 and "other settings (shard)" in one_line(err)


# ----------------------------------------------------------------------------------- older run directories


def test_an_older_run_directory_is_not_resumed_but_still_reported(world, capfd) -> None:
    out = world["root"] / "run"
    assert kari(capfd, *play_argv(world, out, "-n", "3"))[0] == 0
    config = json.loads((out / "config.json").read_text())
    del config["inputs"]
    (out / "config.json").write_text(json.dumps(config, indent=2))
    (out / "plan.json").unlink()                                    # as an older kari left it
    before = files(out)
    code, _, err = kari(capfd, *play_argv(world, out, "-n", "5"))
    assert code == 2 and "was made by an older kari that recorded no fingerprints of its inputs" in one_line(err)
    assert "start afresh with a new --out" in err and files(out) == before
    code, report, err = kari(capfd, "report", out)
    assert code == 0 and "| run | greedy-ig |" in report
    assert err.strip() == f"note: {out} was made by an older kari that recorded no fingerprints of its inputs and " \
                          "no plan, so its records cannot be checked against them: only repeated records were " \
                          "looked for"
    edit_games(out / "games.jsonl", lambda i, r: [r, r] if i == 0 else [r])   # repeats are still found
    code, _, err = kari(capfd, "report", out)
    assert code == 2 and "games.jsonl:2: run-corrupt: duplicated record" in one_line(err)


def test_an_older_empty_run_directory_is_taken_over(world, capfd) -> None:
    out = world["root"] / "run"
    out.mkdir()
    (out / "config.json").write_text(json.dumps({"questioner": "greedy-ig"}))   # nothing recorded yet
    code, _, err = kari(capfd, *play_argv(world, out, "-n", "2"))
    assert code == 2 and "other settings" in one_line(err)                 # its settings still count


# ----------------------------------------------------------------------------------- creativity


def _tasks(folder: Path, count: int) -> Path:
    tasks = json.loads((CB / "tasks.json").read_text())[:count]
    path = folder / "tasks.json"
    path.write_text(json.dumps(tasks, indent=1))
    return path


def test_creativity_solve_over_a_changed_task_file_is_refused(tmp_path: Path, capfd) -> None:
    # the case: a resume over a changed task file mixed two task sets (gold rate 0.211 vs 0.156 fresh)
    tasks = _tasks(tmp_path, 12)
    out = tmp_path / "run"
    argv = ["creativity", "solve", "--tasks", tasks, "--rules", CB / "rules.kari", "-o", out, "--quiet"]
    assert kari(capfd, *argv, "-n", "6")[0] == 0
    before = files(out)
    data = json.loads(tasks.read_text())
    data[0]["golds"] = data[0]["golds"][::-1] + [{**data[0]["golds"][0], "gold_part": "handle"}]
    tasks.write_text(json.dumps(data, indent=1))
    code, _, err = kari(capfd, *argv)
    assert code == 2 and f"run-inputs: the task file {tasks} changed since this run directory was made" \
        in one_line(err)
    assert files(out) == before
    rules = tmp_path / "rules.kari"
    shutil.copy(CB / "rules.kari", rules)
    argv[5] = rules
    assert kari(capfd, *argv, "-n", "2")[0] == 2                     # another rules path: other settings


@pytest.mark.parametrize("tamper", ["duplicate", "unknown-task"])
def test_a_tampered_answers_log_is_refused_by_resume_and_judge(tmp_path: Path, capfd, tamper: str) -> None:
    tasks = _tasks(tmp_path, 8)
    out = tmp_path / "run"
    argv = ["creativity", "solve", "--tasks", tasks, "--rules", CB / "rules.kari", "-o", out, "--quiet"]
    assert kari(capfd, *argv, "-n", "4")[0] == 0
    answers = out / "answers.jsonl"
    lines = answers.read_text().splitlines()
    if tamper == "duplicate":
        lines.insert(2, lines[0])
        message = f"duplicated record: task {json.loads(lines[0])['task_id']!r} is also on line 1"
    else:
        lines[2] = json.dumps({**json.loads(lines[2]), "task_id": "no-such-task"})
        message = "record out of place: task 'no-such-task' is not in this run's inputs"
    answers.write_text("\n".join(lines) + "\n")
    before = files(out)
    for command in (argv, ["creativity", "judge", out, "--judge", "symbolic", "--quiet"]):
        code, _, err = kari(capfd, *command)
        assert code == 2 and one_line(err) == f"kari: {answers}:3: run-corrupt: {message}", err
        assert files(out) == before


def test_creativity_score_refuses_a_task_twice_or_a_task_not_in_the_task_file(tmp_path: Path, capfd) -> None:
    tasks = _tasks(tmp_path, 3)
    data = json.loads(tasks.read_text())
    sample = '[{"temperature": 0.0, "gold_entity": "x", "gold_part": "y", "how_to_use": "z"}]'
    twice = tmp_path / "twice.json"
    twice.write_text(f'{{\n "{data[0]["task_id"]}": {sample},\n "{data[1]["task_id"]}": {sample},\n'
                     f' "{data[0]["task_id"]}": {sample}\n}}\n')
    code, _, err = kari(capfd, "creativity", "score", twice, "--tasks", tasks)
    assert code == 2 and one_line(err) == f"kari: {twice}:4: creativity-duplicate: task {data[0]['task_id']!r} " \
                                          "appears twice (also on line 2)"
    other = tmp_path / "other.json"
    other.write_text(f'{{\n "{data[0]["task_id"]}": {sample},\n "elsewhere": {sample}\n}}\n')
    code, _, err = kari(capfd, "creativity", "score", other, "--tasks", tasks, "-o", tmp_path / "scores")
    assert code == 2 and one_line(err) == f"kari: {other}:3: creativity-record: task 'elsewhere' is not in the " \
                                          f"task file {tasks}"
    assert not (tmp_path / "scores").exists()
