"""Linear frame element against Euler–Bernoulli closed forms.

References are computed here from the characteristic equations of the continuous beam
(roots by bracketing), never from the element itself:
cantilever ``cos λ cosh λ = -1``, clamped–clamped ``cos λ cosh λ = 1``, hinged–hinged
``λ = nπ``, hinged–clamped ``tan λ = tanh λ``, cantilever with a tip mass ratio μ
``1 + cos λ cosh λ + μ λ (cos λ sinh λ - sin λ cosh λ) = 0``; axial bar clamped–free
``f = (2n-1)/(4L) √(E/ρ)``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

import fem
from fem.reduction.frames import Frame, circle, rectangle

E, RHO, L = 2.0e11, 7800.0, 1.5
SEC = rectangle(0.03, 0.05, wall=0.004)


def _roots(fun, n=3, lo=0.5, hi=20.0):
    grid = np.linspace(lo, hi, 4000)
    vals = fun(grid)
    out = []
    for a, b, fa, fb in zip(grid[:-1], grid[1:], vals[:-1], vals[1:], strict=True):
        if np.sign(fa) != np.sign(fb) and abs(fa) < 1e3 and abs(fb) < 1e3:
            out.append(brentq(fun, a, b, xtol=1e-14))
        if len(out) == n:
            break
    return np.array(out)


CHAR = {
    "cantilever": lambda x: np.cos(x) * np.cosh(x) + 1,
    "clamped-clamped": lambda x: np.cos(x) * np.cosh(x) - 1,
    "hinged-hinged": lambda x: np.sin(x),
    "hinged-clamped": lambda x: np.sin(x) * np.cosh(x) - np.cos(x) * np.sinh(x),
}


def _beam(kind, n_el=20, angle=0.0, use_release=False):
    fr = Frame("xz")
    c, s = np.cos(angle), np.sin(angle)
    a = fr.add_node(0.0, 0.0)
    b = fr.add_node(L * c, L * s)
    fr.add_member(a, b, E, RHO, SEC, n_elements=n_el,
                  hinge_i=use_release and kind.startswith("hinged"))
    if kind == "cantilever":
        fr.fix(a)
    elif kind == "clamped-clamped":
        fr.fix(a)
        fr.fix(b)
    elif kind == "hinged-hinged":
        fr.fix(a, ("x", "z"))
        fr.fix(b, ("x", "z"))
    elif kind == "hinged-clamped":
        fr.fix(a, None if use_release else ("x", "z"))
        fr.fix(b)
    return fr, a, b


def _bending(fr, res):
    """Frequencies of modes whose translations are mostly transverse to the beam axis."""
    axis = fr.nodes[-1] - fr.nodes[0]
    axis = axis[[0, 2]] / np.linalg.norm(axis)
    sh = res.shapes.reshape(len(fr.nodes), 3, -1)[:, :2]
    along = np.abs(np.einsum("i,nik->nk", axis, sh)).sum(0)
    across = np.abs(sh).sum((0, 1)) - along
    return res.frequencies_hz[across > along]


@pytest.mark.parametrize("kind", list(CHAR))
@pytest.mark.parametrize("angle", [0.0, 0.7])
def test_single_beam_bending_frequencies_match_closed_form(kind, angle):
    lam = _roots(CHAR[kind])
    f_ref = lam**2 / L**2 * np.sqrt(E * SEC["iy"] / (RHO * SEC["area"])) / (2 * np.pi)
    fr, _, _ = _beam(kind, angle=angle)
    f = _bending(fr, fr.modes(8))[:3]
    np.testing.assert_allclose(f, f_ref, rtol=1e-3)


def test_hinge_release_equals_pin_support():
    lam = _roots(CHAR["hinged-clamped"])
    f_ref = lam**2 / L**2 * np.sqrt(E * SEC["iy"] / (RHO * SEC["area"])) / (2 * np.pi)
    fr, _, _ = _beam("hinged-clamped", use_release=True)
    np.testing.assert_allclose(_bending(fr, fr.modes(6))[:3], f_ref, rtol=1e-3)


@pytest.mark.parametrize("mu", [0.5, 2.0])
def test_cantilever_with_tip_mass_matches_transcendental_equation(mu):
    def char(x):
        return (1 + np.cos(x) * np.cosh(x)
                + mu * x * (np.cos(x) * np.sinh(x) - np.sin(x) * np.cosh(x)))

    lam = _roots(char, n=3, lo=0.3)
    f_ref = lam**2 / L**2 * np.sqrt(E * SEC["iy"] / (RHO * SEC["area"])) / (2 * np.pi)
    fr, _, b = _beam("cantilever")
    fr.add_mass(b, mu * RHO * SEC["area"] * L)
    np.testing.assert_allclose(_bending(fr, fr.modes(8))[:3], f_ref, rtol=1e-3)


def test_clamped_bar_axial_frequencies():
    fr, _, _ = _beam("cantilever", n_el=40)
    res = fr.modes(30)
    sh = res.shapes.reshape(len(fr.nodes), 3, -1)
    axial = np.abs(sh[:, 0]).sum(0) > np.abs(sh[:, 1]).sum(0)
    f_ref = (2 * np.arange(1, 3) - 1) / (4 * L) * np.sqrt(E / RHO)
    np.testing.assert_allclose(res.frequencies_hz[axial][:2], f_ref, rtol=1e-3)


def test_spatial_frame_bending_both_planes_and_torsion():
    """3D cantilever along a skew axis: bending about both principal axes and the
    torsion frequency (2n-1)/(4L) √(GJ/ρ Ip) of the clamped–free shaft."""
    sec = rectangle(0.03, 0.05)
    fr = Frame(None)
    d = np.array([1.0, 2.0, 0.5])
    d /= np.linalg.norm(d)
    a = fr.add_node(0, 0, 0)
    b = fr.add_node(*(L * d))
    fr.add_member(a, b, E, RHO, sec, n_elements=30, orientation=(0, 0, 1))
    fr.fix(a)
    f = fr.modes(12).frequencies_hz
    lam = _roots(CHAR["cantilever"], n=2)
    fy = lam**2 / L**2 * np.sqrt(E * sec["iy"] / (RHO * sec["area"])) / (2 * np.pi)
    fz = lam**2 / L**2 * np.sqrt(E * sec["iz"] / (RHO * sec["area"])) / (2 * np.pi)
    G = E / 2.6
    ft = np.sqrt(G * sec["j"] / (RHO * (sec["iy"] + sec["iz"]))) / (4 * L)
    for ref in (*fy, *fz, ft):
        assert np.min(np.abs(f / ref - 1)) < 1e-3, (ref, f)


def test_sections_closed_forms():
    s = rectangle(0.1, 0.1, wall=0.005)
    assert s["area"] == pytest.approx(0.1**2 - 0.09**2)
    assert s["iy"] == pytest.approx((0.1**4 - 0.09**4) / 12)
    assert s["j"] == pytest.approx(2 * 0.005 * 0.095**4 / 0.19)   # Bredt 4A²t/s
    c = circle(0.1, wall=0.01)
    assert c["iy"] == pytest.approx(np.pi * (0.1**4 - 0.08**4) / 64)
    assert circle(0.1)["j"] == pytest.approx(np.pi * 0.1**4 / 32)


@pytest.mark.parametrize("bad", [
    lambda: rectangle(0.05, 0.05, wall=0.03),
    lambda: circle(-1.0),
    lambda: Frame("xy"),
    lambda: Frame().add_node(1.0, 2.0, 3.0),
    lambda: _beam("cantilever")[0].fix(0, ("rz",)),
    lambda: _beam("cantilever")[0].add_member(0, 0, E, RHO, SEC),
    lambda: _beam("cantilever")[0].add_member(0, 99, E, RHO, SEC),
    lambda: _beam("cantilever")[0].add_member(0, 1, -E, RHO, SEC),
    lambda: _beam("cantilever")[0].add_member(0, 1, E, RHO, {"area": 1.0}),
    lambda: _beam("cantilever")[0].add_mass(1, 0.0),
])
def test_bad_input_raises_model_error(bad):
    with pytest.raises(fem.ModelError):
        bad()


def test_frame_json_round_trip():
    fr, _, b = _beam("hinged-clamped", use_release=True)
    fr.add_mass(b, 1.0)
    f0 = fr.modes(4).frequencies_hz
    f1 = Frame.from_dict(fr.to_dict(f0)).modes(4).frequencies_hz
    np.testing.assert_allclose(f1, f0, rtol=1e-12)
