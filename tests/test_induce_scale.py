"""``kari induce`` at scale against a deterministic local server (tests/llm_server.py's ``property_model``, on
127.0.0.1): many affordances in flight (``--concurrency``), shards merged (``--shard``, ``kari merge``), budgets and
Ctrl-C resumed, the dry run, several objects per Validator request.

Every equality here is a property, not a golden number: any ``--concurrency`` gives the outputs of ``--concurrency
1``, shards merged give the unsharded run's, a run stopped (budget, Ctrl-C) and resumed gives the uninterrupted
run's, whatever rules the loop's algorithms induce."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import kari, one_line
from llm_server import StubLLMServer, StubReply, property_model

from kari.cli import run as cli_run
from kari.vocab.vocabulary import open_vocabulary
from kari.kb import load_into
from kari.resources import asset_path

ROOT = Path(__file__).resolve().parents[1]
KB_FILE = asset_path("data", "kb") / "kari_kb.tsv"


@pytest.fixture(scope="module")
def kb_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("kb") / "kb.duckdb"
    load_into(path, [KB_FILE])
    return path


@pytest.fixture(scope="module")
def groups(kb_master: Path) -> list[str]:
    """Eighteen verb groups of the bundled KB: twelve with three positives or more (every round has objects),
    six with one or two."""
    from kari.core.induce_config import InduceConfig
    from kari.induce.run import read_inputs

    _, evidence, _ = read_inputs(kb_master, None, InduceConfig())
    names = sorted(evidence)
    rich = [a for a in names if 3 <= len(evidence[a].positives) <= 12][:12]
    poor = [a for a in names if len(evidence[a].positives) < 3][:6]
    return rich + poor


@pytest.fixture(scope="module")
def kb_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one path every induction of this module reads its KB at (the report names the input, so runs compared
    with each other, the module's reference included, must read it at one path)."""
    return tmp_path_factory.mktemp("work") / "kb.duckdb"


@pytest.fixture
def kb(kb_master: Path, kb_path: Path) -> Path:
    """A fresh copy of the KB (an induction writes its grown vocabulary back into it): :func:`fresh` restores it
    between runs."""
    return fresh(kb_master, kb_path)


@pytest.fixture(scope="module")
def reference(kb_master: Path, kb_path: Path, groups: list[str],
              tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], int]:
    """The run every concurrent, stopped, resumed or batched induction below must equal, and the requests it
    took: :func:`property_model` (no invented values) answering one request at a time (``-j 1``), one object per
    Validator request, induced once for the module."""
    stub = StubLLMServer().start()
    try:
        stub.respond = property_model()
        out = tmp_path_factory.mktemp("reference") / "rules.kari"
        db = fresh(kb_master, kb_path)
        argv = ["induce", "--db", db, "--out", out, *[x for a in groups for x in ("--affordance", a)],
                *llm_args(stub, out.parent / "cache", "-j", 1)]
        assert cli_run([str(a) for a in argv]) == 0
        assert stub.max_in_flight == 1
        return outputs(out, db=db), stub.requests
    finally:
        stub.stop()


def fresh(master: Path, path: Path) -> Path:
    return Path(shutil.copyfile(master, path))


class Flights:
    """A ``respond`` wrapper that remembers when each Proposer request of each affordance was in flight."""

    def __init__(self, respond: Any, delay: float) -> None:
        self.respond, self.delay = respond, delay
        self.spans: list[tuple[float, float, str]] = []

    def __call__(self, body: dict[str, Any]) -> StubReply:
        reply = self.respond(body)
        request = body["messages"][1]["content"]
        if request.startswith("Affordance: "):
            start = time.monotonic()
            self.spans.append((start, start + reply.delay, request.split("\n")[0][12:].split(" (")[0]))
        return reply

    def most_affordances_at_once(self) -> int:
        return max((len({a for s, e, a in self.spans if s <= t < e}) for t, _, _ in self.spans), default=0)


@pytest.fixture
def server() -> Iterator[StubLLMServer]:
    stub = StubLLMServer().start()
    try:
        yield stub
    finally:
        stub.stop()


def llm_args(stub: StubLLMServer, cache: Path, *extra: object) -> list[object]:
    return ["--llm", "openai", "--base-url", stub.base_url, "--model", "stub", "--cache-dir", cache, "-q", *extra]


def induce(capfd: pytest.CaptureFixture[str], kb: Path, out: Path, affordances: list[str], *extra: object) -> int:
    code, out_text, err = kari(capfd, "induce", "--db", kb, "--out", out, *[x for a in affordances
                                                                          for x in ("--affordance", a)], *extra)
    if code not in (0, 75):
        pytest.fail(f"kari induce exited {code}: {err}")
    return code


def outputs(rules: Path, run_dir: Path | None = None, db: Path | None = None) -> dict[str, Any]:
    """What must be equal between two runs of one induction: the rules file, its JSONL, the run directory's
    coverage, vocabulary and report (its timers and the line about its sessions aside), each affordance's result
    (its time aside) and the vocabulary written back to the database."""
    run = run_dir or rules.with_suffix(".run")
    found: dict[str, Any] = {name: (run / name).read_bytes() for name in ("coverage.jsonl", "vocabulary.jsonl")}
    found["rules"] = rules.read_bytes()
    found["jsonl"] = rules.with_suffix(".jsonl").read_bytes()
    found["report"] = (run / "report.md").read_text().split("## Timers")[0]
    found["affordances"] = {p.name: {k: v for k, v in json.loads(p.read_text()).items() if k != "seconds"}
                            for p in sorted((run / "affordances").glob("*.json"))}
    if db is not None:
        found["db vocabulary"] = open_vocabulary(db=db).rows()
    return found


def without_run_key(jsonl: bytes) -> list[dict[str, Any]]:
    return [{k: v for k, v in json.loads(line).items() if k != "run"} for line in jsonl.splitlines()]


def assert_same(a: dict[str, Any], b: dict[str, Any]) -> None:
    for key in a:
        assert a[key] == b[key], f"{key} differs"


# ------------------------------------------------------------------------------------------------- concurrency


@pytest.mark.embed
def test_any_concurrency_and_any_shards_give_the_sequential_run(kb: Path, kb_master: Path, groups: list[str],
                                                                 tmp_path: Path, server: StubLLMServer, capfd) -> None:
    """Requests of many affordances are in flight at once; the Auditor grows the vocabulary (invented values
    shared by several affordances); every output equals the --concurrency 1 run's, and 2 or 3 shards merged
    equal it too."""
    pytest.importorskip("sentence_transformers", reason="sentence-transformers is not installed (kari[embed])")
    runs = {}
    for n in (1, 8, 3):  # replies take 0.1 s where requests must overlap to be in flight at once
        flights = Flights(property_model(delay=0.0 if n == 1 else 0.1, invent=True), 0.1)
        server.respond = flights
        db = fresh(kb_master, kb)
        out = tmp_path / f"c{n}" / "rules.kari"
        before = server.requests
        server.max_in_flight = 0
        induce(capfd, db, out, groups, *llm_args(server, tmp_path / f"cache{n}", "--concurrency", n))
        runs[n] = outputs(out, db=db)
        if n == 8:
            assert 4 <= flights.most_affordances_at_once() and server.max_in_flight <= 8
        if n == 1:
            assert server.max_in_flight == 1
            sequential_requests = server.requests - before
        else:
            assert server.requests - before == sequential_requests
    news = [json.loads(line) for line in runs[1]["vocabulary.jsonl"].splitlines()]
    assert any(e["decision"] in ("new", "embedding", "llm-synonym") for e in news)
    assert_same(runs[1], runs[8])
    assert_same(runs[1], runs[3])

    server.respond = property_model(invent=True)
    for count in (2, 3):
        db = fresh(kb_master, kb)
        dirs = []
        for k in range(1, count + 1):
            out = tmp_path / f"shards{count}" / f"s{k}.kari"
            induce(capfd, db, out, groups, *llm_args(server, tmp_path / "shared-cache", "--shard", f"{k}/{count}",
                                                     "--concurrency", 4))
            dirs.append(out.with_suffix(".run"))
        assert open_vocabulary(db=db).rows() == open_vocabulary(db=kb_master).rows()  # shards leave the KB alone
        merged = tmp_path / f"shards{count}" / "merged" / "rules.kari"
        code, text, err = kari(capfd, "merge", *reversed(dirs), "--out", merged)
        assert code == 0, err
        assert_same(runs[1], outputs(merged, db=db))


def test_concurrent_requests_of_many_affordances_equal_one_at_a_time(kb: Path, groups: list[str], tmp_path: Path,
                                                                     server: StubLLMServer, reference, capfd) -> None:
    """Without new values (no embedder needed): --concurrency 6 equals --concurrency 1 (the module's reference),
    in as many requests, and the report gives the calls and tokens per role and per rule, the same for both."""
    one, sequential_requests = reference
    flights = Flights(property_model(delay=0.05), 0.05)
    server.respond = flights
    induce(capfd, kb, tmp_path / "six" / "rules.kari", groups, *llm_args(server, tmp_path / "c6", "-j", 6))
    assert flights.most_affordances_at_once() >= 3 and server.requests == sequential_requests
    six = outputs(tmp_path / "six" / "rules.kari", db=kb)
    assert_same(one, six)
    report = one["report"]
    assert "## LLM calls and tokens" in report and "| proposer |" in report and "| validator |" in report
    per_rule = list(one["affordances"].values())
    assert all(r["llm"]["proposer"]["calls"] >= 1 for r in per_rule)
    logged = [json.loads(line) for p in sorted((tmp_path / "six" / "rules.run" / "calls").glob("*.jsonl"))
              for line in p.read_text().splitlines()]
    assert {c["tag"] for c in logged} == set(groups)  # every call names its affordance
    assert sum(r["llm"][role]["calls"] for r in per_rule for role in r["llm"]) == len(logged)


# ----------------------------------------------------------------------------------------- stopping and resuming


def test_a_budget_stop_resumes_to_the_uninterrupted_run(kb: Path, kb_master: Path, groups: list[str],
                                                        tmp_path: Path, server: StubLLMServer, reference,
                                                        capfd) -> None:
    server.respond = property_model(delay=0.01)
    spent = [r["llm"][role] for r in reference[0]["affordances"].values() for role in r["llm"]]
    tokens = sum(s["prompt_tokens"] + s["completion_tokens"] for s in spent)
    # budgets of about a quarter of the uninterrupted run's: three stops or so, each resumed
    for option, size in (("--budget-calls", reference[1] // 4 + 1), ("--budget-tokens", tokens // 4 + 1)):
        db = fresh(kb_master, kb)
        out = tmp_path / option.strip("-") / "rules.kari"
        stops = 0
        while True:
            before = server.requests
            code, text, err = kari(capfd, "induce", "--db", db, "--out", out,
                                   *[x for a in groups for x in ("--affordance", a)],
                                   *llm_args(server, tmp_path / f"c{option}", option, size))
            if code == 0:
                break
            assert code == 75 and "kari: budget: stopped: the LLM budget is spent" in one_line(err)
            assert json.loads((out.with_suffix(".run") / "manifest.json").read_text())["status"] == "budget-spent"
            if option == "--budget-calls":
                assert server.requests - before == size  # exact, whatever the concurrency
            stops += 1
            assert stops < 40
        assert stops >= 2
        assert_same(reference[0], outputs(out, db=db))


def test_ctrl_c_mid_flight_keeps_the_finished_affordances_and_resumes(kb: Path, groups: list[str], tmp_path: Path,
                                                                      server: StubLLMServer, reference,
                                                                      capfd) -> None:
    """A real process with many requests in flight gets SIGINT: it exits 130 at once with one line, every
    finished affordance is saved whole, and the rerun resumes to the uninterrupted run's outputs."""
    server.respond = property_model(delay=0.25)
    out = tmp_path / "run" / "rules.kari"
    done = out.with_suffix(".run") / "affordances"
    argv = ["induce", "--db", str(kb), "--out", str(out), *[x for a in groups for x in ("--affordance", a)],
            *map(str, llm_args(server, tmp_path / "cache", "--concurrency", 8))]
    proc = subprocess.Popen([sys.executable, "-m", "kari", *argv], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={"PYTHONPATH": str(ROOT), **_env()},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 90
    while proc.poll() is None and time.monotonic() < deadline and len(list(done.glob("*.json"))) < 3:
        time.sleep(0.02)
    in_flight = server.requests
    proc.send_signal(signal.SIGINT)
    started = time.monotonic()
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - started < 5
    assert proc.returncode == 130, err
    assert "stopped by Ctrl-C" in one_line(err) and "rerun the same command to resume" in err
    saved = sorted(done.glob("*.json"))
    assert 3 <= len(saved) < len(groups)
    assert all(json.loads(p.read_text())["affordance"] for p in saved)
    assert json.loads((out.with_suffix(".run") / "manifest.json").read_text())["status"] == "interrupted"
    assert in_flight >= 3

    code, text, _ = kari(capfd, "induce", *argv[1:])
    assert code == 0 and f"(resumed {len(saved)})" in text
    assert_same(reference[0], outputs(out, db=kb))


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


# ---------------------------------------------------------------------------------------------- shards, offline


def test_offline_shards_merged_equal_the_unsharded_run(kb: Path, kb_master: Path, tmp_path: Path, capfd) -> None:
    induce(capfd, kb, tmp_path / "u" / "rules.kari", [], "--limit", 45, "-q")
    unsharded = outputs(tmp_path / "u" / "rules.kari", db=kb)
    fresh(kb_master, kb)
    dirs = []
    for k in (2, 1, 3):
        induce(capfd, kb, tmp_path / f"s{k}" / "rules.kari", [], "--limit", 45, "--shard", f"{k}/3", "-q")
        dirs.append(tmp_path / f"s{k}" / "rules.run")
    code, text, err = kari(capfd, "merge", *dirs, "--out", tmp_path / "m" / "rules.kari")
    assert code == 0, err
    assert "3 shards merged" in text
    assert_same(unsharded, outputs(tmp_path / "m" / "rules.kari", db=kb))


def test_merge_refuses_shards_that_do_not_make_one_induction(kb: Path, kb_master: Path, tmp_path: Path,
                                                             capfd) -> None:
    def shard(name: str, k: int, n: int, *extra: object) -> Path:
        induce(capfd, kb, tmp_path / name / "rules.kari", [], "--limit", 12, "--shard", f"{k}/{n}", "-q", *extra)
        return tmp_path / name / "rules.run"

    one, two = shard("a", 1, 2), shard("b", 2, 2)
    other_seed = shard("c", 2, 2, "--seed", 7)
    of_three = shard("d", 2, 3)
    induce(capfd, kb, tmp_path / "whole" / "rules.kari", [], "--limit", 12, "-q")

    def refused(*dirs: Path) -> str:
        code, _, err = kari(capfd, "merge", *dirs, "--out", tmp_path / "m" / "rules.kari")
        assert code == 2 and not (tmp_path / "m" / "rules.run").exists()
        return one_line(err)

    assert "shard 2/2 of this induction is missing" in refused(one)
    assert "given twice" in refused(one, one, two)
    assert f"{other_seed}: merge-shards: this shard was made with other settings" in refused(one, other_seed)
    assert "cache_key, config" in refused(one, other_seed)
    assert "is not one of 2" in refused(one, of_three)
    assert "not a shard" in refused(one, tmp_path / "whole" / "rules.run")
    assert "not a run directory of kari induce" in refused(one, tmp_path)
    code, _, err = kari(capfd, "induce", "--db", kb, "--out", tmp_path / "b" / "rules.kari", "--limit", 12,
                        "--shard", "1/2", "-q")
    assert code == 2 and "holds shard 2/2 of this run, not shard 1/2" in one_line(err)

    changed = Path(shutil.copyfile(kb_master, tmp_path / "changed.duckdb"))
    a, b = (shard_of(capfd, changed, tmp_path / f"x{k}", k) for k in (1, 2))
    more = tmp_path / "more.tsv"
    more.write_text("id\tnode1\trelation\tnode2\nabrading_stone-UsedFor-polish\tabrading_stone\tUsedFor\tpolish\n")
    load_into(changed, [more])  # one more KB edge for the first verb group's object
    message = refused(a, b)
    assert "changed since the shards ran" in message and "induce the shards again" in message


def shard_of(capfd: pytest.CaptureFixture[str], db: Path, folder: Path, k: int) -> Path:
    induce(capfd, db, folder / "rules.kari", [], "--limit", 12, "--shard", f"{k}/2", "-q")
    return folder / "rules.run"


# ----------------------------------------------------------------------------------------- cost, before and during


def test_dry_run_sends_nothing_and_bounds_the_run(kb: Path, groups: list[str], tmp_path: Path, server: StubLLMServer,
                                                  capfd) -> None:
    server.respond = property_model()
    out = tmp_path / "r" / "rules.kari"
    code, text, err = kari(capfd, "induce", "--db", kb, "--out", out, *[x for a in groups for x in ("-a", a)],
                           *llm_args(server, tmp_path / "cache", "--dry-run"))
    assert code == 0, err
    assert server.requests == 0 and not out.parent.exists()
    rows = {line.split()[0]: line.split() for line in text.splitlines() if line.split() and line.split()[0] in groups}
    assert set(rows) == set(groups)
    totals = {line.split()[0]: line.split() for line in text.splitlines()
              if line.split() and line.split()[0] in ("proposer", "validator", "auditor")}
    most = {role: int(totals[role][2].replace(",", "")) for role in ("proposer", "validator")}
    expected = {role: int(totals[role][1].replace(",", "")) for role in ("proposer", "validator")}
    assert all(expected[r] <= most[r] for r in most)
    induce(capfd, kb, out, groups, *llm_args(server, tmp_path / "cache"))
    per_rule = [json.loads(p.read_text())["llm"] for p in (out.with_suffix(".run") / "affordances").glob("*.json")]
    for role in ("proposer", "validator"):
        assert sum(r.get(role, {}).get("calls", 0) for r in per_rule) <= most[role]
    code, text, _ = kari(capfd, "induce", "--db", kb, "--out", out, "--limit", 5, "--dry-run")
    assert code == 0 and "the offline backend makes no LLM request" in text


def test_several_objects_per_validator_request_keep_the_labels(kb: Path, groups: list[str], tmp_path: Path,
                                                               server: StubLLMServer, reference, capfd) -> None:
    """With a model whose answers can be checked (YES exactly when the object lists the property), four objects
    per request give the same labels, rounds and rules as one object per request (the module's reference), in
    fewer requests."""
    server.respond = property_model()
    found, requests = {1: reference[0]}, {1: reference[1]}
    out = tmp_path / "b4" / "rules.kari"
    induce(capfd, kb, out, groups, *llm_args(server, tmp_path / "cache4", "--validator-batch", 4))
    requests[4], found[4] = server.requests, outputs(out, db=kb)
    assert found[1]["rules"] == found[4]["rules"] and found[1]["coverage.jsonl"] == found[4]["coverage.jsonl"]
    assert without_run_key(found[1]["jsonl"]) == without_run_key(found[4]["jsonl"])  # the key names the batch
    for name, one in found[1]["affordances"].items():
        four = found[4]["affordances"][name]
        assert {k: v for k, v in one.items() if k != "llm"} == {k: v for k, v in four.items() if k != "llm"}
        assert four["llm"]["validator"]["calls"] <= one["llm"]["validator"]["calls"]
    assert requests[4] < requests[1]


def test_a_junk_batch_reply_falls_back_to_one_object_per_request(kb: Path, groups: list[str], tmp_path: Path,
                                                                 server: StubLLMServer, reference, capfd) -> None:
    """A batch reply that labels nothing is asked again object by object: the labels are the one-object ones."""
    model = property_model()
    server.respond = lambda body: StubReply("{]") if "several objects" in body["messages"][0]["content"] \
        else model(body)
    induce(capfd, kb, tmp_path / "b" / "rules.kari", groups, *llm_args(server, tmp_path / "c", "--validator-batch", 3))
    assert (tmp_path / "b" / "rules.kari").read_bytes() == reference[0]["rules"]


def test_merge_refuses_a_shard_stopped_before_its_end(kb: Path, groups: list[str], tmp_path: Path,
                                                      server: StubLLMServer, capfd) -> None:
    server.respond = property_model()
    dirs = []
    for k, extra in ((1, ("--budget-calls", 3)), (2, ())):
        out = tmp_path / f"s{k}" / "rules.kari"
        code = induce(capfd, kb, out, groups, *llm_args(server, tmp_path / "c", "--shard", f"{k}/2", *extra))
        assert code == (75 if extra else 0)
        dirs.append(out.with_suffix(".run"))
    code, _, err = kari(capfd, "merge", *dirs, "--out", tmp_path / "m" / "rules.kari")
    line = one_line(err)
    assert code == 2 and line.startswith(f"kari: {dirs[0]}: merge-shards: this shard has not finished")
    assert "status 'budget-spent'" in line and not (tmp_path / "m").exists()
