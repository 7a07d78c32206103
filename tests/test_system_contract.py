"""One system for every body: the solver contract and floating-frame bodies in the DAE core.

* Every kind of model — ANCF cable, NCF mechanism, plate robot, hub link, planar and
  spatial chains, floating-frame bodies in the constrained core and in a closed loop —
  assembles into a :class:`fem.assembly.system.System`, and every solver either runs on it or
  refuses with a :class:`fem.ModelError` / :class:`fem.ConvergenceError` that says why:
  no ``AttributeError``/``TypeError`` reaches a user.
* The same chain built both ways (minimal coordinates, :mod:`fem.model.chains`; floating-frame
  bodies and joints in the DAE core, ``to_model``) is the same system: equal elastic
  accelerations at any state (round-off), and equal motion to 1e-8 when the time step is
  fine enough that neither integration error matters (generalized-α is not invariant
  under a change of coordinates: at a coarse step the two differ by O(h²), measured).
* Point maps: Jacobians and second derivatives of floating-frame points and section
  directions against central differences; the general constraint rows' ``γ`` against the
  second time derivative of ``Φ`` along a motion.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import fem
from fem.assembly.system import System, conforms
from fem.bodies.floating_frame import axis_rotation
from fem.core.errors import ConvergenceError, ModelError
from fem.elements.floating_frame import FloatingFrameLink
from fem.model.chains import HubLink, PlanarChain, dh_chain
from fem.solvers.dynamic import consistent_initial_state

CASES = Path(__file__).resolve().parents[1] / "cases"


def _case(name):
    spec = importlib.util.spec_from_file_location(name, CASES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _link(n=4, basis="bezier", kinematics="paper", L=2.0):
    return FloatingFrameLink(L, basis, n, 5.0, 1e6, 2e3, 2e3, GJ=1e3,
                             polar_inertia_per_length=0.05, kinematics=kinematics)


def _ff_pendulum(rotary_inertia="section"):
    """One floating-frame link pinned about z at the origin, under gravity."""
    m = fem.Model("ff_pendulum", gravity=(0.0, -9.81, 0.0))
    b = m.add_floating_frame("link", _link(), rotary_inertia=rotary_inertia)
    m.spherical(b.origin, m.ground((0, 0, 0)))
    m.add_constraint(fem.Dot(b.axis(2), m.ground((1, 0, 0)), 0.0, name="axis x"))
    m.add_constraint(fem.Dot(b.axis(2), m.ground((0, 1, 0)), 0.0, name="axis y"))
    return m


def _ff_four_bar():
    """A closed loop: a driven rigid crank, a floating-frame coupler and a rigid rocker
    (planar, z axes), the coupler's deformed tip pinned to the rocker."""
    m = fem.Model("ff_four_bar", gravity=(0.0, -9.81, 0.0))
    crank = m.add_rigid_body("crank", 1.0, (0, 0, 0), com=(0.25, 0, 0),
                             inertia=np.diag([1e-3, 0.02, 0.02]))
    rocker = m.add_rigid_body("rocker", 1.0, (2.0, 0, 0), rotation=None, com=(0, 0.3, 0),
                              inertia=np.diag([0.03, 1e-3, 0.03]))
    lk = _link(L=np.hypot(2.0 - 0.5, 0.8))
    ang = np.arctan2(0.8, 1.5)
    R = np.array([[np.cos(ang), -np.sin(ang), 0], [np.sin(ang), np.cos(ang), 0], [0, 0, 1]])
    cp = m.add_floating_frame("coupler", lk, (0.5, 0, 0), R)
    for b, at in ((crank, (0, 0, 0)), (rocker, (2.0, 0, 0))):
        m.spherical(b.origin, m.ground(at), name=f"{b.name} pivot")
        m.add_constraint(fem.Dot(b.axis(2), m.ground((1, 0, 0)), 0.0, f"{b.name} ⊥ x"))
        m.add_constraint(fem.Dot(b.axis(2), m.ground((0, 1, 0)), 0.0, f"{b.name} ⊥ y"))
    m.spherical(cp.origin, crank.point((0.5, 0, 0)), name="crank pin")
    m.add_constraint(fem.Dot(cp.axis(2), crank.axis(0), 0.0, "crank pin ⊥ u"))
    m.add_constraint(fem.Dot(cp.axis(2), crank.axis(1), 0.0, "crank pin ⊥ v"))
    m.add_constraint(fem.Coincident(cp.point(lk.length), rocker.point((0, 0.8, 0)),
                                    name="rocker pin", components=(0, 1)))
    m.add_constraint(fem.AngleDrive(crank.origin, crank.point((1, 0, 0)), (0, 0, 1),
                                    (1, 0, 0), lambda t: (2.0 * t, 2.0, 0.0), "crank drive"))
    return m


def _models():
    cable = _case("cantilever_cable").build(n_elements=4)
    pend = _case("double_pendulum").build()
    robot = _case("parallel_robot_flexible_platform").build(mesh="hexagon_6")
    spin = _case("spinup_beam").build(t_end_s=0.1)
    planar = PlanarChain([_link(), _link()], [0.3, -0.5], gravity=(0, -9.81, 0),
                         tip_masses=[1.0, 2.0])
    spatial = dh_chain([[0, 0, np.pi / 2], [0, 0, 0]], 2.0, 10.0, 1e6, 2e3, 2e3, 1e3,
                       angles=[0.0, 0.3])
    damped_cable = _case("cantilever_cable").build(n_elements=4)
    damped_cable.add_damping(damped_cable.groups[0], 1e-3, kind="strain_rate")
    damped_ff = _ff_pendulum()
    damped_ff.add_modal_damping(damped_ff.nonlinear_bodies[0], 0.05)
    return {"ancf_cable": cable, "ancf_cable_strain_rate_damping": damped_cable,
            "ff_pendulum_modal_damping": damped_ff,
            "ncf_mechanism": pend, "plate_robot": robot,
            "hub_link": spin, "planar_chain": planar, "spatial_chain": spatial,
            "ff_pendulum": _ff_pendulum(), "ff_closed_loop": _ff_four_bar(),
            "ff_hub_link": spin.to_model(), "ff_spatial_chain": spatial.to_model()}


MODELS = _models()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_model_assembles_into_the_contract(name):
    asm = MODELS[name].assemble()
    assert isinstance(asm, System)
    assert conforms(asm) == []


OK = (ModelError, ConvergenceError)


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("solver", ["static", "modes", "dynamic", "projection", "rigid",
                                    "inverse"])
def test_every_solver_on_every_model_runs_or_says_why(name, solver):
    model = MODELS[name]
    try:
        if solver == "static":
            st = fem.solve_static(model, load_steps=1, tol=1e-8)
            assert np.all(np.isfinite(st.q))
        elif solver == "modes":
            md = fem.modes(model, n_modes=3)
            assert np.all(np.isfinite(md.frequencies_hz))
        elif solver == "inverse":
            asm = model.assemble()
            res = fem.driven_inverse_dynamics(model, [0.0, 0.01])
            assert res.q.shape == (2, asm.n)
        else:
            corr = {"dynamic": "none"}.get(solver, solver)
            res = fem.simulate(model, 0.006, 0.002, correction=corr)
            assert np.all(np.isfinite(res.q[-1]))
    except OK as err:
        assert str(err)          # refused with a message, not a traceback from inside


def test_modes_says_which_argument_is_the_state():
    with pytest.raises(ModelError, match="n_modes=3"):
        fem.modes(MODELS["planar_chain"], 3)


# ---------------------------------------------------------------- same system both ways
def _spatial_chain():
    """Three links with every D-H offset, a tilted base and tip masses."""
    return dh_chain([[0.1, 0.05, np.pi / 2], [0.2, 0.3, 0.4], [0.0, 0.1, -0.3]], 2.0, 10.0,
                    1e6, 2e3, 3e3, 1e3, angles=[0.1, 0.3, -0.2], tip_masses=[0.5, 0.0, 1.0],
                    kinematics="fourth_order", base=axis_rotation(1, 0.3)[0])


@pytest.mark.parametrize("kind", ["planar", "hub", "spatial"])
def test_chain_and_dae_bodies_give_the_same_accelerations(kind):
    if kind == "spatial":
        ch = _spatial_chain()
    elif kind == "planar":
        ch = PlanarChain([_link(), _link(kinematics="fourth_order")], [0.3, -0.5],
                         gravity=(0, -9.81, 0), tip_masses=[1.0, 2.0])
    else:
        ch = HubLink(_link(), hub_angle=lambda t: (0.2 * t * t, 0.4 * t, 0.4), hub_inertia=0.0,
                     gravity=(0.0, -9.81, 0.0))
    m = ch.to_model()
    rng = np.random.default_rng(1)
    q = ch.q0 + 0.01 * rng.standard_normal(ch.n_dof)
    v = 0.3 * rng.standard_normal(ch.n_dof)
    if kind == "hub":
        q[0], v[0] = 0.2, 0.4
    q, v, a1, _ = consistent_initial_state(ch, q, v, t0=1.0)
    Q, V = ch.dae_state(m, q, v)
    _, _, a2, _ = consistent_initial_state(m, Q, V, t0=1.0)
    dofs = [np.arange(1, ch.n_dof)] if kind == "hub" else ch.elastic_dofs
    for b, d in zip(m.nonlinear_bodies, dofs, strict=True):
        scale = np.abs(a1[d]).max()
        assert np.abs(a2[b.elastic_dofs] - a1[d]).max() <= 1e-9 * scale


def test_spinup_beam_same_motion_both_ways():
    """Kane's beam spun up in 1 s: the tip deflection history of the minimal-coordinate
    hub link and of the floating-frame body with a drive agree to 1e-8 of its peak
    (measured 5e-10 at h = 5e-4 s; 4e-7 at 2e-3 s, the O(h²) difference of two
    coordinate sets)."""
    sb = _case("spinup_beam")
    ch = sb.build(omega0_rad_s=4.0, spinup_time_s=1.0)
    m = ch.to_model()
    r1 = fem.simulate(ch, 0.2, 5e-4, rho_inf=1.0, factor_cost=3, tol=1e-12)
    r2 = fem.simulate(m, 0.2, 5e-4, rho_inf=1.0, factor_cost=3, tol=1e-12)
    b = m.nonlinear_bodies[0]
    tip1 = np.array([ch.tip_deflection(q)[1] for q in r1.q])
    tip2 = np.array([b.local_deflection(q, ch.link.length)[1] for q in r2.q])
    assert np.abs(tip1 - tip2).max() <= 1e-8 * np.abs(tip1).max()
    # the hub torque: the multiplier of θ − θ_p(t), and −λ·|u| of the angle drive
    assert np.allclose(r1.lam[:, 0], r2.lam[:, -1], rtol=1e-6, atol=1e-9)


@pytest.mark.slow
def test_two_link_fall_same_motion_both_ways():
    """The two-link arm falling for 0.2 s: the same tip path to 1e-8 of the travel at
    h = 1e-4 s (the integration errors of both below that)."""
    tl = _case("two_link_arm_fall")
    ch = tl.build(n_coordinates=4)
    m = ch.to_model()
    r1 = fem.simulate(ch, 0.2, 1e-4, rho_inf=1.0, factor_cost=3, tol=1e-12)
    r2 = fem.simulate(m, 0.2, 1e-4, rho_inf=1.0, factor_cost=3, tol=1e-12)
    tip1 = np.array([ch.centrelines(q, 2)[1][-1] for q in r1.q])
    tip2 = np.array([m.nonlinear_bodies[1].centreline(q, 2)[-1] for q in r2.q])
    travel = np.abs(tip1 - tip1[0]).max()
    assert np.abs(tip1 - tip2).max() <= 1e-8 * travel


@pytest.mark.slow
def test_spatial_chain_same_motion_both_ways():
    """The three-link spatial chain falling for 0.1 s: the last tip paths of both
    coordinate sets differ by O(h²) (halving h divides the difference by about four) and
    by less than 1e-7 of the travel at h = 1e-4 s (measured 5.4e-8; 2.9e-6 at h = 1e-3)."""
    ch = _spatial_chain()
    m = ch.to_model()
    diffs = []
    for h in (2e-4, 1e-4):
        r1 = fem.simulate(ch, 0.1, h, rho_inf=1.0, factor_cost=3, tol=1e-12)
        r2 = fem.simulate(m, 0.1, h, rho_inf=1.0, factor_cost=3, tol=1e-12)
        tip1 = np.array([ch.centrelines(q, 2)[-1][-1] for q in r1.q])
        tip2 = np.array([m.nonlinear_bodies[-1].centreline(q, 2)[-1] for q in r2.q])
        diffs.append(np.abs(tip1 - tip2).max() / np.abs(tip1 - tip1[0]).max())
    assert diffs[1] <= 1e-7
    assert 3.0 <= diffs[0] / diffs[1] <= 5.0


def test_spatial_chain_refuses_what_only_the_minimal_chain_has():
    ch = dh_chain([[0, 0, 0]], 1.0, 1.0, 1e6, 1e3, 1e3, 1e3,
                  tip_torque=lambda t: (0.0, 0.0, 1.0))
    with pytest.raises(ModelError, match="tip torque"):
        ch.to_model()


# ------------------------------------------------------------------ point maps
def _fd_check(pm, q, h=1e-6):
    x, J, H = pm.evaluate(q, second=True)
    Jn = np.zeros_like(J)
    Hn = np.zeros_like(H)
    for k, d in enumerate(pm.dofs):
        dq = np.zeros_like(q)
        dq[d] = h
        xp, Jp, _ = pm.evaluate(q + dq)
        xm, Jm, _ = pm.evaluate(q - dq)
        Jn[:, k] = (xp - xm) / (2 * h)
        Hn[:, :, k] = (Jp - Jm) / (2 * h)
    return np.abs(J - Jn).max() / np.abs(J).max(), np.abs(H - Hn).max() / max(
        np.abs(H).max(), 1e-300)


@pytest.mark.parametrize("kinematics", ["paper", "fourth_order"])
def test_point_and_direction_maps_against_differences(kinematics):
    m = fem.Model("maps")
    b = m.add_floating_frame("link", _link(kinematics=kinematics))
    rng = np.random.default_rng(3)
    q = m.q0 + 0.05 * rng.standard_normal(m.n_dof)
    eJ, eH = _fd_check(b.point(1.3), q)
    assert eJ < 1e-8
    # fourth order: the third derivatives of the axial position are left out by design
    assert eH < (1e-6 if kinematics == "paper" else 5e-2)
    for axis in (0, 1, 2):
        eJ, eH = _fd_check(b.direction(2.0, axis), q)
        assert eJ < 1e-8 and eH < 1e-6


def test_general_rows_gamma_is_the_second_time_derivative():
    """Along q(t) = q0 + t v + ½ t² a: Φ_q a − γ = d²Φ/dt² (central differences)."""
    m = _ff_four_bar()
    asm = m.assemble()
    rng = np.random.default_rng(5)
    q0 = asm.q0 + 0.01 * rng.standard_normal(asm.n)
    v = rng.standard_normal(asm.n)
    a = rng.standard_normal(asm.n)
    t0, h = 0.3, 1e-4

    def phi(s):
        return asm.phi(q0 + s * v + 0.5 * s * s * a, t0 + s)

    d2 = (phi(h) - 2 * phi(0.0) + phi(-h)) / h**2
    lhs = asm.j_dot(asm.jacobian_values(q0, t0), a) - asm.gamma(q0, v, t0)
    assert np.abs(lhs - d2).max() <= 1e-5 * max(np.abs(d2).max(), 1.0)


def test_section_rotary_inertia_acts_on_the_spin():
    """A floating-frame link spinning about its own axis: with rotary_inertia='section'
    its kinetic energy is ½ ρI_p L ω² (the seed's 'twist' model gives none)."""
    for mode, expected in (("section", 0.5 * 0.05 * 2.0), ("twist", 0.0)):
        m = fem.Model("spin")
        b = m.add_floating_frame("link", _link(), rotary_inertia=mode)
        q = m.q0
        v = np.zeros(m.n_dof)
        fd = b.frame_dofs
        v[fd[6:9]] = (0, 0, 1.0)      # v̇ = ω × v with ω = x̂: v = ŷ → ż
        v[fd[9:12]] = (0, -1.0, 0)    # ẇ = x̂ × ẑ = −ŷ
        ek = m.energy(q, v)["kinetic_J"]
        assert ek == pytest.approx(expected, rel=1e-12, abs=1e-14)


def test_bad_floating_frame_input_is_refused():
    m = fem.Model("bad")
    with pytest.raises(ModelError, match="FloatingFrameLink"):
        m.add_floating_frame("x", "not a link")
    with pytest.raises(ModelError, match="rotary_inertia"):
        m.add_floating_frame("y", _link(), rotary_inertia="full")
    with pytest.raises(ModelError, match="point mass"):
        m.add_floating_frame("z", _link(), point_masses=[(5.0, 1.0)])


# ------------------------------------------------- a closed loop of floating-frame links
def test_flexible_links_robot_with_floating_frame_links_holds_the_same_static_torques():
    """Seed 001's robot with links 3 as floating-frame bodies (their tips joined to the
    platform by point-map constraints): the static holding torques agree with the
    ANCF-beam robot within 5e-3 N·m (measured 1e-3; the ANCF links with 8 elements are
    converged to 1e-4 N·m against 16)."""
    c = _case("parallel_robot_flexible_links")
    out = []
    for kw in ({}, {"link_model": "floating_frame"}):
        geom, path, rm = c._setup({**c.PARAMS, "drive": "path", "n_elements_per_link": 8,
                                   **kw})
        st = fem.solve_static(rm.model, tol=1e-12)
        out.append([rm.model.assemble().efforts(st.lam)[a.name] for a in rm.actuators])
    assert np.allclose(out[0], out[1], atol=5e-3)


@pytest.mark.slow
def test_flexible_links_robot_circle_with_floating_frame_links():
    """The seed's circle in inverse dynamics: floating-frame links 3 against ANCF beams,
    torques within 2 % of the torque range (measured 1.4 % max, 0.3 % rms; the ANCF
    model itself moves 3.0 % of the range between 8 and 16 elements per link, so a
    tighter bound would test the reference's discretization)."""
    c = _case("parallel_robot_flexible_links")
    paper = {"drive": "path", "n_elements_per_link": 8}     # the defaults before issue 43
    an = np.array(c.run(None, **paper)["torque_Nm"])
    ff = np.array(c.run(None, **paper, link_model="floating_frame")["torque_Nm"])
    assert np.abs(an - ff).max() <= 0.02 * np.ptp(an)
