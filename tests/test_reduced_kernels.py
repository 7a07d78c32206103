"""The compiled residual of reduced bodies (:mod:`fem.bodies.reduced_kernels`) equals its
NumPy forms.

The kernels' logic is checked through their ``py_func`` (plain Python, no compiling)
against the NumPy forms of :class:`~fem.bodies.reduced_batch.ReducedBatch` (inertia and
forces), of the reduced points' evaluator (``ReducedPoint.evaluate_batch``: several
bodies, one body) and of the general rows' state, for bodies of three different mode
counts (the batch pads them to the largest) on random states.  The compiled kernels
themselves (marked ``compiled``) through the batch and the assembly, against the same
calls on the NumPy path; and the 3-RRRU robot with reduced links takes the same Newton
iterations and gives the same torques on both paths.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_reduced_batch import _model

from fem.bodies.reduced import ReducedPoint, _PointsBatch
from fem.bodies.reduced_batch import ReducedBatch
from fem.bodies.reduced_kernels import reduced_kernels
from fem.constraints.general_kernels import general_kernels
from fem.core import jit


def _close(x, y, rel: float = 1e-12) -> bool:
    x, y = np.asarray(x), np.asarray(y)
    scale = max(np.abs(y).max(), 1e-300)
    return x.shape == y.shape and np.abs(x - y).max() <= rel * scale


def _state(asm, seed: int):
    rng = np.random.default_rng(seed)
    q = asm.q0 + 0.05 * rng.normal(size=asm.n)
    return q, rng.normal(size=asm.n), rng.normal(size=asm.n)


def _python_kernels():
    """The Python forms of ``(terms, points, rows_state, rows_hessian)``."""
    numba = pytest.importorskip("numba")
    return tuple(k.py_func for get in (reduced_kernels, general_kernels)
                 for k in get.__wrapped__(numba))


def _points(bodies, mids):
    return [p for b, mid in zip(bodies, mids, strict=True) for p in (b.interface("tip"), mid)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kernels_python_forms_equal_the_numpy_forms(seed):
    """``terms`` (inertia forces, forces with the weight and a point load, alone and
    added into a global vector), ``points`` (points of several bodies and of one; added
    with coefficients into the general rows' maps), ``rows_state`` and ``rows_hessian``
    (the general rows' Φ, Φ_q, λ·Φ_qq) to 1e-12 of each array's largest entry."""
    kern = _python_kernels()
    mb, bodies, mids = _model()
    asm = mb.assemble()
    bt = asm.body_batches[0]
    assert isinstance(bt, ReducedBatch) and len({b.m for b in bt.bodies}) == 3
    q, v, a = _state(asm, seed)
    g = mb.gravity
    refs = [bt._inertia_numpy(q, v, a), bt._forces_numpy(q, g)]
    outs = [bt._compiled_terms(kern, q, v, a, None, None)[0],
            bt._compiled_terms(kern, q, q, q, g, None)[0]]
    for x, y in zip(outs, refs, strict=True):
        assert np.abs(y).max() > 0 and _close(x, y)
        assert np.all(x[~bt.mask] == 0.0)                   # the padding
    # added into a global vector: as the NumPy form's scatter
    base = np.random.default_rng(seed).normal(size=asm.n)
    for args, ref in (((q, v, a, None), refs[0]), ((q, q, q, g), refs[1])):
        f, want = base.copy(), base.copy()
        assert bt._compiled_terms(kern, *args, f) == (None, None)
        bt.add_into(want, ref)
        assert _close(f, want)
        strided = np.repeat(base, 2)[::2]            # not contiguous: added by NumPy
        assert bt._compiled_terms(kern, *args, strided) == (None, None)
        assert _close(strided, want)
    # the points of several bodies (padded) and of one body
    pts = _points(bodies, mids)
    for group in (pts, [p for p in pts if p.body is bodies[1]]):
        ev = ReducedPoint.evaluate_batch(group)
        assert isinstance(ev, _PointsBatch)
        for x, y in zip(ev.compiled(kern[1], q), ev.numpy(q), strict=True):
            assert _close(x, y)
    # the general rows' maps: the points weighted and added straight into X and J
    rows = asm._general._batched
    rows._last = None
    X_ref, J_ref = (y.copy() for y in rows._maps(q))
    x, J = rows._A @ q[rows._lin_dofs] + rows._x0, rows._J0.copy()
    for run, _coef, _jcoef, xdest, jdest, _unique, pcoef in rows._groups:
        assert run.add_into(q, pcoef, xdest, jdest, x, J, points_kernel=kern[1])
        # and with coefficients other than one
        c = np.random.default_rng(seed).normal(size=run.n)
        xb, Jb = run.numpy(q)
        x_c, J_c = x.copy(), J.copy()
        np.add.at(x_c, xdest, (c[:, None] * xb).ravel())
        np.add.at(J_c, jdest, np.repeat(c, 3 * run.kp) * Jb)
        run.add_into(q, c, xdest, jdest, x, J, points_kernel=kern[1])
        assert _close(x, x_c) and _close(J, J_c)
        run.add_into(q, -c, xdest, jdest, x, J, points_kernel=kern[1])
    assert _close(x, X_ref) and _close(J, J_ref)
    # the general rows' state from the maps' values and Jacobians
    X, J = rows._X(q, 0.3)
    phi, jv = np.empty(rows.rows.n_con), np.empty(rows._njv)
    kern[2](X, J, rows._xa3, rows._xb3, rows._prow, rows._jo, rows._jJ, rows._jx, phi, jv)
    ref_phi, ref_jv = rows.state(q, 0.3)
    assert _close(phi, ref_phi) and _close(jv, ref_jv)
    # and their λ·Φ_qq
    rng = np.random.default_rng(seed)
    lam, keep = rng.normal(size=rows.rows.n_con), (rng.random(rows.rows.n_con) > 0.3) * 1.0
    ref = rows.hessian_values(lam, q, keep, 0.3)
    out, hv, hx, pa, pb, _nh, sizes, nout = rows._hess
    res = np.empty(nout)
    kern[3](X, J, out, hv, hx, pa, pb, lam[rows.rows.rows] * keep[rows.rows.rows], sizes, res)
    assert np.abs(ref).max() > 0 and _close(res, ref)


def _paths_compared(evaluate) -> None:
    assert jit.path() == "compiled" and reduced_kernels() is not None
    assert general_kernels() is not None
    compiled = evaluate()
    with jit.use_path("numpy"):
        assert reduced_kernels() is None and general_kernels() is None
        numpy = evaluate()
    for x, y in zip(compiled, numpy, strict=True):
        assert _close(x, y)


@pytest.mark.compiled
def test_compiled_batch_and_points_equal_the_numpy_path():
    """On the compiled path the batch's ``inertia_all`` and ``forces_all`` (alone and into
    a global vector), the points' evaluator and the general rows' state and ``λ·Φ_qq``
    equal those of the NumPy path.  Compiles only the kernels of
    :mod:`fem.bodies.reduced_kernels`."""
    mb, bodies, mids = _model()
    asm = mb.assemble()
    bt = asm.body_batches[0]
    q, v, a = _state(asm, 4)
    g = mb.gravity
    pts = _points(bodies, mids)

    def evaluate():
        f, h = np.zeros(asm.n), np.zeros(asm.n)
        out = [bt.inertia_all(q, v, a, False)[0], bt.forces_all(q, g, False)[0]]
        bt.add_into(f, bt.inertia_all(q, v, a, False, f)[0])
        bt.add_into(h, bt.forces_all(q, g, False, h)[0])
        out += [f, h]
        out += ReducedPoint.evaluate_batch(pts)(q)
        out += ReducedPoint.evaluate_batch(pts[:2])(q)
        asm._general._batched._last = None
        out += asm._general.state(q, 0.1)
        lam = np.linspace(-1.0, 2.0, asm._general.n_con)
        out.append(asm._general.hessian_values(lam, q, np.ones_like(lam), 0.1))
        return out

    _paths_compared(evaluate)


@pytest.mark.compiled(heavy=True)
def test_compiled_assembly_equals_the_numpy_path():
    """Through the assembly (inertia and internal forces with and without tangents, the
    constraint state with the general rows on reduced points)."""
    mb, _, _ = _model()
    asm = mb.assemble()
    q, v, a = _state(asm, 6)

    def evaluate():
        asm._general._batched._last = None
        out = [asm.inertia_forces(q, v, a)[0], asm.internal_forces(q)[0],
               *asm.constraint_state(q, 0.2)]
        fi, T = asm.inertia_forces(q, v, a, True)
        fe, K = asm.internal_forces(q, None, True)
        return out + [fi, *T, fe, K]

    _paths_compared(evaluate)


@pytest.mark.compiled(heavy=True)
def test_reduced_links_robot_same_iterations_on_both_paths():
    """The 3-RRRU robot with reduced links (4 segments of 2 modes a link) over 0.1 s of
    its circle: the same Newton iterations and the same joint torques (1e-10 of their
    range) on the compiled path as on the NumPy path."""
    import fem
    from fem.robots.rrru3_flexible_links import (
        build_flexible_links_robot,
        liu2018_circle_path,
        liu2018_geometry,
    )

    def run():
        geom = liu2018_geometry()
        rm = build_flexible_links_robot(
            geom, mode="inverse", drive="joints", path=liu2018_circle_path(geom, 0.5),
            link_model="reduced", link_segments=4, link_coordinates=2, n_elements=2)
        res = fem.simulate(rm.model, 0.1, 5e-3, q0=rm.robot.rest().q, rho_inf=0.5,
                           sensors=rm.robot.sensors(deflections=False))
        tau = np.array([res.sensors[f"motor {k + 1} effort_Nm"] for k in range(3)])
        return np.asarray(res.stats["iterations"]), tau

    its_c, tau_c = run()
    with jit.use_path("numpy"):
        its_n, tau_n = run()
    assert np.array_equal(its_c, its_n)
    assert np.abs(tau_c - tau_n).max() <= 1e-10 * np.ptp(tau_n)


def test_a_warm_up_of_fem_compile_evaluates_reduced_bodies_together():
    """``fem compile`` runs :data:`fem.cases.WARMUPS`; one of them builds plain reduced
    bodies that form a :class:`~fem.bodies.reduced_batch.ReducedBatch` and general rows
    on points of several reduced bodies, so the kernels of
    :mod:`fem.bodies.reduced_kernels` are compiled before the cache is marked ready."""
    from fem.cases import WARMUPS, load_case

    found = False
    for name, params in WARMUPS:
        if params.get("body_model") != "reduced":
            continue
        case = load_case(name)
        asm = case.arm("reduced", "drive", **{**case.PARAMS, **params}).model.assemble()
        batched = any(isinstance(bt, ReducedBatch) for bt in asm.body_batches)
        rows = asm._general._batched if asm._general is not None else None
        several = rows is not None and any(
            isinstance(run, _PointsBatch) and not run.one for run, *_ in rows._groups)
        found = found or (batched and several)
    assert found
