"""Run a case the way `fem run` does and read back what it wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fem.cli import main
from fem.io.vtk import read_series


def cantilever_drop(case: str, out: Path, t_end_s: str) -> tuple[dict, list, list]:
    """``fem run CASE`` (a cantilever case: ``analysis=dynamic``, 4 elements, no
    pictures) into ``out``; returns ``summary.json`` and the ParaView series (times,
    meshes), whose last drawn point (the tip) moved as the recorded tip did."""
    rc = main(["run", case, "-p", "analysis=dynamic", "-p", "n_elements=4",
               "-p", f"t_end_s={t_end_s}", "--out", str(out), "--no-render"])
    assert rc == 0
    summary = json.loads((out / "summary.json").read_text())
    times, meshes = read_series(out / f"{case}.pvd")
    assert meshes[-1].point_data["displacement"][-1, 2] == pytest.approx(
        summary["tip_z_history_m"][-1], abs=1e-12)
    return summary, times, meshes
