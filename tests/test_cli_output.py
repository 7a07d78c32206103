"""The `fem` command and what it writes: ParaView series, animations, partial results.

References: the files are read back with meshio (independent of our writer) and compared
with the model's own geometry; frame counts with imageio.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from runcheck import cantilever_drop

import fem
from fem.cli import main
from fem.io.vtk import read_series

ROOT = Path(__file__).resolve().parents[1]


def test_cantilever_dynamic_writes_series(tmp_path, capsys):
    # the displacement of the last drawn point (the tip) equals the recorded tip motion
    summary, times, meshes = cantilever_drop("cantilever_cable", tmp_path / "cant", "0.05")
    assert summary["steps"] == 50
    assert np.allclose(times, np.linspace(0, 0.05, 51))
    # 4 cable elements drawn with 9 points each
    assert all(m.points.shape == (36, 3) for m in meshes)
    assert meshes[0].point_data["displacement"].max() == 0.0
    printed = capsys.readouterr().out
    assert "tip_z_m" in printed and "cantilever_cable.pvd" in printed


def test_double_pendulum_animation_is_rendered(tmp_path):
    import imageio.v2 as imageio

    out = tmp_path / "dp"
    assert main(["run", "double_pendulum", "-p", "t_end_s=0.2", "-p", "dt_s=0.005",
                 "--out", str(out)]) == 0
    times, meshes = read_series(out / "double_pendulum.pvd")
    # two sketched links (4 points), the ceiling (5: a closed polygon) and the pivot
    assert len(times) == 41 and meshes[0].points.shape == (10, 3)
    anim = next(out.glob("double_pendulum.*[fg4]"))
    reader = imageio.get_reader(anim)
    frames = [f for f in reader]
    assert len(frames) == 41
    assert np.var(np.asarray(frames[-1], float)) > 1.0      # not a blank picture


def test_static_and_modal_export_single_state(tmp_path):
    out = tmp_path / "st"
    assert main(["run", "cantilever_cable", "--out", str(out), "--no-render"]) == 0
    times, meshes = read_series(out / "cantilever_cable.pvd")
    assert len(times) == 1
    s = json.loads((out / "summary.json").read_text())
    assert meshes[0].point_data["displacement"][-1, 2] == pytest.approx(s["tip_z_m"], abs=1e-3)


def test_interrupted_run_leaves_partial_result_that_renders(tmp_path):
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "fem.cli", "run", "cantilever_cable",
                             "-p", "analysis=dynamic", "-p", "n_elements=4",
                             "-p", "t_end_s=100", "--out", str(out), "--no-render",
                             "--every", "10"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not list((out / "result").glob("chunk_*.npz")):
            time.sleep(0.2)
        time.sleep(0.5)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    res = fem.Result.load(out / "result")
    assert len(res.t) >= 200 and res.info["finished"] is False
    assert np.all(np.diff(res.t) > 0)
    times, meshes = read_series(out / "cantilever_cable.pvd")
    assert len(times) >= len(res.t) // 10      # frames are written as they come
    # every recorded step survives SIGKILL (per-record .part files), not only whole chunks
    assert times[-1] <= res.t[-1] + 1e-12      # the step of every written frame is there
    s = json.loads((out / "summary.json").read_text())
    assert s["status"] == "running" and s["parameters"]["t_end_s"] == 100
    assert main(["render", str(out)]) == 0
    assert list(out.glob("cantilever_cable.*"))


def test_exception_midway_keeps_streamed_result(tmp_path):
    model = fem.Model("drop", gravity=(0, 0, -9.81))
    _, nodes = fem.straight_cable(model, (0, 0, 0), (1, 0, 0), 2, fem.Material(2e11, 0.3, 7850),
                                  1e-4, 1e-9)
    model.fix(nodes[0])

    def boom(ga, st):
        if ga.t > 0.0305:
            raise RuntimeError("simulated crash")

    res = fem.io.output.stream(tmp_path, model)
    res.chunk = 10
    with pytest.raises(RuntimeError):
        fem.simulate(model, 1.0, 1e-3, result=res, on_step=boom)
    loaded = fem.Result.load(tmp_path / "result")
    # the step to t = 0.031 was computed and recorded before the callback failed
    assert len(loaded.t) == 32 and loaded.t[-1] == pytest.approx(0.031)


@pytest.mark.parametrize("argv,match", [
    (["run", "no_such_case"], "unknown case 'no_such_case'; available cases:.*cantilever_cable"),
    (["run", "cantilever_cable", "-p", "n_elements"], "malformed parameter 'n_elements'"),
    (["run", "cantilever_cable", "-p", "E=1"], "unknown parameter 'E'; this case takes: "
                                               "n_elements=8"),
    (["run", "cantilever_cable", "-p", "n_elements=many"], "is an integer"),
    (["run", "cantilever_cable", "-p", "gravity=maybe"], "is a bool"),
    (["render", "/nonexistent/dir"], "is not a folder; give the --out folder"),
])
def test_cli_errors_are_clear(argv, match, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    import re
    assert re.search(match, err), err


def test_fem_list_and_info(capsys):
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    for name in ("cantilever_cable", "double_pendulum", "vibrating_screen_1t2r"):
        assert name in listed
    assert main(["info", "double_pendulum"]) == 0
    import re
    # the parameter table: name, default, unit, allowed values, meaning
    assert re.search(r"^\s+joint\s+revolute\s+–\s+revolute, spherical\s+both joints",
                     capsys.readouterr().out, re.M)


def test_mesh_cell_type_the_element_cannot_take():
    mesh = fem.Mesh.from_arrays(np.array([[0, 0, 0], [1, 0, 0.0]]), lines=[[0, 1]])
    with pytest.raises(fem.ModelError, match="no 'triangle' cells|cannot make"):
        fem.Model().add_mesh(mesh, "bezier_plate_shared", fem.Material(1e9, 0.3, 1e3),
                             thickness=0.01)
    tri = fem.Mesh.from_arrays(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0.0]]),
                               triangles=[[0, 1, 2]])
    with pytest.raises(fem.ModelError, match="'line'"):
        fem.Model().add_mesh(tri, "ancf_cable", fem.Material(1e9, 0.3, 1e3), area=1e-4,
                             inertia=1e-9)


def test_cable_from_line_mesh():
    # a straight polyline mesh becomes a cable with shared nodes; the static tip deflection
    # under gravity is the same as the generator's (both: 4 elements, 2 m steel bar)
    pts = np.column_stack([np.linspace(0, 2, 5), np.zeros(5), np.zeros(5)])
    mesh = fem.Mesh.from_arrays(pts, lines=np.column_stack([np.arange(4), np.arange(1, 5)]))
    sec = fem.rectangle_section(0.02, 0.02)
    m = fem.Model(gravity=(0, 0, -9.81))
    g = m.add_mesh(mesh, "ancf_cable", fem.Material(2.1e11, 0.3, 7850), area=sec["area"],
                   inertia=sec["iy"])
    m.fix(g.mesh_vertex_node[0])
    st = fem.solve_static(m)
    import cantilever_cable
    ref = cantilever_cable.run(n_elements=4)["tip_z_m"]
    assert st.q[m.node_dofs(g.mesh_vertex_node[4])][2] == pytest.approx(ref, rel=1e-12)


def test_series_carry_element_fields(tmp_path):
    # plates: von Mises stress per drawn sub-triangle; cables: strains per element;
    # a radius field for ParaView's Tube filter on line elements
    out = tmp_path / "robot"
    assert main(["run", "parallel_robot_flexible_platform", "-p", "analysis=static",
                 "-p", "mesh=hexagon_6", "--out", str(out), "--no-render"]) == 0
    _, meshes = read_series(out / "rrru3_flexible.pvd")
    m = meshes[0]
    vm = np.concatenate([np.asarray(b, float) for b in m.cell_data["von_mises_top_Pa"]])
    assert np.isfinite(vm).sum() == 6 * 16 and np.nanmax(vm) > 0
    assert m.point_data["radius"].max() > 0
    out2 = tmp_path / "cable"
    assert main(["run", "cantilever_cable", "--out", str(out2), "--no-render"]) == 0
    _, meshes = read_series(out2 / "cantilever_cable.pvd")
    curv = np.concatenate([np.asarray(b, float) for b in meshes[0].cell_data["curvature"]])
    # curvature of a cantilever under self-weight at the first element's centre
    # (x = 0.125 m of 8 elements): M = q (L − x)²/2, κ = M/EI; cubic Hermite elements
    # reproduce the quadratic moment at element centres closely
    sec = fem.rectangle_section(0.02, 0.02)
    x = 0.125
    kappa = 7850 * sec["area"] * 9.81 * (2.0 - x) ** 2 / 2 / (2.1e11 * sec["iy"])
    assert curv[0] == pytest.approx(kappa, rel=0.01)


def test_the_command_ends_at_once_with_all_it_printed(capsys):
    """``fem`` ends its process without the interpreter's teardown (``fem.cli.entry``):
    what it printed must still all arrive, through a pipe, with the command's exit code.
    Reference: the same command run in this process by :func:`fem.cli.main`."""
    assert main(["info", "parallel_robot_flexible_platform"]) == 0
    expected = capsys.readouterr().out
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    for argv, code in ((["info", "parallel_robot_flexible_platform"], 0),
                       (["run", "no_such_case"], 2), ([], 2), (["--help"], 0)):
        proc = subprocess.run([sys.executable, "-m", "fem", *argv], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == code, (argv, proc.returncode, proc.stderr[-500:])
        if argv[:1] == ["info"]:
            assert proc.stdout == expected
        if code == 2:
            assert "error" in proc.stderr and "Traceback" not in proc.stderr
