"""Inertia and weight of floating-frame links in their frame coordinates (:mod:`fem.chains`).

Every material point of a chain link is ``r = o(q) + R(a) p(x; e)``: an origin ``o`` (the
tips of the links before it), a rotation product ``R`` of angles ``a = C q`` (linear in
the chain coordinates) and the link's centre line ``p`` in its frame.  The chain's
forces need, summed over the link's quadrature points with the mass weights ``w``,

    f = Σ w Jᵀ r̈,   M = Σ w JᵀJ,   C = 2 Σ w Jᵀ(H·q̇),   K_q = Σ w (r̈·H + Jᵀ(H·q̈)),

with ``J = ∂r/∂q`` (3, n) and ``H = ∂²r/∂q∂q`` (3, n, n).  Formed point by point in the
chain coordinates (:meth:`fem.chains.PlanarChainSystem.kinematics`, kept as the
reference), these cost ``P × 3 × n²`` per tensor for ``P`` points and ``n`` chain
coordinates: the B-spline and assumed-mode bases, with many quadrature pieces, were 3–14×
slower than the Bézier basis at equal coordinates although their Newton iterations were
the same.

Here the sums are taken in the link's own coordinates ``y = (o, a, e)`` (``3 + k + n_e``
of them) and carried to the chain once per link by the chain rule, ``J = Ĵ G`` with
``G = ∂y/∂q = [J_o; C; E]`` (``E`` picks the link's elastic coordinates) and
``H = Gᵀ Ĥ G + H_o`` (only the origin is nonlinear in ``q``)::

    Ĵ = [I, ∂R/∂a_j p, R P_e],
    Ĥ:  ∂²r/∂a_j∂a_l = ∂²R/∂a_j∂a_l p,  ∂²r/∂a_j∂e = ∂R/∂a_j P_e,  ∂²r/∂e∂e = −R x̂ ⊗ Q.

The residual needs only vectors (``O(P n_e)``: the accelerations of the points and
their moments); the tangent the local matrices ``Σ w ĴᵀĴ``… (``O(P (3 + k + n_e)²)``),
projected by ``G``.  The quadrature and every product of the point data are the same as
in the reference: the results agree with it to round-off (the sums run in another order).
"""

from __future__ import annotations

import numpy as np

__all__ = ["Frame", "LinkState", "frame_jacobian", "frame_term", "ChainInertia"]


class Frame:
    """A rotation ``R`` of the angles ``a = C q`` with its derivatives: ``dR`` (k, 3, 3)
    ``= ∂R/∂a_j`` and ``ddR`` (k, k, 3, 3) ``= ∂²R/∂a_j∂a_l``; ``C`` (k, n)."""

    __slots__ = ("R", "dR", "ddR", "C")

    def __init__(self, R, dR, ddR, C):
        self.R, self.dR, self.ddR, self.C = R, dR, ddR, C


def frame_jacobian(F: Frame, p, Pe, cols, n: int) -> np.ndarray:
    """``J`` (3, n) of the single point ``r = R(a) p(e)`` (``p`` (3,), ``Pe`` (3, ne) or
    None for a rigid offset)."""
    J = (F.dR @ p).T @ F.C
    if Pe is not None:
        J[:, cols] += F.R @ Pe
    return J


def frame_term(F: Frame, p, Pe, Q, cols, n: int):
    """``J`` (P, 3, n) and ``∂²r/∂q∂q`` (P, 3, n, n) of ``r = R(a) p(e)`` at P points
    (``p`` (P, 3), ``Pe`` (P, 3, ne), ``Q`` (P, ne, ne); ``cols`` None for a rigid offset)."""
    C = F.C
    G = (F.dR @ p.T).transpose(2, 1, 0)                      # (P, 3, k)
    J = G @ C
    Hk = (F.ddR @ p.T).transpose(3, 2, 0, 1)                 # (P, 3, k, k)
    H = C.T @ (Hk @ C)
    if cols is not None and len(cols):
        J[:, :, cols] += np.einsum("ij,pjm->pim", F.R, Pe)
        D = np.einsum("kij,pjm->pikm", F.dR, Pe)
        Dq = C.T @ D                                        # (P, 3, n, ne)
        H[:, :, :, cols] += Dq
        H[:, :, cols, :] += Dq.transpose(0, 1, 3, 2)
        H[:, :, cols[:, None], cols[None, :]] -= F.R[None, :, 0, None, None] * Q[:, None]
    return J, H


def _kappa(F: Frame, p, Pe, Q, v: np.ndarray, ed) -> np.ndarray:
    """``J̇ q̇ = q̇ᵀ H q̇`` of the points ``r = R(a) p(e)`` (``p`` (…, 3)): with
    ``W₁ = Σ ȧ_j ∂R/∂a_j``, ``W₂ = Σ ȧ_j ȧ_l ∂²R/∂a_j∂a_l``, it is
    ``W₂ p + 2 W₁ P_e ė − R x̂ (ėᵀ Q ė)``."""
    ad = F.C @ v
    W2 = np.tensordot(ad, np.tensordot(ad, F.ddR, 1), 1)
    out = p @ W2.T
    if Pe is not None:
        W1 = np.tensordot(ad, F.dR, 1)
        out = out + 2.0 * (Pe @ ed) @ W1.T
        out = out - np.multiply.outer((Q @ ed) @ ed, F.R[:, 0])
    return out


class LinkState:
    """One link of a chain at a configuration: its frame, elastic coordinates ``cols``,
    the point data ``p`` (P, 3), ``Pe`` (P, 3, ne), ``Q`` (P, ne, ne) and mass weights
    ``w`` (P,), and the origin terms it adds to those of the link before it (each
    ``(frame, p (3,), Pe (3, ne) or None, Q or None, cols or None)``: the previous tip,
    rigid offsets)."""

    __slots__ = ("F", "cols", "p", "Pe", "Q", "w", "origin")

    def __init__(self, F, cols, p, Pe, Q, w, origin):
        self.F, self.cols, self.p, self.Pe, self.Q, self.w = F, cols, p, Pe, Q, w
        self.origin = origin


class ChainInertia:
    """The inertia forces, weight and mass of a list of :class:`LinkState` (one
    configuration), with the chain rule of the module docstring.

    Parameters
    ----------
    links : list of LinkState
    n : int
        Chain coordinates.
    """

    def __init__(self, links: list[LinkState], n: int):
        self.links = links
        self.n = n
        # J_o (3, n) of every link, accumulated along the chain
        J_o = np.zeros((3, n))
        self.J_o = []
        for lk in links:
            for F, p, Pe, _, cols in lk.origin:
                J_o = J_o + frame_jacobian(F, p, Pe, cols, n)
            self.J_o.append(J_o)
        self._H_o = None
        self._moments = None

    # ------------------------------------------------------------------ helpers
    def H_o(self) -> list:
        """``∂²o/∂q∂q`` (3, n, n) of every link's origin (None while it is zero)."""
        if self._H_o is None:
            H, out = None, []
            for lk in self.links:
                for F, p, Pe, Q, cols in lk.origin:
                    Ht = frame_term(F, p[None], None if Pe is None else Pe[None],
                                    None if Q is None else Q[None],
                                    cols if Pe is not None else None, self.n)[1][0]
                    H = Ht if H is None else H + Ht
                out.append(H)
            self._H_o = out
        return self._H_o

    def _G(self, i: int) -> np.ndarray:
        """``[J_o; C]`` (3 + k, n): the rows of ``G`` other than the elastic selection."""
        return np.concatenate([self.J_o[i], self.links[i].F.C])

    def _project(self, X: np.ndarray, Gs: np.ndarray, cols) -> np.ndarray:
        """``Gᵀ X G`` (n, n) for a local matrix ``X`` (m, m), ``G = [Gs; E]``."""
        s = Gs.shape[0]
        out = Gs.T @ (X[:s, :s] @ Gs)
        out[:, cols] += Gs.T @ X[:s, s:]
        out[cols, :] += X[s:, :s] @ Gs
        out[np.ix_(cols, cols)] += X[s:, s:]
        return out

    def _lift(self, Y: np.ndarray, Gs: np.ndarray, cols) -> np.ndarray:
        """``Gᵀ Y`` (n, …) for local rows ``Y`` (m, …)."""
        s = Gs.shape[0]
        out = Gs.T @ Y[:s]
        out[cols] += Y[s:]
        return out

    @staticmethod
    def _local_jacobian(lk: LinkState) -> np.ndarray:
        """``Ĵ`` (P, 3, 3 + k + ne) in the link's coordinates ``(o, a, e)``."""
        F, p = lk.F, lk.p
        k, P = F.C.shape[0], p.shape[0]
        Jh = np.zeros((P, 3, 3 + k + lk.Pe.shape[2]))
        Jh[:, 0, 0] = Jh[:, 1, 1] = Jh[:, 2, 2] = 1.0
        Jh[:, :, 3:3 + k] = (F.dR @ p.T).transpose(2, 1, 0)
        Jh[:, :, 3 + k:] = F.R @ lk.Pe
        return Jh

    @staticmethod
    def _hessian_apply(lk: LinkState, xa, Px, Qx) -> np.ndarray:
        """``Ĥ x`` (P, 3, m) for a local vector ``x`` with angle part ``xa``, elastic part
        ``x_e`` given through ``Px = P_e x_e`` (P, 3) and ``Qx = Q x_e`` (P, ne)."""
        F, p = lk.F, lk.p
        k, P = F.C.shape[0], p.shape[0]
        Hx = np.zeros((P, 3, 3 + k + lk.Pe.shape[2]))
        X2 = np.tensordot(xa, F.ddR, 1)                          # (k, 3, 3)
        Hx[:, :, 3:3 + k] = ((X2 @ p.T) + (F.dR @ Px.T)).transpose(2, 1, 0)
        X1 = np.tensordot(xa, F.dR, 1)                           # (3, 3)
        Hx[:, :, 3 + k:] = X1 @ lk.Pe
        Hx[:, :, 3 + k:] -= F.R[None, :, 0, None] * Qx[:, None, :]
        return Hx

    @staticmethod
    def _hessian_contract(lk: LinkState, wu: np.ndarray) -> np.ndarray:
        """``Σ_p wu_p · Ĥ_p`` (m, m) for per-point vectors ``wu`` (P, 3)."""
        F, p, Pe = lk.F, lk.p, lk.Pe
        k, ne = F.C.shape[0], Pe.shape[2]
        X = np.zeros((3 + k + ne, 3 + k + ne))
        S = wu.T @ p                                             # (3, 3)
        X[3:3 + k, 3:3 + k] = np.einsum("jlik,ik->jl", F.ddR, S)
        T = np.einsum("pi,jik->pjk", wu, F.dR)                   # (P, k, 3)
        ae = np.einsum("pjk,pkn->jn", T, Pe)
        X[3:3 + k, 3 + k:] = ae
        X[3 + k:, 3:3 + k] = ae.T
        X[3 + k:, 3 + k:] = -np.tensordot(wu @ F.R[:, 0], lk.Q, 1)
        return X

    # ------------------------------------------------------------------ forces
    def weight(self, g: np.ndarray, tangent: bool = False):
        """``Σ w Jᵀ g`` (n,) and, with ``tangent``, ``Σ w g·H`` (n, n)."""
        n = self.n
        f = np.zeros(n)
        K = np.zeros((n, n)) if tangent else None
        H_o = self.H_o() if tangent else None
        for i, lk in enumerate(self.links):
            F, cols = lk.F, lk.cols
            sw = float(lk.w.sum())
            swp = lk.w @ lk.p                                     # (3,)
            swPe = np.tensordot(lk.w, lk.Pe, 1)                   # (3, ne)
            fa = (F.dR @ swp) @ g                                 # (k,)
            f += self.J_o[i].T @ (sw * g) + F.C.T @ fa
            f[cols] += swPe.T @ (F.R.T @ g)
            if tangent:
                k, ne = F.C.shape[0], swPe.shape[1]
                X = np.zeros((3 + k + ne, 3 + k + ne))
                X[3:3 + k, 3:3 + k] = (F.ddR @ swp) @ g
                ae = ((F.dR.transpose(0, 2, 1) @ g) @ swPe)      # (k, ne)
                X[3:3 + k, 3 + k:] = ae
                X[3 + k:, 3:3 + k] = ae.T
                X[3 + k:, 3 + k:] = -float(g @ F.R[:, 0]) * np.tensordot(lk.w, lk.Q, 1)
                K += self._project(X, self._G(i), cols)
                if H_o[i] is not None:
                    K += sw * np.tensordot(g, H_o[i], 1)
        return f, K

    def inertia(self, v: np.ndarray, a: np.ndarray, tangent: bool = False):
        """``Σ w Jᵀ r̈`` (n,), ``r̈ = J a + q̇ᵀ H q̇``, and with ``tangent`` the local
        parts ``(M, K_q, C)`` of the module docstring (without constant masses)."""
        n = self.n
        f = np.zeros(n)
        if tangent:
            M, Kq, Cm = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
            H_o = self.H_o()
        kap_o = np.zeros(3)
        for i, lk in enumerate(self.links):
            F, cols, p, Pe, Q = lk.F, lk.cols, lk.p, lk.Pe, lk.Q
            for Ft, pt, Pt, Qt, ct in lk.origin:
                kap_o = kap_o + _kappa(Ft, pt, Pt, Qt, v,
                                       None if Pt is None else v[ct])
            J_o = self.J_o[i]
            ad, add = F.C @ v, F.C @ a
            ed, edd = v[cols], a[cols]
            W1 = np.tensordot(ad, F.dR, 1)
            W2 = np.tensordot(ad, np.tensordot(ad, F.ddR, 1), 1)
            A1 = np.tensordot(add, F.dR, 1)
            Ped, Pedd = Pe @ ed, Pe @ edd                        # (P, 3)
            Qed = Q @ ed                                         # (P, ne)
            acc = (p @ (A1 + W2).T + Pedd @ F.R.T + 2.0 * Ped @ W1.T
                   - np.multiply.outer(Qed @ ed, F.R[:, 0]))
            acc += J_o @ a + kap_o
            wacc = lk.w[:, None] * acc
            u = wacc.sum(axis=0)
            fa = np.tensordot(F.dR, wacc.T @ p, 2)               # (k,)
            f += J_o.T @ u + F.C.T @ fa
            f[cols] += np.tensordot(wacc @ F.R, Pe, ([0, 1], [0, 1]))
            if not tangent:
                continue
            Gs = self._G(i)
            Jh = self._local_jacobian(lk)
            P, m = Jh.shape[0], Jh.shape[2]
            Jf = Jh.reshape(3 * P, m)
            wf = np.repeat(lk.w, 3)[:, None]
            WJ = wf * Jf
            Mh = WJ.T @ Jf
            M += self._project(Mh, Gs, cols)
            Hy = self._hessian_apply(lk, ad, Ped, Qed).reshape(3 * P, m)
            Ha = self._hessian_apply(lk, add, Pedd, Q @ edd).reshape(3 * P, m)
            Ch = WJ.T @ Hy
            Kh = WJ.T @ Ha + self._hessian_contract(lk, wacc)
            Cl = self._project(Ch, Gs, cols)
            Kl = self._project(Kh, Gs, cols)
            if H_o[i] is not None:
                Hv, Hav = H_o[i] @ v, H_o[i] @ a                 # (3, n)
                Cl += self._lift(Mh[:, :3] @ Hv, Gs, cols)
                Kl += self._lift(Mh[:, :3] @ Hav, Gs, cols) + np.tensordot(u, H_o[i], 1)
            Cm += 2.0 * Cl
            Kq += Kl
        if not tangent:
            return f, None
        return f, (M, Kq, Cm)

    def mass(self) -> np.ndarray:
        """``Σ w JᵀJ`` (n, n)."""
        n = self.n
        M = np.zeros((n, n))
        for i, lk in enumerate(self.links):
            Jh = self._local_jacobian(lk)
            Jf = Jh.reshape(-1, Jh.shape[2])
            Mh = (np.repeat(lk.w, 3)[:, None] * Jf).T @ Jf
            M += self._project(Mh, self._G(i), lk.cols)
        return M
