"""Assumed modes: the clamped–free modes of a rod and of a beam (Fan and Zhang 2016, eqs 4–10)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from . import DeformationBasis, register


def cantilever_eigenvalues(n: int) -> np.ndarray:
    """Roots ``βL`` of ``1 + cos βL cosh βL = 0`` (clamped–free Euler–Bernoulli beam)."""
    f = lambda z: np.cos(z) * np.cosh(z) + 1.0
    return np.array([brentq(f, (k - 0.5) * np.pi - 0.6 if k > 1 else 1.0,
                            (k - 0.5) * np.pi + 0.6) for k in range(1, n + 1)])


@register("modes")
class CantileverModes(DeformationBasis):
    """``X_j = sin((2j − 1)πx/2L)`` (rod modes), ``Y_k`` the cantilever beam modes::

        Y_k = cosh βx − cos βx − σ_k (sinh βx − sin βx),
        σ_k = (cosh βL + cos βL)/(sinh βL + sin βL)

    written with ``e^{−βx}`` factored out of the hyperbolic terms so that higher modes
    keep their digits.  Smooth, so the quadrature uses several pieces."""

    gauss_points = 6

    def __init__(self, length: float, n: int):
        super().__init__(length, n)
        self.beta = cantilever_eigenvalues(self.n) / self.length

    @property
    def breakpoints(self) -> np.ndarray:
        return np.linspace(0.0, self.length, self.n + 2)

    def axial(self, x):
        x = np.asarray(x, float).ravel()[:, None]
        k = (2 * np.arange(1, self.n + 1) - 1) * np.pi / (2 * self.length)
        return np.sin(k * x), k * np.cos(k * x)

    def bending(self, x):
        x = np.asarray(x, float).ravel()[:, None]
        b, L = self.beta, self.length
        bL = b * L
        # σ = (cosh βL + cos βL)/(sinh βL + sin βL), stably
        sig = (1 + np.exp(-2 * bL) + 2 * np.exp(-bL) * np.cos(bL)) / \
              (1 - np.exp(-2 * bL) + 2 * np.exp(-bL) * np.sin(bL))
        z = b * x
        ep, em = np.exp(z - bL), np.exp(-z - bL)       # e^{βx} and e^{−βx}, scaled by e^{−βL}
        ch, sh = 0.5 * (ep + em), 0.5 * (ep - em)      # cosh βx, sinh βx times e^{−βL}
        c, s = np.cos(z), np.sin(z)
        scale = np.exp(bL)
        # the combination cosh − σ sinh is small for large βx: compute it with the scaled
        # hyperbolics, then restore e^{βL}
        hyp0 = (ch - sig * sh) * scale
        hyp1 = (sh - sig * ch) * scale
        Y = hyp0 - c + sig * s
        dY = b * (hyp1 + s + sig * c)
        d2Y = b**2 * (hyp0 + c - sig * s)
        return Y, dY, d2Y
