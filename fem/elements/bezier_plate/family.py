"""ANCF thick-plate element on a cubic Bézier triangle (Liu et al. 2023, eqs 1–16, 17–29).

Two registered families share one implementation:

``bezier_plate``
    The paper's element, 16 nodal 3-vectors (48 coordinates, eq 11)::

        A: r, r_η, r_ζ, r_χ, r_χχ   B: r, r_ζ, r_ξ, r_χ, r_χχ   C: r, r_ξ, r_η, r_χ, r_χχ   P: r

    At each vertex the two area-coordinate gradients point along the two edges leaving it,
    first to the *next* vertex (A→B, B→C, C→A), then to the *previous* one.
``bezier_plate_shared``
    The same element for meshes whose vertices are shared: each vertex carries
    ``r, r_x, r_y, r_z, r_nn`` (the position, the three columns of the Cartesian gradient
    ``∂r/∂X`` in the global frame, and the second derivative along the reference unit
    normal); the centroid ``r`` is private.  A constant matrix per element maps these to
    the 48 coordinates above (chain rule, eqs 5–6).

Conventions
-----------
Reference points are ``xi = (x, y, χ)``: the area coordinates are
``(ξ, η, ζ) = (1 − x − y, x, y)`` (vertex A at (0, 0), B at (1, 0), C at (0, 1)), the
reference triangle is the one of :func:`fem.elements.quadrature.triangle`, and ``χ ∈ [−1, 1]``
crosses the thickness (``χ = −1`` bottom, ``0`` mid-surface, ``+1`` top; ``h/2`` per unit
``χ``, eq 3).  Positions are linear in the coordinates, ``r = (S(ξ) ⊗ I₃) e`` (eq 14), with
the shape functions of eq 15, re-derived in :func:`shape_functions` from the Bézier basis
(eqs 7–10) and the control-point relations (eqs 12–13).

Mechanics: Green–Lagrange strain of the 3D continuum, St. Venant–Kirchhoff law, written in
natural (covariant) components so that a force evaluation needs only the products
``J_a·J_b`` of the current base vectors ``J_a = ∂r/∂ξ_a``; the reference inverse Jacobians,
the elasticity matrix transformed to natural components and the quadrature weights are
stored once per element.  Locking remedies: the ``r_χχ`` term (Poisson locking, liu2023),
assumed natural strain for the thickness strain (curvature-thickness locking) and a
thickness-dependent transverse-shear factor (shear locking); see ``docs/bezier_plate.md``.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numpy.typing import ArrayLike

from ...core.errors import ModelError
from .. import ElementFamily, kernels, register
from ..materials import Material, svk_elasticity
from ..quadrature import gauss_legendre, prism, triangle

__all__ = [
    "BezierTrianglePlate",
    "NEXT_VERTEX",
    "PREV_VERTEX",
    "BezierTrianglePlateShared",
    "shape_functions",
    "bezier_basis",
    "nodal_from_control",
    "control_from_nodal",
    "g1_cross_derivative",
    "paper_continuity",
    "seed_continuity",
    "draw_grid",
]

# Voigt order of the 6 symmetric index pairs (11, 22, 33, 23, 13, 12), as in svk_elasticity.
_PA = np.array([0, 1, 2, 1, 0, 0])
_PB = np.array([0, 1, 2, 2, 2, 1])
NEXT_VERTEX = (1, 2, 0)
"""The next corner of a triangle's local vertex k (counter-clockwise)."""
PREV_VERTEX = (2, 0, 1)
"""The previous corner of a triangle's local vertex k."""


# ----------------------------------------------------------------------------- basis
def _points(xi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Area coordinates (n, 3) and χ (n,) of reference points (x, y[, χ])."""
    xi = np.atleast_2d(np.asarray(xi, dtype=float))
    if xi.shape[1] not in (2, 3):
        raise ModelError(f"plate reference points must be (x, y) or (x, y, χ), got {xi.shape}")
    chi = xi[:, 2] if xi.shape[1] == 3 else np.zeros(len(xi))
    L = np.column_stack([1.0 - xi[:, 0] - xi[:, 1], xi[:, 0], xi[:, 1]])
    return L, chi


def shape_functions(
    xi: np.ndarray, deriv: bool = False
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Shape functions ``S`` of eq 15 and their derivatives by ``(x, y, χ)``.

    Per vertex ``K`` with own area coordinate ``a``, next ``b`` and previous ``c``
    (``(ξ, η, ζ)`` for A, ``(η, ζ, ξ)`` for B, ``(ζ, ξ, η)`` for C)::

        S_r    = a³ + 3a²b + 3a²c − 7abc        S_χ  = aχ
        S_next = a²b − abc                      S_χχ = ½aχ²
        S_prev = a²c − abc                      S_P  = 27ξηζ   (centroid)

    Parameters
    ----------
    xi : ndarray (n, 2) or (n, 3)
        Reference points ``(x, y[, χ])``, area coordinates ``(1 − x − y, x, y)``.
    deriv : bool
        Also return ``∂S/∂(x, y, χ)``.

    Returns
    -------
    S : ndarray (n, 16)
    dS : ndarray (n, 3, 16), only if ``deriv``; rows ``∂/∂x, ∂/∂y, ∂/∂χ``.
    """
    L, chi = _points(xi)
    n = len(chi)
    S = np.empty((n, 16))
    dL = np.zeros((n, 3, 16))  # ∂S/∂(L0, L1, L2) treating the L as independent
    dchi = np.zeros((n, 16))
    for k in range(3):
        i, j, m = k, NEXT_VERTEX[k], PREV_VERTEX[k]
        a, b, c = L[:, i], L[:, j], L[:, m]
        col = 5 * k
        abc = a * b * c
        S[:, col] = a**3 + 3 * a * a * (b + c) - 7 * abc
        S[:, col + 1] = a * a * b - abc
        S[:, col + 2] = a * a * c - abc
        S[:, col + 3] = a * chi
        S[:, col + 4] = 0.5 * a * chi**2
        if deriv:
            dL[:, i, col] = 3 * a * a + 6 * a * (b + c) - 7 * b * c
            dL[:, j, col] = 3 * a * a - 7 * a * c
            dL[:, m, col] = 3 * a * a - 7 * a * b
            dL[:, i, col + 1] = 2 * a * b - b * c
            dL[:, j, col + 1] = a * a - a * c
            dL[:, m, col + 1] = -a * b
            dL[:, i, col + 2] = 2 * a * c - b * c
            dL[:, j, col + 2] = -a * c
            dL[:, m, col + 2] = a * a - a * b
            dL[:, i, col + 3] = chi
            dL[:, i, col + 4] = 0.5 * chi**2
            dchi[:, col + 3] = a
            dchi[:, col + 4] = a * chi
    S[:, 15] = 27.0 * L[:, 0] * L[:, 1] * L[:, 2]
    if not deriv:
        return S
    dL[:, 0, 15] = 27.0 * L[:, 1] * L[:, 2]
    dL[:, 1, 15] = 27.0 * L[:, 0] * L[:, 2]
    dL[:, 2, 15] = 27.0 * L[:, 0] * L[:, 1]
    dS = np.empty((n, 3, 16))
    dS[:, 0] = dL[:, 1] - dL[:, 0]  # x = η,  ξ = 1 − x − y
    dS[:, 1] = dL[:, 2] - dL[:, 0]  # y = ζ
    dS[:, 2] = dchi
    return S, dS


def bezier_basis(xi: np.ndarray) -> np.ndarray:
    """The paper's Bézier basis with the thickness terms, ``g₁ … g₁₆`` (eqs 8–9): (n, 16).

    Control points: ``q¹ q² q³`` the mid-surface vertices A B C, ``q⁴ q⁵`` the third points of
    AB (near A, near B), ``q⁶ q⁷`` of BC, ``q⁸ q⁹`` of AC (near A, near C), ``q¹⁰`` the
    centre point, ``q¹¹…q¹³`` the vertices of the top face, ``q¹⁴…q¹⁶`` the second-derivative
    control points (eq 9).
    """
    (L, chi) = _points(xi)
    u, v, w = L.T
    return np.column_stack([
        u**3 - u * chi, v**3 - v * chi, w**3 - w * chi,
        3 * u * u * v, 3 * u * v * v, 3 * v * v * w, 3 * v * w * w, 3 * u * u * w, 3 * u * w * w,
        6 * u * v * w,
        u * chi, v * chi, w * chi,
        0.5 * u * chi**2, 0.5 * v * chi**2, 0.5 * w * chi**2,
    ])


@cache
def _nodal_from_control() -> np.ndarray:
    Xm = np.zeros((16, 16))
    # (row of e₁, [(control point index 1-based, coefficient), ...])  -- eq 12, with the
    # B-vertex gradients assigned by geometry: q⁶ lies on BC (ζ direction), q⁵ on AB (ξ).
    rows = [
        [(1, 1)], [(4, 3), (1, -3)], [(8, 3), (1, -3)], [(11, 1), (1, -1)], [(14, 1)],
        [(2, 1)], [(6, 3), (2, -3)], [(5, 3), (2, -3)], [(12, 1), (2, -1)], [(15, 1)],
        [(3, 1)], [(9, 3), (3, -3)], [(7, 3), (3, -3)], [(13, 1), (3, -1)], [(16, 1)],
        [(1, 1), (2, 1), (3, 1)] + [(k, 3) for k in range(4, 10)] + [(10, 6)],
    ]
    for r, terms in enumerate(rows):
        for k, c in terms:
            Xm[r, k - 1] = c
    Xm[15] /= 27.0
    return Xm


def nodal_from_control() -> np.ndarray:
    """The constant matrix of eq 13, ``e = (X ⊗ I₃) q_con`` (16 × 16 scalar)."""
    return _nodal_from_control().copy()


def control_from_nodal() -> np.ndarray:
    """``X⁻¹`` (16 × 16): the Bézier control points of an element, ``q_con = (X⁻¹ ⊗ I₃) e``.

    Use it to write the paper's continuity conditions (eqs 17–29), which are stated in
    control points, in element coordinates.
    """
    return np.linalg.inv(_nodal_from_control())


# Local edges, each run from its first to its second vertex (edge k is opposite vertex k).
_EDGE_VERTICES = {0: (1, 2), 1: (2, 0), 2: (0, 1)}
# Control points (0-based) along each edge: vertex, two third points, vertex ...
_EDGE_CONTROL = {0: (1, 5, 6, 2), 1: (2, 8, 7, 0), 2: (0, 3, 4, 1)}
# ... and the adjacent interior row (third points of the other edges and the centre q¹⁰).
_EDGE_INTERIOR = {0: (4, 9, 8), 1: (6, 9, 3), 2: (7, 9, 5)}


def _check_edge(edge: int) -> None:
    if edge not in (0, 1, 2):
        raise ModelError(f"plate edge must be 0, 1 or 2 (opposite vertex), got {edge}")


def g1_cross_derivative(edge: int) -> np.ndarray:
    """Coefficients of the paper's simplified G¹ terms (eq 29) for one element edge.

    Parameters
    ----------
    edge : int
        Local edge opposite vertex ``edge``: 0 = BC (run B→C), 1 = CA (C→A), 2 = AB (A→B).

    Returns
    -------
    c : ndarray (3, 16)
        ``(c ⊗ I₃) e`` are the three vectors ``b₀ + b₁ − 2i₀``, ``b₁ + b₂ − 2i₁``,
        ``b₂ + b₃ − 2i₂`` built from the edge control points ``b`` (in running order) and
        the adjacent interior row ``i`` — the paper's ``(q² − q⁵) + (q⁶ − q⁵)``, … : 2/3 of
        the mid-surface derivative from the opposite vertex towards the edge midpoint at the
        three quadratic Bernstein positions.  Eq 29 for two elements sharing an edge reads
        ``c_e e_e + c_f′ e_f = 0`` with ``c_f′`` the rows of the neighbour reversed when it
        runs the edge the other way (see :func:`paper_continuity`).
    """
    _check_edge(edge)
    b, i = _EDGE_CONTROL[edge], _EDGE_INTERIOR[edge]
    P = control_from_nodal()
    return np.stack([P[b[m]] + P[b[m + 1]] - 2.0 * P[i[m]] for m in range(3)])


def paper_continuity(edge_e: int, edge_f: int, opposite: bool = True) -> np.ndarray:
    """The paper's 33 continuity equations (eqs 17, 19, 21, 29) of two adjacent elements.

    Parameters
    ----------
    edge_e, edge_f : int
        The shared edge's local number in element ``e`` and in its neighbour ``f``
        (0 = BC, 1 = CA, 2 = AB).
    opposite : bool, default True
        The two elements run the edge in opposite directions (a consistently oriented mesh).

    Returns
    -------
    c : ndarray (11, 32)
        Scalar coefficients over the 16 + 16 nodal vectors of ``e`` and ``f`` in the
        48-coordinate layout; ``(c ⊗ I₃) [e_e; e_f] = 0`` are the 33 equations: 4 edge
        control points (eqs 17, 19), the top-face points ``r + r_χ`` and the ``r_χχ`` at
        both edge vertices (eqs 17, 21), and the 3 G¹ vectors (eq 29).  For the shared
        family multiply the two halves by :attr:`BezierTrianglePlate.plate_map` of each
        element; all but the middle G¹ row are then identically satisfied on meshes whose
        adjacent triangles form parallelograms (the regular hexagon of Liu et al. 2023).
    """
    _check_edge(edge_e)
    _check_edge(edge_f)
    P = control_from_nodal()
    flip = (lambda seq: seq[::-1]) if opposite else (lambda seq: seq)
    rows = []
    for i, j in zip(_EDGE_CONTROL[edge_e], flip(_EDGE_CONTROL[edge_f]), strict=True):
        rows.append(np.concatenate([P[i], -P[j]]))
    for a, b in zip(_EDGE_VERTICES[edge_e], flip(_EDGE_VERTICES[edge_f]), strict=True):
        rows.append(np.concatenate([P[10 + a], -P[10 + b]]))
        rows.append(np.concatenate([P[13 + a], -P[13 + b]]))
    ge, gf = g1_cross_derivative(edge_e), flip(g1_cross_derivative(edge_f))
    for m in range(3):
        rows.append(np.concatenate([ge[m], gf[m]]))
    return np.array(rows)


#: Former name, kept: the contract extends, never renames.
seed_continuity = paper_continuity


def draw_grid(n_sub: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Sub-triangulation of the reference triangle: points (n, 3) at χ = 0, triangles (m, 3)."""
    if n_sub < 1:
        raise ModelError(f"plate drawing needs n_sub ≥ 1, got {n_sub}")
    idx = {}
    pts = []
    for j in range(n_sub + 1):
        for i in range(n_sub + 1 - j):
            idx[i, j] = len(pts)
            pts.append((i / n_sub, j / n_sub, 0.0))
    tris = []
    for j in range(n_sub):
        for i in range(n_sub - j):
            tris.append((idx[i, j], idx[i + 1, j], idx[i, j + 1]))
            if i + j + 1 < n_sub:
                tris.append((idx[i + 1, j], idx[i + 1, j + 1], idx[i, j + 1]))
    return np.array(pts), np.array(tris, dtype=np.int64)


@cache
def _tabulated(triangle_degree: int, n_thickness: int):
    """Points, weights, S and dS of a prism rule (cached per rule; read-only arrays)."""
    rule = prism(triangle_degree, n_thickness)
    S, dS = shape_functions(rule.points, deriv=True)
    for a in (rule.points, S, dS):
        a.setflags(write=False)
    return rule.points, rule.weights, S, dS


# ----------------------------------------------------------------------------- family
@register("bezier_plate")
class BezierTrianglePlate(ElementFamily):
    """ANCF thick plate on a cubic Bézier triangle, 48 coordinates per element (Liu et al. 2023).

    Parameters
    ----------
    X : ndarray (n_el, 48)
        Reference coordinates in the order of :attr:`node_layout` (eq 11); build them for a
        flat undeformed plate with :meth:`reference_coordinates`.
    material : Material
        E, ν (St. Venant–Kirchhoff) and ρ (mass).
    thickness : float or array (n_el,)
        Plate thickness ``h`` [m], > 0.  The reference thickness gradients must be
        ``|r_χ| = h/2`` (eq 3).
    triangle_degree : int, default 4
        Degree of the in-plane rule for the elastic forces (≥ 4; 4 and 5 use Radon's
        symmetric 7-point rule): exact for the small-strain energy (degree 4); lower rules leave
        spurious zero-energy modes.
    n_thickness : int, default 3
        Gauss points through the thickness (≥ 2; 3 integrate the small-strain energy
        exactly, including the quadratic-in-χ part from ``r_χχ``).
    shear_factor : {"auto"} or float, default "auto"
        Factor on the transverse-shear modulus.  "auto": ``h² / (h² + α ℓ²)`` with ``ℓ²``
        the largest squared edge length of the element and ``α`` = ``shear_alpha``
        (default 0.2): removes shear locking of thin plates, tends to 1 under refinement.
        ``1.0`` gives the plain 3D continuum.
    thickness_ans : bool, default True
        Assumed natural strain for the thickness strain ``E_χχ``: sampled at the three
        vertices and interpolated linearly (removes curvature-thickness locking).
    """

    cell = "triangle"
    drawing = "surface"
    section_keys = ("thickness", "triangle_degree", "n_thickness", "thickness_ans",
                    "shear_factor", "shear_alpha", "normal")
    section_rules = {"thickness": "positive", "triangle_degree": "count",
                     "n_thickness": "count", "thickness_ans": "flag",
                     "shear_alpha": "nonnegative", "normal": "vector3"}
    node_layout = (
        ("r", "r_eta", "r_zeta", "r_chi", "r_chichi"),
        ("r", "r_zeta", "r_xi", "r_chi", "r_chichi"),
        ("r", "r_xi", "r_eta", "r_chi", "r_chichi"),
        ("r",),
    )

    def __init__(self, X, material: Material | None = None, **section):
        super().__init__(X, material, **section)
        n = self.n_elements
        if material is None:
            raise ModelError(f"element {self.name!r} needs a material (E, nu, rho)")
        if "thickness" not in section:
            raise ModelError(f"element {self.name!r} needs section data thickness=... (m)")
        h = np.asarray(section["thickness"], dtype=float)
        try:
            h = np.broadcast_to(h, (n,)).copy()
        except ValueError:
            raise ModelError(f"element {self.name!r}: thickness must be a number or one per "
                             f"element ({n}), got shape {h.shape}") from None
        bad = np.flatnonzero(~np.isfinite(h) | ~(h > 0))
        if bad.size:
            raise ModelError(f"element {self.name!r}: thickness must be finite and > 0 "
                             f"(elements {bad[:10].tolist()})")
        self.thickness = h
        self.triangle_degree = int(section.get("triangle_degree", 4))
        self.n_thickness = int(section.get("n_thickness", 3))
        if self.triangle_degree < 4 or self.n_thickness < 2:
            # fewer points leave spurious zero-energy modes (7 extra for degree 2–3)
            raise ModelError(f"element {self.name!r}: needs triangle_degree ≥ 4 and "
                             f"n_thickness ≥ 2 (got {self.triangle_degree}, "
                             f"{self.n_thickness}); lower rules have zero-energy modes")
        self.thickness_ans = bool(section.get("thickness_ans", True))
        self._emap = self._element_map()          # (n_el, 16, 16) or None
        self.use_kernel = True     # the compiled kernel when numba is there (kernels.py)
        self._X48 = self._to48(self.X)              # reference in the 48-coordinate form
        self._check_geometry()
        self.shear_factor = self._shear_factor(section.get("shear_factor", "auto"),
                                               float(section.get("shear_alpha", 0.2)))
        self._C = svk_elasticity(material)
        self._setup_stiffness()
        self._mass = None

    # ------------------------------------------------------------- reference data
    @classmethod
    def mesh_reference(cls, vertices: np.ndarray, thickness=None,
                       normal=None) -> np.ndarray:
        """From a mesh: :meth:`reference_coordinates` of the cells' triangles."""
        return cls.reference_coordinates(vertices, thickness, normal)

    @classmethod
    def reference_coordinates(cls, vertices: np.ndarray, thickness: ArrayLike,
                              normal: ArrayLike | None = None) -> np.ndarray:
        """Reference coordinates (n_el, 48) of flat, undeformed triangles.

        Parameters
        ----------
        vertices : ndarray (n_el, 3, 3)
            Mid-surface vertices A, B, C of each element.
        thickness : float or array (n_el,)
        normal : array (3,) or (n_el, 3), optional
            The plate's "up" direction.  If given, triangles that are clockwise seen from it
            raise :class:`ModelError`; the thickness direction is always the right-hand
            normal ``AB × AC`` (eq 3).

        Returns
        -------
        X : ndarray (n_el, 48)
            ``r_η^A = B − A``, ``r_ζ^A = C − A``, ``r_ζ^B = C − B``, ``r_ξ^B = A − B``,
            ``r_ξ^C = A − C``, ``r_η^C = B − C`` (eq 6 with ``r_X = I``), ``r_χ = (h/2) n̂``,
            ``r_χχ = 0``, centroid ``(A + B + C)/3``.
        """
        V, nhat, h = _flat_triangles(cls.name, vertices, thickness, normal)
        out = np.zeros((len(V), 16, 3))
        d = 0.5 * h[:, None] * nhat
        for k in range(3):
            col = 5 * k
            out[:, col] = V[:, k]
            out[:, col + 1] = V[:, NEXT_VERTEX[k]] - V[:, k]
            out[:, col + 2] = V[:, PREV_VERTEX[k]] - V[:, k]
            out[:, col + 3] = d
        out[:, 15] = V.mean(axis=1)
        return out.reshape(len(V), 48)

    def _element_map(self):
        return None

    def _to48(self, Y: np.ndarray) -> np.ndarray:
        """Own coordinates (n_el, 48) → the 48 coordinates of eq 11, as (n_el, 16, 3)."""
        Y = np.asarray(Y, dtype=float).reshape(self.n_elements, 16, 3)
        if self._emap is None:
            return Y
        return np.einsum("ekl,eld->ekd", self._emap, Y)

    def _tab(self, points: np.ndarray, deriv: bool = True):
        """S (n_el|1, n, 16) and dS (n_el|1, n, 3, 16) in this family's coordinates."""
        if deriv:
            S, dS = shape_functions(points, deriv=True)
        else:
            S, dS = shape_functions(points), None
        if self._emap is None:
            return S[None], (None if dS is None else dS[None])
        S = np.einsum("pk,ekl->epl", S, self._emap)
        if dS is not None:
            dS = np.einsum("pak,ekl->epal", dS, self._emap)
        return S, dS

    def _check_geometry(self) -> None:
        _, lmax = _triangle_geometry(self.name, self._X48[:, [0, 5, 10]])
        d = self._X48[:, [3, 8, 13]]
        half = np.linalg.norm(d, axis=2)
        rel = np.abs(half - 0.5 * self.thickness[:, None]) / (0.5 * self.thickness[:, None])
        bad = np.flatnonzero(np.any(rel > 1e-6, axis=1))
        if bad.size:
            raise ModelError(
                f"element {self.name!r}: reference thickness gradients |r_χ| differ from "
                f"thickness/2 in elements {bad[:10].tolist()} (give the same thickness to "
                "reference_coordinates and to the element)")
        # inverted: the reference Jacobian must be positive at vertices and quadrature points
        pts = np.vstack([_tabulated(self.triangle_degree, self.n_thickness)[0],
                         [[0, 0, -1], [1, 0, -1], [0, 1, -1], [0, 0, 1], [1, 0, 1], [0, 1, 1]]])
        _, dS = shape_functions(pts, deriv=True)
        J0 = np.einsum("pak,ekd->epad", dS, self._X48)
        det = np.linalg.det(J0)
        scale = (lmax**2 * self.thickness)[:, None]
        bad = np.flatnonzero(np.any(~(det > 1e-10 * scale), axis=1))
        if bad.size:
            raise ModelError(
                f"element {self.name!r}: inverted elements {bad[:10].tolist()}: the vertices "
                "run clockwise about the thickness direction r_χ (or the reference is folded); "
                "order the vertices counter-clockwise seen from the top face")

    def _shear_factor(self, value, alpha: float) -> np.ndarray:
        n = self.n_elements
        if isinstance(value, str):
            if value != "auto":
                raise ModelError(f"element {self.name!r}: shear_factor must be 'auto' or a "
                                 f"number in (0, 1], got {value!r}")
            if not alpha >= 0:
                raise ModelError(f"element {self.name!r}: shear_alpha must be ≥ 0, got {alpha}")
            V = self._X48[:, [0, 5, 10]]
            l2 = np.max(np.sum((V - np.roll(V, 1, axis=1)) ** 2, axis=2), axis=1)
            h2 = self.thickness**2
            return h2 / (h2 + alpha * l2)
        s = np.broadcast_to(np.asarray(value, dtype=float), (n,)).copy()
        if np.any(~(s > 0)) or np.any(s > 1):
            raise ModelError(f"element {self.name!r}: shear_factor must lie in (0, 1]")
        return s

    def _frame_data(self, dS: np.ndarray):
        """Reference base vectors, local frame and its inverse Jacobian at points.

        Returns ``J0`` (n_el, n, 3, 3) rows ``∂X/∂(x, y, χ)``, ``R`` (n_el, n, 3, 3) columns
        ``t₁ t₂ t₃`` (``t₁`` along ``∂X/∂x``, ``t₃`` the mid-surface normal) and
        ``G = (J0 R)⁻¹``, ``G_ia = ∂ξ_a/∂Y_i`` for local Cartesian ``Y = Rᵀ X``, so that the
        local strain is ``E = ½ G (J Jᵀ − J0 J0ᵀ) Gᵀ`` with ``J`` the current rows.
        """
        J0 = np.einsum("epak,ekd->epad", dS, self._own_X())
        t1 = J0[..., 0, :] / np.linalg.norm(J0[..., 0, :], axis=-1, keepdims=True)
        t3 = np.cross(J0[..., 0, :], J0[..., 1, :])
        t3 /= np.linalg.norm(t3, axis=-1, keepdims=True)
        t2 = np.cross(t3, t1)
        R = np.stack([t1, t2, t3], axis=-1)                # columns t_i
        A = J0 @ R                                          # A[a, i] = J0_a · t_i = ∂Y_i/∂ξ_a
        G = np.linalg.inv(A)                                # G[i, a] = ∂ξ_a/∂Y_i
        return J0, R, G

    def _own_X(self) -> np.ndarray:
        return self.X.reshape(self.n_elements, 16, 3)

    @staticmethod
    def _strain_map(G: np.ndarray) -> np.ndarray:
        """``T`` (…, 6, 6): engineering Voigt strains (local) = ``T`` · Δd (natural pairs).

        ``E_ij = ½ Σ_ab G_ia G_jb Δd_ab`` with ``Δd_ab = J_a·J_b − J0_a·J0_b`` and ``G`` the
        inverse of ``A_ai = J0_a·t_i`` (rows: local index i, columns: natural index a).
        """
        Gi = G[..., _PA, :]     # (…, 6 local pairs, 3 natural)
        Gj = G[..., _PB, :]
        # T[p, s] for local pair p=(i,j), natural pair s=(a,b)
        ga_i = Gi[..., :, _PA]  # G[i, a]
        gb_j = Gj[..., :, _PB]  # G[j, b]
        gb_i = Gi[..., :, _PB]  # G[i, b]
        ga_j = Gj[..., :, _PA]  # G[j, a]
        off = (_PA != _PB).astype(float)
        T = 0.5 * (ga_i * gb_j + off * gb_i * ga_j)
        T *= np.where(_PA == _PB, 1.0, 2.0)[:, None]        # engineering shears
        return T

    def _setup_stiffness(self) -> None:
        """Per element and quadrature point: dS, weights, reference pairs and D = w TᵀCT."""
        pts, w, _, _ = _tabulated(self.triangle_degree, self.n_thickness)
        self._qpoints = pts
        _, dS = self._tab(pts)
        self._dS = np.ascontiguousarray(np.broadcast_to(dS, (self.n_elements, *dS.shape[1:])))
        # Y[s, k, b] = Σ_a (δ_a,a_s δ_b,b_s + δ_a,b_s δ_b,a_s) ∂_a S_k, so that ∂d_s/∂e_k = Y J
        sel = np.zeros((6, 3, 3))
        sel[np.arange(6), _PA, _PB] += 1.0
        sel[np.arange(6), _PB, _PA] += 1.0
        self._Y = np.ascontiguousarray(np.einsum("sab,eqak->eqskb", sel, self._dS)).reshape(
            self.n_elements, len(pts), 96, 3)
        J0, _, G = self._frame_data(self._dS)
        detJ0 = np.linalg.det(J0)
        T = self._strain_map(G)
        C = np.broadcast_to(self._C, (self.n_elements, 6, 6)).copy()
        C[:, 3:5, :] *= np.sqrt(self.shear_factor)[:, None, None]
        C[:, :, 3:5] *= np.sqrt(self.shear_factor)[:, None, None]
        W = w[None, :] * detJ0
        D = np.einsum("eqpa,epr,eqrb->eqab", T, C, T) * W[..., None, None]
        self._D = np.ascontiguousarray(D)
        self._d0 = 0.0
        self._ans = None
        _, self._d0, _ = self._pairs(self._own_X())   # same arithmetic as in forces
        self._volume = W.sum(axis=1)
        if self.thickness_ans:
            # E_χχ tied to the three vertices at the same χ: d_χχ(x, y, χ) =
            # Σ_v λ_v(x, y) d_χχ(vertex v, χ).  Tying points: vertex × thickness point.
            chi = gauss_legendre(self.n_thickness).points[:, 0]
            tie = np.array([[x, y, c] for (x, y) in ((0, 0), (1, 0), (0, 1)) for c in chi])
            _, dSt = self._tab(tie)
            dSt = np.ascontiguousarray(
                np.broadcast_to(dSt[:, :, 2], (self.n_elements, len(tie), 16)))  # ∂S/∂χ
            # interpolation weights lam (n_q, n_tie)
            L, _ = _points(pts[:, :2])
            nchi = len(chi)
            qchi = np.searchsorted(chi, pts[:, 2] - 1e-12)  # rule points reuse the GL abscissae
            lam = np.zeros((len(pts), 3 * nchi))
            for v in range(3):
                lam[np.arange(len(pts)), v * nchi + qchi] = L[:, v]
            J0t = dSt @ self._own_X()
            self._ans = (dSt, lam, np.einsum("etd,etd->et", J0t, J0t))

    # ------------------------------------------------------------------ kinematics
    def shape(self, xi: ArrayLike) -> np.ndarray:
        """Shape functions in this family's coordinates at points ``xi``: (n_el, n_pts, 16)."""
        S, _ = self._tab(np.atleast_2d(xi), deriv=False)
        return np.broadcast_to(S, (self.n_elements, *S.shape[1:]))

    def draw_points(self, n_sub: int = 4) -> np.ndarray:
        """Mid-surface points (n, 3) of a sub-triangulation for drawing the curved shape."""
        return draw_grid(n_sub)[0]

    def draw_triangles(self, n_sub: int = 4) -> np.ndarray:
        """Triangles (m, 3) over :meth:`draw_points` (counter-clockwise like the element)."""
        return draw_grid(n_sub)[1]

    # --------------------------------------------------------------------- inertia
    def mass_scalar(self) -> np.ndarray:
        """Constant scalar mass matrices (n_el, 16, 16), eq 16: ``∫ ρ SᵀS dV``.

        Integrated exactly for flat plates (triangle degree 6 × 3 Gauss points in χ).
        """
        if self._mass is None:
            pts, w, _, _ = _tabulated(6, 3)
            S, dS = self._tab(pts)
            det = np.linalg.det(np.einsum("epak,ekd->epad", np.broadcast_to(
                dS, (self.n_elements, *dS.shape[1:])), self._own_X()))
            Wt = self.material.rho * w[None, :] * det
            S = np.broadcast_to(S, (self.n_elements, *S.shape[1:]))
            self._mass = np.einsum("ep,epk,epl->ekl", Wt, S, S)
        return self._mass.copy()

    def shape_integral(self) -> np.ndarray:
        """``∫ S dA`` over the mid-surface (n_el, 16): a load ``p`` per unit area gives the
        generalized force ``(∫S dA) ⊗ p``."""
        rule = triangle(6)
        pts = np.column_stack([rule.points, np.zeros(rule.n)])
        S, dS = self._tab(pts)
        dS = np.broadcast_to(dS, (self.n_elements, *dS.shape[1:]))
        J0 = np.einsum("epak,ekd->epad", dS, self._own_X())
        dA = np.linalg.norm(np.cross(J0[..., 0, :], J0[..., 1, :]), axis=-1)
        S = np.broadcast_to(S, (self.n_elements, *S.shape[1:]))
        return np.einsum("p,ep,epk->ek", rule.weights, dA, S)

    @property
    def plate_map(self) -> np.ndarray:
        """``M`` (n_el, 16, 16): the 48 coordinates of eq 11 are ``(M ⊗ I₃) q_e`` (identity
        for ``bezier_plate``; the chain-rule map of eqs 5–6 for ``bezier_plate_shared``)."""
        if self._emap is None:
            return np.broadcast_to(np.eye(16), (self.n_elements, 16, 16)).copy()
        return self._emap.copy()

    @property
    def volume(self) -> np.ndarray:
        """Reference volumes (n_el,)."""
        return self._volume.copy()

    # ---------------------------------------------------------------------- forces
    def _pairs(self, Q: np.ndarray):
        """Current base vectors J (n_el, n_q, 3, 3) and Δd (n_el, n_q, 6) incl. tying."""
        J = self._dS @ Q[:, None]                                    # rows J_a = ∂r/∂ξ_a
        d = np.einsum("eqpd,eqpd->eqp", J[:, :, _PA], J[:, :, _PB]) - self._d0
        Jt = None
        if self._ans is not None:
            dSt, lam, d0t = self._ans
            Jt = dSt @ Q                                             # J_χ at tying points
            dt = np.einsum("etd,etd->et", Jt, Jt) - d0t
            d[:, :, 2] = dt @ lam.T
        return J, d, Jt

    def _check_q(self, q) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        if q.size != self.n_elements * self.n_dof:
            raise ModelError(f"element {self.name!r}: coordinates must have shape "
                             f"({self.n_elements}, {self.n_dof}), got {q.shape}")
        return q.reshape(self.n_elements, 16, 3)

    def energy(self, q: np.ndarray) -> np.ndarray:
        """Strain energy per element (n_el,): ``½ ∫ Eᵀ C E dV``."""
        _, d, _ = self._pairs(self._check_q(q))
        return 0.5 * np.einsum("eqa,eqab,eqb->e", d, self._D, d)

    def forces(self, q: np.ndarray, v: np.ndarray | None = None,
               tangent: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        """Elastic forces ``f = ∂U/∂e`` (n_el, 48) and optionally ``K = ∂f/∂e``.

        With ``d_ab = J_a·J_b`` (``J_a = Σ_k ∂S_k/∂ξ_a e_k``), ``σ̃ = D Δd`` the weighted
        natural stresses and ``P`` their symmetric 3×3 arrangement (off-diagonal entries
        halved), ``f_k = 2 Σ_q Σ_ab ∂_a S_k P_ab J_b`` and
        ``K = Σ_q Bᵀ D B + 2 Σ_q Σ_ab P_ab ∂_a S ∂_b Sᵀ ⊗ I₃`` with ``B = ∂d/∂e``.  The
        velocity ``v`` is not used (no damping).
        """
        if kernels.available() and self.use_kernel:
            Q = np.ascontiguousarray(self._check_q(q))
            n = self.n_elements
            if self._ans is not None:
                dSt, lam, d0t = self._ans
                dSt, lam, d0t = (np.ascontiguousarray(x) for x in (dSt, lam, d0t))
            else:
                nq = self._dS.shape[1]
                dSt, lam, d0t = np.zeros((n, 0, 16)), np.zeros((nq, 0)), np.zeros((n, 0))
            f = np.empty((n, 48))
            K = np.empty((n, 48, 48)) if tangent else np.empty((0, 48, 48))
            kernels.plate_forces(Q, self._dS, self._D, np.ascontiguousarray(self._d0),
                                 self._ans is not None, dSt, lam, d0t, f, K, tangent)
            return f, (K if tangent else None)
        return self.forces_numpy(q, v, tangent)

    def compiled_forces(self) -> tuple | None:
        """``(KIND_PLATE, arrays3, arrays2)`` for :func:`fem.elements.kernels.group_forces`
        (:func:`~fem.elements.kernels.plate_forces` gathering and scattering the group's
        coordinates), or None without the compiled kernel.  The arrays are those of
        :meth:`forces` in this family's own coordinates: for ``bezier_plate_shared`` the
        constant map from the vertex fields to the 48 coordinates of eq 11 is already in
        the shape-function derivatives (:meth:`_tab`), so the group's ``dofs`` take the
        forces and tangents as they are."""
        if not (kernels.available() and self.use_kernel):
            return None
        n, nq = self.n_elements, self._dS.shape[1]
        if self._ans is not None:
            dSt, lam, d0t = self._ans
        else:
            dSt, lam, d0t = np.zeros((n, 0, 16)), np.zeros((nq, 0)), np.zeros((n, 0))
        return (kernels.KIND_PLATE, *kernels.work_arrays(
            (np.empty((n, 16, 3)), self._dS.reshape(n, nq * 3, 16),
             self._D.reshape(n, nq * 6, 6), dSt),
            (np.reshape(self._d0, (n, nq * 6)), lam, d0t, np.empty((n, 48)))))

    def forces_numpy(self, q: np.ndarray, v: np.ndarray | None = None,
                     tangent: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        """The NumPy form of :meth:`forces` (the reference of the compiled kernel)."""
        Q = self._check_q(q)
        J, d, Jt = self._pairs(Q)
        sig = (self._D @ d[..., None])[..., 0]
        f, P, sig_t = self._stress_forces(sig, J, Jt)
        if not tangent:
            return f, None
        B = self._pair_gradient(J, Jt)
        return f, self._tangent(B, B, P, sig_t)

    def _stress_forces(self, sig: np.ndarray, J: np.ndarray, Jt: np.ndarray | None):
        """Forces ``Bᵀ σ̃`` (n_el, 48) of weighted natural stresses ``σ̃`` (n_el, n_q, 6)
        at the current base vectors ``J`` (and ``J_χ`` at the tying points), with the
        stresses' 3×3 arrangement ``P`` and their tied thickness part (for the tangent)."""
        n, nq = sig.shape[:2]
        P = np.empty((n, nq, 3, 3))
        P[:, :, _PA, _PB] = sig
        P[:, :, _PB, _PA] = sig
        P[:, :, [1, 0, 0], [2, 2, 1]] *= 0.5
        P[:, :, [2, 2, 1], [1, 0, 0]] *= 0.5
        sig_t = None
        if Jt is not None:
            dSt, lam, _ = self._ans
            sig_t = sig[:, :, 2] @ lam                               # (e, t)
            P[:, :, 2, 2] = 0.0
        f = 2.0 * np.einsum("eqak,eqad->ekd", self._dS, P @ J)
        if Jt is not None:
            f += 2.0 * np.einsum("etk,et,etd->ekd", dSt, sig_t, Jt)
        return f.reshape(n, 48), P, sig_t

    def _pair_gradient(self, J: np.ndarray, Jt: np.ndarray | None) -> np.ndarray:
        """``B = ∂d/∂e`` (n_el, n_q, 6, 48) of the pairs ``d_ab = J_a·J_b`` (tied
        thickness pair included)."""
        n, nq = J.shape[:2]
        B = (self._Y @ J).reshape(n, nq, 6, 48)
        if Jt is not None:
            dSt, lam, _ = self._ans
            Bt = 2.0 * dSt[:, :, :, None] * Jt[:, :, None, :]        # (e, t, 16, 3)
            B[:, :, 2] = np.einsum("qt,etm->eqm", lam, Bt.reshape(n, -1, 48))
        return B

    def _tangent(self, B: np.ndarray, Bd: np.ndarray, P: np.ndarray | None,
                 sig_t: np.ndarray | None, scale: np.ndarray | None = None) -> np.ndarray:
        """``Bᵀ D Bd`` (times ``scale`` per element) plus the geometric part of the
        stresses ``P`` (n_el, 48, 48; none for ``P`` None)."""
        n, nq = B.shape[:2]
        DB = (self._D @ Bd).reshape(n, nq * 6, 48)
        K = np.swapaxes(B.reshape(n, nq * 6, 48), 1, 2) @ DB
        if scale is not None:
            K *= scale[:, None, None]
        if P is None:
            return K
        Kg = 2.0 * np.einsum("eqak,eqab,eqbl->ekl", self._dS, P, self._dS, optimize=True)
        if sig_t is not None:
            Kg += 2.0 * np.einsum("et,etk,etl->ekl", sig_t, self._ans[0], self._ans[0])
        K5 = K.reshape(n, 16, 3, 16, 3)
        for c in range(3):
            K5[:, :, c, :, c] += Kg
        return K

    strain_rate_damping = True

    def strain_rate_forces(self, q, v, eta, tangent=False):
        """Kelvin–Voigt damping of the plate (:meth:`ElementFamily.strain_rate_forces`).

        The strains are the Green–Lagrange strains of the continuum, linear in the
        pairs ``d_ab = J_a·J_b`` of the current base vectors (:meth:`forces`), so
        ``ḋ_ab = J̇_a·J_b + J_a·J̇_b`` vanishes in every rigid motion at any pose.  The
        viscous stresses ``η D ḋ`` give::

            f_d = η Bᵀ D ḋ,   ∂f_d/∂q̇ = η Bᵀ D B,   ∂f_d/∂q = η Bᵀ D B(J̇) + K_g(η D ḋ)

        with ``B = ∂d/∂e`` and ``K_g`` the geometric tangent of a stress (as in
        :meth:`forces`).  About the stress-free reference ``f_d = η K q̇``.
        """
        Q, V = self._check_q(q), self._check_q(v)
        eta = np.asarray(eta, float).reshape(self.n_elements)
        J, _, Jt = self._pairs(Q)
        Jd = self._dS @ V[:, None]
        dd = (np.einsum("eqpd,eqpd->eqp", Jd[:, :, _PA], J[:, :, _PB])
              + np.einsum("eqpd,eqpd->eqp", J[:, :, _PA], Jd[:, :, _PB]))
        Jtd = None
        if Jt is not None:
            dSt, lam, _ = self._ans
            Jtd = dSt @ V
            dd[:, :, 2] = (2.0 * np.einsum("etd,etd->et", Jtd, Jt)) @ lam.T
        sig = eta[:, None, None] * (self._D @ dd[..., None])[..., 0]
        f, P, sig_t = self._stress_forces(sig, J, Jt)
        if not tangent:
            return f, None, None
        B = self._pair_gradient(J, Jt)
        dv = self._tangent(B, B, None, None, eta)
        dq = self._tangent(B, self._pair_gradient(Jd, Jtd), P, sig_t, eta)
        return f, dq, dv

    # ---------------------------------------------------------------- post-process
    def _strain_reference(self, xi: np.ndarray) -> tuple:
        """What :meth:`strains` needs of the reference configuration at points ``xi``:
        shape-function derivatives, reference frames, and the thickness tie points'
        derivatives.  Kept for the last few point sets (a drawing asks for the same
        points at every frame), keyed on the points and on the reference coordinates."""
        key = (xi.shape, xi.tobytes(), self.X.tobytes())
        cache = self.__dict__.setdefault("_strain_refs", {})
        if key in cache:
            return cache[key]
        _, dS = self._tab(xi)
        dS = np.broadcast_to(dS, (self.n_elements, *dS.shape[1:]))
        J0, R, G = self._frame_data(dS)
        L, chi = _points(xi)
        dSt = J0t = None
        if self.thickness_ans:
            tie = np.array([[x, y, c] for (x, y) in ((0, 0), (1, 0), (0, 1)) for c in chi])
            _, dSt = self._tab(tie)
            dSt = np.broadcast_to(dSt[:, :, 2], (self.n_elements, len(tie), 16))
            J0t = dSt @ self._own_X()
        if len(cache) >= 4:
            cache.pop(next(iter(cache)))
        cache[key] = (dS, J0, R, G, L, chi, dSt, J0t)
        return cache[key]

    def green_lagrange_global(self, qs: np.ndarray, xi: ArrayLike,
                              elements: ArrayLike) -> np.ndarray:
        """The Green–Lagrange strain in global reference axes (``E_global`` of
        :meth:`strains`) of the elements ``elements`` at the points ``xi``, for a stack of
        coordinate vectors ``qs`` (n_states, n_el·48, or n_el × 48) at once:
        (n_states, len(elements), n_pts, 3, 3).  The same arithmetic as :meth:`strains`,
        one evaluation for a whole history (a robot's strain gauge over its run)."""
        els = np.asarray(elements, dtype=int)
        qs = np.asarray(qs, dtype=float)
        qs = qs.reshape(len(qs), -1) if qs.ndim > 1 else qs
        if qs.ndim != 2 or qs.shape[1] != self.n_elements * self.n_dof:
            raise ModelError(f"element {self.name!r}: a stack of coordinates must have shape "
                             f"(n, {self.n_elements * self.n_dof}), got {qs.shape}")
        Q = qs.reshape(len(qs), self.n_elements, 16, 3)[:, els]
        ref = self._strain_reference(np.atleast_2d(np.asarray(xi, dtype=float)))
        E, _ = self._local_strain(Q, ref, els)
        R = ref[2][els]
        return R @ E @ np.swapaxes(R, -1, -2)

    def _local_strain(self, Q: np.ndarray, ref: tuple, els=slice(None)):
        """The Green–Lagrange strain in the local frames, and ``J`` (the current
        gradients), of element coordinates ``Q`` (…, n_el, 16, 3) — one state or a stack
        of states — at the points of ``ref`` (:meth:`_strain_reference`), for the elements
        ``els``: the one arithmetic of :meth:`strains` and :meth:`green_lagrange_global`."""
        dS, J0, _, G, L, chi, dSt, J0t = ref
        dS, J0, G = dS[els], J0[els], G[els]
        J = np.einsum("epak,...ekd->...epad", dS, Q)
        dd = J @ np.swapaxes(J, -1, -2) - J0 @ np.swapaxes(J0, -1, -2)
        if self.thickness_ans:
            # the assumed E_χχ of the energy: vertex values at the same χ, linear in (x, y)
            Jt = dSt[els] @ Q
            J0t = J0t[els]
            dt = (np.einsum("...etd,...etd->...et", Jt, Jt)
                  - np.einsum("etd,etd->et", J0t, J0t))
            dd[..., 2, 2] = np.einsum("...epv,pv->...ep", np.swapaxes(
                dt.reshape(*dt.shape[:-1], 3, len(chi)), -1, -2), L)
        return 0.5 * G @ dd @ np.swapaxes(G, -1, -2), J

    def strains(self, q: np.ndarray, xi: ArrayLike) -> dict[str, np.ndarray]:
        """Green–Lagrange strain and stresses at reference points ``xi`` (n_pts, 3).

        Components are in the element's local frame at each point (``t₁`` along ``∂X/∂x``,
        i.e. edge AB of a flat element, ``t₃`` the mid-surface normal, ``t₂ = t₃ × t₁``);
        ``χ = −1, 0, 1`` are the bottom, middle and top layers.  The strain is the one of
        the energy (with ``thickness_ans`` the natural thickness component is the assumed,
        vertex-interpolated one) and the stress uses the physical St. Venant–Kirchhoff law
        (no shear factor).

        Returns
        -------
        dict with
            ``E`` (n_el, n_pts, 3, 3) Green–Lagrange strain, local frame;
            ``S`` (n_el, n_pts, 3, 3) 2nd Piola–Kirchhoff stress, local frame;
            ``E_global`` (n_el, n_pts, 3, 3) the strain tensor in global reference axes;
            ``sigma`` (n_el, n_pts, 3, 3) Cauchy stress, global axes, current configuration;
            ``frame`` (n_el, n_pts, 3, 3) columns ``t₁ t₂ t₃``;
            ``von_mises`` (n_el, n_pts) of ``sigma``.
        """
        Q = self._check_q(q)
        ref = self._strain_reference(np.atleast_2d(np.asarray(xi, dtype=float)))
        E, J = self._local_strain(Q, ref)
        R, G = ref[2], ref[3]
        lam_, mu = self.material.lame
        tr = np.trace(E, axis1=-2, axis2=-1)[..., None, None]
        S = lam_ * tr * np.eye(3) + 2.0 * mu * E
        F = np.swapaxes(J, -1, -2) @ np.swapaxes(G, -1, -2)     # ∂r/∂Y (global × local)
        detF = np.linalg.det(F)[..., None, None]
        sigma = F @ S @ np.swapaxes(F, -1, -2) / detF
        dev = sigma - np.trace(sigma, axis1=-2, axis2=-1)[..., None, None] / 3 * np.eye(3)
        vm = np.sqrt(1.5 * np.einsum("...ij,...ij->...", dev, dev))
        return {"E": E, "S": S, "E_global": R @ E @ np.swapaxes(R, -1, -2),
                "sigma": sigma, "frame": R, "von_mises": vm}


@register("bezier_plate_shared")
class BezierTrianglePlateShared(BezierTrianglePlate):
    """The Bézier-triangle plate with Cartesian vertex coordinates shared across a mesh.

    Each vertex node carries ``r, r_x, r_y, r_z, r_nn``: the position, the columns of the
    deformation gradient ``∂r/∂X`` with respect to the *global* reference axes, and
    ``∂²r/∂n²`` along the element's reference unit normal ``n̂``.  The element maps them by
    the chain rule (eqs 5–6) to its area-coordinate gradients::

        r_η^A = Σ_i (B − A)_i r_{X_i},  r_ζ^A = Σ_i (C − A)_i r_{X_i},  (cyclic for B, C)
        r_χ^K = (h/2) Σ_i n̂_i r_{X_i},   r_χχ^K = (h/2)² r_nn

    with ``A, B, C`` the reference vertices; the centroid node ``r`` is private.  In the
    undeformed state ``r_x, r_y, r_z = e_x, e_y, e_z`` and ``r_nn = 0`` whatever the plate's
    orientation (see :meth:`node_fields`).

    Section data as :class:`BezierTrianglePlate`, plus ``normal`` (3,), default ``(0, 0, 1)``:
    the plate's up direction; elements running clockwise seen from it raise
    :class:`ModelError`.  Give ``normal=None`` to skip that check (for instance for folded
    plates).
    """

    node_layout = (
        ("r", "r_x", "r_y", "r_z", "r_nn"),
        ("r", "r_x", "r_y", "r_z", "r_nn"),
        ("r", "r_x", "r_y", "r_z", "r_nn"),
        ("r",),
    )

    def _element_map(self) -> np.ndarray:
        n = self.n_elements
        V = self.X.reshape(n, 16, 3)[:, [0, 5, 10]]
        cr, _ = _triangle_geometry(self.name, V)
        _check_orientation(self.name, cr, self.section.get("normal", (0.0, 0.0, 1.0)))
        nhat = cr / np.linalg.norm(cr, axis=1)[:, None]
        half = 0.5 * self.thickness
        M = np.zeros((n, 16, 16))
        for k in range(3):
            c = 5 * k
            M[:, c, c] = 1.0
            M[:, c + 1, c + 1:c + 4] = V[:, NEXT_VERTEX[k]] - V[:, k]
            M[:, c + 2, c + 1:c + 4] = V[:, PREV_VERTEX[k]] - V[:, k]
            M[:, c + 3, c + 1:c + 4] = half[:, None] * nhat
            M[:, c + 4, c + 4] = half**2
        M[:, 15, 15] = 1.0
        return M

    @classmethod
    def reference_coordinates(cls, vertices: np.ndarray, thickness: ArrayLike | None = None,
                              normal: ArrayLike | None = None) -> np.ndarray:
        """Reference coordinates (n_el, 48) of flat undeformed triangles with vertices
        (n_el, 3, 3): ``r`` = vertex, ``r_x, r_y, r_z = e_x, e_y, e_z``, ``r_nn = 0``,
        centroid ``(A + B + C)/3``.  ``thickness`` is accepted for symmetry with the
        48-coordinate family and not needed; ``normal`` checks the orientation as in
        :meth:`BezierTrianglePlate.reference_coordinates`."""
        V, _, _ = _flat_triangles(cls.name, vertices, 1.0 if thickness is None else thickness,
                                  normal)
        n = len(V)
        out = np.zeros((n, 16, 3))
        for k in range(3):
            out[:, 5 * k] = V[:, k]
            out[:, 5 * k + 1:5 * k + 4] = np.eye(3)
        out[:, 15] = V.mean(axis=1)
        return out.reshape(n, 48)

    @classmethod
    def mesh_node_fields(cls, points: np.ndarray,
                         cells: np.ndarray) -> dict[str, np.ndarray]:
        """Shared vertex nodes: :meth:`node_fields` of the vertices the cells use."""
        return cls.node_fields(np.asarray(points, float)[np.unique(cells)])

    @staticmethod
    def node_fields(points: np.ndarray) -> dict[str, np.ndarray]:
        """Undeformed shared vertex fields for mesh points (n, 3), keyed like
        :attr:`node_layout`: ``r = X``, ``r_x, r_y, r_z = e_x, e_y, e_z``, ``r_nn = 0``, each
        (n, 3) — ready for ``Model.add_nodes(**fields)``."""
        P = np.asarray(points, dtype=float)
        if P.ndim != 2 or P.shape[1] != 3:
            raise ModelError(f"mesh points must have shape (n, 3), got {P.shape}")
        n = len(P)
        return {"r": P.copy(), "r_x": np.tile([1.0, 0.0, 0.0], (n, 1)),
                "r_y": np.tile([0.0, 1.0, 0.0], (n, 1)), "r_z": np.tile([0.0, 0.0, 1.0], (n, 1)),
                "r_nn": np.zeros((n, 3))}

    @classmethod
    def from_mesh(cls, points: np.ndarray, cells: np.ndarray, material: Material,
                  thickness: ArrayLike, **section) -> BezierTrianglePlateShared:
        """Build the family for a triangle mesh (points (n, 3), cells (n_el, 3))."""
        P = np.asarray(points, dtype=float)
        cells = np.asarray(cells)
        if cells.ndim != 2 or cells.shape[1] != 3 or cells.min() < 0 or cells.max() >= len(P):
            raise ModelError(f"triangle cells must be (n_el, 3) indices into {len(P)} points")
        X = cls.reference_coordinates(P[cells], thickness, section.get("normal", None))
        return cls(X, material, thickness=thickness, **section)

    def to_plate_coordinates(self, q: np.ndarray) -> np.ndarray:
        """The equivalent 48 coordinates of eq 11 (n_el, 48) for shared-layout ``q``."""
        return self._to48(q).reshape(self.n_elements, 48)


def _triangle_geometry(name: str, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``AB × AC`` (n, 3) and the longest edge (n,) of triangles V (n, 3, 3); degenerate
    triangles (area below 1e-10 of the longest edge squared) raise :class:`ModelError`."""
    cr = np.cross(V[:, 1] - V[:, 0], V[:, 2] - V[:, 0])
    lmax = np.linalg.norm(V - np.roll(V, 1, axis=1), axis=2).max(axis=1)
    bad = np.flatnonzero(~(np.linalg.norm(cr, axis=1) > 1e-10 * lmax**2))
    if bad.size:
        raise ModelError(f"element {name!r}: degenerate triangles (zero area or coincident "
                         f"vertices) in elements {bad[:10].tolist()}")
    return cr, lmax


def _check_orientation(name: str, cr: np.ndarray, normal) -> None:
    if normal is None:
        return
    up = np.broadcast_to(np.asarray(normal, dtype=float), cr.shape)
    bad = np.flatnonzero(~(np.einsum("ed,ed->e", cr, up) > 0))
    if bad.size:
        raise ModelError(f"element {name!r}: clockwise (inverted) triangles "
                         f"{bad[:10].tolist()} seen from the plate normal "
                         f"{up[bad[0]].tolist()}; order the vertices counter-clockwise "
                         "(or give normal=...)")


def _flat_triangles(name: str, vertices, thickness, normal):
    """Validated vertices (n, 3, 3), unit normals ``AB × AC`` and thicknesses (n,)."""
    V = np.asarray(vertices, dtype=float)
    if V.ndim != 3 or V.shape[1:] != (3, 3):
        raise ModelError(f"element {name!r}: vertices must have shape (n_el, 3, 3), "
                         f"got {V.shape}")
    n = len(V)
    h = np.broadcast_to(np.asarray(thickness, dtype=float), (n,)).copy()
    bad = np.flatnonzero(~np.isfinite(h) | ~(h > 0))
    if bad.size:
        raise ModelError(f"element {name!r}: thickness must be finite and > 0 "
                         f"(elements {bad[:10].tolist()})")
    cr, _ = _triangle_geometry(name, V)
    _check_orientation(name, cr, normal)
    return V, cr / np.linalg.norm(cr, axis=1)[:, None], h
