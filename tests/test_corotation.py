"""Co-rotated factorization reuse (fem.solvers.corotation).

The claim it rests on: every family's tangent is frame-indifferent, ``K(R q) = P K(q) Pᵀ``
with ``P`` turning each 3-vector, and the mass is a scalar matrix per 3-vector pair.  For
a free body turned rigidly, the factorization at the old pose, turned, must then solve
the new pose's iteration matrix exactly (to round-off), for every family.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import fem
from fem.assembly.linalg import Factorization
from fem.elements.materials import Material
from fem.solvers.corotation import CoRotation, best_fit_rotation


def test_best_fit_rotation_recovers_a_rotation_and_is_proper():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((20, 3))
    R = Rotation.from_rotvec([0.3, -1.1, 0.7]).as_matrix()
    Y = X @ R.T + np.array([1.0, 2.0, -3.0])
    np.testing.assert_allclose(best_fit_rotation(X, Y), R, atol=1e-12)
    # a mirror image still gives a proper rotation
    Rm = best_fit_rotation(X, X * np.array([1, 1, -1]))
    assert np.isclose(np.linalg.det(Rm), 1.0)


def _free_models():
    cable = fem.Model("cable")
    sec = fem.rectangle_section(0.02, 0.02)
    fem.straight_cable(cable, (0, 0, 0), (2.0, 0, 0), 6, Material(2.1e11, 0.3, 7850),
                       sec["area"], sec["iy"])
    beam = fem.Model("beam")
    fem.straight_beam(beam, (0, 0, 0), (1.0, 0.2, 0), 4, Material(2.1e11, 0.3, 7850),
                      section="rectangle", width=0.03, height=0.02)
    plate = fem.Model("plate")
    plate.add_mesh(fem.load_builtin_mesh("hexagon_6"), "bezier_plate_shared",
                   Material(6.9e8, 0.3, 1000.0), thickness=0.006)
    return {"cable": cable, "beam": beam, "plate": plate}


@pytest.mark.parametrize("name", ["cable", "beam", "plate"])
def test_turned_factorization_solves_the_turned_body_exactly(name):
    model = _free_models()[name]
    asm = model.assemble()
    rng = np.random.default_rng(11)
    # a deformed pose, then the same pose turned rigidly about its centroid
    q = asm.q0 + 1e-3 * rng.standard_normal(asm.n)
    R = Rotation.from_rotvec([0.4, 0.2, -0.9]).as_matrix()
    # turned about the origin: positions and slopes/directors alike (every coordinate
    # belongs to a 3-vector); translations leave the tangent unchanged anyway
    qR = (q.reshape(-1, 3) @ R.T).ravel()
    corot = CoRotation(asm)
    assert corot, "an elastic group must give a body"

    def S(x):
        _, kv = asm.internal_forces(x, tangent=True)
        return asm.saddle(1.0, 1e-4, kv, np.zeros(asm._hrows.size),
                          np.zeros(asm._jrows.size), 1.0, q=x)

    old = Factorization(S(q))
    b = rng.standard_normal(asm.n + asm.m)
    x_fresh = Factorization(S(qR)).solve(b)
    x_turned = corot.solve(old, b, corot.snapshot(q), qR)
    x_stale = old.solve(b)
    err_turned = np.abs(x_turned - x_fresh).max() / np.abs(x_fresh).max()
    err_stale = np.abs(x_stale - x_fresh).max() / np.abs(x_fresh).max()
    assert err_turned < 1e-8, err_turned
    assert err_stale > 1e-3, "the test must be able to fail: the unturned solve differs"


def test_corotated_run_matches_plain_run():
    """Flagship robot, 24-element platform: co-rotated reuse changes the cost, not the
    torques (to the Newton tolerance)."""
    from fem.robots import rrru3
    from fem.robots.rrru3_model import build_robot, static_state

    geom = rrru3.RRRU3Geometry()
    rm = build_robot(geom, "flexible", "hexagon_24", path=rrru3.paper_circle_path(geom),
                     shear_factor="auto", damping_beta=1e-5)
    st = static_state(rm)
    kw = {"rho_inf": 0.1, "q0": st.q, "tol": 1e-8, "constraint_tol": 1e-11,
          "reuse": "step", "factor_cost": 12.0}
    plain = fem.simulate(rm.model, 0.3, 5e-3, **kw)
    turned = fem.simulate(rm.model, 0.3, 5e-3, corotate=True, **kw)
    assert turned.info["factorizations"] < plain.info["factorizations"]
    np.testing.assert_allclose(turned.lam, plain.lam, rtol=0,
                               atol=1e-6 * np.abs(plain.lam).max())


@pytest.mark.compiled
def test_compiled_fit_and_turn_match_numpy():
    # the compiled rotation fit and turning (issue 12) against the NumPy forms
    from fem.solvers import corotation

    fit, turn = corotation._kernels()
    rng = np.random.default_rng(7)
    q = rng.standard_normal(60)
    pos = rng.permutation(60)[:30].reshape(10, 3)
    X0 = q[pos] @ Rotation.from_rotvec([0.2, 0.1, -0.4]).as_matrix() + 0.01
    np.testing.assert_allclose(fit(X0, q, pos), best_fit_rotation(X0, q[pos]), atol=1e-13)
    R = Rotation.from_rotvec([0.5, -0.3, 0.9]).as_matrix()
    trip = rng.permutation(60)[:45].reshape(15, 3)
    for inverse in (False, True):
        a, b = q.copy(), q.copy()
        corotation._turn_numpy(a, trip, R, inverse)
        turn(b, trip, R, inverse)
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-15)
