"""Bézier (Bernstein degree p) and cubic B-spline bases (Fan and Zhang 2016, eqs 25–33).

Both are B-splines on an open knot vector over ``[0, L]``: one span of degree 5 is the
Bernstein/Bézier basis (eq 25), ``m`` uniform spans of degree 3 the cubic B-spline basis
with ``m + 3`` functions (eq 28).  Clamping drops the first function (value at x = 0) for
the axial field and the first two (value and slope) for the transverse fields."""

from __future__ import annotations

import numpy as np
from scipy.interpolate import BSpline

from ..core.errors import ModelError
from . import DeformationBasis, register


class _OpenSpline(DeformationBasis):
    degree = 3
    spans = 1

    def _setup(self):
        p, L = self.degree, self.length
        inner = np.linspace(0.0, L, self.spans + 1)
        knots = np.concatenate([[0.0] * p, inner, [L] * p])
        k = len(knots) - p - 1
        self._splines = [BSpline(knots, np.eye(k), p).derivative(d) if d else
                         BSpline(knots, np.eye(k), p) for d in range(3)]

    @property
    def breakpoints(self):
        return np.linspace(0.0, self.length, self.spans + 1)

    def _eval(self, x):
        x = np.clip(np.asarray(x, float).ravel(), 0.0, self.length)
        return [s(x) for s in self._splines]

    def axial(self, x):
        F, dF, _ = self._eval(x)
        return F[:, 1:], dF[:, 1:]

    def bending(self, x):
        F, dF, d2F = self._eval(x)
        return F[:, 2:], dF[:, 2:], d2F[:, 2:]


@register("bezier")
class Bezier(_OpenSpline):
    """Bernstein polynomials of degree ``n + 1`` on the whole link (default n = 4: the
    quintic of fan2016, eq 25)."""

    min_n = 1

    def __init__(self, length: float, n: int = 4):
        super().__init__(length, n)
        self.degree = self.n + 1
        self.gauss_points = self.degree + 1
        self._setup()


@register("bspline")
class CubicBSpline(_OpenSpline):
    """Cubic B-splines on ``m = n − 1`` uniform spans (``3m + 3`` coordinates over the
    three displacement fields of the paper's planar count, eq 28)."""

    min_n = 2
    gauss_points = 4

    def __init__(self, length: float, n: int):
        super().__init__(length, n)
        if self.n < 2:
            raise ModelError("basis 'bspline' needs n >= 2")
        self.degree = 3
        self.spans = self.n - 1
        self._setup()
