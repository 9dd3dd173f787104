"""Runs that outgrow one machine (issue 20, item 5): ``kari play --shard K/N`` and ``kari creativity solve --shard
K/N`` each do their share of the items into a run directory of its own; ``kari merge`` joins the shards into one
run directory equal, byte for byte (timings aside), to the run made unsharded (on a synthetic benchmark and on the
shipped one), and refuses, in one line and writing nothing, shards that do not form one whole run (missing,
overlapping, of other settings or inputs, unfinished, of an older kari) and an --out that is one of them; ``kari induce --cv K --fold k`` induces one fold, and the same command without ``--fold``
assembles the folds into what one ``--cv K`` run writes."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from cli_support import kari, one_line
from test_game_support import write_bench, write_vocab

from kari.cli import run
from kari.errors import KariError
from kari.io.plan import Plan, Shard
from kari.resources import asset_path

CB = asset_path("data", "creativity")
TIMING = re.compile(r'"time_s": (\{[^}]*\}|[-0-9.e]+)')


def untimed(path: Path) -> bytes:
    """A file's bytes with every timing field (``time_s``) blanked."""
    return TIMING.sub('"time_s": null', path.read_text(encoding="utf-8")).encode()


def test_a_shard_split_never_overlaps_covers_every_id_and_is_balanced() -> None:
    ids = tuple(f"g{i:04d}" for i in range(1000, 0, -3))
    plan = Plan("game", ids, 1, ids)
    for count in (1, 2, 3, 7, len(ids), len(ids) + 5):
        shares = [set(plan.share(Shard(k, count))) for k in range(1, count + 1)]
        assert set().union(*shares) == set(plan.order) and sum(map(len, shares)) == len(ids)
        assert max(map(len, shares)) - min(map(len, shares)) <= 1
    assert Shard.parse(" 2 / 5 ") == Shard(2, 5) and str(Shard(2, 5)) == "2/5"
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", "-1/3"):
        with pytest.raises(Exception):
            Shard.parse(bad)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("shards")
    return {"bench": write_bench(root / "bench"), "vocab": write_vocab(root / "vocab"), "root": root}


def _play(world: dict[str, Path], out: Path, *extra: object) -> list[object]:
    return ["play", "--bench", world["bench"], "--vocab", world["vocab"], "-q", "greedy-ig", "--runs", "2", "-n", "30",
            "-o", out, "--quiet", *extra]


@pytest.fixture(scope="module")
def played(world: dict[str, Path]) -> dict[str, Path]:
    """One run unsharded and the same run in 3 shards (the third resumed after a crash mid-record)."""
    root = world["root"]
    dirs = {"whole": root / "whole", **{f"s{k}": root / f"s{k}" for k in (1, 2, 3)}}
    assert run([str(a) for a in _play(world, dirs["whole"])]) == 0
    for k in (1, 2, 3):
        assert run([str(a) for a in _play(world, dirs[f"s{k}"], "--shard", f"{k}/3")]) == 0
    log = dirs["s3"] / "games.jsonl"
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:-2]) + "\n" + lines[-2][:30])
    assert run([str(a) for a in _play(world, dirs["s3"], "--shard", "3/3")]) == 0
    return dirs


def test_play_in_three_shards_merges_into_the_unsharded_run_byte_for_byte(played, capfd, tmp_path: Path) -> None:
    counts = [len((played[f"s{k}"] / "games.jsonl").read_text().splitlines()) for k in (1, 2, 3)]
    assert sum(counts) == 60 and max(counts) - min(counts) <= 2         # 30 games x 2 runs, split by game id
    config = json.loads((played["s2"] / "config.json").read_text())
    assert config["shard"] == "2/3" and "inputs" in config
    merged = tmp_path / "merged"
    code, out, err = kari(capfd, "merge", played["s3"], played["s1"], played["s2"], "--out", merged)
    assert code == 0, err
    assert out.startswith("3 shards merged: 30 games x 2 run(s): SR ")
    whole = played["whole"]
    assert untimed(merged / "games.jsonl") == untimed(whole / "games.jsonl")
    assert untimed(merged / "summary.json") == untimed(whole / "summary.json")
    for name in ("config.json", "plan.json"):
        assert (merged / name).read_bytes() == (whole / name).read_bytes(), name
    for name in ("ig_by_turn.png", "dimensions_by_turn.png", "success_by_affordance.png"):
        assert (merged / name).stat().st_size > 0
    assert [p.name for p in merged.parent.iterdir() if p.name.startswith(".merged")] == []
    code, report, err = kari(capfd, "report", merged, whole)
    assert code == 0 and err == "", err
    rows = [line for line in report.splitlines() if line.startswith(("| merged ", "| whole "))][:2]
    assert rows[0].split("|")[2:] == rows[1].split("|")[2:]               # the same figures


def test_merge_refuses_shards_that_do_not_form_one_run(world, played, capfd, tmp_path: Path) -> None:
    s1, s2, s3 = played["s1"], played["s2"], played["s3"]
    copy = tmp_path / "copy-of-s2"
    shutil.copytree(s2, copy)
    other = tmp_path / "other"
    assert run([str(a) for a in _play(world, other, "--shard", "3/3", "--seed", "5")]) == 0
    five = tmp_path / "five"
    assert run([str(a) for a in _play(world, five, "--shard", "3/5")]) == 0
    older = tmp_path / "older"                  # a run directory as a kari before shards wrote it
    shutil.copytree(s3, older)
    (older / "plan.json").unlink()
    config = json.loads((older / "config.json").read_text())
    (older / "config.json").write_text(json.dumps({k: v for k, v in config.items() if k not in ("inputs", "shard")}))
    unfinished = tmp_path / "unfinished"
    shutil.copytree(s3, unfinished)
    log = unfinished / "games.jsonl"
    log.write_text("".join(log.read_text().splitlines(keepends=True)[:-1]))
    cases = {
        "missing": ((s1, s2), "shard 3/3 of this run is missing: give the run directories of all 3 shards"),
        "overlap": ((s1, s2, copy, s3), f"shard 2/3 is given twice: {s2} and {copy} (overlapping shards)"),
        "twice": ((s1, s2, s2, s3), "given twice (also as"),
        "settings": ((s1, s2, other), "this shard was made with other settings than"),
        "count": ((s1, s2, five), "shard 3/5 is not one of 3 like"),
        "unfinished": ((s1, s2, unfinished), "shard 3/3 is not finished: it lacks 1 of its"),
        "older-kari": ((s1, s2, older), "was made by an older kari that recorded no fingerprints"),
        "not-a-shard": ((s1, s2, played["whole"]), "not a shard (its config.json records no shard"),
        "not-a-run": ((s1, s2, world["bench"]), "not a shard's run directory (no config.json or games.jsonl)"),
        "not-a-log": ((s1, s2, world["vocab"]), "not a shard of 'kari play' or 'kari creativity solve'"),
    }
    for name, (dirs, message) in cases.items():
        code, _, err = kari(capfd, "merge", *dirs, "--out", tmp_path / "merged")
        assert code == 2 and "merge-shards" in one_line(err) and message in err, (name, err)
        assert not (tmp_path / "merged").exists(), name
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    code, _, err = kari(capfd, "merge", s1, s2, s3, "--out", tmp_path / "full")
    assert code == 2 and "exists and is not empty" in one_line(err)
    code, _, err = kari(capfd, "merge", s1, s2, s3, "--out", s2)
    assert code == 2 and "--out is one of the shards" in one_line(err)


def test_a_merge_that_fails_while_writing_leaves_no_output(played, capfd, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import kari.game.run as game_run

    def broken_finish(folder: Path, *args: object, **settings: object) -> None:
        (folder / "summary.json").write_text("{")                 # half a summary, then a failure
        raise KariError("the disk is full", code="output-write")

    monkeypatch.setattr(game_run, "finish_run", broken_finish)
    out = tmp_path / "merged"
    code, _, err = kari(capfd, "merge", played["s1"], played["s2"], played["s3"], "--out", out)
    assert code == 2 and "the disk is full" in one_line(err)
    assert list(tmp_path.iterdir()) == []                        # neither the output nor its staging folder
    (tmp_path / "empty").mkdir()                                 # an empty folder given as --out stays as it was
    code, _, err = kari(capfd, "merge", played["s1"], played["s2"], played["s3"], "--out", tmp_path / "empty")
    assert code == 2 and list(tmp_path.iterdir()) == [tmp_path / "empty"] and not any((tmp_path / "empty").iterdir())


@pytest.mark.parametrize("player", [("optimal",), ("fix20q", "--oracle-noise", "0.1")], ids=lambda p: p[0])
def test_the_bundled_benchmark_in_three_shards_merges_into_the_unsharded_run(player: tuple[str, ...], capfd,
                                                                              tmp_path: Path) -> None:
    """The shipped benchmark (its first 12 games, 2 runs each; fix20q with a noisy oracle, so every game's random
    draws count): three shards merged equal the run played in one go, apart from the timings."""
    argv = ["play", "-q", *player, "-n", "12", "--runs", "2", "--quiet"]
    assert kari(capfd, *argv, "-o", tmp_path / "whole")[0] == 0
    shards = [tmp_path / f"shard-{k}" for k in (1, 2, 3)]
    for k, folder in enumerate(shards, 1):
        code, out, err = kari(capfd, *argv, "-o", folder, "--shard", f"{k}/3")
        assert code == 0 and out.rstrip().endswith(f"(shard {k}/3)"), err
    assert [len((f / "games.jsonl").read_text().splitlines()) for f in shards] == [8, 8, 8]
    code, _, err = kari(capfd, "merge", *shards, "--out", tmp_path / "merged")
    assert code == 0, err
    whole, merged = tmp_path / "whole", tmp_path / "merged"
    for name in ("games.jsonl", "summary.json"):
        assert untimed(merged / name) == untimed(whole / name), name


def test_merge_refuses_shards_over_different_inputs(tmp_path: Path, capfd) -> None:
    bench, vocab = write_bench(tmp_path / "bench"), write_vocab(tmp_path / "vocab")
    argv = ["play", "--bench", bench, "--vocab", vocab, "-q", "optimal", "-n", "6", "--quiet"]
    assert kari(capfd, *argv, "-o", tmp_path / "a", "--shard", "1/2")[0] == 0
    objects = bench / "objects.jsonl"
    objects.write_text(objects.read_text().replace('"smooth"', '"rough"', 1))
    assert kari(capfd, *argv, "-o", tmp_path / "b", "--shard", "2/2")[0] == 0
    code, _, err = kari(capfd, "merge", tmp_path / "a", tmp_path / "b", "--out", tmp_path / "m")
    assert code == 2 and f"this shard read other inputs than {tmp_path / 'a'}: the benchmark {bench} " \
                         "(objects.jsonl)" in one_line(err)


def test_creativity_solve_in_three_shards_merges_into_the_unsharded_run(tmp_path: Path, capfd) -> None:
    base = ["creativity", "solve", "--tasks", CB / "tasks.json", "--rules", CB / "rules.kari", "--quiet"]
    assert kari(capfd, *base, "-o", tmp_path / "whole")[0] == 0
    for k in (1, 2, 3):
        code, out, _ = kari(capfd, *base, "-o", tmp_path / f"s{k}", "--shard", f"{k}/3")
        assert code == 0 and out.rstrip().endswith(f"(shard {k}/3)")
    code, out, err = kari(capfd, "merge", *(tmp_path / f"s{k}" for k in (1, 2, 3)), "--out", tmp_path / "merged")
    assert code == 0 and out.startswith("3 shards merged: 115 tasks"), err
    whole, merged = tmp_path / "whole", tmp_path / "merged"
    names = sorted(str(p.relative_to(whole)) for p in whole.rglob("*") if p.is_file() and p.name != ".kari.lock")
    assert names == sorted(str(p.relative_to(merged)) for p in merged.rglob("*") if p.is_file())
    for name in names:      # answers.jsonl, summary.json, config.json, plan.json, outputs/<runner format>.json
        assert (merged / name).read_bytes() == (whole / name).read_bytes(), name
    code, _, err = kari(capfd, "creativity", "judge", merged, "--judge", "symbolic", "--quiet")
    assert code == 0, err


def test_induce_folds_one_by_one_then_assembled_equal_one_cv_run(world, tmp_path: Path, capfd) -> None:
    bench = world["bench"]
    whole = tmp_path / "whole" / "rules.kari"
    assert kari(capfd, "induce", "--bench", bench, "--out", whole, "--cv", "3", "-q")[0] == 0
    split = tmp_path / "split" / "rules.kari"
    for fold in (2, 0, 1):                       # the jobs of an array finish in any order
        code, out, err = kari(capfd, "induce", "--bench", bench, "--out", split, "--cv", "3", "--fold", fold, "-q")
        assert code == 0 and out.startswith(f"fold {fold} of 3: "), err
        assert (split.with_suffix(".cv") / f"fold{fold}.jsonl").is_file()
    assert not split.exists() and not (split.with_suffix(".cv") / "cv.json").exists()
    code, out, err = kari(capfd, "induce", "--bench", bench, "--out", split, "--cv", "3", "-q")
    assert code == 0, err
    for name in ("cv.json", "folds.json", "fold0.jsonl", "fold1.kari", "fold2.jsonl"):
        assert (split.with_suffix(".cv") / name).read_bytes() == (whole.with_suffix(".cv") / name).read_bytes(), name
    assert split.read_bytes() == whole.read_bytes()
    manifest = json.loads((split.with_suffix(".run") / "cv" / "fold1" / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["sessions"] == 2     # its job, then the assembly
    for argv, message in (((), "--fold k needs --cv K"), (("--cv", "3"), "--fold must be in 0..2")):
        code, _, err = kari(capfd, "induce", "--bench", bench, "--out", tmp_path / "x.kari", *argv, "--fold", "3",
                            "-q")
        assert code == 2 and message in one_line(err)
    assert not (tmp_path / "x.run").exists()


def test_an_interactive_play_is_not_sharded(tmp_path: Path, capfd) -> None:
    code, _, err = kari(capfd, "play", "--interactive", "--shard", "1/2", "-o", tmp_path / "out")
    assert code == 2 and "no --shard" in one_line(err)


def test_a_shared_folder_without_locks_is_one_line(tmp_path: Path, capfd, monkeypatch: pytest.MonkeyPatch) -> None:
    """A network file system mounted without flock (ENOLCK) fails the run in one line, not as an internal error."""
    import errno
    import fcntl

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    code, _, err = kari(capfd, "play", "-n", "1", "--shard", "1/2", "-o", tmp_path / "shard-1", "--quiet")
    assert code == 2 and "cannot lock this run directory: No locks available" in one_line(err)
    assert not (tmp_path / "shard-1").exists()
