"""Bad input through the API: a clear ModelError naming what is wrong, never a traceback
from numpy; silent wrong answers made loud (issue 8).  The CLI's bad inputs are in
test_cli_output.py / test_robust_output.py."""

from __future__ import annotations

import warnings

import meshio
import numpy as np
import pytest

import fem

STEEL = fem.Material(2.1e11, 0.3, 7850)


def _cable(n_el=4, gravity=(0, 0, -9.81), material=STEEL):
    m = fem.Model("cable", gravity=gravity)
    grp, nodes = fem.straight_cable(m, (0, 0, 0), (1, 0, 0), n_el, material, 1e-4, 1e-9)
    m.fix(nodes[0])
    return m, grp, nodes


def _raise(match, fn, *args, **kw):
    with pytest.raises(fem.ModelError, match=match) as info:
        fn(*args, **kw)
    return str(info.value)


# ------------------------------------------------------------------ model building
BUILD_CASES = {
    "gravity 2-vector": (lambda: fem.Model(gravity=[0, -9.81]), "gravity must be a 3-vector"),
    "gravity text": (lambda: fem.Model(gravity="down"), "gravity must be a 3-vector"),
    "gravity NaN": (lambda: fem.Model(gravity=[0, 0, np.nan]), "gravity must be finite"),
    "rectangle NaN": (lambda: fem.rectangle_section(np.nan, 0.02), "width must be finite"),
    "rectangle negative": (lambda: fem.rectangle_section(0.02, -1), "height must be > 0"),
    "rectangle text": (lambda: fem.rectangle_section("a", 1), "width must be a number"),
    "circle inf": (lambda: fem.circle_section(np.inf), "radius must be finite"),
    "cable 0 elements": (lambda: fem.straight_cable(fem.Model(), (0, 0, 0), (1, 0, 0), 0,
                                                    STEEL, 1e-4, 1e-9), "n_elements"),
    "cable 2.5 elements": (lambda: fem.straight_cable(fem.Model(), (0, 0, 0), (1, 0, 0), 2.5,
                                                      STEEL, 1e-4, 1e-9), "must be an integer"),
    "cable 2D start": (lambda: fem.straight_cable(fem.Model(), (0, 0), (1, 0, 0), 2, STEEL,
                                                  1e-4, 1e-9), "start must be a 3-vector"),
    "cable zero length": (lambda: fem.straight_cable(fem.Model(), (0, 0, 0), (0, 0, 0), 2,
                                                     STEEL, 1e-4, 1e-9), "zero length"),
    "material E NaN": (lambda: fem.Material(np.nan), "Young's modulus"),
    "material nu 0.5": (lambda: fem.Material(1e9, 0.5), "Poisson's ratio"),
    "material rho < 0": (lambda: fem.Material(1e9, 0.3, -1), "density"),
    "crossed with a moving map": (
        lambda: (lambda m, n: m.point(n[1]).crossed(m.point(n[2])))(*_cable()[::2]),
        "quadratic in the coordinates"),
    "crossed with a 2-vector": (lambda: fem.constant((1, 0, 0)).crossed([1, 2]),
                                "3-vector"),
}


@pytest.mark.parametrize("case", list(BUILD_CASES))
def test_building_errors(case):
    fn, match = BUILD_CASES[case]
    _raise(match, fn)


def test_model_method_errors():
    m, grp, nodes = _cable()
    p = m.point(nodes[-1])
    _raise("force on .* must be a 3-vector", m.add_force, p, [1, 2])
    _raise("the point must be a fem.LinearMap", m.add_force, "tip", [0, 0, 1])
    _raise("distributed load on .* must be a 3-vector", m.add_distributed_load, grp, [1, 2])
    _raise("expects an ElementGroup", m.add_distributed_load, "cable", [0, 0, 1])
    _raise("fix: no node 999; the model has 5 nodes", m.fix, 999)
    _raise("no node -1", m.fix, -1)
    _raise("a node id is an integer", m.fix, 1.5)
    _raise("has no field 'q'", m.fix, 1, "q")
    _raise("mass .* must be finite", m.add_point_mass, p, np.nan)
    _raise("must be ≥ 0 kg", m.add_point_mass, p, -1.0)
    _raise("expected a fem.Mesh", m.add_mesh, "hexagon_6", "bezier_plate_shared")
    # a function of time returning a 2-vector is named when the solver evaluates it
    m.add_force(p, lambda t: (0.0, t))
    _raise(r"force on .* at t = 0 s \(its function's value\) must be a 3-vector",
           fem.solve_static, m)


def test_add_mesh_accepts_a_meshio_mesh():
    pts = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0]], float)
    mm = meshio.Mesh(pts, [("line", np.array([[0, 1], [1, 2]]))])
    m = fem.Model(gravity=(0, 0, -9.81))
    grp = m.add_mesh(mm, "ancf_cable", STEEL, area=1e-4, inertia=1e-9)
    assert grp.n_elements == 2 and m.n_dof == 18


def test_coincident_vertices_are_rejected_and_can_be_merged():
    # two triangles meeting along x = 1 with the shared edge's vertices duplicated: the
    # plate would be cracked along that edge (the issue measured +54 % deflection)
    v = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0],
                  [1, 0, 0], [2, 0, 0], [2, 1, 0], [1, 1, 0]], float)
    tri = np.array([[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]])
    msg = _raise("same point", fem.Mesh.from_arrays, v, tri)
    assert "[1, 4]" in msg and "merge_coincident" in msg
    merged = fem.Mesh(v, tri).merge_coincident()
    assert len(np.unique(merged.triangles)) == 6
    assert len(merged.interior_edges) == 3         # the crack is closed


# ------------------------------------------------------------------ solvers
def test_static_argument_errors():
    m, _, _ = _cable()
    _raise("load_steps must be an integer ≥ 1; got 0", fem.solve_static, m, load_steps=0)
    _raise("load_steps must be an integer ≥ 1; got -3", fem.solve_static, m, load_steps=-3)
    _raise("load_steps must be an integer", fem.solve_static, m, load_steps=2.5)
    _raise("q0 must have the model's 30 coordinates", fem.solve_static, m, q0=np.zeros(7))
    q = m.q0.copy()
    q[3] = np.nan
    _raise("q0 has non-finite values at coordinates", fem.solve_static, m, q0=q)
    _raise("tol must be > 0", fem.solve_static, m, tol=0.0)


def test_simulate_argument_errors():
    m, _, _ = _cable()
    _raise("t_end .* must be finite", fem.simulate, m, np.inf, 1e-3)
    _raise("dt must be > 0", fem.simulate, m, 1.0, 0.0)
    _raise("dt must be finite", fem.simulate, m, 1.0, np.nan)
    _raise("t_end must be later than t0", fem.simulate, m, -1.0, 0.1)
    _raise("record_every must be an integer ≥ 1", fem.simulate, m, 1.0, 0.1, record_every=0)
    _raise("initial positions q0 must have", fem.simulate, m, 1.0, 0.1, q0=np.zeros(3))
    _raise("initial velocities v0 must have", fem.simulate, m, 1.0, 0.1, v0=np.zeros(3))


def test_modes_argument_errors():
    m, _, _ = _cable()
    _raise("n_modes must be an integer ≥ 1; got 0", fem.modes, m, n_modes=0)
    _raise("n_modes must be an integer ≥ 1; got -1", fem.modes, m, n_modes=-1)
    _raise("modes: q must have", fem.modes, m, q=np.zeros(4))
    _raise("lam .* must have", fem.modes, m, lam=np.zeros(1))


def _pendulum():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "cases" / "double_pendulum.py"
    spec = importlib.util.spec_from_file_location("dp_for_bad_input", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.build()


def test_simulate_ends_exactly_at_t_end():
    m = _pendulum()
    r = fem.simulate(m, 1.0, 0.3)               # was: stopped at 0.9 s
    np.testing.assert_allclose(r.t, [0, 0.3, 0.6, 0.9, 1.0], atol=1e-12)
    with pytest.warns(fem.FemWarning, match="longer than the span"):
        r = fem.simulate(m, 1.0, 2.0)           # was: recorded only t = 0
    np.testing.assert_allclose(r.t, [0, 1.0], atol=1e-12)
    r = fem.simulate(m, 0.05, 0.01, record_every=3)
    np.testing.assert_allclose(r.t, [0, 0.03, 0.05], atol=1e-12)


def test_inconsistent_initial_state_is_reported():
    m = _pendulum()
    q0 = m.q0.copy()
    q0[0] += 0.01
    with pytest.warns(fem.FemWarning, match=r"violate the constraints .* up to 0\.01"):
        r = fem.simulate(m, 0.01, 0.005, q0=q0)
    assert r.info["initial_position_correction_m"] == pytest.approx(0.01, rel=1e-6)
    v0 = np.zeros(m.n_dof)
    v0[0] = 1.0
    with pytest.warns(fem.FemWarning, match="velocity constraints"):
        r = fem.simulate(m, 0.01, 0.005, v0=v0)
    assert r.info["initial_velocity_correction_mps"] > 0.1
    with warnings.catch_warnings():
        warnings.simplefilter("error", fem.FemWarning)
        fem.simulate(m, 0.01, 0.005)            # consistent start: no warning


def test_buckled_state_reports_negative_frequency():
    # clamped-free column under an axial tip load: Euler's P_cr = π² EI / (4 L²); below it
    # the lowest frequency falls but stays real, above it ω² < 0 must show, not 0 Hz
    L, EI = 1.0, 2.1e11 * 1e-9
    pcr = np.pi**2 * EI / (4 * L**2)
    out = {}
    for ratio in (0.5, 1.5):
        m, _, nodes = _cable(16, gravity=(0, 0, 0))
        m.add_force(m.point(nodes[-1]), (-ratio * pcr, 0, 0))
        st = fem.solve_static(m)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            mr = fem.modes(m, st.q, st.lam, n_modes=4)
        out[ratio] = (mr, [x for x in w if issubclass(x.category, fem.FemWarning)])
    stable, w_stable = out[0.5]
    assert stable.unstable == 0 and stable.frequencies_hz[0] > 0 and not w_stable
    # the lowest bending frequency under P = P_cr/2 is about f₀ √(1 − P/P_cr) (≈ 3 %)
    m0, _, _ = _cable(16, gravity=(0, 0, 0))
    f0 = fem.modes(m0, n_modes=1).frequencies_hz[0]
    assert stable.frequencies_hz[0] == pytest.approx(f0 * np.sqrt(0.5), rel=0.05)
    buckled, w_buckled = out[1.5]
    assert buckled.unstable == 2                 # both bending planes
    assert buckled.frequencies_hz[0] < 0 and buckled.omega2[0] < 0
    assert w_buckled and "unstable" in str(w_buckled[0].message)


# ------------------------------------------------------------------ diagnoses
def test_loose_part_is_named():
    m = fem.Model(gravity=(0, 0, -9.81))
    _, n1 = fem.straight_cable(m, (0, 0, 0), (1, 0, 0), 2, STEEL, 1e-4, 1e-9, name="cable A")
    fem.straight_cable(m, (1, 0, 0), (2, 0, 0), 2, STEEL, 1e-4, 1e-9, name="cable B")
    m.fix(n1[0])
    msg = _raise("loose part", fem.solve_static, m)
    assert "cable B" in msg and "cable A" not in msg and "unmerged node" in msg


def test_unsupported_model_is_named():
    m = fem.Model(gravity=(0, 0, -9.81))
    fem.straight_cable(m, (0, 0, 0), (1, 0, 0), 2, STEEL, 1e-4, 1e-9)
    msg = _raise("whole model .* can translate freely along x, y, z", fem.solve_static, m)
    assert "redundant" not in msg


def test_huge_load_is_not_blamed_on_constraints():
    m, _, nodes = _cable(4, gravity=(0, 0, 0))
    m.add_force(m.point(nodes[-1]), (0, 0, -1e9))     # 10 TPa of stress in a steel cable
    msg = _raise("static solve failed at load increment 1", fem.solve_static, m,
                 adaptive=False)
    assert "redundant" not in msg and "diverged iterate, not from the model" in msg
    msg = _raise("could not be followed further", fem.solve_static, m)
    assert "redundant" not in msg and "far too soft for this load" in msg


def test_very_soft_material_is_diagnosed():
    m, _, _ = _cable(8, material=fem.Material(1.0, 0.3, 1000.0))    # E = 1 Pa
    msg = _raise("static solve failed", fem.solve_static, m)
    assert "redundant" not in msg and "check the units of E" in msg
    assert "largest force residual" in msg and "cable node" in msg


def test_huge_time_step_is_not_blamed_on_constraints():
    m, _, _ = _cable(4, material=fem.Material(1e7, 0.3, 1e3))
    msg = _raise("generalized-α Newton failed", fem.simulate, m, 1.0, 0.3)
    assert "redundant" not in msg and "halving the step" in msg


@pytest.mark.parametrize("load_steps", [1, 2, 5, 10, 20, 50])
def test_load_stepping_is_not_erratic(load_steps):
    # PL²/EI = 10 with self-weight: the old solver failed for every choice of load_steps
    # here and converged for some at PL²/EI = 3; every choice must reach one equilibrium
    m, _, nodes = _cable(8, material=fem.Material(1e7, 0.3, 1e3))
    m.add_force(m.point(nodes[-1]), (0, 0, -0.1))
    st = fem.solve_static(m, load_steps=load_steps)
    ref = fem.solve_static(m, load_steps=200, adaptive=False)
    np.testing.assert_allclose(st.q, ref.q, atol=1e-7)


# ------------------------------------------------------------------ case parameters
CASE_PARAMS = [
    ("cantilever_cable", ["n_modes=0"], "'n_modes' must be >= 1; got 0"),
    ("cantilever_cable", ["t_end_s=inf"], "'t_end_s' must be finite"),
    ("cantilever_cable", ["dt_s=nan"], "'dt_s' must be finite"),
    ("cantilever_cable", ["analysis=foo"], "'analysis' must be one of"),
    ("cantilever_cable", ["n_elements=2.5"], "'n_elements' is an integer"),
    ("cantilever_cable", ["rho_inf=1.5"], r"'rho_inf' must lie in \[0, 1\]"),
    ("parallel_robot_flexible_platform", ["line_direction=[1,2]"], "is a 3-vector"),
    ("parallel_robot_flexible_platform", ["sweep_E_Pa=[1e9, 1e999]"], "list of finite numbers"),
    ("parallel_robot_flexible_platform", ["payload_kg=-1"], "'payload_kg' must be >= 0"),
    ("parallel_robot_flexible_platform", ["dt_s=5ms"], r"'dt_s' is 'auto' or a number \(>0\)"),
    ("parallel_robot_flexible_platform", ["rho_inf=-0.1"], r"'rho_inf' must lie in \[0, 1\]"),
    ("plate_benchmark", ["nu=0.5"], r"'nu' must lie in \(-1, 0.5\)"),
    ("double_pendulum", ["dt_s=-1"], "'dt_s' must be > 0"),
    ("double_pendulum", ["joint=hinge"], "'joint' must be one of"),
    ("vibrating_screen_1t2r", ["branch_coupler=0"], "'branch_coupler' must be one of"),
]


@pytest.mark.parametrize("case,items,match", CASE_PARAMS)
def test_case_parameters_are_checked(case, items, match):
    from fem.cases import load_case, parse_params

    _raise(match, parse_params, load_case(case), items)


def test_case_parameters_given_as_a_dict_are_checked():
    # the Python API and sweeps pass typed values: the same checks apply
    from fem.cases import check_params, load_case

    mod = load_case("cantilever_cable")
    _raise("'n_modes' must be >= 1", check_params, mod, {"n_modes": 0})
    _raise("'t_end_s' must be finite", check_params, mod, {"t_end_s": float("inf")})
    assert check_params(mod, {"n_modes": 3, "t_end_s": 0.5}) == {"n_modes": 3, "t_end_s": 0.5}
