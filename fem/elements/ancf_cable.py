"""ANCF gradient-deficient 3D cable (two nodes, ``r`` and ``r_x`` at each: 12 coordinates).

Position along the element, ``x = s L`` with ``s ∈ [0, 1]``::

    r(x) = N₁ r_A + N₂ r_x,A + N₃ r_B + N₄ r_x,B
    N₁ = 1 − 3s² + 2s³,  N₂ = L (s − 2s² + s³),  N₃ = 3s² − 2s³,  N₄ = L (s³ − s²)

Strain energy (straight, unstretched reference; ``x`` the reference arc length)::

    U = ½ ∫ EA ε² + EI κ² dx,   ε = ½ (r′·r′ − 1),   κ² = |r′ × r″|² / |r′|⁶

``ε`` is the Green axial strain and ``κ`` the exact curvature of the centre line, so rigid
motions give no force for any rotation.  The tangent is analytic: with
``A = r′·r′, B = r″·r″, C = r′·r″`` the curvature term is ``g(A, B, C) = B/A² − C²/A³``
and its Hessian follows from the chain rule through ``(A, B, C)``.

The cable has no torsion and isotropic bending (one second moment ``inertia``).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import ModelError
from . import ElementFamily, kernels, register
from .quadrature import gauss_legendre
from .shape import hermite


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a × b`` over the last axis (of length 3): the products and differences of
    :func:`numpy.cross` in its order (the same numbers, bit for bit) without its axis
    handling, which was 60 % of its time on the cable's (elements, points, 3) arrays (the
    damping forces take four products an evaluation)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    np.multiply(a1, b2, out=out[..., 0])
    out[..., 0] -= a2 * b1
    np.multiply(a2, b0, out=out[..., 1])
    out[..., 1] -= a0 * b2
    np.multiply(a0, b1, out=out[..., 2])
    out[..., 2] -= a1 * b0
    return out

# the permutation symbol ε_ijk
_LEVI_CIVITA = np.zeros((3, 3, 3))
for _i, _j, _k in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
    _LEVI_CIVITA[_i, _j, _k], _LEVI_CIVITA[_i, _k, _j] = 1.0, -1.0


@register("ancf_cable")
class AncfCable(ElementFamily):
    """Gradient-deficient ANCF cable.

    Section data: ``area`` [m²], ``inertia`` [m⁴] (second moment of area for bending);
    ``n_gauss`` quadrature points along the element (default 5).
    """

    cell = "line"
    node_layout = (("r", "r_x"), ("r", "r_x"))
    section_keys = ("area", "inertia", "n_gauss")
    section_rules = {"area": "positive", "inertia": "positive", "n_gauss": "count"}

    def __init__(self, X, material=None, **section):
        super().__init__(X, material, **section)
        if material is None:
            raise ModelError("element 'ancf_cable' needs a material (E, nu, rho)")
        n = self.n_elements
        for key in ("area", "inertia"):
            if key not in section:
                raise ModelError(f"element 'ancf_cable' needs section data {key}=...")
        self.A = np.broadcast_to(np.asarray(section["area"], float), (n,)).copy()
        self.I = np.broadcast_to(np.asarray(section["inertia"], float), (n,)).copy()
        for key, arr in (("area", self.A), ("inertia", self.I)):
            bad = np.flatnonzero(~(arr > 0))
            if bad.size:
                raise ModelError(f"element 'ancf_cable': {key} must be > 0 (elements "
                                 f"{bad[:10].tolist()})")
        Xv = self.X.reshape(n, 4, 3)
        chord = Xv[:, 2] - Xv[:, 0]
        self.L = np.linalg.norm(chord, axis=1)
        scale = max(1.0, float(np.abs(Xv[:, [0, 2]]).max()))
        bad = np.flatnonzero(self.L <= 1e-12 * scale)
        if bad.size:
            raise ModelError(f"element 'ancf_cable': zero-length elements {bad[:10].tolist()} "
                             "(both nodes at the same point)")
        t = chord / self.L[:, None]
        bad = np.flatnonzero((np.linalg.norm(Xv[:, 1] - t, axis=1) > 1e-8)
                             | (np.linalg.norm(Xv[:, 3] - t, axis=1) > 1e-8))
        if bad.size:
            raise ModelError(
                f"element 'ancf_cable': reference gradients r_x of elements {bad[:10].tolist()} "
                "must be the unit chord direction (straight, unstretched reference)")
        rule = gauss_legendre(int(section.get("n_gauss", 5)))
        self._s = 0.5 * (rule.points[:, 0] + 1.0)
        self._w = 0.5 * rule.weights  # on s ∈ [0, 1]
        self._N = hermite(self._s, self.L, 0)   # (n, q, 4)
        self._N1 = hermite(self._s, self.L, 1)
        self._N2 = hermite(self._s, self.L, 2)
        self._wL = self._w[None, :] * self.L[:, None]  # dx weights (n, q)
        self.EA = material.E * self.A
        self.EI = material.E * self.I
        # batched operators: r′, r″ at all points in one matmul, and B = [N′; N″] ⊗ I₃
        self._nq = len(self._s)
        self._Nd = np.concatenate([self._N1, self._N2], axis=1)          # (n, 2q, 4)
        self._NdT = np.ascontiguousarray(np.swapaxes(self._Nd, 1, 2))
        Bq = np.einsum("eqak,ij->eqaikj", np.stack([self._N1, self._N2], axis=2), np.eye(3))
        self._Bq = Bq.reshape(n, self._nq, 6, 12)
        self._BqT = np.ascontiguousarray(
            np.swapaxes(self._Bq.reshape(n, self._nq * 6, 12), 1, 2))
        self._wa = self._wL * self.EA[:, None]            # axial weight
        self._wb = 0.5 * self._wL * self.EI[:, None]      # bending weight (½EI g)
        self._N1c = np.ascontiguousarray(self._N1)
        self._N2c = np.ascontiguousarray(self._N2)
        self.use_kernel = True     # the compiled kernel when numba is there (kernels.py)
        self._scratch = np.empty((n, self._nq))     # kernel work space, reused
        self._no_tangent = np.empty((0, 12, 12))
        # work arrays of add_forces (element q and f), reused
        self._gather = (np.empty((n, 4, 3)), np.empty((n, 12)))

    # ------------------------------------------------------------- kinematics
    def shape(self, xi):
        s = 0.5 * (np.asarray(xi, dtype=float)[:, 0] + 1.0)
        return hermite(s, self.L, 0)

    def draw_points(self):
        return np.linspace(-1.0, 1.0, 9)[:, None]

    def _ab(self, q):
        ab = self._Nd @ q.reshape(self.n_elements, 4, 3)
        return ab[:, :self._nq], ab[:, self._nq:]

    # ---------------------------------------------------------------- inertia
    def mass_scalar(self):
        rhoA = self.material.rho * self.A
        return np.einsum("eq,eqi,eqj->eij", self._wL * rhoA[:, None], self._N, self._N)

    def shape_integral(self):
        return np.einsum("eq,eqi->ei", self._wL, self._N)

    # ----------------------------------------------------------------- forces
    def forces(self, q, v=None, tangent=False):
        if kernels.available() and self.use_kernel:
            n = self.n_elements
            Q = np.ascontiguousarray(q, dtype=float).reshape(n, 4, 3)
            f = np.empty((n, 12))
            K = np.empty((n, 12, 12)) if tangent else self._no_tangent
            kernels.cable_forces(Q, self._N1c, self._N2c, self._wa, self._wb,
                                 self._scratch, f, K, tangent)
            return f, (K if tangent else None)
        return self.forces_numpy(q, v, tangent)

    def add_forces(self, q, v, dofs, out, tangent=False):
        if not (kernels.available() and self.use_kernel):
            return super().add_forces(q, v, dofs, out, tangent)
        n = self.n_elements
        Q, f = self._gather
        K = np.empty((n, 12, 12)) if tangent else self._no_tangent
        kernels.cable_forces_global(q, dofs, self._N1c, self._N2c, self._wa, self._wb,
                                    self._scratch, Q, f, out, K, tangent)
        return K if tangent else None

    def compiled_forces(self):
        if not (kernels.available() and self.use_kernel):
            return None
        Q, f = self._gather
        return (kernels.KIND_CABLE, *kernels.work_arrays(
            (self._N1c, self._N2c, Q), (self._wa, self._wb, self._scratch, f)))

    def forces_numpy(self, q, v=None, tangent=False):
        """The NumPy form of :meth:`forces` (the reference of the compiled kernel)."""
        n, nq = self.n_elements, self._nq
        ab = self._Nd @ q.reshape(n, 4, 3)            # (n, 2q, 3): r′ then r″
        a, b = ab[:, :nq], ab[:, nq:]
        A = np.einsum("eqd,eqd->eq", a, a)
        B = np.einsum("eqd,eqd->eq", b, b)
        C = np.einsum("eqd,eqd->eq", a, b)
        iA = 1.0 / A
        iA2 = iA * iA
        iA3 = iA2 * iA
        eps = 0.5 * (A - 1.0)
        wa, wb = self._wa, self._wb
        gA = (3.0 * C * C * iA - 2.0 * B) * iA3
        gC = -2.0 * C * iA3
        ca = wa * eps + 2.0 * wb * gA                  # ∂U/∂a = ca a + cc b
        cc = wb * gC                                   # ∂U/∂b = cb b + cc a
        cb = 2.0 * wb * iA2
        dab = np.concatenate([ca[..., None] * a + cc[..., None] * b,
                              cb[..., None] * b + cc[..., None] * a], axis=1)
        f = (self._NdT @ dab).reshape(n, 12)
        if not tangent:
            return f, None
        # Hessian of the energy density w.r.t. (a, b): the axial part plus ½EI times
        # Σ g_ij J_i J_jᵀ + Σ g_i H_i with J_A = (2a, 0), J_B = (0, 2b), J_C = (b, a)
        gAA = (6.0 * B - 12.0 * C * C * iA) * iA2 * iA2
        gAC = 6.0 * C * iA2 * iA2
        gCC = -2.0 * iA3
        x = lambda s: s[..., None, None]
        aa = a[..., :, None] * a[..., None, :]
        ab_ = a[..., :, None] * b[..., None, :]
        ba = np.swapaxes(ab_, -1, -2)
        bb = b[..., :, None] * b[..., None, :]
        I3 = np.eye(3)
        H = np.empty((n, nq, 6, 6))
        H[..., :3, :3] = (x(wb * 4 * gAA + wa) * aa + x(wb * 2 * gAC) * (ab_ + ba)
                          + x(wb * gCC) * bb + x(2 * wb * gA + wa * eps) * I3)
        H[..., :3, 3:] = (x(wb * 4 * gCC) * ab_ + x(wb * 2 * gAC) * aa + x(wb * gCC) * ba
                          + x(wb * gC) * I3)          # 4 g_AB = 4·(−2/A³) = 4 g_CC
        H[..., 3:, :3] = np.swapaxes(H[..., :3, 3:], -1, -2)
        H[..., 3:, 3:] = x(wb * gCC) * aa + x(cb) * I3
        HB = (H @ self._Bq).reshape(n, nq * 6, 12)
        K = self._BqT @ HB
        return f, K

    strain_rate_damping = True

    def strain_rate_forces(self, q, v, eta, tangent=False):
        """Kelvin–Voigt damping of the cable (:meth:`ElementFamily.strain_rate_forces`).

        The strain measures are the axial strain ``ε = ½ (r′·r′ − 1)`` and the curvature
        vector ``k = r′ × r″ / |r′|³`` (``|k|² = κ²``, so ``U = ½ ∫ EA ε² + EI |k|² dx``
        as in :meth:`forces`).  The bending rate is ``k̇`` seen from a frame that turns
        with the tangent ``t = r′/|r′|``: ``P k̇`` with ``P = I − t tᵀ`` (``t·k = 0``, so
        ``t·k̇ = −ṫ·k`` is the part of ``k̇`` that turning the tangent makes).  With the
        dissipation ``D = ½ η ∫ EA ε̇² + EI |P k̇|² dx`` the force is ``∂D/∂q̇``::

            f_d = η ∫ EA ε̇ ∂ε/∂q + EI (∂k/∂q)ᵀ P k̇ dx

        In a rigid motion (translation, rotation ω) ``ε̇ = 0`` and
        ``P k̇ = P (ω × k) = (ω·t) t × k``: zero for a straight cable and for any rotation
        normal to the tangent (planar motion of a planar cable included); a spin about
        the cable's own tangent turns the plane of a curved cable, which the
        gradient-deficient cable cannot tell from bending (it has no section frame), and
        dissipates ``η EI (ω·t)² κ²`` per unit length.  About a straight reference
        ``P k̇ = k̇``: ``f_d = η K q̇``.
        """
        n, nq = self.n_elements, self._nq
        Q = np.asarray(q, float).reshape(n, 4, 3)
        V = np.asarray(v, float).reshape(n, 4, 3)
        ab, vb = self._Nd @ Q, self._Nd @ V
        a, b = ab[:, :nq], ab[:, nq:]
        ad, bd = vb[:, :nq], vb[:, nq:]
        A = np.einsum("eqd,eqd->eq", a, a)
        phi = A ** -1.5
        p1 = -1.5 * A ** -2.5                      # φ′(A)
        c = _cross(a, b)
        epsd = np.einsum("eqd,eqd->eq", a, ad)     # ε̇
        # k̇ = φ (ȧ × b + a × ḃ) + 2 φ′ (a·ȧ) c, and its part normal to the tangent
        kd = (phi[..., None] * (_cross(ad, b) + _cross(a, bd))
              + (2.0 * p1 * epsd)[..., None] * c)
        pa = np.einsum("eqd,eqd->eq", a, kd)      # a·k̇
        kp = kd - (pa / A)[..., None] * a          # P k̇
        wa = eta[:, None] * self._wa               # η EA dx
        wb = eta[:, None] * self._wL * self.EI[:, None]    # η EI dx
        ck = np.einsum("eqd,eqd->eq", c, kp)
        # (∂k/∂a)ᵀ x = φ b × x + 2 φ′ (c·x) a;  (∂k/∂b)ᵀ x = φ x × a
        ga = (wa * epsd)[..., None] * a + wb[..., None] * (
            phi[..., None] * _cross(b, kp) + (2.0 * p1 * ck)[..., None] * a)
        gb = wb[..., None] * phi[..., None] * _cross(kp, a)
        f = (self._NdT @ np.concatenate([ga, gb], axis=1)).reshape(n, 12)
        if not tangent:
            return f, None, None
        p2 = 3.75 * A ** -3.5                      # φ″(A)
        eps3 = _LEVI_CIVITA
        I3 = np.eye(3)
        x = lambda s: s[..., None, None]
        # J = ∂k/∂(a, b) (3 × 6) and the Hessians ∂²kᵢ/∂u∂u (3 × 6 × 6), u = (a, b)
        Eb = np.einsum("inl,eql->eqin", eps3, b)           # ε_inl b_l
        Ea = np.einsum("ijm,eqj->eqim", eps3, a)           # ε_ijm a_j
        J = np.empty((n, nq, 3, 6))
        J[..., :3] = x(phi) * Eb + x(2.0 * p1) * (c[..., :, None] * a[..., None, :])
        J[..., 3:] = x(phi) * Ea
        H = np.zeros((n, nq, 3, 6, 6))
        Ha = 2.0 * p1[..., None, None, None] * (
            Eb[..., :, :, None] * a[..., None, None, :]
            + Eb[..., :, None, :] * a[..., None, :, None])
        Ha += c[..., :, None, None] * (
            4.0 * p2[..., None, None, None] * (a[..., None, :, None] * a[..., None, None, :])
            + 2.0 * p1[..., None, None, None] * I3)
        H[..., :3, :3] = Ha
        Hab = phi[..., None, None, None] * eps3 + 2.0 * p1[..., None, None, None] * (
            a[..., None, :, None] * Ea[..., :, None, :])
        H[..., :3, 3:] = Hab
        H[..., 3:, :3] = np.swapaxes(Hab, -1, -2)
        ud = np.concatenate([ad, bd], axis=-1)             # (n, q, 6)
        Jd = np.einsum("eqimn,eqn->eqim", H, ud)           # ∂k̇/∂u
        P = I3 - a[..., :, None] * a[..., None, :] / x(A)
        PJ = P @ J
        # ∂(P k̇)/∂u = P ∂k̇/∂u + (∂P/∂a) k̇,
        # (∂P/∂a_m) k̇ = −(e_m (a·k̇) + a k̇_m) / A + 2 (a·k̇) a a_m / A²
        dkp = P @ Jd
        dkp[..., :3] += (-(x(pa) * I3 + a[..., :, None] * kd[..., None, :]) / x(A)
                         + x(2.0 * pa / A**2) * (a[..., :, None] * a[..., None, :]))
        au = np.concatenate([a, np.zeros_like(a)], axis=-1)            # ∂ε/∂u
        adu = np.concatenate([ad, np.zeros_like(ad)], axis=-1)         # ∂ε̇/∂u
        Tv = x(wa) * (au[..., :, None] * au[..., None, :]) + x(wb) * np.einsum(
            "eqim,eqin->eqmn", PJ, PJ)
        Tq = x(wa) * (au[..., :, None] * adu[..., None, :]) + x(wb) * (
            np.einsum("eqim,eqin->eqmn", J, dkp) + np.einsum("eqi,eqimn->eqmn", kp, H))
        Tq[..., :3, :3] += x(wa * epsd) * I3
        # u = (r′, r″) at each point: the 6 rows of self._Bq
        Bq = self._Bq                                        # (n, q, 6, 12)
        dv = np.einsum("eqmk,eqmn,eqnl->ekl", Bq, Tv, Bq)
        dq = np.einsum("eqmk,eqmn,eqnl->ekl", Bq, Tq, Bq)
        return f, dq, dv

    def energy(self, q):
        a, b = self._ab(q)
        A = np.einsum("eqd,eqd->eq", a, a)
        cr = _cross(a, b)
        kappa2 = np.einsum("eqd,eqd->eq", cr, cr) / A**3
        eps = 0.5 * (A - 1.0)
        dens = 0.5 * self.EA[:, None] * eps**2 + 0.5 * self.EI[:, None] * kappa2
        return np.sum(self._wL * dens, axis=1)

    def strains(self, q, xi):
        s = 0.5 * (np.atleast_2d(xi)[:, 0] + 1.0)
        Q = q.reshape(self.n_elements, 4, 3)
        a = np.einsum("eqk,ekd->eqd", hermite(s, self.L, 1), Q)
        b = np.einsum("eqk,ekd->eqd", hermite(s, self.L, 2), Q)
        A = np.einsum("eqd,eqd->eq", a, a)
        kappa = np.linalg.norm(_cross(a, b), axis=-1) / A**1.5
        eps = 0.5 * (A - 1.0)
        return {"axial_strain": eps, "curvature": kappa,
                "axial_force": self.EA[:, None] * eps,
                "bending_moment": self.EI[:, None] * kappa}
