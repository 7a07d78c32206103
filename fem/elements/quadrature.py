"""Quadrature rules: Gauss–Legendre lines, triangles of any degree, tensor products.

Triangle rules are conical (Stroud) products of a Gauss–Jacobi rule in one collapsed
direction and a Gauss–Legendre rule in the other.  They exist for every degree, all
weights are positive and all points lie strictly inside the triangle, which is what a
nonlinear element needs (no negative weights amplifying round-off, no evaluation on the
boundary).  A degree-``p`` rule uses ``ceil((p+1)/2)**2`` points.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy.special import roots_jacobi, roots_legendre

from ..core.errors import ModelError

__all__ = ["Rule", "gauss_legendre", "triangle", "tensor", "prism", "lookup"]


@dataclass(frozen=True)
class Rule:
    """A quadrature rule: ``sum(weights * f(points)) ≈ ∫ f`` over the reference cell.

    Attributes
    ----------
    points : ndarray, shape (n, d)
        Reference coordinates.  Line: ``x ∈ [-1, 1]``.  Triangle: ``(x, y)`` with
        ``x, y ≥ 0, x + y ≤ 1`` (area 1/2); its area coordinates are ``(1-x-y, x, y)``.
    weights : ndarray, shape (n,)
    degree : int
        Total polynomial degree integrated exactly.
    cell : str
    """

    points: np.ndarray
    weights: np.ndarray
    degree: int
    cell: str

    @property
    def n(self) -> int:
        return len(self.weights)


@cache
def gauss_legendre(n: int) -> Rule:
    """``n``-point Gauss–Legendre rule on ``[-1, 1]``, exact to degree ``2n-1``."""
    if n < 1:
        raise ModelError(f"Gauss–Legendre rule needs at least 1 point, got {n}")
    x, w = roots_legendre(n)
    return Rule(x[:, None].copy(), w.copy(), 2 * n - 1, "line")


def _radon7() -> Rule:
    """Radon's 7-point rule, degree 5, fully symmetric (Stroud T2:5-1)."""
    r15 = np.sqrt(15.0)
    a, b = (6.0 - r15) / 21.0, (6.0 + r15) / 21.0
    wa, wb = (155.0 - r15) / 1200.0, (155.0 + r15) / 1200.0
    bary = [(1 / 3, 1 / 3, 1 / 3), (a, a, 1 - 2 * a), (a, 1 - 2 * a, a), (1 - 2 * a, a, a),
            (b, b, 1 - 2 * b), (b, 1 - 2 * b, b), (1 - 2 * b, b, b)]
    w = np.array([9 / 40] + [wa] * 3 + [wb] * 3) / 2.0      # reference area 1/2
    pts = np.array([[l2, l3] for (_, l2, l3) in bary])
    return Rule(pts, w, 5, "triangle")


@cache
def triangle(degree: int) -> Rule:
    """Triangle rule on the reference triangle exact for polynomials of total ``degree``.

    Degrees 0–1: the centroid; 2–5: Radon's fully symmetric 7-point rule (a symmetric
    rule keeps a symmetric structure's response symmetric to round-off under nonlinear
    integrands; the conical rule is not symmetric under vertex permutations).  Higher
    degrees: the conical product — collapsed coordinates ``x = s``, ``y = t (1 - s)``
    with ``s, t ∈ [0, 1]``, so that ``dx dy = (1 - s) ds dt``; the factor ``(1 - s)`` is
    absorbed by Gauss–Jacobi(1, 0).
    """
    if degree < 0:
        raise ModelError(f"triangle rule degree must be ≥ 0, got {degree}")
    if degree <= 1:
        return Rule(np.array([[1 / 3, 1 / 3]]), np.array([0.5]), 1, "triangle")
    if degree <= 5:
        return _radon7()
    n = max(1, (degree + 2) // 2)  # 2n - 1 >= degree
    xj, wj = roots_jacobi(n, 1.0, 0.0)  # weight (1 - u) on [-1, 1]
    xl, wl = roots_legendre(n)
    s = 0.5 * (xj + 1.0)
    ws = wj / 4.0  # (1-s) = (1-u)/2, ds = du/2
    t = 0.5 * (xl + 1.0)
    wt = wl / 2.0
    S, T = np.meshgrid(s, t, indexing="ij")
    W = np.outer(ws, wt)
    pts = np.column_stack([S.ravel(), (T * (1.0 - S)).ravel()])
    return Rule(pts, W.ravel(), 2 * n - 1, "triangle")


def tensor(a: Rule, b: Rule, cell: str | None = None) -> Rule:
    """Tensor product of two rules (points concatenated, weights multiplied)."""
    pa = np.repeat(a.points, b.n, axis=0)
    pb = np.tile(b.points, (a.n, 1))
    w = np.outer(a.weights, b.weights).ravel()
    return Rule(np.hstack([pa, pb]), w, min(a.degree, b.degree), cell or f"{a.cell}x{b.cell}")


def prism(triangle_degree: int, n_thickness: int) -> Rule:
    """Triangle × thickness line: points ``(x, y, χ)`` with ``χ ∈ [-1, 1]``."""
    return tensor(triangle(triangle_degree), gauss_legendre(n_thickness), "prism")


def line_section(n_line: int, n_section: int) -> Rule:
    """Line × square cross-section: points ``(x, y, z)`` each in ``[-1, 1]``."""
    g = gauss_legendre(n_section)
    return tensor(gauss_legendre(n_line), tensor(g, g), "line_section")


def lookup(cell: str, degree: int) -> Rule:
    """Rule for ``cell`` ('line' or 'triangle') exact to ``degree``."""
    if cell == "line":
        return gauss_legendre(max(1, (degree + 2) // 2))
    if cell == "triangle":
        return triangle(degree)
    raise ModelError(f"no quadrature for cell type {cell!r}; known: 'line', 'triangle'")
