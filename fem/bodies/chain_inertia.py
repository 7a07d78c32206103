"""Inertia and weight of floating-frame links in their frame coordinates (:mod:`fem.model.chains`).

Every material point of a chain link is ``r = o(q) + R(a) p(x; e)``: an origin ``o`` (the
tips of the links before it), a rotation product ``R`` of angles ``a = C q`` (linear in
the chain coordinates) and the link's centre line ``p`` in its frame.  The chain's
forces need, summed over the link's quadrature points with the mass weights ``w``,

    f = Σ w Jᵀ r̈,   M = Σ w JᵀJ,   C = 2 Σ w Jᵀ(H·q̇),   K_q = Σ w (r̈·H + Jᵀ(H·q̈)),

with ``J = ∂r/∂q`` (3, n) and ``H = ∂²r/∂q∂q`` (3, n, n).  Formed point by point in the
chain coordinates (:meth:`fem.assembly.chains.PlanarChainSystem.kinematics`, kept as the
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

from .floating_frame import axis_rotation

__all__ = ["Frame", "LinkState", "frame_jacobian", "frame_term", "frame_hessian",
           "index", "block", "ChainInertia", "rotation_z", "RotationProduct"]


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


def frame_term(F: Frame, p, Pe, Q, cols, n: int, qcols=None):
    """``J`` (P, 3, n) and ``∂²r/∂q∂q`` (P, 3, n, n) of ``r = R(a) p(e)`` at P points
    (``p`` (P, 3), ``Pe`` (P, 3, ne), ``Q`` (P, nq, nq) on the coordinates ``qcols``
    (default: all of ``cols``); ``cols`` None for a rigid offset)."""
    C = F.C
    G = (F.dR @ p.T).transpose(2, 1, 0)                      # (P, 3, k)
    J = G @ C
    Hk = (F.ddR @ p.T).transpose(3, 2, 0, 1)                 # (P, 3, k, k)
    H = C.T @ (Hk @ C)
    if cols is not None and len(cols):
        qcols = cols if qcols is None else qcols
        J[:, :, cols] += np.einsum("ij,pjm->pim", F.R, Pe)
        D = np.einsum("kij,pjm->pikm", F.dR, Pe)
        Dq = C.T @ D                                        # (P, 3, n, ne)
        H[:, :, :, cols] += Dq
        H[:, :, cols, :] += Dq.transpose(0, 1, 3, 2)
        H[:, :, qcols[:, None], qcols[None, :]] -= F.R[None, :, 0, None, None] * Q[:, None]
    return J, H


def frame_hessian(F: Frame, p, Pe, Q, cols, qcols, n: int) -> np.ndarray:
    """``∂²r/∂q∂q`` (3, n, n) of the single point ``r = R(a) p(e)`` (``p`` (3,), ``Pe``
    (3, ne) or None for a rigid offset, ``Q`` (nq, nq) on the coordinates ``qcols``);
    :func:`frame_term` for one point, with :func:`index` columns."""
    C = F.C
    H = C.T @ ((F.ddR @ p).transpose(2, 0, 1) @ C)           # (3, n, n)
    if Pe is not None:
        Dq = C.T @ (F.dR @ Pe).transpose(1, 0, 2)             # (3, n, ne)
        H[:, :, cols] += Dq
        H[:, cols, :] += Dq.transpose(0, 2, 1)
        H[(slice(None), *block(qcols))] -= F.R[:, 0, None, None] * Q
    return H


def index(cols: np.ndarray):
    """``cols`` as a slice when they are consecutive (views instead of copies)."""
    cols = np.asarray(cols)
    if cols.size and np.array_equal(cols, np.arange(cols[0], cols[0] + cols.size)):
        return slice(int(cols[0]), int(cols[0]) + cols.size)
    return cols


def block(c) -> tuple:
    """The index of the square block ``c × c`` (``c`` a slice or an index array)."""
    return (c, c) if isinstance(c, slice) else np.ix_(c, c)


def _rates(F: Frame, ad: np.ndarray):
    """``W₁ = Σ ȧ_j ∂R/∂a_j`` and ``W₂ = Σ ȧ_j ȧ_l ∂²R/∂a_j∂a_l`` (3, 3) for angle rates
    ``ad`` (k,)."""
    k = ad.size
    if k == 1:                                   # planar chains, hub links
        return ad[0] * F.dR[0], (ad[0] * ad[0]) * F.ddR[0, 0]
    W1 = (ad @ F.dR.reshape(k, 9)).reshape(3, 3)
    W2 = (np.outer(ad, ad).ravel() @ F.ddR.reshape(k * k, 9)).reshape(3, 3)
    return W1, W2


def _kappa(F: Frame, p, Pe, Qb, v: np.ndarray, ed, edb) -> np.ndarray:
    """``J̇ q̇ = q̇ᵀ H q̇`` of the point ``r = R(a) p(e)`` (``p`` (3,)), with ``W₁, W₂`` of
    :func:`_rates`: ``W₂ p + 2 W₁ P_e ė − R x̂ (ėᵀ Q ė)`` (``Qb`` the block of ``Q`` on
    the elastic rates ``edb``)."""
    W1, W2 = _rates(F, F.C @ v)
    out = W2 @ p
    if Pe is not None:
        out += 2.0 * (W1 @ (Pe @ ed)) - ((Qb @ edb) @ edb) * F.R[:, 0]
    return out


class LinkState:
    """One link of a chain at a configuration: its frame, elastic coordinates ``cols``
    (an :func:`index` into ``q``), the point data ``p`` (P, 3), ``Pe`` (P, 3, ne), ``Q``
    (a :class:`~fem.elements.floating_frame.Coupling` on the link's coordinates ``band``,
    a slice of ``range(ne)``, see
    :meth:`~fem.elements.floating_frame.FloatingFrameLink.local_band`) and mass weights
    ``w`` (P,), and the origin terms it adds to those of the link before it (each
    ``(frame, p (3,), Pe (3, ne), Q (nq, nq), cols, qcols)`` with the indices of ``e`` and
    of the band in ``q``, or ``(frame, p, None, None, None, None)`` for a rigid offset:
    the previous tip, rigid offsets)."""

    __slots__ = ("F", "cols", "p", "Pe", "Q", "w", "origin", "band")

    def __init__(self, F, cols, p, Pe, Q, w, origin, band=None):
        self.F, self.cols, self.p, self.Pe, self.Q, self.w = F, cols, p, Pe, Q, w
        self.origin = origin
        self.band = slice(0, Pe.shape[2]) if band is None else band


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
        # J_o (3, n) of every link, accumulated along the chain (None while the origin
        # is fixed)
        J_o = None
        self.J_o = []
        for lk in links:
            for F, p, Pe, _, cols, _ in lk.origin:
                Jt = frame_jacobian(F, p, Pe, cols, n)
                J_o = Jt if J_o is None else J_o + Jt
            self.J_o.append(J_o)
        self._H_o = None

    # ------------------------------------------------------------------ helpers
    def H_o(self) -> list:
        """``∂²o/∂q∂q`` (3, n, n) of every link's origin (None while it is zero)."""
        if self._H_o is None:
            H, out = None, []
            for lk in self.links:
                for F, p, Pe, Q, cols, qcols in lk.origin:
                    Ht = frame_hessian(F, p, Pe, Q, cols, qcols, self.n)
                    H = Ht if H is None else H + Ht
                out.append(H)
            self._H_o = out
        return self._H_o

    def _G(self, i: int) -> np.ndarray:
        """``[J_o; C]`` (3 + k, n): the rows of ``G`` other than the elastic selection."""
        J_o = self.J_o[i]
        return np.concatenate([np.zeros((3, self.n)) if J_o is None else J_o,
                               self.links[i].F.C])

    @staticmethod
    def _project(X: np.ndarray, Gs: np.ndarray, cols, out: np.ndarray) -> None:
        """Add ``Gᵀ X G`` (…, n, n) to ``out`` for local matrices ``X`` (…, m, m),
        ``G = [Gs; E]`` (``E`` picks the columns ``cols``)."""
        s = Gs.shape[0]
        out += Gs.T @ (X[..., :s, :s] @ Gs)
        out[..., :, cols] += Gs.T @ X[..., :s, s:]
        out[..., cols, :] += X[..., s:, :s] @ Gs
        out[(Ellipsis, *block(cols))] += X[..., s:, s:]

    @staticmethod
    def _lift(Y: np.ndarray, Gs: np.ndarray, cols, out: np.ndarray) -> None:
        """Add ``Gᵀ Y`` (…, n, n) to ``out`` for local rows ``Y`` (…, m, n)."""
        s = Gs.shape[0]
        out += Gs.T @ Y[..., :s, :]
        out[..., cols, :] += Y[..., s:, :]

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
        ``x_e`` given through ``Px = P_e x_e`` (P, 3) and ``Qx = Q x_e`` (P, nq)."""
        F, p = lk.F, lk.p
        k, P = F.C.shape[0], p.shape[0]
        b = 3 + k
        Hx = np.zeros((P, 3, b + lk.Pe.shape[2]))
        X2 = (xa @ F.ddR.reshape(k, 9 * k)).reshape(k, 3, 3)
        Hx[:, :, 3:b] = ((X2 @ p.T) + (F.dR @ Px.T)).transpose(2, 1, 0)
        X1 = (xa @ F.dR.reshape(k, 9)).reshape(3, 3)
        Hx[:, :, b:] = X1 @ lk.Pe
        Hx[:, :, b + lk.band.start:b + lk.band.stop] -= F.R[None, :, 0, None] * Qx[:, None, :]
        return Hx

    def _hessian_contract(self, lk: LinkState, wu: np.ndarray) -> np.ndarray:
        """``Σ_p wu_p · Ĥ_p`` (m, m) for per-point vectors ``wu`` (P, 3)."""
        F, p, Pe = lk.F, lk.p, lk.Pe
        k, ne = F.C.shape[0], Pe.shape[2]
        b = 3 + k
        X = np.zeros((b + ne, b + ne))
        S = wu.T @ p                                             # (3, 3)
        X[3:b, 3:b] = (F.ddR.reshape(k * k, 9) @ S.ravel()).reshape(k, k)
        T = (wu @ F.dR.transpose(1, 0, 2).reshape(3, 3 * k)).reshape(-1, k, 3)
        ae = np.einsum("pjk,pkn->jn", T, Pe)                     # (k, ne)
        X[3:b, b:] = ae
        X[b:, 3:b] = ae.T
        q = slice(b + lk.band.start, b + lk.band.stop)
        X[q, q] = -lk.Q.weighted_sum(wu @ F.R[:, 0])
        return X

    # ------------------------------------------------------------------ forces
    def weight(self, g: np.ndarray, tangent: bool = False):
        """``Σ w Jᵀ g`` (n,) and, with ``tangent``, ``Σ w g·H`` (n, n)."""
        n = self.n
        f = np.zeros(n)
        K = np.zeros((n, n)) if tangent else None
        H_o = self.H_o() if tangent else None
        for i, lk in enumerate(self.links):
            F, cols, w, Pe = lk.F, lk.cols, lk.w, lk.Pe
            k, ne = F.C.shape[0], Pe.shape[2]
            sw = float(w.sum())
            swp = w @ lk.p                                        # (3,)
            swPe = (w @ Pe.reshape(w.size, 3 * ne)).reshape(3, ne)
            gp = np.outer(g, swp).ravel()
            fa = F.dR.reshape(k, 9) @ gp                          # (k,)
            f += F.C.T @ fa
            if self.J_o[i] is not None:
                f += self.J_o[i].T @ (sw * g)
            f[cols] += (F.R.T @ g) @ swPe
            if tangent:
                b = 3 + k
                X = np.zeros((b + ne, b + ne))
                X[3:b, 3:b] = (F.ddR.reshape(k * k, 9) @ gp).reshape(k, k)
                ae = (F.dR.transpose(0, 2, 1) @ g) @ swPe         # (k, ne)
                X[3:b, b:] = ae
                X[b:, 3:b] = ae.T
                q = slice(b + lk.band.start, b + lk.band.stop)
                X[q, q] = -float(g @ F.R[:, 0]) * lk.Q.weighted_sum(w)
                self._project(X, self._G(i), cols, K)
                if H_o[i] is not None:
                    K += sw * np.tensordot(g, H_o[i], 1)
        return f, K

    def inertia(self, v: np.ndarray, a: np.ndarray, tangent: bool = False):
        """``Σ w Jᵀ r̈`` (n,), ``r̈ = J a + q̇ᵀ H q̇``, and with ``tangent`` the local
        parts ``(M, K_q, C)`` of the module docstring (without constant masses)."""
        n = self.n
        f = np.zeros(n)
        if tangent:
            T = np.zeros((3, n, n))                      # M, C, K_q
            H_o = self.H_o()
        kap_o = np.zeros(3)
        for i, lk in enumerate(self.links):
            F, cols, p, Pe, Qb, w = lk.F, lk.cols, lk.p, lk.Pe, lk.Q, lk.w
            for Ft, pt, Pt, Qt, ct, qt in lk.origin:
                kap_o = kap_o + (_kappa(Ft, pt, None, None, v, None, None) if Pt is None
                                 else _kappa(Ft, pt, Pt, Qt, v, v[ct], v[qt]))
            P, ne = Pe.shape[0], Pe.shape[2]
            J_o = self.J_o[i]
            ad, add = F.C @ v, F.C @ a
            ed, edd = v[cols], a[cols]
            edb = ed[lk.band]
            W1, W2 = _rates(F, ad)
            V = _rates(F, add)[0] + W2                           # Σ ä_j ∂R/∂a_j + W₂
            # 2-D products: one BLAS call each, not P small ones
            Pe2 = Pe.reshape(3 * P, ne)
            Ped, Pedd = (Pe2 @ ed).reshape(P, 3), (Pe2 @ edd).reshape(P, 3)
            Qed = Qb.mul(edb)                                    # (P, nq)
            acc = p @ V.T + Pedd @ F.R.T + Ped @ (2.0 * W1.T)
            acc -= np.multiply.outer(Qed @ edb, F.R[:, 0])
            if J_o is not None:
                acc += J_o @ a + kap_o
            wacc = w[:, None] * acc
            u = w @ acc
            fa = F.dR.reshape(-1, 9) @ (wacc.T @ p).ravel()       # (k,)
            f += F.C.T @ fa
            if J_o is not None:
                f += J_o.T @ u
            f[cols] += (wacc @ F.R).ravel() @ Pe2
            if not tangent:
                continue
            Gs = self._G(i)
            Jh = self._local_jacobian(lk)
            m = Jh.shape[2]
            Jf = Jh.reshape(3 * P, m)
            WJ = np.repeat(w, 3)[:, None] * Jf
            Hy = self._hessian_apply(lk, ad, Ped, Qed).reshape(3 * P, m)
            Ha = self._hessian_apply(lk, add, Pedd, Qb.mul(edd[lk.band])).reshape(3 * P, m)
            # Σ w Ĵᵀ[Ĵ, Ĥ q̇, Ĥ q̈] in one product: M̂, Ĉ/2 and the first part of K̂_q
            X = (WJ.T @ np.concatenate([Jf, Hy, Ha], axis=1)).reshape(m, 3, m)
            X = X.transpose(1, 0, 2)
            X[1] *= 2.0
            X[2] += self._hessian_contract(lk, wacc)
            self._project(X, Gs, cols, T)
            if H_o[i] is not None:
                Mo = X[0, :, :3]                                 # Σ w Ĵᵀ (m, 3)
                Y = np.stack([2.0 * (Mo @ (H_o[i] @ v)), Mo @ (H_o[i] @ a)])
                self._lift(Y, Gs, cols, T[1:])
                T[2] += np.tensordot(u, H_o[i], 1)
        if not tangent:
            return f, None
        return f, (T[0], T[2], T[1])

    def mass(self) -> np.ndarray:
        """``Σ w JᵀJ`` (n, n)."""
        n = self.n
        M = np.zeros((n, n))
        for i, lk in enumerate(self.links):
            Jh = self._local_jacobian(lk)
            Jf = Jh.reshape(-1, Jh.shape[2])
            Mh = (np.repeat(lk.w, 3)[:, None] * Jf).T @ Jf
            self._project(Mh, self._G(i), lk.cols, M)
        return M


# ---------------------------------------------------------------------------------------
# the rotations of a chain's frames
def rotation_z(theta: float):
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    R1 = np.array([[-s, -c, 0.0], [c, -s, 0.0], [0.0, 0.0, 0.0]])
    R2 = np.array([[-c, s, 0.0], [-s, -c, 0.0], [0.0, 0.0, 0.0]])
    return R, R1, R2


class RotationProduct:
    """A running product ``R = F_1 F_2 …`` of constant rotations and elementary rotations
    ``E_axis(c_k·q)`` with exact first and second derivatives in the angles ``a_k``."""

    def __init__(self, n: int, K: int, R0: np.ndarray):
        self.R = np.array(R0, float)
        self.dR = np.zeros((K, 3, 3))
        self.ddR = np.zeros((K, K, 3, 3))
        self.C = np.zeros((K, n))
        self.k = 0

    def copy(self) -> RotationProduct:
        new = object.__new__(RotationProduct)
        new.R, new.dR, new.ddR = self.R.copy(), self.dR.copy(), self.ddR.copy()
        new.C, new.k = self.C.copy(), self.k
        return new

    def const(self, F: np.ndarray) -> None:
        k = self.k
        self.R = self.R @ F
        self.dR[:k] = self.dR[:k] @ F
        self.ddR[:k, :k] = self.ddR[:k, :k] @ F

    def turn(self, axis: int, c: np.ndarray, q: np.ndarray) -> None:
        E, E1, E2 = axis_rotation(axis, float(c @ q))
        k = self.k
        self.ddR[:k, :k] = self.ddR[:k, :k] @ E
        cross = self.dR[:k] @ E1
        self.ddR[:k, k] = cross
        self.ddR[k, :k] = cross
        self.ddR[k, k] = self.R @ E2
        self.dR[:k] = self.dR[:k] @ E
        self.dR[k] = self.R @ E1
        self.R = self.R @ E
        self.C[k] = c
        self.k = k + 1

    def frame(self) -> Frame:
        """The product as a :class:`~fem.bodies.chain_inertia.Frame` (its ``k`` angles)."""
        k = self.k
        return Frame(self.R, self.dR[:k], self.ddR[:k, :k], self.C[:k])

    def term(self, p, Pe, Q, cols, n):
        """``J`` (P, 3, n) and ``∂²r/∂q∂q`` (P, 3, n, n) of ``r = R(q) p(e)``."""
        return frame_term(self.frame(), p, Pe, Q, cols, n)
