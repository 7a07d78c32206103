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
