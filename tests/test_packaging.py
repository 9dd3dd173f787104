"""The built wheel carries kb/, grammar/, solver/ and data/ and its CLI works outside the checkout."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the wheel and install it (no deps; they come from the system site) into a fresh venv."""
    work = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(work / "dist"), str(ROOT)], check=True)
    wheel = next((work / "dist").glob("kari-*.whl"))
    env_dir = work / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
                   check=True)
    return env_dir


def _run(env_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(env_dir / "bin" / "kari"), *args], cwd=env_dir.parent, capture_output=True, text=True)


@pytest.mark.slow
def test_wheel_carries_assets(installed_wheel: Path) -> None:
    code = ("import kari.resources as r, sys; "
            "print(*(r.asset_path(n) for n in r.ASSET_DIRS), sep='\\n')")
    out = subprocess.run([str(installed_wheel / "bin" / "python"), "-c", code], cwd=installed_wheel.parent,
                         capture_output=True, text=True, check=True).stdout.split()
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
    out = subprocess.run([str(env_dir / "bin" / "python"), "-c", code], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())
