"""What a run leaves for people: ParaView field data and pictures that read at a glance.

The series of a short run of the flagship robot (flexible hexagon_6 platform, a few
inverse-dynamics steps along the circle) is read back with meshio, as ParaView would get
it, and compared with the model and the result arrays; pictures are checked through their
pixels and through the plotter/figure objects that drew them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import fem
from fem.io import cameras, movies, options, output, pictures, plots, render
from fem.io.drawing import Drawing
from fem.io.vtk import Frame, read_series
from fem.robots import rrru3
from fem.robots.rrru3_model import build_robot, histories, run_path, static_state

# one test process runs this module: its module-scoped fixture runs once (pytest-xdist)
pytestmark = pytest.mark.xdist_group("pictures")


@pytest.fixture(scope="module")
def robot_run(tmp_path_factory):
    """A streamed 6-step run of the flagship robot: (robot model, result, histories, frames)."""
    out = tmp_path_factory.mktemp("robot")
    geom = rrru3.RRRU3Geometry().with_payload(6.0)
    path = rrru3.paper_circle_path(geom, closed=True)
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
    sketches = [f"{sk.name} (sketch)" for sk in rm.model.sketches]
    assert len(meshes) == len(res.t) == 7
    for m in meshes:
        names = {int(v[0]): k.removeprefix("group:") for k, v in m.field_data.items()
                 if k.startswith("group:")}
        assert names == dict(enumerate(groups + sketches + ["path of P (path)",
                                                            "supports (sketch)"]))
        ids = {b.type: np.asarray(v, int) for b, v in zip(m.cells, m.cell_data["group"],
                                                         strict=True)}
        # the static platform (a closed sketch of ground points) is filled
        assert {names[i] for i in ids["triangle"]} == {"platform", "static platform (sketch)"}
        assert {names[i] for i in ids["vertex"]} == {"supports (sketch)"}
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
        plate = m.cell_data["group"][tri] == 0
        for chi, layer in ((-1.0, "bottom"), (1.0, "top")):
            pts = np.column_stack([centres, np.full(len(centres), chi)])
            E = fam.strains(res.q[i][grp.dofs], pts)["E_global"]      # (n_el, n_sub, 3, 3)
            expected = E[..., i_voigt, j_voigt].reshape(-1, 6)
            got = m.cell_data[f"strain_{layer}"][tri][plate]
            assert got.shape == (grp.n_elements * len(conn), 6)
            assert np.allclose(got, expected, rtol=0, atol=1e-15)
            assert np.abs(got).max() > 1e-5                          # the platform is loaded
            line = [b.type for b in m.cells].index("line")
            assert np.isnan(m.cell_data[f"strain_{layer}"][line]).all()


def test_deformation_is_the_elastic_part(robot_run):
    _, _, _, _, meshes = robot_run
    m = meshes[-1]
    tri = np.unique(_platform_triangles(m))
    d, u = m.point_data["deformation"], m.point_data["displacement"]
    rigid = m.points + u - d                       # current shape minus its elastic part
    x0 = m.points[tri]
    dist0 = np.linalg.norm(x0[:, None] - x0[None], axis=2)
    dist = np.linalg.norm(rigid[tri][:, None] - rigid[tri][None], axis=2)
    assert np.allclose(dist, dist0, atol=1e-12)                  # a rigid motion
    assert 1e-4 < np.linalg.norm(d[tri], axis=1).max() < 1e-2   # mm-size sag, in m
    links = np.setdiff1d(np.unique(m.cells_dict["line"]), tri)
    assert np.array_equal(d[links], np.zeros_like(d[links]))      # rigid bars: none


def _platform_triangles(m) -> np.ndarray:
    """The plate's drawn triangles of a stored frame (group ``platform``)."""
    tri = [b.type for b in m.cells].index("triangle")
    platform = int(m.field_data["group:platform"][0])
    return m.cells[tri].data[m.cell_data["group"][tri] == platform]


def test_platform_is_one_connected_surface(robot_run):
    """Elements share the points of their common edges: no seams in ParaView.  Reference:
    the mesh topology — each element is drawn as n² sub-triangles (n = 4), so a connected
    surface has V + (n − 1) E + (n − 1)(n − 2)/2 T points and its boundary is the mesh
    boundary cut in n segments per edge."""
    rm, *_, meshes = robot_run
    mesh = fem.model.mesh_files.load_builtin_mesh("hexagon_6")
    n = 4
    expected = (len(mesh.vertices) + (n - 1) * len(mesh.edges)
                + (n - 1) * (n - 2) // 2 * len(mesh.triangles))
    assert expected == 61                                   # not 6 × 15 = 90
    for m in (meshes[0], meshes[-1]):
        tri = _platform_triangles(m)
        assert len(tri) == n * n * len(mesh.triangles)
        assert len(np.unique(tri)) == expected
        edges = np.sort(np.vstack([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]]), axis=1)
        _, count = np.unique(edges, axis=0, return_counts=True)
        assert count.max() == 2                             # manifold
        assert (count == 1).sum() == n * len(mesh.boundary_edges)   # no inner seams
    # shared points are one point: the drawn shape is the element's own at each of them
    drawing = Drawing(rm.model)
    assert drawing.n_points == len(meshes[0].points)


def test_prescribed_path_is_drawn(robot_run):
    """The circle of P is in every frame, on the ground: radius 0.1 m about
    P0 − (0.1, 0, 0) in the horizontal plane of P0 (Liu et al. 2023, §5.3), and P's
    positions along the run lie on it."""
    rm, res, h, _, meshes = robot_run
    centre = np.array(rrru3.RRRU3Geometry().start_point) - (0.1, 0.0, 0.0)
    for m in meshes:
        line = [b.type for b in m.cells].index("line")
        gid = int(m.field_data["group:path of P (path)"][0])
        seg = m.cells[line].data[m.cell_data["group"][line] == gid]
        pts = m.points[np.unique(seg)] + m.point_data["displacement"][np.unique(seg)]
        assert len(seg) == 120
        assert np.allclose(np.linalg.norm(pts[:, :2] - centre[:2], axis=1), 0.1, atol=1e-12)
        assert np.allclose(pts[:, 2], centre[2], atol=1e-12)
        assert np.array_equal(m.point_data["displacement"][np.unique(seg)], 0 * pts)
    P = np.array([rm.P(q) for q in res.q])
    assert np.allclose(np.linalg.norm(P[:, :2] - centre[:2], axis=1), 0.1, atol=1e-6)


def test_field_data_must_be_numbers():
    frame = Frame(0.0, np.eye(3), {"triangle": [[0, 1, 2]]}, field_data={"name": "text"})
    with pytest.raises(fem.ModelError, match="field data 'name'"):
        fem.io.vtk.to_meshio(frame)


# ---------------------------------------------------------------------- pictures
def test_magnification_makes_a_small_sag_visible(robot_run):
    *_, meshes = robot_run
    opts = pictures.picture_options(meshes)
    assert opts["scalars"] == "face_von_mises_top_Pa" and opts["deform"] == "deformation"
    assert opts["show_edges"] is False
    d_max = max(np.linalg.norm(m.point_data["deformation"], axis=1).max() for m in meshes)
    factor = opts["factor"]
    assert factor in (2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
    # the sag shows (> 5 mm) without bending the 0.2 m plate out of shape (< 10 % of it)
    assert 0.005 < factor * d_max <= 0.1 * 0.2 * np.sqrt(2)
    assert pictures.picture_options(meshes, {"magnification": 3})["factor"] == 3.0
    big = [m.copy() for m in meshes[-1:]]
    big[0].point_data["deformation"] = big[0].point_data["deformation"] * 1e3
    assert pictures.picture_options(big)["factor"] == 1.0           # visible already


def test_robot_picture_reads_at_a_glance(robot_run, tmp_path):
    from fem.cases import load_case

    *_, meshes = robot_run
    opts = pictures.picture_options(meshes)
    camera = load_case("parallel_robot_flexible_platform").PICTURE["camera"]
    plotter = render._composed(
        meshes[-1], camera=camera, scale=1.0, tube_radius=None, window_size=(480, 368),
        clim=None, cmap="viridis", title="t = 0.030 s",
        background="white", triad=True, **opts)
    try:
        # colour bar for the stress field, in MPa (labels without exponents), its title
        # kept clear of the top label; caption states time and magnification
        assert list(plotter.scalar_bars.keys()) == ["von Mises stress,\ntop face [MPa]"]
        bar = plotter.scalar_bars["von Mises stress,\ntop face [MPa]"]
        lo, hi = bar.GetLookupTable().GetRange()
        assert 0.1 < lo < hi < 100.0                               # MPa, not Pa
        assert bar.GetVerticalTitleSeparation() >= 368 // 40
        caption = plotter.actors["caption"].GetInput()
        assert caption.startswith("t = 0.030 s") and f"×{opts['factor']:g}" in caption
        # links are tubes (surfaces of revolution), the sketches thin lines, the path red,
        # the static platform a see-through surface, the motors' centres supports
        polys = {name: a for name, a in plotter.actors.items()}
        lines = [a.mapper.dataset for name, a in polys.items() if name.startswith("line")]
        assert any(p.GetNumberOfStrips() > 0 for p in lines)
        assert any(p.GetNumberOfStrips() == 0 and p.n_lines > 0 for p in lines)
        assert [a.mapper.dataset.n_lines for n, a in polys.items() if n.startswith("path")] \
            == [120]
        ground = [a for n, a in polys.items() if n.startswith("ground")]
        assert len(ground) == 1 and ground[0].prop.opacity < 1
        assert [a.mapper.dataset.n_verts for n, a in polys.items()
                if n.startswith("support")] == [3]
        # the camera: up is +z (gravity down the picture)
        assert np.allclose(plotter.camera.up, cameras.camera_axes(camera)[1])
        assert cameras.camera_axes(camera)[1] @ (0, 0, 1) > 0.5
        image = plotter.screenshot(return_img=True)
    finally:
        plotter.close()
    grey = image[..., :3].astype(float).mean(axis=2)
    assert grey.std() > 10                                        # not blank
    h, w = grey.shape
    assert (grey[: h // 10, : w // 2] < 100).any()                # caption drawn …
    assert (grey[:2] > 250).all() and (grey[:, :2] > 250).all()   # … and fully inside
    # the camera frames the robot: it fills the picture left of the colour bar
    rows, cols = np.nonzero(grey[h // 8:, int(0.2 * w): int(0.8 * w)] < 200)
    assert np.ptp(rows) > 0.6 * h and np.ptp(cols) > 0.45 * w
    bar = image[h // 4: 3 * h // 4, int(0.87 * w): int(0.9 * w), :3]
    assert len({tuple(px) for px in bar.reshape(-1, 3)}) > 20      # a colour gradient


def test_robot_movie_has_torque_panel_and_close_up(robot_run, tmp_path):
    """The movie of a robot: the 3D view, the platform close-up above the motors'
    torques (from the field data of the series, so equal to the run's torques) with a
    marker at each frame's time."""
    import imageio.v3 as iio

    rm, res, h, times, meshes = robot_run
    picture = Drawing(rm.model).picture
    assert picture["detail"]["groups"] == ["platform"]
    panel = pictures.effort_panel(times, meshes)
    assert panel.ylabel == "torque [N·m]" and list(panel.series) == ["motor 1", "motor 2",
                                                                      "motor 3"]
    assert np.array_equal(np.column_stack(list(panel.series.values())), h["torque"])
    size = (320, 240)
    path, n = movies.animate(meshes, tmp_path / "robot.mp4", window_size=size, times=times,
                             panel=panel, detail=picture["detail"], camera=picture["camera"],
                             **pictures.picture_options(meshes))
    frames = list(iio.imiter(path, plugin="FFMPEG"))
    assert n == len(frames) == len(meshes)
    column = panel.pixels(240)
    assert frames[0].shape[:2] == (240, 320 + column)          # a panel beside the 3D view
    first, last = (f[..., :3].astype(int) for f in (frames[0], frames[-1]))
    side = slice(320, 320 + column)
    inset = first[:112, side]                                  # the close-up (0.45 × 240)
    assert (np.abs(inset - [242, 242, 242]).sum(axis=2) > 60).mean() > 0.05   # drawn
    plot = first[112:, side]
    colours = plot.reshape(-1, 3)
    assert (np.ptp(colours, axis=1) > 80).mean() > 0.005      # coloured curves
    # the time marker moves: the panels of the first and last frames differ
    assert np.abs(first[112:, side] - last[112:, side]).max() > 100


def test_camera_as_data():
    d, up = cameras.camera_axes("xy")
    assert np.allclose(d, (0, 0, 1)) and np.allclose(up, (0, 1, 0))
    d, up = cameras.camera_axes({"view": "iso", "up": (0, 0, 1)})
    assert np.allclose(d, np.ones(3) / np.sqrt(3)) and abs(up @ d) < 1e-12 and up[2] > 0
    # gravity down the picture, whatever the view: a planar arm falling along −y, seen
    # along z, has +y up
    cam = cameras.camera_for("xy", (0.0, -9.81, 0.0))
    assert np.allclose(cameras.camera_axes(cam)[1], (0, 1, 0))
    cam = cameras.camera_for("xz", (0.0, 0.0, -9.81))
    assert np.allclose(cameras.camera_axes(cam)[1], (0, 0, 1))
    # a close-up from 25° above the horizontal
    low = cameras.low_camera({"view": "iso", "up": [0, 0, 1]}, 25.0)
    assert np.isclose(np.degrees(np.arcsin(cameras.camera_axes(low)[0][2])), 25.0)
    for bad, message in (({"view": "top"}, "unknown camera 'top'"),
                         ({"direction": (0, 0, 0)}, "must not be zero"),
                         ({"azimuth": 3}, "unknown keys"), (3, "a named view")):
        with pytest.raises(fem.ModelError, match=message):
            cameras.camera_axes(bad)


def test_floating_frame_cameras_have_gravity_down():
    """Planar chains are seen along their normal (z) with gravity (−y) down; the five-link
    arm, whose links 1–4 fall in the XZ plane, along y with z up."""
    from fem.cases import load_case
    from fem.io.centreline import CentrelineDrawing

    two = CentrelineDrawing(load_case("two_link_arm_fall").build()).picture["camera"]
    d, up = cameras.camera_axes(two)
    assert np.allclose(d, (0, 0, 1)) and np.allclose(up, (0, 1, 0))
    five = load_case("five_link_arm_fall").PICTURE["camera"]
    d, up = cameras.camera_axes(five)
    assert abs(d[1]) > 0.8 and up[2] > 0.9


def test_history_plot_reference_and_log_axis():
    t = np.linspace(0.0, 1.0, 11)
    flex = {"limb 1": np.sin(t), "limb 2": np.cos(t)}
    rigid = {"limb 1": np.sin(t) + 0.1, "limb 2": np.cos(t) + 0.1}
    fig = plots._history_figure(t, flex, "torque [N·m]", "", "time [s]", False, rigid,
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
    fig = plots._history_figure(t, {"residual [–]": r}, "residual", "", "time [s]", True,
                                 None, "rigid", (6.0, 3.0), 80)
    y = fig.axes[0].lines[0].get_ydata()
    assert np.isnan(y[[1, 3]]).all() and np.array_equal(y[[0, 2, 4]], r[[0, 2, 4]])
    assert fig.axes[0].get_yscale() == "log" and fig.axes[0].get_ylim()[0] > 1e-12
    # its labels in plain text (no TeX to parse): the decades, and between them a factor
    fig.canvas.draw()
    labels = [tk.get_text() for tk in fig.axes[0].get_yticklabels() if tk.get_text()]
    assert "10⁻⁶" in labels and not any("$" in s for s in labels)
    assert [plots._power_of_ten(v) for v in (1e-10, 2e-5, 2.5e-5, 1.0, 300.0, 0.0)] == \
        ["10⁻¹⁰", "2×10⁻⁵", "2.5×10⁻⁵", "10⁰", "3×10²", ""]
    with pytest.raises(fem.ModelError, match="no series"):
        plots._history_figure(t, flex, "", "", "", False, {"limb 9": t}, "rigid",
                               (6.0, 3.0), 80)


def test_clamped_cable_deformation_is_its_displacement():
    """A cantilever is held: its sag is not taken for a rigid rotation about the clamp."""
    from fem.cases import load_case

    model = load_case("cantilever_cable").build(n_elements=4)
    st = fem.solve_static(model)
    drawing = Drawing(model)
    frame = drawing.frame(0.0, st.q)
    u, d = frame.point_data["displacement"], frame.point_data["deformation"]
    assert np.abs(u[:, 2]).max() > 0.01                          # ~2 cm tip sag, in m
    assert np.array_equal(d, u)
    r = frame.point_data["radius"]
    assert np.allclose(r, np.sqrt(0.02**2 / np.pi))              # tube of the section's area


def _kirchhoff_face_von_mises(x, y, a, b, q, h, nu, terms=199):
    """Von Mises stress on a face of a simply supported a × b Kirchhoff plate under
    uniform pressure q at (x, y) from a corner: Navier's double series of the moments
    (Timoshenko & Woinowsky-Krieger 1959, ch. 5), σ = 6 M / h², plane stress."""
    m = np.arange(1, terms + 1, 2)[:, None]
    n = np.arange(1, terms + 1, 2)[None, :]
    am, bn = m * np.pi / a, n * np.pi / b
    amp = 16 * q / (np.pi**2 * m * n * (am**2 + bn**2) ** 2)    # w_mn D
    out = []
    for xi, yi in zip(np.ravel(x), np.ravel(y), strict=True):
        ss = np.sin(am * xi) * np.sin(bn * yi)
        cc = np.cos(am * xi) * np.cos(bn * yi)
        mx = np.sum(amp * (am**2 + nu * bn**2) * ss)
        my = np.sum(amp * (bn**2 + nu * am**2) * ss)
        mxy = -np.sum(amp * (1 - nu) * am * bn * cc)
        out.append(6 / h**2 * np.sqrt(mx**2 - mx * my + my**2 + 3 * mxy**2))
    return np.array(out)


def test_plate_face_stress_against_kirchhoff(tmp_path, monkeypatch):
    """The plate benchmark's picture field: the face von Mises stress follows Kirchhoff's
    (Navier series at the same points) — highest at the centre and at the corners (the
    twisting moment), vanishing at the edge midpoints.  The element's full 3D von Mises
    does not: there the transverse shear of the stabilized energy (shear factor 1/63)
    adds about 1 MPa, the whole centre value, along the supported edges."""
    from fem.cases import load_case

    monkeypatch.setattr(options.OPTIONS, "render", False)
    case = load_case("plate_benchmark")
    figures = case.run(out=tmp_path)
    _, (m,) = read_series(tmp_path / "plate_benchmark.pvd")
    tri = [b.type for b in m.cells].index("triangle")
    centres = m.points[m.cells[tri].data].mean(axis=1)
    face = m.cell_data["face_von_mises_top_Pa"][tri]
    full = m.cell_data["von_mises_top_Pa"][tri]
    p = case.PARAMS
    a, b, h = p["span_x_m"], p["span_y_m"], p["thickness_m"]
    ref = _kirchhoff_face_von_mises(centres[:, 0] + a / 2, centres[:, 1] + b / 2, a, b,
                                    figures["pressure_Pa"], h, p["nu"])
    peak = ref.max()
    assert 1.3e6 < peak < 1.7e6                                   # Pa: the corners' twist
    # 8 × 8 cubic elements, values at sub-triangle centres (the stress of a cubic varies
    # linearly in an element and jumps between elements): 4.1 % of the peak on average,
    # 2.2 % at the centre; the full 3D von Mises is 27 % off on average, 47 % along edges
    error = np.abs(face - ref) / peak
    assert error.mean() < 0.06
    assert (np.abs(full - ref) / peak).mean() > 4 * error.mean()
    centre = np.argmin(np.linalg.norm(centres[:, :2], axis=1))
    assert abs(face[centre] - ref[centre]) < 0.04 * ref[centre]
    edge = np.argmin(np.linalg.norm(centres[:, :2] - (a / 2, 0.0), axis=1))
    assert face[edge] < 0.25 * peak and ref[edge] < 0.25 * peak   # the edge midpoint: ~0
    assert full[edge] > 0.8 * peak                                # the artefact it avoids


def test_many_curves_are_told_apart_and_small_changes_read():
    t = np.linspace(0.0, 1.0, 11)
    # 12 curves on a 10-colour cycle: colour × line style, no two alike
    fig = plots._history_figure(t, {f"gauge {k}": t + k for k in range(12)}, "strain [µm/m]",
                                 "", "time [s]", False, None, "rigid", (6.0, 3.0), 80)
    assert len({(ln.get_color(), ln.get_linestyle()) for ln in fig.axes[0].lines}) == 12
    # grouped by the caller: colour by station, line style by side
    styles = {f"{d} mm, {side}": (i, style) for i, d in enumerate((200, 400, 600))
              for side, style in zip(("+y", "-y"), ("-", "--"), strict=True)}
    fig = plots._history_figure(t, {k: t for k in styles}, "", "", "", False, None, "rigid",
                                 (6.0, 3.0), 80, styles)
    lines = {ln.get_label(): ln for ln in fig.axes[0].lines}
    assert lines["200 mm, +y"].get_color() == lines["200 mm, -y"].get_color()
    assert lines["200 mm, +y"].get_color() != lines["400 mm, +y"].get_color()
    assert lines["400 mm, -y"].get_linestyle() == "--"
    # an energy conserved to 1e-8 J: its change is drawn and the label says from what,
    # instead of matplotlib's "1e−8−1.05224801e1" offset
    energy = -10.5224801 - 3e-8 * t**2
    fig = plots._history_figure(t, {"energy": energy}, "energy [J]", "", "time [s]", False,
                                 None, "rigid", (6.0, 3.0), 80)
    ax = fig.axes[0]
    fig.canvas.draw()
    assert ax.get_ylabel() == "energy + 10.5224801 [J]"
    assert np.allclose(ax.lines[0].get_ydata(), energy + 10.5224801, rtol=0, atol=1e-15)
    assert "1.05" not in ax.yaxis.get_offset_text().get_text()
    # a curve that varies: drawn as it is
    fig = plots._history_figure(t, {"x": 1 + t}, "x [m]", "", "", False, None, "rigid",
                                 (6.0, 3.0), 80)
    assert fig.axes[0].get_ylabel() == "x [m]"


def test_small_torques_read_in_newton_millimetres():
    """The movie's torque panel of a mechanism whose torques stay below 1 N·m (the
    vibrating screen: 40–66 N·mm) reads in N·mm, as its plots and page do."""
    import meshio

    def frame(tau):
        return meshio.Mesh(np.zeros((1, 3)), [],
                           field_data={"effort:crank drive R1 [N·m]": np.array([tau])})

    small = pictures.effort_panel([0.0, 1.0, 2.0], [frame(t) for t in (0.04, 0.05, 0.066)])
    assert small.ylabel == "torque [N·mm]"
    assert np.allclose(small.series["crank drive R1"], [40.0, 50.0, 66.0])
    large = pictures.effort_panel([0.0, 1.0], [frame(t) for t in (-12.0, 3.0)])
    assert large.ylabel == "torque [N·m]" and np.allclose(large.series["crank drive R1"],
                                                          [-12.0, 3.0])


def test_double_pendulum_plots_the_energy_change_in_plain_numbers(tmp_path):
    """A conserved energy varies in its 7th digit: the run plots E − E0 in µJ (plain tick
    labels), not the total with an offset; the total stays a figure."""
    from fem.cli import main

    out = tmp_path / "dp"
    assert main(["run", "double_pendulum", "-p", "t_end_s=0.05", "--no-render", "--out",
                 str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert "energy_change_uJ.png" in summary["files"] and "energy_J.png" not in summary["files"]
    assert "angles.png" in summary["files"]           # θ₁, θ₂ beside the ODE's
    E = np.array(summary["energy_J"])
    assert E[0] < 0 and np.ptp(E) < 1e-6 * abs(E[0])
    change = fem.Result.load(out / "result").sensors["energy_change_uJ"]
    assert np.allclose(1e6 * (E - E[0]), change - change[0], atol=1e-6)
