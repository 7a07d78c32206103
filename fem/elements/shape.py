"""One-dimensional shape bases shared by the line elements (ANCF cable and beam).

The reference arc length along an element is ``x = s L`` with ``s ∈ [0, 1]``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["hermite", "linear"]


def _stack(N: list) -> np.ndarray:
    shape = np.broadcast_shapes(*(np.shape(x) for x in N))
    return np.stack([np.broadcast_to(x, shape) for x in N], axis=-1)


def hermite(s: np.ndarray, L: np.ndarray | float = 1.0, deriv: int = 0) -> np.ndarray:
    """Cubic Hermite functions and their ``x``-derivatives at ``s``: (…, 4).

    ``r(x) = N₁ r_A + N₂ r_x,A + N₃ r_B + N₄ r_x,B`` with
    ``N₁ = 1 − 3s² + 2s³, N₂ = L (s − 2s² + s³), N₃ = 3s² − 2s³, N₄ = L (s³ − s²)``.
    With an array ``L`` (n_el,) the result is (n_el, n_points, 4).
    """
    s = np.asarray(s, dtype=float)
    L = np.asarray(L, dtype=float)[..., None] if np.ndim(L) else L
    s = s[None, :] if np.ndim(L) else s
    if deriv == 0:
        N = [1 - 3 * s**2 + 2 * s**3, (s - 2 * s**2 + s**3) * L, 3 * s**2 - 2 * s**3,
             (s**3 - s**2) * L]
    elif deriv == 1:
        N = [(-6 * s + 6 * s**2) / L, (1 - 4 * s + 3 * s**2) + 0 * L, (6 * s - 6 * s**2) / L,
             (3 * s**2 - 2 * s) + 0 * L]
    elif deriv == 2:
        N = [(-6 + 12 * s) / L**2, (-4 + 6 * s) / L, (6 - 12 * s) / L**2, (6 * s - 2) / L]
    else:
        raise ValueError(f"hermite: derivative order {deriv} not available (0, 1, 2)")
    return _stack(N)


def linear(s: np.ndarray, L: np.ndarray | float = 1.0, deriv: int = 0) -> np.ndarray:
    """Linear Lagrange functions ``(1 − s, s)`` and their ``x``-derivative: (…, 2)."""
    s = np.asarray(s, dtype=float)
    L = np.asarray(L, dtype=float)[..., None] if np.ndim(L) else L
    s = s[None, :] if np.ndim(L) else s
    if deriv == 0:
        N = [1 - s + 0 * L, s + 0 * L]
    elif deriv == 1:
        N = [-1.0 / L + 0 * s, 1.0 / L + 0 * s]
    else:
        raise ValueError(f"linear: derivative order {deriv} not available (0, 1)")
    return _stack(N)
