"""General constraint rows: ``Φᵢ = Σ a(q)·b(q, t) + cᵢ + hᵢ(t)`` with point maps.

The rows of :mod:`fem.constraints` that involve a :class:`~fem.point_maps.PointMap` (a
point or direction of a floating-frame body) cannot join the constant-Hessian quadratic
form of the assembly.  :class:`GeneralRows` evaluates them from the maps' own values,
Jacobians and second derivatives; each term's entries sit on the fixed pattern
``row × (dofs of a ∪ dofs of b)`` (Jacobian) and ``(a ∪ b) × (a ∪ b)`` (Hessian), appended
to the assembly's patterns once.  Per term ``a·b``::

    Φ_q  = J_aᵀ b + J_bᵀ a
    Φ_qq = Σ_c (b_c H_a,c + a_c H_b,c) + J_aᵀ J_b + J_bᵀ J_a
    γ    = −(q̇ᵀH_a q̇ · b + 2 (J_a q̇)·(J_b q̇) + a · q̇ᵀH_b q̇)

and with a prescribed direction ``b = β(t)``: ``Φ_t = a·β̇``,
``γ = −(q̇ᵀH_a q̇ · β + 2 (J_a q̇)·β̇ + a·β̈)``.  Every map is evaluated once per
configuration.
"""

from __future__ import annotations

import numpy as np

from ..point_maps import evaluate

__all__ = ["GeneralRows"]


def _flat(r: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Positions of the block ``rows r × columns c`` in a flattened (k, k) matrix."""
    return (r[:, None] * k + c[None, :]).ravel()


class GeneralRows:
    """The general rows of an assembly (see module docstring).

    Parameters
    ----------
    terms : list of (row, a, b, beta)
        ``b`` a map, or None with ``beta = (motion, k)``: the row's direction is
        ``motion(t)[i][k]`` (value, first and second time derivative).
    n_con : int
        Number of constraint rows of the assembly.
    """

    def __init__(self, terms, n_con: int):
        self.n_con = n_con
        maps, index = [], {}

        def slot(m):
            if m is None:
                return -1
            if id(m) not in index:
                index[id(m)] = len(maps)
                maps.append(m)
            return index[id(m)]

        self.maps = maps
        self.terms = []
        self._flat = []            # flat Hessian positions: (a,a), (b,b), (a,b), (b,a)
        jr, jc, hr, hc = [], [], [], []
        for row, a, b, beta in terms:
            ia, ib = slot(a), slot(b)
            dofs = [np.asarray(a.dofs, np.int64)]
            if b is not None:
                dofs.append(np.asarray(b.dofs, np.int64))
            u = np.unique(np.concatenate(dofs))
            ca = np.searchsorted(u, a.dofs)
            cb = np.searchsorted(u, b.dofs) if b is not None else None
            self.terms.append((row, ia, ib, ca, cb, u.size, beta))
            k = u.size
            self._flat.append((_flat(ca, ca, k), None if cb is None else _flat(cb, cb, k),
                               None if cb is None else _flat(ca, cb, k),
                               None if cb is None else _flat(cb, ca, k)))
            jr.append(np.full(u.size, row, np.int64))
            jc.append(u)
            hr.append(np.repeat(u, u.size))
            hc.append(np.tile(u, u.size))
        cat = lambda L: np.concatenate(L).astype(np.int64) if L else np.zeros(0, np.int64)
        self.jrows, self.jcols = cat(jr), cat(jc)
        self.hrows, self.hcols = cat(hr), cat(hc)
        self.rows = np.array([t[0] for t in self.terms], np.int64)
        self._last = None        # (q, with second derivatives, evaluations)

    def __len__(self) -> int:
        return len(self.terms)

    def _eval(self, q, second=False):
        """``(x, J, H)`` of every map; the last configuration's are reused (the state,
        Hessian and ``γ`` of one Newton iteration share it)."""
        last = self._last
        if last is not None and (second <= last[1]) and np.array_equal(last[0], q):
            return last[2]
        ev = [evaluate(m, q, second) for m in self.maps]
        self._last = (q.copy(), second, ev)
        return ev

    @staticmethod
    def _beta(beta, t: float, deriv: int) -> np.ndarray:
        fn, k = beta
        return np.asarray(fn(t)[deriv], float)[k]

    def state(self, q: np.ndarray, t: float):
        """``(Φ contributions (n_con,), Jacobian values in pattern order)``."""
        ev = self._eval(q)
        phi = np.zeros(self.n_con)
        jv = []
        for row, ia, ib, ca, cb, k, beta in self.terms:
            xa, Ja, _ = ev[ia]
            j = np.zeros(k)
            if ib < 0:
                b = self._beta(beta, t, 0)
                phi[row] += xa @ b
                j[ca] += b @ Ja
            else:
                xb, Jb, _ = ev[ib]
                phi[row] += xa @ xb
                j[ca] += xb @ Ja
                j[cb] += xa @ Jb
            jv.append(j)
        return phi, (np.concatenate(jv) if jv else np.zeros(0))

    def phi_t(self, q: np.ndarray, t: float) -> np.ndarray:
        out = np.zeros(self.n_con)
        for row, ia, ib, _ca, _cb, _k, beta in self.terms:
            if ib < 0:
                out[row] += self.maps[ia](q) @ self._beta(beta, t, 1)
        return out

    def gamma(self, q: np.ndarray, v: np.ndarray, t: float) -> np.ndarray:
        """Contributions to ``γ`` (``Φ_q q̈ = γ``)."""
        ev = self._eval(q, second=True)
        vel, kap = [], []
        for m, (_x, J, H) in zip(self.maps, ev, strict=True):
            vl = v[m.dofs]
            vel.append(J @ vl)
            kap.append(np.einsum("ijk,j,k->i", H, vl, vl))
        out = np.zeros(self.n_con)
        for row, ia, ib, _ca, _cb, _k, beta in self.terms:
            xa = ev[ia][0]
            if ib < 0:
                b, bd, bdd = (self._beta(beta, t, d) for d in range(3))
                out[row] -= kap[ia] @ b + 2.0 * vel[ia] @ bd + xa @ bdd
            else:
                xb = ev[ib][0]
                out[row] -= kap[ia] @ xb + 2.0 * vel[ia] @ vel[ib] + xa @ kap[ib]
        return out

    def hessian_values(self, lam: np.ndarray, q: np.ndarray, keep: np.ndarray,
                       t: float = 0.0) -> np.ndarray:
        """``λᵢ Φᵢ,qq`` of every term in pattern order (rows with ``keep`` 0 skipped)."""
        ev = self._eval(q, second=True)
        out = []
        for (row, ia, ib, _ca, _cb, k, beta), (faa, fbb, fab, fba) in zip(
                self.terms, self._flat, strict=True):
            H = np.zeros(k * k)
            w = lam[row] * keep[row]
            if w != 0.0:
                xa, Ja, Ha = ev[ia]
                if ib < 0:
                    b = self._beta(beta, t, 0)
                    H[faa] += np.tensordot(b, Ha, 1).ravel()
                else:
                    xb, Jb, Hb = ev[ib]
                    H[faa] += np.tensordot(xb, Ha, 1).ravel()
                    H[fbb] += np.tensordot(xa, Hb, 1).ravel()
                    C = Ja.T @ Jb
                    H[fab] += C.ravel()
                    H[fba] += C.T.ravel()
                H *= w
            out.append(H)
        return np.concatenate(out) if out else np.zeros(0)
