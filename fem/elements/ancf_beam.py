"""Fully parameterized ANCF 3D beam: two nodes with ``r, r_x, r_y, r_z`` (24 coordinates).

Liu et al. 2018 (eq 9) models the flexible links of the 3-RRRU robot with this element.  With the
reference arc length ``x = s L`` (``s ∈ [0, 1]``) and section coordinates ``(y, z)`` [m]::

    r(x, y, z) = h₁ r_A + h₂ r_x,A + h₃ r_B + h₄ r_x,B          (cubic Hermite centreline)
               + y (l₁ r_y,A + l₂ r_y,B) + z (l₁ r_z,A + l₂ r_z,B)   (linear directors)

``h`` the cubic Hermite functions and ``l = (1 − s, s)`` (:mod:`fem.elements.shape`).  The
position is linear in the coordinates, so the mass matrix ``∫ρ SᵀS dV`` is constant: the
centreline block ``ρA ∫hᵢhⱼ dx`` and the director blocks ``ρ ∫y²dA ∫lᵢlⱼ dx`` and
``ρ ∫z²dA ∫lᵢlⱼ dx`` (symmetric sections: no coupling).

Elastic energy — the locking remedy (measured in ``docs/ancf_beam.md``)
--------------------------------------------------------------------------
The default ``formulation="structural"`` writes the energy per unit length in beam strain
measures, each a rotation-invariant dot product of the vectors ``r′, r_y, r_z, r_y′,
r_z′`` at the centreline::

    ε   = ½(r′·r′ − 1)                    axial (Green)            EA
    γ_y = r′·r_y,   γ_z = r′·r_z          shear                    k G A
    κ_x = ½(r_y′·r_z − r_z′·r_y)          twist                    G J
    κ_y = −r_z′·r′, κ_z = −r_y′·r′        bending (x–z, x–y)       E I_y, E I_z
    ε_yy, ε_zz = ½(r_y·r_y − 1), ½(r_z·r_z − 1),  γ_yz = r_y·r_z
                                          section deformation      A · plane stress (E, ν)

``U = ½ ∫ sᵀ C s dx``.  The axial–bending terms and the cross-section terms are *split*
(no Poisson coupling between ε and ε_yy, ε_zz): the linear section field cannot bend
its fibres' lateral contraction, which is what stiffens the continuum element (Poisson
locking, a factor up to ``(1−ν)/((1+ν)(1−2ν))`` on bending).  Shear does not lock: the
cubic centreline slope can follow the linear directors exactly (``γ ≡ 0`` leaves the
constant-curvature mode), and the shear factor ``k`` and the torsion constant ``J`` are
those of beam theory (Cowper's ``k``, Saint-Venant ``J``) rather than the continuum's
``k = 1`` and ``J = I_p``.  The beam strains are sampled at 3 Gauss points, the section
strains at the two nodes only: between the nodes the linearly interpolated directors
shorten by ``cos(Δθ/2)`` when the element bends by ``Δθ``, and section stiffness
(∝ EA) sampled there resists large bending (curvature–thickness locking: −11 % on the
elastica PL²/EI = 5 with 8 elements, +0.5 % with nodal sampling).
``formulation="continuum"`` (St. Venant–Kirchhoff over the section, Gauss points in
``x × section``) and ``"continuum_split"`` (the same with the axial strain uncoupled
from the section strains, ``E`` instead of ``λ + 2μ``) are kept for the measurement;
they are not for production.

Every strain is ``sₖ = ½ aᵀ Sₖ a − cₖ`` with ``a = B q`` the stacked vectors at a
quadrature point, so forces and the analytic tangent are one formula for all three::

    f = Σ_p w Bᵀ (Σₖ σₖ Sₖ a),   K = Σ_p w Bᵀ [Σₖ σₖ Sₖ ⊗ I₃ + Σₖₗ Cₖₗ (Sₖa)(Sₗa)ᵀ] B

with ``σ = C s``; ``cₖ`` is the strain of the reference, so a straight stress-free
reference and every rigid motion of it (any rotation) give exactly zero energy.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import ModelError
from . import ElementFamily, register
from .quadrature import gauss_legendre
from .sections import rectangle_section
from .shape import hermite, linear

__all__ = ["AncfBeam", "beam_section"]

# local vector order of the 8 nodal 3-vectors of one element
R_A, RX_A, RY_A, RZ_A, R_B, RX_B, RY_B, RZ_B = range(8)
_CENTRE = [R_A, RX_A, R_B, RX_B]       # Hermite coefficients
_DIR_Y = [RY_A, RY_B]                  # linear coefficients of r_y
_DIR_Z = [RZ_A, RZ_B]

FORMULATIONS = ("structural", "continuum", "continuum_split")


def _torsion_constant_rectangle(a: float, b: float, terms: int = 50) -> float:
    """Saint-Venant torsion constant of a solid ``a × b`` rectangle (series solution)."""
    a, b = max(a, b), min(a, b)
    n = 2 * np.arange(terms) + 1.0
    s = np.sum(np.tanh(n * np.pi * a / (2 * b)) / n**5)
    return a * b**3 / 3 * (1 - 192 / np.pi**5 * (b / a) * s)


def beam_section(shape: str, nu: float, radius: float | None = None,
                 width: float | None = None, height: float | None = None,
                 inner_radius: float | None = None) -> dict:
    """Section constants of a solid circle, a tube (circle with ``inner_radius``) or a
    solid rectangle.

    Returns ``area``, ``iy = ∫z² dA``, ``iz = ∫y² dA``, ``torsion_constant`` (Saint-Venant
    ``J``) and Cowper's shear factor ``k`` (circle ``6(1+ν)/(7+6ν)``; tube
    ``6(1+ν)(1+m²)² / ((7+6ν)(1+m²)² + (20+12ν)m²)``, ``m`` the ratio of the radii;
    rectangle ``10(1+ν)/(12+11ν)``; Cowper, J. Appl. Mech. 33 (1966) 335–340).
    ``width`` is along the section's ``y`` (``r_y``), ``height`` along ``z``.
    """
    if shape == "circle":
        if radius is None:
            raise ModelError("circular beam section needs radius=...")
        ri = 0.0 if inner_radius is None else float(inner_radius)
        if not 0.0 <= ri < radius:
            raise ModelError(f"beam section: inner_radius {ri:g} m must be below the radius "
                             f"{radius:g} m")
        A = np.pi * (radius**2 - ri**2)
        i = np.pi * (radius**4 - ri**4) / 4
        sec = {"area": A, "iy": i, "iz": i}
        J = 2 * i
        m2 = (ri / radius) ** 2
        k = 6 * (1 + nu) * (1 + m2)**2 / ((7 + 6 * nu) * (1 + m2)**2 + (20 + 12 * nu) * m2)
    elif shape == "rectangle":
        if width is None or height is None:
            raise ModelError("rectangular beam section needs width=... and height=...")
        sec = rectangle_section(width, height)     # iy = w h³/12 = ∫z² dA
        J = _torsion_constant_rectangle(width, height)
        k = 10 * (1 + nu) / (12 + 11 * nu)
    else:
        raise ModelError(f"beam section must be 'circle' or 'rectangle', got {shape!r}")
    return {"area": sec["area"], "iy": sec["iy"], "iz": sec["iz"], "torsion_constant": J,
            "shear_factor": k}


def _section_rule(shape: str, size: dict, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Points (m, 2) and weights (m,) integrating over the section (continuum variants)."""
    g = gauss_legendre(n)
    if shape == "rectangle":
        y = 0.5 * size["width"] * g.points[:, 0]
        z = 0.5 * size["height"] * g.points[:, 0]
        w = np.outer(0.5 * size["width"] * g.weights, 0.5 * size["height"] * g.weights)
        Y, Z = np.meshgrid(y, z, indexing="ij")
        return np.column_stack([Y.ravel(), Z.ravel()]), w.ravel()
    R, ri = size["radius"], size.get("inner_radius", 0.0)
    rho = ri + 0.5 * (R - ri) * (g.points[:, 0] + 1)
    wr = 0.5 * (R - ri) * g.weights * rho              # ∫ … ρ dρ
    m = 2 * n + 2                                      # exact in angle to degree 2n+1
    phi = 2 * np.pi * np.arange(m) / m
    P = np.array([[r * np.cos(p), r * np.sin(p)] for r in rho for p in phi])
    W = np.array([wi * 2 * np.pi / m for wi in wr for _ in phi])
    return P, W


def _strain_tables(formulation: str):
    """Quadratic forms ``Sₖ`` (n_strain, n_slot, n_slot) of the strains over the slots
    of ``a``; each strain is listed as terms ``(i, j, c)`` meaning ``c aᵢ·aⱼ``."""
    def form(n_slot, pairs):
        S = np.zeros((len(pairs), n_slot, n_slot))
        for k, terms in enumerate(pairs):
            for i, j, c in terms:
                S[k, i, j] += c
                S[k, j, i] += c
        return S
    if formulation == "structural":
        # slots: 0 r′, 1 r_y, 2 r_z, 3 r_y′, 4 r_z′
        return form(5, [
            [(0, 0, 0.5)],                      # ε
            [(0, 1, 1.0)],                      # γ_y
            [(0, 2, 1.0)],                      # γ_z
            [(3, 2, 0.5), (4, 1, -0.5)],        # κ_x = ½(r_y′·r_z − r_z′·r_y)
            [(4, 0, -1.0)],                     # κ_y = −r_z′·r′
            [(3, 0, -1.0)],                     # κ_z = −r_y′·r′
            [(1, 1, 0.5)],                      # ε_yy
            [(2, 2, 0.5)],                      # ε_zz
            [(1, 2, 1.0)],                      # γ_yz
        ])
    # continuum: slots 0 r_,x, 1 r_,y, 2 r_,z; Voigt E_xx, E_yy, E_zz, γ_yz, γ_xz, γ_xy
    return form(3, [[(0, 0, 0.5)], [(1, 1, 0.5)], [(2, 2, 0.5)], [(1, 2, 1.0)],
                    [(0, 2, 1.0)], [(0, 1, 1.0)]])


@register("ancf_beam")
class AncfBeam(ElementFamily):
    """Shear-deformable fully parameterized ANCF beam (Liu et al. 2018, eq 9).

    Section data
    ------------
    section : 'circle' or 'rectangle'
        with ``radius`` [m], or ``width`` (along ``r_y``) and ``height`` (along ``r_z``) [m].
    shear_factor, torsion_constant : float, optional
        Override Cowper's ``k`` and Saint-Venant's ``J``.
    formulation : 'structural' (default), 'continuum' or 'continuum_split'
        See the module docstring; only 'structural' is locking-free.
    n_gauss : int
        Gauss points along the element (default 3: the linearized energy is integrated
        exactly; 2 would leave zero-energy modes).
    section_strains : 'nodal' (default) or 'gauss'
        Where the section-deformation strains are sampled (structural formulation).
    """

    cell = "line"
    node_layout = (("r", "r_x", "r_y", "r_z"), ("r", "r_x", "r_y", "r_z"))
    section_keys = ("section", "radius", "inner_radius", "width", "height", "shear_factor",
                    "torsion_constant",
                    "formulation", "n_gauss", "n_section", "section_strains")
    # radius, width, height: checked by the family itself (one number each)
    section_rules = {"shear_factor": "positive", "torsion_constant": "positive",
                     "n_gauss": "count", "n_section": "count"}

    def __init__(self, X, material=None, **section):
        super().__init__(X, material, **section)
        if material is None:
            raise ModelError("element 'ancf_beam' needs a material (E, nu, rho)")
        n = self.n_elements
        shape = section.get("section")
        if shape not in ("circle", "rectangle"):
            raise ModelError("element 'ancf_beam' needs section='circle' (radius=...) or "
                             f"section='rectangle' (width=..., height=...), got {shape!r}")
        size = {k: section[k] for k in ("radius", "inner_radius", "width", "height")
                if k in section}
        if size.get("inner_radius") == 0:
            size.pop("inner_radius")
        for k, v in size.items():
            if not (np.isscalar(v) and np.isfinite(v) and v > 0):
                raise ModelError(f"element 'ancf_beam': section {k} must be a positive "
                                 f"number, got {v!r}")
        props = beam_section(shape, material.nu, **size)
        props["shear_factor"] = float(section.get("shear_factor", props["shear_factor"]))
        props["torsion_constant"] = float(section.get("torsion_constant",
                                                      props["torsion_constant"]))
        for k in ("shear_factor", "torsion_constant"):
            if not props[k] > 0:
                raise ModelError(f"element 'ancf_beam': {k} must be > 0, got {props[k]}")
        self.props = props
        self.shape_name, self.size = shape, size
        self.formulation = section.get("formulation", "structural")
        if self.formulation not in FORMULATIONS:
            raise ModelError(f"element 'ancf_beam': formulation must be one of "
                             f"{FORMULATIONS}, got {self.formulation!r}")
        self._check_reference()
        rule = gauss_legendre(int(section.get("n_gauss", 3)))
        s = 0.5 * (rule.points[:, 0] + 1.0)
        w = 0.5 * rule.weights
        self._s, self._w = s, w
        self._build_tables(s, w, int(section.get("n_section", 3)))
        Q = self.X.reshape(n, 8, 3)
        self._c = self._strain(self._a(Q))                 # reference strains (≈ 0)

    # ---------------------------------------------------------------- set-up
    def _check_reference(self) -> None:
        n = self.n_elements
        Xv = self.X.reshape(n, 8, 3)
        chord = Xv[:, R_B] - Xv[:, R_A]
        self.L = np.linalg.norm(chord, axis=1)
        scale = max(1.0, float(np.abs(Xv[:, [R_A, R_B]]).max()))
        bad = np.flatnonzero(self.L <= 1e-12 * scale)
        if bad.size:
            raise ModelError(f"element 'ancf_beam': zero-length elements {bad[:10].tolist()} "
                             "(both nodes at the same point)")
        t = chord / np.maximum(self.L, 1e-300)[:, None]
        tol = 1e-8
        for node, (ix, iy, iz) in (("A", (RX_A, RY_A, RZ_A)), ("B", (RX_B, RY_B, RZ_B))):
            F = np.stack([Xv[:, ix], Xv[:, iy], Xv[:, iz]], axis=2)   # columns r_x, r_y, r_z
            orth = np.abs(np.einsum("eji,ejk->eik", F, F) - np.eye(3)).max(axis=(1, 2))
            bad = np.flatnonzero((np.linalg.norm(Xv[:, ix] - t, axis=1) > tol) | (orth > tol)
                                 | (np.linalg.det(F) < 0))
            if bad.size:
                raise ModelError(
                    f"element 'ancf_beam': at node {node} of elements {bad[:10].tolist()} the "
                    "reference gradients must be a right-handed orthonormal triad with r_x "
                    "the unit chord (straight, unstrained reference)")

    def _build_tables(self, s: np.ndarray, w: np.ndarray, n_section: int) -> None:
        n, mat, p = self.n_elements, self.material, self.props
        L = self.L
        H0, H1 = hermite(s, L, 0), hermite(s, L, 1)        # (n, q, 4)
        l0, l1 = linear(s, L, 0), linear(s, L, 1)          # (n, q, 2)
        nq = len(s)
        self._S = _strain_tables(self.formulation)
        if self.formulation == "structural":
            # beam strains at the Gauss points; section strains at the two nodes (the
            # trapezoidal rule): between the nodes the linearly interpolated directors
            # shorten by cos(Δθ/2) when the element bends, and sampled there the section
            # stiffness (∝ EA) would resist bending — measured in docs/ancf_beam.md
            nodal = self.section.get("section_strains", "nodal") == "nodal"
            sp = np.concatenate([s, [0.0, 1.0]]) if nodal else s
            wp = np.concatenate([w, [0.5, 0.5]]) if nodal else w
            H1p, l0p, l1p = hermite(sp, L, 1), linear(sp, L, 0), linear(sp, L, 1)
            B = np.zeros((n, len(sp), 5, 8))
            B[:, :, 0, _CENTRE] = H1p
            B[:, :, 1, _DIR_Y] = l0p
            B[:, :, 2, _DIR_Z] = l0p
            B[:, :, 3, _DIR_Y] = l1p
            B[:, :, 4, _DIR_Z] = l1p
            wts = wp[None, :] * L[:, None]                 # dx
            E, G, nu, A = mat.E, mat.G, mat.nu, p["area"]
            C = np.zeros((9, 9))
            C[0, 0] = E * A
            C[1, 1] = C[2, 2] = p["shear_factor"] * G * A
            C[3, 3] = G * p["torsion_constant"]
            C[4, 4] = E * p["iy"]
            C[5, 5] = E * p["iz"]
            Eps = E / (1 - nu**2) * A                      # section in plane stress
            C[6:8, 6:8] = Eps * np.array([[1.0, nu], [nu, 1.0]])
            C[8, 8] = G * A
            C = np.broadcast_to(C, (len(sp), 9, 9)).copy()
            if nodal:
                C[:nq, 6:, 6:] = 0.0
                C[nq:, :6, :6] = 0.0
        else:
            yz, wyz = _section_rule(self.shape_name, self.size, n_section)
            m = len(wyz)
            y, z = yz[:, 0], yz[:, 1]
            B = np.zeros((n, nq, m, 3, 8))
            B[:, :, :, 0, _CENTRE] = H1[:, :, None, :]
            B[:, :, :, 0, _DIR_Y] = y[None, None, :, None] * l1[:, :, None, :]
            B[:, :, :, 0, _DIR_Z] = z[None, None, :, None] * l1[:, :, None, :]
            B[:, :, :, 1, _DIR_Y] = l0[:, :, None, :]
            B[:, :, :, 2, _DIR_Z] = l0[:, :, None, :]
            B = B.reshape(n, nq * m, 3, 8)
            wts = (w[None, :, None] * L[:, None, None] * wyz[None, None, :]).reshape(n, -1)
            lam, mu = mat.lame
            C = np.zeros((6, 6))
            C[:3, :3] = lam
            C[[0, 1, 2], [0, 1, 2]] = lam + 2 * mu
            C[3:, 3:] = mu * np.eye(3)
            if self.formulation == "continuum_split":
                C[0, 1:3] = C[1:3, 0] = 0.0
                C[0, 0] = mat.E
            C = np.broadcast_to(C, (wts.shape[1], 6, 6)).copy()
        self._B = B                                         # (n, p, slots, 8)
        self._Bt = np.ascontiguousarray(np.swapaxes(B, -1, -2))
        self._Bt2 = np.ascontiguousarray(np.swapaxes(B.reshape(n, -1, 8), 1, 2))
        self._WC = wts[..., None, None] * C[None]           # (n, p, k, l)
        self._wts = wts                                     # (n, p)
        self.C = C                                          # (p, k, l)
        self._H0, self._l0 = H0, l0
        self.EA = mat.E * p["area"]

    # ------------------------------------------------------------- kinematics
    def shape(self, xi):
        """``N`` (n_el, n_pts, 8) at ``xi`` = (ξ ∈ [−1, 1], y [m], z [m]); y, z optional."""
        xi = np.atleast_2d(np.asarray(xi, dtype=float))
        s = 0.5 * (xi[:, 0] + 1.0)
        y = xi[:, 1] if xi.shape[1] > 1 else np.zeros(len(s))
        z = xi[:, 2] if xi.shape[1] > 2 else np.zeros(len(s))
        N = np.zeros((self.n_elements, len(s), 8))
        N[..., _CENTRE] = hermite(s, self.L, 0)
        lin = linear(s, self.L, 0)
        N[..., _DIR_Y] = y[None, :, None] * lin
        N[..., _DIR_Z] = z[None, :, None] * lin
        return N

    def draw_points(self):
        return np.linspace(-1.0, 1.0, 9)[:, None]

    # ---------------------------------------------------------------- inertia
    def mass_scalar(self):
        rho, p = self.material.rho, self.props
        wL = self._w[None, :] * self.L[:, None]
        m = np.zeros((self.n_elements, 8, 8))
        hh = np.einsum("eq,eqi,eqj->eij", wL, self._H0, self._H0)
        ll = np.einsum("eq,eqi,eqj->eij", wL, self._l0, self._l0)
        m[:, np.ix_(_CENTRE, _CENTRE)[0], np.ix_(_CENTRE, _CENTRE)[1]] = rho * p["area"] * hh
        m[:, np.ix_(_DIR_Y, _DIR_Y)[0], np.ix_(_DIR_Y, _DIR_Y)[1]] = rho * p["iz"] * ll
        m[:, np.ix_(_DIR_Z, _DIR_Z)[0], np.ix_(_DIR_Z, _DIR_Z)[1]] = rho * p["iy"] * ll
        return m

    def shape_integral(self):
        out = np.zeros((self.n_elements, 8))
        out[:, _CENTRE] = np.einsum("q,e,eqi->ei", self._w, self.L, self._H0)
        return out

    # ----------------------------------------------------------------- forces
    def _a(self, Q: np.ndarray) -> np.ndarray:
        return self._B @ Q[:, None]                         # (n, p, slots, 3)

    def _strain(self, a: np.ndarray) -> np.ndarray:
        gram = a @ np.swapaxes(a, -1, -2)                   # (n, p, slots, slots)
        return 0.5 * np.einsum("kij,epij->epk", self._S, gram)

    def forces(self, q, v=None, tangent=False):
        n, (_, npt, ns, _) = self.n_elements, self._B.shape
        nk = self._S.shape[0]
        a = self._a(q.reshape(n, 8, 3))                     # (n, p, slots, 3)
        s = self._strain(a) - self._c
        sig = (s[:, :, None, :] @ self.C[None])[:, :, 0] * self._wts[..., None]  # w σ
        T = (sig @ self._S.reshape(nk, ns * ns)).reshape(n, npt, ns, ns)  # Σ σₖ Sₖ
        dW = T @ a                                          # ∂W/∂a (n, p, slots, 3)
        f = (self._Bt2 @ dW.reshape(n, npt * ns, 3)).reshape(n, 24)
        if not tangent:
            return f, None
        K1 = (self._Bt @ T @ self._B).sum(axis=1)           # (n, 8, 8)
        K = np.einsum("eab,cd->eacbd", K1, np.eye(3)).reshape(n, 24, 24)
        Sa = (self._S.reshape(nk * ns, ns) @ a).reshape(n, npt, nk, ns, 3)   # ∂sₖ/∂aᵢ
        G = (self._Bt[:, :, None] @ Sa).reshape(n, npt, nk, 24)  # ∂sₖ/∂q
        WG = self._WC @ G                                   # (n, p, k, 24)
        K += np.swapaxes(G.reshape(n, npt * nk, 24), 1, 2) @ WG.reshape(n, npt * nk, 24)
        return f, K

    strain_rate_damping = True

    def strain_rate_forces(self, q, v, eta, tangent=False):
        """Kelvin–Voigt damping of the beam (:meth:`ElementFamily.strain_rate_forces`).

        Every strain is a rotation-invariant dot product, ``sₖ = ½ aᵀ Sₖ a − cₖ``, so its
        rate ``ṡₖ = aᵀ Sₖ ȧ`` is zero in every rigid motion (any rotation, deformed or
        not)::

            f_d = Σ_p w Gᵀ (η C ṡ),   G = ∂s/∂q,   ṡ = G q̇
            ∂f_d/∂q̇ = η Σ_p w Gᵀ C G,
            ∂f_d/∂q = Σ_p w [Bᵀ (Σₖ σ_d,ₖ Sₖ) B ⊗ I₃ + η Gᵀ C Ġ]

        with ``σ_d = η C ṡ`` and ``Ġ = ∂ṡ/∂q`` (``G`` with ``ȧ`` for ``a``).
        """
        n, (_, npt, ns, _) = self.n_elements, self._B.shape
        nk = self._S.shape[0]
        a = self._a(np.asarray(q, float).reshape(n, 8, 3))          # (n, p, slots, 3)
        ad = self._a(np.asarray(v, float).reshape(n, 8, 3))
        SA = (self._S.reshape(nk * ns, ns) @ a).reshape(n, npt, nk, ns, 3)   # Sₖ a
        sd = np.einsum("epksd,epsd->epk", SA, ad)                     # ṡ
        wc = self._WC * eta[:, None, None, None]                     # η w C
        sig = np.einsum("epkl,epl->epk", wc, sd)                     # w σ_d
        T = (sig @ self._S.reshape(nk, ns * ns)).reshape(n, npt, ns, ns)
        dW = T @ a
        f = (self._Bt2 @ dW.reshape(n, npt * ns, 3)).reshape(n, 24)
        if not tangent:
            return f, None, None
        G = (self._Bt[:, :, None] @ SA).reshape(n, npt, nk, 24)     # ∂s/∂q
        SAd = (self._S.reshape(nk * ns, ns) @ ad).reshape(n, npt, nk, ns, 3)
        Gd = (self._Bt[:, :, None] @ SAd).reshape(n, npt, nk, 24)   # ∂ṡ/∂q
        Gt = np.swapaxes(G.reshape(n, npt * nk, 24), 1, 2)
        dv = Gt @ (wc @ G).reshape(n, npt * nk, 24)
        K1 = (self._Bt @ T @ self._B).sum(axis=1)
        dq = np.einsum("eab,cd->eacbd", K1, np.eye(3)).reshape(n, 24, 24)
        dq += Gt @ (wc @ Gd).reshape(n, npt * nk, 24)
        return f, dq, dv

    def energy(self, q):
        a = self._a(q.reshape(self.n_elements, 8, 3))
        s = self._strain(a) - self._c
        return 0.5 * np.einsum("ep,epk,pkl,epl->e", self._wts, s, self.C, s)

    # -------------------------------------------------------------- outputs
    def _section_shapes(self, xi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(H′, l, l′)`` at the points ``xi``, kept for the points asked again (outputs
        read the same gauges and mid-points at every recorded step)."""
        key = xi.tobytes() + bytes(str(xi.shape), "ascii")
        cache = self.__dict__.setdefault("_shape_cache", {})
        got = cache.get(key)
        if got is None:
            s = 0.5 * (xi[:, 0] + 1.0)
            got = (hermite(s, self.L, 1), linear(s, self.L, 0), linear(s, self.L, 1))
            for a in got:
                a.flags.writeable = False
            if len(cache) >= 64:
                cache.clear()
            cache[key] = got
        return got

    def _section_vectors(self, q, xi):
        xi = np.atleast_2d(np.asarray(xi, dtype=float))
        Q = q.reshape(self.n_elements, 8, 3)
        H1, l0, l1 = self._section_shapes(xi)
        d = np.einsum("eqk,ekd->eqd", H1, Q[:, _CENTRE])
        ry = np.einsum("eqk,ekd->eqd", l0, Q[:, _DIR_Y])
        rz = np.einsum("eqk,ekd->eqd", l0, Q[:, _DIR_Z])
        ryp = np.einsum("eqk,ekd->eqd", l1, Q[:, _DIR_Y])
        rzp = np.einsum("eqk,ekd->eqd", l1, Q[:, _DIR_Z])
        return d, ry, rz, ryp, rzp

    def centreline(self, q: np.ndarray, xi: np.ndarray) -> np.ndarray:
        """Centreline points at ``xi`` (ξ ∈ [−1, 1]): (n_el, n_pts, 3)."""
        return self.positions(q, np.atleast_2d(np.asarray(xi, float))[:, :1])

    def section_frames(self, q: np.ndarray, xi: np.ndarray) -> np.ndarray:
        """Orthonormal section frames (n_el, n_pts, 3, 3), columns ``(d₁, d₂, d₃)``:
        ``d₂ = r_y/|r_y|``, ``d₃`` the part of ``r_z`` normal to ``d₂``, ``d₁ = d₂ × d₃``
        (the section normal; it differs from the centreline tangent by the shear)."""
        _, ry, rz, _, _ = self._section_vectors(q, xi)
        d2 = ry / np.linalg.norm(ry, axis=-1, keepdims=True)
        d3 = rz - np.einsum("eqd,eqd->eq", rz, d2)[..., None] * d2
        d3 /= np.linalg.norm(d3, axis=-1, keepdims=True)
        return np.stack([np.cross(d2, d3), d2, d3], axis=-1)

    def strains(self, q, xi):
        """Beam strains at ``xi`` (structural measures, whatever the formulation).

        ``axial_strain`` ε (Green), ``curvature_y`` κ_y (bending in the x–z plane),
        ``curvature_z`` κ_z (x–y plane), ``curvature`` √(κ_y² + κ_z²), ``twist`` κ_x [1/m];
        ``shear_angle_y/z`` = asin(r′·r_y / |r′||r_y|) [rad]; section forces
        ``axial_force`` EA ε, ``bending_moment_y/z`` EI κ, ``torque`` GJ κ_x.
        """
        d, ry, rz, ryp, rzp = self._section_vectors(q, xi)
        dot = lambda u, v: np.einsum("eqd,eqd->eq", u, v)
        p, E, G = self.props, self.material.E, self.material.G
        nd = np.linalg.norm(d, axis=-1)
        eps = 0.5 * (dot(d, d) - 1.0)
        ky, kz = -dot(rzp, d), -dot(ryp, d)
        kx = 0.5 * (dot(ryp, rz) - dot(rzp, ry))
        gy = np.arcsin(np.clip(dot(d, ry) / (nd * np.linalg.norm(ry, axis=-1)), -1, 1))
        gz = np.arcsin(np.clip(dot(d, rz) / (nd * np.linalg.norm(rz, axis=-1)), -1, 1))
        return {"axial_strain": eps, "curvature_y": ky, "curvature_z": kz,
                "curvature": np.hypot(ky, kz), "twist": kx,
                "shear_angle_y": gy, "shear_angle_z": gz,
                "axial_force": E * p["area"] * eps, "bending_moment_y": E * p["iy"] * ky,
                "bending_moment_z": E * p["iz"] * kz, "torque": G * p["torsion_constant"] * kx}

    def surface_strain(self, q: np.ndarray, xi: np.ndarray, y: float, z: float) -> np.ndarray:
        """Axial strain of the fibre at section point ``(y, z)`` [m]: (n_el, n_pts).

        ``ε_xx(y, z) = ε − y κ_z − z κ_y``, the first-order Green strain ``E_xx`` of the
        interpolated field ``r_,x = r′ + y r_y′ + z r_z′`` (what a strain gauge at that
        fibre reads, Liu et al. 2018 Table 3).
        """
        st = self.strains(q, xi)
        return st["axial_strain"] - y * st["curvature_z"] - z * st["curvature_y"]
