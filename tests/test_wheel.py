"""The package as a user installs it (not editable): the wheel carries the cases, the
robots' files and the built-in meshes, so `fem list` and a case run from anywhere."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _can_build_here() -> bool:
    """Whether this environment builds the wheel itself: the setuptools of
    ``pyproject.toml``'s build requirements and its ``bdist_wheel`` (the ``wheel``
    package, built into setuptools from 70.1).  Then pip makes no isolated build
    environment, whose setuptools it would download on every fresh machine (15 s of the
    test there); otherwise it does."""
    from importlib.metadata import PackageNotFoundError, version
    from importlib.util import find_spec

    try:          # asked of the installed metadata: importing setuptools patches distutils
        found = tuple(int(p) for p in version("setuptools").split(".")[:2] if p.isdigit())
    except PackageNotFoundError:
        return False
    return found >= (70, 1) or (found >= (65, 0) and find_spec("wheel") is not None)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A virtual environment (with this Python's packages) holding the wheel of this
    checkout, installed without its dependencies."""
    tmp = tmp_path_factory.mktemp("wheel")
    wheels = tmp / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                            *(["--no-build-isolation"] if _can_build_here() else []),
                            str(ROOT), "-w", str(wheels)],
                           capture_output=True, text=True, timeout=600)
    if build.returncode != 0:
        pytest.fail(f"pip wheel failed:\n{build.stderr[-2000:]}")
    env_dir = tmp / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    wheel = next(wheels.glob("fem-*.whl"))
    inst = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q",
                           "--no-deps", str(wheel)], capture_output=True, text=True,
                          timeout=600)
    if inst.returncode != 0:
        pytest.fail(f"pip install of the wheel failed:\n{inst.stderr[-2000:]}")
    return py, tmp


def _run(py: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FEM_CASES")}
    env["FEM_JIT"] = "numpy"
    return subprocess.run([str(py), "-m", "fem.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_wheel_lists_and_runs_cases_from_anywhere(installed):
    py, tmp = installed
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run([str(py), "-c", "import fem; print(fem.__file__)"], cwd=elsewhere,
                           capture_output=True, text=True,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert str(tmp) in where.stdout, where.stdout + where.stderr     # the installed copy
    listed = _run(py, elsewhere, "list")
    assert listed.returncode == 0, listed.stderr
    for case in ("cantilever_cable", "urdf_robot", "parallel_robot_flexible_platform"):
        assert case in listed.stdout
    run = _run(py, elsewhere, "run", "cantilever_cable", "--no-render", "--out",
               str(tmp / "out"))
    assert run.returncode == 0, run.stderr[-2000:]
    mesh = subprocess.run([str(py), "-c", "import fem; print(len(fem.load_builtin_mesh("
                           "'hexagon_6').triangles))"], cwd=elsewhere, capture_output=True,
                          text=True, env={k: v for k, v in os.environ.items()
                                          if k != "PYTHONPATH"})
    assert mesh.stdout.strip() == "6", mesh.stderr
    urdf = subprocess.run([str(py), "-c", "import fem; p = fem.cases.load_case('urdf_robot')"
                           ".urdf_path('ur5'); print(p.is_file())"], cwd=elsewhere,
                          capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert urdf.stdout.strip() == "True", urdf.stderr


def test_fem_list_without_cases_says_where_it_looked(tmp_path, monkeypatch):
    from fem import cases, cli

    monkeypatch.setattr(cases, "available_cases", lambda: {})
    assert cli.main(["list"]) == 1
