"""kari's empty KB as a ready database file, kept in the user's cache and copied for every new KB.

Installing kari's schema costs about 0.2 s (DuckDB binds each view as it is created); copying a file that already
holds it costs under a millisecond, and reading the catalog from it (what an existing KB is checked against) a
tenth of building it in memory. The file is built once per schema and DuckDB version (both in its name: a
template is only ever read by the DuckDB that wrote it), written under a temporary name and renamed, so that
processes building it at once each leave a whole file. Before a process uses a template it checks that the
template names the schema it expects; one that does not, or a cache folder that cannot be written, means the
schema is installed the slow way. The folder is ``$KARI_SCHEMA_CACHE``, else ``$XDG_CACHE_HOME/kari/schema``, else
``~/.cache/kari/schema``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from kari.io.atomic import new_temp_sibling
from kari.io.dbfile import connect
from kari.errors import KariError

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

CACHE_ENV = "KARI_SCHEMA_CACHE"
T = TypeVar("T")


def cache_folder() -> Path:
    """Where templates are kept (module docstring)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kari" / "schema"


def template_name(digest: str) -> str:
    """The file name of the template of the schema whose SHA-256 is ``digest``, for this DuckDB."""
    import duckdb

    return f"kb-{digest[:16]}-duckdb{duckdb.__version__}.duckdb"


def ensure_template(digest: str, build: Callable[[DuckDBPyConnection], None],
                    holds: Callable[[DuckDBPyConnection], bool]) -> Path | None:
    """The template for ``digest``: the cached file when ``holds(connection)`` accepts it (read-only), else a new
    one made by ``build(connection)`` on an empty database; None when none can be made (a folder that cannot be
    written, a full disk), and the caller installs the schema itself."""
    import duckdb

    path = cache_folder() / template_name(digest)
    if path.is_file() and _accepted(path, holds):
        return path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, scratch = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.close(handle)
        os.unlink(scratch)          # DuckDB creates the file itself (it refuses an empty one)
        try:
            con = connect(scratch)
            try:
                build(con)
            finally:
                con.close()
            os.replace(scratch, path)
        finally:
            for leftover in (scratch, scratch + ".wal"):
                if os.path.exists(leftover):
                    os.unlink(leftover)
    except (OSError, duckdb.Error, KariError):
        return None
    return path if _accepted(path, holds) else None


def _accepted(path: Path, holds: Callable[[DuckDBPyConnection], bool]) -> bool:
    import duckdb

    try:
        return read_template(path, holds)
    except (duckdb.Error, KariError):
        return False


def read_template(path: Path, read: Callable[[DuckDBPyConnection], T]) -> T:
    """``read(connection)`` on the template at ``path``, opened read-only."""
    con = connect(path, read_only=True)
    try:
        return read(con)
    finally:
        con.close()


def copy_template(template: Path, target: str) -> bool:
    """Copy ``template`` to the new database path ``target``: into a temporary file beside it, then linked to
    ``target`` only if nothing is there yet (never a half-copied database, and never over a file another process
    created in the meantime: a database that process has open would be lost). False when nothing was copied (a
    folder that cannot be written, a file already there, a file system without links): the caller's own open
    then creates the database, or reports why it cannot."""
    try:
        scratch = new_temp_sibling(Path(target))  # the umask's mode, as a database DuckDB creates would have
    except OSError:
        return False
    try:
        shutil.copyfile(template, scratch)
        os.link(scratch, target)
    except OSError:
        return False
    finally:
        os.unlink(scratch)
    return True
