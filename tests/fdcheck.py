"""Central differences over element batches, the reference of every tangent test."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def batch_jacobian(fun: Callable[[np.ndarray], np.ndarray], q: np.ndarray,
                   h: float) -> np.ndarray:
    """``∂fun/∂q`` by central differences for a batch ``q`` (n_el, n): ``fun`` maps the
    batch to (n_el,) or (n_el, m); the result is (n_el, n) or (n_el, m, n)."""
    cols = []
    for j in range(q.shape[1]):
        dq = np.zeros_like(q)
        dq[:, j] = h
        cols.append((np.asarray(fun(q + dq)) - np.asarray(fun(q - dq))) / (2 * h))
    return np.stack(cols, axis=-1)


def force_tangent(fam, q: np.ndarray, h: float) -> np.ndarray:
    """The tangent ``∂f/∂q`` of an element family's forces (n_el, n, n)."""
    return batch_jacobian(lambda x: fam.forces(x)[0], q, h)


def energy_gradient(fam, q: np.ndarray, h: float) -> np.ndarray:
    """The gradient ``∂U/∂q`` of an element family's strain energy (n_el, n)."""
    return batch_jacobian(fam.energy, q, h)


def jacobian(fun: Callable[[np.ndarray], np.ndarray], x: np.ndarray,
             h: float) -> np.ndarray:
    """``∂fun/∂x`` by central differences for one vector ``x`` (n,): the derivative
    along coordinate ``j`` is the last axis, ``(m, n)`` for a vector ``fun``."""
    return np.stack([(np.asarray(fun(x + h * e)) - np.asarray(fun(x - h * e))) / (2 * h)
                     for e in np.eye(x.size)], axis=-1)


def inertia_tangents(asm, q: np.ndarray, v: np.ndarray, a: np.ndarray,
                     h: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The inertia forces' tangents of a system ``asm`` beside their central differences:
    ``(C, C_fd)`` = ∂f/∂q̇ at ``(q, v, a)`` and ``(K, K_fd)`` = ∂f/∂q at ``q̇ = 0``, where
    the third derivatives of the positions (left out of the tangent) do not enter."""
    _, (_, _, C) = asm.inertia_forces(q, v, a, tangent=True)
    z = np.zeros_like(v)
    _, (_, K, _) = asm.inertia_forces(q, z, a, tangent=True)
    return (C, jacobian(lambda x: asm.inertia_forces(q, x, a)[0], v, h),
            K, jacobian(lambda x: asm.inertia_forces(x, z, a)[0], q, h))
