"""Finite elements: Hermite cubic bending, linear axial/torsion (Fan and Zhang 2016, eqs 11–24).

``m`` equal elements; every node carries the five coordinates ``u, v, v′, w, w′`` of the
paper (plus the twist ``φ``); the clamped node 0 carries none.  ``n = 2m`` transverse
functions per direction."""

from __future__ import annotations

import numpy as np

from ..core.errors import ModelError
from . import DeformationBasis, register


@register("fe")
class HermiteElements(DeformationBasis):
    min_n = 2
    gauss_points = 4

    def __init__(self, length: float, n: int):
        super().__init__(length, n)
        if self.n % 2:
            raise ModelError(f"basis 'fe': n counts v and v′ of every free node, so it is "
                             f"even (n = 2 × elements); got {self.n}")
        self.m = self.n // 2

    @property
    def breakpoints(self):
        return np.linspace(0.0, self.length, self.m + 1)

    def _local(self, x):
        x = np.asarray(x, float).ravel()
        h = self.length / self.m
        e = np.clip(np.floor(x / h).astype(int), 0, self.m - 1)
        return x, e, (x - e * h) / h, h

    def axial(self, x):
        x, e, s, h = self._local(x)
        X = np.zeros((x.size, self.m + 1))
        dX = np.zeros_like(X)
        i = np.arange(x.size)
        X[i, e], X[i, e + 1] = 1 - s, s
        dX[i, e], dX[i, e + 1] = -1 / h, 1 / h
        return X[:, 1:], dX[:, 1:]

    def bending(self, x):
        x, e, s, h = self._local(x)
        N = np.stack([1 - 3 * s**2 + 2 * s**3, h * (s - 2 * s**2 + s**3),
                      3 * s**2 - 2 * s**3, h * (-s**2 + s**3)], axis=1)
        dN = np.stack([-6 * s + 6 * s**2, h * (1 - 4 * s + 3 * s**2),
                       6 * s - 6 * s**2, h * (-2 * s + 3 * s**2)], axis=1) / h
        d2N = np.stack([-6 + 12 * s, h * (-4 + 6 * s), 6 - 12 * s, h * (-2 + 6 * s)],
                       axis=1) / h**2
        out = []
        i = np.arange(x.size)[:, None]
        cols = 2 * e[:, None] + np.arange(4)            # (v, v′) of both element nodes
        for A in (N, dN, d2N):
            F = np.zeros((x.size, 2 * (self.m + 1)))
            F[i, cols] = A
            out.append(F[:, 2:])
        return tuple(out)
