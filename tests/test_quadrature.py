"""Quadrature rules are exact on every monomial up to their stated degree.

References: ∫_{-1}^{1} x^k dx = (1 + (-1)^k)/(k + 1);
∫_T x^a y^b dA = a! b! / (a + b + 2)! on the unit right triangle.
"""

from math import factorial

import numpy as np
import pytest

from fem.elements import quadrature as Q


@pytest.mark.parametrize("n", range(1, 11))
def test_gauss_legendre_exact(n):
    r = Q.gauss_legendre(n)
    x, w = r.points[:, 0], r.weights
    for k in range(2 * n):
        exact = (1 + (-1) ** k) / (k + 1)
        assert abs(w @ x**k - exact) < 1e-14
    assert r.degree == 2 * n - 1


@pytest.mark.parametrize("degree", range(0, 17))
def test_triangle_exact_positive_interior(degree):
    r = Q.triangle(degree)
    x, y = r.points.T
    assert r.degree >= degree
    assert np.all(r.weights > 0)
    assert np.all(x > 0) and np.all(y > 0) and np.all(x + y < 1)
    for a in range(degree + 1):
        for b in range(degree + 1 - a):
            exact = factorial(a) * factorial(b) / factorial(a + b + 2)
            assert abs(r.weights @ (x**a * y**b) - exact) < 1e-14


def test_triangle_degree_12_available():
    assert Q.triangle(12).degree >= 12
    assert Q.lookup("triangle", 12).degree >= 12


def test_prism_and_line_section_products():
    r = Q.prism(4, 3)
    x, y, chi = r.points.T
    # ∫_T ∫_{-1}^{1} x² y χ⁴ dχ dA = (2/5) · 2!·1!/5!
    assert abs(r.weights @ (x**2 * y * chi**4) - 0.4 * 2 / 120) < 1e-15
    s = Q.line_section(3, 2)
    assert s.points.shape == (12, 3)
    assert abs(s.weights.sum() - 8.0) < 1e-14
    # ∫ x² y² z² over the cube = (2/3)³
    assert abs(s.weights @ np.prod(s.points**2, axis=1) - (2 / 3) ** 3) < 1e-14
