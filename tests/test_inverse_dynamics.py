"""Inverse dynamics with servo (trajectory) constraints and actuators.

Reference: a uniform rod of mass m and length L on a motorized horizontal hinge, its tip
made to follow a prescribed height: τ = (m L²/3) θ̈ + m g (L/2) cos θ.
"""

import numpy as np
import pytest

import fem
from fem.model.actuators import RevoluteActuator

M, L, G = 2.0, 0.8, 9.81


def _theta(t):
    return 0.3 + 0.4 * np.sin(2 * t), 0.8 * np.cos(2 * t), -1.6 * np.sin(2 * t)


def _arm():
    """The rod of :func:`fem.validation.checks_dynamics.servo_rod` (its motion is
    ``_theta`` here; the torque reference below is this file's own closed form)."""
    from fem.validation.checks_dynamics import servo_rod

    return servo_rod()[0]


def _reference(t):
    th, thd, thdd = _theta(t)
    return M * L**2 / 3 * thdd + M * G * L / 2 * np.cos(th)


def test_driven_inverse_dynamics_exact():
    model = _arm()
    t = np.linspace(0, 2, 41)
    res = fem.driven_inverse_dynamics(model, t)
    asm = model.assemble()
    tau = np.array([asm.efforts(lam)["motor"] for lam in res.lam])
    assert np.abs(tau - _reference(t)).max() < 1e-11 * np.abs(_reference(t)).max()


def test_generalized_alpha_inverse_dynamics_second_order():
    errs = []
    for h in (4e-3, 2e-3, 1e-3):
        model = _arm()
        res = fem.simulate(model, 1.0, h, rho_inf=0.5, tol=1e-12, constraint_tol=1e-13)
        asm = model.assemble()
        tau = np.array([asm.efforts(lam)["motor"] for lam in res.lam])
        late = res.t >= 0.25
        errs.append(np.abs(tau[late] - _reference(res.t[late])).max())
        assert res.stats["residual_constraints"].max() < 1e-12
    # after the start-up transient of index-3 generalized-α (an O(h) oscillation of the
    # multipliers damped by ρ∞ < 1), the torque converges at second order
    rates = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all(rates > 1.8), (errs, rates)
    assert errs[-1] < 1e-5 * np.abs(_reference(np.linspace(0, 1, 5))).max()


def test_static_holding_torque():
    model = _arm()
    st = fem.solve_static(model)
    th0 = _theta(0.0)[0]
    assert model.assemble().efforts(st.lam)["motor"] == pytest.approx(
        M * G * L / 2 * np.cos(th0), rel=1e-10)


def test_actuator_count_must_match_servo_rows():
    model = _arm()
    model.add_actuator(RevoluteActuator(model.point(0), model.point(1), (0, -1, 0), "extra"))
    with pytest.raises(fem.ModelError, match="one actuator with unknown effort per servo"):
        model.assemble()
