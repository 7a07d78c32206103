"""Reduced-order bodies (fem.bodies.ReducedBody, fem.reduction.reduce_body) against
closed forms, the full FE model they come from and finite differences."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import fem
from fem.core.errors import ModelError
from fem.model.builders import straight_beam
from fem.reduction import cached_reduction, reduce_body, rigid

E, RHO, R = 2.1e11, 7800.0, 0.01
A, I = np.pi * R**2, np.pi * R**4 / 4


def _beam(n=8, E_=E, gravity=(0.0, 0.0, 0.0)):
    m = fem.Model("beam", gravity=gravity)
    _, nodes = straight_beam(m, (0, 0, 0), (1.0, 0, 0), n, fem.Material(E_, 0.3, RHO),
                             section="circle", radius=R)
    return m, nodes


def test_free_beam_keeps_its_free_free_frequencies():
    """Free–free modes of a 16-element ANCF beam, reduced to 8 and put in a floating
    frame: the body's linearized frequencies are the FE model's (1e-6), the first the
    Euler–Bernoulli β²√(EI/ρAL⁴) within 0.2 % (measured 0.09 %)."""
    m, _ = _beam(16)
    full = fem.modes(m, n_modes=14).frequencies_hz[6:]
    red = reduce_body(m, n_modes=8, method="free")
    mb = fem.Model("reduced", gravity=(0, 0, 0))
    mb.add_reduced_body("beam", red)
    body = fem.modes(mb, n_modes=14).frequencies_hz
    assert np.allclose(body[:6], 0.0, atol=1e-3)
    assert np.allclose(body[6:], full, rtol=1e-6)
    eb = np.array([4.7300407, 7.8532046, 10.9956078]) ** 2 * np.sqrt(E * I / (RHO * A)) / (
        2 * np.pi)
    assert abs(body[6] / eb[0] - 1.0) <= 2e-3          # the mesh's own error above it


def _clamped(red, m, nodes, mb):
    b = mb.add_reduced_body("beam", red)
    mb.add_constraint(fem.Coincident(b.map(m.point(nodes[0])), mb.ground((0, 0, 0)), "clamp"))
    ry, rz = (b.map(m.node_field(nodes[0], f)) for f in ("r_y", "r_z"))
    mb.add_constraint(fem.Dot(ry, mb.ground((1, 0, 0)), 0.0, "clamp y ⊥ x"))
    mb.add_constraint(fem.Dot(rz, mb.ground((1, 0, 0)), 0.0, "clamp z ⊥ x"))
    mb.add_constraint(fem.Dot(rz, mb.ground((0, 1, 0)), 0.0, "clamp z ⊥ y"))
    return b


def _full_static_tip(F):
    """The clamped FE rod's tip under the tip force ``F``, statically."""
    m, nodes = _beam()
    m.fix(nodes[0])
    m.add_force(m.point(nodes[-1]), F)
    return m.point(nodes[-1])(fem.solve_static(m).q)


def _reduced_static_tip(F, tip_interface: bool, **reduction):
    """The same rod reduced (root a rigid interface; with ``tip_interface`` the tip a
    point interface), clamped, under ``F`` at its tip: ``(static result, tip map)``."""
    m, nodes = _beam()
    interfaces = {"root": rigid([nodes[0]])}
    if tip_interface:
        interfaces["tip"] = m.point(nodes[-1])
    red = reduce_body(m, interfaces, **reduction)
    mb = fem.Model("reduced", gravity=(0, 0, 0))
    b = _clamped(red, m, nodes, mb)
    tip = b.interface("tip") if tip_interface else b.map(m.point(nodes[-1]))
    mb.add_force(tip, F)
    return fem.solve_static(mb), tip


@pytest.mark.parametrize("n_modes", [0, 4])
def test_reduced_cantilever_keeps_the_full_static_deflection(n_modes):
    """Craig–Bampton (root a rigid interface, the tip a point interface): a tip load gives
    the full nonlinear model's transverse tip deflection to 1e-4 (measured 2e-5: the
    full model's own geometric nonlinearity) — the static mode of the tip is exact."""
    F = np.array([0.0, 0.0, -20.0])
    full = _full_static_tip(F)
    static, tip = _reduced_static_tip(F, True, n_modes=n_modes)
    tip = tip(static.q)
    assert abs(tip[2] - full[2]) <= 1e-4 * abs(full[2])
    assert abs(full[2] + 20.0 / (3 * E * I)) <= 0.01 * abs(full[2])     # and Euler–Bernoulli


def _fd(fun, x, dofs, h=1e-6):
    cols = []
    for d in dofs:
        e = np.zeros_like(x)
        e[d] = h
        cols.append((fun(x + e) - fun(x - e)) / (2 * h))
    return np.column_stack(cols)


def test_inertia_forces_and_point_maps_have_exact_tangents():
    m, nodes = _beam()
    red = reduce_body(m, {"root": rigid([nodes[0]]), "tip": m.point(nodes[-1])}, n_modes=4,
                      loads="gravity")
    mb = fem.Model("reduced", gravity=(0, 0, -9.81))
    b = mb.add_reduced_body("beam", red)
    mb.add_force(b.interface("tip"), (1.0, 2.0, -3.0))
    rng = np.random.default_rng(0)
    q = mb.q0 + 0.1 * rng.standard_normal(mb.n_dof)
    v, a = rng.standard_normal(mb.n_dof), rng.standard_normal(mb.n_dof)
    f, (M, Kq, Cq) = b.inertia(q, v, a, True)
    assert np.allclose(f, M @ a[b.dofs] + b.inertia(q, v, 0 * a)[0], atol=1e-9)
    for T, fun, x in ((M, lambda x: b.inertia(q, v, x)[0], a),
                      (Kq, lambda x: b.inertia(x, v, a)[0], q),
                      (Cq, lambda x: b.inertia(q, x, a)[0], v)):
        assert np.abs(T - _fd(fun, x, b.dofs)).max() <= 1e-7 * np.abs(T).max()
    _, Kf = b.forces(q, mb.gravity, True)
    Kn = _fd(lambda x: b.forces(x, mb.gravity)[0], q, b.dofs)
    assert np.abs(Kf - Kn).max() <= 1e-7 * np.abs(Kf).max()
    pm = b.interface("tip")
    _, J, H = pm.evaluate(q, True)
    assert np.abs(J - _fd(lambda x: pm(x), q, b.dofs)).max() <= 1e-8
    Hn = np.stack([_fd(lambda x, i=i: pm.jacobian(x)[i], q, b.dofs) for i in range(3)])
    assert np.abs(H - Hn).max() <= 1e-7
    # weight and load are the gradient of the potential
    dV = _fd(lambda x: b.energy(x, v, mb.gravity)["potential_J"]
             + b.energy(x, v, mb.gravity)["elastic_J"], q, b.dofs)
    fq = b.forces(q, mb.gravity)[0]
    assert np.abs(fq - dV.ravel()).max() <= 1e-9 * np.abs(fq).max()


def test_free_flight_conserves_energy_and_starts_where_the_fe_model_is():
    """A soft free beam thrown spinning with its modes excited (ρ∞ = 1): the total
    energy stays within 1e-6 (measured 9e-9 at h = 1e-4 s); the reduced body's points
    in the reference state are the FE model's."""
    m, nodes = _beam(8, E_=2.1e9)
    red = reduce_body(m, n_modes=6, method="free")
    mb = fem.Model("reduced", gravity=(0, 0, 0))
    b = mb.add_reduced_body("beam", red)
    assert np.abs(b.fe_coordinates(mb.q0) - m.q0).max() <= 1e-12
    assert np.allclose(b.map(m.point(nodes[-1]))(mb.q0), (1.0, 0.0, 0.0))
    v0 = np.zeros(mb.n_dof)
    w = np.array([0.3, 0.5, 5.0])
    Rm = b.rotation(mb.q0)
    for i, d in enumerate(b.frame_dofs[3:].reshape(3, 3)):
        v0[d] = np.cross(w, Rm[:, i])
    v0[b.modal_dofs] = 0.2
    res = fem.simulate(mb, 0.3, 5e-4, rho_inf=1.0, v0=v0, tol=1e-12)
    asm = mb.assemble()
    E_tot = np.array([asm.energy(q, v)["total_J"] for q, v in zip(res.q, res.v, strict=True)])
    assert np.ptp(E_tot) <= 1e-6 * E_tot[0]


def test_reduction_saves_loads_and_is_cached(tmp_path, monkeypatch):
    m, nodes = _beam()
    red = reduce_body(m, {"root": rigid([nodes[0]]), "tip": m.point(nodes[-1])}, n_modes=3)
    back = fem.bodies.Reduction.load(red.save(tmp_path / "beam.npz"))
    for k in ("c", "Q", "modes", "W", "K", "C", "f0", "slot_dofs"):
        assert np.array_equal(getattr(back, k), getattr(red, k))
    assert back.interfaces.keys() == red.interfaces.keys()
    (tmp_path / "bad.npz").write_bytes(b"not a file")
    with pytest.raises(ModelError, match="cannot read"):
        fem.bodies.Reduction.load(tmp_path / "bad.npz")
    monkeypatch.setenv("FEM_CACHE_DIR", str(tmp_path / "cache"))
    inter = {"root": rigid([nodes[0]]), "tip": m.point(nodes[-1])}
    first = cached_reduction(m, inter, n_modes=3)
    again = cached_reduction(m, inter, n_modes=3)
    assert not first.info["cached"] and again.info["cached"]
    assert np.array_equal(first.W, again.W)
    assert len(list((tmp_path / "cache" / "reductions").glob("*.npz"))) == 1


def test_bad_input_is_named():
    m, nodes = _beam()
    with pytest.raises(ModelError, match="interfaces"):
        reduce_body(m, n_modes=2)                          # Craig–Bampton without interfaces
    with pytest.raises(ModelError, match="rigid motion"):
        reduce_body(m, {"tip": m.point(nodes[-1])}, n_modes=2)    # the tip alone
    red = reduce_body(m, n_modes=2, method="free")
    mb = fem.Model("reduced")
    b = mb.add_reduced_body("beam", red)
    with pytest.raises(ModelError, match="no interface"):
        b.interface("nowhere")
    with pytest.raises(ModelError, match="mixes"):
        b.map(m.point(nodes[0]).crossed((0.0, 0.0, 1.0)))
    with pytest.raises(ModelError, match="Reduction"):
        mb.add_reduced_body("other", "not a reduction")


# ------------------------------------------------------------------ the flagship platform
def _case(name: str, module: str):
    path = Path(__file__).resolve().parents[1] / "cases" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(module, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _flagship():
    return _case("parallel_robot_flexible_platform", "flagship_reduced")


def test_reduced_platform_holds_the_full_static_state(tmp_path, monkeypatch):
    """Reduced about the robot's static hold, the platform keeps that state exactly: the
    static sag, torques and centre strains of the full Bézier plate (hexagon_6)."""
    monkeypatch.setenv("FEM_CACHE_DIR", str(tmp_path))
    c = _flagship()
    full = c.run(None, analysis="static", mesh="hexagon_6")
    red = c.run(None, analysis="static", platform="reduced", mesh="hexagon_6")
    assert abs(red["static_sag_mm"] - full["static_sag_mm"]) <= 1e-6 * full["static_sag_mm"]
    assert np.allclose(red["static_torque_Nm"], full["static_torque_Nm"], rtol=1e-7)
    for layer in ("bottom", "top"):
        for comp in ("e11", "e22"):
            a = red["centre_strain_bottom_middle_top"][layer][comp]
            b = full["centre_strain_bottom_middle_top"][layer][comp]
            assert abs(a - b) <= 1e-6 * 2e-3


def test_reduced_platform_in_the_closed_loop_keeps_the_robots_frequencies(tmp_path,
                                                                          monkeypatch):
    """The robot with its motors holding (``drive="joints"``), linearized about its static
    hold: the reduced platform in the closed loop has the full model's lowest frequencies
    (the soft default plate, E = 6.9e8 Pa: 1.81, 2.10, 11.6, 24.3 Hz) to 1e-4 (measured
    2.8e-5 at 24.3 Hz with the default basis, its 2 normal modes; 1e-5 with 12)."""
    from fem.robots import rrru3
    from fem.robots.rrru3_model import build_robot, static_state

    monkeypatch.setenv("FEM_CACHE_DIR", str(tmp_path))
    geom = rrru3.RRRU3Geometry()
    f = {}
    for platform in ("flexible", "reduced"):
        rm = build_robot(geom, platform, "hexagon_6", 6.9e8, 0.3, "shared", None, "auto",
                         1e-5, drive="joints")
        st = static_state(rm)
        f[platform] = fem.modes(rm.model, st.q, st.lam, n_modes=4).frequencies_hz
    assert 1.7 < f["flexible"][0] < 1.9
    assert np.allclose(f["reduced"], f["flexible"], rtol=1e-4)


def test_reduced_stiff_platform_gives_the_full_torques_on_the_circle(tmp_path, monkeypatch):
    """Where the plate stays linear (E = 7e10 Pa, the seed's aluminium sweep point: 0.02 mm
    sag), the reduced platform reproduces the full plate's circle: torques to 1e-4 of
    their range over the first 0.2 s (measured 2.8e-5 over 0.3 s)."""
    from fem.robots import rrru3
    from fem.robots.rrru3_model import build_robot, histories, run_path, static_state

    monkeypatch.setenv("FEM_CACHE_DIR", str(tmp_path))
    geom = rrru3.RRRU3Geometry()
    path = rrru3.paper_circle_path(geom)
    h = {}
    for platform in ("flexible", "reduced"):
        rm = build_robot(geom, platform, "hexagon_6", 7e10, 0.3, "shared", path, "auto", 1e-5)
        res = run_path(rm, 0.2, 5e-3, 0.1, q0=static_state(rm).q)
        h[platform] = histories(rm, res, path)
    tau_f, tau_r = h["flexible"]["torque"], h["reduced"]["torque"]
    assert np.ptp(tau_f) > 1.0
    assert np.abs(tau_r - tau_f).max() <= 1e-4 * np.ptp(tau_f)


def test_joint_drive_of_the_rigid_robot_is_its_path_drive():
    """A rigid robot whose motors follow the rigid inverse kinematics of the circle
    (``drive="joints"``) puts P on the circle and needs the torques of the path-driven
    inverse dynamics: two formulations, one answer (1e-9 m, 1e-7 of the torque range)."""
    from fem.robots import rrru3
    from fem.robots.rrru3_model import build_robot, histories, run_path

    geom = rrru3.RRRU3Geometry()
    path = rrru3.paper_circle_path(geom)
    h = {}
    for drive in ("path", "joints"):
        rm = build_robot(geom, "rigid", path=path, drive=drive)
        h[drive] = histories(rm, run_path(rm, 0.4, 0.01), path)
    assert h["joints"]["path_error"].max() < 1e-9
    tau = h["path"]["torque"]
    assert np.abs(h["joints"]["torque"] - tau).max() <= 1e-7 * np.ptp(tau)
    with pytest.raises(ModelError, match="drive"):
        build_robot(geom, "rigid", drive="motors")


def test_cubic_modal_force_is_the_fe_force_projected(tmp_path):
    """``nonlinear=True``: the reduced body's elastic force ``f0 + Kη + ½K2:ηη + ⅓K3:ηηη``
    is the ANCF beam's own force ``Ψᵀ f_FE(x + Ψη)`` (a cubic polynomial: Green–Lagrange
    strains), and its tangent is exact, at deflections from 1e-6 to 1e-2 of the modes
    (measured 2e-12); the tensors survive a save and load."""
    m, nodes = _beam()
    red = reduce_body(m, {"root": rigid([nodes[0]]), "tip": m.point(nodes[-1])}, n_modes=4,
                      derivatives=2, nonlinear=True)
    assert red.info["n_derivatives"] == 3 and red.K3.shape == (red.n_modes,) * 4
    red = type(red).load(red.save(tmp_path / "beam.npz"))
    mb = fem.Model("reduced", gravity=(0, 0, 0))
    poly = mb.add_reduced_body("beam", red)
    fe = fem.Model("reduced", gravity=(0, 0, 0)).add_reduced_body("beam", red)
    fe.use_fe_forces(m)
    rng = np.random.default_rng(1)
    for amp in (1e-6, 1e-4, 1e-2):
        eta = amp * rng.standard_normal(red.n_modes)
        f1, K1 = poly._elastic(eta, True)
        f2, K2 = fe._elastic(eta, True)
        assert np.abs(f1 - f2).max() <= 1e-9 * np.abs(f2).max()
        assert np.abs(K1 - K2).max() <= 1e-9 * np.abs(K2).max()
    eta = 1e-3 * rng.standard_normal(red.n_modes)
    Kn = _fd(lambda x: poly._elastic(x, False)[0], eta, range(red.n_modes), h=1e-7)
    assert np.abs(poly._elastic(eta, True)[1] - Kn).max() <= 1e-7 * np.abs(Kn).max()
    with pytest.raises(ModelError, match="derivatives"):
        reduce_body(m, n_modes=4, method="free", derivatives=2)


def test_nonlinear_reduced_platform_follows_the_full_plate_on_the_circle(tmp_path,
                                                                         monkeypatch):
    """The plate at E = 6.9e9 Pa (0.2 mm sag; the full model converged in the step: 0.14 %
    from h to h/2 over the circle): its membrane stiffening moves W by up to 16 µm, which
    the linear reduction misses.  With modal derivatives and the cubic modal force the
    reduced platform gives the full plate's torques to 1e-4 of their range and its sag to
    0.2 µm over the first 0.6 s of the circle (measured 1.6e-5 and 0.03 µm; the linear
    reduction 9.7e-5 and 2.8 µm; the plate's damping as the full plate applies it)."""
    from fem.robots import rrru3
    from fem.robots.rrru3_model import build_robot, histories, run_path, static_state

    monkeypatch.setenv("FEM_CACHE_DIR", str(tmp_path))
    geom = rrru3.RRRU3Geometry()
    path = rrru3.paper_circle_path(geom)
    h = {}
    for platform, reduction in (("flexible", "linear"), ("reduced", "linear"),
                                ("reduced", "nonlinear")):
        rm = build_robot(geom, platform, "hexagon_6", 6.9e9, 0.3, "shared", path, "auto",
                         1e-5, reduction=reduction)
        res = run_path(rm, 0.6, 5e-3, 0.1, q0=static_state(rm).q)
        h[platform, reduction] = histories(rm, res, path)
    full = h["flexible", "linear"]
    rng = np.ptp(full["torque"])
    lin, nl = h["reduced", "linear"], h["reduced", "nonlinear"]
    assert np.abs(nl["torque"] - full["torque"]).max() <= 1e-4 * rng
    assert np.abs(nl["sag"] - full["sag"]).max() <= 0.2e-6
    assert np.abs(lin["sag"] - full["sag"]).max() >= 1e-6      # what the linear one misses


def _circle(mesh, t_end, runs, E=6.9e8):
    """The case's circle (h = 5 ms unless given, ρ∞ = 0.1, β = 1e-5 s, the plate's shear
    remedy) for ``runs`` = ``[(platform, reduction, n_modes, h)]`` (``n_modes`` None:
    the default basis; a fifth item: more options of ``build_robot``): their
    histories."""
    from fem.robots import rrru3
    from fem.robots.rrru3_model import build_robot, histories, run_path, static_state

    geom = rrru3.RRRU3Geometry()
    path = rrru3.paper_circle_path(geom)
    out = []
    for platform, reduction, n_modes, h, *more in runs:
        kw = {**({} if n_modes is None else {"n_modes": n_modes}), **(more[0] if more else {})}
        rm = build_robot(geom, platform, mesh, E, 0.3, "shared", path, "auto", 1e-5,
                         reduction=reduction, **kw)
        out.append(histories(rm, run_path(rm, t_end, h, 0.1, q0=static_state(rm).q), path))
    return out


def test_nonlinear_reduced_platform_at_the_papers_modulus_follows_the_full_plate(
        tmp_path, monkeypatch):
    """The paper's soft plate (E = 6.9e8 Pa, 2 mm sag), hexagon_6, the first 0.3 s of the
    circle: the nonlinear reduction (the default basis) gives the full plate's torques to
    1 % of their range and its sag to 10 µm (measured 5.6e-4 and 2.4 µm); the linear one
    (12 modes) loses the sag by over 50 µm (measured 160 µm: the membrane stiffening).
    The whole circle: the slow tests below."""
    monkeypatch.setenv("FEM_CACHE_DIR", str(tmp_path))
    full, nl, lin = _circle("hexagon_6", 0.3, [("flexible", "nonlinear", 12, 5e-3),
                                               ("reduced", "nonlinear", None, 5e-3),
                                               ("reduced", "linear", 12, 5e-3,
                                                {"n_enrich": 0})])
    rng = np.ptp(full["torque"])
    assert rng > 1.0
    assert np.abs(nl["torque"] - full["torque"]).max() <= 1e-2 * rng
    assert np.abs(nl["sag"] - full["sag"]).max() <= 10e-6
    assert np.abs(lin["sag"] - full["sag"]).max() >= 50e-6


@pytest.mark.slow
@pytest.mark.parametrize("mesh", ["hexagon_24", "hexagon_96"])
def test_reduced_platform_on_the_whole_circle_at_the_papers_modulus(mesh, tmp_path,
                                                                    monkeypatch):
    """Issue 19 item 4, E = 6.9e8 Pa, the whole 1.6 s circle: the reduced platform's
    default basis (2 normal modes, derivatives of 4, 16 vectors of every pair's quadratic
    response, the quartic potential compressed to 3e-4: 44 modal coordinates; the FE
    model's damping at the current pose) gives the full plate's torques within 1 % of
    their range, its sag range within 2 % and its centre strains within 5 % (measured
    with ``tests/benchmarks/reduced_accuracy.py``: hexagon_24 0.22 %, 0.92 %, 2.9 %;
    hexagon_96 0.66 %, 0.19 %, 2.1 %).  The full plate is converged in the step (h = 4
    against 5 ms: torques within 1 % of their range, sag range 1e-3, strains 1e-2)."""
    monkeypatch.setenv("FEM_CACHE_DIR", str(tmp_path))
    full, full4, red = _circle(mesh, 1.6, [
        ("flexible", "nonlinear", 12, 5e-3), ("flexible", "nonlinear", 12, 4e-3),
        ("reduced", "nonlinear", None, 5e-3)])
    rng = np.ptp(full["torque"])
    t = full["time"]

    def on(h, key):
        y = h[key].reshape(len(h["time"]), -1)
        return np.column_stack([np.interp(t, h["time"], y[:, j])
                                for j in range(y.shape[1])]).reshape(full[key].shape)

    def sag_range(h):
        return max(abs(h["sag"].min() - full["sag"].min()),
                   abs(h["sag"].max() - full["sag"].max())) / full["sag"].mean()

    def strains(h):
        e, ef = on(h, "centre_strain"), full["centre_strain"]
        return max(np.abs(e[:, i, j] - ef[:, i, j]).max() / np.abs(ef[:, i, j]).max()
                   for i in (0, 2) for j in (0, 1))           # bottom, top: e11, e22

    assert np.abs(on(full4, "torque") - full["torque"]).max() <= 1e-2 * rng
    assert sag_range(full4) <= 1e-3 and strains(full4) <= 1e-2
    assert np.abs(red["torque"] - full["torque"]).max() <= 1e-2 * rng
    assert sag_range(red) <= 2e-2 and strains(red) <= 5e-2


def test_reduced_platform_is_drawn_on_the_full_mesh_with_its_stresses(tmp_path, monkeypatch):
    """A body that declares its FE model is written to ParaView as that model: the
    reduced platform at the robot's static hold carries the full plate's von Mises
    stresses and layer strains on the same sub-triangles (1e-9 of the largest), and its
    ``displacement`` and ``deformation`` point data."""
    from fem.io.fe_bodies import BodyMeshes
    from fem.io.output import drawing_for
    from fem.robots import rrru3
    from fem.robots.rrru3_model import build_robot, static_state

    monkeypatch.setenv("FEM_CACHE_DIR", str(tmp_path))
    geom = rrru3.RRRU3Geometry()
    frames = {}
    for platform in ("flexible", "reduced"):
        rm = build_robot(geom, platform, "hexagon_6", shear_factor="auto", damping_beta=1e-5)
        st = static_state(rm)
        d = drawing_for(rm.model)
        assert isinstance(d, BodyMeshes) == (platform == "reduced")
        frames[platform] = d.frame(0.0, st.q, np.zeros_like(st.q), st.lam)
    full, red = frames["flexible"], frames["reduced"]
    assert {"displacement", "deformation", "velocity"} <= set(red.point_data)
    for key in ("von_mises_top_Pa", "von_mises_bottom_Pa", "strain_top", "strain_bottom"):
        a, b = np.asarray(red.cell_data[key]), np.asarray(full.cell_data[key])
        a, b = a[~np.isnan(a).any(axis=-1) if a.ndim > 1 else ~np.isnan(a)], \
            b[~np.isnan(b).any(axis=-1) if b.ndim > 1 else ~np.isnan(b)]
        assert a.shape == b.shape and a.size > 0
        assert np.abs(a - b).max() <= 1e-9 * np.abs(b).max(), key
    # the plate's sag is in the displacement of its drawn points, as for the full plate
    assert np.asarray(red.point_data["displacement"])[:, 2].min() < -1e-3


# ------------------------------------------------------------------ fast paths (issue 19)
def test_block_inertia_and_batched_rows_equal_their_reference_forms():
    """The inertia tangents by blocks (``ReducedBody.inertia``, compiled, and
    ``inertia_blocks``, NumPy; ``mass``) against the
    dense ``Lᵀ W L`` products of ``inertia_numpy``, and the batched general rows against
    the per-term loop (``GeneralRows(batched=False)``): the same numbers to round-off
    (1e-13 of each array's largest entry; measured 1e-16)."""
    from fem.constraints.general import GeneralRows

    m, nodes = _beam()
    red = reduce_body(m, {"root": rigid([nodes[0]]), "tip": m.point(nodes[-1])}, n_modes=5,
                      loads="gravity")
    mb = fem.Model("reduced", gravity=(0, 0, -9.81))
    b = _clamped(red, m, nodes, mb)
    tip, mid = b.interface("tip"), b.map(m.point(nodes[4]))
    mb.add_constraint(fem.Distance(tip - mid, mb.ground((0, 0, 0)), 0.5, "tip–middle"))
    rng = np.random.default_rng(3)
    q = mb.q0 + 0.1 * rng.standard_normal(mb.n_dof)
    v, a = rng.standard_normal(mb.n_dof), rng.standard_normal(mb.n_dof)
    f_ref, T_ref = b.inertia_numpy(q, v, a, True)
    close = lambda x, y: np.abs(x - y).max() <= 1e-13 * np.abs(y).max()
    # the compiled kernel (when numba is on) and the NumPy blocks it falls back to
    for f, T in (b.inertia(q, v, a, True), b.inertia_blocks(q, v, a, True)):
        assert close(f, f_ref) and all(close(x, y) for x, y in zip(T, T_ref, strict=True))
    assert close(b.mass(q), T_ref[0])
    gr = mb.assemble()._general
    assert gr._batched is not None
    ref = GeneralRows([(r, gr.maps[ia], None if ib < 0 else gr.maps[ib], beta)
                       for r, ia, ib, _ca, _cb, _k, beta in gr.terms], gr.n_con,
                      batched=False)
    lam = rng.standard_normal(gr.n_con)
    keep = (rng.random(gr.n_con) > 0.3).astype(float)
    for qq in (q, q + 0.01 * rng.standard_normal(mb.n_dof)):
        (p1, j1), (p2, j2) = gr.state(qq, 0.2), ref.state(qq, 0.2)
        assert close(p1, p2) and close(j1, j2)
        assert close(gr.hessian_values(lam, qq, keep), ref.hessian_values(lam, qq, keep))


def _hinged(n_modes: int = 4, nonlinear: bool = False, cubic_tol: float = 0.0):
    """A soft 4-element rod on a spherical hinge at its root, reduced (root rigid), falling
    from horizontal under gravity, with a point load at its tip: the system of the
    Exudyn comparison (``tests/benchmarks/peer_reduced.py``), small."""
    m, nodes = _beam(4, E_=2e9)
    red = reduce_body(m, {"root": rigid([nodes[0]])}, n_modes=n_modes,
                      derivatives=2 if nonlinear else 0, nonlinear=nonlinear,
                      cubic_tol=cubic_tol)
    mb = fem.Model("hinged", gravity=(0, 0, -9.81))
    b = mb.add_reduced_body("rod", red)
    root, tip = b.map(m.point(nodes[0])), b.map(m.point(nodes[-1]))
    mb.add_constraint(fem.Coincident(root, mb.ground((0, 0, 0)), "hinge"))
    mb.add_force(tip, (0.0, 0.5, 0.0), "push")
    return mb, b, root, tip, m, red


def test_joints_on_reduced_points_keep_the_quadratic_form():
    """A reduced point is bilinear in the frame and the modal coordinates: a joint on it
    becomes rows of the compiled quadratic form (no general rows), whose values and
    Jacobian are the point map's own (1e-13; measured round-off)."""
    mb, b, root, _tip, _m, _red = _hinged()
    asm = mb.assemble()
    assert asm._general is None and asm.n_bil == 6 + 3
    rows = [i for i, lab in enumerate(asm.labels) if lab.startswith("hinge")]
    rng = np.random.default_rng(5)
    for _ in range(3):
        q = mb.q0 + 0.1 * rng.standard_normal(mb.n_dof)
        x, J, _ = root.evaluate(q)
        phi = asm.phi(q)[rows]
        Jq = asm.jacobian(q).toarray()[rows][:, root.dofs]
        assert np.abs(phi - x).max() <= 1e-13 * np.abs(x).max()
        assert np.abs(Jq - J).max() <= 1e-13 * np.abs(J).max()


@pytest.mark.parametrize("nonlinear, tol", [(False, 0.0), (True, 0.0), (True, 1e-6)],
                         ids=["linear", "cubic", "cubic compressed"])
@pytest.mark.compiled(heavy=True)
def test_compiled_body_kernel_is_the_bodys_inertia_and_forces(nonlinear, tol):
    """``fem.bodies.kernels.body_terms`` on the declared data against
    ``ReducedBody.inertia`` and ``forces`` (weight, point load, linear or cubic modal
    force, its quartic part whole or compressed) at random states: 1e-13 of the largest
    entry (measured 2e-16)."""
    from fem.bodies.kernels import body_terms, pack

    kernel = body_terms()
    if kernel is None:
        pytest.skip("numba missing or off")
    mb, b, *_ = _hinged(4, nonlinear, tol)
    assert (b.reduction.K3_factor is not None) == (tol > 0)
    g = np.asarray(mb.gravity, float)
    rng = np.random.default_rng(2)
    data = pack([b.compiled_kernel(g)])
    for _ in range(3):
        q = mb.q0 + 0.05 * rng.standard_normal(mb.n_dof)
        v, a = rng.standard_normal(mb.n_dof), rng.standard_normal(mb.n_dof)
        mq, f = np.zeros(mb.n_dof), np.zeros(mb.n_dof)
        kernel(*data, q, v, a, mq, f)
        fi, ff = b.inertia(q, v, a)[0], b.forces(q, g)[0]
        assert np.abs(mq[b.dofs] - fi).max() <= 1e-13 * np.abs(fi).max()
        assert np.abs(f[b.dofs] - ff).max() <= 1e-13 * np.abs(ff).max()
    m, nodes = _beam(4)
    red = reduce_body(m, {"root": rigid([nodes[0]])}, n_modes=2)
    mb2 = fem.Model("fe forces")
    body = mb2.add_reduced_body("rod", red)
    body.use_fe_forces(m)          # FE forces each call: only the Python methods
    assert body.compiled_kernel(g) is None and mb2.assemble().constant_structure() is None


@pytest.mark.compiled(heavy=True)
@pytest.mark.parametrize("nonlinear", [False, True], ids=["linear", "cubic"])
def test_reduced_pendulum_runs_compiled_as_the_general_path(monkeypatch, nonlinear):
    """The falling hinged rod through the compiled Newton loop (the body's kernel, the
    hinge and frame rows in the quadratic form) and through the general methods of the
    solver contract, the same decisions (a fixed cost ratio): the same iterations within
    2 % and the same motion to the Newton tolerance (1e-6 of the peak; the residual
    tolerance is 1e-8)."""
    from fem.solvers.dynamic import GeneralizedAlpha

    mb, b, _root, tip, *_ = _hinged(4, nonlinear)
    if not GeneralizedAlpha(mb, 0.8)._compiled_newton:
        pytest.skip("numba missing or off")
    asm = mb.assemble()
    runs = []
    for general in (False, True):
        with monkeypatch.context() as mp:
            if general:
                mp.setattr(asm, "constant_structure", lambda: None)
            runs.append(fem.simulate(mb, 0.3, 1e-3, rho_inf=0.8, tol=1e-8, factor_cost=5.0))
    fast, ref = runs
    ia, ib = fast.stats["iterations"].sum(), ref.stats["iterations"].sum()
    assert abs(ia - ib) <= 0.02 * ib, (ia, ib)
    for key in ("q", "v", "lam"):
        x, y = getattr(fast, key), getattr(ref, key)
        assert np.abs(x - y).max() <= 1e-6 * np.abs(y).max(), key
    drop = np.array([tip(q) for q in fast.q])
    assert np.ptp(drop[:, 2]) > 0.2 and np.ptp(drop[:, 1]) > 1e-3   # it falls, is pushed
    assert fast.stats["residual_constraints"].max() < 1e-10


@pytest.mark.compiled(heavy=True)
def test_reduced_flagship_runs_compiled_as_the_general_path(tmp_path, monkeypatch):
    """The flagship with its reduced platform (hexagon_6, the paper's soft plate): its
    motors' servo rows (actuators affine in q) and the U axes on the platform's edge
    directions (products of a linear and a quadratic map) are part of the declared
    structure, so whole steps and their factorizations run in the compiled loop.  The
    iteration matrix it forms is the assembly's saddle (1e-12 of its largest entry), and
    the first 0.15 s of the circle the general path's: the same iterations and
    factorizations within 2 %, q, q̇ and the torques within 1e-6 of their peak."""
    import sys

    from fem.robots import rrru3
    from fem.robots.rrru3_model import build_robot, run_path, static_state
    from fem.solvers.dynamic import GeneralizedAlpha

    sys.path.insert(0, str(Path(__file__).parent))
    from saddlecheck import compiled_and_saddle

    monkeypatch.setenv("FEM_CACHE_DIR", str(tmp_path))
    geom = rrru3.RRRU3Geometry()
    rm = build_robot(geom, "reduced", "hexagon_6", path=rrru3.paper_circle_path(geom),
                     shear_factor="auto", damping_beta=1e-5)
    st = static_state(rm)
    asm = rm.model.assemble()
    cs = asm.constant_structure()
    if cs is None or not GeneralizedAlpha(rm.model, 0.1, q0=st.q)._compiled_newton:
        pytest.skip("numba missing or off")
    si, pi = cs.servo.si, cs.products.pi
    assert si[1] - si[0] == 3 and pi[8] - pi[7] == 3     # motors, U axes
    rng = np.random.default_rng(5)
    q = st.q + 1e-4 * rng.standard_normal(asm.n)
    S, ref = compiled_and_saddle(rm.model, q, rng.standard_normal(asm.n),
                                 rng.standard_normal(asm.n), rng.standard_normal(asm.m))
    assert np.abs(S - ref).max() <= 1e-12 * np.abs(ref).max()
    runs = []
    for general in (False, True):
        with monkeypatch.context() as mp:
            if general:
                mp.setattr(asm, "constant_structure", lambda: None)
            runs.append(run_path(rm, 0.15, 5e-3, 0.1, q0=st.q))
    fast, gen = runs
    for key in ("iterations",):
        a, b = fast.stats[key].sum(), gen.stats[key].sum()
        assert abs(a - b) <= 0.02 * b, (key, a, b)
    assert abs(fast.info["factorizations"] - gen.info["factorizations"]) \
        <= 0.02 * gen.info["factorizations"]
    for key in ("q", "v", "lam"):
        x, y = getattr(fast, key), getattr(gen, key)
        assert np.abs(x - y).max() <= 1e-6 * np.abs(y).max(), key


# ------------------------------------------------------------------ spinning beam (issue 19)
def _spinup_case():
    return _case("spinup_beam", "spinup_reduced")


def _spinup_reduced(case, omega0, n_modes=4, derivatives=4, nonlinear=True,
                    frame="interface", t_end=20.0, dt=0.01):
    """Kane's spin-up beam (the case's section, hub profile and step) as a reduced body:
    16 ANCF cables (the case's ANCF model) reduced with the root a rigid interface, the
    root clamped to the driven hub — its point on the axis, its slope turned by θ(t) in
    the plane (the frame's spin about the beam axis, which a cable does not see, held by
    its v axis staying in the plane).  Returns ``(t, v)``: the tip deflection transverse
    to the hub frame, or ``None`` for ``v`` when the run diverged."""
    p = case.PARAMS
    L, A_, I_ = p["length_m"], p["area_m2"], p["inertia_m4"]
    rho, E_ = p["rho_kgm3"], p["E_Pa"]
    fe = fem.Model("spinup beam FE", gravity=(0, 0, 0))
    _, nodes = fem.straight_cable(fe, (0, 0, 0), (L, 0, 0), 16, fem.Material(E_, 0.3, rho),
                                  A_, I_)
    red = reduce_body(fe, {"root": rigid([nodes[0]])}, n_modes=n_modes,
                      derivatives=derivatives, nonlinear=nonlinear, frame=frame)
    m = fem.Model("spinup beam reduced", gravity=(0, 0, 0))
    b = m.add_reduced_body("beam", red)
    motion = case.hub_motion(omega0, p["spinup_time_s"])
    root, slope = b.map(fe.point(nodes[0])), b.map(fe.node_field(nodes[0], "r_x"))
    o, ez = m.ground((0, 0, 0)), m.ground((0, 0, 1))
    m.add_constraint(fem.Coincident(root, o, "hub centre"))
    m.add_constraint(fem.AngleDrive(o, slope, (0, 0, 1), (1, 0, 0), motion, "hub angle"))
    m.add_constraint(fem.Dot(slope, ez, 0.0, "root slope in the plane"))
    m.add_constraint(fem.Dot(b.axis(1), ez, 0.0, "no spin about the beam axis"))
    tip = b.map(fe.point(nodes[-1]))
    res = fem.io.output.stream(None, m)
    try:
        # full Newton: the reduced beam's iteration matrix costs less than its residual,
        # and modified Newton took 6.5 iterations a step (NumPy path: 8.3 -> 5.3 s of CPU
        # over 20 s, the linear reduction's 8 s 3.0 -> 1.7 s; the compared errors the
        # same within 2e-7 of the peak)
        fem.simulate(m, t_end, dt, rho_inf=p["rho_inf"], result=res, reuse=False,
                     force_scale=0.5 * rho * A_ * L**2 * max(omega0, 1.0) ** 2)
    except fem.ConvergenceError:
        res.finish()
        return np.asarray(res.t), None
    res.finish()
    t = np.asarray(res.t)
    th = np.array([motion(s)[0] for s in t])
    r = np.array([tip(q) for q in res.q])
    return t, -np.sin(th) * r[:, 0] + np.cos(th) * r[:, 1]


def _spinup_compare(case, t, v, ref):
    """Peak, history (``max|v − v_ref|``) and the vibration after the spin-up (mean and
    amplitude, relative to the reference's peak; frequency relative to its own)."""
    t_r, v_r = np.asarray(ref["time_s"]), np.asarray(ref["tip_v_m"])
    peak = np.abs(v_r).max()
    a, a_r = (case.response_after_spinup(x, y, case.PARAMS["spinup_time_s"])
              for x, y in ((t, v), (t_r, v_r)))
    return {"peak": np.abs(v).max() / peak - 1.0,
            "history": np.abs(v - np.interp(t, t_r, v_r)).max() / peak,
            "mean": abs(a["mean_m"] - a_r["mean_m"]) / peak,
            "amplitude": abs(a["amplitude_m"] - a_r["amplitude_m"]) / peak,
            "frequency": a["frequency_rad_s"] / a_r["frequency_rad_s"] - 1.0}


def test_spinning_reduced_beam_stiffens_as_the_floating_frame_beam():
    """Kane's spin-up beam (L = 8 m, Ω0 = 4 rad/s, above its first frequency 2.91 rad/s)
    as a reduced body — 4 fixed-interface modes (2 per plane), the modal derivatives of
    all 4, the cubic modal force, the frame on the clamped root (``frame="interface"``)
    — against the case's floating-frame beam (Bézier, fourth-order kinematics): the
    peak tip deflection 0.534 m, the whole history (``max|v − v_ff|``) and the mean and
    amplitude of the vibration after the spin-up within 1 % of that peak, its frequency
    (3.347 rad/s: the centrifugal stiffening) within 1 % (measured −0.12 %, 0.31 %,
    2e-6, 2e-5 and 0.29 %).  The linear reduction (no derivatives, linear modal force)
    misses the stiffening: past Ω = 2.91 rad/s the beam softens without bound (1.26 m
    at t = 8 s; it diverges at 15.1 s)."""
    case = _spinup_case()
    ref = case.run(None, omega0_rad_s=4.0)               # the floating-frame beam
    peak = ref["tip_v_peak_m"]
    assert 0.53 < peak < 0.54
    t, v = _spinup_reduced(case, 4.0)
    assert v is not None and t[-1] >= 20.0 - 1e-9
    err = _spinup_compare(case, t, v, ref)
    assert abs(err["peak"]) <= 0.01, err
    assert err["history"] <= 0.01, err
    assert err["mean"] <= 0.01 and err["amplitude"] <= 0.01, err
    assert abs(err["frequency"]) <= 0.01, err
    t, v = _spinup_reduced(case, 4.0, derivatives=0, nonlinear=False, t_end=8.0)
    assert v is None or np.abs(v).max() > 2.0 * peak


@pytest.mark.slow
@pytest.mark.parametrize("omega0", [4.0, 10.0])
def test_spinning_reduced_beam_converges_in_its_modes(omega0):
    """The same at Ω0 = 4 and 10 rad/s with 8 modes and 8 derivatives: within 1 % of the
    floating-frame beam's peak (measured −0.06 % and −0.37 %), history (0.06 %, 0.51 %)
    and post-spin-up mean and amplitude (relative to the peak: 5e-5 and 1.3e-4 at most),
    the frequency within 1 % (0.001 %, −0.17 %; the floating-frame and the ANCF beams
    themselves differ by 1.3 % at Ω0 = 10).  In the mean axes (``frame="mean_axes"``)
    the same nonlinear reduction locks: its modes carry a linearized rotation that the
    FE force sees as a stretch held at the root (peak 0.28 m against 0.53 m at Ω0 = 4)."""
    case = _spinup_case()
    ref = case.run(None, omega0_rad_s=omega0)
    t, v = _spinup_reduced(case, omega0, n_modes=8, derivatives=8)
    err = _spinup_compare(case, t, v, ref)
    assert abs(err["peak"]) <= 0.01 and err["history"] <= 0.01, err
    assert err["mean"] <= 0.01 and err["amplitude"] <= 0.01, err
    assert abs(err["frequency"]) <= 0.01, err
    if omega0 == 4.0:
        t, v = _spinup_reduced(case, omega0, n_modes=8, derivatives=8, frame="mean_axes")
        assert np.abs(v).max() < 0.6 * ref["tip_v_peak_m"]


def test_interface_frame_keeps_the_clamped_modes_of_both_planes():
    """A round cable (its y and z bending alike): the fixed-interface modes of both
    planes are found (a symmetric Lanczos start kept one), and with
    ``frame="interface"`` the root does not move in any kept mode and the body's
    frequencies are the clamped FE model's (1e-6)."""
    fe = fem.Model("cable", gravity=(0, 0, 0))
    _, nodes = fem.straight_cable(fe, (0, 0, 0), (1.0, 0, 0), 8,
                                  fem.Material(E, 0.3, RHO), A, I)
    red = reduce_body(fe, {"root": rigid([nodes[0]])}, n_modes=4, frame="interface")
    mean = reduce_body(fe, {"root": rigid([nodes[0]])}, n_modes=4)
    assert np.allclose(mean.frequencies_hz[0], mean.frequencies_hz[1], rtol=1e-9)
    with pytest.raises(ModelError, match="only the rigid motion"):
        reduce_body(fe, {"root": rigid([nodes[0]]), "tip": fe.point(nodes[-1])},
                    n_modes=2, frame="interface")
    with pytest.raises(ModelError, match="frame"):
        reduce_body(fe, n_modes=2, method="free", frame="interface")
    assert np.abs(red.modes[:2]).max() <= 1e-12             # the root slots r, r_x
    fe.fix(nodes[0])
    full = fem.modes(fe, n_modes=4).frequencies_hz
    assert np.allclose(red.frequencies_hz, full, rtol=1e-6)


def test_nonlinear_reduced_cantilever_statics_sees_a_light_load():
    """A light tip load on a clamped rod reduced nonlinearly (8 clamped modes, their 8
    derivatives, the cubic modal force, the frame on the root interface): the derivative
    modes are stiff (modal stiffness up to ≈ 1e11), and the static solver once took the
    load for round-off of that scale and returned the undeformed rod ("no load").  The
    tip now deflects as the full FE model's within 1e-3 (measured 4.9e-4: the 8 modes'
    truncation, the linear reduction's 4.7e-4)."""
    F = np.array([0.0, 0.0, -0.2])
    full = _full_static_tip(F)
    static, tip = _reduced_static_tip(F, False, n_modes=8, derivatives=8, nonlinear=True,
                                      frame="interface")
    assert static.converged and not static.info.get("no_load")
    assert abs(tip(static.q)[2] - full[2]) <= 1e-3 * abs(full[2])


def _fe_basis(red, n: int) -> np.ndarray:
    """The reduction's modes as FE-coordinate columns ``(n, m)``."""
    out = np.zeros((n, red.n_modes))
    for s, start in enumerate(red.slot_dofs):
        out[start:start + 3] = red.modes[s]
    return out


def test_pair_enrichment_holds_every_pairs_modal_derivative():
    """``enrich=r``: the POD of the static modal derivatives of every pair of the linear
    basis.  With ``r`` at least the number of pairs the enriched span holds every modal
    derivative (``derivatives=`` all the linear modes: 1e-15 of its M-norm, measured
    9e-15), and more (the stiff axial derivatives the plain derivatives' rank test
    drops); with fewer, ``r`` vectors join the basis; ``enrich=0`` is the plain basis."""
    m, nodes = _beam()
    inter = {"root": rigid([nodes[0]]), "tip": m.point(nodes[-1])}
    lin = reduce_body(m, inter, n_modes=2)
    assert np.array_equal(reduce_body(m, inter, n_modes=2, enrich=0).modes, lin.modes)
    m0 = lin.n_modes
    deriv = reduce_body(m, inter, n_modes=2, derivatives=m0)
    full = reduce_body(m, inter, n_modes=2, enrich=m0 * (m0 + 1) // 2)
    assert full.info["n_enrich"] == m0 * (m0 + 1) // 2 and full.n_modes >= deriv.n_modes
    asm = m.assemble()
    M = asm.mass_matrix(asm.q0)
    A, B = _fe_basis(deriv, asm.n), _fe_basis(full, asm.n)
    res = A - B @ np.linalg.solve(B.T @ (M @ B), B.T @ (M @ A))
    assert np.sqrt(np.einsum("ij,ij->j", res, M @ res)).max() <= 1e-10
    for r, weight in ((2, "energy"), (3, "mass")):
        red = reduce_body(m, inter, n_modes=2, enrich=r, enrich_weight=weight)
        assert red.n_modes == m0 + r
    with pytest.raises(ModelError, match="enrich"):
        reduce_body(m, n_modes=4, method="free", enrich=2)
    with pytest.raises(ModelError, match="enrich_weight"):
        reduce_body(m, inter, n_modes=2, enrich=2, enrich_weight="pairs")


@pytest.mark.compiled(heavy=True)
def test_fe_damping_is_the_fe_models_damping_at_the_current_pose(tmp_path):
    """``damping="fe"``: the body's damping force is the FE model's ``β K ẋ`` on the
    slots' absolute velocities at the current pose, ``J(q)ᵀ C J(q) q̇`` with ``J =
    ∂x/∂q`` by central differences of the slots (1e-6: ``C_X`` is kept in single
    precision, measured 1.2e-7; in double 1e-9), here turned by 0.3 rad and
    deformed (``β K`` of the reference is not rotation invariant for a deformed body:
    it damps the turning too); its tangents match finite differences of the force
    (1e-6); the compiled kernels (the body's ``inertia`` and the compiled loop's
    ``body_terms``/``body_tangents``) give the NumPy form's values to round-off; with
    modal damping the frame is not damped."""
    from fem.bodies.kernels import body_tangents, body_terms, pack

    m = fem.Model("beam", gravity=(0, 0, 0))
    grp, nodes = straight_beam(m, (0, 0, 0), (1.0, 0, 0), 6, fem.Material(E, 0.3, RHO),
                               section="circle", radius=R)
    m.add_damping(grp, 1e-4)
    inter = {"root": rigid([nodes[0]]), "tip": m.point(nodes[-1])}
    modal = reduce_body(m, inter, n_modes=3)
    fe = fem.bodies.Reduction.load(reduce_body(m, inter, n_modes=3, damping="fe")
                                   .save(tmp_path / "fe.npz"))
    assert fe.C_fe is not None and modal.C_fe is None
    th = 0.3
    Rz = np.array([[np.cos(th), -np.sin(th), 0], [np.sin(th), np.cos(th), 0], [0, 0, 1]])
    mb = fem.Model("body", gravity=(0, 0, 0))
    b = mb.add_reduced_body("beam", fe, rotation=Rz)
    assert b.damping_matrix is None                 # pose-dependent: in inertia()
    rng = np.random.default_rng(3)
    q = mb.assemble().q0.copy()
    q[b.modal_dofs] = 1e-3 * rng.normal(size=b.m)
    v = np.zeros_like(q)
    v[b.dofs] = rng.normal(size=b.k)
    J = np.column_stack([(b.fe_coordinates(q + 1e-6 * e) - b.fe_coordinates(q - 1e-6 * e))
                         / 2e-6 for e in np.eye(q.size)[b.dofs]])
    C = m.assemble().C
    C = C.toarray() if hasattr(C, "toarray") else np.asarray(C)
    ref = J.T @ (C @ (J @ v[b.dofs]))
    f, (Kq, Cq) = b.damping_terms(q, v, tangent=True)
    assert np.abs(f - ref).max() <= 1e-6 * np.abs(ref).max()
    assert np.abs(f[3:12]).max() > 1e-3 * np.abs(f).max()      # the frame is damped
    assert np.abs(Cq - J.T @ C @ J).max() <= 1e-6 * np.abs(Cq).max()
    h = 1e-6
    fdq = np.column_stack([(b.damping_terms(q + h * e, v)[0] - b.damping_terms(q - h * e, v)[0])
                           / (2 * h) for e in np.eye(q.size)[b.dofs]])
    assert np.abs(Kq - fdq).max() <= 1e-6 * np.abs(fdq).max()
    a = np.zeros_like(q)
    a[b.dofs] = rng.normal(size=b.k)
    f0, T0 = b.inertia_blocks(q, v, a, tangent=True)
    f1, T1 = b.inertia(q, v, a, tangent=True)       # compiled, damping included
    assert np.allclose(f1, f0 + f, rtol=0, atol=1e-12 * np.abs(f1).max())
    for X1, X0 in zip(T1, (T0[0], T0[1] + Kq, T0[2] + Cq), strict=True):
        assert np.allclose(X1, X0, rtol=0, atol=1e-12 * np.abs(X0).max())
    header, dofs, data, index = pack([b.compiled_kernel(np.zeros(3))])
    mq, fk = np.zeros(q.size), np.zeros(q.size)
    body_terms()(header, dofs, data, index, q, v, a, mq, fk)
    assert np.allclose(mq[b.dofs], f1, rtol=0, atol=1e-12 * np.abs(f1).max())
    cK, cC = 7.0, 3.0
    S = np.zeros((q.size, q.size))
    body_tangents()(header, dofs, data, index, q, v, a, cK, cC, S)
    Sb = S[np.ix_(b.dofs, b.dofs)]
    K = b.forces(q, np.zeros(3), tangent=True)[1]
    want = T1[0] + cK * (T1[1] + K) + cC * T1[2]
    assert np.allclose(Sb, want, rtol=0, atol=1e-12 * np.abs(want).max())
    same = fem.Model("body", gravity=(0, 0, 0)).add_reduced_body("beam", fe)
    q0 = np.zeros(same.k)
    q0[3:12] = np.eye(3).ravel()
    Cm = same.damping_terms(np.r_[q0], np.zeros(same.k), tangent=True)[1][1]
    assert np.allclose(Cm[12:, 12:], modal.C, rtol=0,             # where reduced:
                       atol=1e-6 * np.abs(modal.C).max())          # the modal one
    mm = fem.Model("body", gravity=(0, 0, 0))
    assert not np.any(mm.add_reduced_body("beam", modal).damping_matrix[:12])
    with pytest.raises(ModelError, match="damping"):
        reduce_body(m, inter, n_modes=3, damping="rayleigh")


def test_compressed_quartic_potential_keeps_the_cubic_force(tmp_path):
    """``cubic_tol``: the pair matrix of ``K3`` is positive semidefinite (the
    Green–Lagrange quartic energy; measured −1.8e-6 of its largest eigenvalue, the
    finite differences' round-off) and kept as ``G Gᵀ`` by its leading eigenvectors at
    equal modal strain energy.  At 1e-12 it is the whole ``K3`` but for that round-off
    (the force's quartic part at 20 random deflections of equal modal energy within
    1e-3, measured 6.5e-5); at 1e-6 the rank drops from 85 to 46 of 91 and the quartic
    part moves by 1.6e-2 (bound 5e-2; random deflections are the hard case — on the
    flagship's circle 1e-4 keeps the torques to 0.1 %, docs/reduced_bodies.md); it
    survives a save and load; the tangent stays the force's derivative."""
    m, nodes = _beam()
    inter = {"root": rigid([nodes[0]]), "tip": m.point(nodes[-1])}
    whole = reduce_body(m, inter, n_modes=4, derivatives=3, nonlinear=True)
    P = whole.n_modes * (whole.n_modes + 1) // 2
    jj, kk = np.triu_indices(whole.n_modes)
    S = whole.K3[jj, kk][:, jj, kk]
    lam = np.linalg.eigvalsh(0.5 * (S + S.T))
    assert lam.min() >= -1e-5 * lam.max()      # semidefinite to the difference's round-off
    base = fem.Model("r", gravity=(0, 0, 0)).add_reduced_body("beam", whole)
    scale = 1e-2 / np.sqrt(np.diag(whole.K)) * np.sqrt(whole.K[0, 0])
    rng = np.random.default_rng(3)
    etas = [scale * rng.standard_normal(whole.n_modes) for _ in range(20)]
    ranks = []
    for tol, bound in ((1e-12, 1e-3), (1e-6, 5e-2)):
        red = reduce_body(m, inter, n_modes=4, derivatives=3, nonlinear=True, cubic_tol=tol)
        red = type(red).load(red.save(tmp_path / "c.npz"))
        assert red.K3 is None and red.K3_factor.shape[0] == P
        assert red.info["cubic_rank"] == red.K3_factor.shape[1]
        ranks.append(red.K3_factor.shape[1])
        body = fem.Model("r", gravity=(0, 0, 0)).add_reduced_body("beam", red)
        err = 0.0
        for eta in etas:
            f0 = base._elastic(eta, False)[0]
            quartic = base._poly_terms(eta)[1] @ eta / 3.0
            err = max(err, np.abs(body._elastic(eta, False)[0] - f0).max()
                      / np.abs(quartic).max())
        assert err <= bound, (tol, err)
    assert ranks[1] < ranks[0] <= P
    eta = 1e-3 * rng.standard_normal(whole.n_modes)
    Kn = _fd(lambda x: body._elastic(x, False)[0], eta, range(whole.n_modes), h=1e-7)
    assert np.abs(body._elastic(eta, True)[1] - Kn).max() <= 1e-7 * np.abs(Kn).max()
    with pytest.raises(ModelError, match="K3_factor"):
        red.K3_factor = red.K3_factor[1:]
        fem.Model("r").add_reduced_body("beam", red)
    # the compressed tangent's H made row by row is np.add.at's, pair by pair, to the bit
    K3s, jj, kk = body._poly[1], body._poly[2], body._poly[3]
    off = jj != kk
    for eta in (etas[0], 1e3 * etas[1], np.zeros(whole.n_modes)):
        H = np.zeros((whole.n_modes, K3s.shape[1]))
        np.add.at(H, jj, K3s * eta[kk, None])
        np.add.at(H, kk[off], K3s[off] * eta[jj[off], None])
        C = body._poly_terms(eta)[1]
        assert np.array_equal(body._quartic_tangent(eta, C),
                              C / 3.0 + (2.0 / 3.0) * (H @ H.T))


def test_compressed_quartic_potential_holds_at_the_motors_drives_deflections(tmp_path,
                                                                            monkeypatch):
    """The flagship's default drive (the motors following the rigid robot's angles)
    swings the soft plate (E = 6.9e8 Pa) about twenty times its sag, P 40 mm off the
    circle.  There the plate's energy is a near cancellation — the quadratic, cubic and
    quartic parts of the modal potential reach 20, −38 and 19 J, their sum 0.9 J — so
    the compression's error, relative to the force, grows with the square of the
    deflection.  Along the first 0.64 s of that circle (hexagon_6, chord joints, the
    whole quartic potential; the run compressed to 3e-4 diverged at 0.63 s), at every
    fourth state, in the norm of equal modal strain energy (each coordinate over its
    ``ω``): compressed to 1e-5 (the case's default for this drive) the elastic force
    stays within 0.5 % of the whole one (measured 0.15 %) and its tangent positive
    definite as the whole one's (smallest eigenvalue 0.0249 against 0.0254); compressed
    to 3e-4 the force is more than 5 % off (measured 9 %) and the tangent indefinite
    (−0.0027): the potential has lost its convexity where the plate swings, which is
    what made that run diverge, and a solver failing there says so."""
    import copy

    from fem.reduction.body import _compress_quartic
    from fem.robots import rrru3
    from fem.robots.rrru3_model import CUBIC_TOL, build_robot, run_path, static_state
    from fem.solvers.diagnosis import newton_failure

    monkeypatch.setenv("FEM_CACHE_DIR", str(tmp_path))
    geom = rrru3.RRRU3Geometry()
    rm = build_robot(geom, "reduced", "hexagon_6", 6.9e8, 0.3, "shared",
                     rrru3.paper_circle_path(geom), "auto", 1e-5, cubic_tol=0.0,
                     drive="joints", u_joint_edge="chord")
    whole = rm.model.nonlinear_bodies[0]
    res = run_path(rm, 0.64, 4e-3, 0.8, q0=static_state(rm).q)
    assert res.t[-1] >= 0.64 - 1e-9
    w = np.sqrt(np.diag(whole.Kr))
    etas = [q[whole.modal_dofs] for q in np.asarray(res.q)[::4]]
    assert max(np.linalg.norm(eta * w) for eta in etas) > 1.0     # far from the sag

    def measured(tol):
        red = copy.copy(whole.reduction)
        red.K3_factor = _compress_quartic(whole.reduction.K3, np.diag(red.K), tol)
        red.K3, red.info = None, {**red.info, "cubic_tol": tol}
        model = fem.Model("c", gravity=(0, 0, 0))
        body = model.add_reduced_body("platform", red)
        err, lowest, worst = 0.0, np.inf, None
        for eta in etas:
            fw = whole._elastic(eta, False)[0]
            fc, Kc = body._elastic(eta, True)
            err = max(err, np.linalg.norm((fc - fw) / w) / np.linalg.norm(fw / w))
            low = np.linalg.eigvalsh(0.5 * (Kc + Kc.T) / np.outer(w, w))[0]
            if low < lowest:
                lowest, worst = low, eta
        q = np.zeros(body.dofs.size)
        q[body.modal_dofs] = worst
        note = newton_failure(model.assemble(), solver="generalized-α Newton",
                              where="t = 0.6 s", history=[1.0, 1.0, 1.0], q_start=q)
        return err, lowest, note

    assert CUBIC_TOL["joints"] == 1e-5
    err, lowest, note = measured(CUBIC_TOL["joints"])
    assert err <= 5e-3 and lowest > 0.0, (err, lowest)
    assert "compressed" not in note
    err, lowest, note = measured(3e-4)
    assert err >= 5e-2 and lowest < 0.0, (err, lowest)
    # a failing solver says so, from the last converged state
    assert "quartic potential is compressed (cubic_tol 0.0003" in note, note
    assert "smaller cubic_tol" in note


@pytest.mark.slow
@pytest.mark.parametrize("mesh, bound", [("hexagon_6", 0.10), ("hexagon_24", 0.07)])
def test_reduced_platform_runs_the_default_circle_through(mesh, bound, tmp_path,
                                                          monkeypatch):
    """The case's defaults (the motors' drive, ρ∞ = 0.8, h = 2.5 ms, the quartic potential
    compressed to 1e-5): the reduced platform runs the whole circle (3e-4 diverged at
    0.63 s on hexagon_6 and 1.43 s on hexagon_24) with P's swing within 1 % of the full
    plate's; its default basis, chosen on the path drive's deflections, leaves the
    torques 8.6 % (hexagon_6) and 5.3 % (hexagon_24) of their range off the full plate's
    (measured at h = 4 ms; docs/parallel_robot.md) — bounds 10 % and 7 %."""
    monkeypatch.setenv("FEM_CACHE_DIR", str(tmp_path))
    c = _flagship()
    full = c.run(None, mesh=mesh)
    red = c.run(None, platform="reduced", mesh=mesh)
    assert red["steps"] == full["steps"] == 640
    tau, tau_r = np.asarray(full["torque_Nm"]), np.asarray(red["torque_Nm"])
    assert np.abs(tau_r - tau).max() <= bound * np.ptp(tau)
    assert red["max_path_error_mm"] == pytest.approx(full["max_path_error_mm"], rel=0.01)


@pytest.mark.parametrize("m", [1, 2, 4, 7, 12])
def test_cubic_force_tensor_is_whole_from_the_pairs_within_three_groups(m):
    """The reduction evaluates the mixed tangents only for pairs of modes of the same
    group (index mod 3); the fully symmetric fourth-order tensor follows from those
    slices.  Reference: a random fully symmetric tensor, its other slices set to zero."""
    from itertools import permutations

    from fem.reduction.body import _fill_symmetric

    x = np.random.default_rng(m).standard_normal((m, m, m, m))
    full = sum(x.transpose(p) for p in permutations(range(4))) / 24.0
    group = np.arange(m) % 3
    known = group[:, None] == group[None, :]
    assert known.sum() <= m + m * m / 3 + 1                    # about a third of the pairs
    filled = _fill_symmetric(np.where(known[None, None], full, 0.0), known)
    assert np.abs(filled - full).max() <= 1e-14 * np.abs(full).max()
    if m >= 4:                            # without the diagonal, some entry has no pair
        fewer = known & ~np.eye(m, dtype=bool)
        with pytest.raises(AssertionError, match="miss an entry"):
            _fill_symmetric(np.where(fewer[None, None], full, 0.0), fewer)
