"""Validation of the Bézier-triangle ANCF thick plate (seed 000, eqs 1–29).

Each test names its reference next to it: a closed form, an exact identity of the
continuum (rigid motion, homogeneous strain), an independent derivation (the Bézier basis,
finite differences) or the seed's own counts.
"""

from __future__ import annotations

import numpy as np
import pytest
from fdcheck import force_tangent
from scipy.linalg import null_space
from scipy.spatial.transform import Rotation

from fem import Material, ModelError
from fem.elements import available, get
from fem.elements.bezier_plate import (
    BezierTrianglePlate,
    BezierTrianglePlateShared,
    bezier_basis,
    control_from_nodal,
    draw_grid,
    paper_continuity,
    shape_functions,
)
from fem.elements.quadrature import prism

STEEL = Material(E=2.0e11, nu=0.3, rho=7800.0)
H = 0.01


# ------------------------------------------------------------------------------ helpers
def tilted_triangles() -> np.ndarray:
    """Two general flat triangles, one tilted out of the XY plane (n_el, 3, 3)."""
    R = Rotation.from_rotvec([0.4, -0.3, 0.2]).as_matrix()
    base = np.array([[[0.0, 0.0, 0.0], [0.30, 0.02, 0.0], [0.08, 0.25, 0.0]],
                     [[0.1, 0.1, 0.0], [0.25, 0.12, 0.0], [0.05, 0.30, 0.0]]])
    base[1] = base[1] @ R.T + [0.1, 0.2, 0.3]
    return base


def square_mesh(n: int, a: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """n × n squares of side a/n in the XY plane, each split into two CCW triangles."""
    xs = np.linspace(0.0, a, n + 1)
    P = np.array([[x, y, 0.0] for y in xs for x in xs])
    cells = []
    for j in range(n):
        for i in range(n):
            n0 = j * (n + 1) + i
            n1, n2, n3 = n0 + 1, n0 + n + 1, n0 + n + 2
            cells += [[n0, n1, n3], [n0, n3, n2]] if (i + j) % 2 == 0 else \
                [[n0, n1, n2], [n1, n3, n2]]
    return P, np.array(cells)


def shared_dofs(cells: np.ndarray, n_points: int) -> np.ndarray:
    """Global scalar dof indices (n_el, 48): vertex v field f -> (5v + f), centroid e ->
    (5 n_points + e), three components each."""
    ne = len(cells)
    vec = np.empty((ne, 16), dtype=int)
    for k in range(3):
        vec[:, 5 * k:5 * k + 5] = 5 * cells[:, k:k + 1] + np.arange(5)
    vec[:, 15] = 5 * n_points + np.arange(ne)
    return (3 * vec[:, :, None] + np.arange(3)).reshape(ne, 48)


def shared_reference(P: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Global reference vector: 5 vertex fields (node_fields order), then the centroids."""
    fields = BezierTrianglePlateShared.node_fields(P)
    assert list(fields) == list(BezierTrianglePlateShared.node_layout[0])
    return np.concatenate([np.stack(list(fields.values()), axis=1).ravel(),
                           P[cells].mean(axis=1).ravel()])


def homogeneous(fam, X: np.ndarray, F: np.ndarray, d=(0.0, 0.0, 0.0)) -> np.ndarray:
    """Coordinates of r = F X + d: positions map affinely, gradient-type vectors by F."""
    t = fam.translation_pattern()
    V = X.reshape(len(X), -1, 3) @ F.T + t[None, :, None] * np.asarray(d)
    return V.reshape(X.shape)


def svk_energy_density(E: np.ndarray, mat: Material, shear_scale: float = 1.0) -> float:
    """W(E) = λ/2 (tr E)² + μ E:E, with the transverse-shear part (13, 23) scaled."""
    lam, mu = mat.lame
    W = 0.5 * lam * np.trace(E) ** 2 + mu * np.sum(E * E)
    return W - (1.0 - shear_scale) * 2.0 * mu * (E[0, 2] ** 2 + E[1, 2] ** 2)


# --------------------------------------------------------------------- shape functions
def test_registry_names():
    assert {"bezier_plate", "bezier_plate_shared"} <= set(available())
    assert get("bezier_plate") is BezierTrianglePlate
    assert get("bezier_plate_shared") is BezierTrianglePlateShared


def test_shape_functions_are_bezier_basis_times_inverse_nodal_matrix_eq15():
    # Reference: eq 14, S = G X⁻¹, with G the seed's Bézier basis (eqs 8–9) and X the
    # control-point relations (eq 12), and eq 15 as printed (typed in independently).
    rng = np.random.default_rng(3)
    xi = np.column_stack([rng.random(30) * 0.5, rng.random(30) * 0.5, rng.uniform(-1, 1, 30)])
    S = shape_functions(xi)
    assert np.allclose(bezier_basis(xi) @ control_from_nodal(), S, atol=1e-14)
    u, v, w, c = 1 - xi[:, 0] - xi[:, 1], xi[:, 0], xi[:, 1], xi[:, 2]
    eq15 = np.column_stack([
        u**3 + 3 * u**2 * v + 3 * u**2 * w - 7 * u * v * w, u**2 * v - u * v * w,
        u**2 * w - u * v * w, u * c, 0.5 * u * c**2,
        v**3 + 3 * u * v**2 + 3 * v**2 * w - 7 * u * v * w, v**2 * w - u * v * w,
        u * v**2 - u * v * w, v * c, 0.5 * v * c**2,
        w**3 + 3 * u * w**2 + 3 * v * w**2 - 7 * u * v * w, u * w**2 - u * v * w,
        v * w**2 - u * v * w, w * c, 0.5 * w * c**2, 27 * u * v * w])
    assert np.allclose(S, eq15, atol=1e-14)


def test_shape_function_derivatives_match_finite_differences():
    rng = np.random.default_rng(4)
    xi = np.column_stack([rng.random(10) * 0.5, rng.random(10) * 0.5, rng.uniform(-1, 1, 10)])
    _, dS = shape_functions(xi, deriv=True)
    for a in range(3):
        e = np.zeros(3)
        e[a] = 1e-6
        fd = (shape_functions(xi + e) - shape_functions(xi - e)) / 2e-6
        assert np.abs(fd - dS[:, a]).max() < 1e-8


def test_reference_coordinates_reproduce_the_flat_prism():
    # r(ξ) must be the affine map of the reference triangle plus (h/2) χ n̂ (eqs 3–4).
    V = tilted_triangles()
    X = BezierTrianglePlate.reference_coordinates(V, H)
    el = BezierTrianglePlate(X, STEEL, thickness=H)
    xi = np.array([[0.2, 0.3, -1.0], [0.5, 0.1, 0.4], [0.0, 1.0, 1.0]])
    r = el.positions(X, xi)
    n = np.cross(V[:, 1] - V[:, 0], V[:, 2] - V[:, 0])
    n /= np.linalg.norm(n, axis=1)[:, None]
    expect = (V[:, None, 0] + xi[None, :, :1] * (V[:, None, 1] - V[:, None, 0])
              + xi[None, :, 1:2] * (V[:, None, 2] - V[:, None, 0])
              + 0.5 * H * xi[None, :, 2:3] * n[:, None])
    assert np.allclose(r, expect, atol=1e-15)


# ------------------------------------------------------------------------------ inertia
@pytest.mark.parametrize("fam", [BezierTrianglePlate, BezierTrianglePlateShared])
def test_mass_matrix_reproduces_mass_and_moments_of_the_prism(fam):
    # Reference: triangle × thickness closed forms, m = ρAh,  ∫X dV = m c,
    # ∫X Xᵀ dV = ρh A/12 (Σ P_k P_kᵀ + 9 c cᵀ) + ρA h³/12 n̂ n̂ᵀ.
    V = tilted_triangles()
    el = fam(fam.reference_coordinates(V, H), STEEL, thickness=H, normal=None)
    m = el.mass_scalar()
    t = fam.translation_pattern()
    Xc = el.X.reshape(len(V), 16, 3)
    for e in range(len(V)):
        cr = np.cross(V[e, 1] - V[e, 0], V[e, 2] - V[e, 0])
        A = 0.5 * np.linalg.norm(cr)
        nh = cr / (2 * A)
        c = V[e].mean(axis=0)
        mass = STEEL.rho * A * H
        second = (STEEL.rho * H * A / 12 * (V[e].T @ V[e] + 9 * np.outer(c, c))
                  + STEEL.rho * A * H**3 / 12 * np.outer(nh, nh))
        assert t @ m[e] @ t == pytest.approx(mass, rel=1e-13)
        assert np.allclose(t @ m[e] @ Xc[e], mass * c, rtol=1e-13, atol=1e-16)
        assert np.allclose(Xc[e].T @ m[e] @ Xc[e], second, rtol=1e-12, atol=1e-18)
    assert np.allclose(m, np.swapaxes(m, 1, 2))
    assert np.all(np.linalg.eigvalsh(m) > 0)


@pytest.mark.parametrize("fam", [BezierTrianglePlate, BezierTrianglePlateShared])
def test_shape_integral_gives_area_and_first_moment(fam):
    V = tilted_triangles()
    el = fam(fam.reference_coordinates(V, H), STEEL, thickness=H, normal=None)
    si = el.shape_integral()
    area = 0.5 * np.linalg.norm(np.cross(V[:, 1] - V[:, 0], V[:, 2] - V[:, 0]), axis=1)
    assert np.allclose(si @ fam.translation_pattern(), area, rtol=1e-13)
    first = np.einsum("ek,ekd->ed", si, el.X.reshape(len(V), 16, 3))
    assert np.allclose(first, area[:, None] * V.mean(axis=1), rtol=1e-12)


# ------------------------------------------------------------------- elastic invariants
@pytest.mark.parametrize("fam", [BezierTrianglePlate, BezierTrianglePlateShared])
def test_rigid_motions_give_zero_force_and_energy(fam):
    # Reference: Green–Lagrange strain vanishes for r = R X + d exactly.
    V = tilted_triangles()
    X = fam.reference_coordinates(V, H)
    el = fam(X, STEEL, thickness=H, normal=None)
    scale = STEEL.E * H * 0.3  # force of unit strain over the element size
    for R in (np.eye(3), Rotation.from_rotvec([0.3, 1.1, -0.7]).as_matrix(),
              Rotation.from_rotvec([np.pi * 0.9, 0.0, 0.2]).as_matrix()):
        q = homogeneous(fam, X, R, d=np.array([0.5, -1.0, 2.0]))
        f, _ = el.forces(q)
        assert np.abs(f).max() < 1e-12 * scale
        assert np.all(np.abs(el.energy(q)) < 1e-20 * STEEL.E * H)


@pytest.mark.parametrize("shear", [1.0, "auto"])
@pytest.mark.parametrize("fam", [BezierTrianglePlate, BezierTrianglePlateShared])
def test_homogeneous_deformation_gives_exact_svk_energy(fam, shear):
    # Reference: r = F X makes E = ½(FᵀF − I) uniform; U = W(E) · volume, with the
    # transverse shear (13, 23) scaled by the element's shear factor.
    P, cells = square_mesh(2)
    V = P[cells] @ Rotation.from_rotvec([0.0, 0.0, 0.3]).as_matrix().T
    X = fam.reference_coordinates(V, H)
    el = fam(X, STEEL, thickness=H, shear_factor=shear)
    F = np.array([[1.05, 0.03, -0.02], [0.01, 0.97, 0.04], [0.06, -0.03, 1.02]])
    E = 0.5 * (F.T @ F - np.eye(3))
    U = el.energy(homogeneous(fam, X, F))
    expect = np.array([svk_energy_density(E, STEEL, s) for s in el.shear_factor]) * el.volume
    assert np.allclose(el.volume, 0.25 * 0.5 * H, rtol=1e-14)
    assert np.allclose(U, expect, rtol=1e-12)


@pytest.mark.parametrize("shear", [1.0, "auto"])
def test_patch_of_shared_elements_has_no_interior_forces_under_uniform_plane_stress(shear):
    # Reference: a uniform stress with traction-free top and bottom faces (S₁₃ = S₂₃ = S₃₃
    # = 0) is self-equilibrated; with conforming (shared) vertex data the assembled forces
    # at interior vertices (all their fields) and at the centroids vanish.  The in-plane
    # stretch is finite, E₃₃ = −λ/(λ + 2μ)(E₁₁ + E₂₂) frees the faces, and a finite rotation
    # is superposed.
    P, cells = square_mesh(3)
    P[5, :2] += [0.04, -0.03]   # distort the interior vertices: a true patch test
    P[10, :2] += [-0.02, 0.05]
    el = BezierTrianglePlateShared.from_mesh(P, cells, STEEL, H, shear_factor=shear)
    dofs = shared_dofs(cells, len(P))
    q0 = shared_reference(P, cells)
    Fin = np.array([[1.03, 0.02], [-0.01, 0.98]])
    Ein = 0.5 * (Fin.T @ Fin - np.eye(2))
    lam, mu = STEEL.lame
    F = np.eye(3)
    F[:2, :2] = Fin
    F[2, 2] = np.sqrt(1.0 - 2.0 * lam / (lam + 2 * mu) * np.trace(Ein))
    F = Rotation.from_rotvec([0.2, -0.5, 0.9]).as_matrix() @ F
    f, _ = el.forces(homogeneous(BezierTrianglePlateShared, q0[dofs], F))
    g = np.zeros(len(q0))
    np.add.at(g, dofs, f)
    boundary = (np.isclose(P[:, 0], 0) | np.isclose(P[:, 0], 1)
                | np.isclose(P[:, 1], 0) | np.isclose(P[:, 1], 1))
    interior = np.concatenate([np.arange(15 * v, 15 * v + 15) for v in np.flatnonzero(~boundary)]
                              + [np.arange(15 * len(P), len(q0))])
    assert np.abs(g).max() > 1e6
    assert np.abs(g[interior]).max() < 1e-10 * np.abs(g).max()


@pytest.mark.parametrize("h", [0.1, 0.001])
def test_stiffness_has_exactly_the_six_rigid_body_modes(h):
    # Reference: a single free element has 6 zero-energy modes (3 translations, 3 rotations);
    # any more would be spurious (a rule of degree < 4 leaves 13).
    X = BezierTrianglePlate.reference_coordinates(tilted_triangles()[:1], h)
    _, K = BezierTrianglePlate(X, STEEL, thickness=h).forces(X, tangent=True)
    w = np.linalg.eigvalsh(K[0])
    assert np.sum(np.abs(w) < 1e-14 * w.max()) == 6
    assert w.min() > -1e-14 * w.max()


@pytest.mark.parametrize("fam", [BezierTrianglePlate, BezierTrianglePlateShared])
def test_tangent_matches_central_differences_and_force_is_energy_gradient(fam):
    rng = np.random.default_rng(7)
    V = tilted_triangles()
    X = fam.reference_coordinates(V, H)
    el = fam(X, STEEL, thickness=H, normal=None)
    F = Rotation.from_rotvec([0.5, -0.2, 0.8]).as_matrix() @ (np.eye(3) + 0.05 * rng.random((3, 3)))
    q = homogeneous(fam, X, F) + 0.01 * rng.standard_normal(X.shape) * np.abs(X).max()
    f, K = el.forces(q, tangent=True)
    Kfd = force_tangent(el, q, 1e-7)
    assert np.abs(K - Kfd).max() < 1e-6 * np.abs(K).max()
    assert np.abs(K - np.swapaxes(K, 1, 2)).max() < 1e-12 * np.abs(K).max()
    g = np.zeros_like(q)
    for j in range(el.n_dof):
        dq = np.zeros_like(q)
        dq[:, j] = 1e-7
        g[:, j] = (el.energy(q + dq) - el.energy(q - dq)) / 2e-7
    assert np.abs(g - f).max() < 1e-6 * np.abs(f).max()


def test_shared_family_equals_48_coordinate_family_for_the_same_state():
    # Reference: the shared layout is a linear change of coordinates e = (M ⊗ I₃) q, so
    # U is the same, f_shared = Mᵀ f₄₈ and K_shared = Mᵀ K₄₈ M (M = plate_map).
    rng = np.random.default_rng(11)
    P, cells = square_mesh(2)
    sh = BezierTrianglePlateShared.from_mesh(P, cells, STEEL, H)
    dofs = shared_dofs(cells, len(P))
    q0 = shared_reference(P, cells)
    q = (q0 + 0.02 * rng.standard_normal(q0.shape))[dofs]
    pl = BezierTrianglePlate(sh.to_plate_coordinates(sh.X), STEEL, thickness=H)
    assert np.allclose(pl.X, BezierTrianglePlate.reference_coordinates(P[cells], H))
    q48 = sh.to_plate_coordinates(q)
    fs, Ks = sh.forces(q, tangent=True)
    f48, K48 = pl.forces(q48, tangent=True)
    M3 = np.einsum("ekl,ij->ekilj", sh.plate_map, np.eye(3)).reshape(len(cells), 48, 48)
    assert np.allclose(sh.energy(q), pl.energy(q48), rtol=1e-12)
    assert np.allclose(fs, np.einsum("ekl,ek->el", M3, f48), rtol=1e-11, atol=1e-9)
    assert np.allclose(Ks, np.swapaxes(M3, 1, 2) @ K48 @ M3, rtol=1e-10,
                       atol=1e-12 * np.abs(Ks).max())
    assert np.allclose(sh.positions(q, [[0.2, 0.3, 0.5]]), pl.positions(q48, [[0.2, 0.3, 0.5]]))


# --------------------------------------------------------------------- bending, locking
def _bend_strip(kappa: float, n: int = 4, fix_r_nn: bool = False, **opt):
    """Cylindrical bending of a unit square (h = 1 mm): the mid-surface on an arc of
    curvature kappa about Y, vertex gradients of the Kirchhoff–Love field; the thickness
    terms r_nn and the centroids relax (Newton on the energy).  Returns (U / U_Kirchhoff,
    element, state)."""
    h, mat = 1e-3, Material(1.0e7, 0.3, 1.0)
    P, cells = square_mesh(n)
    el = BezierTrianglePlateShared.from_mesh(P, cells, mat, h, **opt)
    nv, ne = len(P), len(cells)

    def arc(x, y):
        return np.column_stack([np.sin(kappa * x) / kappa, y, (1 - np.cos(kappa * x)) / kappa])

    x = P[:, 0]
    fields = np.stack([arc(x, P[:, 1]),
                       np.column_stack([np.cos(kappa * x), 0 * x, np.sin(kappa * x)]),
                       np.tile([0.0, 1.0, 0.0], (nv, 1)),
                       np.column_stack([-np.sin(kappa * x), 0 * x, np.cos(kappa * x)]),
                       np.zeros((nv, 3))], axis=1)
    c = P[cells].mean(axis=1)
    q = np.concatenate([fields.ravel(), arc(c[:, 0], c[:, 1]).ravel()])
    dofs = shared_dofs(cells, nv)
    free = [np.arange(15 * nv, 15 * nv + 3 * ne)]
    if not fix_r_nn:
        free += [np.arange(15 * v + 12, 15 * v + 15) for v in range(nv)]
    free = np.concatenate(free)
    for _ in range(8):
        f, K = el.forces(q[dofs], tangent=True)
        g = np.zeros(len(q))
        np.add.at(g, dofs, f)
        Kg = np.zeros((len(q), len(q)))
        np.add.at(Kg, (dofs[:, :, None], dofs[:, None, :]), K)
        dq = np.linalg.solve(Kg[np.ix_(free, free)], -g[free])
        q[free] += dq
        if np.abs(dq).max() < 1e-15:
            break
    D = mat.E * h**3 / (12 * (1 - mat.nu**2))
    return el.energy(q[dofs]).sum() / (0.5 * D * kappa**2), el, q[dofs]


def test_pure_bending_gives_kirchhoff_energy():
    # Reference: cylindrical bending U = ½ D κ² A, D = E h³ / 12(1 − ν²).  Small κ: the only
    # deviations are O((κh)², (κL)²) ≈ 1e-8, hence 1e-6.
    ratio, el, q = _bend_strip(1e-3)
    assert ratio == pytest.approx(1.0, abs=1e-6)
    # Strains at the bottom, middle and top layers of an element centre (χ = −1, 0, 1):
    # E₁₁ = ±κh/2 (global X is local t₁ here: the element's edge AB runs along X),
    # plane stress through the thickness: E₃₃ = −ν/(1 − ν) E₁₁, S₃₃ ≈ 0.
    s = el.strains(q, [[1 / 3, 1 / 3, -1.0], [1 / 3, 1 / 3, 0.0], [1 / 3, 1 / 3, 1.0]])
    E11 = s["E_global"][0, :, 0, 0]
    kh2 = 1e-3 * 1e-3 / 2
    assert np.allclose(E11, [kh2, 0.0, -kh2], atol=1e-3 * kh2)
    assert np.allclose(s["E"][0, :, 2, 2], -0.3 / 0.7 * E11, atol=1e-3 * kh2)
    assert np.abs(s["S"][0, :, 2, 2]).max() < 1e-3 * 1e7 * kh2


def test_poisson_locking_without_the_r_chichi_term():
    # Reference: with r_χχ held at zero the thickness strain cannot vary through χ and the
    # bending stiffness becomes the plane-strain one: ratio (1 − ν)² / (1 − 2ν) = 1.225.
    ratio, _, _ = _bend_strip(1e-3, fix_r_nn=True)
    assert ratio == pytest.approx(0.7**2 / 0.4, rel=1e-5)


def test_large_rotation_bending_is_free_of_thickness_locking():
    # κ = 0.8 bends the unit strip through 46°; the Hermite-cubic edges approximate the arc
    # with an O((κℓ)²) error (0.66 % at ℓ = 0.25, 0.17 % at ℓ = 0.125), hence 1 %.
    ratio, _, _ = _bend_strip(0.8)
    assert ratio == pytest.approx(1.0, abs=0.01)


def test_thin_clamped_plate_is_not_locked():
    # Reference: clamped square, uniform pressure, Kirchhoff w_c = 0.00126532 p a⁴ / D.
    # a/h = 1000 on 8 × 8 × 2 elements: the shear factor keeps the error at a few %, the
    # plain continuum (shear_factor=1) locks to about 70 % on this mesh.
    a, h, p = 1.0, 1e-3, 1.0
    mat = Material(1.0e7, 0.3, 1.0)
    P, cells = square_mesh(8, a)
    dofs = shared_dofs(cells, len(P))
    q0 = shared_reference(P, cells)
    boundary = np.flatnonzero(np.isclose(P[:, 0], 0) | np.isclose(P[:, 0], a)
                              | np.isclose(P[:, 1], 0) | np.isclose(P[:, 1], a))
    fixed = np.concatenate([np.arange(15 * v, 15 * v + 12) for v in boundary])
    free = np.setdiff1d(np.arange(len(q0)), fixed)
    centre = np.flatnonzero(np.isclose(P[:, 0], a / 2) & np.isclose(P[:, 1], a / 2))[0]
    D = mat.E * h**3 / (12 * (1 - mat.nu**2))
    out = []
    for shear in ("auto", 1.0):
        el = BezierTrianglePlateShared.from_mesh(P, cells, mat, h, shear_factor=shear)
        _, K = el.forces(q0[dofs], tangent=True)
        Kg = np.zeros((len(q0), len(q0)))
        np.add.at(Kg, (dofs[:, :, None], dofs[:, None, :]), K)
        fz = np.zeros(len(q0))
        np.add.at(fz, dofs[:, 2::3], -p * el.shape_integral())
        u = np.zeros(len(q0))
        u[free] = np.linalg.solve(Kg[np.ix_(free, free)], fz[free])
        out.append(-u[15 * centre + 2] / (0.00126532 * p * a**4 / D))
    assert out[0] == pytest.approx(1.0, abs=0.03)
    assert out[1] < 0.8


# -------------------------------------------------------------- seed continuity (eqs 17–29)
def test_paper_constraints_on_the_hexagon_equal_shared_family_plus_middle_g1_row():
    # Reference: the seed counts 183 independent continuity equations for the six-element
    # hexagon (288 − 183 = 105 free coordinates).  The shared family (7 × 15 + 6 × 3 = 123
    # coordinates) plus the middle row of eq 29 on the 6 interior edges spans the same
    # subspace of element coordinates; the outer rows of eq 29 vanish identically.
    ri = 0.09
    ang = np.deg2rad(30 + 60 * np.arange(6))
    hexv = ri / np.cos(np.pi / 6) * np.column_stack([np.cos(ang), np.sin(ang), 0 * ang])
    P = np.vstack([np.zeros(3), hexv])
    cells = np.array([[0, 1 + i, 1 + (i + 1) % 6] for i in range(6)])
    # element i: edge 1 (C→A) = V_{i+1}→P;  element i+1: edge 2 (A→B) = P→V_{i+1}
    c = np.kron(paper_continuity(1, 2), np.eye(3))   # (33, 96) for one adjacent pair
    C = np.zeros((6 * 33, 288))
    for i in range(6):
        j = (i + 1) % 6
        C[33 * i:33 * i + 33, 48 * i:48 * i + 48] += c[:, :48]
        C[33 * i:33 * i + 33, 48 * j:48 * j + 48] += c[:, 48:]
    assert np.linalg.matrix_rank(C) == 183

    el = BezierTrianglePlateShared.from_mesh(P, cells, STEEL, 0.006)
    dofs = shared_dofs(cells, len(P))
    n_sh = 15 * len(P) + 18
    G = np.zeros((288, n_sh))                 # element 48-coordinates from shared ones
    for e in range(6):
        M3 = np.kron(el.plate_map[e], np.eye(3))
        G[48 * e:48 * e + 48][:, dofs[e]] += M3
    rows = []
    for i in range(6):
        j = (i + 1) % 6
        row = np.zeros((33, n_sh))
        np.add.at(row, (slice(None), dofs[i]), c[:, :48] @ np.kron(el.plate_map[i], np.eye(3)))
        np.add.at(row, (slice(None), dofs[j]), c[:, 48:] @ np.kron(el.plate_map[j], np.eye(3)))
        assert np.abs(row[:24]).max() < 1e-12        # G⁰ rows: satisfied by sharing
        assert np.abs(row[[24, 25, 26, 30, 31, 32]]).max() < 1e-12   # outer G¹ rows
        rows.append(row[27:30])                      # middle G¹ row
    Z = G @ null_space(np.vstack(rows))
    assert Z.shape[1] == 105
    assert np.abs(C @ Z).max() < 1e-12 * np.abs(C).max() * np.abs(Z).max()


# ------------------------------------------------------------------------ post-processing
def test_draw_grid_covers_the_reference_triangle_counter_clockwise():
    pts, tris = draw_grid(5)
    assert pts.shape == (21, 3) and tris.shape == (25, 3)
    a = pts[tris]
    area = 0.5 * np.cross(a[:, 1] - a[:, 0], a[:, 2] - a[:, 0])[:, 2]
    assert np.all(area > 0) and area.sum() == pytest.approx(0.5)
    el = BezierTrianglePlate(BezierTrianglePlate.reference_coordinates(tilted_triangles(), H),
                             STEEL, thickness=H)
    assert np.array_equal(el.draw_points(5), pts) and np.array_equal(el.draw_triangles(5), tris)


def test_strain_output_is_the_strain_of_the_energy():
    # Reference: U = Σ_q w_q det J₀ W(E_q) with E_q from strains() at the rule points and the
    # physical SVK law (shear_factor = 1): output and forces use the same strain.
    rng = np.random.default_rng(5)
    X = BezierTrianglePlate.reference_coordinates(tilted_triangles(), H)
    el = BezierTrianglePlate(X, STEEL, thickness=H, shear_factor=1.0)
    q = X + 2e-3 * rng.standard_normal(X.shape)
    rule = prism(4, 3)
    s = el.strains(q, rule.points)
    W = 0.5 * np.einsum("epij,epij->ep", s["E"], s["S"])
    U = el.volume * (W @ rule.weights) / rule.weights.sum()    # flat: det J₀ is constant
    assert np.allclose(U, el.energy(q), rtol=1e-12)
    assert np.allclose(s["E_global"], s["frame"] @ s["E"] @ np.swapaxes(s["frame"], -1, -2))


# ------------------------------------------------------------------------------ bad input
def test_bad_input_raises_model_error_naming_the_elements():
    V = tilted_triangles()
    X = BezierTrianglePlate.reference_coordinates(V, H)
    with pytest.raises(ModelError, match="thickness"):
        BezierTrianglePlate(X, STEEL)
    with pytest.raises(ModelError, match=r"thickness must be finite and > 0 \(elements \[1\]"):
        BezierTrianglePlate(X, STEEL, thickness=[H, -H])
    with pytest.raises(ModelError, match="material"):
        BezierTrianglePlate(X, None, thickness=H)
    with pytest.raises(ModelError, match="thickness/2"):
        BezierTrianglePlate(X, STEEL, thickness=2 * H)
    with pytest.raises(ModelError, match="shape"):
        BezierTrianglePlate(X[:, :45], STEEL, thickness=H)
    with pytest.raises(ModelError, match="triangle_degree"):
        BezierTrianglePlate(X, STEEL, thickness=H, triangle_degree=2)
    with pytest.raises(ModelError, match="shear_factor"):
        BezierTrianglePlate(X, STEEL, thickness=H, shear_factor="reduced")
    bad = V.copy()
    bad[1, 2] = 0.5 * (bad[1, 0] + bad[1, 1])            # collinear vertices
    with pytest.raises(ModelError, match=r"degenerate .* \[1\]"):
        BezierTrianglePlate.reference_coordinates(bad, H)
    flipped = X.reshape(2, 16, 3).copy()
    flipped[0, [3, 8, 13]] *= -1.0                      # thickness direction reversed
    with pytest.raises(ModelError, match=r"inverted elements \[0\]"):
        BezierTrianglePlate(flipped.reshape(2, 48), STEEL, thickness=H)
    P, cells = square_mesh(2)
    cw = cells.copy()
    cw[3] = cw[3, ::-1]
    with pytest.raises(ModelError, match=r"clockwise .*\[3\]"):
        BezierTrianglePlate.reference_coordinates(P[cw], H, normal=(0, 0, 1))
    with pytest.raises(ModelError, match=r"clockwise .*\[3\]"):
        BezierTrianglePlateShared.from_mesh(P, cw, STEEL, H)
    el = BezierTrianglePlate(X, STEEL, thickness=H)
    with pytest.raises(ModelError, match="coordinates must have shape"):
        el.forces(X[:1])


def _kernel_mesh(mesh: str, element: str, thickness_ans: bool):
    """``(model, group, q)``: a mesh of ``element`` and a perturbed state of the model, for
    the compiled kernels' checks (skipped without numba)."""
    import fem
    from fem.elements import kernels

    if not kernels.available():
        pytest.skip("numba not available (FEM_NO_JIT or not installed)")
    m = fem.Model()
    grp = m.add_mesh(fem.load_builtin_mesh(mesh), element, Material(6.9e8, 0.3, 1000.0),
                     thickness=0.006, thickness_ans=thickness_ans)
    rng = np.random.default_rng(7)
    return m, grp, m.q0 + 2e-3 * rng.standard_normal(m.n_dof)


@pytest.mark.compiled
@pytest.mark.parametrize("element", ["bezier_plate", "bezier_plate_shared"])
@pytest.mark.parametrize("thickness_ans", [True, False])
def test_compiled_kernel_matches_the_numpy_reference(element, thickness_ans):
    # issue 12: the numba kernel and the NumPy form agree to round-off (forces, tangent)
    _, grp, q = _kernel_mesh("hexagon_24", element, thickness_ans)
    fam, q = grp.family, q[grp.dofs]
    f_ref, K_ref = fam.forces_numpy(q, tangent=True)
    f, K = fam.forces(q, tangent=True)
    assert np.abs(f - f_ref).max() <= 1e-12 * np.abs(f_ref).max()
    assert np.abs(K - K_ref).max() <= 1e-12 * np.abs(K_ref).max()
    f2, K2 = fam.forces(q)
    assert K2 is None and np.abs(f2 - f).max() <= 1e-14 * np.abs(f).max()


@pytest.mark.compiled
@pytest.mark.parametrize("element", ["bezier_plate", "bezier_plate_shared"])
@pytest.mark.parametrize("thickness_ans", [True, False])
def test_group_forces_kernel_is_the_familys_forces_in_the_groups_dofs(element, thickness_ans):
    # issue 23: the plate's declaration for the compiled Newton loop
    # (ElementFamily.compiled_forces → kernels.group_forces, gathering and scattering with
    # the group's dofs) gives the global forces of the assembly's path (add_forces:
    # forces of q[dofs] summed with np.bincount) and the element tangents in those dofs,
    # here to the bit (the same kernel, summed in the same order)
    from fem.elements import kernels

    m, grp, q = _kernel_mesh("hexagon_6", element, thickness_ans)
    fam = grp.family
    f_ref = np.zeros(m.n_dof)
    K_ref = fam.add_forces(q, None, grp.dofs, f_ref, True)
    kind, arrays3, arrays2 = fam.compiled_forces()
    assert kind == kernels.KIND_PLATE
    dofs = np.ascontiguousarray(grp.dofs, dtype=np.int64)
    f, K = np.zeros(m.n_dof), np.empty_like(K_ref)
    kernels.group_forces(kind, q, dofs, arrays3, arrays2, f, K, True)
    assert np.abs(f - f_ref).max() <= 1e-12 * np.abs(f_ref).max()
    assert np.abs(K - K_ref).max() <= 1e-12 * np.abs(K_ref).max()
    f2 = np.zeros(m.n_dof)
    kernels.group_forces(kind, q, dofs, arrays3, arrays2, f2, np.empty((0, 1, 1)), False)
    np.testing.assert_array_equal(f2, f)
    fam.use_kernel = False
    assert fam.compiled_forces() is None
