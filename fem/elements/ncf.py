"""Natural-coordinate (NCF) rigid bodies: bar, triangular lamina, general body.

Natural coordinates describe a rigid body by global points and unit vectors fixed to it,
so the mass matrix is constant and there are no velocity-dependent inertia forces; the
price is a few quadratic rigidity constraints.

* ``rigid_bar`` — two end points; uniform slender rod, ``M = [[m/3, m/6], [m/6, m/3]] ⊗ I₃``
  (Liu et al. 2023 eq 31, Liu et al. 2018); length kept by one distance constraint.  Rotation about
  the rod axis is not represented (zero inertia about it).
* ``rigid_triangle`` — three vertices of a uniform triangular lamina; ``m/6`` diagonal and
  ``m/12`` off-diagonal blocks (Liu et al. 2018 eq 6); three distance constraints.
* ``rigid_body`` — a reference point ``r`` and three vectors ``u, v, w`` fixed to the body
  (usually the body axes).  A body point with body coordinates ``x̄`` is at
  ``r + x̄₁ u + x̄₂ v + x̄₃ w``, so with ``S = [I, x̄₁I, x̄₂I, x̄₃I]``
  ``M = ∫ρ SᵀS dV = J ⊗ I₃`` with ``J = [[m, m c̄ᵀ], [m c̄, Ĵ]]``, ``c̄`` the centre of
  mass and ``Ĵ = ∫ρ x̄x̄ᵀ dV = ½ tr(I_c) 𝟙 − I_c + m c̄c̄ᵀ`` (``I_c`` the inertia tensor
  about the centre of mass, in the body frame).  Six dot-product constraints keep the
  vectors' lengths and mutual angles.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import ModelError
from . import ElementFamily, register


def _per_element(value, n: int, what: str, family: str) -> np.ndarray:
    arr = np.broadcast_to(np.asarray(value, dtype=float), (n,)).copy()
    if np.any(~np.isfinite(arr)) or np.any(arr < 0):
        bad = np.flatnonzero(~np.isfinite(arr) | (arr < 0))
        raise ModelError(f"element {family!r}: {what} must be finite and ≥ 0 "
                         f"(elements {bad[:10].tolist()})")
    return arr


def _masses(fam: ElementFamily, measure: np.ndarray) -> np.ndarray:
    """Element masses from ``mass=`` or from ``material.rho × area × length``."""
    n = fam.n_elements
    if "mass" in fam.section:
        return _per_element(fam.section["mass"], n, "mass", fam.name)
    if fam.material is not None:
        factor = fam.section.get("area", fam.section.get("thickness", 1.0))
        return _per_element(fam.material.rho * factor * measure, n, "mass", fam.name)
    raise ModelError(f"element {fam.name!r}: give mass=... (kg) or a material with density")


@register("rigid_bar")
class RigidBar(ElementFamily):
    """Rigid slender rod between two points (natural coordinates)."""

    cell = "line"
    node_layout = (("r",), ("r",))
    elastic = False
    section_keys = ("mass", "area", "thickness")
    section_rules = {"mass": "nonnegative", "area": "positive", "thickness": "positive"}

    def __init__(self, X, material=None, **section):
        super().__init__(X, material, **section)
        d = self.X[:, 3:6] - self.X[:, 0:3]
        self.length = np.linalg.norm(d, axis=1)
        bad = np.flatnonzero(self.length <= 1e-12 * max(1.0, np.abs(self.X).max()))
        if bad.size:
            raise ModelError(f"element 'rigid_bar': zero length in elements {bad[:10].tolist()}")
        self.m = _masses(self, self.length)

    def shape(self, xi):
        s = 0.5 * (np.asarray(xi, dtype=float)[:, 0] + 1.0)  # xi in [-1, 1]
        N = np.stack([1.0 - s, s], axis=-1)
        return np.broadcast_to(N, (self.n_elements, *N.shape))

    def draw_points(self):
        return np.array([[-1.0], [1.0]])

    def mass_scalar(self):
        base = np.array([[1 / 3, 1 / 6], [1 / 6, 1 / 3]])
        return self.m[:, None, None] * base

    def shape_integral(self):
        return 0.5 * self.length[:, None] * np.ones((1, 2))

    def internal_constraints(self):
        d = [(0, -1.0), (1, 1.0)]
        return [("dot", d, d)]


@register("rigid_triangle")
class RigidTriangle(ElementFamily):
    """Rigid uniform triangular lamina described by its three vertices."""

    cell = "triangle"
    drawing = "surface"
    node_layout = (("r",), ("r",), ("r",))
    elastic = False
    section_keys = ("mass", "area", "thickness")
    section_rules = {"mass": "nonnegative", "area": "positive", "thickness": "positive"}

    def __init__(self, X, material=None, **section):
        super().__init__(X, material, **section)
        P = self.X.reshape(-1, 3, 3)
        self.area = 0.5 * np.linalg.norm(np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0]), axis=1)
        bad = np.flatnonzero(self.area <= 1e-14 * max(1.0, np.abs(self.X).max()) ** 2)
        if bad.size:
            raise ModelError(f"element 'rigid_triangle': degenerate (zero-area) triangles "
                             f"{bad[:10].tolist()}")
        self.m = _masses(self, self.area)

    def shape(self, xi):
        xi = np.asarray(xi, dtype=float)
        N = np.stack([1.0 - xi[:, 0] - xi[:, 1], xi[:, 0], xi[:, 1]], axis=-1)
        return np.broadcast_to(N, (self.n_elements, *N.shape))

    def draw_points(self):
        return np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])

    def draw_triangles(self):
        return np.array([[0, 1, 2]])

    def mass_scalar(self):
        base = np.full((3, 3), 1 / 12) + np.eye(3) * (1 / 6 - 1 / 12)
        return self.m[:, None, None] * base

    def shape_integral(self):
        return self.area[:, None] * np.full((1, 3), 1 / 3)

    def internal_constraints(self):
        out = []
        for i, j in ((0, 1), (1, 2), (2, 0)):
            d = [(i, -1.0), (j, 1.0)]
            out.append(("dot", d, d))
        return out


@register("rigid_body")
class RigidBody(ElementFamily):
    """General rigid body: point ``r`` and three body-fixed vectors ``u, v, w``.

    Section data: ``mass`` (kg), ``com`` (3, body frame, relative to ``r``),
    ``inertia`` (3×3 about the centre of mass, body frame) — each per body or shared.
    Body coordinates are measured along ``u, v, w`` as given in the reference state
    (unit orthogonal vectors make them Cartesian).
    """

    cell = "body"
    drawing = "sketch"
    node_layout = (("r", "u", "v", "w"),)
    elastic = False
    section_keys = ("mass", "com", "inertia")
    section_rules = {"mass": "nonnegative", "com": "vector3", "inertia": "tensor33"}

    def __init__(self, X, material=None, **section):
        super().__init__(X, material, **section)
        n = self.n_elements
        self.m = _per_element(section.get("mass", 0.0), n, "mass", self.name)
        self.com = np.broadcast_to(np.asarray(section.get("com", np.zeros(3)), float),
                                   (n, 3)).copy()
        Ic = np.broadcast_to(np.asarray(section.get("inertia", np.zeros((3, 3))), float),
                             (n, 3, 3)).copy()
        if not np.allclose(Ic, np.swapaxes(Ic, 1, 2)):
            raise ModelError("element 'rigid_body': inertia tensor must be symmetric")
        ev = np.linalg.eigvalsh(Ic)
        tr = np.trace(Ic, axis1=1, axis2=2)
        # principal moments must be ≥ 0 and satisfy the triangle inequality I1 ≤ I2 + I3
        tol = 1e-12 * np.maximum(tr, 1e-300)
        bad = np.flatnonzero((ev[:, 0] < -tol) | (2 * ev[:, 2] > tr + tol))
        if bad.size:
            raise ModelError(f"element 'rigid_body': inertia tensor of bodies {bad[:10].tolist()} "
                             "is not physical (negative moment or I_max > I_mid + I_min)")
        self.inertia = Ic
        B = self.X.reshape(n, 4, 3)[:, 1:]
        det = np.linalg.det(B)
        bad = np.flatnonzero(np.abs(det) < 1e-12)
        if bad.size:
            raise ModelError(f"element 'rigid_body': vectors u, v, w of bodies {bad[:10].tolist()} "
                             "are (nearly) linearly dependent")

    def shape(self, xi):
        xi = np.asarray(xi, dtype=float)
        N = np.column_stack([np.ones(len(xi)), xi[:, 0], xi[:, 1], xi[:, 2]])
        return np.broadcast_to(N, (self.n_elements, *N.shape))

    def draw_points(self):
        return np.zeros((1, 3))

    def mass_scalar(self):
        n = self.n_elements
        m, c = self.m, self.com
        J2 = (0.5 * np.trace(self.inertia, axis1=1, axis2=2)[:, None, None] * np.eye(3)
              - self.inertia + m[:, None, None] * np.einsum("ei,ej->eij", c, c))
        J = np.empty((n, 4, 4))
        J[:, 0, 0] = m
        J[:, 0, 1:] = m[:, None] * c
        J[:, 1:, 0] = m[:, None] * c
        J[:, 1:, 1:] = J2
        return J

    def internal_constraints(self):
        out = []
        for i, j in ((1, 1), (2, 2), (3, 3), (1, 2), (1, 3), (2, 3)):
            out.append(("dot", [(i, 1.0)], [(j, 1.0)]))
        return out
