"""The fused (compiled) vector algebra of a Newton iteration against its NumPy form.

``fem.solvers.fused`` replaces a dozen NumPy calls per generalized-α iteration by two
compiled loops (issue 12); the NumPy form in the same module is the reference.
"""

import numpy as np
import pytest

from fem.solvers import fused
from fem.solvers.alpha import AlphaParameters, StepCoefficients


def _data(n=37, m=5, damped=True, seed=0):
    rng = np.random.default_rng(seed)
    Mq, f, fe, JTl = (rng.standard_normal(n) for _ in range(4))
    extra = rng.standard_normal(n) if damped else np.zeros(0)
    phi = rng.standard_normal(m)
    return Mq, f, fe, JTl, extra, phi


@pytest.mark.parametrize("damped", [False, True])
@pytest.mark.parametrize("m", [0, 5])
def test_residual_and_rhs_match_numpy(damped, m):
    Mq, f, fe, JTl, extra, phi = _data(m=m, damped=damped)
    n = Mq.size
    out = []
    for fn in (fused._residual_numpy, fused.residual_and_rhs):
        res, rhs = np.empty(n), np.empty(n + m)
        norms = fn(Mq, f, fe, JTl, extra, phi, 0.3, -0.25, res, rhs)
        out.append((res, rhs, norms))
    (r0, b0, (a0, s0, p0)), (r1, b1, (a1, s1, p1)) = out
    expected = Mq + f - fe + JTl + (extra if damped else 0.0)
    assert np.array_equal(r1, r0) and np.array_equal(r0, expected)   # same order of ops
    assert np.array_equal(b1, b0)
    assert np.array_equal(b1[:n], -0.25 * expected) and np.array_equal(b1[n:], -phi)
    assert a1 == pytest.approx(expected @ expected, rel=1e-13)
    assert a0 == pytest.approx(a1, rel=1e-13)
    assert s1 == pytest.approx(max(Mq @ Mq, f @ f, JTl @ JTl, 0.3), rel=1e-13)
    assert p1 == p0 == (np.abs(phi).max() if m else 0.0)


def test_scale_floor_wins_when_forces_vanish():
    z = np.zeros(4)
    res, rhs = np.empty(4), np.empty(4)
    r2, s2, pmax = fused.residual_and_rhs(z, z, z, z, np.zeros(0), np.zeros(0), 2.5, -1.0,
                                          res, rhs)
    assert (r2, s2, pmax) == (0.0, 2.5, 0.0)


def test_nan_in_constraints_propagates():
    Mq, f, fe, JTl, extra, phi = _data(m=3)
    phi[1] = np.nan
    res, rhs = np.empty(Mq.size), np.empty(Mq.size + 3)
    _, _, pmax = fused.residual_and_rhs(Mq, f, fe, JTl, extra, phi, 0.0, 1.0, res, rhs)
    assert np.isnan(pmax)       # a diverging iterate must not look converged


def test_apply_correction_matches_numpy():
    rng = np.random.default_rng(1)
    n, m = 23, 4
    state = [rng.standard_normal(n) for _ in range(3)] + [rng.standard_normal(m)]
    dx = rng.standard_normal(n + m)
    a = [s.copy() for s in state]
    b = [s.copy() for s in state]
    fused._update_numpy(*a, dx, 7.0, 300.0)
    fused.apply_correction(*b, dx, StepCoefficients(1e-3, beta_prime=300.0, gamma_prime=7.0))
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x, y)
    q, v, qdd, lam = b
    assert np.array_equal(q, state[0] + dx[:n])
    assert np.array_equal(lam, state[3] + 300.0 * dx[n:])


@pytest.mark.parametrize("linear", [False, True])
def test_predict_and_acceleration_match_numpy(linear):
    rng = np.random.default_rng(2)
    q0, v0, qdd0, a0, prev = (rng.standard_normal(31) for _ in range(5))
    coef = dict(h=1e-3, af=0.44, am=-0.11, gam=1.05, beta=0.55)
    c = 1.5 if linear else 0.0
    ref = fused._predict_numpy(q0, v0, qdd0, a0, prev, c, *coef.values())
    par = AlphaParameters(alpha_m=-0.11, alpha_f=0.44, gamma=1.05, beta=0.55)
    got = fused.predict(q0, v0, qdd0, a0, prev if linear else None, c, par, 1e-3)
    for x, y in zip(ref, got, strict=True):
        assert np.array_equal(x, y)       # the same operations in the same order
    if not linear:
        assert np.array_equal(got[2], qdd0) and got[2] is not qdd0
    a_ref = fused._acceleration_numpy(qdd0, got[2], a0, 0.44, -0.11)
    assert np.array_equal(fused.algorithmic_acceleration(qdd0, got[2], a0, par), a_ref)
