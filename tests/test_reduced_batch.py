"""Reduced bodies evaluated together (:mod:`fem.bodies.reduced_batch`, NumPy path) and the
points of several reduced bodies in one evaluation (``ReducedPoint.evaluate_batch``).

References: every body evaluated alone (the assembly without its batches: the body's own
:meth:`ReducedBody.inertia`, ``forces``), the points of one body at a time (the former
per-body evaluator) and the general rows' per-term loop (``GeneralRows`` without its
batched form) for Φ, Φ_q and λ·Φ_qq.  Equal to round-off (1e-12 relative).
"""

from __future__ import annotations

import numpy as np
import pytest

import fem
from fem.bodies.reduced import ReducedPoint
from fem.bodies.reduced_batch import ReducedBatch
from fem.constraints import Coincident, Dot
from fem.constraints.general import GeneralRows
from fem.model.builders import straight_beam
from fem.reduction import reduce_body, rigid

R = 0.01


def _model():
    """Four reduced beams of 3, 5, 4 and 3 modes (one with a point load, the last with
    the cubic modal force: evaluated alone), tip to origin (rows bilinear in the
    coordinates); general rows (point · point) between the middle points of
    neighbours."""
    mb = fem.Model("reduced", gravity=(0.0, -3.0, -9.81))
    bodies, mids = [], []
    for i, (n_modes, nonlinear) in enumerate([(3, False), (5, False), (4, False),
                                              (3, True)]):
        fe = fem.Model(f"fe{i}")
        _, nodes = straight_beam(fe, (0, 0, 0), (0.8 + 0.1 * i, 0, 0), 6,
                                 fem.Material(2.1e11, 0.3, 7800.0), section="circle",
                                 radius=R)
        red = reduce_body(fe, {"root": rigid([nodes[0]]), "tip": fe.point(nodes[-1])},
                          n_modes=n_modes, nonlinear=nonlinear)
        bodies.append(mb.add_reduced_body(f"b{i}", red, position=(0.0, 0.0, 0.3 * i)))
        mids.append(bodies[-1].map(fe.point(nodes[3])))
    for a, b in zip(mids, mids[1:], strict=False):         # point · point: general rows
        mb.add_constraint(Dot(a, b))
    mb.add_force(bodies[1].interface("tip"), (1.0, 2.0, -3.0))
    for a, b in zip(bodies, bodies[1:], strict=False):
        mb.add_constraint(Coincident(a.interface("tip"), b.origin))
        mb.add_constraint(Coincident(a.interface("tip"), b.interface("tip"),
                                     components=(2,)))
        mb.add_constraint(Dot(a.axis(1), b.axis(0)))
    return mb, bodies, mids


@pytest.fixture
def batch_on(monkeypatch):
    """The batch on, with or without the compiled kernels."""
    monkeypatch.setattr(ReducedBatch, "evaluates", lambda self: True)


def _state(asm, seed=7):
    rng = np.random.default_rng(seed)
    q = asm.q0 + 0.05 * rng.normal(size=asm.n)
    return q, rng.normal(size=asm.n), rng.normal(size=asm.n)


def _close(x, y, rtol=1e-12):
    assert np.allclose(x, y, rtol=rtol, atol=rtol * max(np.abs(y).max(), 1e-300))


def test_batch_equals_the_bodies_alone(batch_on):
    mb, bodies, mids = _model()
    asm = mb.assemble()
    assert len(asm.body_batches) == 1
    batch = asm.body_batches[0]
    assert [b.name for b in batch.bodies] == ["b0", "b1", "b2"]      # b3: cubic force
    q, v, a = _state(asm)
    for tangent in (False, True):
        f_in, t_in = asm.inertia_forces(q, v, a, tangent)
        f_el, k_el = asm.internal_forces(q, None, tangent)
        keep = asm.body_batches
        asm.body_batches = []
        g_in, u_in = asm.inertia_forces(q, v, a, tangent)
        g_el, l_el = asm.internal_forces(q, None, tangent)
        asm.body_batches = keep
        _close(f_in, g_in)
        _close(f_el, g_el)
        if tangent:
            _close(k_el, l_el)
            for x, y in zip(t_in, u_in, strict=True):
                _close(x, y)
    # each body's share is its own force
    F, _ = batch.inertia_all(q, v, a, False)
    G, _ = batch.forces_all(q, mb.gravity, False)
    for i, b in enumerate(batch.bodies):
        _close(batch.body_terms(F, None, i)[0], b.inertia(q, v, a)[0])
        _close(batch.body_terms(G, None, i)[0], b.forces(q, mb.gravity)[0])


def test_points_of_several_bodies_equal_one_body_at_a_time():
    mb, bodies, mids = _model()
    pts = [p for b, mid in zip(bodies, mids, strict=True) for p in (b.interface("tip"), mid)]
    q, _, _ = _state(mb.assemble(), 3)
    x, J = ReducedPoint.evaluate_batch(pts)(q)
    xs, Js = [], []
    for b in bodies:
        mine = [p for p in pts if p.body is b]
        xb, Jb = ReducedPoint.evaluate_batch(mine)(q)
        xs.append(xb)
        Js.append(Jb.ravel())
        for p, xp, Jp in zip(mine, xb, Jb, strict=True):
            x1, J1, _ = p.evaluate(q)
            _close(xp, x1, 1e-14)
            _close(Jp, J1, 1e-14)
    _close(x, np.concatenate(xs), 1e-14)
    _close(J, np.concatenate(Js), 1e-14)


def test_general_rows_between_bodies_batched_equal_the_loop():
    mb, bodies, mids = _model()
    asm = mb.assemble()
    rows = asm._general
    assert rows._batched is not None and rows._batched.constant
    assert len(rows._batched._groups) == 1        # every reduced point in one evaluation
    loop = GeneralRows.__new__(GeneralRows)
    loop.__dict__.update(rows.__dict__)
    loop._batched, loop._last = None, None
    q, _, _ = _state(asm, 8)
    lam = np.random.default_rng(9).normal(size=rows.n_con)
    keep = np.ones(rows.n_con)
    for x, y in zip(rows.state(q, 0.3), loop.state(q, 0.3), strict=True):
        _close(x, y)
    _close(rows.hessian_values(lam, q, keep, 0.3), loop.hessian_values(lam, q, keep, 0.3))


def test_a_body_given_fe_forces_later_leaves_the_batch():
    mb, bodies, _ = _model()
    asm = mb.assemble()
    batch = asm.body_batches[0]
    fe = fem.Model("fe")
    straight_beam(fe, (0, 0, 0), (0.8, 0, 0), 6, fem.Material(2.1e11, 0.3, 7800.0),
                  section="circle", radius=R)              # body 0's FE model, again
    bodies[0].use_fe_forces(fe)
    assert not batch.evaluates()
