"""The robot layer (fem.robot): joints on every link model, motors, placing and starting,
checked against closed forms (the rigid pendulum and two-link arm's Lagrange equations,
the joints' freedoms, static reactions) and the stiff limit of each flexible model."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import fem
from fem.robot import AncfBeam, AncfCable, FloatingFrame, Reduced, Rigid, Robot, pose

G = 9.81
L, R = 1.0, 0.01
RHO = 7850.0


def steel(factor: float = 1.0) -> fem.Material:
    return fem.Material(E=2.1e11 * factor, nu=0.3, rho=RHO)


def rod_mass(length: float = L) -> float:
    return RHO * np.pi * R**2 * length


def rigid_rod(length: float = L) -> Rigid:
    m = rod_mass(length)
    i = m * length**2 / 12
    return Rigid(m, com=(length / 2, 0, 0), inertia=np.diag([0.0, i, i]))


def models(factor: float = 1.0) -> dict:
    return {"rigid": rigid_rod(),
            "ancf_beam": AncfBeam(steel(factor), radius=R, elements=2),
            "ancf_cable": AncfCable(steel(factor), radius=R, elements=2),
            "floating_frame": FloatingFrame(steel(factor), radius=R, functions=3),
            "reduced_beam": fem.robot.ReducedBeam(AncfBeam(steel(factor), radius=R,
                                                           elements=2), modes=1)}


def reduced_rod(p0, p1, factor: float = 1.0, n_modes: int = 4, names=("a", "b")) -> Reduced:
    """The rod from ``p0`` to ``p1`` as a reduced link of its ANCF-beam FE model, with
    both ends' nodes (point and section vectors) as the frames' interfaces."""
    fe = fem.Model("rod")
    _, nodes = fem.straight_beam(fe, p0, p1, 4, steel(factor), section="circle", radius=R)
    ends = [[fe.node_field(int(n), f) for f in ("r", "r_x", "r_y", "r_z")]
            for n in (nodes[0], nodes[-1])]
    return Reduced(fe, dict(zip(names, ends, strict=True)), n_modes=n_modes)


def septic(amplitude: float, T: float):
    """A rest-to-rest motion whose rate, acceleration and jerk start and end at zero."""
    return fem.robot.rest_to_rest(amplitude, T)


def sine(amplitude: float, w: float, phase: float = 0.0):
    def motion(t):
        return (amplitude * np.sin(w * t + phase), amplitude * w * np.cos(w * t + phase),
                -amplitude * w * w * np.sin(w * t + phase))
    return motion


def pendulum(spec, motion=None, effort=None, gravity=(0.0, -G, 0.0)) -> Robot:
    """One link from the origin along x, a revolute joint about z at the ground."""
    robot = Robot("pendulum", gravity=gravity)
    robot.add_link("arm", spec, frames={"base": pose((0, 0, 0)), "tip": pose((L, 0, 0))})
    robot.add_joint("shoulder", "revolute", "ground", ("arm", "base"))
    robot.add_motor("motor", "shoulder", servo=motion, effort=effort)
    return robot


def pendulum_torque(th, m=None):
    """τ = I_O θ̈ + m g (L/2) cos θ for a uniform rod about z, gravity −y."""
    m = rod_mass() if m is None else m
    return m * L**2 / 3 * th[:, 2] + m * G * L / 2 * np.cos(th[:, 0])


def two_link_torques(q, qd, qdd, l1=L, l2=L):
    """The planar two-link arm of uniform rods (Lagrange's equations; angles from +x,
    the second relative, gravity −y)."""
    m1, m2 = rod_mass(l1), rod_mass(l2)
    lc1, lc2 = l1 / 2, l2 / 2
    I1, I2 = m1 * l1**2 / 12, m2 * l2**2 / 12
    c2, s2 = np.cos(q[1]), np.sin(q[1])
    M11 = I1 + I2 + m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2)
    M12 = I2 + m2 * (lc2**2 + l1 * lc2 * c2)
    M22 = I2 + m2 * lc2**2
    h = m2 * l1 * lc2 * s2
    g1 = (m1 * lc1 + m2 * l1) * G * np.cos(q[0]) + m2 * lc2 * G * np.cos(q[0] + q[1])
    g2 = m2 * lc2 * G * np.cos(q[0] + q[1])
    t1 = M11 * qdd[0] + M12 * qdd[1] - h * (2 * qd[0] * qd[1] + qd[1] ** 2) + g1
    t2 = M12 * qdd[0] + M22 * qdd[1] + h * qd[0] ** 2 + g2
    return np.array([t1, t2])


def two_link(spec1, spec2, m1=None, m2=None) -> Robot:
    robot = Robot("two-link", gravity=(0.0, -G, 0.0))
    robot.add_link("upper", spec1, frames={"shoulder": pose((0, 0, 0)),
                                           "elbow": pose((L, 0, 0))})
    robot.add_link("fore", spec2, frames={"elbow": pose((L, 0, 0)),
                                          "tool": pose((2 * L, 0, 0))})
    robot.add_joint("shoulder", "revolute", "ground", ("upper", "shoulder"))
    robot.add_joint("elbow", "revolute", ("upper", "elbow"), ("fore", "elbow"))
    robot.add_motor("motor 1", "shoulder", servo=m1)
    robot.add_motor("motor 2", "elbow", servo=m2)
    return robot


# ---------------------------------------------------------------- rigid: closed forms
def test_rigid_pendulum_servo_torque_is_the_closed_form():
    motion = sine(0.5, 2.0)
    robot = pendulum(rigid_rod(), motion)
    ts = np.linspace(0.0, 1.5, 16)
    res = fem.driven_inverse_dynamics(robot.model, ts)
    tau = np.array([robot.efforts(q, lam)["motor"] for q, lam in zip(res.q, res.lam,
                                                                       strict=True)])
    th = np.array([motion(t) for t in ts])
    ref = pendulum_torque(th)
    assert np.abs(tau - ref).max() <= 1e-10 * np.ptp(ref)
    angles = [robot.joint_value("shoulder", q) for q in res.q]
    assert np.allclose(angles, th[:, 0], atol=1e-12)
    rates = [robot.joint_rate("shoulder", q, v) for q, v in zip(res.q, res.v, strict=True)]
    assert np.allclose(rates, th[:, 1], atol=1e-10)


def test_effort_motor_drives_the_closed_form_motion():
    """Forward dynamics with the closed-form torque as the effort follows the motion:
    the actuator's generalized force has the joint's sign and size."""
    motion = septic(0.6, 0.5)
    tau = lambda t: float(pendulum_torque(np.array([motion(t)]))[0])   # noqa: E731
    robot = pendulum(rigid_rod(), effort=tau)
    errs = []
    for dt in (2e-3, 1e-3):
        res = fem.simulate(robot.model, 0.6, dt, rho_inf=0.9, sensors=robot.sensors())
        th = np.array([motion(t)[0] for t in res.t])
        errs.append(np.abs(res.sensors["shoulder angle_rad"] - th).max())
    assert errs[1] < 2e-4 * 0.6
    assert errs[1] < 0.35 * errs[0]                 # second order in the step


def test_two_link_arm_relative_motor_torques_are_lagrange():
    """A motor between two moving links (the elbow) drives the relative angle and its
    torque reacts on both links: Lagrange's equations of the two-link arm."""
    m1, m2 = sine(0.7, 1.3), sine(0.9, 2.1, 0.4)
    robot = two_link(rigid_rod(), rigid_rod(), m1, m2)
    ts = np.linspace(0.0, 2.0, 21)
    q0 = robot.place(0.0)
    res = fem.driven_inverse_dynamics(robot.model, ts, q0=q0)
    got = np.array([[robot.efforts(q, lam)[k] for k in ("motor 1", "motor 2")]
                    for q, lam in zip(res.q, res.lam, strict=True)])
    a, b = np.array([m1(t) for t in ts]), np.array([m2(t) for t in ts])
    ref = np.array([two_link_torques(a[i, :1].tolist() + b[i, :1].tolist(),
                                     [a[i, 1], b[i, 1]], [a[i, 2], b[i, 2]])
                    for i in range(len(ts))])
    assert np.abs(got - ref).max() <= 1e-9 * np.ptp(ref)
    assert np.allclose([robot.joint_value("elbow", q) for q in res.q], b[:, 0], atol=1e-12)


def test_motor_torque_adds_gear_rotor_inertia_and_friction():
    motion = sine(0.5, 2.0)
    robot = Robot("geared", gravity=(0.0, -G, 0.0))
    robot.add_link("arm", rigid_rod(), frames={"base": pose((0, 0, 0))})
    robot.add_joint("shoulder", "revolute", "ground", ("arm", "base"))
    robot.add_motor("motor", "shoulder", servo=motion, gear=50.0, rotor_inertia=2e-5,
                    viscous=1e-3, coulomb=0.02, coulomb_smoothing=0.5)
    t = 0.3
    res = fem.driven_inverse_dynamics(robot.model, [t])
    e = robot.efforts(res.q[0], res.lam[0], res.v[0], res.a[0])
    th, thd, thdd = motion(t)
    tj = float(pendulum_torque(np.array([[th, thd, thdd]]))[0])
    w = 50 * thd
    ref = tj / 50 + 2e-5 * 50 * thdd + 1e-3 * w + 0.02 * np.tanh(w / 0.5)
    assert e["motor"] == pytest.approx(tj, rel=1e-10)
    assert e["motor motor"] == pytest.approx(ref, rel=1e-6)


# ---------------------------------------------------------------- joints on every model
FREEDOMS = {"revolute": 1, "prismatic": 1, "cylindrical": 2, "spherical": 3,
            "universal": 2, "planar": 3, "fixed": 0}
CABLE_KINDS = {"revolute", "spherical", "fixed"}


def _joint_robot(kind, spec):
    robot = Robot("joint")
    robot.add_link("link", spec, frames={"root": pose((0.1, 0.2, 0.3), z="y", x="x"),
                                         "tip": pose((1.1, 0.2, 0.3), z="y", x="x")})
    robot.add_joint("j", kind, "ground", ("link", "root"), axis="z", axis2="x")
    return robot


@pytest.mark.parametrize("model", ["rigid", "ancf_beam", "ancf_cable", "floating_frame",
                                   "reduced_beam"])
@pytest.mark.parametrize("kind", list(FREEDOMS))
def test_joint_rows_leave_the_joints_freedoms(kind, model):
    """Each joint on each link model: its rows hold at build, are independent, and the
    rigid motions of the link they allow are the joint's freedoms (a revolute: the turn
    about its axis through its origin; a prismatic: the slide along its axis)."""
    if model == "ancf_cable" and kind not in CABLE_KINDS:
        pytest.skip("a cable frame carries its tangent only")
    robot = _joint_robot(kind, models()[model])
    asm = robot.model.assemble()
    q = asm.q0
    assert np.abs(asm.phi(q, 0.0)).max() < 1e-14
    J = asm.jacobian(q, 0.0)
    J = J.toarray() if hasattr(J, "toarray") else np.asarray(J)
    rows = [i for i, c in enumerate(asm.owner) if c in robot.joints["j"].constraints]
    Jj = J[rows]
    assert np.linalg.matrix_rank(Jj) == len(rows)              # independent rows
    d, T = robot.links["link"].rigid_velocity(q)
    Tg = np.zeros((asm.n, 6))
    Tg[d] = T
    rank_T = np.linalg.matrix_rank(Tg)              # 5 for a cable: no twist
    free = rank_T - np.linalg.matrix_rank(Jj @ Tg)
    assert free == FREEDOMS[kind] - (1 if model == "ancf_cable" and kind == "spherical"
                                     else 0)
    if kind in ("revolute", "prismatic"):        # and that freedom is the joint's
        o = np.array([0.1, 0.2, 0.3])
        axis = np.array([0.0, 1.0, 0.0])             # the frame's z is world y
        p = (np.concatenate([-np.cross(axis, o), axis]) if kind == "revolute"
             else np.concatenate([axis, np.zeros(3)]))
        assert np.linalg.norm(Jj @ Tg @ p) < 1e-10 * np.linalg.norm(Jj)


@pytest.mark.parametrize("model", ["rigid", "ancf_beam", "ancf_cable", "floating_frame",
                                   "reduced_beam"])
def test_held_link_reactions_are_statics(model):
    """A horizontal link held by a servo at its root: the motor's torque is m g L/2
    and the joint's force the weight (stiff links: sag of 1e-6 L changes neither)."""
    robot = pendulum(models(1000.0)[model], motion=lambda t: (0.0, 0.0, 0.0))
    st = robot.rest()
    tau = robot.efforts(st.q, st.lam)["motor"]
    m = rod_mass()
    assert tau == pytest.approx(m * G * L / 2, rel=2e-4)
    asm = robot.model.assemble()
    point = robot.joints["shoulder"].constraints[0]
    rows = [i for i, c in enumerate(asm.owner) if c is point]
    assert st.lam[rows] @ np.array([0.0, 1.0, 0.0]) == pytest.approx(m * G, rel=2e-4)


def joint_wrench(robot, joint: str, q, lam) -> np.ndarray:
    """The force and the moment about the world origin (6,) that the rows of ``joint``
    put on its child link: ``−Tᵀ Φ_qᵀ λ`` with ``T`` the link's rigid velocity field
    (the virtual power of the rows' forces in a rigid motion of the link)."""
    asm = robot.model.assemble()
    j = robot.joints[joint]
    rows = [i for i, c in enumerate(asm.owner) if any(c is k for k in j.constraints)]
    J = asm.jacobian(q, 0.0)
    J = J.toarray() if hasattr(J, "toarray") else np.asarray(J)
    d, T = robot.links[j.child.link].rigid_velocity(q)
    return -T.T @ (J[rows][:, d].T @ lam[rows])


# (kind, gravity, axis, wrench on the link / (m g): force, moment about the joint)
REACTIONS = {
    "fixed": ((0, -1, 0), "z", (0, 1, 0, 0, 0, 0.5 * L)),        # a cantilever
    "prismatic": ((0, -1, 0), "y", (0, 0, 0, 0, 0, 0.5 * L)),    # its motor holds the weight
    "spherical": ((-1, 0, 0), "z", (1, 0, 0, 0, 0, 0)),          # hanging
    "universal": ((-1, 0, 0), "z", (1, 0, 0, 0, 0, 0)),
    "cylindrical": ((-1, 0, 0), "z", (1, 0, 0, 0, 0, 0)),
    "planar": ((0, 0, -1), "z", (0, 0, 1, 0, -0.5 * L, 0)),     # lying on its plane
}
STATIC = [(k, m) for k in ("fixed", "prismatic")
          for m in ("rigid", "ancf_beam", "ancf_cable", "floating_frame", "reduced_beam")
          if not (k == "prismatic" and m == "ancf_cable")]


@pytest.mark.parametrize("kind, model", STATIC + [(k, "rigid") for k in
                                                  ("spherical", "universal", "cylindrical",
                                                   "planar")])
def test_joint_reactions_are_statics(kind, model):
    """A link on one joint of each kind, loaded by its weight only: the force and moment
    of the joint's rows on the link are the closed forms of statics (a cantilever's
    ``m g`` and ``m g L/2``; a hanging link's ``m g``; a prismatic joint's moment while
    its motor holds the weight ``m g``).  Static equilibrium where the joint leaves no
    unloaded freedom (stiff flexible links: their sag changes the moment by < 1e-6);
    the multipliers of the start (nothing accelerates) for the rigid link on joints
    that leave it a free turn or slide."""
    grav, axis, expected = REACTIONS[kind]
    robot = Robot("joint", gravity=tuple(G * np.array(grav, float)))
    spec = models(1000.0)[model]
    if model == "rigid":           # a solid rod: its turn about its own axis has inertia
        m = rod_mass()
        spec = Rigid(m, com=(L / 2, 0, 0),
                     inertia=np.diag([m * R**2 / 2, m * L**2 / 12, m * L**2 / 12]))
    robot.add_link("link", spec, frames={"root": pose((0, 0, 0)), "tip": pose((L, 0, 0))})
    robot.add_joint("j", kind, "ground", ("link", "root"), axis=axis, axis2="y")
    if kind == "prismatic":
        robot.add_motor("m", "j", servo=lambda t: (0.0, 0.0, 0.0))
    if (kind, model) in STATIC:
        st = robot.rest()
        q, lam = st.q, st.lam
    else:
        from fem.solvers.dynamic import consistent_initial_state

        q, _, a, lam = consistent_initial_state(robot.model)
        assert np.abs(a).max() < 1e-9
    mg = rod_mass() * G
    w = joint_wrench(robot, "j", q, lam)
    assert np.allclose(w / mg, expected, rtol=0, atol=1e-6 * L), (w / mg).round(8)
    if kind == "prismatic":
        assert robot.efforts(q, lam)["m"] == pytest.approx(mg, rel=1e-9)


@pytest.mark.parametrize("axis", ["z", "x"])
def test_a_joint_clamps_an_ancf_beams_section(axis):
    """A cantilever held by a fixed joint on an ANCF beam frame (a solid rod, and an
    aluminium tube of ``wall=``): its first frequencies in both planes converge to the
    Euler–Bernoulli value (within 0.6 % at 16 elements; a tube's shear makes it softer,
    as Timoshenko's beam does) instead of softening as the mesh is refined — the rows
    hold the section's vectors, not the centre line's slope (with the slope held, the
    section turned freely at the support and 16 elements gave 0.86 of the frequency).
    ``axis="x"``: the joint's axis along the beam, the same."""
    al = fem.Material(7e10, 0.33, 2700.0)
    for wall in (None, 0.003):
        ratios = []
        for el in (8, 16):
            robot = Robot("cantilever")
            robot.add_link("b", AncfBeam(al, radius=0.03, wall=wall, elements=el),
                           frames={"a": pose((0, 0, 0)), "b": pose((1.0, 0, 0))})
            robot.add_joint("j", "fixed", "ground", ("b", "a"), axis=axis,
                            axis2="y")
            w = np.sqrt(fem.modes(robot.model, n_modes=2).omega2)
            s = fem.robot.section_properties("circle", "rod", 0.03, wall=wall)
            w_eb = 1.87510407**2 * np.sqrt(7e10 * s["iy"] / (2700 * s["area"]))
            ratios.append(w / w_eb)
        assert np.allclose(ratios[1], ratios[1][0], rtol=1e-9)      # both planes alike
        assert abs(ratios[1][0] - 1) < 0.006, ratios
        assert abs(ratios[1][0] - ratios[0][0]) < 0.003             # converged


def test_cable_turning_about_its_own_axis_has_no_angle_to_drive():
    """A cable has no twist: a revolute about its own axis clamps its tangent, and a
    motor there is refused (no angle to drive)."""
    robot = Robot("r")
    robot.add_link("c", AncfCable(steel(), radius=R), frames={
        "root": pose((0, 0, 0), z="x"), "tip": pose((1, 0, 0), z="x")})
    robot.add_joint("j", "revolute", "ground", ("c", "root"))
    with pytest.raises(fem.ModelError, match="along the joint axis"):
        robot.add_motor("m", "j", effort=1.0)
        robot.model.assemble()


# ---------------------------------------------------------------- the stiff limit
@pytest.mark.parametrize("model", ["ancf_beam", "ancf_cable", "floating_frame", "reduced"])
def test_stiff_limit_of_each_flexible_model_is_the_rigid_torque(model):
    """E × 1000: the servo torque of the flexible link is the rigid closed form within
    1 % of its range (collocated drive, generalized-α, from static equilibrium)."""
    motion = septic(0.6, 0.5)
    if model == "reduced":
        robot = Robot("pendulum", gravity=(0.0, -G, 0.0))
        robot.add_link("arm", reduced_rod((0, 0, 0), (L, 0, 0), 1000.0),
                       frames={"a": pose((0, 0, 0)), "b": pose((L, 0, 0))})
        robot.add_joint("shoulder", "revolute", "ground", ("arm", "a"))
        robot.add_motor("motor", "shoulder", servo=motion)
    else:
        robot = pendulum(models(1000.0)[model], motion)
    res = robot.simulate(0.7, 2e-3, rho_inf=0.8)
    th = np.array([motion(t) for t in res.t])
    ref = pendulum_torque(th)
    err = np.abs(res.sensors["motor effort_Nm"] - ref).max()
    assert err <= 0.01 * np.ptp(ref)
    assert res.sensors["arm deflection_m"].max() < 1e-5


@pytest.mark.parametrize("model", ["ancf_beam", "floating_frame", "reduced"])
def test_stiff_two_link_arm_is_lagrange(model):
    """A flexible forearm on an elbow motor between two moving links (the parent's tip
    frame is a deformed point on a flexible upper arm): stiff limit against Lagrange."""
    m1, m2 = septic(0.5, 0.4), septic(-0.8, 0.4)
    if model == "reduced":
        robot = two_link(reduced_rod((0, 0, 0), (L, 0, 0), 1000.0, names=("shoulder", "elbow")),
                         reduced_rod((L, 0, 0), (2 * L, 0, 0), 1000.0, names=("elbow", "tool")),
                         m1, m2)
    else:
        spec = models(1000.0)[model]
        robot = two_link(spec, spec, m1, m2)
    res = robot.simulate(0.45, 2e-3, rho_inf=0.8)
    a = np.array([m1(t) for t in res.t])
    b = np.array([m2(t) for t in res.t])
    ref = np.array([two_link_torques([a[i, 0], b[i, 0]], [a[i, 1], b[i, 1]],
                                     [a[i, 2], b[i, 2]]) for i in range(len(res.t))])
    for k, name in enumerate(("motor 1", "motor 2")):
        err = np.abs(res.sensors[f"{name} effort_Nm"] - ref[:, k]).max()
        assert err <= 0.01 * np.ptp(ref[:, k]), name


# ---------------------------------------------------------------- placing and starting
def test_place_closes_a_loop_from_rough_placements_and_refuses_one_that_cannot():
    """A four-bar placed 1–3 cm off: placing closes it; a coupler too long to
        reach is refused, naming the joints."""
    def four_bar(coupler_length, jitter):
        robot = Robot("four-bar")
        A, B = np.array([0.0, 0, 0]), np.array([1.0, 0, 0])
        C, D = np.array([0.0, 0.5, 0]), np.array([1.0, 0.5, 0])
        robot.add_link("crank", rigid_rod(0.5), frames={"a": pose(A, x=C - A),
                                                        "b": pose(C, x=C - A)})
        robot.add_link("rocker", rigid_rod(0.5), frames={"a": pose(B, x=D - B),
                                                         "b": pose(D + jitter, x=D - B)})
        Cc = D + jitter
        end = C + coupler_length * (Cc - C) / np.linalg.norm(Cc - C)
        robot.add_link("coupler", rigid_rod(coupler_length),
                       frames={"a": pose(C, x=Cc - C), "b": pose(end, x=Cc - C)})
        robot.add_joint("A", "revolute", "ground", ("crank", "a"))
        robot.add_joint("B", "revolute", "ground", ("rocker", "a"))
        robot.add_joint("C", "spherical", ("crank", "b"), ("coupler", "a"))
        robot.add_joint("D", "universal", ("rocker", "b"), ("coupler", "b"), axis="z",
                        axis2="y")          # R-R-S-U: one freedom, no redundant row
        return robot

    robot = four_bar(1.0, np.array([0.02, -0.03, 0.0]))
    placed = robot.place(report=True)
    q = placed.q
    assert np.array_equal(q, robot.place())
    assert placed.residual < 1e-12
    # the branch in words: each revolute as placed (zero: joint coordinates count from
    # the build) and as closed; the rocker was placed 2–3 cm off at its far end, so it
    # turned by about that over its half-metre length
    a, b, unit = placed.joints["B"]
    assert unit == "rad" and a == 0.0
    assert b == pytest.approx(robot.joint_value("B", q), abs=1e-15)
    assert 0.01 < abs(b - a) < 0.1
    assert "B:" in str(placed) and "°" in str(placed)
    asm = robot.model.assemble()
    assert np.abs(asm.phi(q, 0.0)).max() < 1e-12
    p_b, _ = robot.frame_pose("rocker", "b", q)
    p_e, _ = robot.frame_pose("coupler", "b", q)
    assert np.linalg.norm(p_b - p_e) < 1e-12
    with pytest.raises(fem.ModelError, match="do not close"):
        four_bar(2.5, np.zeros(3)).place()         # longer than the other three


@pytest.mark.parametrize("model", ["rigid", "ancf_beam", "floating_frame"])
def test_start_in_motion_is_the_rigid_velocity_field(model):
    """Drives moving at t = 0: every link starts on its rigid velocity field from the
    joint rates (ω₁ = θ̇₁ on the upper arm, θ̇₁ + θ̇₂ on the forearm)."""
    m1, m2 = sine(0.3, 2.0), sine(0.4, 3.0)
    spec = models()[model]
    robot = two_link(spec, spec, m1, m2)
    q = robot.place(0.0)
    v, residual = robot.start_velocity(q, 0.0)
    assert residual < 1e-10
    w1, w2 = m1(0.0)[1], m1(0.0)[1] + m2(0.0)[1]
    z = np.array([0.0, 0.0, 1.0])
    for name, w, origin in (("upper", w1, np.zeros(3)), ("fore", w2, np.array([L, 0, 0]))):
        link = robot.links[name]
        d, T = link.rigid_velocity(q)
        v_o = w1 * np.cross(z, origin)               # the elbow moves with the upper arm
        p = np.concatenate([v_o - np.cross(w * z, origin), w * z])
        assert np.allclose(v[d], T @ p, atol=1e-10), name
    asm = robot.model.assemble()
    J = asm.jacobian(q, 0.0)
    assert np.abs(J @ v + asm.phi_t(q, 0.0)).max() < 1e-10
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        robot.simulate(0.004, 2e-3, start="motion", q0=q)      # no warning: v0 consistent
    if model == "rigid":        # the projected start is the rigid one: nothing to say
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            robot.simulate(0.004, 2e-3, start="placed")
    else:
        with pytest.warns(fem.FemWarning, match="start='motion'"):
            robot.simulate(0.004, 2e-3, start="placed")


def test_bad_robot_input_is_named():
    robot = Robot("r")
    with pytest.raises(fem.ModelError, match="frames"):
        robot.add_link("a", rigid_rod(), frames={})
    robot.add_link("a", rigid_rod(), frames={"o": pose()})
    with pytest.raises(fem.ModelError, match="no frame 'x'"):
        robot.add_joint("j", "revolute", "ground", ("a", "x"))
    with pytest.raises(fem.ModelError, match="kind"):
        robot.add_joint("j", "hinge", "ground", ("a", "o"))
    with pytest.raises(fem.ModelError, match="two frames"):
        robot.add_link("b", AncfBeam(steel(), radius=R), frames={"o": pose()})
    robot.add_joint("j", "spherical", "ground", ("a", "o"))
    with pytest.raises(fem.ModelError, match="revolute or prismatic"):
        robot.add_motor("m", "j", effort=1.0)


@pytest.mark.parametrize("model", ["ancf_beam", "ancf_cable"])
def test_pictures_magnify_bending_relative_to_the_joints(model):
    """The drawn deformation of a flexible link is measured from the frame through its
    joints: zero at both ends (a magnified picture keeps the link on its joints), and at
    mid-span the cantilever's sag below its chord, −7/384 q L⁴/EI (Euler–Bernoulli)."""
    from fem.io.drawing import Drawing

    soft = fem.Material(E=2.1e10, nu=0.3, rho=RHO)      # sags 2 % of its length
    spec = (AncfBeam(soft, radius=R, elements=8) if model == "ancf_beam"
            else AncfCable(soft, radius=R, elements=8))
    robot = pendulum(spec, motion=lambda t: (0.0, 0.0, 0.0))
    q = robot.rest().q
    d = Drawing(robot.model)
    ref, dev = d.ref, d.deformation(q)
    on = np.flatnonzero(np.abs(ref[:, 1]) < 1e-12)          # the link's drawn points
    at = lambda x: on[np.argmin(np.abs(ref[on, 0] - x))]    # noqa: E731
    w = RHO * np.pi * R**2 * G
    EI = 2.1e10 * np.pi * R**4 / 4
    sag = w * L**4 / EI
    assert np.linalg.norm(dev[at(0.0)]) < 1e-9 * sag
    assert np.linalg.norm(dev[at(L)]) < 1e-3 * sag       # the chord's shortening only
    assert dev[at(L / 2)][1] == pytest.approx(7 / 384 * sag, rel=0.02)
    tip = robot.deflection("arm", q)
    assert tip[1] == pytest.approx(-sag / 8, rel=0.02)      # qL⁴/8EI below the root frame


def _tip_driven(elements: int, task: bool) -> Robot:
    robot = Robot("tip-driven")
    robot.add_link("arm", AncfBeam(steel(), radius=R, elements=elements),
                   frames={"base": pose((0, 0, 0)), "tip": pose((L, 0, 0))})
    robot.add_joint("shoulder", "revolute", "ground", ("arm", "base"))
    if task:
        robot.add_motor("motor", "shoulder")
        robot.add_path("tip", ("arm", "tip"), lambda t: (np.array([L, 0.0, 0.0]),
                                                         np.zeros(3), np.zeros(3)),
                       components=(1,))
    else:
        robot.add_motor("motor", "shoulder", servo=lambda t: (0.0, 0.0, 0.0))
    return robot


def _unstable_zero_rate() -> float:
    """The slowest growth rate of a pinned Euler–Bernoulli beam whose root torque holds
    its free tip on a line: w'''' = −κ⁴ w with w(0) = w(L) = w''(L) = w'''(L) = 0,
    σ = κ² √(EI/ρA) (the first root of the determinant, κL = 3.3446)."""
    from scipy.optimize import brentq

    def det(k):
        lam = k * np.array([1 + 1j, 1 - 1j, -1 + 1j, -1 - 1j]) / np.sqrt(2)
        e = np.exp(lam * L)
        return (np.linalg.det(np.array([np.ones(4), e, lam**2 * e, lam**3 * e]))
                * np.exp(-k * L)).real

    k = brentq(det, 2.0 / L, 5.0 / L)
    return k**2 * np.sqrt(2.1e11 * np.pi * R**4 / 4 / (RHO * np.pi * R**2))


def test_internal_dynamics_of_a_tip_driven_link_is_unstable_and_named():
    """Collocated (a servo at the joint): the modes are the cantilever's (1.8751²
    √(EI/ρA)/L²).  Driven at the tip (a task-space path, the motor at the joint): the
    internal dynamics is unstable, its slowest growth rate the Euler–Bernoulli closed
    form within 0.5 % (16 elements), and a forward run that diverges says so and names
    the collocated drive."""
    c = np.sqrt(2.1e11 * np.pi * R**4 / 4 / (RHO * np.pi * R**2)) / L**2
    m = fem.modes(_tip_driven(16, False).model, n_modes=2)
    assert m.unstable == 0
    assert m.frequencies_hz[0] * 2 * np.pi == pytest.approx(1.87510407**2 * c, rel=0.005)
    with pytest.warns(fem.FemWarning, match="internal dynamics"):
        m = fem.modes(_tip_driven(16, True).model, n_modes=None)
    sigma = np.sqrt(-m.omega2[m.omega2 < 0]).min()
    assert sigma == pytest.approx(_unstable_zero_rate(), rel=0.005)
    robot = _tip_driven(4, True)
    robot.paths["tip"].motion = lambda t: (np.array([L, 0.3 * t * t, 0.0]),
                                           np.array([0.0, 0.6 * t, 0.0]),
                                           np.array([0.0, 0.6, 0.0]))
    with pytest.raises(fem.ConvergenceError, match="collocated drive") as err:
        fem.simulate(robot.model, 0.3, 1e-3)
    assert "units" not in str(err.value)


def test_plate_link_held_at_a_vertex_is_statics():
    """A hexagonal plate (Bézier ANCF plate link, E × 1000) on a revolute joint at a
    vertex, held level by a servo: the torque is the weight times the lever to the
    centroid (0.09 m) and the joint's force the weight, m = ρ t A."""
    from fem.robot import Plate

    mesh = fem.load_builtin_mesh("hexagon_6")
    t = 0.004
    hinge = np.asarray(mesh.vertices[1], float)
    robot = Robot("plate", gravity=(0.0, 0.0, -G))
    robot.add_link("platform", Plate(mesh, steel(1000.0), t),
                   frames={"centre": pose((0, 0, 0)), "hinge": pose(hinge, z="y")})
    robot.add_joint("hinge", "revolute", "ground", ("platform", "hinge"))
    robot.add_motor("motor", "hinge", servo=lambda t: (0.0, 0.0, 0.0))
    st = robot.rest()
    m = RHO * t * mesh.area
    assert robot.efforts(st.q, st.lam)["motor"] == pytest.approx(m * G * hinge[0], rel=1e-3)
    asm = robot.model.assemble()
    rows = [i for i, c in enumerate(asm.owner) if c is robot.joints["hinge"].constraints[0]]
    assert abs(st.lam[rows] @ np.array([0.0, 0.0, 1.0])) == pytest.approx(m * G, rel=1e-3)
    with pytest.raises(fem.ModelError, match="vertex"):
        Robot("r").add_link("p", Plate(mesh, steel(), t), frames={
            "centre": pose((0, 0, 0)), "off": pose((0.01, 0.0, 0.0))})


@pytest.mark.parametrize("model", ["ancf_beam", "ancf_cable", "floating_frame", "reduced"])
def test_link_damping_spares_a_rigidly_turning_link(model):
    """A link turned by its servo at a constant rate from a start in motion: with
    ``damping=0.05`` the motor's mean torque (its work on the link, per radian) stays
    below 1e-4 N·m — what damps is the small stretching vibration of the start — while
    the stiffness-proportional damping of the reference state, at the same first-mode
    ratio, takes 1e4 N·m to keep the link turning (it damps the rotation itself).  The
    energy of a freely spinning damped link is checked in tests/test_damping.py."""
    omega = 3.0
    spin = lambda t: (omega * t, omega, 0.0)      # noqa: E731

    def mean_torque(damping, reference=False):
        if model == "reduced":
            spec = reduced_rod((0, 0, 0), (L, 0, 0))
            spec.damping = damping
            names = ("a", "b")
        else:
            spec = {"ancf_beam": AncfBeam(steel(), radius=R, elements=2, damping=damping),
                    "ancf_cable": AncfCable(steel(), radius=R, elements=2, damping=damping),
                    "floating_frame": FloatingFrame(steel(), radius=R, functions=3,
                                                    damping=damping)}[model]
            names = ("base", "tip")
        robot = Robot("spin")
        robot.add_link("arm", spec, frames={names[0]: pose((0, 0, 0)),
                                            names[1]: pose((L, 0, 0))})
        robot.add_joint("shoulder", "revolute", "ground", ("arm", names[0]))
        robot.add_motor("motor", "shoulder", servo=spin)
        if reference:
            c = np.sqrt(2.1e11 * np.pi * R**4 / 4 / (RHO * np.pi * R**2)) / L**2
            robot.model.add_damping(robot.links["arm"].group, 2 * 0.05 / (1.8751**2 * c))
        res = robot.simulate(0.2, 1e-3, start="motion", rho_inf=0.9)
        return np.trapezoid(res.sensors["motor effort_Nm"], res.t) / 0.2

    assert abs(mean_torque(0.05)) < 1e-4
    if model.startswith("ancf"):
        assert mean_torque(0.0, reference=True) > 1e3


def test_link_damping_decays_the_first_mode_at_the_requested_ratio():
    """A cantilever link (held by its servo) released from a tip load: with
    ``damping=0.02`` its first mode decays at ζ = 0.02 within 2 % (the logarithmic
    decrement of the tip's peaks), ζ being set at the Euler–Bernoulli first frequency."""
    zeta = 0.02
    robot = Robot("cantilever")
    robot.add_link("arm", AncfBeam(steel(), radius=R, elements=8, damping=zeta),
                   frames={"base": pose((0, 0, 0)), "tip": pose((L, 0, 0))})
    robot.add_joint("shoulder", "revolute", "ground", ("arm", "base"))
    robot.add_motor("motor", "shoulder", servo=lambda t: (0.0, 0.0, 0.0))
    tip = robot.frame("arm", "tip").origin
    robot.model.add_force(tip, lambda t: np.array([0.0, 1.0 if t <= 0.0 else 0.0, 0.0]))
    c = np.sqrt(2.1e11 * np.pi * R**4 / 4 / (RHO * np.pi * R**2)) / L**2
    period = 2 * np.pi / (1.8751**2 * c)
    res = robot.simulate(6 * period, period / 200, rho_inf=1.0)
    y = np.array([tip(q)[1] for q in res.q])
    peaks = [i for i in range(1, len(y) - 1) if y[i] > y[i - 1] and y[i] >= y[i + 1]]
    ratios = np.log(y[peaks[0]] / y[peaks[-1]]) / (len(peaks) - 1)
    assert ratios / (2 * np.pi) == pytest.approx(zeta, rel=0.02)


def test_histories_by_joint_and_frame_from_a_saved_result(tmp_path):
    """A run streamed to a folder and loaded back: the joint's angle, rate and effort
    and the tip frame's path come out by name, equal to what the run recorded."""
    motion = septic(0.6, 0.5)
    robot = pendulum(rigid_rod(), motion)
    res = robot.simulate(0.3, 5e-3, result=fem.io.output.stream(tmp_path, robot.model,
                                                                 robot.sensors()))
    loaded = fem.Result.load(tmp_path / "result")
    h = robot.joint_history(loaded, "shoulder")
    th = np.array([motion(t) for t in loaded.t])
    assert np.allclose(h["angle_rad"], th[:, 0], atol=1e-10)
    assert np.allclose(h["rate_rad_s"], res.sensors["shoulder rate_rad_s"], rtol=0, atol=1e-12)
    assert np.allclose(h["rate_rad_s"], th[:, 1], atol=2e-3 * np.abs(th[:, 1]).max())
    assert np.allclose(h["effort_Nm"], res.sensors["motor effort_Nm"], rtol=0, atol=1e-12)
    p, Rs = robot.frame_history(loaded, "arm", "tip")
    assert np.allclose(p[:, 0], L * np.cos(th[:, 0]), atol=1e-9)
    assert np.allclose(Rs[:, :, 0], np.column_stack([np.cos(th[:, 0]), np.sin(th[:, 0]),
                                                     np.zeros(len(th))]), atol=1e-9)
    # and the ParaView series carries them in every frame, named by joint and motor
    from fem.io.vtk import read_series

    times, meshes = read_series(tmp_path / f"{robot.model.name}.pvd")
    assert len(meshes) >= 2
    for t, mesh in zip(times, meshes, strict=True):
        i = int(np.argmin(np.abs(res.t - t)))
        fd = mesh.field_data
        assert float(fd["sensor:shoulder angle_rad"][0]) == pytest.approx(
            res.sensors["shoulder angle_rad"][i], abs=1e-12)
        assert float(fd["sensor:motor effort_Nm"][0]) == pytest.approx(
            res.sensors["motor effort_Nm"][i], abs=1e-9)


def test_floating_frame_links_are_drawn_on_their_deformed_centre_line():
    """A floating-frame link's centre line is in the pictures and the ParaView series:
    its drawn tip is the link's tip at any state (evaluated, not a linear map), drawn
    as a tube of the link's radius (as ANCF links are)."""
    from fem.io.drawing import Drawing

    robot = pendulum(FloatingFrame(steel(), radius=R, functions=3),
                     motion=lambda t: (t, 1.0, 0.0))
    q = robot.place(0.5)
    d = Drawing(robot.model)
    tip = robot.frame("arm", "tip").origin
    drawn = d.points(q)
    assert np.min(np.linalg.norm(drawn - tip(q), axis=1)) < 1e-12
    assert np.allclose(tip(q), [L * np.cos(0.5), L * np.sin(0.5), 0.0], atol=1e-9)
    v = np.zeros(robot.model.n_dof)
    v[robot.links["arm"].body.dofs] = 1.0
    i = int(np.argmin(np.linalg.norm(drawn - tip(q), axis=1)))
    assert np.allclose(d.velocities(v, q)[i], tip.jacobian(q) @ v[tip.dofs])
    assert d.radius[i] == pytest.approx(R)


def test_joint_angle_projection_by_coefficients_is_the_maps():
    # a joint between two moving links measures its angle as the child's direction in the
    # parent's axes; with every map linear the projection runs from the maps' stacked
    # coefficients: the same value, Jacobian and second derivatives as map by map
    from fem.robot.frames import Projection

    robot = two_link(rigid_rod(), rigid_rod())
    q = robot.model.q0 + 1e-2 * np.random.default_rng(3).normal(size=robot.model.q0.size)
    m = robot.joints["elbow"].coordinate_map()
    assert isinstance(m, Projection) and m._linear is not None
    for second in (False, True, True):
        fast = m._evaluate(q, second)
        kept, m._linear = m._linear, None
        slow = m._evaluate(q, second)
        m._linear = kept
        for a, b in zip(fast, slow, strict=True):
            if b is None:
                assert a is None
            else:
                np.testing.assert_allclose(a, b, rtol=0, atol=1e-14)
