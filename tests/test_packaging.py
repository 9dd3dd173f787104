"""The built wheel carries kb/, grammar/, solver/ and data/ and its CLI works outside the checkout."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The installed wheel runs without the checkout on its path (a developer's PYTHONPATH would shadow the wheel).
OUTSIDE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def active_site_dirs() -> list[str]:
    """The site-packages folders of the running interpreter: a venv's own, or a global interpreter's (and user site)."""
    dirs = [*site.getsitepackages(), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return list(dict.fromkeys(d for d in dirs if Path(d).is_dir()))


def make_env_seeing_active_packages(env_dir: Path) -> Path:
    """A fresh venv whose site-packages ends with the ACTIVE environment's packages (not the base interpreter's).

    ``system_site_packages=True`` would expose the base interpreter's packages, which inside a venv lack kari's
    dependencies; a ``.pth`` file listing the active site folders works in a venv and in a global interpreter
    alike. Its lines are plain paths, so the active folders' own ``.pth`` files (an editable kari) are not run:
    ``kari`` comes from the wheel installed into the new venv, which stays first on ``sys.path``.
    """
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "_kari_test_active_env.pth").write_text("\n".join(active_site_dirs()) + "\n", encoding="utf-8")
    return python


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the wheel and install it (no deps: they come from the active environment) into a fresh venv."""
    work = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(work / "dist"), str(ROOT)], check=True)
    wheel = next((work / "dist").glob("kari-*.whl"))
    env_dir = work / "venv"
    python = make_env_seeing_active_packages(env_dir)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                   check=True)
    return env_dir


def _run(env_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(env_dir / "bin" / "kari"), *args], cwd=env_dir.parent, capture_output=True, text=True,
                          env=OUTSIDE_ENV)


@pytest.mark.slow
def test_wheel_carries_assets(installed_wheel: Path) -> None:
    code = ("import kari.resources as r, sys; "
            "print(*(r.asset_path(n) for n in r.ASSET_DIRS), sep='\\n')")
    out = subprocess.run([str(installed_wheel / "bin" / "python"), "-c", code], cwd=installed_wheel.parent,
                         capture_output=True, text=True, check=True, env=OUTSIDE_ENV).stdout.split()
    assert len(out) == 4
    for path in map(Path, out):
        assert "_assets" in path.parts, path  # taken from the wheel, not from the checkout
        assert any(path.iterdir()), path


@pytest.mark.slow
def test_wheel_cli_runs_outside_checkout(installed_wheel: Path) -> None:
    result = _run(installed_wheel, "--version")
    assert result.returncode == 0 and result.stdout.startswith("kari ")
    result = _run(installed_wheel, "bench", "validate", str(_bundled(installed_wheel)))
    assert result.returncode == 0, result.stdout + result.stderr


def _bundled(env_dir: Path) -> Path:
    code = "import kari.resources as r; print(r.bundled_bench_dir())"
    out = subprocess.run([str(env_dir / "bin" / "python"), "-c", code], capture_output=True, text=True, check=True,
                         env=OUTSIDE_ENV)
    return Path(out.stdout.strip())
