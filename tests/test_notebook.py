"""The example notebook runs, and what it displays is readable: its code cells are
executed in order in one namespace (as a kernel would), the value of each cell's last
expression is displayed the way Jupyter does (``_repr_html_``, else ``repr``)."""

import ast
import json
import re
from pathlib import Path

import numpy as np
import pytest

import fem

# one test process runs this module: its module-scoped fixture runs once (pytest-xdist)
pytestmark = pytest.mark.xdist_group("notebook")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "examples" / "quickstart.ipynb"


def _run_notebook(path: Path) -> list[tuple[str, object]]:
    """Execute the code cells; return (cell source, displayed value) per cell."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert nb["nbformat"] == 4
    namespace: dict = {"__name__": "__main__"}
    shown = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        tree = ast.parse(src)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, str(path), "exec"), namespace)
        value = (eval(compile(ast.Expression(last.value), str(path), "eval"), namespace)
                 if last is not None else None)
        shown.append((src, value))
    return shown


def _display(value) -> str:
    html = getattr(value, "_repr_html_", None)
    return (html() if callable(html) else None) or repr(value)


@pytest.fixture(scope="module")
def cells(tmp_path_factory):
    import os

    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("nb"))       # whatever a cell writes goes here
    try:
        return _run_notebook(NOTEBOOK)
    finally:
        os.chdir(here)


def test_notebook_runs_and_shows_readable_values(cells):
    from matplotlib.figure import Figure

    assert len(cells) >= 6
    for src, value in cells:
        assert value is not None, f"the cell shows nothing:\n{src}"
        text = _display(value)
        assert "object at 0x" not in text, f"a default repr:\n{src}\n{text[:200]}"
    values = [v for _, v in cells]
    kinds = {type(v).__name__ for v in values}
    assert {"Model", "Result", "ModalResult", "StaticResult", "SweepResult",
            "DataFrame", "Figure"} <= kinds
    fig = next(v for v in values if isinstance(v, Figure))
    assert fig.axes[0].get_ylabel() == "tip z [m]"
    assert fig.axes[0].get_xlabel() == "time [s]"
    df = next(v for v in values if type(v).__name__ == "DataFrame" and "tip_z_m" in v)
    assert df.loc["min", "tip_z_m"] < 0            # the cantilever falls


def test_notebook_is_stored_without_outputs():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


# ---------------------------------------------------------------- reprs and helpers
def _cantilever(n=4):
    model = fem.Model("cantilever", gravity=(0, 0, -9.81))
    steel = fem.Material(E=2.1e11, nu=0.3, rho=7850)
    sec = fem.rectangle_section(0.02, 0.02)
    _, nodes = fem.straight_cable(model, (0, 0, 0), (2, 0, 0), n, steel, sec["area"],
                                  sec["iy"], name="bar", end_names=(None, "tip"))
    model.fix(nodes[0], name="clamp")
    return model


def test_model_repr_gives_its_size():
    model = _cantilever()
    text = repr(model)
    assert text.startswith("fem.Model 'cantilever'")
    assert "coordinates: 30" in text and "4 in 1 group (bar: 4 × ancf_cable)" in text
    assert "rows counted when assembled" in text
    model.assemble()
    assert "(6 rows with the elements' own)" in repr(model)
    html = model._repr_html_()
    assert "<table>" in html and "&#x27;cantilever&#x27;" in html
    assert repr(model.group("bar")) == "ElementGroup('bar': 4 × ancf_cable, 30 coordinates)"


def test_result_repr_dataframe_and_plot():
    model = _cantilever()
    tip = model.node_dofs(model.node("tip"))
    res = fem.simulate(model, 0.02, 2e-3, sensors={
        "tip_z_m": lambda t, q, v, a, lam: q[tip[2]],
        "tip_xz_m": lambda t, q, v, a, lam: q[tip[[0, 2]]]})
    text = repr(res)
    assert "11 recorded, t = 0 … 0.02 s" in text and "tip_z_m, tip_xz_m" in text
    assert "status:      finished" in text
    df = res.to_dataframe()
    assert list(df.columns) == ["tip_z_m", "tip_xz_m[0]", "tip_xz_m[1]"]
    assert df.index.name == "time_s" and len(df) == 11
    np.testing.assert_array_equal(df["tip_z_m"].to_numpy(), res.sensors["tip_z_m"])
    assert "residual_constraints" in res.to_dataframe(stats=True)
    fig = res.plot("tip_xz_m")
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("time [s]", "tip xz [m]")
    assert len(ax.lines) == 2 and ax.get_legend() is not None
    assert res.plot("residual_dynamics_N").axes[0].get_ylabel() == "residual dynamics [N]"
    with pytest.raises(fem.ModelError, match="no history 'torque_Nm'; recorded: tip_z_m"):
        res.plot("torque_Nm")


def test_to_dataframe_without_pandas_names_the_extra(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_pandas(name, *args, **kwargs):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("No module named 'pandas'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    with pytest.raises(ImportError, match=r'pip install "fem\[notebook\]"'):
        fem.Result().to_dataframe()


def test_modal_and_static_reprs():
    model = _cantilever()
    st = fem.solve_static(model)
    assert "status:      converged" in repr(st) and "coordinates: 30" in repr(st)
    mr = fem.modes(model, n_modes=4)
    text = repr(mr)
    assert "modes:       4" in text and "Hz" in text and "stable" in text
    assert "<td>1</td>" in mr._repr_html_()


def test_the_notebook_extra_brings_jupyter_and_the_readme_names_it():
    """The shipped notebook can be opened with what the project installs: the
    ``notebook`` extra brings JupyterLab and a Python kernel (and pandas), the README says
    so where it shows the notebook; the ``test`` extra stays without Jupyter (this module
    runs the cells without a kernel)."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    names = {re.split(r"[<>=\[ ]", r, maxsplit=1)[0] for r in extras["notebook"]}
    assert {"jupyterlab", "ipykernel", "pandas"} <= names
    assert not [r for r in extras["test"] if "notebook" in r or "jupyter" in r]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/examples/quickstart.ipynb" in readme
    assert 'pip install -e ".[notebook]"' in readme and "jupyter lab" in readme
