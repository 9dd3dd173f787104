"""The type checker: ``python -m mypy`` over ``kari/`` with the settings of pyproject.toml's ``[tool.mypy]``
(every definition typed, no implicit Optional, ``Any`` returns warned, every body checked), run the way CI runs
the suite, so a change that breaks a signature fails here. Its cache lives in the temporary folder (reused by
the next run: a warm check takes about a second, a cold one 16 s on a 2-core machine under a load of 6,
with openai not followed: 35 s when it was).

Also held here: the settings themselves, every ``# type: ignore`` naming its error code and its reason, and each
package face showing mypy the names its ``lazy_exports`` table loads (else every name imported from a face would be
``Any`` to the checker)."""

from __future__ import annotations

import ast
import hashlib
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ("disallow_untyped_defs", "disallow_incomplete_defs", "no_implicit_optional", "warn_return_any",
         "check_untyped_defs", "warn_unused_ignores")


def _cache_dir() -> Path:
    """A mypy cache per checkout, outside it."""
    digest = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"kari-mypy-{digest}"


def test_kari_passes_the_type_checker() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(_cache_dir())], cwd=ROOT,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"mypy found problems:\n{result.stdout}{result.stderr}"
    assert "Success: no issues found" in result.stdout


def test_the_settings_make_the_check_mean_something() -> None:
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert settings["files"] == ["kari"]
    assert all(settings.get(flag) is True for flag in FLAGS), {flag: settings.get(flag) for flag in FLAGS}
    assert "ignore-without-code" in settings["enable_error_code"]
    assert not settings.get("ignore_missing_imports"), "name the libraries without stubs one by one instead"


def test_every_type_ignore_names_its_code_and_its_reason() -> None:
    found = []
    for path in sorted((ROOT / "kari").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            if "# type: ignore" not in line:
                continue
            where = f"{path.relative_to(ROOT)}:{number}"
            found.append(where)
            tail = line.split("# type: ignore", 1)[1]
            assert tail.startswith("["), f"{where}: a type: ignore without its error code"
            reason_after = tail.split("]", 1)[1].strip().startswith("#")
            reason_above = number > 1 and lines[number - 2].strip().startswith("#")
            assert reason_after or reason_above, f"{where}: a type: ignore without its reason"
    assert len(found) <= 6, f"{len(found)} type: ignores: {found}"


def _face_table(tree: ast.Module) -> dict[str, tuple[str, ...]] | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports":
            return ast.literal_eval(node.args[1])
    return None


def _type_checking_imports(tree: ast.Module) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module is not None
                out[statement.module] = tuple(alias.name for alias in statement.names)
    return out


def test_each_package_face_shows_the_checker_what_it_exports() -> None:
    faces = 0
    for init in sorted((ROOT / "kari").rglob("__init__.py")):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        table = _face_table(tree)
        if table is None:
            continue
        faces += 1
        assert _type_checking_imports(tree) == table, f"{init}: its TYPE_CHECKING imports and its lazy_exports differ"
    assert faces >= 10
