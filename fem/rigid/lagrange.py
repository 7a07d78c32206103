"""Lagrange's equations of the second kind for rigid mechanisms with few DOF (Shen et al. 2021, §4).

A mechanism with generalized coordinates ``q`` (``d`` of them) whose links move as

    ċ_i = J_i(q) q̇            ω_i = W_i(q) q̇

(``J_i, W_i`` the first-order kinematic influence coefficients, 3 × d) has the kinetic and
potential energy (Shen et al. 2021 eqs 28–35)

    T = ½ q̇ᵀ M(q) q̇,   M = Σ_i m_i J_iᵀ J_i + W_iᵀ I_i W_i,        V = −Σ_i m_i g · c_i,

and Lagrange's equations (Shen et al. 2021 eq 36) give the generalized (actuator) forces

    τ_j = Σ_k M_jk q̈_k + Σ_kl (∂M_jk/∂q_l − ½ ∂M_kl/∂q_j) q̇_k q̇_l + ∂V/∂q_j.

For one DOF this is ``τ = m(θ) θ̈ + ½ m'(θ) θ̇² + V'(θ)``.  The derivative of ``M`` is
computed analytically from the second-order influence coefficients
``H_i = ∂J_i/∂q`` and ``Ω_i = ∂W_i/∂q``, and from the rotation of the world-frame inertia
tensor, ``∂I_i/∂q_l = [w_il×] I_i − I_i [w_il×]`` (``w_il`` column ``l`` of ``W_i``) —
no finite differences, so this method agrees with Newton–Euler to round-off.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import ModelError

__all__ = [
    "Body",
    "mass_matrix",
    "mass_matrix_gradient",
    "kinetic_energy",
    "potential_energy",
    "potential_gradient",
    "inverse_dynamics",
]


@dataclass
class Body:
    """A rigid body described by its kinematic influence coefficients over ``n`` steps.

    Parameters
    ----------
    name : str
        Used in error messages.
    mass : float
        Mass [kg].
    com : array_like, shape (n, 3)
        Centre of mass.
    com_jac : array_like, shape (n, 3, d) — or (n, 3) for one DOF
        ``∂c/∂q``.
    com_hess : array_like, shape (n, 3, d, d) — or (n, 3) for one DOF
        ``∂²c/∂q_j∂q_l``.
    omega_jac : array_like, shape (n, 3, d) — or (n, 3)
        ``W = ∂ω/∂q̇``.
    omega_jac_dq : array_like, shape (n, 3, d, d) — or (n, 3)
        ``∂W_j/∂q_l`` (index order ``[.., j, l]``).
    inertia : array_like, shape (3, 3) or (n, 3, 3)
        Inertia tensor about the centre of mass in the world frame.
    """

    name: str
    mass: float
    com: ArrayLike
    com_jac: ArrayLike
    com_hess: ArrayLike
    omega_jac: ArrayLike
    omega_jac_dq: ArrayLike
    inertia: ArrayLike


@dataclass
class _Arrays:
    m: float
    c: np.ndarray      # (n, 3)
    J: np.ndarray      # (n, 3, d)
    H: np.ndarray      # (n, 3, d, d)
    W: np.ndarray      # (n, 3, d)
    Om: np.ndarray     # (n, 3, d, d)
    I: np.ndarray      # (n, 3, 3)


def _arrays(body: Body) -> _Arrays:
    where = f"body {body.name!r}"
    c = np.asarray(body.com, dtype=float)
    if c.ndim != 2 or c.shape[1] != 3:
        raise ModelError(f"{where}: com must have shape (n, 3), got {c.shape}")
    n = c.shape[0]

    def first(a, what):
        a = np.asarray(a, dtype=float)
        if a.shape == (n, 3):
            a = a[:, :, None]
        if a.ndim != 3 or a.shape[:2] != (n, 3):
            raise ModelError(f"{where}: {what} must have shape (n, 3, d), got {a.shape}")
        return a

    def second(a, d, what):
        a = np.asarray(a, dtype=float)
        if a.shape == (n, 3) and d == 1:
            a = a[:, :, None, None]
        if a.shape != (n, 3, d, d):
            raise ModelError(f"{where}: {what} must have shape {(n, 3, d, d)}, got {a.shape}")
        return a

    J = first(body.com_jac, "com_jac")
    d = J.shape[2]
    W = first(body.omega_jac, "omega_jac")
    if W.shape[2] != d:
        raise ModelError(f"{where}: omega_jac has {W.shape[2]} columns, com_jac {d}")
    inertia = np.asarray(body.inertia, dtype=float)
    if inertia.shape == (3, 3):
        inertia = np.broadcast_to(inertia, (n, 3, 3))
    if inertia.shape != (n, 3, 3):
        raise ModelError(f"{where}: inertia must be (3, 3) or (n, 3, 3), got {inertia.shape}")
    out = _Arrays(float(body.mass), c, J, second(body.com_hess, d, "com_hess"), W,
                  second(body.omega_jac_dq, d, "omega_jac_dq"), inertia)
    for name in ("c", "J", "H", "W", "Om", "I"):
        if not np.all(np.isfinite(getattr(out, name))):
            raise ModelError(f"{where}: NaN or inf in the kinematic data ({name})")
    return out


def _all(bodies: Sequence[Body]) -> list[_Arrays]:
    if not bodies:
        raise ModelError("no bodies given")
    arrs = [_arrays(b) for b in bodies]
    shapes = {a.J.shape for a in arrs}
    if len(shapes) != 1:
        raise ModelError(f"bodies disagree on (steps, 3, dof): {sorted(shapes)}")
    return arrs


def mass_matrix(bodies: Sequence[Body]) -> np.ndarray:
    """Generalized mass matrix ``M(q) = Σ m JᵀJ + WᵀIW``, shape (n, d, d)."""
    out = 0.0
    for a in _all(bodies):
        out = out + a.m * np.einsum("nij,nik->njk", a.J, a.J)
        out = out + np.einsum("nij,nik,nkl->njl", a.W, a.I, a.W)
    return out


def _inertia_rate(W: np.ndarray, I: np.ndarray) -> np.ndarray:
    """``∂I/∂q_l = [w_l×] I − I [w_l×]``, shape (n, 3, 3, d) (index ``[.., i, k, l]``)."""
    eps = np.zeros((3, 3, 3))
    eps[0, 1, 2] = eps[1, 2, 0] = eps[2, 0, 1] = 1.0
    eps[0, 2, 1] = eps[2, 1, 0] = eps[1, 0, 2] = -1.0
    skew = np.einsum("iaj,nal->nijl", eps, W)            # [w_l×]_ij = ε_iaj w_a
    return np.einsum("nijl,njk->nikl", skew, I) - np.einsum("nij,njkl->nikl", I, skew)


def mass_matrix_gradient(bodies: Sequence[Body]) -> np.ndarray:
    """``∂M_jk/∂q_l``, shape (n, d, d, d), from second-order influence coefficients.

    ``∂M_jk/∂q_l = Σ m (H_jlᵀ J_k + J_jᵀ H_kl) + Ω_jlᵀ I W_k + W_jᵀ I Ω_kl
    + W_jᵀ (∂I/∂q_l) W_k``.
    """
    out = 0.0
    for a in _all(bodies):
        trans = np.einsum("nijl,nik->njkl", a.H, a.J)
        rot = np.einsum("nijl,nim,nmk->njkl", a.Om, a.I, a.W)
        out = out + a.m * (trans + np.swapaxes(trans, 1, 2)) + rot + np.swapaxes(rot, 1, 2)
        out = out + np.einsum("nij,nikl,nkm->njml", a.W, _inertia_rate(a.W, a.I), a.W)
    return out


def kinetic_energy(bodies: Sequence[Body], q_dot: ArrayLike) -> np.ndarray:
    """``T = ½ q̇ᵀ M q̇`` per step, shape (n,)."""
    M = mass_matrix(bodies)
    qd = _rates(q_dot, M.shape[0], M.shape[1], "q_dot")
    return 0.5 * np.einsum("nj,njk,nk->n", qd, M, qd)


def potential_energy(bodies: Sequence[Body], gravity: ArrayLike) -> np.ndarray:
    """``V = −Σ m g·c`` per step, shape (n,) (zero level through the origin)."""
    g = np.asarray(gravity, dtype=float)
    return -sum(a.m * a.c @ g for a in _all(bodies))


def potential_gradient(bodies: Sequence[Body], gravity: ArrayLike) -> np.ndarray:
    """``∂V/∂q = −Σ m Jᵀ g``, shape (n, d)."""
    g = np.asarray(gravity, dtype=float)
    return -sum(a.m * np.einsum("nij,i->nj", a.J, g) for a in _all(bodies))


def _rates(value: ArrayLike, n: int, d: int, what: str) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if arr.shape == (n,) and d == 1:
        arr = arr[:, None]
    if arr.shape != (n, d):
        raise ModelError(f"{what} must have shape {(n, d)}, got {arr.shape}")
    return arr


def inverse_dynamics(bodies: Sequence[Body], q_dot: ArrayLike, q_ddot: ArrayLike,
                     gravity: ArrayLike = (0.0, 0.0, -9.81)) -> np.ndarray:
    """Generalized forces ``τ`` from Lagrange's equations (Shen et al. 2021 eq 36).

    Parameters
    ----------
    bodies : sequence of :class:`Body`
    q_dot, q_ddot : array_like, shape (n, d) — or (n,) for one DOF
        Generalized velocities and accelerations at the steps the bodies describe.
    gravity : array_like, shape (3,)

    Returns
    -------
    ndarray, shape (n, d)
        ``τ = M q̈ + c(q, q̇) + ∂V/∂q``; for one DOF column 0 is the actuator torque.
    """
    M = mass_matrix(bodies)
    n, d = M.shape[:2]
    qd = _rates(q_dot, n, d, "q_dot")
    qdd = _rates(q_ddot, n, d, "q_ddot")
    dM = mass_matrix_gradient(bodies)
    # Christoffel form: c_j = Σ_kl (∂M_jk/∂q_l − ½ ∂M_kl/∂q_j) q̇_k q̇_l.
    coriolis = (np.einsum("njkl,nk,nl->nj", dM, qd, qd)
                - 0.5 * np.einsum("nklj,nk,nl->nj", dM, qd, qd))
    return np.einsum("njk,nk->nj", M, qdd) + coriolis + potential_gradient(bodies, gravity)
