"""Constraint library: analytic Φ_q, Φ_qq, Φ_t and γ against finite differences."""

import numpy as np
import pytest

import fem


def _model():
    m = fem.Model("constraints")
    b1 = m.add_rigid_body("a", 1.0, (0, 0, 0), com=(0.5, 0, 0), inertia=np.eye(3) * 0.1)
    b2 = m.add_rigid_body("b", 1.0, (1, 0, 0), com=(0.5, 0, 0), inertia=np.eye(3) * 0.1)
    n = m.add_node(r=(2, 0.5, 0), r_x=(1, 0, 0))
    angle = lambda t: (0.3 * np.sin(2 * t), 0.6 * np.cos(2 * t), -1.2 * np.sin(2 * t))
    circle = lambda t: (np.array([np.cos(t), np.sin(t), 0.2 * t]),
                        np.array([-np.sin(t), np.cos(t), 0.2]),
                        np.array([-np.cos(t), -np.sin(t), 0.0]))
    m.add_constraint(fem.Distance(b1.point((1, 0, 0)), m.point(n)))
    m.add_constraint(fem.Dot(b2.axis(1), b1.axis(2), 0.0))
    m.add_constraint(fem.Coincident(b1.point((1, 0, 0)), b2.point((0, 0, 0))))
    m.add_constraint(fem.AngleDrive(m.ground((0, 0, 0)), b1.point((1, 0, 0)), (0, 0, 1),
                                    (1, 0, 0), angle))
    m.add_constraint(fem.PrescribedPoint(m.node_field(n, "r"), circle, (0, 2)))
    m.add_constraint(fem.Dot(m.node_field(n, "r_x"), m.ground((0, 1, 0)), 0.0))
    return m


def test_jacobian_hessian_and_time_derivatives_match_finite_differences():
    m = _model()
    asm = m.assemble()
    rng = np.random.default_rng(0)
    q = asm.q0 + 0.1 * rng.normal(size=asm.n)
    v = rng.normal(size=asm.n)
    lam = rng.normal(size=asm.m)
    t, h = 0.37, 1e-6
    J = asm.jacobian(q, t).toarray()
    Jfd = np.column_stack([(asm.phi(q + h * e, t) - asm.phi(q - h * e, t)) / (2 * h)
                           for e in np.eye(asm.n)])
    assert np.abs(J - Jfd).max() < 1e-8
    # Hessian-vector: ∂(Φ_qᵀλ)/∂q
    H = asm.stiffness(np.zeros(asm._krows.size), asm.hessian_values(lam))
    H = H if isinstance(H, np.ndarray) else H.toarray()
    Hfd = np.column_stack([(asm.jacobian(q + h * e, t).T @ lam
                            - asm.jacobian(q - h * e, t).T @ lam) / (2 * h)
                           for e in np.eye(asm.n)])
    assert np.abs(H - Hfd).max() < 1e-7
    # Φ_t and γ = −(Φ_q v)_q v − 2Φ_qt v − Φ_tt via the second total derivative along
    # the path q(s) = q + s v, t(s) = t + s:  d²Φ/ds² = Φ_q·0 − γ  (q̈ = 0)
    phit = (asm.phi(q, t + h) - asm.phi(q, t - h)) / (2 * h)
    assert np.abs(asm.phi_t(q, t) - phit).max() < 1e-8
    s = 1e-4
    d2 = (asm.phi(q + s * v, t + s) - 2 * asm.phi(q, t) + asm.phi(q - s * v, t - s)) / s**2
    assert np.abs(-asm.gamma(q, v, t) - d2).max() < 1e-5


def test_angle_drive_torque_sign():
    # a crank of length 0.5 m turned about +z: τ = −λ l
    m = fem.Model(gravity=(0, -9.81, 0))
    n0 = m.add_node(r=(0, 0, 0))
    n1 = m.add_node(r=(0.5, 0, 0))
    m.add_element("rigid_bar", [n0, n1], mass=2.0)
    m.fix(n0)
    m.add_constraint(fem.Dot(m.point(n1), m.ground((0, 0, 1)), 0.0))
    drive = m.add_constraint(fem.AngleDrive(m.point(n0), m.point(n1), (0, 0, 1), (1, 0, 0),
                                            lambda t: (0.0, 0.0, 0.0)))
    st = fem.solve_static(m)
    lam = st.lam[m.assemble().rows_of(drive)]
    # holding a horizontal bar against gravity −y: τ = m g l/2 about +z
    assert drive.torque(lam, st.q)[0] == pytest.approx(2.0 * 9.81 * 0.25, rel=1e-10)


@pytest.mark.compiled
@pytest.mark.parametrize("case", ["robot", "screen"])
def test_compiled_constraint_state_matches_numpy(case):
    # issue 12: Φ and Φ_q values from the compiled pass (fem.constraints.compiled)
    # against the NumPy form, on models with servo rows and a path (the flagship robot)
    # and with a prescribed direction β(t) (the vibrating screen's angle drive)
    from fem.constraints.compiled import state_kernel

    if state_kernel() is None:
        pytest.skip("numba not available (FEM_NO_JIT or not installed)")
    if case == "robot":
        from fem.robots import rrru3
        from fem.robots.rrru3_model import build_robot
        geom = rrru3.RRRU3Geometry()
        model = build_robot(geom, "flexible", "hexagon_6",
                            path=rrru3.paper_circle_path(geom)).model
    else:
        import vibrating_screen_1t2r as screen
        model = screen.build()
    asm = model.assemble()
    assert asm.n_bil > 0
    rng = np.random.default_rng(8)
    for t in (0.0, 0.37, 0.37, 1.1):          # repeated time: the cached terms
        q = asm.q0 + 1e-2 * rng.standard_normal(asm.n)
        phi, jv = asm.constraint_state(q, t)
        phi0, jv0 = asm.constraint_state_numpy(q, t)
        assert np.abs(phi - phi0).max() <= 1e-13 * max(np.abs(phi0).max(), 1.0)
        assert np.abs(jv - jv0).max() <= 1e-13 * np.abs(jv0).max()
        assert np.array_equal(asm.jacobian_values(q, t), jv)
        lam = rng.standard_normal(asm.m)
        r = asm.reaction(jv, lam, q)
        keep = np.ones(asm.m)
        keep[asm._servo_rows] = 0.0
        r0 = asm.jacobian(q, t).T @ (lam * keep)                       # Φ_qᵀλ, ordinary rows
        for a, row in zip(asm._act, asm._servo_rows, strict=True):    # −B(q) u, servo rows
            np.add.at(r0, a.dofs, -a.B(q) * lam[row])
        assert np.abs(r - r0).max() <= 1e-13 * np.abs(r0).max()


@pytest.mark.parametrize("shape", ["cosine", "sine", "s-curve"])
def test_paths_at_many_times_are_their_values_at_each_to_the_bit(shape):
    """``at_times`` of the paths (a solver's block of steps' motions in one call,
    ``ConstantStructure.terms_at``) gives every time's values exactly as the call at that
    time — the same operations elementwise — through the phases' ends and outside."""
    from fem.model import trajectory as tr

    make = {"cosine": tr.CosineAccelerationProfile, "sine": tr.SineAccelerationProfile,
            "s-curve": tr.SCurveProfile}[shape]
    prof = make(duration=1.6, distance=0.2 * np.pi)
    paths = [tr.circle_path((0.3, 0.1, 0.2), 0.1, (0.0, 0.0, 1.0), 0.4, prof, sweep=2 * np.pi),
             tr.circle_path((0.0, 0.0, 0.0), 0.1, (1.0, 0.0, 0.0), 0.0, prof),
             tr.line_path((0.0, 0.1, 0.0), (0.3, -0.2, 0.5), prof)]
    times = np.concatenate([np.arange(0.0, 1.7, 0.0025), prof.breakpoints(),
                            [-0.1, 1.7, 0.64 + 1e-12, 0.96 - 1e-12]])
    for path in paths:
        many = path.at_times(times)
        if shape == "s-curve":          # its powers of u differ in the last bit: per time
            assert many is None and not prof.vector_exact
            continue
        assert all(x.shape == (times.size, 3) for x in many)
        for i, t in enumerate(times.tolist()):
            one = path(t)
            for k in range(3):
                assert np.array_equal(many[k][i], one[k]), (type(path).__name__, t, k)
