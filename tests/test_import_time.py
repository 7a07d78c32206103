"""`import fem` stays light (issue 12): the heavy libraries load on first use only.

A structural check, not a timed one: which modules a fresh interpreter has loaded after
`import fem`.  The time itself is a benchmark (`tests/benchmarks/import_time.py`).
"""

import subprocess
import sys

HEAVY = ("scipy", "scipy.sparse", "scipy.linalg", "meshio", "numba", "pyvista",
         "matplotlib", "dask", "pandas", "tqdm")


def _loaded_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", f"{code}; import sys; "
                          "print('\\n'.join(sys.modules))"], capture_output=True, text=True,
                         check=True).stdout.split()
    return set(out)


def test_import_fem_loads_no_heavy_library():
    loaded = _loaded_after("import fem")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
    # nor NumPy: fem.core's errors and nothing else until a name is used
    assert "numpy" not in loaded and {m for m in loaded if m.startswith("fem")} <= {
        "fem", "fem.core", "fem.core.errors", "fem.core.lazy"}, sorted(loaded)


def test_public_names_still_resolve_and_load_on_use():
    loaded = _loaded_after("import fem; fem.Model; fem.simulate; fem.constraints.Fixed; "
                           "from fem import Material, sweep, load_builtin_mesh")
    assert "scipy.sparse" in loaded and "fem.solvers.dynamic" in loaded
    import fem

    missing = [n for n in fem.__all__ if not hasattr(fem, n)]
    assert not missing, missing
    assert set(fem.__all__) <= set(dir(fem))
