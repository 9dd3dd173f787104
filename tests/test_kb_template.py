"""The cached empty KB (kari.kb.template): a new KB copied from it is the KB a schema install makes, a template
that names another schema is built again, a cache folder that cannot be written costs speed, never a KB, and a
copied KB has the mode a KB DuckDB creates would have."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from kari.errors import KariError
from kari.kb import store
from kari.kb.template import CACHE_ENV, copy_template, template_name


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "schema-cache"
    monkeypatch.setenv(CACHE_ENV, str(folder))
    store._template.cache_clear()
    store._expected_catalog.cache_clear()
    yield folder
    store._template.cache_clear()
    store._expected_catalog.cache_clear()


def _contents(db: Path) -> tuple[object, ...]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        meta = con.execute("SELECT * FROM kari_meta ORDER BY key").fetchall()
        maps = [con.execute(f"SELECT count(*), sum(hash(t)) FROM {table} AS t").fetchone()
                for table in ("relation_map", "value_lexicon")]
        return store._catalog(con), meta, maps
    finally:
        con.close()


def _installed_directly(path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    with monkeypatch.context() as patched:
        patched.setattr(store, "_template", lambda: None)
        store.open_db(path).close()
    return path


def test_a_new_kb_is_a_copy_of_the_cached_template_and_equals_a_schema_install(
        cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store.open_db(tmp_path / "a.duckdb").close()
    template = cache / template_name(store._sql_digest())
    assert template.is_file()
    store.open_db(tmp_path / "b.duckdb").close()                # the second one from the cache
    direct = _installed_directly(tmp_path / "direct.duckdb", monkeypatch)
    assert _contents(tmp_path / "a.duckdb") == _contents(tmp_path / "b.duckdb") == _contents(direct)
    assert store._expected_catalog() == _contents(direct)[0]   # the catalog an existing KB is checked against
    con = store.open_db(tmp_path / "b.duckdb")                 # reopened: it passes the schema check
    con.close()
    assert not list(cache.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_a_template_of_another_schema_is_built_again(cache: Path, tmp_path: Path) -> None:
    cache.mkdir(parents=True)
    stale = cache / template_name(store._sql_digest())
    con = duckdb.connect(str(stale))
    con.execute("CREATE TABLE kari_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    con.execute("INSERT INTO kari_meta VALUES ('sql_sha256', 'another schema')")
    con.close()
    store.open_db(tmp_path / "kb.duckdb").close()
    con = duckdb.connect(str(tmp_path / "kb.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT value FROM kari_meta WHERE key = 'sql_sha256'").fetchone() == (store._sql_digest(),)
        assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'edges'").fetchone() == (1,)
    finally:
        con.close()
    con = duckdb.connect(str(stale), read_only=True)          # the stale template itself was replaced
    try:
        assert con.execute("SELECT value FROM kari_meta WHERE key = 'sql_sha256'").fetchone() == (store._sql_digest(),)
    finally:
        con.close()


def test_a_cache_folder_that_cannot_be_written_still_makes_the_kb(cache: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(CACHE_ENV, str(blocked / "schema"))
    assert store._template() is None
    store.open_db(tmp_path / "kb.duckdb").close()
    direct = _installed_directly(tmp_path / "direct.duckdb", monkeypatch)
    assert _contents(tmp_path / "kb.duckdb") == _contents(direct)


def test_a_copy_into_a_missing_folder_writes_nothing(cache: Path, tmp_path: Path) -> None:
    store.open_db(tmp_path / "a.duckdb").close()
    template = cache / template_name(store._sql_digest())
    assert not copy_template(template, str(tmp_path / "missing" / "kb.duckdb"))
    assert not (tmp_path / "missing").exists()


def test_a_copy_never_replaces_a_file_that_appeared_meanwhile(cache: Path, tmp_path: Path) -> None:
    """Another process may create the database between the open's look and the copy: its file stays."""
    store.open_db(tmp_path / "a.duckdb").close()
    template = cache / template_name(store._sql_digest())
    theirs = tmp_path / "theirs.duckdb"
    store.open_db(theirs).close()
    con = duckdb.connect(str(theirs))
    con.execute("CREATE TABLE mine AS SELECT 42 AS answer")
    con.close()
    assert not copy_template(template, str(theirs))
    assert not list(tmp_path.glob(".*.tmp"))
    con = duckdb.connect(str(theirs), read_only=True)
    try:
        assert con.execute("SELECT answer FROM mine").fetchone() == (42,)
    finally:
        con.close()


def test_a_copied_kb_has_the_mode_the_umask_gives_and_takes_an_empty_files_place(
        cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import stat

    previous = os.umask(0o027)
    try:
        store.open_db(tmp_path / "a.duckdb").close()             # builds the template
        store.open_db(tmp_path / "b.duckdb").close()             # a copy of it
        direct = _installed_directly(tmp_path / "direct.duckdb", monkeypatch)
        made_by_duckdb = stat.S_IMODE(direct.stat().st_mode)
        assert stat.S_IMODE((tmp_path / "b.duckdb").stat().st_mode) == made_by_duckdb == 0o640
        empty = tmp_path / "empty.duckdb"
        empty.touch()                                            # `touch` / `mktemp`: DuckDB 2 refuses to open it
        store.open_db(empty).close()
        assert _contents(empty) == _contents(tmp_path / "b.duckdb")
    finally:
        os.umask(previous)
    untouched = tmp_path / "kept.duckdb"
    untouched.touch()
    with pytest.raises(KariError, match="cannot open database"):  # an open that may not create: not a KB, kept
        store.open_db(untouched, create=False)
    assert untouched.is_file() and untouched.stat().st_size == 0
