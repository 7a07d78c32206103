"""fem.references: the reference solutions against independent facts.

Textbook values (Blevins' clamped–free constants and frequency ratios, the Navier square
plate of Timoshenko & Woinowsky-Krieger, Leissa's simply supported square), quadratures of
the unit-load method, a plain scalar evaluation of the rotating-beam power series, and the
small-oscillation limit of the double pendulum.
"""

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq

from fem.references import beams, pendulums, plates

# Kane's spin-up beam (seed 002): EI, ρA, L
EI = 6.8952e10 * 8.2189e-9
RHO_A = 2766.7 * 7.2968e-5
L = 8.0


# ----------------------------------------------------------------------------- beams
def test_clamped_free_constants():
    beta = beams.clamped_free_beta_l(5)
    np.testing.assert_allclose(beta[:3], beams.BETA_L, rtol=1e-13)
    np.testing.assert_allclose(beta[3:], [10.995540734875467, 14.137168391046470],
                               rtol=1e-12)
    assert np.all(np.abs(1 + np.cos(beta) * np.cosh(beta)) < 1e-6 * np.cosh(beta))


def test_cantilever_frequency_ratios():
    f = beams.cantilever_frequencies(2.0, 1.0e3, 3.0, 4)
    # Blevins (1979), Table 8-1: f_n / f_1 = 6.267, 17.55, 34.39
    np.testing.assert_allclose(f[1:] / f[0], [6.267, 17.55, 34.39], rtol=1e-3)
    assert f[0] == pytest.approx(3.516 / (2 * np.pi) * np.sqrt(1.0e3 / (3.0 * 2.0**4)),
                                 rel=1e-5)


def test_cantilever_tip_deflection_by_unit_load():
    """w(L) = ∫ M m / EI dx + ∫ V v / kGA dx with the unit tip load m = L − x, v = 1."""
    length, ei, kga, q, force = 1.7, 2.3e4, 5.1e6, 120.0, -40.0

    def moment(x):
        return q * (length - x) ** 2 / 2 + force * (length - x)

    def shear(x):
        return q * (length - x) + force

    bend = quad(lambda x: moment(x) * (length - x) / ei, 0, length)[0]
    sh = quad(lambda x: shear(x) / kga, 0, length)[0]
    assert beams.cantilever_tip_deflection(length, ei, q, force) == pytest.approx(bend,
                                                                                  rel=1e-12)
    assert beams.cantilever_tip_deflection(length, ei, q, force, kGA=kga) == pytest.approx(
        bend + sh, rel=1e-12)


def test_rod_frequencies_and_spinning_stretch():
    c = np.sqrt(2.1e11 / 7850)
    f = beams.fixed_free_rod_frequencies(2.0, c, 3)
    # clamped–free rod: cos(ωL/c) = 0
    np.testing.assert_allclose(np.cos(2 * np.pi * f * 2.0 / c), 0.0, atol=1e-12)
    np.testing.assert_allclose(f / f[0], [1, 3, 5])
    om, E, rho = 4.0, 6.8952e10, 2766.7
    u = quad(lambda x: rho * om**2 * (L**2 - x**2) / 2 / E, 0, L)[0]
    assert beams.rotating_rod_stretch(om, L, E, rho) == pytest.approx(u, rel=1e-12)


def test_rotating_beam_at_rest_is_the_cantilever():
    w0 = beams.rotating_beam_frequency(0.0, L, EI, RHO_A)
    assert w0 == pytest.approx(3.516 * np.sqrt(EI / (RHO_A * L**4)), rel=1e-5)
    assert w0 == pytest.approx(beams.BETA_L[0] ** 2 * np.sqrt(EI / (RHO_A * L**4)),
                               rel=1e-10)


def _scalar_determinant(w, omega, length, ei, rho_a, n_terms=400):
    """The series of rotating_beam_frequency, one frequency and one column at a time in
    plain Python floats, the sums exactly rounded (math.fsum)."""
    a = rho_a * omega**2 * length**4 / (2 * ei)
    b = rho_a * (omega**2 + w * w) * length**4 / ei
    cols = []
    for c2, c3 in ((1.0, 0.0), (0.0, 1.0)):
        c = [0.0, 0.0, c2, c3] + [0.0] * n_terms
        for k in range(n_terms):
            c[k + 4] = (a * ((k + 2) * (k + 1) * c[k + 2] - k * (k + 1) * c[k])
                        + b * c[k]) / ((k + 1) * (k + 2) * (k + 3) * (k + 4))
        cols.append((math.fsum(n * (n - 1) * cn for n, cn in enumerate(c)),
                     math.fsum(n * (n - 1) * (n - 2) * cn for n, cn in enumerate(c))))
    return cols[0][0] * cols[1][1] - cols[0][1] * cols[1][0]


@pytest.mark.parametrize("omega", [2.0, 6.0])
def test_rotating_beam_vectorized_equals_scalar_series(omega):
    w = beams.rotating_beam_frequency(omega, L, EI, RHO_A)
    w1 = 3.516 * np.sqrt(EI / (RHO_A * L**4))
    # the first root: no sign change of the scalar determinant below the bracket
    lo = np.linspace(1e-3, 0.95 * w, 40)
    d = [_scalar_determinant(x, omega, L, EI, RHO_A) for x in lo]
    assert np.all(np.sign(d) == np.sign(d[0]))
    ref = brentq(_scalar_determinant, 0.95 * w, min(1.05 * w, 3 * w1 + 2 * omega),
                 args=(omega, L, EI, RHO_A), xtol=1e-13)
    assert w == pytest.approx(ref, rel=1e-10)
    assert w > beams.rotating_beam_frequency(0.0, L, EI, RHO_A)   # centrifugal stiffening


# ---------------------------------------------------------------------------- plates
def test_navier_square_plate():
    D = plates.flexural_rigidity(2.1e11, 0.3, 0.01)
    # Timoshenko & Woinowsky-Krieger (1959), Table 8: w_max = 0.00406 q a⁴ / D
    assert plates.navier_center_deflection(1.0, 1.0, 1.0, D) * D == pytest.approx(
        0.00406, abs=5e-6)
    # scaling: w ∝ q a⁴ / D
    assert plates.navier_center_deflection(2.0, 2.0, 3.0, D) == pytest.approx(
        3 * 16 * plates.navier_center_deflection(1.0, 1.0, 1.0, D), rel=1e-12)
    # Leissa (1969), ch. 4: ω a² √(ρh/D) = 19.739, 49.348 (×2), 78.957 for the square
    f, mn = plates.navier_frequencies(1.0, 1.0, D, 7850 * 0.01, 4)
    lam = 2 * np.pi * f / np.sqrt(D / (7850 * 0.01))
    np.testing.assert_allclose(lam, [19.739, 49.348, 49.348, 78.957], rtol=1e-4)
    assert mn[0] == (1, 1) and mn[3] == (2, 2)


# ------------------------------------------------------------------------- pendulums
def test_double_pendulum_small_oscillation():
    """A negligible second mass: link 1 is a compound pendulum, ω² = m g c / (m c² + J)."""
    m, length, g, eps = 2.0, 0.9, 9.81, 1e-3
    J = m * length**2 / 12
    t = np.linspace(0.0, 2.0, 101)
    th = pendulums.double_pendulum_angles(t, m, 1e-9, length, 0.5, J, 1e-10, g,
                                          theta0=(-np.pi / 2 + eps, -np.pi / 2))
    w = np.sqrt(m * g * (length / 2) / (m * (length / 2) ** 2 + J))
    np.testing.assert_allclose(th[:, 0] + np.pi / 2, eps * np.cos(w * t), atol=1e-3 * eps)


def test_rod_pendulum_is_the_compound_one():
    t = np.linspace(0.0, 2.0, 201)
    length, m = 7.11, 314.88
    th = pendulums.double_pendulum_angles(t, m, m, length, length, m * length**2 / 12,
                                          m * length**2 / 12, 9.81, theta0=(0.2, -0.1))
    tip = length * np.column_stack([np.cos(th).sum(axis=1), np.sin(th).sum(axis=1)])
    np.testing.assert_allclose(pendulums.rod_double_pendulum_tip(t, length, 9.81, (0.2, -0.1)),
                               tip, atol=1e-8)


# ------------------------------------------------------------------------------ import
def test_import_fem_does_not_load_references():
    code = ("import sys, fem; assert 'fem.references' not in sys.modules; "
            "import fem.references; assert 'fem.references.beams' not in sys.modules; "
            "assert 'scipy' not in sys.modules; "
            "fem.references.beams.rotating_beam_frequency; "
            "assert 'fem.references.beams' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
