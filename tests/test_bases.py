"""Deformation bases of the floating-frame link (seed 002, eqs 4–33).

References: clamp conditions, derivatives against central differences, the foreshortening
integrals against adaptive quadrature (scipy.integrate.quad), the clamped–free eigenvalues
βL of the beam (tabulated), and Ritz solutions of a cantilever under uniform load and of a
rod under uniform axial load against the closed forms qL⁴/8EI and pL²/2EA.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import quad

import fem
from fem import bases
from fem.bases.modes import cantilever_eigenvalues

L = 8.0
CASES = [("modes", 4), ("fe", 4), ("bezier", 4), ("bspline", 4), ("bspline", 7), ("fe", 8)]


def test_registry_lists_the_four_bases():
    assert set(bases.available()) >= {"modes", "fe", "bezier", "bspline"}
    with pytest.raises(fem.ModelError, match="unknown deformation basis 'spline'"):
        bases.get("spline")
    with pytest.raises(fem.ModelError, match="even"):
        bases.get("fe")(L, 3)
    with pytest.raises(fem.ModelError):
        bases.get("bezier")(-1.0, 4)


@pytest.mark.parametrize("name,n", CASES)
def test_clamped_at_the_root_and_derivatives(name, n):
    B = bases.get(name)(L, n)
    X, dX = B.axial(np.zeros(1))
    Y, dY, _ = B.bending(np.zeros(1))
    assert np.abs(X).max() < 1e-14 and np.abs(Y).max() < 1e-14 and np.abs(dY).max() < 1e-12
    # central differences away from the knots (h = 1e-5: truncation ~1e-10 relative)
    x = np.array([0.37, 2.9, 5.13, 7.71]) * L / 8.0
    h = 1e-5
    Xp, _ = B.axial(x + h)
    Xm, _ = B.axial(x - h)
    _, dX = B.axial(x)
    assert np.allclose((Xp - Xm) / (2 * h), dX, rtol=1e-6, atol=1e-7)
    Yp, dYp, _ = B.bending(x + h)
    Ym, dYm, _ = B.bending(x - h)
    _, dY, d2Y = B.bending(x)
    scale = np.abs(d2Y).max()
    assert np.abs((Yp - Ym) / (2 * h) - dY).max() < 1e-7 * max(np.abs(dY).max(), 1)
    assert np.abs((dYp - dYm) / (2 * h) - d2Y).max() < 1e-6 * scale


@pytest.mark.parametrize("name,n", CASES)
def test_foreshortening_integrals_against_adaptive_quadrature(name, n):
    """H_kl(x) = ∫₀ˣ Y_k′ Y_l′ dξ (eq 3) at a point between knots and at the tip."""
    B = bases.get(name)(L, n)
    x = np.array([3.3, L])
    H = bases.foreshortening(B, x)
    assert np.allclose(H, np.swapaxes(H, 1, 2))
    for k, l in [(0, 0), (0, n - 1), (n - 1, n - 1)]:
        for i, xe in enumerate(x):
            ref = quad(lambda s: B.bending(np.array([s]))[1][0, k]  # noqa: B023
                       * B.bending(np.array([s]))[1][0, l], 0.0, xe,  # noqa: B023
                       points=B.breakpoints[1:-1], limit=200, epsabs=1e-13)[0]
            assert H[i, k, l] == pytest.approx(ref, rel=1e-9, abs=1e-12)


def test_cantilever_eigenvalues():
    """βL of the clamped–free beam (e.g. Blevins, Table 8-1)."""
    ref = [1.875104068711961, 4.694091132974175, 7.854757438237613, 10.99554073487547]
    assert np.allclose(cantilever_eigenvalues(4), ref, rtol=1e-12)


@pytest.mark.parametrize("name,n,tol", [("modes", 4, 2e-3), ("fe", 4, 1e-12),
                                        ("bezier", 4, 1e-12), ("bspline", 4, 5e-3)])
def test_ritz_cantilever_under_uniform_load(name, n, tol):
    """Tip deflection under a uniform load q: qL⁴/8EI.  Exact for the quintic Bézier
    (the solution is a quartic) and for Hermite elements (nodally exact); the modes and the
    cubic B-splines converge to it."""
    B = bases.get(name)(L, n)
    x, w = B.quadrature()
    Y, dY, d2Y = B.bending(x)
    EI, q = 566.7, 2.0
    K = EI * np.einsum("p,pi,pj->ij", w, d2Y, d2Y)
    f = q * (w @ Y)
    b = np.linalg.solve(K, f)
    tip = B.bending(np.array([L]))[0][0] @ b
    assert tip == pytest.approx(q * L**4 / (8 * EI), rel=tol)


@pytest.mark.parametrize("name,n,tol", [("modes", 4, 1e-2), ("fe", 4, 1e-12),
                                        ("bezier", 4, 1e-12), ("bspline", 4, 1e-12)])
def test_ritz_rod_under_uniform_axial_load(name, n, tol):
    """Tip stretch of a rod clamped at 0 under a uniform axial load p: pL²/2EA (quadratic:
    exact in every polynomial basis; linear elements are nodally exact)."""
    B = bases.get(name)(L, n)
    x, w = B.quadrature()
    X, dX = B.axial(x)
    EA, p = 5.03e6, 3.0
    a = np.linalg.solve(EA * np.einsum("p,pi,pj->ij", w, dX, dX), p * (w @ X))
    tip = B.axial(np.array([L]))[0][0] @ a
    assert tip == pytest.approx(p * L**2 / (2 * EA), rel=tol)


@pytest.mark.parametrize("n", [4, 12, 20])
def test_cantilever_modes_are_orthogonal_to_high_order(n):
    """The clamped–free modes ``Y_k = cosh − cos − σ (sinh − sin)`` satisfy
    ``∫₀ᴸ Y_i Y_j dx = L δ_ij`` and ``∫₀ᴸ Y_i″ Y_j″ dx = β_i⁴ L δ_ij``, and the free end
    ``Y″(L) = 0`` — up to the 20th mode (βL ≈ 61), where a naive evaluation of
    ``cosh βx − σ sinh βx`` loses every digit.  Checked with the basis' own quadrature
    and with a fine composite rule (12 Gauss points on 4n + 1 pieces)."""
    B = bases.get("modes")(L, n)
    beta4 = B.beta**4
    fine = bases.gauss_rule(np.linspace(0.0, L, 4 * n + 2), 12)
    for x, w in (fine, B.quadrature()):
        Y, _, d2Y = B.bending(x)
        M = np.einsum("p,pi,pj->ij", w, Y, Y)
        K = np.einsum("p,pi,pj->ij", w, d2Y, d2Y)
        assert np.abs(M - L * np.eye(n)).max() < 1e-9 * L
        assert np.abs(K / np.sqrt(np.outer(beta4, beta4)) - L * np.eye(n)).max() < 1e-9 * L
    _, _, d2Y = B.bending(np.array([L]))
    assert np.abs(d2Y[0] / B.beta**2).max() < 1e-10
