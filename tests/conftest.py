import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# cases/ is a folder of plain modules, not a package: make them importable in tests
sys.path.insert(0, str(ROOT / "cases"))

# The suite runs on the NumPy path (fem.core.jit.path): no test waits for the compiler.
# The compiled kernels' own tests (marked ``compiled``) switch to the compiled path and
# compare it with the NumPy forms.  Those marked ``compiled(heavy=True)`` need the
# kernels that take minutes to compile on an empty cache (the chain and body kernels,
# the compiled Newton loop): they run when `fem compile` has filled the cache or with
# FEM_TEST_COMPILED=1, and are skipped otherwise (a fresh clone's CI stays short).
# FEM_JIT set outside (e.g. "compiled") wins; no test run starts a background compile.
os.environ.setdefault("FEM_JIT", "numpy")
os.environ["FEM_JIT_BACKGROUND"] = "0"

# Byte code kept: the runs the tests start (`fem run` in a subprocess, sweep and Dask
# workers) import the package anew, and where the environment says not to write byte code
# (PYTHONDONTWRITEBYTECODE, set in some containers) every one of them compiled each
# module's source again (about 1 s of CPU a process).  __pycache__ is git-ignored.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# The suite keeps both cores busy with its own two processes: the workers a run starts
# beside itself (fem.core.beside) and the movie's frame workers would only add their
# start-up to every run the tests make.  Their own tests turn them on explicitly.
os.environ.setdefault("FEM_BESIDE", "0")
os.environ.setdefault("FEM_RENDER_WORKERS", "1")

# One BLAS thread per test process (and for the runs they start): the suite runs in two
# processes on two cores (pytest-xdist, pyproject's addopts), and OpenBLAS's own threads
# on top of them spin against each other (fem's solvers limit themselves already; the
# tests' own linear algebra and the reductions did not).  Set before NumPy loads; a value
# set outside wins.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


# The longest modules first (minutes of runs through the CLI, the validation quick set,
# Dask clusters): with two test processes their tests spread over both from the start
# instead of leaving one process alone with them at the end.  The order within a module
# is kept.
LONG_FIRST = ("test_validate_cli.py", "test_cases_default.py", "test_sweep.py",
              "test_damping.py", "test_flexible_links_robot.py", "test_floating_frame.py",
              # single tests of 8–13 s (CI's slowest list, 2026-11-29)
              "test_kernel_paths.py", "test_wheel.py", "test_reduced_body.py",
              "test_parallel_robot.py", "test_web_view.py", "test_ancf_cable.py",
              "test_six_joint_arm.py", "test_urdf.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: k for k, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "compiled(heavy=False): runs on the compiled path (compiles what is "
                   "not cached; skipped without numba); heavy: only with the kernels "
                   "compiled (`fem compile`) or FEM_TEST_COMPILED=1")


@pytest.fixture(autouse=True)
def _kernel_path(request):
    """Tests marked ``compiled`` run on the compiled path, the others on the process's
    (the NumPy path unless FEM_JIT says otherwise)."""
    mark = request.node.get_closest_marker("compiled")
    if mark is None:
        yield
        return
    from importlib.util import find_spec

    from fem.core import jit

    if find_spec("numba") is None:
        pytest.skip("numba is not installed")
    wanted = os.environ.get("FEM_TEST_COMPILED", "").strip().lower() in ("1", "yes", "true")
    if mark.kwargs.get("heavy") and not (wanted or jit.kernels_ready()):
        pytest.skip("compiles kernels that take minutes on an empty cache: run "
                    "`fem compile` first, or set FEM_TEST_COMPILED=1")
    with jit.use_path("compiled"):
        yield
