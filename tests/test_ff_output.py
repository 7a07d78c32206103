"""Floating-frame cases (minimal coordinates, ``fem.model.chains``) write what every case writes.

``spinup_beam`` (a hub link) and ``two_link_arm_fall`` (a planar chain) run through the CLI
for a few steps; the series is read back with meshio (independent of our writer) and
checked against the run's own result arrays and figures:

* layout: ``<model>.pvd``, its frames in ``<model>/``, ``result/`` (``fem.Result.load``),
  ``summary.json``, ``figures.json``; stdout names the frame folder, not every frame;
* ``--every N``: frames at the recorded steps 0, N, 2N, … and the last one, at their times
  (``.pvd`` time steps and the ``TimeValue`` field data of each frame);
* point data ``displacement``, ``deformation``, ``link_deformation`` (n, 3): the drawn tip
  plus its displacement is the tip of the figures; on a hub link the deformation turned
  back into the hub frame is the tip deflection ``(tip_u_m, tip_v_m)`` of the figures;
* the hub torque (field data ``effort:hub drive [N·m]``) is the drive row's multiplier.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import meshio
import numpy as np
import pytest

import fem
from fem.cli import main


def _run(case: str, out: Path, every: int, *params: str, render: bool = False) -> int:
    argv = ["run", case, "--out", str(out), "--every", str(every)]
    argv += [] if render else ["--no-render"]
    for p in params:
        argv += ["-p", p]
    return main(argv)


def _series(out: Path, name: str) -> tuple[np.ndarray, list[Path]]:
    pvd = out / f"{name}.pvd"
    assert pvd.is_file(), sorted(p.name for p in out.iterdir())
    entries = list(ET.parse(pvd).getroot().iter("DataSet"))
    times = np.array([float(e.get("timestep")) for e in entries])
    files = [out / e.get("file") for e in entries]
    return times, files


def _check_layout(out: Path, name: str, every: int, printed: str):
    """The common checks; returns (result, recorded indices of the frames, meshes)."""
    assert (out / "summary.json").is_file() and (out / "figures.json").is_file()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "finished"
    res = fem.Result.load(out / "result")
    n = len(res.t)
    assert res.info["finished"] and res.q.shape[0] == n
    times, files = _series(out, name)
    assert not list(out.glob("*.vtu"))                            # none loose in out/
    assert all(f.parent == out / name and f.is_file() for f in files)
    assert len(list((out / name).glob("*.vtu"))) == len(files)
    steps = list(range(0, n, every)) + ([n - 1] if (n - 1) % every else [])
    assert len(files) == len(steps)
    np.testing.assert_allclose(times, res.t[steps], rtol=0, atol=1e-12)
    meshes = [meshio.read(f) for f in files]
    for t, m in zip(times, meshes, strict=True):
        k = len(m.points)
        for field in ("displacement", "deformation", "link_deformation", "velocity"):
            assert m.point_data[field].shape == (k, 3), field
        assert float(m.field_data["TimeValue"][0]) == t
    assert np.abs(meshes[0].point_data["displacement"]).max() == 0.0
    assert ".vtu" not in printed and f"{name}/ ({len(files)} files)" in printed
    return summary, res, steps, meshes


def test_spinup_beam_series_through_the_cli(tmp_path, capsys):
    out = tmp_path / "spin"
    assert _run("spinup_beam", out, 10, "t_end_s=0.5", "dt_s=0.01", "omega0_rad_s=10") == 0
    summary, res, steps, meshes = _check_layout(out, "spinup_beam_bezier", 10,
                                                capsys.readouterr().out)
    assert summary["kinematics"] == "fourth_order"          # the default (issue item 7)
    assert len(summary["tip_v_m"]) == len(res.t)
    n = 21                                                  # drawn points of the link
    for i, m in zip(steps, meshes, strict=True):
        th = res.q[i, 0]
        c, s = np.cos(th), np.sin(th)
        d = m.point_data["deformation"][n - 1]
        # the tip's deformation in the hub frame is the tip deflection of the figures
        assert c * d[0] + s * d[1] == pytest.approx(summary["tip_u_m"][i], abs=1e-12)
        assert -s * d[0] + c * d[1] == pytest.approx(summary["tip_v_m"][i], abs=1e-12)
        # a hub link: its own floating frame is the hub's, both fields agree
        np.testing.assert_allclose(m.point_data["link_deformation"], m.point_data["deformation"],
                                   atol=1e-12)
        assert m.field_data["effort:hub drive [N·m]"][0] == res.lam[i, 0]
        assert {"triangle", "line"} <= {c.type for c in m.cells}     # hub disc, link
    assert (out / "tip_deflection.png").is_file() and (out / "hub_torque.png").is_file()
    assert json.loads((out / "render.json").read_text())["camera"] == "xy"


def test_two_link_arm_series_through_the_cli(tmp_path, capsys):
    out = tmp_path / "arm"
    assert _run("two_link_arm_fall", out, 7, "t_end_s=0.3", "dt_s=0.01", "n_coordinates=4") == 0
    summary, res, steps, meshes = _check_layout(out, "two_link_arm_fall", 7,
                                                capsys.readouterr().out)
    n = 21
    for i, m in zip(steps, meshes, strict=True):
        x = m.points + m.point_data["displacement"]
        np.testing.assert_allclose(x[2 * n - 1, :2], summary["tip2_xy_m"][i], atol=1e-12)
        np.testing.assert_allclose(x[n - 1], x[n], atol=1e-12)    # the links are joined
        d, own = m.point_data["deformation"], m.point_data["link_deformation"]
        # link 1: its own floating frame is the rigid arm's; link 2's root follows link 1
        np.testing.assert_allclose(d[:n], own[:n], atol=1e-12)
        np.testing.assert_allclose(d[n], d[n - 1], atol=1e-12)
        assert np.all(np.isnan(m.point_data["link_deformation_m"][2 * n:]))   # the hub
    # each link's own deformation at its tip, transverse to its floating frame's x axis
    # (from root to tip of the undeformed link, current − link_deformation), is the tip
    # deflection of the figures
    for i, m in zip(steps, meshes, strict=True):
        x = m.points + m.point_data["displacement"]
        own = m.point_data["link_deformation"]
        for k, key in enumerate(("deflection1_m", "deflection2_m")):
            root, tip = k * n, (k + 1) * n - 1
            axis = (x[tip] - own[tip]) - (x[root] - own[root])
            axis /= np.linalg.norm(axis)
            across = own[tip] - (own[tip] @ axis) * axis
            assert np.linalg.norm(across) == pytest.approx(abs(summary[key][i]), abs=1e-12)
    for png in ("tip_deflections", "energies", "tip2"):
        assert (out / f"{png}.png").is_file()
    assert json.loads((out / "render.json").read_text())["camera"] == "xy"


def test_two_link_arm_pictures(tmp_path):
    """The animation and one snapshot: tubes coloured by the links' deformation (viridis
    colours, not only greys), also in the last frame of the animation (the colours follow
    the frames), the hub, a caption."""
    import imageio.v2 as imageio

    from fem.io import render
    from fem.io.pictures import picture_options
    from fem.io.vtk import read_series

    out = tmp_path / "arm"
    assert _run("two_link_arm_fall", out, 15, "t_end_s=0.9", "dt_s=0.01", "n_coordinates=4",
                render=True) == 0

    def coloured(img) -> int:
        """Pixels of viridis colours above its dark purple end (not grey, white, black)."""
        rgb = np.asarray(img, float)[..., :3]
        return int(((rgb.max(axis=2) - rgb.min(axis=2) > 40) & (rgb[..., 1] > 60)).sum())

    anim = next(out.glob("two_link_arm_fall.*[fg4]"))
    frames = [f for f in imageio.get_reader(anim)]   # list() asks len(): inf for ffmpeg
    assert len(frames) == 7
    times, meshes = read_series(out / "two_link_arm_fall.pvd")
    opts = picture_options(meshes)
    assert opts["scalars"] == "link_deformation_m" and opts["deform"] == "deformation"
    png = render.snapshot(meshes[-1], out / "last.png", camera="xy", window_size=(640, 480),
                          title=f"t = {times[-1]:.3f} s", **opts)
    img = imageio.imread(png)
    assert png.stat().st_size > 10_000 and np.var(np.asarray(img, float)) > 1.0
    # t = 0: no deformation, dark tubes: only the colour bar (about 5200 pixels) is coloured;
    # at the end the tubes are too (+1200 pixels; +40 when the animation kept the first
    # frame's colours)
    assert coloured(frames[-1]) > coloured(frames[0]) + 600
