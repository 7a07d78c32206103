"""Floating-frame bodies evaluated together (:mod:`fem.bodies.frame_batch`, NumPy path).

References: every body evaluated alone (``body._batch = None``: the single body's own
methods, :meth:`FloatingFrameBody.inertia`, ``forces``, ``mass``, the tip point and
section axis maps), and the general rows' per-term loop (``GeneralRows`` without its
batched form) for Φ, Φ_q and λ·Φ_qq on the tips.  Equal to round-off.
"""

from __future__ import annotations

import numpy as np
import pytest

import fem
from fem.bodies.floating_frame import LinkPoint, SectionDirection
from fem.constraints import Coincident, Dot
from fem.constraints.general import GeneralRows
from fem.elements.floating_frame import FloatingFrameLink


def _model(kinematics: str, rotary_inertia: str, basis: str = "bezier", n: int = 4):
    m = fem.Model()
    bodies = []
    for i in range(3):
        lk = FloatingFrameLink(0.7 + 0.1 * i, basis, n, 2.0, 1e6, 50.0, 40.0, 30.0, 0.01,
                               kinematics=kinematics)
        bodies.append(m.add_floating_frame(f"b{i}", lk, [0.0, 0.0, float(i)],
                                           rotary_inertia=rotary_inertia))
    # the tip of each body fixed to the root of the next (point and axes): general rows
    for a, b in zip(bodies, bodies[1:], strict=False):
        m.add_constraint(Coincident(a.point(a.link.length), b.origin))
        m.add_constraint(Dot(a.direction(a.link.length, 1), b.axis(0)))
    return m, bodies


def _evaluations(bodies, q, v, a, g):
    out = []
    for b in bodies:
        L = b.link.length
        for mp in [LinkPoint(b, L)] + [SectionDirection(b, L, ax) for ax in range(3)]:
            out += list(mp.evaluate(q, True)) + list(mp.evaluate(q, False)[:2])
        out += [b.inertia(q, v, a, False)[0], *b.inertia(q, v, a, True)[1]]
        out += list(b.forces(q, g, True)) + [b.forces(q, g, False)[0], b.mass(q)]
    return out


@pytest.mark.parametrize("kinematics,rotary_inertia,basis",
                         [("fourth_order", "section", "bezier"),
                          ("paper", "twist", "bspline"),
                          ("curvature_only", "section", "modes")])
def test_batch_equals_the_bodies_alone(kinematics, rotary_inertia, basis):
    m, bodies = _model(kinematics, rotary_inertia, basis)
    asm = m.assemble()
    assert len(asm.body_batches) == 1 and len(asm.body_batches[0].bodies) == 3
    rng = np.random.default_rng(7)
    q = asm.q0 + 0.05 * rng.normal(size=asm.n)
    v, a = rng.normal(size=asm.n), rng.normal(size=asm.n)
    g = np.array([0.0, 0.0, -9.81])
    batched = _evaluations(bodies, q, v, a, g)
    f_in, t_in = asm.inertia_forces(q, v, a, True)
    f_el, k_el = asm.internal_forces(q, v, True)
    for b in bodies:
        b._batch, b._line_q = None, None
    alone = _evaluations(bodies, q, v, a, g)
    for x, y in zip(batched, alone, strict=True):
        assert np.allclose(x, y, rtol=1e-13, atol=1e-13 * max(np.abs(y).max(), 1e-300))
    asm.body_batches = []
    g_in, u_in = asm.inertia_forces(q, v, a, True)
    g_el, l_el = asm.internal_forces(q, v, True)
    for x, y in [(f_in, g_in), (f_el, g_el), (k_el, l_el), *zip(t_in, u_in, strict=True)]:
        assert np.allclose(x, y, rtol=1e-13, atol=1e-13 * np.abs(y).max())


def test_general_rows_on_tips_batched_equal_the_loop():
    m, bodies = _model("fourth_order", "section")
    asm = m.assemble()
    rows = asm._general
    assert rows._batched is not None and not rows._batched.constant
    loop = GeneralRows.__new__(GeneralRows)
    loop.__dict__.update(rows.__dict__)
    loop._batched, loop._last = None, None
    rng = np.random.default_rng(8)
    q = asm.q0 + 0.05 * rng.normal(size=asm.n)
    lam = rng.normal(size=rows.n_con)
    keep = np.ones(rows.n_con)
    for x, y in zip(rows.state(q, 0.3), loop.state(q, 0.3), strict=True):
        assert np.allclose(x, y, rtol=1e-13, atol=1e-14)
    h, h_loop = rows.hessian_values(lam, q, keep, 0.3), loop.hessian_values(lam, q, keep, 0.3)
    assert np.allclose(h, h_loop, rtol=1e-13, atol=1e-13 * np.abs(h_loop).max())
    assert rows.compiled_form(q) is None           # second derivatives change with q


@pytest.mark.parametrize("kinematics", ["paper", "fourth_order", "curvature_only",
                                        "foreshortening_only"])
def test_second_patterns_hold_every_nonzero(kinematics):
    """``second_pattern`` of the tip point and section axes (what ``λ·Φ_qq`` keeps of
    their ``H``) holds every nonzero of ``H`` at random states, batched and alone, and
    ``second_source`` (the batch's tip second derivatives without their zeros) gives
    the same ``H`` as ``evaluate``."""
    m, bodies = _model(kinematics, "section")
    asm = m.assemble()
    rng = np.random.default_rng(12)
    maps = [mp for b in bodies for mp in [LinkPoint(b, b.link.length)]
            + [SectionDirection(b, b.link.length, ax) for ax in range(3)]
            + [LinkPoint(b, 0.3 * b.link.length)]]
    for _alone in (False, True):      # batched, then alone
        for _ in range(3):
            q = asm.q0 + 0.2 * rng.normal(size=asm.n)
            for mp in maps:
                H = mp.evaluate(q, True)[2]
                assert not np.any(H[~mp.second_pattern()])
                src = mp.second_source()
                if src is not None:
                    _, get, ix = src
                    assert np.array_equal(np.where(ix >= 0, get(q)[ix], 0.0), H)
        for b in bodies:
            b._batch, b._line_q = None, None
        assert all(mp.second_source() is None for mp in maps)


@pytest.mark.parametrize("basis", ["bezier", "bspline"])
def test_director_invariants_equal_the_director_points(basis):
    """The section directors' inertia forces in closed form from the invariants
    (``m_d, s, S``: ``FrameBatch._director_forces``) equal the quadrature over the
    director points ``Σ_p μ_p J_pᵀ (J_p q̈ + q̇ᵀH_p q̇)`` (their ``J``, ``H``)."""
    m, _ = _model("fourth_order", "section", basis)
    asm = m.assemble()
    bt = asm.body_batches[0]
    rng = np.random.default_rng(11)
    q = asm.q0 + 0.1 * rng.normal(size=asm.n)
    v, a = rng.normal(size=asm.n), rng.normal(size=asm.n)
    qB, vB, aB = q[bt.idx], v[bt.idx], a[bt.idx]
    f = np.zeros(qB.shape)
    bt._director_forces(qB, vB, aB, f)
    bt._directors(qB)
    o = bt.rows[1]
    B, k = qB.shape
    J = bt.J[:, o:].reshape(B, -1, k)
    H = bt.H[:, o:].reshape(B, -1, k, k)
    acc = (J @ aB[:, :, None])[:, :, 0] + np.einsum("bi,bpij,bj->bp", vB, H, vB)
    ref = ((bt.w3[:, 3 * o:] * acc)[:, None, :] @ J)[:, 0]
    assert np.abs(ref).max() > 0
    assert np.allclose(f, ref, rtol=1e-13, atol=1e-13 * np.abs(ref).max())
