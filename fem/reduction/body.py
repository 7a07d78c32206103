"""Offline reduction of a linear FE model to a floating-frame body
(:class:`fem.bodies.ReducedBody`).

:func:`reduce_body` takes any :class:`fem.Model` of absolute-coordinate elements (ANCF
cables, beams, plates, the Bézier plate, point masses) with internal *linear*
constraints only (continuity rows, an edge kept straight: they must hold under rigid
motion), linearizes it about a state and returns a :class:`~fem.bodies.Reduction`:

* ``method="craig_bampton"`` (with ``interfaces``): a static (constraint) mode for every
  component of every interface map — the deflection with that component at 1 and the
  others at 0 — and ``n_modes`` fixed-interface normal modes (all interface components
  held).  Interfaces are the points and directions the joints will use (linear maps of
  the FE model), so a joint's reaction acts exactly through them: the reduced body
  reproduces the static response to any joint load.  An interface can also be a node set
  held as one rigid body (``rigid(nodes)``, the classic rigid interface) or its averaged
  rigid motion (``averaged(nodes)``).
* ``method="free"``: the ``n_modes`` lowest free–free elastic modes.
* ``loads``: extra static modes, the deflection under given load vectors with the
  interfaces held (e.g. the body's own weight: ``loads="gravity"``).

The frame follows the **mean axes** (Tisserand): the kept deformations are
mass-orthogonal to the six rigid motions, which also minimizes the inertia coupling; its
origin is the reference centre of mass unless ``origin`` is given, its axes the model's.
With ``frame="interface"`` (interfaces that hold only the rigid motion: one ``rigid`` or
``averaged`` set, e.g. a clamped root) the frame is that interface's instead — the kept
modes leave it at rest, the tangent frame of a floating-frame beam.  That is the frame a
geometrically nonlinear reduction needs (``derivatives``, ``nonlinear``): in mean axes
the modes carry a linearized rigid rotation, which the FE force sees as a stretch of
``½α²`` that no basis vector held at the interface relaxes (the beam locks).
The basis is then made M-orthonormal and K-diagonal (the reduced eigenproblem), so the
modal coordinates are uncoupled in the frame.

All solves are sparse: the saddle systems ``[[K − σM, Cᵀ], [C, 0]]`` with the internal
and interface rows ``C`` are factorized once (shift-invert Lanczos for the normal modes).
"""

from __future__ import annotations

import hashlib
import inspect
import numbers
import os
import warnings
from collections.abc import Mapping
from itertools import permutations
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..bodies.reduced import Reduction
from ..core.errors import ModelError
from ..core.threads import blas_single_threaded
from ..core.validate import FemWarning, coordinates, in_range, indices, integer, vector3
from ..maps.linear_map import LinearMap

__all__ = ["reduce_body", "rigid", "averaged", "cached_reduction", "cache_dir"]


class _NodeSet:
    def __init__(self, nodes, kind: str):
        nodes = [nodes] if isinstance(nodes, numbers.Integral) else nodes
        self.nodes = indices(nodes, f"{kind}(nodes): nodes", noun="node index").ravel()
        self.kind = kind
        if self.nodes.size == 0:
            raise ModelError(f"{kind} interface: give at least one node")


def _checked_interfaces(interfaces, where: str) -> dict:
    """``interfaces`` as a dict name → ``rigid``/``averaged`` set, a linear map or a
    sequence of them; anything else a :class:`ModelError` naming it."""
    if interfaces is not None and not isinstance(interfaces, Mapping):
        raise ModelError(f"{where}: interfaces must be a dict name → linear map(s) or "
                         f"rigid(nodes)/averaged(nodes); got a {type(interfaces).__name__} "
                         f"({interfaces!r:.60}); write e.g. {{'root': rigid([0])}}")
    out = dict(interfaces or {})
    for key, spec in out.items():
        if not isinstance(key, str) or not key:
            raise ModelError(f"{where}: interface names must be non-empty str; got {key!r}")
        if isinstance(spec, _NodeSet | LinearMap):
            continue
        try:
            maps = list(spec)
        except TypeError:
            maps = [spec]
        if not maps or not all(isinstance(lm, LinearMap) for lm in maps):
            raise ModelError(f"{where}: interface {key!r} must be a fem.LinearMap of the FE "
                             f"model (model.point(node)), a list of them, or "
                             f"rigid(nodes)/averaged(nodes); got {spec!r:.60}")
    return out


def rigid(nodes) -> _NodeSet:
    """An interface whose nodes (every field: positions translate and turn, gradients
    turn) move as one rigid body: six static modes (unit translations and rotations of
    the set), the set held for the normal modes."""
    return _NodeSet(nodes, "rigid")


def averaged(nodes) -> _NodeSet:
    """An interface that holds only the least-squares rigid motion of its nodes' positions
    (six rows): six static modes; the nodes deform freely about that motion."""
    return _NodeSet(nodes, "averaged")


def _slots(model, n: int):
    """Slot starts (S,) and position flags (S,) from the model's node fields."""
    starts, pos = [], []
    for fields in model.node_fields:
        for f, s in fields.items():
            starts.append(s)
            pos.append(1.0 if f == "r" else 0.0)
    starts = np.asarray(starts, np.int64)
    order = np.argsort(starts)
    starts, pos = starts[order], np.asarray(pos)[order]
    covered = np.zeros(n, bool)
    covered[(starts[:, None] + np.arange(3)).ravel()] = True
    if model.coordinate_blocks or not covered.all():
        raise ModelError("reduce_body: every coordinate must belong to a node's 3-vector "
                         "field (no bodies, no loose coordinate blocks)")
    return starts, pos


def _rows_of_map(lm: LinearMap, n: int) -> sp.csr_matrix:
    return sp.csr_matrix((np.asarray(lm.coef, float).ravel(),
                          (np.repeat(np.arange(3), len(lm.dofs)),
                           np.tile(np.asarray(lm.dofs, np.int64), 3))), shape=(3, n))


def _rigid_patterns(x: np.ndarray, pos: np.ndarray, starts: np.ndarray, n: int):
    """The six rigid motions (n, 6) about the origin: translations of positions, and
    ``e_i × x_s`` of every slot."""
    S = starts.size
    R = np.zeros((n, 6))
    idx = starts[:, None] + np.arange(3)
    for i in range(3):
        t = np.zeros((S, 3))
        t[:, i] = pos
        R[idx.ravel(), i] = t.ravel()
        e = np.zeros(3)
        e[i] = 1.0
        R[idx.ravel(), 3 + i] = np.cross(e, x).ravel()
    return R


@blas_single_threaded
def reduce_body(model, interfaces: dict | None = None, n_modes: int = 8,
                method: str = "craig_bampton", loads=(), state=None, origin=None,
                derivatives: int = 0, nonlinear: bool = False,
                frame: str = "mean_axes", damping: str = "modal", enrich: int = 0,
                enrich_weight: str = "energy", cubic_tol: float = 0.0) -> Reduction:
    """Reduce ``model`` to component modes in a floating frame (see the module docstring).

    Parameters
    ----------
    model : fem.Model
        Elements and point masses; only linear, rigid-motion-invariant constraints.
    interfaces : dict[str, LinearMap | sequence of LinearMap | rigid(...) | averaged(...)]
        Named interfaces (``craig_bampton``); their maps are kept as named points of the
        reduced body (``body.interface(name)``, several maps: ``name[j]``).
    n_modes : int
        Fixed-interface (or free–free) normal modes kept.
    method : {"craig_bampton", "free"}
    loads : sequence of (n,) arrays or "gravity"
        Extra static modes: deflections under these loads with the interfaces held.
    state : (n,) array or None
        The state to linearize about (reference configuration by default).
    origin : (3,) or None
        Frame origin (default: the reference centre of mass).
    derivatives : int
        Add the static modal derivatives of the ``derivatives`` lowest modes (every pair,
        ``d (d + 1) / 2`` vectors; Idelsohn & Cardona 1985): the membrane stretching a
        bent plate needs, which linear modes miss.  Craig–Bampton only.
    nonlinear : bool
        Keep the FE model's geometric nonlinearity: the modal force becomes the exact
        cubic polynomial ``Ψᵀ f_FE(x + Ψ η)`` (tensors ``K2``, ``K3`` of the
        :class:`~fem.bodies.Reduction`, from ``m (m + 3) / 2`` tangent evaluations).
    frame : {"mean_axes", "interface"}
        Where the floating frame sits: the mean axes (default), or attached to the
        interfaces when they hold only the body's rigid motion (one ``rigid(...)`` or
        ``averaged(...)`` set: their static modes are rigid and are dropped, every kept
        mode leaves the interface at rest).  Craig–Bampton only.  Use ``"interface"``
        with ``derivatives``/``nonlinear`` on a body in large rotation (a spinning
        beam clamped at its root): see the module docstring.
    damping : {"modal", "fe"}
        With the FE model's damping ``C`` (:meth:`fem.Model.add_damping`): ``"modal"``
        (default) damps the modal coordinates only, ``Ψᵀ C Ψ``; ``"fe"`` keeps ``C`` as
        the FE model applies it, to the slots' absolute velocities: the reduction stores
        ``C`` on the generalized vectors (:attr:`~fem.bodies.Reduction.C_fe`) and the
        body's damping force is ``Jᵀ C J q̇`` at the current pose, ``J = ∂x/∂q`` — the
        modal block ``Ψᵀ C Ψ`` and the terms on the frame's motion
        (:meth:`fem.bodies.ReducedBody.damping_terms`).  A constant
        ``β K`` of the reference state is not rigid-rotation invariant for a deformed
        body (``K (ω × u) ≠ 0``): it damps the turning of a sagged plate, and a reduced
        body must keep that term to follow the FE model (docs/reduced_bodies.md).
    enrich : int
        Add ``enrich`` vectors compressed from the quadratic response of **every pair** of
        the linear basis (static and normal modes, load modes; before ``derivatives``):
        the static modal derivatives ``θ_ij = −K⁻¹ (∂K/∂ψ_j) ψ_i`` (i ≤ j, interfaces
        held, ``m₀ (m₀ + 1) / 2`` of them), made M-orthogonal to the rigid motions and
        to the basis (with the ``derivatives`` if any), weighted (``enrich_weight``) and
        reduced by a POD in the energy (K) norm: the ``enrich`` leading vectors join the
        basis.  0 (default): none.  Craig–Bampton only (docs/reduced_bodies.md, issue
        19 item 4).
    enrich_weight : {"energy", "mass"}
        The pairs' weights in the POD: ``"energy"`` (default) takes the derivatives of
        the K-normalized vectors ``ψ_i / ω_i`` (``θ_ij / (ω_i ω_j)``: every basis vector
        at the same strain energy), ``"mass"`` those of the M-normalized ones (``θ_ij``).
    cubic_tol : float
        With ``nonlinear``: compress ``K3`` (0, default: keep it whole).  Its pair matrix
        ``S[(j,k), (j',k')] = K3[j,k,j',k']`` is positive semidefinite (the
        Green–Lagrange quartic energy ``½ Qᵀ C Q``); scaled to modes of equal strain
        energy (``1/ω_j``), it keeps its eigenvalues above ``cubic_tol`` times the
        largest: ``S ≈ G Gᵀ`` (:attr:`~fem.bodies.Reduction.K3_factor`, ``r`` columns),
        still semidefinite, at ``2 P r`` instead of ``P²/2`` operations per evaluation
        (``P = m (m + 1) / 2``; docs/reduced_bodies.md).  The compressed potential is
        softer than the whole one, by an error that grows with the square of the
        deflection relative to the force: choose the tolerance for the largest
        deflections the body will see.  Where the whole potential is barely convex (large
        slopes at little membrane strain) a loose tolerance makes its tangent indefinite
        and a run diverges (the flagship's plate swinging 20 times its sag: 3e-4 fails,
        1e-5 holds the force to 0.3 %; docs/reduced_bodies.md, "The compression at large
        deflections").
    """
    if method not in ("craig_bampton", "free"):
        raise ModelError(f"reduce_body: method must be 'craig_bampton' or 'free', got "
                         f"{method!r}")
    n_modes = integer(n_modes, "reduce_body: n_modes", minimum=0)
    if frame not in ("mean_axes", "interface"):
        raise ModelError(f"reduce_body: frame must be 'mean_axes' or 'interface', got "
                         f"{frame!r}")
    if damping not in ("modal", "fe"):
        raise ModelError(f"reduce_body: damping must be 'modal' or 'fe', got {damping!r}")
    if frame == "interface" and method != "craig_bampton":
        raise ModelError("reduce_body: frame='interface' needs method='craig_bampton' (the "
                         "frame is attached to the interfaces)")
    interfaces = _checked_interfaces(interfaces, "reduce_body")
    derivatives = integer(derivatives, "reduce_body: derivatives", minimum=0)
    cubic_tol = in_range(cubic_tol, "reduce_body: cubic_tol", 0.0, 1.0, high_open=True)
    if origin is not None:
        origin = vector3(origin, "reduce_body: origin")
    if method == "free" and n_modes == 0:
        raise ModelError("reduce_body: method='free' with n_modes=0 keeps no deformation "
                         "(free interfaces give no static modes); ask n_modes ≥ 1, or use "
                         "method='craig_bampton' with interfaces")
    if method == "craig_bampton" and not interfaces:
        raise ModelError("reduce_body: craig_bampton needs interfaces (a dict of name → "
                         "linear map(s) or rigid(nodes)/averaged(nodes)); or method='free'")
    if model.nonlinear_bodies:
        raise ModelError("reduce_body: the FE model must not contain bodies")
    if model.strain_rate_damping:
        raise ModelError("reduce_body: the FE model has strain-rate damping, which a "
                         "reduction does not carry over; damp the reduced body's modes "
                         "instead (Model.add_modal_damping)")
    asm = model.assemble()
    n = asm.n
    q = asm.q0 if state is None else coordinates(state, n, "reduce_body: state")
    starts, pos = _slots(model, n)
    S = starts.size
    idx = (starts[:, None] + np.arange(3)).ravel()          # slot-major permutation

    # ---- mass: slot-isotropic M = M̄ ⊗ I₃
    M = sp.csr_matrix(asm.mass_matrix(q))
    Mp = M[idx][:, idx].tocsr()
    Mbar = Mp[0::3][:, 0::3]
    for i in range(3):
        for j in range(3):
            blk = Mp[i::3][:, j::3]
            ref = Mbar if i == j else None
            err = abs(blk - ref).max() if ref is not None else abs(blk).max()
            if err > 1e-12 * abs(Mbar).max():
                raise ModelError("reduce_body: the mass matrix is not the same on x, y and "
                                 "z of every slot (M̄ ⊗ I₃); this body kind needs "
                                 "absolute-coordinate elements")
    # ---- stiffness and damping about the state
    f_int, kv = asm.internal_forces(q, tangent=True)
    K = sp.csr_matrix(asm.stiffness(kv))
    K = ((K + K.T) * 0.5).tocsc()
    Cd = sp.csr_matrix(asm.C) if asm.has_damping else None
    # ---- internal constraints: linear and rigid-motion invariant
    Jc = sp.csr_matrix(asm.jacobian(q, 0.0))
    Jc.eliminate_zeros()
    if asm.m:
        rng = np.random.default_rng(0)
        hv = asm.hessian_values(rng.standard_normal(asm.m), q)
        if np.any(np.abs(hv) > 0):
            raise ModelError("reduce_body: the FE model has nonlinear constraints; only "
                             "linear rows (continuity, straight edges) can be reduced")
        if np.abs(asm.phi(q, 0.0)).max() > 1e-8 * max(1.0, np.abs(q).max()):
            raise ModelError("reduce_body: the state does not satisfy the model's "
                             "constraints")
    x_ref = q[idx].reshape(S, 3)
    m_tot = float(pos @ (Mbar @ pos))
    if m_tot <= 0:
        raise ModelError("reduce_body: the model has no mass")
    o = (pos @ (Mbar @ x_ref)) / m_tot if origin is None else origin
    xo = x_ref - pos[:, None] * o
    Rig = _rigid_patterns(xo, pos, starts, n)
    gl, gU = np.linalg.eigh(Rig.T @ (M @ Rig))
    Rig_eff = Rig @ gU[:, gl > 1e-12 * gl.max()]       # a straight cable: no spin
    if asm.m and np.abs(Jc @ Rig).max() > 1e-8 * max(1.0, np.abs(Jc).max()):
        raise ModelError("reduce_body: the model's constraints do not hold under a rigid "
                         "motion; a reduced body needs constraints that move with it")

    # ---- interface rows and the static-mode targets
    names, maps, B_blocks, targets = [], {}, [], []
    for name, spec in interfaces.items():
        if isinstance(spec, _NodeSet):
            sel = []
            for nd in spec.nodes:
                if not 0 <= nd < len(model.node_fields):
                    last = len(model.node_fields) - 1
                    raise ModelError(f"reduce_body: interface {name!r}: node {nd} does not "
                                     f"exist (the FE model has nodes 0..{last}); a node of "
                                     "another model?")
                if "r" not in model.node_fields[nd]:
                    raise ModelError(f"interface {name!r}: node {nd} has no position")
                fields = model.node_fields[nd] if spec.kind == "rigid" else \
                    {"r": model.node_fields[nd]["r"]}
                for start in fields.values():      # rigid: the gradients turn with it
                    sel.extend(start + np.arange(3))
            sel = np.asarray(sel, np.int64)
            Rset = Rig[sel]                                  # (3p, 6)
            if spec.kind == "rigid":
                B_blocks.append(sp.csr_matrix((np.ones(sel.size), (np.arange(sel.size), sel)),
                                              shape=(sel.size, n)))
                targets.append(Rset)
            else:
                P = np.linalg.pinv(Rset)                     # least-squares rigid fit
                Bm = np.zeros((6, n))
                Bm[:, sel] = P
                B_blocks.append(sp.csr_matrix(Bm))
                targets.append(np.eye(6))
            continue
        lst = [spec] if isinstance(spec, LinearMap) else list(spec)
        for j, lm in enumerate(lst):
            if not isinstance(lm, LinearMap):
                raise ModelError(f"interface {name!r}: expected fem.LinearMap(s) of the FE "
                                 f"model or rigid(nodes)/averaged(nodes), got "
                                 f"{type(lm).__name__}")
            key = name if len(lst) == 1 else f"{name}[{j}]"
            dofs = np.asarray(lm.dofs, np.int64)
            if dofs.size and (dofs.min() < 0 or dofs.max() >= n):
                raise ModelError(f"reduce_body: interface {key!r} ({lm.label!r}) uses "
                                 f"coordinate {int(dofs.max())}, beyond the FE model's {n} "
                                 "coordinates: a map of another model? Give maps of the "
                                 "model being reduced (model.point(node))")
            names.append(key)
            maps[key] = lm
            B_blocks.append(_rows_of_map(lm, n))
            targets.append(np.eye(3))
    B = sp.vstack(B_blocks).tocsr() if B_blocks else sp.csr_matrix((0, n))
    nb = B.shape[0]
    T = np.zeros((nb, sum(t.shape[1] for t in targets)))
    r0 = c0 = 0
    for t in targets:
        T[r0:r0 + t.shape[0], c0:c0 + t.shape[1]] = t
        r0 += t.shape[0]
        c0 += t.shape[1]

    def saddle(C, sigma):
        mc = C.shape[0]
        A = sp.bmat([[K - sigma * M, C.T], [C, None]], format="csc") if mc else \
            (K - sigma * M).tocsc()
        try:
            lu = spla.splu(A)
        except RuntimeError:
            raise ModelError("reduce_body: the saddle system is singular — the interfaces "
                             "do not hold the body's rigid motion, or interface and "
                             "internal rows are redundant") from None
        return lu, mc

    cols = []
    C_all = sp.vstack([Jc, B]).tocsr() if B.shape[0] else Jc
    if method == "craig_bampton":
        BR = np.asarray(B @ Rig_eff)
        sv = np.linalg.svd(BR, compute_uv=False) if BR.size else np.zeros(0)
        if sv.size < Rig_eff.shape[1] or sv.min() <= 1e-9 * max(sv.max(), 1e-300):
            raise ModelError(f"reduce_body: the interfaces {list(interfaces)} do not hold "
                             "the body's rigid motion (held, it could still turn or slide); "
                             "add an interface point or direction, or use method='free'")
        lu, mc = saddle(C_all, 0.0)
        rhs = np.zeros((n + mc, T.shape[1]))
        rhs[n + Jc.shape[0]:] = T
        X = lu.solve(rhs)[:n]
        if not np.all(np.isfinite(X)):
            raise ModelError("reduce_body: the static modes are not finite (singular "
                             "saddle: the interfaces do not hold the rigid motion?)")
        if frame == "interface":          # the frame is the interface: drop its motion
            fit = Rig_eff @ np.linalg.lstsq(Rig_eff, X, rcond=None)[0]
            if np.abs(X - fit).max() > 1e-8 * max(np.abs(X).max(), 1e-300):
                raise ModelError(f"reduce_body: frame='interface' needs interfaces that "
                                 f"hold only the rigid motion (one rigid(...) or "
                                 f"averaged(...) set); {list(interfaces)} also deform the "
                                 "body")
        else:
            cols.append(X)
        sigma = 0.0
    else:
        w_scale = abs(K.diagonal()).max() / max(abs(M.diagonal()).max(), 1e-300)
        sigma = -1e-6 * w_scale
        C_all = Jc
        lu, mc = saddle(C_all, sigma)
    # static modes of given loads, interfaces (or, free: nothing) held
    load_list = []
    for ld in ([loads] if isinstance(loads, str) else list(loads)):
        if isinstance(ld, str):
            if ld != "gravity":
                raise ModelError(f"reduce_body: unknown load {ld!r} (use 'gravity' or a "
                                 "load vector)")
            load_list.append(np.asarray(asm.f_gravity, float))
        else:
            load_list.append(coordinates(ld, n, "reduce_body: load"))
    if load_list:
        F = np.column_stack(load_list)
        if method == "free":       # held by the mean axes: remove the load's rigid part
            F = F - M @ Rig_eff @ np.linalg.solve(Rig_eff.T @ (M @ Rig_eff), Rig_eff.T @ F)
        rhs = np.zeros((n + mc, F.shape[1]))
        rhs[:n] = F
        Xl = lu.solve(rhs)[:n]
        # at unit M-norm: the basis's rank test is relative, and the static response to a
        # small or stiff load (a beam's centrifugal stretch: 1e-5 of an M-normalized mode)
        # would otherwise be dropped as dependent
        nrm = np.sqrt(np.maximum(np.einsum("ij,ij->j", Xl, M @ Xl), 0.0))
        cols.append(Xl / np.where(nrm > 0, nrm, 1.0))
    # normal modes: shift-invert Lanczos on the constrained space
    n_rigid = Rig_eff.shape[1] if method == "free" else 0
    k_eig = n_modes + n_rigid
    if k_eig:
        def op(x):
            r = np.zeros(n + mc)
            r[:n] = x
            return lu.solve(r)[:n]

        OP = spla.LinearOperator((n, n), matvec=op, dtype=float)
        n_free = n - C_all.shape[0]
        if k_eig >= n_free - 1:
            raise ModelError(f"reduce_body: {n_modes} modes asked, the model has only "
                             f"{n_free - n_rigid} elastic degrees of freedom")
        # a generic start vector: a symmetric one (np.ones) keeps Lanczos in the
        # symmetric subspace of a symmetric body — a round cable along x would lose
        # every mode whose y and z parts differ (one bending plane)
        v0 = np.random.default_rng(0).uniform(0.5, 1.5, n)
        w2, Z = spla.eigsh(K, k=k_eig, M=M.tocsc(), sigma=sigma, OPinv=OP, which="LM",
                           v0=v0)
        order = np.argsort(w2)
        Z = Z[:, order][:, n_rigid:]
        cols.append(Z)
    if not cols:
        raise ModelError("reduce_body: no modes (n_modes = 0 and no interfaces or loads)")
    Phi = np.column_stack(cols)
    Rig_frame = Rig_eff if frame == "mean_axes" else None
    Psi, w2 = _mean_axes_basis(Phi, M, K, Rig_frame)
    if derivatives and method != "craig_bampton":
        raise ModelError("reduce_body: modal derivatives need method='craig_bampton' (the "
                         "interfaces hold the body while they are computed)")
    enrich = integer(enrich, "reduce_body: enrich", minimum=0)
    if enrich and method != "craig_bampton":
        raise ModelError("reduce_body: enrich needs method='craig_bampton' (the "
                         "interfaces hold the body while the derivatives are computed)")
    if enrich_weight not in ("energy", "mass"):
        raise ModelError(f"reduce_body: enrich_weight must be 'energy' or 'mass', got "
                         f"{enrich_weight!r}")
    Psi_lin, w2_lin = Psi, w2
    if derivatives > Psi.shape[1]:
        raise ModelError(f"reduce_body: derivatives={derivatives} asks the derivatives of "
                         f"more modes than the basis has ({Psi.shape[1]}: static, load and "
                         f"normal modes); give derivatives ≤ {Psi.shape[1]} or more n_modes")
    if derivatives:
        Theta = _modal_derivatives(asm, q, Psi[:, :derivatives], lu, mc)
        Psi, w2 = _mean_axes_basis(np.column_stack([Psi, Theta]), M, K, Rig_frame)
    if enrich:
        Xe = _pair_enrichment(asm, q, Psi_lin, w2_lin, Psi, Rig_eff, M, K, lu, mc, enrich,
                              enrich_weight)
        Psi, w2 = _mean_axes_basis(np.column_stack([Psi, Xe]), M, K, Rig_frame)
    m = Psi.shape[1]
    Kr = np.diag(w2)
    Cr = Psi.T @ (Cd @ Psi) if Cd is not None else np.zeros((m, m))
    modes = Psi[idx].reshape(S, 3, m)
    V = np.column_stack([pos, xo, modes[:, 0, :], modes[:, 1, :], modes[:, 2, :]])
    W = V.T @ (Mbar @ V)
    W = 0.5 * (W + W.T)
    red = Reduction(c=pos, Q=xo, modes=modes, W=W, K=Kr, C=Cr, f0=Psi.T @ f_int,
                    frequencies_hz=np.sqrt(np.maximum(w2, 0.0)) / (2 * np.pi),
                    origin=o, rotation=np.eye(3), slot_dofs=starts, n_fe=n)
    if damping == "fe" and Cd is not None:
        red.C_fe = _generalized_damping(Cd, V, starts, n)
    if nonlinear:
        red.K2, red.K3 = _cubic_force(asm, q, Psi, Kr)
        if cubic_tol > 0:
            red.K3_factor, red.K3 = _compress_quartic(red.K3, w2, cubic_tol), None
    for key, lm in maps.items():
        red.interfaces[key] = red.slot_coefficients(lm)
    red.info = {"method": method, "n_normal_modes": int(n_modes),
                "n_static_modes": int(T.shape[1]) if method == "craig_bampton" else 0,
                "n_load_modes": len(load_list), "n_modes": int(m),
                "interfaces": list(interfaces), "fe_coordinates": int(n),
                "fe_constraints": int(asm.m), "mass_kg": m_tot,
                "n_derivatives": int(derivatives * (derivatives + 1) // 2),
                "n_enrich": int(enrich), "cubic_tol": float(cubic_tol),
                "cubic_rank": (None if red.K3_factor is None
                               else int(red.K3_factor.shape[1])),
                "nonlinear": bool(nonlinear), "frame": frame, "damping": damping}
    return red


def _generalized_damping(C, V: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """``C`` on the generalized vectors, ``(n_V, 3, n_V, 3)``: entry ``(p, i, r, j)`` is
    ``Σ_st V_sp C[(s, i), (t, j)] V_tr``, so that ``ẋᵀ C ẋ = Ẋ:C_fe:Ẋ`` for ``x = V X``."""
    nV = V.shape[1]
    Vx = np.zeros((n, nV, 3))
    for i in range(3):
        Vx[starts + i, :, i] = V
    Vx = Vx.reshape(n, 3 * nV)
    out = Vx.T @ (C @ Vx)
    return (0.5 * (out + out.T)).reshape(nV, 3, nV, 3)


def _mean_axes_basis(Phi, M, K, Rig) -> tuple[np.ndarray, np.ndarray]:
    """The mean-axes basis of ``span(Phi)``: the rigid part removed (mass-orthogonal; not
    when ``Rig`` is None, the interface frame), then M-orthonormal and K-diagonal (the
    reduced eigenproblem); ``(Ψ, ω²)``."""
    if Rig is not None:
        MR = M @ Rig
        Phi = Phi - Rig @ np.linalg.solve(Rig.T @ MR, MR.T @ Phi)
    Mh = Phi.T @ (M @ Phi)
    Kh = Phi.T @ (K @ Phi)
    lam, U = np.linalg.eigh(0.5 * (Mh + Mh.T))
    keep = lam > 1e-10 * lam.max()
    T1 = U[:, keep] / np.sqrt(lam[keep])
    w2, Z = np.linalg.eigh(T1.T @ (0.5 * (Kh + Kh.T)) @ T1)
    return Phi @ (T1 @ Z), w2


def _modal_derivatives(asm, q, Psi, lu, mc) -> np.ndarray:
    """Static modal derivatives ``θ_ij = −K⁻¹ (∂K/∂ψ_j) ψ_i`` (i ≤ j) with the interfaces
    held (Idelsohn & Cardona 1985): the second-order (membrane) response a linear basis
    misses.  The tangent is quadratic in the coordinates for polynomial elements, so the
    central difference along ``ψ_j`` is exact to round-off."""
    k = Psi.shape[1]
    n = asm.n
    scale = max(np.abs(q).max(), 1.0)
    out = []
    for j in range(k):
        eps = 1e-3 * scale / max(np.abs(Psi[:, j]).max(), 1e-300)
        Kp = asm.stiffness(asm.internal_forces(q + eps * Psi[:, j], tangent=True)[1])
        Km = asm.stiffness(asm.internal_forces(q - eps * Psi[:, j], tangent=True)[1])
        dK = (Kp - Km) / (2 * eps)
        for i in range(j + 1):
            rhs = np.zeros(n + mc)
            rhs[:n] = -(dK @ Psi[:, i])
            out.append(lu.solve(rhs)[:n])
    return np.column_stack(out)


def _pair_enrichment(asm, q, Psi0, w2_0, Psi, Rig, M, K, lu, mc, r: int,
                     weight: str) -> np.ndarray:
    """``r`` vectors compressed from the static modal derivatives of every pair of the
    linear basis ``Psi0`` (M-orthonormal, K-diagonal ``w2_0``): ``θ_ij`` (i ≤ j),
    weighted (``"energy"``: ``θ_ij / (ω_i ω_j)``; ``"mass"``: ``θ_ij``), made
    M-orthogonal to the rigid motions ``Rig`` and to the kept basis ``Psi``, then the
    leading ``r`` of their POD in the K-norm (the eigenvectors of the Gram matrix
    ``Θᵀ K Θ``), at unit M-norm."""
    m0 = Psi0.shape[1]
    if weight == "energy":
        s = 1.0 / np.sqrt(np.maximum(w2_0, 1e-12 * max(w2_0.max(), 1e-300)))
    else:
        s = np.ones(m0)
    Theta = _modal_derivatives(asm, q, Psi0, lu, mc)            # column j(j+1)/2 + i
    jj = np.concatenate([np.full(j + 1, j) for j in range(m0)])
    ii = np.concatenate([np.arange(j + 1) for j in range(m0)])
    Theta = Theta * (s[ii] * s[jj])
    for A in (Rig, Psi):                       # M-orthogonal to the rigid motion and basis
        MA = M @ A
        Theta = Theta - A @ np.linalg.solve(A.T @ MA, MA.T @ Theta)
    G = Theta.T @ (K @ Theta)
    lam, U = np.linalg.eigh(0.5 * (G + G.T))
    order = np.argsort(lam)[::-1]
    lam, U = lam[order], U[:, order]
    keep = min(r, int(np.sum(lam > 1e-12 * max(lam[0], 1e-300))))
    X = Theta @ U[:, :keep]
    # at unit M-norm: stiff (thickness, membrane) vectors have a tiny M-norm, and the
    # basis's rank test is relative
    nrm = np.sqrt(np.maximum(np.einsum("ij,ij->j", X, M @ X), 0.0))
    return X / np.where(nrm > 0, nrm, 1.0)


def _cubic_force(asm, q, Psi, A) -> tuple[np.ndarray, np.ndarray]:
    """``K2``, ``K3`` of the modal force ``Ψᵀ f(q + Ψ η)`` from its tangent
    ``K(η) = Ψᵀ K_FE Ψ = A + K2·η + K3:ηη`` (quadratic in ``η`` for Green–Lagrange
    elements): ``K(±ε e_j)`` give ``K2`` and the diagonal of ``K3``, ``K(ε (e_j + e_k))``
    its mixed part.  Exact for a polynomial force whatever ``ε`` (the ANCF beam: 1e-12;
    the Bézier plate with ``shear_factor="auto"``: 3e-7, its shear remedy is not exactly
    cubic); ``ε`` is large (a deflection of 1 % of the body's size) to keep round-off
    small.  The tensors are symmetrized over all their indices (the force derives from a
    potential).

    The force deriving from a potential, ``K3[a, b, j, k]`` is symmetric in all four
    indices, so a mixed tangent ``K(ε (e_j + e_k))`` — the slice ``K3[:, :, j, k]`` —
    gives every entry whose indices include ``j`` and ``k``.  Only the pairs within
    three groups of modes are evaluated: any four indices include two of one group (or
    a repeated one, from the diagonal), so every entry is known, from ``2m + m²/6``
    tangents instead of ``2m + m²/2`` (Turán: the pairs left out, those across groups,
    contain no four mutually paired modes).  For 44 modes: 398 tangents instead of 1034.
    """
    n, m = Psi.shape
    size = np.ptp(q) if q.size else 1.0

    def tangent(eta):
        _, kv = asm.internal_forces(q + Psi @ eta, tangent=True)
        Kt = Psi.T @ (asm.stiffness(kv) @ Psi)
        return 0.5 * (Kt + Kt.T)

    eps = 1e-2 * max(size, 1e-300) / np.abs(Psi).max(axis=0)        # per mode
    K2 = np.zeros((m, m, m))
    D = np.zeros((m, m, m))                                         # K3[:, :, j, j]
    for j in range(m):
        e = np.zeros(m)
        e[j] = eps[j]
        Kp, Km = tangent(e), tangent(-e)
        K2[:, :, j] = (Kp - Km) / (2 * eps[j])
        D[:, :, j] = (Kp + Km - 2 * A) / (2 * eps[j] ** 2)
    group = np.arange(m) % 3
    K3 = np.zeros((m, m, m, m))
    known = np.zeros((m, m), bool)                 # the pairs (j, k) whose slice is known
    for j in range(m):
        K3[:, :, j, j] = D[:, :, j]
        known[j, j] = True
        for k in range(j):
            if group[j] != group[k]:
                continue
            e = np.zeros(m)
            e[j], e[k] = eps[j], eps[k]
            Kjk = tangent(e) - A - K2[:, :, j] * eps[j] - K2[:, :, k] * eps[k] \
                - D[:, :, j] * eps[j] ** 2 - D[:, :, k] * eps[k] ** 2
            K3[:, :, j, k] = K3[:, :, k, j] = Kjk / (2 * eps[j] * eps[k])
            known[j, k] = known[k, j] = True
    K3 = _fill_symmetric(K3, known)
    K2 = (K2 + K2.transpose(0, 2, 1) + K2.transpose(1, 0, 2) + K2.transpose(1, 2, 0)
          + K2.transpose(2, 0, 1) + K2.transpose(2, 1, 0)) / 6.0
    K3 = sum(K3.transpose(p) for p in permutations(range(4))) / 24.0
    return K2, K3


def _fill_symmetric(K3: np.ndarray, known: np.ndarray) -> np.ndarray:
    """A fully symmetric ``K3`` from its slices ``K3[:, :, j, k]`` of the ``known`` pairs:
    ``K3[a, b, j, k]`` is read where two of its indices form a known pair (in the last
    two places, the others in the first two); raises if some entry has none."""
    have0 = np.broadcast_to(known[None, None], K3.shape)
    out, have = K3.copy(), have0.copy()
    # the transpositions that bring (a, b), (a, j), (a, k), (b, j), (b, k) to the end
    for t in ((2, 3, 0, 1), (2, 0, 3, 1), (2, 0, 1, 3), (0, 2, 3, 1), (0, 2, 1, 3)):
        src = have0.transpose(t) & ~have
        out = np.where(src, K3.transpose(t), out)
        have |= src
    if not have.all():
        raise AssertionError("_fill_symmetric: the known pairs miss an entry")
    return out


def _compress_quartic(K3: np.ndarray, w2: np.ndarray, tol: float) -> np.ndarray:
    """``G`` (P × r) with ``G Gᵀ`` the pair matrix of ``K3`` (``reduce_body``'s
    ``cubic_tol``): its eigenvectors, scaled to modes of equal strain energy (amplitude
    ``1/ω``), whose eigenvalues exceed ``tol`` times the largest."""
    m = K3.shape[0]
    jj, kk = np.triu_indices(m)
    a = 1.0 / np.sqrt(np.maximum(w2, 1e-12 * max(np.max(w2), 1e-300)))
    d = a[jj] * a[kk]
    S = K3[jj, kk][:, jj, kk] * np.outer(d, d)
    lam, U = np.linalg.eigh(0.5 * (S + S.T))
    keep = lam > tol * max(lam[-1], 1e-300)
    return np.ascontiguousarray((U[:, keep] * np.sqrt(lam[keep])) / d[:, None])


def cache_dir() -> Path:
    """Where :func:`cached_reduction` keeps its files: ``$FEM_CACHE_DIR/reductions`` or
    ``~/.cache/fem/reductions`` (``$XDG_CACHE_HOME`` honoured)."""
    root = os.environ.get("FEM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "fem")
    return Path(root) / "reductions"


def _fingerprint(model, interfaces, kw) -> str:
    """A hash of everything the reduction depends on: coordinates, mass, stiffness and
    damping about the state, constraint rows, gravity, interfaces and options."""
    asm = model.assemble()
    q = asm.q0 if kw.get("state") is None else np.asarray(kw["state"], float)
    h = hashlib.sha256(_FORMAT_KEY.encode())
    _, kv = asm.internal_forces(q, tangent=True)
    mats = [asm.mass_matrix(q), asm.stiffness(kv), asm.jacobian(q, 0.0)]
    if asm.has_damping:
        mats.append(asm.C)
    for A in mats:
        A = sp.csr_matrix(A)
        A.sort_indices()
        for arr in (A.indptr, A.indices, np.round(A.data, 12)):
            h.update(np.ascontiguousarray(arr).tobytes())
    h.update(np.ascontiguousarray(q).tobytes())
    h.update(np.asarray(model.gravity, float).tobytes())
    for name in sorted(interfaces):
        spec = interfaces[name]
        h.update(name.encode())
        if isinstance(spec, _NodeSet):
            h.update(spec.kind.encode() + spec.nodes.tobytes())
            continue
        for lm in ([spec] if isinstance(spec, LinearMap) else list(spec)):
            h.update(np.asarray(lm.dofs, np.int64).tobytes())
            h.update(np.asarray(lm.coef, float).tobytes())
    h.update(repr(sorted((k, v) for k, v in kw.items() if k != "state")).encode())
    return h.hexdigest()[:24]


_FORMAT_KEY = "fem.reduction/4"   # /4: the cubic force from the pairs within three groups


def cached_reduction(model, interfaces: dict | None = None, **kw) -> Reduction:
    """:func:`reduce_body` once per content: the result is stored in :func:`cache_dir`
    under a hash of the model and the options, and loaded from there afterwards (the
    offline reduction is paid once).  ``info["cached"]`` says which happened."""
    interfaces = _checked_interfaces(interfaces, "cached_reduction")
    try:
        inspect.signature(reduce_body).bind(model, interfaces, **kw)
    except TypeError as err:
        raise TypeError(f"cached_reduction: {err} (its options are reduce_body's)") from None
    if kw.get("state") is not None:
        kw["state"] = coordinates(kw["state"], model.assemble().n, "cached_reduction: state")
    if any(not isinstance(v, (str, int, float, tuple, type(None))) for k, v in kw.items()
           if k not in ("state", "origin")):
        return reduce_body(model, interfaces, **kw)
    key = _fingerprint(model, interfaces or {}, kw)
    path = cache_dir() / f"{key}.npz"
    if path.exists():
        try:
            red = Reduction.load(path)
            red.info["cached"] = True
            return red
        except ModelError as err:                  # damaged: make it again
            warnings.warn(f"the cached reduction {path} could not be read and is made "
                          f"again ({err})", FemWarning, stacklevel=2)
            try:
                path.unlink(missing_ok=True)
            except OSError:
                pass
    red = reduce_body(model, interfaces, **kw)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        red.save(path)
    except OSError:
        pass                                        # a read-only home: no cache, same result
    red.info["cached"] = False
    return red
