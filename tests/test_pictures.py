"""What a run leaves for people: ParaView field data and pictures that read at a glance.

The series of a short run of the flagship robot (flexible hexagon_6 platform, a few
inverse-dynamics steps along the circle) is read back with meshio, as ParaView would get
it, and compared with the model and the result arrays; pictures are checked through their
pixels and through the plotter/figure objects that drew them.
"""

from __future__ import annotations

import numpy as np
import pytest

import fem
from fem import output
from fem.io import render
from fem.io.vtk import Frame, read_series
from fem.robots import rrru3
from fem.robots.rrru3_model import build_robot, histories, run_path, static_state


@pytest.fixture(scope="module")
def robot_run(tmp_path_factory):
    """A streamed 6-step run of the flagship robot: (robot model, result, histories, frames)."""
    out = tmp_path_factory.mktemp("robot")
    geom = rrru3.RRRU3Geometry().with_payload(6.0)
    path = rrru3.seed_circle_path(geom, closed=True)
    rm = build_robot(geom, "flexible", "hexagon_6", 6.9e8, 0.3, "shared", path, "auto", 1e-5)
    st = static_state(rm)
    result = output.stream(out, rm.model, every=1)
    res = run_path(rm, 0.03, 0.005, 0.1, q0=st.q, tol=1e-8, result=result)
    res.writer.close()
    times, meshes = read_series(out / f"{rm.model.name}.pvd")
    return rm, res, histories(rm, res, path), times, meshes


# ---------------------------------------------------------------------- ParaView data
def test_group_names_in_every_frame(robot_run):
    rm, res, _, times, meshes = robot_run
    groups = [g.name for g in rm.model.groups]
    sketches = [f"{name} (sketch)" for name, _ in rm.model.sketches]
    assert len(meshes) == len(res.t) == 7
    for m in meshes:
        names = {int(v[0]): k.removeprefix("group:") for k, v in m.field_data.items()
                 if k.startswith("group:")}
        assert names == dict(enumerate(groups + sketches))
        ids = {b.type: np.asarray(v, int) for b, v in zip(m.cells, m.cell_data["group"],
                                                         strict=True)}
        assert {names[i] for i in ids["triangle"]} == {"platform"}
        line_names = {names[i] for i in ids["line"]}
        assert {f"limb {k} link{j}" for k in (1, 2, 3) for j in (1, 2, 3)} <= line_names
        assert {"static platform (sketch)", "U joints (sketch)"} <= line_names


def test_efforts_and_multipliers_per_frame(robot_run):
    rm, res, h, times, meshes = robot_run
    assert np.array_equal(times, res.t)
    for i, m in enumerate(meshes):
        fd = m.field_data
        assert fd["TimeValue"][0] == res.t[i]
        assert np.array_equal(fd["lambda"], res.lam[i])          # binary-exact round trip
        torques = [fd[f"effort:{a.name} [N·m]"][0] for a in rm.actuators]
        assert np.allclose(torques, h["torque"][i], rtol=0, atol=1e-12)
        assert np.all(np.abs(torques) > 1.0)                      # N·m: the motors work
        # the per-constraint arrays partition the multiplier vector in row order
        per = [v for k, v in fd.items() if k.startswith("lambda:")]
        assert np.array_equal(np.concatenate(per), res.lam[i])
        assert np.array_equal(fd["lambda:path of P"], res.lam[i][-3:])


def test_plate_strain_cells_match_the_element(robot_run):
    rm, res, _, _, meshes = robot_run
    grp = rm.plate_group
    fam = grp.family
    xi, conn = np.asarray(fam.draw_points()), np.asarray(fam.draw_triangles())
    centres = xi[conn].mean(axis=1)[:, :2]
    i_voigt, j_voigt = [0, 1, 2, 0, 1, 0], [0, 1, 2, 1, 2, 2]
    for i in (0, len(meshes) - 1):
        m = meshes[i]
        tri = [b.type for b in m.cells].index("triangle")
        for chi, layer in ((-1.0, "bottom"), (1.0, "top")):
            pts = np.column_stack([centres, np.full(len(centres), chi)])
            E = fam.strains(res.q[i][grp.dofs], pts)["E_global"]      # (n_el, n_sub, 3, 3)
            expected = E[..., i_voigt, j_voigt].reshape(-1, 6)
            got = m.cell_data[f"strain_{layer}"][tri]
            assert got.shape == (grp.n_elements * len(conn), 6)
            assert np.allclose(got, expected, rtol=0, atol=1e-15)
            assert np.abs(got).max() > 1e-5                          # the platform is loaded
            line = [b.type for b in m.cells].index("line")
            assert np.isnan(m.cell_data[f"strain_{layer}"][line]).all()


def test_deformation_is_the_elastic_part(robot_run):
    _, _, _, _, meshes = robot_run
    m = meshes[-1]
    tri = np.unique(m.cells_dict["triangle"])
    d, u = m.point_data["deformation"], m.point_data["displacement"]
    rigid = m.points + u - d                       # current shape minus its elastic part
    x0 = m.points[tri]
    dist0 = np.linalg.norm(x0[:, None] - x0[None], axis=2)
    dist = np.linalg.norm(rigid[tri][:, None] - rigid[tri][None], axis=2)
    assert np.allclose(dist, dist0, atol=1e-12)                  # a rigid motion
    assert 1e-4 < np.linalg.norm(d[tri], axis=1).max() < 1e-2   # mm-size sag, in m
    links = np.setdiff1d(np.unique(m.cells_dict["line"]), tri)
    assert np.array_equal(d[links], np.zeros_like(d[links]))      # rigid bars: none


def test_field_data_must_be_numbers():
    frame = Frame(0.0, np.eye(3), {"triangle": [[0, 1, 2]]}, field_data={"name": "text"})
    with pytest.raises(fem.ModelError, match="field data 'name'"):
        fem.io.vtk.to_meshio(frame)


# ---------------------------------------------------------------------- pictures
def test_magnification_makes_a_small_sag_visible(robot_run):
    *_, meshes = robot_run
    opts = output.picture_options(meshes)
    assert opts["scalars"] == "von_mises_top_Pa" and opts["deform"] == "deformation"
    assert opts["show_edges"] is False
    d_max = max(np.linalg.norm(m.point_data["deformation"], axis=1).max() for m in meshes)
    factor = opts["factor"]
    assert factor in (2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
    assert factor * d_max > 0.01                     # > 1 cm on a 1.5 m robot
    assert output.picture_options(meshes, {"magnification": 3})["factor"] == 3.0
    big = [m.copy() for m in meshes[-1:]]
    big[0].point_data["deformation"] = big[0].point_data["deformation"] * 1e3
    assert output.picture_options(big)["factor"] == 1.0           # visible already


def test_robot_picture_reads_at_a_glance(robot_run, tmp_path):
    *_, meshes = robot_run
    opts = output.picture_options(meshes)
    plotter = render._composed(
        meshes[-1], camera="iso", scale=1.0, tube_radius=None, window_size=(480, 368),
        clim=None, cmap="viridis", title="t = 0.030 s",
        background="white", triad=True, **opts)
    try:
        # colour bar for the stress field; caption states time and magnification
        assert list(plotter.scalar_bars.keys()) == ["von Mises top [Pa]"]
        caption = plotter.actors["caption"].GetInput()
        assert caption.startswith("t = 0.030 s") and f"×{opts['factor']:g}" in caption
        # links are tubes (surfaces of revolution), the sketches thin lines
        polys = [a.mapper.dataset for name, a in plotter.actors.items()
                 if name.startswith("line")]
        assert any(p.GetNumberOfStrips() > 0 for p in polys)
        assert any(p.GetNumberOfStrips() == 0 and p.n_lines > 0 for p in polys)
        image = plotter.screenshot(return_img=True)
    finally:
        plotter.close()
    grey = image[..., :3].astype(float).mean(axis=2)
    assert grey.std() > 10                                        # not blank
    h, w = grey.shape
    assert (grey[: h // 10, : w // 2] < 100).any()                # caption drawn …
    assert (grey[:2] > 250).all() and (grey[:, :2] > 250).all()   # … and fully inside
    # the camera frames the robot: it spans most of the picture left of the colour bar
    rows, cols = np.nonzero(grey[h // 8:, int(0.2 * w): int(0.8 * w)] < 200)
    assert np.ptp(rows) > 0.6 * h and np.ptp(cols) > 0.45 * w
    bar = image[h // 4: 3 * h // 4, int(0.87 * w): int(0.9 * w), :3]
    assert len({tuple(px) for px in bar.reshape(-1, 3)}) > 20      # a colour gradient


def test_history_plot_reference_and_log_axis():
    t = np.linspace(0.0, 1.0, 11)
    flex = {"limb 1": np.sin(t), "limb 2": np.cos(t)}
    rigid = {"limb 1": np.sin(t) + 0.1, "limb 2": np.cos(t) + 0.1}
    fig = render._history_figure(t, flex, "torque [N·m]", "", "time [s]", False, rigid,
                                 "rigid", (6.0, 3.0), 80)
    ax = fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.lines}
    for k in ("limb 1", "limb 2"):
        assert lines[k].get_color() == lines[f"{k} (rigid)"].get_color()
        assert (lines[k].get_linestyle(), lines[f"{k} (rigid)"].get_linestyle()) == ("-", "--")
    assert lines["limb 1"].get_color() != lines["limb 2"].get_color()
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1                 # outside the data
    # log axis: zeros and negatives are left out, never clipped to a tiny number
    r = np.array([1e-3, 0.0, 1e-6, -1.0, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3])
    fig = render._history_figure(t, {"residual [–]": r}, "residual", "", "time [s]", True,
                                 None, "rigid", (6.0, 3.0), 80)
    y = fig.axes[0].lines[0].get_ydata()
    assert np.isnan(y[[1, 3]]).all() and np.array_equal(y[[0, 2, 4]], r[[0, 2, 4]])
    assert fig.axes[0].get_yscale() == "log" and fig.axes[0].get_ylim()[0] > 1e-12
    with pytest.raises(fem.ModelError, match="no series"):
        render._history_figure(t, flex, "", "", "", False, {"limb 9": t}, "rigid",
                               (6.0, 3.0), 80)


def test_clamped_cable_deformation_is_its_displacement():
    """A cantilever is held: its sag is not taken for a rigid rotation about the clamp."""
    from fem.cases import load_case

    model = load_case("cantilever_cable").build(n_elements=4)
    st = fem.solve_static(model)
    drawing = output.Drawing(model)
    frame = drawing.frame(0.0, st.q)
    u, d = frame.point_data["displacement"], frame.point_data["deformation"]
    assert np.abs(u[:, 2]).max() > 0.01                          # ~2 cm tip sag, in m
    assert np.array_equal(d, u)
    r = frame.point_data["radius"]
    assert np.allclose(r, np.sqrt(0.02**2 / np.pi))              # tube of the section's area
