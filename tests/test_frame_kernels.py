"""The floating-frame batch's compiled residual (:mod:`fem.bodies.frame_kernels`) equals
its NumPy forms (:class:`~fem.bodies.frame_batch.FrameBatch`).

The kernels' logic is checked through their ``py_func`` (plain Python, no compiling) for
every kind of kinematics and rotary inertia; the compiled kernels themselves (marked
``compiled``: a few seconds of compiling on an empty cache) through the batch's entry
points and the assembly, against the same calls on the NumPy path.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_frame_batch import _model

from fem.bodies.frame_kernels import frame_kernels
from fem.core import jit

CASES = [("fourth_order", "section", "bezier"), ("paper", "twist", "bspline"),
         ("curvature_only", "section", "modes"), ("foreshortening_only", "twist", "bezier")]


def _state(asm, seed: int):
    rng = np.random.default_rng(seed)
    q = asm.q0 + 0.05 * rng.normal(size=asm.n)
    return q, rng.normal(size=asm.n), rng.normal(size=asm.n), np.array([0.3, -1.0, -9.81])


def _close(x, y, rel: float = 1e-12) -> bool:
    scale = max(np.abs(y).max(), 1e-300)
    return x.shape == y.shape and np.abs(x - y).max() <= rel * scale


def _numpy_forms(bt, q, v, a, g):
    """The batch's NumPy forms: forces, tips (point, J, axes, J), inertia forces, and the
    tangents: forces and ``K``, inertia forces with ``M``, ``∂f/∂q``, ``∂f/∂q̇``."""
    qB = q[bt.idx]
    F, _ = bt._elastic_and_weight(q, g, False, qB)
    tips = bt._tips_numpy(q)
    I, _ = bt._inertia_forces(bt.line(q), v[bt.idx], a[bt.idx], False)
    FK = bt._elastic_and_weight(q, g, True, qB)
    qB = bt.line(q, True)
    if bt.Xt is not None:
        bt._directors(qB)
    fi, T = bt._inertia_forces(qB, v[bt.idx], a[bt.idx], True)
    bt._tips = None
    compact = np.concatenate([x.ravel() for x in (bt._tips_numpy(q),
                                                  bt._tip_second_parts())[1]])
    return [F, *tips, I, *FK, fi, *T, compact]


@pytest.mark.parametrize("kinematics,rotary_inertia,basis", CASES)
def test_kernels_python_forms_equal_the_numpy_forms(kinematics, rotary_inertia, basis):
    """The kernels' Python forms (``py_func``): forces with the weight, the tips' points
    and section axes with their Jacobians, inertia forces, the elastic tangent with the
    bending and weight Hessians, the inertia tangents (``M``, ``∂f/∂q``, ``∂f/∂q̇``), the
    tips' second derivatives (``tips_second_compact``), to 1e-12 of each one's largest
    entry."""
    numba = pytest.importorskip("numba")
    kern = tuple(k.py_func for k in frame_kernels.__wrapped__(numba))
    m, _ = _model(kinematics, rotary_inertia, basis)
    asm = m.assemble()
    bt = asm.body_batches[0]
    q, v, a, g = _state(asm, 5)
    ref = _numpy_forms(bt, q, v, a, g)
    qB = q[bt.idx]
    out = list(bt._compiled_line(kern, q, g))
    out.append(bt._compiled_inertia(kern, q, v[bt.idx], a[bt.idx])[0])
    out += [out[0], bt._compiled_elastic_tangent(kern, q)]
    fi, T = bt._compiled_inertia(kern, q, v[bt.idx], a[bt.idx], True)
    kd = bt._kd
    out += [fi, *T, kern[4](qB, kd["R"], kd["Pe"], kd["ac"], kd["Hcx"], kd["DT"], kd["Wx"],
                            kd["A"], bt.na, bt.nb)]
    assert all(np.abs(y).max() > 0 for y in ref)
    for x, y in zip(out, ref, strict=True):
        assert _close(x, y)
    Kc = np.zeros_like(ref[7])                      # K less its constant part
    Kc[:, 12:, 12:] = bt.K
    assert _close(out[7] - Kc, ref[7] - Kc, 1e-10)
    # a line asked for at the same coordinates is the one kept; new ones are evaluated
    assert bt._compiled_line(kern, q) is bt._cout
    q2 = q + 1e-3
    f2 = bt._compiled_line(kern, q2, g)[0]
    assert _close(f2, bt._elastic_and_weight(q2, g, False)[0])


def _compare_paths(kinematics, rotary_inertia, basis, assembly: bool) -> None:
    m, _ = _model(kinematics, rotary_inertia, basis)
    asm = m.assemble()
    bt = asm.body_batches[0]
    q, v, a, g = _state(asm, 9)

    def evaluations():
        bt._ckey = bt._qkey = bt._tips = bt._inertia_key = bt._forces_key = None
        bt._ccompact = None
        out = [bt.forces_all(q, g, False)[0], bt.inertia_all(q, v, a, False)[0],
               *bt.tips(q), *bt.tips_second(q), bt.tips_second_compact(q)]
        out += [bt.forces(q, g, False, 1)[0], bt.inertia(q, v, a, False, 2)[0]]
        if assembly:
            out += [asm.internal_forces(q, v)[0], asm.inertia_forces(q, v, a)[0],
                    *asm.constraint_state(q, 0.2)]
        f, K = bt.forces_all(q, g, True)
        fi, T = bt.inertia_all(q, v, a, True)
        return out + [f, K, fi, *T]

    assert jit.path() == "compiled" and frame_kernels() is not None
    compiled = evaluations()
    with jit.use_path("numpy"):
        assert frame_kernels() is None
        numpy = evaluations()
    for x, y in zip(compiled, numpy, strict=True):
        assert _close(np.asarray(x), np.asarray(y))


@pytest.mark.compiled
@pytest.mark.parametrize("kinematics,rotary_inertia,basis", CASES[:3])
def test_compiled_batch_equals_the_numpy_path(kinematics, rotary_inertia, basis):
    """On the compiled path the batch's residual terms (``forces_all``, ``inertia_all``,
    ``tips``, the single bodies' shares) equal those of the NumPy path; the tangents and
    the tips' second derivatives are the NumPy forms' on both paths.  Compiles only the
    kernels of :mod:`fem.bodies.frame_kernels` (seconds)."""
    _compare_paths(kinematics, rotary_inertia, basis, assembly=False)


@pytest.mark.compiled(heavy=True)
def test_compiled_assembly_equals_the_numpy_path():
    """Through the assembly (internal and inertia forces, the constraint state with the
    general rows on the tips), compiled against NumPy path."""
    _compare_paths(*CASES[0], assembly=True)


def test_a_warm_up_of_fem_compile_batches_floating_frames():
    """``fem compile`` runs :data:`fem.cases.WARMUPS`; one of them builds floating-frame
    bodies that form a :class:`~fem.bodies.frame_batch.FrameBatch`, so the kernels of
    :mod:`fem.bodies.frame_kernels` are compiled before the cache is marked ready."""
    from fem.bodies.frame_batch import FrameBatch
    from fem.cases import WARMUPS, load_case

    batched = []
    for name, params in WARMUPS:
        if params.get("link_model") == "floating_frame":
            model = load_case(name).build(**params)
            batched += [bt for bt in model.assemble().body_batches
                        if isinstance(bt, FrameBatch)]
    assert batched
