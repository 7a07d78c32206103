"""Floating-frame flexible link: the elastic body of Fan and Zhang 2016 (eqs 2–3).

A straight link of length ``L`` along the x axis of its floating frame, clamped to the frame
at ``x = 0``.  Its elastic coordinates ``e = [a, b, c, d]`` weight the functions of a
:mod:`fem.bases` basis: axial ``a``, transverse-y ``b``, transverse-z ``c``, torsion ``d``.
The centre line in the frame is

    p(x; e) = (x + X·a − ½ κ (bᵀH(x)b + cᵀH(x)c),  Y·b,  Y·c)

with ``κ = 1`` with the foreshortening coupling and ``κ = 0`` without it; ``p`` is
quadratic in ``e``, so its Jacobian ``P_e`` is linear and its second derivative
``P_ee`` constant (x component only).  The strain energy is the linear one of the
stretch, the two curvatures and the twist (the coupling lives in the kinematics, where it
produces the geometric stiffening through the inertia forces)::

    U = ½ eᵀ K e,  K = diag(EA ∫X′X′ᵀ, EI_z ∫Y″Y″ᵀ, EI_y ∫Y″Y″ᵀ, GJ ∫X′X′ᵀ).

``kinematics = 'fourth_order'`` keeps the next order of the inextensible beam in the
slopes ``s = v′² + w′²`` (the paper's model is exact to second order): the axial position
gains ``−⅛∫₀ˣ s² dξ`` (the series of ``−∫₀ˣ (1 − √(1 − s)) dξ``) and the bending energy
uses the curvatures of the bent centre line in the section's (twist-free) frame,

    κ_y = v″ + ½ v′ m,   κ_z = w″ + ½ w′ m,   m = v′v″ + w′w″,

(planar: ``κ = v″(1 + ½v′²)``, the series of the exact ``v″/√(1 − v′²)``), so
``U = ½∫EA(X′a)² + EI_z κ_y² + EI_y κ_z² + GJ(X′d)²``.  The position is then quartic in
``e`` and ``Q`` (below) depends on ``e``; the elastic force is nonlinear
(:meth:`FloatingFrameLink.elastic_forces`).  'curvature_only' and 'foreshortening_only'
switch on one of the two corrections (for the diagnosis in docs/floating_frame.md).

Unlike the families registered in :mod:`fem.elements`, the link's positions are not linear
in its coordinates once it sits on a moving frame: its mass depends on the configuration
(``constant_mass = False``).  :mod:`fem.model.chains` places links on frames and supplies
``M(q)``, the quadratic-velocity forces and their tangents to the solvers.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np

from .. import bases
from ..core.errors import ModelError
from ..core.jit import compiled
from ..core.validate import affordable, boolean, finite, integer, positive

__all__ = ["FloatingFrameLink", "LinkSamples", "Coupling", "KINEMATICS", "kinematics_name",
           "fourth_order_kernel", "bending_kernel"]

KINEMATICS = ("paper", "fourth_order", "curvature_only", "foreshortening_only")
"""Kinematic models of a link: the paper's (Fan and Zhang 2016, eq 2, linear curvature),
and the corrections to the next order in the slopes (both, or one of them)."""

OLD_KINEMATICS = {"seed": "paper"}
"""Former names of :data:`KINEMATICS`, still accepted (with a DeprecationWarning)."""


def kinematics_name(kinematics, what: str = "floating-frame link") -> str:
    """``kinematics`` checked against :data:`KINEMATICS`; a former name (``'seed'``, now
    ``'paper'``) gives the new one and a :class:`DeprecationWarning`."""
    if isinstance(kinematics, str) and kinematics in OLD_KINEMATICS:
        new = OLD_KINEMATICS[kinematics]
        warnings.warn(f"{what}: kinematics={kinematics!r} is now called {new!r} (the "
                      f"paper's model); the old name still works", DeprecationWarning,
                      stacklevel=3)
        return new
    if kinematics not in KINEMATICS:
        raise ModelError(f"{what}: kinematics must be one of {', '.join(KINEMATICS)}; got "
                         f"{kinematics!r}")
    return kinematics


class LinkSamples:
    """Precomputed basis data at fixed points ``x`` of a link (for :meth:`local`).

    ``L1`` (P, 3, ne), ``Q`` (P, ne, ne) the constant part of the coupling, ``H``
    (P, nb, nb) its block on either transverse field (the foreshortening integrals, the
    same for both), ``p0`` (P, 3); with the fourth-order foreshortening also the rule of
    ``∫₀^{x_p}`` for every point (:func:`_running_rule`): ``nfull`` (P,) the whole pieces
    of the basis below ``x_p``, and the Gauss rule on the rest ``[a_k, x_p]``: slopes
    ``dY`` (P, G, nb) and weights ``wt`` (P, G)."""

    __slots__ = ("x", "L1", "Q", "p0", "dY", "wt", "H", "nfull", "rule")

    def __init__(self, x, L1, Q, p0, dY=None, wt=None, y=None, nfull=None):
        self.x, self.L1, self.Q, self.p0, self.dY, self.wt = x, L1, Q, p0, dY, wt
        self.H = None if y is None else np.ascontiguousarray(Q[:, y, y])
        self.nfull = nfull
        self.rule = None     # the running rule as one matrix (RunningRule), NumPy path


class RunningRule:
    """The running rules of P points as one weight matrix: the NumPy path of the
    fourth-order foreshortening (:func:`running_fourth_order_terms` in a few large
    products instead of two small batched ones per term and a running sum).

    The rule points of every whole piece and of every point's rest, stacked: slopes
    ``D`` (N, nb) with ``N = (K + P) G``, their outer products ``DD`` (N, nb²) (constant:
    formed once), and the weights ``W`` (P, N): row ``p`` holds the weights of the
    whole pieces below ``x_p`` and of its own rest, zero elsewhere.  Every term is then
    ``W @ (per rule point values)``: one matrix product for ``u``, the gradients and the
    three blocks of ``Q4`` together."""

    __slots__ = ("D", "DD", "W", "nb")

    def __init__(self, pieces, nfull: np.ndarray, dY: np.ndarray, wt: np.ndarray):
        dYK, wK = pieces
        K, G, nb = dYK.shape
        P = dY.shape[0]
        self.nb = nb
        self.D = np.ascontiguousarray(np.concatenate([dYK.reshape(K * G, nb),
                                                      dY.reshape(P * G, nb)]))
        N = self.D.shape[0]
        self.DD = np.einsum("nk,nm->nkm", self.D, self.D).reshape(N, nb * nb)
        W = np.zeros((P, N))
        flatK = wK.reshape(K * G)
        for p in range(P):
            j = int(nfull[p]) * G
            W[p, :j] = flatK[:j]
            W[p, K * G + p * G:K * G + (p + 1) * G] = wt[p]
        self.W = W

    def terms(self, ey: np.ndarray, ez: np.ndarray, blocks: bool = True) -> tuple:
        """``u`` (P,), ``gy``, ``gz`` (P, nb) and (``blocks``) ``Q4`` (P, 2 nb, 2 nb), as
        :func:`running_fourth_order_terms` (equal to rounding)."""
        D, nb = self.D, self.nb
        N = D.shape[0]
        a, c = D @ ey, D @ ez
        s = a * a + c * c
        ncol = 1 + 2 * nb + (3 * nb * nb if blocks else 0)
        F = np.empty((N, ncol))
        F[:, 0] = 0.125 * s * s
        F[:, 1:1 + nb] = (0.5 * s * a)[:, None] * D
        F[:, 1 + nb:1 + 2 * nb] = (0.5 * s * c)[:, None] * D
        if blocks:
            wq = np.empty((N, 3, 1))
            wq[:, 0, 0] = 0.5 * (s + 2 * a * a)
            wq[:, 1, 0] = a * c
            wq[:, 2, 0] = 0.5 * (s + 2 * c * c)
            F[:, 1 + 2 * nb:].reshape(N, 3, nb * nb)[:] = wq * self.DD[:, None, :]
        out = self.W @ F
        P = out.shape[0]
        u, gy, gz = out[:, 0], out[:, 1:1 + nb], out[:, 1 + nb:1 + 2 * nb]
        if not blocks:
            return u, gy, gz, None
        b = out[:, 1 + 2 * nb:].reshape(P, 3, nb, nb)
        Q4 = np.empty((P, 2 * nb, 2 * nb))
        Q4[:, :nb, :nb] = b[:, 0]
        Q4[:, :nb, nb:] = b[:, 1]
        Q4[:, nb:, :nb] = b[:, 1].transpose(0, 2, 1)
        Q4[:, nb:, nb:] = b[:, 2]
        return u, gy, gz, Q4


class Coupling:
    """The coupling ``Q`` (``∂²p/∂e∂e = −x̂ ⊗ Q``) of P points on a link's bending
    coordinates (:attr:`FloatingFrameLink.band`, the fields y then z): the
    foreshortening integrals ``H`` (P, nb, nb) on both fields' diagonal blocks, plus the
    configuration-dependent part ``Q4`` (P, 2 nb, 2 nb) of the fourth-order
    foreshortening (None with the paper's kinematics).  Products use ``H`` once for both
    fields: the dense band block would be four times the data.

    With the compiled kernels ``Q4`` comes as its rule (``rule``: the slopes and the
    weights ``(w_yy, w_yz, w_zz)`` of every point of the running rule, see
    :func:`fourth_order_weights`): :meth:`mul` takes ``Q4 x`` from it in
    ``O(P G nb)``, and the dense ``Q4`` (``O(P G nb²)``) is formed only when asked for
    (:meth:`dense`, :meth:`weighted_sum`: the tangents)."""

    __slots__ = ("H", "_Q4", "rule")

    def __init__(self, H: np.ndarray, Q4: np.ndarray | None = None, rule=None):
        self.H, self._Q4, self.rule = H, Q4, rule

    @property
    def Q4(self) -> np.ndarray | None:
        """The fourth-order part (P, 2 nb, 2 nb), formed from the rule on first use."""
        if self._Q4 is None and self.rule is not None:
            P, nb = self.H.shape[:2]
            Q4 = np.empty((P, 2 * nb, 2 * nb))
            fourth_order_kernel()[1](*self.rule, Q4)
            self._Q4 = Q4
        return self._Q4

    def mul(self, x: np.ndarray) -> np.ndarray:
        """``Q_p x`` (P, 2 nb) for ``x`` (2 nb,)."""
        H = self.H
        P, nb = H.shape[:2]
        out = (H.reshape(P * nb, nb) @ x.reshape(2, nb).T).reshape(P, nb, 2)
        out = out.transpose(0, 2, 1).reshape(P, 2 * nb)
        if self.rule is not None:    # from the rule even once Q4 is formed: the same
            q4x = np.empty((P, 2 * nb))    # products whatever was asked for before
            fourth_order_kernel()[2](*self.rule, np.ascontiguousarray(x), q4x)
            out += q4x
        elif self._Q4 is not None:
            out += (self._Q4.reshape(P * 2 * nb, 2 * nb) @ x).reshape(P, 2 * nb)
        return out

    def weighted_sum(self, s: np.ndarray) -> np.ndarray:
        """``Σ_p s_p Q_p`` (2 nb, 2 nb)."""
        P, nb = self.H.shape[:2]
        Hs = (s @ self.H.reshape(P, nb * nb)).reshape(nb, nb)
        out = np.zeros((2 * nb, 2 * nb))
        out[:nb, :nb] = out[nb:, nb:] = Hs
        Q4 = self.Q4
        if Q4 is not None:
            out += (s @ Q4.reshape(P, 4 * nb * nb)).reshape(2 * nb, 2 * nb)
        return out

    def dense(self) -> np.ndarray:
        """``Q`` (P, 2 nb, 2 nb)."""
        P, nb = self.H.shape[:2]
        Q4 = self.Q4
        out = np.zeros((P, 2 * nb, 2 * nb)) if Q4 is None else Q4.copy()
        out[:, :nb, :nb] += self.H
        out[:, nb:, nb:] += self.H
        return out

    @staticmethod
    def concat(a: Coupling, b: Coupling) -> Coupling:
        """The points of ``a``, then those of ``b``."""
        Q4 = None
        if a.Q4 is not None or b.Q4 is not None:
            Q4 = np.concatenate([np.zeros((c.H.shape[0], 2 * c.H.shape[1], 2 * c.H.shape[1]))
                                 if c.Q4 is None else c.Q4 for c in (a, b)])
        return Coupling(np.concatenate([a.H, b.H]), Q4)


def _running_rule(basis, x: np.ndarray, extra: int = 4):
    """The rule of ``∫₀^{x_p}`` for every point, piecewise over the basis' breakpoints:
    the whole pieces below ``x_p`` (their number ``nfull`` (P,)) and the rest of the piece
    that holds ``x_p``, ``[a_k, x_p]``: Gauss points ``ξ`` and weights (P, G), G =
    ``gauss_points + extra`` (zero weights when ``x_p`` is a breakpoint).  The whole
    pieces' own rule is :func:`_piece_rule`: an integral over ``[0, x_p]`` is the running
    sum of the pieces' integrals plus the rest — ``O(pieces + P)`` rule points instead of
    ``O(pieces × P)``."""
    br = basis.breakpoints
    s, w = np.polynomial.legendre.leggauss(basis.gauss_points + extra)
    nfull = np.searchsorted(br[1:], x, side="right")          # pieces with b <= x
    k = np.minimum(nfull, br.size - 2)
    a = br[k]
    span = np.clip(np.minimum(br[k + 1], x) - a, 0.0, None)
    span[nfull == br.size - 1] = 0.0                          # x = L: all pieces whole
    xi = 0.5 * (a + a + span)[:, None] + 0.5 * span[:, None] * s
    wt = 0.5 * span[:, None] * w
    return nfull, xi, wt


def _piece_rule(basis, extra: int = 4):
    """Gauss points and weights (K, G) of every whole piece of the basis (the points the
    running rule used for the pieces below ``x_p``)."""
    br = basis.breakpoints
    s, w = np.polynomial.legendre.leggauss(basis.gauss_points + extra)
    a, span = br[:-1, None], (br[1:] - br[:-1])[:, None]
    return 0.5 * (a + a + span) + 0.5 * span * s, 0.5 * span * w


def fourth_order_terms(ey: np.ndarray, ez: np.ndarray, dY: np.ndarray, wt: np.ndarray):
    """The fourth-order foreshortening terms of one rule per point (NumPy form, the
    reference of the compiled kernel).

    With ``a = Y′·e_y``, ``c = Y′·e_z``, ``s = a² + c²`` at the rule points (``dY``
    (P, G, nb), weights ``wt`` (P, G)), returns ``u = ⅛ Σ wt s²`` (P,), its gradients
    ``½ Σ wt s a Y′`` and ``½ Σ wt s c Y′`` (P, nb), and the blocks of ``Q``:
    ``Σ wt ½(s + 2a²) Y′Y′ᵀ``, ``Σ wt a c Y′Y′ᵀ``, ``Σ wt ½(s + 2c²) Y′Y′ᵀ`` (P, nb, nb).
    """
    a, c = dY @ ey, dY @ ez                                    # (P, G)
    s = a * a + c * c
    u = 0.125 * np.einsum("pg,pg->p", wt, s * s)
    dYt = dY.transpose(0, 2, 1)                                # (P, nb, G)
    gy = 0.5 * (dYt @ (wt * s * a)[..., None])[..., 0]
    gz = 0.5 * (dYt @ (wt * s * c)[..., None])[..., 0]
    blocks = [(dYt * (wt * w)[:, None, :]) @ dY
              for w in (0.5 * (s + 2 * a * a), a * c, 0.5 * (s + 2 * c * c))]
    return (u, gy, gz, *blocks)


def running_fourth_order_terms(ey, ez, pieces, nfull, dY, wt):
    """:func:`fourth_order_terms` of ``∫₀^{x_p}`` (NumPy form, the reference of the
    compiled kernel): the whole pieces' terms (``pieces = (dY_K (K, G, nb), wt_K (K, G))``)
    summed up to ``nfull[p]``, plus the rest's (``dY``, ``wt``)."""
    whole = fourth_order_terms(ey, ez, *pieces)
    rest = fourth_order_terms(ey, ez, dY, wt)
    out = []
    for A, B in zip(whole, rest, strict=True):
        cum = np.concatenate([np.zeros((1, *A.shape[1:])), np.cumsum(A, axis=0)])
        out.append(cum[nfull] + B)
    return tuple(out)


# the kernels call each other through globals, not closure cells (numba keys a closure's
# disk cache on its cells; a cell holding a dispatcher differs in every process)
_weigh = _blocks = _apply = None


@compiled
def fourth_order_kernel(numba):
    """The compiled form of :func:`running_fourth_order_terms` (numba), or None without
    it, as three functions over the running rule (the whole pieces' rule ``dYK``,
    ``WK`` and every point's rest ``dY``, ``WP``, ``nfull`` as in
    :func:`running_fourth_order_terms`):

    * ``terms(ey, ez, dYK, wtK, nfull, dY, wt, u, gy, gz, WK, WP)``: ``u``, ``gy``,
      ``gz`` and the weights ``W = (w_yy, w_yz, w_zz)`` of every rule point,
      ``O((K + P) G nb)``;
    * ``form(dYK, WK, nfull, dY, WP, Q4)``: the blocks as one array
      ``Q4 = [[Q_yy, Q_yz], [Q_yz, Q_zz]]``, ``O((K + P) G nb²)`` (whole rows, one
      product ``dk·dm`` per entry: exactly symmetric);
    * ``mul(dYK, WK, nfull, dY, WP, x, out)``: ``Q4 x``, ``O((K + P) G nb)``.

    The batched small products cost ≈ 48 µs per call in NumPy (half the fourth-order
    spin-up run), and forming ``Q4`` at every evaluation was half the run of the assumed
    modes with 16 functions (102 points)."""
    global _weigh, _blocks, _apply

    @numba.njit(cache=True)
    def weigh(ey, ez, dY, wt, W, acc, gy, gz):  # pragma: no cover - jit
        # one rule (dY (G, nb), wt (G,)): its weights W (G, 3); add u to acc[0], gy, gz
        G, nb = dY.shape
        up = 0.0
        for g in range(G):
            a = 0.0
            c = 0.0
            for k in range(nb):
                a += dY[g, k] * ey[k]
                c += dY[g, k] * ez[k]
            s = a * a + c * c
            w = wt[g]
            up += w * s * s
            W[g, 0] = 0.5 * w * (s + 2.0 * a * a)
            W[g, 1] = w * a * c
            W[g, 2] = 0.5 * w * (s + 2.0 * c * c)
            for k in range(nb):
                dk = dY[g, k]
                gy[k] += 0.5 * w * s * a * dk
                gz[k] += 0.5 * w * s * c * dk
        acc[0] += 0.125 * up

    @numba.njit(cache=True)
    def terms(ey, ez, dYK, wtK, nfull, dY, wt, u, gy, gz, WK,
              WP):  # pragma: no cover - jit
        K, nb = dYK.shape[0], dYK.shape[2]
        P = dY.shape[0]
        # running sums of the whole pieces: row j holds the pieces below j
        cu = np.zeros((K + 1, 1))
        cgy = np.zeros((K + 1, nb))
        cgz = np.zeros((K + 1, nb))
        for j in range(K):
            _weigh(ey, ez, dYK[j], wtK[j], WK[j], cu[j + 1], cgy[j + 1], cgz[j + 1])
            cu[j + 1] += cu[j]
            cgy[j + 1] += cgy[j]
            cgz[j + 1] += cgz[j]
        ru = np.empty(1)
        for p in range(P):
            j = nfull[p]
            ru[0] = 0.0
            gy[p] = 0.0
            gz[p] = 0.0
            _weigh(ey, ez, dY[p], wt[p], WP[p], ru, gy[p], gz[p])
            u[p] = cu[j, 0] + ru[0]
            for k in range(nb):
                gy[p, k] += cgy[j, k]
                gz[p, k] += cgz[j, k]

    @numba.njit(cache=True)
    def blocks(dY, W, t, Qyy, Qyz, Qzz):  # pragma: no cover - jit
        # add Σ_g W_g dY_g dY_gᵀ of one rule to the three (nb, nb) blocks
        G, nb = dY.shape
        for g in range(G):
            wy, wyz, wz = W[g, 0], W[g, 1], W[g, 2]
            for k in range(nb):
                t[k] = dY[g, k]
            for k in range(nb):
                dk = t[k]
                ry, ryz, rz = Qyy[k], Qyz[k], Qzz[k]
                for m in range(nb):
                    dkm = dk * t[m]
                    ry[m] += wy * dkm
                    ryz[m] += wyz * dkm
                    rz[m] += wz * dkm

    @numba.njit(cache=True)
    def form(dYK, WK, nfull, dY, WP, Q4):  # pragma: no cover - jit
        K, nb = dYK.shape[0], dYK.shape[2]
        P = dY.shape[0]
        t = np.empty(nb)
        cyy = np.zeros((K + 1, nb, nb))
        cyz = np.zeros((K + 1, nb, nb))
        czz = np.zeros((K + 1, nb, nb))
        for j in range(K):
            _blocks(dYK[j], WK[j], t, cyy[j + 1], cyz[j + 1], czz[j + 1])
            cyy[j + 1] += cyy[j]
            cyz[j + 1] += cyz[j]
            czz[j + 1] += czz[j]
        ryy = np.empty((nb, nb))
        ryz = np.empty((nb, nb))
        rzz = np.empty((nb, nb))
        for p in range(P):
            j = nfull[p]
            ryy[:] = 0.0
            ryz[:] = 0.0
            rzz[:] = 0.0
            _blocks(dY[p], WP[p], t, ryy, ryz, rzz)
            for k in range(nb):
                for m in range(nb):
                    vyz = cyz[j, k, m] + ryz[k, m]
                    Q4[p, k, m] = cyy[j, k, m] + ryy[k, m]
                    Q4[p, k, nb + m] = vyz
                    Q4[p, nb + k, m] = vyz
                    Q4[p, nb + k, nb + m] = czz[j, k, m] + rzz[k, m]

    @numba.njit(cache=True)
    def apply(dY, W, x, out):  # pragma: no cover - jit
        # add Σ_g [W_yy a + W_yz c; W_yz a + W_zz c] dY_g, a = dY_g·x_y, c = dY_g·x_z
        G, nb = dY.shape
        for g in range(G):
            a = 0.0
            c = 0.0
            for k in range(nb):
                a += dY[g, k] * x[k]
                c += dY[g, k] * x[nb + k]
            fy = W[g, 0] * a + W[g, 1] * c
            fz = W[g, 1] * a + W[g, 2] * c
            for k in range(nb):
                out[k] += fy * dY[g, k]
                out[nb + k] += fz * dY[g, k]

    @numba.njit(cache=True)
    def mul(dYK, WK, nfull, dY, WP, x, out):  # pragma: no cover - jit
        K, nb = dYK.shape[0], dYK.shape[2]
        P = dY.shape[0]
        cum = np.zeros((K + 1, 2 * nb))
        for j in range(K):
            _apply(dYK[j], WK[j], x, cum[j + 1])
            cum[j + 1] += cum[j]
        for p in range(P):
            out[p] = cum[nfull[p]]
            _apply(dY[p], WP[p], x, out[p])

    _weigh, _blocks, _apply = weigh, blocks, apply
    return terms, form, mul


@compiled
def bending_kernel(numba):
    """Compiled :meth:`FloatingFrameLink._bending_correction` (energy, gradient and, on
    request, Hessian in one pass over the quadrature points), or None without numba;
    the NumPy form in that method is its reference (≈ 54 µs per call there)."""
    @numba.njit(cache=True)
    def bending(e, wb, Bz, ei1, ei2, hessian, grad, hess):  # pragma: no cover - jit
        P, _, ne = Bz.shape
        z = np.empty(4)
        d1 = np.empty(4)
        d2 = np.empty(4)
        dm = np.empty(4)
        gz = np.empty(4)
        hz = np.empty((4, 4))
        t = np.empty((4, ne))
        for i in range(ne):
            grad[i] = 0.0
            if hessian:
                for j in range(ne):
                    hess[i, j] = 0.0
        U = 0.0
        for p in range(P):
            for r in range(4):
                acc = 0.0
                for i in range(ne):
                    acc += Bz[p, r, i] * e[i]
                z[r] = acc
            a, A, c, C = z[0], z[1], z[2], z[3]
            m = a * A + c * C
            k1 = A + 0.5 * a * m
            k2 = C + 0.5 * c * m
            w = wb[p]
            U += 0.5 * w * (ei1 * (k1 * k1 - A * A) + ei2 * (k2 * k2 - C * C))
            dm[0], dm[1], dm[2], dm[3] = A, a, C, c
            for r in range(4):
                d1[r] = 0.5 * a * dm[r]
                d2[r] = 0.5 * c * dm[r]
            d1[1] += 1.0
            d1[0] += 0.5 * m
            d2[3] += 1.0
            d2[2] += 0.5 * m
            for r in range(4):
                gz[r] = ei1 * k1 * d1[r] + ei2 * k2 * d2[r]
            gz[1] -= ei1 * A
            gz[3] -= ei2 * C
            for i in range(ne):
                acc = 0.0
                for r in range(4):
                    acc += Bz[p, r, i] * gz[r]
                grad[i] += w * acc
            if not hessian:
                continue
            for r in range(4):
                for q in range(4):
                    hz[r, q] = ei1 * d1[r] * d1[q] + ei2 * d2[r] * d2[q]
            # k1 h1 + k2 h2 with h1 = ½(e0⊗dm + dm⊗e0 + a M2), h2 likewise
            for q in range(4):
                hz[0, q] += 0.5 * ei1 * k1 * dm[q]
                hz[q, 0] += 0.5 * ei1 * k1 * dm[q]
                hz[2, q] += 0.5 * ei2 * k2 * dm[q]
                hz[q, 2] += 0.5 * ei2 * k2 * dm[q]
            cm = 0.5 * (ei1 * k1 * a + ei2 * k2 * c)      # the M2 terms
            hz[0, 1] += cm
            hz[1, 0] += cm
            hz[2, 3] += cm
            hz[3, 2] += cm
            hz[1, 1] -= ei1
            hz[3, 3] -= ei2
            for r in range(4):
                for j in range(ne):
                    acc = 0.0
                    for q in range(4):
                        acc += hz[r, q] * Bz[p, q, j]
                    t[r, j] = w * acc
            for i in range(ne):
                for j in range(ne):
                    acc = 0.0
                    for r in range(4):
                        acc += Bz[p, r, i] * t[r, j]
                    hess[i, j] += acc
        return U

    return bending


class FloatingFrameLink:
    """Section data, basis samples and the local kinematics of one link.

    Parameters
    ----------
    length : float
        ``L`` [m].
    basis : str
        A registered :mod:`fem.bases` name ('modes', 'fe', 'bezier', 'bspline').
    n : int
        Functions per transverse field.
    mass_per_length : float
        ``ρA`` [kg/m].
    EA, EI_y, EI_z, GJ : float
        Axial [N], bending about the frame's y and z axes [N·m²], torsional [N·m²]
        stiffness; ``EI_z`` governs the y deflection ``b`` (in the x–y plane).
    polar_inertia_per_length : float
        ``ρI_p`` [kg·m] of the twist.
    coupling : bool
        Keep the foreshortening term (eq 2).
    kinematics : str
        'paper' (eq 2, linear curvature: the paper's model, default; formerly 'seed'),
        'fourth_order' (the foreshortening and the curvature to the next order in the
        slopes, see the module docstring; needs ``coupling``), or one of these
        corrections alone: 'curvature_only', 'foreshortening_only'.
    """

    constant_mass: ClassVar[bool] = False

    def __init__(self, length: float, basis: str, n: int, mass_per_length: float,
                 EA: float, EI_y: float, EI_z: float, GJ: float = 0.0,
                 polar_inertia_per_length: float = 0.0, coupling: bool = True,
                 kinematics: str = "paper"):
        self.length = positive(length, "floating-frame link: length", "m")
        self.rho_A = positive(mass_per_length, "floating-frame link: mass per length", "kg/m")
        self.EA = positive(EA, "floating-frame link: EA", "N")
        self.EI_y = positive(EI_y, "floating-frame link: EI_y", "N·m²")
        self.EI_z = positive(EI_z, "floating-frame link: EI_z", "N·m²")
        self.GJ = finite(GJ, "floating-frame link: GJ [N·m²]")
        self.rho_Ip = finite(polar_inertia_per_length,
                             "floating-frame link: polar inertia per length [kg·m]")
        if self.GJ < 0 or self.rho_Ip < 0:
            raise ModelError("floating-frame link: GJ and the polar inertia must be >= 0")
        self.coupling = boolean(coupling, "floating-frame link: coupling")
        kinematics = kinematics_name(kinematics)
        self.kinematics = kinematics
        self.nonlinear_curvature = kinematics in ("fourth_order", "curvature_only")
        self.nonlinear_foreshortening = kinematics in ("fourth_order", "foreshortening_only")
        if self.nonlinear_foreshortening and not self.coupling:
            raise ModelError(f"floating-frame link: kinematics={kinematics!r} corrects the "
                             f"foreshortening coupling; it needs coupling=True")
        n = integer(n, "floating-frame link: n (functions per field)", minimum=1)
        self.basis = bases.get(basis)(self.length, n)
        B = self.basis
        # the samples (P, ne, ne) and their products: measured up to ~6 of them at once;
        # asked before the quadrature (itself O(P³) for one long rule)
        ne_est = 4 * n + 4
        affordable(6 * 8.0 * B.quadrature_size() * ne_est**2,
                   "floating-frame link: n (functions per field; a robot link's "
                   "functions)", n)
        x, w = B.quadrature()
        self.x, self.w = x, w
        X, dX = B.axial(x)
        Y, dY, d2Y = B.bending(x)
        H = bases.foreshortening(B, x)
        na, nb = X.shape[1], Y.shape[1]
        self.na, self.nb = na, nb
        self.slices = {"axial": slice(0, na), "y": slice(na, na + nb),
                       "z": slice(na + nb, na + 2 * nb),
                       "torsion": slice(na + 2 * nb, 2 * na + 2 * nb)}
        ne = self.n_coordinates = 2 * na + 2 * nb
        s = self.slices
        # the coordinates of both transverse fields, the only ones the coupling Q touches
        self.band = slice(na, na + 2 * nb)
        # shape samples for output: X, Y at the quadrature points
        self.X, self.Y = X, Y
        # stiffness (constant)
        K = np.zeros((ne, ne))
        Kaa = np.einsum("p,pi,pj->ij", w, dX, dX)
        Kbb = np.einsum("p,pi,pj->ij", w, d2Y, d2Y)
        K[s["axial"], s["axial"]] = self.EA * Kaa
        K[s["y"], s["y"]] = self.EI_z * Kbb
        K[s["z"], s["z"]] = self.EI_y * Kbb
        K[s["torsion"], s["torsion"]] = self.GJ * Kaa
        self.K = K
        # constant mass of the twist (rotary inertia of the section about the axis)
        Mt = np.zeros((ne, ne))
        Mt[s["torsion"], s["torsion"]] = self.rho_Ip * np.einsum("p,pi,pj->ij", w, X, X)
        self.M_twist = Mt
        # p = p0 + L1 e − ½ x̂ (eᵀ Q e):  Q (P, ne, ne) the coupling block, L1 (P, 3, ne)
        L1 = np.zeros((x.size, 3, ne))
        L1[:, 0, s["axial"]] = X
        L1[:, 1, s["y"]] = Y
        L1[:, 2, s["z"]] = Y
        self.L1 = L1
        Q = np.zeros((x.size, ne, ne))
        if self.coupling:
            Q[:, s["y"], s["y"]] = H
            Q[:, s["z"], s["z"]] = H
        self.Q = Q
        self.p0 = np.column_stack([x, np.zeros_like(x), np.zeros_like(x)])
        self._sample_cache: dict[bytes, LinkSamples] = {}     # see sample()
        self.use_kernel = True     # the compiled fourth-order terms when numba is there
        self._pieces = None        # the whole pieces' rule of the fourth-order terms
        self.quadrature_samples = self._with_rule(LinkSamples(x, L1, Q, self.p0,
                                                              y=s["y"]))
        if self.nonlinear_curvature:
            # own Gauss rule for the (higher-degree) nonlinear bending energy
            xb, wb = bases.gauss_rule(B.breakpoints, B.gauss_points + 4)
            _, dYb, d2Yb = B.bending(xb)
            # z = (v′, v″, w′, w″) = Bz e at every point
            Bz = np.zeros((xb.size, 4, ne))
            Bz[:, 0, s["y"]], Bz[:, 1, s["y"]] = dYb, d2Yb
            Bz[:, 2, s["z"]], Bz[:, 3, s["z"]] = dYb, d2Yb
            self._bend = (wb, Bz)

    def _with_rule(self, smp: LinkSamples) -> LinkSamples:
        if self.nonlinear_foreshortening:
            if self._pieces is None:
                xk, wk = _piece_rule(self.basis)
                _, dYk, _ = self.basis.bending(xk.ravel())
                self._pieces = (dYk.reshape(*xk.shape, -1), wk)
            smp.nfull, xi, wt = _running_rule(self.basis, smp.x)
            _, dY, _ = self.basis.bending(xi.ravel())
            smp.dY, smp.wt = dY.reshape(*xi.shape, -1), wt
            smp.rule = RunningRule(self._pieces, smp.nfull, smp.dY, smp.wt)
        return smp

    def sample(self, x) -> LinkSamples:
        """:class:`LinkSamples` at the points ``x`` (reuse them with :meth:`local`).

        The last few point sets asked for are kept: a tip recorded every step
        (``tip_deflection``) was sampled anew each time, basis values and foreshortening
        integrals included, ≈ 0.7 ms per call and 40 % of the spin-up case's run."""
        x = np.asarray(x, float).ravel()
        key = x.tobytes()
        cache = self._sample_cache
        smp = cache.get(key)
        if smp is None:
            L1, Q, p0 = self.samples(x)
            smp = self._with_rule(LinkSamples(x.copy(), L1, Q, p0, y=self.slices["y"]))
            if len(cache) >= 16:
                cache.pop(next(iter(cache)))
            cache[key] = smp
        return smp

    # ------------------------------------------------------------- kinematics
    def local(self, e: np.ndarray, x=None):
        """Centre line in the frame at the quadrature points, at the points ``x`` or at
        the points of a :class:`LinkSamples` ``x``.

        Returns ``p`` (P, 3), ``P_e = ∂p/∂e`` (P, 3, ne) and ``Q`` with
        ``∂²p/∂e∂e = −x̂ ⊗ Q`` (P, ne, ne); ``Q`` is constant with the paper's kinematics and
        depends on ``e`` with the fourth-order foreshortening."""
        smp = self._samples_of(x)
        p, Pe, cp = self._local(e, smp)
        if cp.Q4 is None:          # the paper's kinematics: the constant coupling
            return p, Pe, smp.Q
        Q = np.zeros_like(smp.Q)
        Q[:, self.band, self.band] = cp.dense()
        return p, Pe, Q

    def local_band(self, e: np.ndarray, x=None):
        """:meth:`local` with ``Q`` as a :class:`Coupling` on the bending coordinates
        :attr:`band` (zero elsewhere)."""
        return self._local(e, self._samples_of(x))

    def _samples_of(self, x) -> LinkSamples:
        if x is None:
            return self.quadrature_samples
        if isinstance(x, LinkSamples):
            return x
        return self.sample(x)

    def local_first(self, e: np.ndarray, x=None) -> tuple[np.ndarray, np.ndarray]:
        """``p`` (P, 3) and ``P_e`` (P, 3, ne) of :meth:`local` without the second
        derivatives (a point's position and Jacobian: the constraint rows ask for these
        at every Newton iteration, for the Hessian rarely)."""
        p, Pe, _ = self._local(e, self._samples_of(x), second=False)
        return p, Pe

    def _local(self, e: np.ndarray, smp: LinkSamples, second: bool = True):
        L1, p0 = smp.L1, smp.p0
        b = self.band
        eb = e[b]
        P = p0.shape[0]
        cp = Coupling(smp.H)
        Qe = cp.mul(eb)                                       # (P, 2 nb)
        # as 2-D products: one BLAS call each, not P small ones
        p = p0 + (L1.reshape(3 * P, -1) @ e).reshape(P, 3)
        p[:, 0] -= 0.5 * Qe @ eb
        Pe = L1.copy()
        Pe[:, 0, b] -= Qe
        if smp.dY is not None:
            # u_x −= ⅛ ∫₀ˣ s² dξ,  s = v′² + w′²  (at the running-rule points)
            sy, sz = self.slices["y"], self.slices["z"]
            nb = self.nb
            kernel = fourth_order_kernel() if self.use_kernel else None
            if kernel is None:
                u, gy, gz, Q4 = smp.rule.terms(e[sy], e[sz], second)
                cp = Coupling(smp.H, Q4) if second else None
            else:
                dYK, wtK = self._pieces
                u, gy, gz = np.empty(P), np.empty((P, nb)), np.empty((P, nb))
                WK, WP = np.empty((*wtK.shape, 3)), np.empty((*smp.wt.shape, 3))
                kernel[0](np.ascontiguousarray(e[sy]), np.ascontiguousarray(e[sz]), dYK,
                          wtK, smp.nfull, smp.dY, smp.wt, u, gy, gz, WK, WP)
                cp = Coupling(smp.H, rule=(dYK, WK, smp.nfull, smp.dY, WP))
            p[:, 0] -= u
            Pe[:, 0, sy] -= gy
            Pe[:, 0, sz] -= gz
        return p, Pe, cp

    def samples(self, x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``L1, Q, p0`` (see :meth:`local`) at arbitrary points ``x`` along the link — the
        paper's (quadratic) part; :meth:`sample` adds the fourth-order data."""
        x = np.asarray(x, float).ravel()
        if np.any(x < 0) or np.any(x > self.length * (1 + 1e-12)):
            raise ModelError(f"floating-frame link: points must lie in [0, {self.length:g}] m;"
                             f" got {x.tolist()}")
        X, _ = self.basis.axial(x)
        Y, _, _ = self.basis.bending(x)
        s = self.slices
        L1 = np.zeros((x.size, 3, self.n_coordinates))
        L1[:, 0, s["axial"]] = X
        L1[:, 1, s["y"]] = Y
        L1[:, 2, s["z"]] = Y
        Q = np.zeros((x.size, self.n_coordinates, self.n_coordinates))
        if self.coupling:
            H = bases.foreshortening(self.basis, x)
            Q[:, s["y"], s["y"]] = H
            Q[:, s["z"], s["z"]] = H
        p0 = np.column_stack([x, np.zeros_like(x), np.zeros_like(x)])
        return L1, Q, p0

    def twist(self, e: np.ndarray, x) -> np.ndarray:
        """Twist angle ``φ(x)`` [rad]."""
        X, _ = self.basis.axial(np.asarray(x, float).ravel())
        return X @ e[self.slices["torsion"]]

    def _bending_correction(self, e: np.ndarray, order: int):
        """Nonlinear part of the bending energy ``½∫EI_z(κ_y² − v″²) + EI_y(κ_z² − w″²)``
        and (order ≥ 1) its gradient, (order 2) its Hessian with respect to ``e``."""
        wb, Bz = self._bend
        kernel = bending_kernel() if (self.use_kernel and order >= 1) else None
        if kernel is not None:
            ne = e.size
            grad, hess = np.empty(ne), np.empty((ne, ne) if order == 2 else (0, 0))
            U = kernel(np.ascontiguousarray(e), wb, Bz, float(self.EI_z), float(self.EI_y),
                       order == 2, grad, hess)
            return U, grad, (hess if order == 2 else None)
        z = Bz @ e                                             # (P, 4): v′, v″, w′, w″
        a, A, c, C = z.T
        m = a * A + c * C
        k1, k2 = A + 0.5 * a * m, C + 0.5 * c * m
        ei1, ei2 = self.EI_z, self.EI_y
        U = 0.5 * float(wb @ (ei1 * (k1 * k1 - A * A) + ei2 * (k2 * k2 - C * C)))
        if order == 0:
            return U, None, None
        P = a.size
        dm = np.column_stack([A, a, C, c])                     # ∂m/∂z
        eye = np.eye(4)
        d1 = eye[1] + 0.5 * m[:, None] * eye[0] + 0.5 * a[:, None] * dm
        d2 = eye[3] + 0.5 * m[:, None] * eye[2] + 0.5 * c[:, None] * dm
        gz = (ei1 * (k1[:, None] * d1 - A[:, None] * eye[1])
              + ei2 * (k2[:, None] * d2 - C[:, None] * eye[3]))
        Bf = Bz.reshape(-1, Bz.shape[2])                       # (4P, ne)
        grad = Bf.T @ (wb[:, None] * gz).ravel()
        if order == 1:
            return U, grad, None
        M2 = np.zeros((4, 4))
        M2[0, 1] = M2[1, 0] = M2[2, 3] = M2[3, 2] = 1.0        # ∂²m/∂z²
        h1 = 0.5 * (np.einsum("k,pl->pkl", eye[0], dm) + np.einsum("pk,l->pkl", dm, eye[0])
                    + a[:, None, None] * M2)
        h2 = 0.5 * (np.einsum("k,pl->pkl", eye[2], dm) + np.einsum("pk,l->pkl", dm, eye[2])
                    + c[:, None, None] * M2)
        E11 = np.zeros((P, 4, 4))
        E11[:, 1, 1] = 1.0
        E33 = np.zeros((P, 4, 4))
        E33[:, 3, 3] = 1.0
        hz = (ei1 * (np.einsum("pk,pl->pkl", d1, d1) + k1[:, None, None] * h1 - E11)
              + ei2 * (np.einsum("pk,pl->pkl", d2, d2) + k2[:, None, None] * h2 - E33))
        hess = Bf.T @ ((wb[:, None, None] * hz) @ Bz).reshape(Bf.shape)
        return U, grad, hess

    def strain_energy(self, e: np.ndarray) -> float:
        U = 0.5 * float(e @ self.K @ e)
        if self.nonlinear_curvature:
            U += self._bending_correction(e, 0)[0]
        return U

    def elastic_forces(self, e: np.ndarray, tangent: bool = False):
        """``∂U/∂e`` and, with ``tangent``, ``∂²U/∂e²`` (``K e`` and ``K`` with the paper's
        linear curvature)."""
        f = self.K @ e
        Kt = self.K.copy() if tangent else None
        if self.nonlinear_curvature:
            _, g, h = self._bending_correction(e, 2 if tangent else 1)
            f = f + g
            if tangent:
                Kt += h
        return f, Kt
