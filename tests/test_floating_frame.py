"""Floating-frame link on a hub and Kane's spin-up beam (seed 002, example 1).

References, each independent of the floating-frame code:
* the same beam as ANCF cable elements of the DAE core with the hub rotation prescribed
  (geometrically exact, absolute coordinates): tip deflection histories;
* the tip stretch of a rod spinning at Ω: ρΩ²L³/3E (closed form);
* the first in-plane eigenfrequency of the spinning beam from the exact power series of
  its differential equation (``fem.references.beams.rotating_beam_frequency``, re-exported
  as ``spinup_beam.rotating_beam_frequency``), checked itself
  against the non-rotating cantilever (βL)²√(EI/ρAL⁴) and Southwell's coefficient;
* conservation of energy and angular momentum of a free hub (ρ∞ = 1);
* finite differences of the point maps and of the inertia forces (Newton tangents).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest
from fdcheck import inertia_tangents, jacobian

import fem
from fem.elements.floating_frame import FloatingFrameLink
from fem.model.chains import HubLink

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cases"))
spin = importlib.import_module("spinup_beam")

P = spin.PARAMS
RHO_A = P["rho_kgm3"] * P["area_m2"]
EI = P["E_Pa"] * P["inertia_m4"]
L = P["length_m"]


def _link(basis="bezier", n=4, coupling=True, kinematics="paper"):
    return FloatingFrameLink(L, basis, n, RHO_A, P["E_Pa"] * P["area_m2"], EI, EI,
                             GJ=100.0, polar_inertia_per_length=1e-6, coupling=coupling,
                             kinematics=kinematics)


# ------------------------------------------------------------------ references
def test_power_series_frequency_reference():
    """Ω = 0: the cantilever's 1.87510²√(EI/ρAL⁴); small Ω: in-plane ω² ≈ ω₁² + (K₁ − 1)Ω²
    with Southwell's K₁ = 1.1933 (hub radius 0) — to the 2nd order, so checked loosely."""
    w1 = 1.875104068711961**2 * np.sqrt(EI / (RHO_A * L**4))
    assert spin.rotating_beam_frequency(0.0, L, EI, RHO_A) == pytest.approx(w1, rel=1e-9)
    om = 0.3
    w = spin.rotating_beam_frequency(om, L, EI, RHO_A)
    assert w**2 == pytest.approx(w1**2 + 0.1933 * om**2, rel=1e-3)


# ------------------------------------------------------------- kinematics/tangents
@pytest.mark.parametrize("kinematics", ["paper", "fourth_order"])
def test_point_map_jacobian_and_acceleration_term(kinematics):
    model = HubLink(_link(kinematics=kinematics), hub_angle=spin.hub_motion(4.0, 15.0))
    pt = model.point(6.1)
    rng = np.random.default_rng(3)
    q = 0.05 * rng.standard_normal(model.n_dof)
    q[0] = 0.7
    v = rng.standard_normal(model.n_dof)
    h = 1e-6
    assert np.allclose(pt.jacobian(q), jacobian(pt, q, h), atol=1e-7)
    # r̈ for q̈ = 0: d/dt (J q̇) along q(t) = q + t v
    acc_fd = (pt.jacobian(q + h * v) @ v - pt.jacobian(q - h * v) @ v) / (2 * h)
    assert np.allclose(pt.acceleration_term(q, v), acc_fd, atol=1e-6)


@pytest.mark.parametrize("kinematics", ["paper", "fourth_order"])
def test_inertia_force_tangents(kinematics):
    """∂f/∂q̈ = M(q), ∂f/∂q̇ exact; ∂f/∂q without the third derivatives of r — checked
    with a state where those vanish (q̇ = 0)."""
    asm = HubLink(_link("bspline", 4, kinematics=kinematics),
                  hub_angle=spin.hub_motion(4.0, 15.0)).assemble()
    rng = np.random.default_rng(5)
    n = asm.n
    q = 0.05 * rng.standard_normal(n)
    v = rng.standard_normal(n)
    a = rng.standard_normal(n)
    f, (M, _, _) = asm.inertia_forces(q, v, a, tangent=True)
    C, Cfd, Kq0, Kfd = inertia_tangents(asm, q, v, a, 1e-6)
    assert np.allclose(C, Cfd, rtol=1e-6, atol=1e-6 * np.abs(C).max())
    assert np.allclose(M @ a, f - asm.inertia_forces(q, v, np.zeros(n))[0])
    assert np.allclose(Kq0, Kfd, rtol=1e-5, atol=1e-6 * np.abs(Kfd).max())


@pytest.mark.parametrize("kinematics", ["paper", "fourth_order"])
def test_free_hub_conserves_energy_and_angular_momentum(kinematics):
    """No drive, no gravity: kinetic + strain energy and the angular momentum about z,
    ∂T/∂θ̇ = (M(q) q̇)_θ, are invariants; with ρ∞ = 1 and h = 2 ms their drift is the
    integrator's O(h²) error."""
    model = HubLink(_link("bezier", 4, kinematics=kinematics), hub_inertia=5.0)
    v0 = np.zeros(model.n_dof)
    v0[0] = 2.0
    q0 = np.zeros(model.n_dof)
    q0[model.link.slices["y"]][:] = 0.0
    q0[1 + model.link.slices["y"].start] = 0.05         # a bent initial shape
    res = fem.simulate(model, 3.0, 2e-3, rho_inf=1.0, q0=q0, v0=v0)
    E = np.array([sum(model.energy(q, v).values()) for q, v in zip(res.q, res.v,
                                                                    strict=True)])
    Hz = np.array([(model.assemble().mass_matrix(q) @ v)[0] for q, v in zip(
        res.q, res.v, strict=True)])
    kin = np.array([model.energy(q, v)["kinetic"] for q, v in zip(res.q, res.v,
                                                                  strict=True)])
    assert np.abs(E - E[0]).max() <= 1e-4 * kin.max()
    assert np.abs(Hz - Hz[0]).max() <= 1e-6 * abs(Hz[0])
    assert np.ptp(res.q[:, 1 + model.link.slices["y"].start]) > 0.01   # it did vibrate


# ---------------------------------------------------- fourth-order kinematics
def _fit(lk, f):
    """Coefficients of the transverse functions that best fit ``f(x)`` (least squares)."""
    x = np.linspace(0.0, L, 60)
    Y, _, _ = lk.basis.bending(x)
    return np.linalg.lstsq(Y, f(x), rcond=None)[0]


def test_fourth_order_position_and_curvature_against_exact_arc_length():
    """For v = εx², w = ½εx² (exactly in the quintic Bézier space, s = v′² + w′² up to
    0.116 at the tip), by scipy quad: the axial tip position equals the series
    ``L − ∫(½s + ⅛s²)`` (1e-12) and approaches the inextensible ``∫₀ᴸ √(1 − s) dx``
    20 times closer than the seed's (the remainder ``∫s³/16 + …``); planar, the bending
    energy equals ``½EI∫ v″²(1 + ½v′²)²`` and approaches the exact
    ``½EI∫ v″²/(1 − v′²)`` likewise."""
    from scipy.integrate import quad

    eps = 0.019
    seed, fourth = _link(), _link(kinematics="fourth_order")
    b = _fit(seed, lambda x: eps * x * x)
    e = np.zeros(seed.n_coordinates)
    e[seed.slices["y"]] = b
    e[seed.slices["z"]] = 0.5 * b

    def s(x):
        return 1.25 * (2 * eps * x) ** 2

    series = L - quad(lambda x: 0.5 * s(x) + 0.125 * s(x) ** 2, 0, L, epsabs=1e-14)[0]
    exact = quad(lambda x: np.sqrt(1 - s(x)), 0, L, epsabs=1e-14)[0]
    px = [lk.local(e, [L])[0][0, 0] for lk in (seed, fourth)]
    assert px[1] == pytest.approx(series, abs=1e-12)
    assert abs(px[1] - exact) < 0.05 * abs(px[0] - exact)
    e[seed.slices["z"]] = 0.0
    k = 2 * eps
    series = quad(lambda x: 0.5 * EI * k * k * (1 + 0.5 * (k * x) ** 2) ** 2, 0, L)[0]
    exact = quad(lambda x: 0.5 * EI * k * k / (1 - (k * x) ** 2), 0, L, epsabs=1e-13)[0]
    U = [lk.strain_energy(e) for lk in (seed, fourth)]
    assert U[1] == pytest.approx(series, rel=1e-10)
    assert abs(U[1] - exact) < 0.05 * abs(U[0] - exact)


@pytest.mark.parametrize("basis,n", [("bezier", 4), ("fe", 4), ("modes", 3),
                                     ("bspline", 5)])
def test_fourth_order_derivatives_against_finite_differences(basis, n):
    """``P_e``, ``∂²p/∂e∂e = −x̂ ⊗ Q(e)`` of the quartic centre line and the elastic
    force and its tangent (nonlinear curvature) against central differences."""
    lk = _link(basis, n, kinematics="fourth_order")
    rng = np.random.default_rng(7)
    e = 0.03 * rng.standard_normal(lk.n_coordinates)
    x = [2.3, 5.0, L]
    h = 1e-6
    p, Pe, Q = lk.local(e, x)
    eye = np.eye(lk.n_coordinates)
    Pfd = np.stack([(lk.local(e + h * d, x)[0] - lk.local(e - h * d, x)[0]) / (2 * h)
                    for d in eye], axis=-1)
    assert np.abs(Pe - Pfd).max() < 1e-7 * np.abs(Pe).max()
    Qfd = -np.stack([(lk.local(e + h * d, x)[1][:, 0] - lk.local(e - h * d, x)[1][:, 0])
                     / (2 * h) for d in eye], axis=-1)
    assert np.abs(Q - Qfd).max() < 1e-6 * np.abs(Q).max()
    f, Kt = lk.elastic_forces(e, tangent=True)
    ffd = np.array([(lk.strain_energy(e + h * d) - lk.strain_energy(e - h * d)) / (2 * h)
                    for d in eye])
    assert np.abs(f - ffd).max() < 1e-6 * np.abs(f).max()
    Kfd = np.column_stack([(lk.elastic_forces(e + h * d)[0] - lk.elastic_forces(e - h * d)[0])
                           / (2 * h) for d in eye])
    assert np.abs(Kt - Kfd).max() < 1e-6 * np.abs(Kt).max()
    assert not np.allclose(Kt, lk.K)              # the tangent is not the linear K


def test_fourth_order_cantilever_tip_load_against_elastica():
    """Static cantilever (no hub motion) under a transverse dead tip load P with the linear
    tip deflection PL³/3EI = 0.1 L and 0.2 L: Newton with the elastic tangent (converges in
    a few iterations) against the elastica ``EIθ″ = −P cos θ`` (shooting, solve_ivp 1e-12).
    The seed's linear curvature is off by 1.0 % and 4.0 %; the fourth-order model by
    0.012 % and 0.16 % (its truncation error, ∝ slope⁴)."""
    from scipy.integrate import solve_ivp
    from scipy.optimize import brentq

    def elastica(load):
        def shoot(k0):
            return solve_ivp(lambda s, y: [y[1], -load / EI * np.cos(y[0]), np.sin(y[0])],
                             (0, L), [0.0, k0, 0.0], rtol=1e-12, atol=1e-12)
        return shoot(brentq(lambda k0: shoot(k0).y[1, -1], 0.0, 2 * load * L / EI)).y[2, -1]

    for basis, n in (("bezier", 4), ("fe", 10), ("bspline", 6)):
        lk = _link(basis, n, kinematics="fourth_order")
        Y, _, _ = lk.basis.bending(np.array([L]))
        for ratio, tol in ((0.1, 2e-4), (0.2, 2e-3)):
            load = 3 * EI * ratio / L**2
            F = np.zeros(lk.n_coordinates)
            F[lk.slices["y"]] = load * Y[0]
            e = np.linalg.solve(lk.K, F)
            steps = 0
            while steps < 10:
                f, Kt = lk.elastic_forces(e, tangent=True)
                de = np.linalg.solve(Kt, F - f)
                e += de
                steps += 1
                if np.abs(de).max() < 1e-12:
                    break
            assert steps <= 6, "Newton with the elastic tangent converges quadratically"
            v, ref = Y[0] @ e[lk.slices["y"]], elastica(load)
            assert abs(v - ref) < tol * ref, (basis, ratio, v, ref)
            assert abs(ratio * L - ref) > 5 * abs(v - ref)        # the seed is far off


def test_bad_input():
    with pytest.raises(fem.ModelError, match="unknown deformation basis"):
        FloatingFrameLink(L, "chebyshev", 4, RHO_A, 1.0, 1.0, 1.0)
    with pytest.raises(fem.ModelError, match="EA"):
        FloatingFrameLink(L, "bezier", 4, RHO_A, -1.0, 1.0, 1.0)
    with pytest.raises(fem.ModelError, match="free hub"):
        HubLink(_link())
    with pytest.raises(fem.ModelError, match="kinematics must be one of"):
        _link(kinematics="exact")
    with pytest.raises(fem.ModelError, match="needs coupling"):
        _link(coupling=False, kinematics="fourth_order")


# ---------------------------------------------------------------- spin-up beam
def test_spinup_bases_agree_with_ancf_omega4():
    """Ω0 = 4 rad/s over the first 12 s (the deflection peaks near 8 s): every basis
    within 1 % of the peak tip deflection of the ANCF model (16 elements), and Bézier 4
    (the validation check ``spinup_vs_ancf``'s model, which the quick suite does not run
    through ``fem validate``) within that check's 0.25 % of the peak (it measures 0.076 %
    over 20 s)."""
    kw = {"omega0_rad_s": 4.0, "t_end_s": 12.0, "dt_s": 0.01}
    ref = np.array(spin.run(basis="ancf", n_coordinates=8, **kw)["tip_v_m"])
    peak = np.abs(ref).max()
    assert 0.4 < peak < 0.7             # the seed's Fig 3: about −0.54 m
    for basis in ("modes", "fe", "bezier", "bspline"):
        v = np.array(spin.run(basis=basis, n_coordinates=4, **kw)["tip_v_m"])
        assert np.abs(v - ref).max() <= (2.5e-3 if basis == "bezier" else 0.01) * peak, basis


def test_spinup_stretch_and_frequency_after_spinup():
    """Ω0 = 4 to 30 s (ρ∞ = 1): the mean axial stretch after T within 0.1 % of ρΩ²L³/3E,
    the tip vibration frequency within 0.1 % of the rotating beam's first in-plane
    eigenfrequency (power series): the validation check ``spinup_frequency_stretch``
    itself, measured here (tests/test_validate_cli.py runs the rest of the quick set
    through ``fem validate``)."""
    from fem.validation.checks import CHECKS, run_check

    out = run_check(CHECKS["spinup_frequency_stretch"], True)
    assert out.passed, out.failures
    values = out.measurement.values
    assert set(values) == {"frequency_error_rel", "stretch_error_rel"}
    assert max(values.values()) <= 1e-3


def test_without_coupling_omega10_diverges():
    """Without the foreshortening term nothing stiffens the beam: in the hub frame the
    in-plane equation keeps only EI v'''' − ρAΩ²v, unstable once Ω exceeds the first
    bending frequency ω₁ = 2.9 rad/s.  With the coupling the same run stays bounded.
    The seed's model, its eq 2 with and without the coupling (the fourth-order
    kinematics needs the coupling)."""
    kw = {"basis": "bezier", "omega0_rad_s": 10.0, "t_end_s": 12.0, "dt_s": 0.01,
          "kinematics": "paper"}
    bad = spin.run(coupling=False, **kw)
    assert bad["diverged_at_s"] is not None and bad["diverged_at_s"] < 12.0
    assert bad["tip_v_peak_m"] > L            # far beyond any physical deflection
    good = spin.run(coupling=True, **kw)
    assert good["diverged_at_s"] is None and good["tip_v_peak_m"] < 0.2 * L


@pytest.mark.slow
def test_spinup_full_run_omega4_against_ancf():
    """Ω0 = 4 over 0–20 s: every basis within 1 % of the ANCF peak deflection."""
    kw = {"omega0_rad_s": 4.0, "t_end_s": 20.0, "dt_s": 0.005}
    ref = np.array(spin.run(basis="ancf", n_coordinates=8, **kw)["tip_v_m"])
    peak = np.abs(ref).max()
    for basis in ("modes", "fe", "bezier", "bspline"):
        v = np.array(spin.run(basis=basis, n_coordinates=spin.SEED_SIZES[basis],
                              **kw)["tip_v_m"])
        assert np.abs(v - ref).max() <= 0.01 * peak, basis


@pytest.mark.slow
def test_spinup_full_run_omega10_bases_agree():
    """Ω0 = 10 over 0–20 s: the four bases (seed sizes) within 1 % of the peak deflection
    of a converged floating-frame reference (Hermite, 16 functions, h = 2.5 ms), and the
    frequency after T within 0.5 % of the power series with 6 Bézier functions."""
    kw = {"omega0_rad_s": 10.0, "t_end_s": 20.0, "dt_s": 0.005}
    ref = spin.run(basis="fe", n_coordinates=16, **{**kw, "dt_s": 0.0025})
    vr = np.array(ref["tip_v_m"])[::2]
    peak = np.abs(vr).max()
    for basis in ("modes", "fe", "bezier", "bspline"):
        v = np.array(spin.run(basis=basis, n_coordinates=spin.SEED_SIZES[basis],
                              **kw)["tip_v_m"])
        assert np.abs(v - vr).max() <= 0.01 * peak, basis
    f = spin.run(basis="bezier", n_coordinates=6, **{**kw, "t_end_s": 30.0,
                                                      "rho_inf": 1.0})
    assert f["after_spinup_frequency_rad_s"] == pytest.approx(
        f["inplane_frequency_reference_rad_s"], rel=0.005)


@pytest.mark.slow
def test_spinup_full_run_omega10_against_ancf():
    """Ω0 = 4 and 10 over 0–20 s, h = 5 ms: with ``kinematics='fourth_order'`` every basis
    within 1 % of the ANCF peak deflection (16 elements) — the seed's sizes, but cubic
    B-splines on 4 spans (5 functions): on the seed's 3 spans their own discretization
    error at Ω0 = 10 is 0.92 % (against Hermite elements with 16 functions) and they miss
    ANCF by 1.02 %.  The seed's kinematics misses by about 3 % at Ω0 = 10 (tip deflection
    14 % of L): its linear curvature and second-order foreshortening
    (docs/floating_frame.md)."""
    sizes = {**spin.SEED_SIZES, "bspline": 5}
    for om in (4.0, 10.0):
        kw = {"omega0_rad_s": om, "t_end_s": 20.0, "dt_s": 0.005}
        ref = np.array(spin.run(basis="ancf", n_coordinates=8, **kw)["tip_v_m"])
        peak = np.abs(ref).max()
        for basis in ("modes", "fe", "bezier", "bspline"):
            v = np.array(spin.run(basis=basis, n_coordinates=sizes[basis],
                                  kinematics="fourth_order", **kw)["tip_v_m"])
            assert np.abs(v - ref).max() <= 0.01 * peak, (om, basis)
        if om == 10.0:
            v = np.array(spin.run(basis="bezier", n_coordinates=4, kinematics="paper",
                                  **kw)["tip_v_m"])
            assert np.abs(v - ref).max() > 0.02 * peak        # the seed's model


# ------------------------------------------------------------- two-link arm falling
arm = importlib.import_module("two_link_arm_fall")


def _check_chain_kinematics(model, seed: int) -> None:
    """J and ∂²r/∂q∂q of a chain's frames against central differences."""
    asm = model.assemble()
    q = model.q0 + 0.02 * np.random.default_rng(seed).standard_normal(model.n_dof)
    J, Hs = asm.kinematics(q)
    h = 1e-6
    eye = np.eye(model.n_dof)
    Jfd = np.stack([(asm.positions(q + h * e) - asm.positions(q - h * e)) / (2 * h)
                    for e in eye], axis=-1)
    Hfd = np.stack([(asm.kinematics(q + h * e)[0] - asm.kinematics(q - h * e)[0]) / (2 * h)
                    for e in eye], axis=-1)
    assert np.abs(J - Jfd).max() < 1e-7 * np.abs(J).max()
    assert np.abs(Hs - Hfd).max() < 1e-7 * np.abs(Hs).max()


def test_planar_chain_kinematics_against_finite_differences():
    """J and ∂²r/∂q∂q of the chained frames (the tip slope of link 1 turns link 2)."""
    _check_chain_kinematics(arm.build(n_coordinates=4, basis="bspline"), seed=2)


def test_planar_chain_fourth_order_kinematics_and_energy():
    """Planar chain of two fourth-order links: J and ∂²r/∂q∂q against differences, and
    the energy invariant (ρ∞ = 1) with the nonlinear elastic forces."""
    from fem.model.chains import PlanarChain

    links = [FloatingFrameLink(3.0, "bezier", 4, 20.0, 1e7, 2e3, 2e3, GJ=1e3,
                               polar_inertia_per_length=0.01, kinematics="fourth_order")
             for _ in range(2)]
    model = PlanarChain(links, [0.3, -0.5], tip_masses=[5.0, 5.0])
    _check_chain_kinematics(model, seed=4)
    res = fem.simulate(model, 0.6, 2e-3, rho_inf=1.0)
    en = [model.energy(q, v) for q, v in zip(res.q, res.v, strict=True)]
    total = np.array([sum(e.values()) for e in en])
    assert np.abs(total - total[0]).max() <= 1e-4 * max(e["kinetic"] for e in en)
    assert max(np.abs(model.tip_deflections(q)).max() for q in res.q) > 0.05   # bends


def test_two_link_arm_energy_and_rigid_limit():
    """ρ∞ = 1, h = 5 ms, 2 s of the fall: total energy drift ≤ 1e-4 of the peak kinetic
    energy (issue 10); with EA, EI × 100 the second tip follows the rigid double pendulum
    of uniform rods (independent ODE, solve_ivp 1e-11) much closer than the real arm."""
    coarse = {"t_end_s": 2.0, "dt_s": 0.005, "n_coordinates": 4}     # the former defaults
    soft = arm.run(**coarse)
    stiff = arm.run(**coarse, stiffness_factor=100.0)
    assert soft["energy_drift_rel"] <= 1e-4 and stiff["energy_drift_rel"] <= 1e-4
    assert soft["max_deflection_m"] > 5e-3                      # it does bend
    assert stiff["distance_to_rigid_m"] < 0.05 * soft["distance_to_rigid_m"]
    assert stiff["distance_to_rigid_m"] < 1e-3


def test_flexible_joints_conserve_energy():
    """Flexible revolute joints (torsional springs, joint and payload masses): the total
    of kinetic, elastic, spring and gravitational energy is invariant (ρ∞ = 1)."""
    from fem.model.chains import PlanarChain

    links = [FloatingFrameLink(3.0, "bezier", 4, 20.0, 1e7, 2e4, 2e4, GJ=1e4,
                               polar_inertia_per_length=0.01) for _ in range(2)]
    model = PlanarChain(links, [0.3, -0.5], joint_stiffness=[0.0, 2e3],
                        tip_masses=[15.0, 5.0])
    res = fem.simulate(model, 1.5, 2e-3, rho_inf=1.0)
    en = [model.energy(q, v) for q, v in zip(res.q, res.v, strict=True)]
    total = np.array([sum(e.values()) for e in en])
    kin = max(e["kinetic"] for e in en)
    assert np.abs(total - total[0]).max() <= 1e-4 * kin
    assert max(e["strain"] for e in en) > 1e-3 * kin           # the springs work
    with pytest.raises(fem.ModelError, match="tip_masses"):
        PlanarChain(links, [0.0, 0.0], tip_masses=[1.0])


def test_sampled_points_are_kept_and_never_changed():
    """``sample`` keeps the point sets asked for (a tip recorded every step was sampled
    anew each time, 40 % of the spin-up case's run); ``local`` must not alter them."""
    link = FloatingFrameLink(3.0, "bezier", 4, 20.0, 1e7, 2e3, 2e3, GJ=1e3,
                             kinematics="fourth_order")
    tip = np.array([3.0])
    s1 = link.sample(tip)
    fields = ("L1", "Q", "H", "p0", "dY", "wt", "nfull")
    before = [getattr(s1, f).copy() for f in fields]
    e = 0.05 * np.random.default_rng(1).standard_normal(link.n_coordinates)
    p, _, _ = link.local(e, tip)
    assert link.sample(tip) is s1
    for a, b in zip(before, (getattr(s1, f) for f in fields), strict=True):
        assert np.array_equal(a, b)
    fresh = FloatingFrameLink(3.0, "bezier", 4, 20.0, 1e7, 2e3, 2e3, GJ=1e3,
                              kinematics="fourth_order")
    np.testing.assert_array_equal(fresh.local(e, tip)[0], p)
    for k in range(20):                       # a bounded cache
        link.sample([0.1 * k])
    assert len(link._sample_cache) <= 16


@pytest.mark.compiled
def test_compiled_fourth_order_terms_match_numpy():
    """The compiled fourth-order foreshortening terms (issue 12) against the NumPy form,
    ≤ 1e-12 relative, through ``local`` (positions, Jacobian and ``Q``)."""
    from fem.elements.floating_frame import fourth_order_kernel

    if fourth_order_kernel() is None:
        pytest.skip("numba not available (FEM_NO_JIT or not installed)")
    link = FloatingFrameLink(3.0, "bspline", 5, 20.0, 1e7, 2e3, 2e3, GJ=1e3,
                             kinematics="fourth_order")
    e = 0.2 * np.random.default_rng(3).standard_normal(link.n_coordinates)
    for x in (None, np.array([0.7, 3.0])):
        link.use_kernel = True
        got = link.local(e, x)
        link.use_kernel = False
        ref = link.local(e, x)
        for a, b in zip(got, ref, strict=True):
            assert np.abs(a - b).max() <= 1e-12 * np.abs(b).max()
    # the coupling's products from the rule (no dense Q4) against the dense NumPy form
    rng = np.random.default_rng(5)
    xv, s = rng.standard_normal(2 * link.nb), rng.standard_normal(link.x.size)
    link.use_kernel = False
    ref = link.local_band(e)[2]
    link.use_kernel = True
    got = link.local_band(e)[2]
    assert got.rule is not None and got._Q4 is None
    m_ref, m_got = ref.mul(xv), got.mul(xv)
    assert got._Q4 is None                                  # the product formed no Q4
    assert np.abs(m_got - m_ref).max() <= 1e-12 * np.abs(m_ref).max()
    w_ref, w_got = ref.weighted_sum(s), got.weighted_sum(s)
    assert np.abs(w_got - w_ref).max() <= 1e-12 * np.abs(w_ref).max()
    assert got._Q4 is not None and np.array_equal(got.mul(xv), m_got)   # unchanged


@pytest.mark.compiled
@pytest.mark.parametrize("basis, n", [("bezier", 4), ("bspline", 5), ("modes", 4)])
def test_compiled_bending_correction_matches_numpy(basis, n):
    """Compiled nonlinear-curvature energy, gradient and Hessian (issue 12) against the
    NumPy form, ≤ 1e-12 relative, unequal EI_y and EI_z."""
    from fem.elements.floating_frame import bending_kernel

    if bending_kernel() is None:
        pytest.skip("numba not available (FEM_NO_JIT or not installed)")
    link = FloatingFrameLink(3.0, basis, n, 20.0, 1e7, 2e3, 3e3, GJ=1e3,
                             kinematics="fourth_order")
    e = 0.3 * np.random.default_rng(4).standard_normal(link.n_coordinates)
    for order in (1, 2):
        link.use_kernel = True
        got = link._bending_correction(e, order)
        link.use_kernel = False
        ref = link._bending_correction(e, order)
        assert got[0] == pytest.approx(ref[0], rel=1e-12)
        assert np.abs(got[1] - ref[1]).max() <= 1e-12 * np.abs(ref[1]).max()
        if order == 2:
            assert np.abs(got[2] - ref[2]).max() <= 1e-12 * np.abs(ref[2]).max()
        else:
            assert got[2] is None and ref[2] is None
