"""The bundled KB and benchmark: reproducible from ../shared/data, and the KB derives the bench's objects."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kari import kb
from kari.bench.reader import load_benchmark
from kari.kb import views
from kari.resources import asset_path, bundled_bench_dir, bundled_kb_file

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("KARI_SHARED_DATA", ROOT.parent / "shared" / "data"))  # the build inputs
BUILT = ["data/kb/kari_kb.tsv", "kb/value_lexicon.tsv", "data/bench/label_sources.tsv",
         *(f"data/bench/{n}.jsonl" for n in ("objects", "affordances", "labels", "games"))]


def test_scale_and_representatives() -> None:
    bench = load_benchmark(bundled_bench_dir(), None)
    assert len(bench.objects) >= 300 and len(bench.games) >= 500
    for aff in bench.affordances:
        assert len(bench.positives(aff)) >= 10 and len(bench.negatives(aff)) >= 10, aff
    assert sum(1 for o in bench.objects.values() if o.parts) >= 50


@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data (the build inputs)")
def test_build_is_reproducible(tmp_path: Path) -> None:
    """Re-running the build gives byte-identical copies of every shipped derived file."""
    shutil.copytree(ROOT / "data" / "vocabulary", tmp_path / "data" / "vocabulary")
    subprocess.run([sys.executable, str(ROOT / "data" / "build" / "build_all.py"), "--shared", str(SHARED),
                    "--out", str(tmp_path)], check=True, capture_output=True, cwd=tmp_path)
    for name in BUILT:
        assert (tmp_path / name).read_bytes() == (ROOT / name).read_bytes(), name


def test_kb_derives_the_bench_objects_but_not_its_labels() -> None:
    """The KB describes the benchmark's objects exactly as objects.jsonl does; its affordance evidence is not the
    benchmark's labels (tests/test_kb_independence.py checks that no label is a KB edge)."""
    con = kb.open_db(":memory:")
    kb.load_files(con, [bundled_kb_file()])
    derived: dict[str, set[tuple[str, str, str]]] = {}
    for obj, part, pred, value in con.execute(
            "SELECT object, part, predicate, value FROM object_property WHERE predicate IS NOT NULL").fetchall():
        derived.setdefault(obj, set()).add((part, pred, value))
    bench = load_benchmark(bundled_bench_dir(), None)
    for obj in bench.objects.values():
        assert derived.get(obj.id, set()) == {(p.part, p.predicate, p.value) for p in obj.properties}, obj.id
    assert len(derived) > 3 * len(bench.objects)  # other objects the affordance sources name, described too
    evidence = set(con.execute("SELECT object, verb, polarity = 'positive' FROM affordance_evidence").fetchall())
    labels = {(lab.object, lab.affordance, lab.label) for lab in bench.labels}
    assert not evidence & labels
    described = set(derived)
    assert {obj for obj, _, _ in evidence} <= described  # every object with affordance evidence is described
    untyped = con.execute("SELECT count(*) FROM object_property WHERE predicate IS NULL").fetchone()[0]
    assert untyped == 0
    assert asset_path("data", "kb", "kari_kb.tsv") == bundled_kb_file()


def test_label_sources_state_every_label_of_the_bench() -> None:
    """label_sources.tsv names, for every label of data/bench, each source fact that states it; none of those
    facts is a KB edge."""
    import csv

    bench = load_benchmark(bundled_bench_dir(), None)
    with (bundled_bench_dir() / "label_sources.tsv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert {(r["object"], r["affordance"], r["label"] == "true") for r in rows} == {
        (lab.object, lab.affordance, lab.label) for lab in bench.labels}
    assert len(rows) > len(bench.labels)  # some labels are stated by several sources
    sources = {s for r in rows for s in r["source"].split("|")}
    assert sources == {"Forbes2019", "AI2-THOR", "Forbes2019-situated", "PROST", "ConceptNet"}
    con = kb.open_db(":memory:")
    kb.load_files(con, [bundled_kb_file()])
    kb_sentences = {s for (s,) in con.execute("SELECT sentence FROM edges").fetchall()}
    assert not {r["sentence"] for r in rows} & kb_sentences


def test_kb_objects_from_db_agree() -> None:
    """Through the typed API."""
    con = kb.open_db(":memory:")
    kb.load_files(con, [bundled_kb_file()])
    from_db = {o.id: o for o in views.objects_from_db(con)}
    for obj in load_benchmark(bundled_bench_dir(), None).objects.values():
        assert set(from_db[obj.id].properties) == set(obj.properties), obj.id
        assert set(from_db[obj.id].parts) == set(obj.parts), obj.id
