"""Natural-coordinate rigid bodies and the rigid double pendulum.

References: closed-form mass properties; an independent minimal-coordinate ODE
(Lagrange's equations in the two joint angles, DOP853 at 1e-12) of the same pendulum.
"""

import double_pendulum as dp
import numpy as np
import pytest

import fem


def test_rigid_bar_and_triangle_mass_matrices():
    bar = fem.elements.get("rigid_bar")(np.array([[0, 0, 0, 2, 0, 0.0]]), mass=3.0)
    assert np.allclose(bar.mass_scalar()[0], [[1.0, 0.5], [0.5, 1.0]])  # m/3, m/6
    tri = fem.elements.get("rigid_triangle")(np.array([[0, 0, 0, 1, 0, 0, 0, 1, 0.0]]),
                                             mass=12.0)
    assert np.allclose(np.diag(tri.mass_scalar()[0]), 2.0)              # m/6
    assert np.allclose(tri.mass_scalar()[0][0, 1], 1.0)                 # m/12


def test_rigid_body_mass_matrix_gives_kinetic_energy():
    # T = ½ m |v_c|² + ½ ωᵀ I_c ω for a body with offset COM, rotated axes
    rng = np.random.default_rng(3)
    from scipy.spatial.transform import Rotation
    R = Rotation.random(random_state=4).as_matrix()
    m, c = 2.5, np.array([0.3, -0.1, 0.2])
    # a box 0.4 × 0.3 × 0.2 m, principal axes tilted against the body axes
    a, b, d = 0.4, 0.3, 0.2
    P = Rotation.random(random_state=5).as_matrix()
    Ic = P @ np.diag([m * (b * b + d * d), m * (a * a + d * d), m * (a * a + b * b)]) @ P.T / 12
    model = fem.Model()
    body = model.add_rigid_body("b", m, rng.normal(size=3), R, com=c, inertia=Ic)
    asm = model.assemble()
    w, vr = rng.normal(size=3), rng.normal(size=3)
    v = np.zeros(12)
    v[0:3] = vr
    for i in range(3):
        v[3 + 3 * i: 6 + 3 * i] = np.cross(w, R[:, i])
    vc = vr + np.cross(w, R @ c)
    T_ref = 0.5 * m * vc @ vc + 0.5 * w @ (R @ Ic @ R.T) @ w
    assert abs(0.5 * v @ asm.M @ v - T_ref) < 1e-12 * T_ref
    assert body.rotation(model.q0) == pytest.approx(R)


def test_rigid_body_rejects_unphysical_inertia():
    with pytest.raises(fem.ModelError, match="not physical"):
        fem.Model().add_rigid_body("b", 1.0, (0, 0, 0), inertia=np.diag([1.0, 1.0, 3.0]))


def test_double_pendulum_energy_and_constraints_5s():
    # ρ∞ = 1, h = 1e-3 over 5 s: energy error below 1e-5 of the largest kinetic energy
    # (max deviation, measured 4.7e-6), constraint residual below 1e-10 at every step
    fig = dp.run(t_end_s=5.0, dt_s=1e-3, rho_inf=1.0)
    assert fig["energy_error_max_relative"] < 1e-5
    assert fig["max_residual_constraints"] < 1e-10
    assert fig["n_coordinates"] - fig["n_constraints"] == 2   # two degrees of freedom


@pytest.mark.slow
def test_double_pendulum_matches_minimal_coordinate_ode_second_order():
    # -m slow (7000 steps): the quick suite runs `fem validate --quick`'s
    # generalized_alpha_order (tests/test_validate_cli.py::test_quick_set_passes), the
    # case's double pendulum against the same ODE at h = 4, 2, 1 ms, its angles', rates'
    # and a multiplier's orders within 1.8 … 2.3
    errs = []
    for h in (2e-3, 1e-3, 5e-4):
        fig = dp.run(t_end_s=2.0, dt_s=h, rho_inf=1.0)
        errs.append(fig["max_angle_error_vs_ode_rad"])
    assert errs[1] < 1e-4                      # h = 1e-3: within 1e-4 rad over 2 s
    rates = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all(rates > 1.8), rates          # second order as h halves


def test_spherical_double_pendulum_is_spatial_and_conserves_energy():
    fig = dp.run(joint="spherical", t_end_s=2.0, dt_s=1e-3)
    assert fig["energy_error_max_relative"] < 1e-5
    assert fig["max_residual_constraints"] < 1e-10
    assert fig["n_coordinates"] - fig["n_constraints"] == 6   # two ball joints
