"""The 3-RRRU robot of Liu et al. 2018: rigid triangular platform, flexible third links,
built in robot words (:class:`fem.Robot`).

Liu et al. 2018 §2: the flagship's architecture (:mod:`fem.robots.rrru3`) with a *rigid*
equilateral platform (circumradius 0.06 m, 0.3 kg, a uniform lamina) and links 3 as
shear-deformable ANCF beams (:class:`fem.robot.AncfBeam`; E = 6.9e8 Pa, ν = 0.3, circular
section r = 0.01 m) or floating-frame links (:class:`fem.robot.FloatingFrame`, clamped
end to end in ``link_segments`` by fixed joints).  Links 1/2/3: 2.0/0.3/1.2 kg,
0.375/0.090/0.815 m; links 1 and 2 are rigid slender rods (mass on their axis).

Per limb k (joint centres A → B → C → U as in :mod:`fem.robots.rrru3`): a revolute R1
at A about the actuator axis ``u_k`` (its motor), R2 at B about the limb plane's normal
``t``, R3 at C about ``a = t × (C − B)``, and a universal joint at U (platform vertex k)
whose axes are link 3's ``a`` and the platform edge facing limb k.  The motors are task
motors on the path of P (``drive="path"``, Liu et al.'s non-collocated inverse
dynamics), servos on the rigid robot's angles (``drive="joints"``) or given torques
(``mode="forward"``).  The rigid robot of :mod:`fem.robots.rrru3` with the same masses
(``liu2018_geometry``; ``platform_inradius`` is then the distance P → U = 0.06 m) is the
reference.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..constraints import Dot
from ..core.errors import ModelError
from ..core.validate import choice, integer
from ..elements.materials import Material
from ..model.trajectory import CirclePath, CosineAccelerationProfile, circle_path
from ..robot.reduced_beam import ReducedBeamView, fibre_strain
from .rrru3 import RRRU3Geometry, inverse_dynamics, joint_positions
from .rrru3_model import JointMotion, RobotModel, constant_path

__all__ = ["FlexibleLinksRobot", "liu2018_geometry", "liu2018_circle_path",
           "seed001_geometry", "seed001_circle_path",
           "build_flexible_links_robot", "rigid_torque_function", "rigid_torque_functions",
           "link_midpoint_outputs",
           "gauge_strains", "platform_tilt", "equilibrium_under_torques"]

SEED001 = {"link_masses": (2.0, 0.3, 1.2), "link_lengths": (0.375, 0.090, 0.815),
           "platform_mass": 0.3, "platform_circumradius": 0.06, "link_radius": 0.01,
           "E": 6.9e8, "nu": 0.3, "speed": 0.5, "circle_radius": 0.1}


@dataclass
class FlexibleLinksRobot(RobotModel):
    """:class:`~fem.robots.rrru3_model.RobotModel` plus the flexible links: ``beams``
    (element groups), ``beam_nodes`` (node ids from C to U per limb)."""

    beams: list = field(default_factory=list)
    beam_nodes: list = field(default_factory=list)
    link_bodies: list = field(default_factory=list)   # floating-frame links 3 (or empty)
    link_segments: list = field(default_factory=list)  # per limb: its bodies, C to U
    robot: object | None = None                        # the fem.Robot


def liu2018_geometry(payload: float = 0.0) -> RRRU3Geometry:
    """The rigid reference robot with the masses and lengths of Liu et al. (2018); the U
    centres sit at the platform's vertices, 0.06 m from P (``platform_inradius`` = P → U
    distance)."""
    return replace(RRRU3Geometry(), platform_inradius=SEED001["platform_circumradius"],
                   platform_mass=SEED001["platform_mass"], payload_mass=float(payload),
                   link_masses=SEED001["link_masses"], link_lengths=SEED001["link_lengths"])


def liu2018_circle_path(geom: RRRU3Geometry, speed: float = 0.5,
                        radius: float = 0.1) -> CirclePath:
    """Liu et al. (2018) §4: one turn of radius 0.1 m in z = −0.8 m from P0, cruise ``speed``
    with the cosine (S-curve) profile of Liu et al. (2023) eq 45 (40 % acceleration and
    deceleration): duration ``2πρ / (0.6 v)`` = 2.094 s at 0.5 m/s."""
    distance = 2.0 * np.pi * radius
    profile = CosineAccelerationProfile(duration=distance / (0.6 * speed), distance=distance)
    p0 = np.asarray(geom.start_point, float)
    return circle_path(p0 - np.array([radius, 0.0, 0.0]), radius, (0.0, 0.0, 1.0), 0.0,
                       profile, sweep=2.0 * np.pi)


#: Former names, kept: the contract extends, never renames.
seed001_geometry = liu2018_geometry
seed001_circle_path = liu2018_circle_path


def rigid_torque_function(geom: RRRU3Geometry, path, k: int, _memo: dict | None = None):
    """``t -> τ_k(t)`` of the rigid robot along ``path`` (exact, closed-form kinematics).

    The three motors' torques of one instant are computed together and kept for the
    last few instants asked (a controller asks at one time in every Newton iteration,
    for each motor): give the functions of the three motors one ``_memo`` dict
    (:func:`rigid_torque_functions` does)."""
    memo = {} if _memo is None else _memo

    def tau(t: float) -> float:
        t = float(t)
        if t not in memo:
            if len(memo) > 8:
                memo.clear()
            x, xd, xdd = path(np.atleast_1d(t))
            memo[t] = inverse_dynamics(geom, x, xd, xdd)[0][0]
        return float(memo[t][k])
    return tau


def rigid_torque_functions(geom: RRRU3Geometry, path) -> list:
    """The three motors' :func:`rigid_torque_function`, sharing one evaluation per time."""
    memo: dict = {}
    return [rigid_torque_function(geom, path, k, memo) for k in range(3)]


_MAX_SEGMENTS = 1000
"""``link_segments`` above this is refused (a model too large to build in minutes)."""


def build_flexible_links_robot(geom: RRRU3Geometry | None = None, E: float = 6.9e8,
                               nu: float = 0.3, radius: float = 0.01,
                               n_elements: int = 1, mode: str = "inverse", path=None,
                               torques=None, formulation: str = "structural",
                               link_model: str = "ancf_beam", link_basis: str = "bezier",
                               link_coordinates: int = 4,
                               link_kinematics: str = "fourth_order", drive: str = "path",
                               link_segments: int = 1, joint_sections: str = "free",
                               controllers=None) -> FlexibleLinksRobot:
    """Build the Liu et al. 2018 robot with :class:`fem.Robot` (see the module docstring).

    Parameters
    ----------
    mode : 'inverse' or 'forward'
        'inverse': the motors' torques are unknowns — P follows ``path`` (held at the
        start by default) or, with ``drive="joints"``, each motor is a servo on the rigid
        robot's angle for the path (:class:`~fem.robots.rrru3_model.JointMotion`; P then
        leaves the path by the links' deflection).  'forward': the motors apply
        ``torques`` (three callables ``t -> τ_k``).
    n_elements : int
        ANCF beam elements per link 3.
    formulation : str
        The beam's energy (``ancf_beam``: 'structural', or 'continuum' for comparison).
    link_model : {'ancf_beam', 'floating_frame', 'reduced', 'rigid'}
        Links 3 as ANCF beams, as floating-frame links (``link_basis`` with
        ``link_coordinates`` functions per field, ``link_kinematics``), as reduced links
        (:class:`fem.robot.Reduced`: the Craig–Bampton modes of an FE model of ``n_elements``
        ANCF beam elements, its end sections' points and gradients the interfaces, with
        ``link_coordinates`` fixed-interface modes), or rigid (the rods' rigid
        equivalents: the rigid robot, e.g. a computed-torque model).
    link_segments : int
        Floating-frame and reduced links: each link 3 as this many links of equal
        length joined by fixed joints (substructuring: each segment turns elastically
        ``link_segments`` times less, and the truncation of its kinematics falls with it,
        ``docs/floating_frame.md``).
    joint_sections : {'free', 'square'}
        ANCF links: 'square' keeps the beam's end sections at C and U undistorted
        (``r_y·r_z = 0`` there, one row each): the joints act on ``r_z`` alone, so with
        'free' the torsion at a joint shears that node's section and the robot softens
        with the element count (``docs/ancf_beam.md``).
    drive : {'path', 'joints'}
        Inverse mode: task motors on the path of P, or servo motors on the joints.
    controllers : sequence of 3 dicts or controllers, optional
        'control' mode: each motor a :class:`fem.robot.PD` with these keyword arguments
        (``kp``, ``kd``, ``feedforward``, ``period``, ``limit``), its reference the
        rigid robot's angle along ``path`` unless a dict gives ``reference``; or the
        controller itself (e.g. one :class:`fem.robot.ComputedTorque` for all three).

    Returns
    -------
    FlexibleLinksRobot
        ``robot`` is the :class:`fem.Robot`; ``W`` are the platform vertices (U centres).
    """
    from ..robot import AncfBeam, FloatingFrame, ReducedBeam, Rigid, Robot, pose

    geom = liu2018_geometry() if geom is None else geom
    choice(mode, ("inverse", "forward", "control"), "mode")
    if mode == "forward" and (torques is None or len(torques) != 3):
        raise ModelError("forward mode needs torques=(τ1, τ2, τ3), callables of time")
    if mode == "control" and (controllers is None or len(controllers) != 3):
        raise ModelError("control mode needs controllers=(…, …, …): three dicts of "
                         "fem.robot.PD's arguments")
    if int(n_elements) < 1:
        raise ModelError(f"n_elements per link must be ≥ 1, got {n_elements}")
    choice(link_model, ("ancf_beam", "floating_frame", "reduced", "rigid"), "link_model")
    choice(drive, ("path", "joints"), "drive")
    choice(joint_sections, ("free", "square"), "joint_sections")
    link_segments = integer(link_segments, "link_segments (floating-frame or reduced "
                            "bodies per link 3)", minimum=1)
    link_coordinates = integer(link_coordinates, "link_coordinates (functions per field of "
                               "a floating frame, modes of a reduced link)",
                               minimum=0 if link_model == "reduced" else 1)
    if link_model in ("floating_frame", "reduced") and link_segments > _MAX_SEGMENTS:
        # measured: 60–130 ms to build each segment (three bodies and their joints, on
        # a loaded 2-core machine), more to solve; 100000 ran for hours before answering
        raise ModelError(f"link_segments = {link_segments} would build "
                         f"{3 * link_segments} {link_model.replace('_', '-')} bodies (about "
                         f"{0.1 * link_segments / 60:.0f} min only to build the model, "
                         f"~{3 * link_segments * (12 + 4 * link_coordinates + 4)} "
                         f"coordinates); at most {_MAX_SEGMENTS} are accepted — refine the "
                         "link with link_coordinates instead")
    if link_model == "reduced" and int(n_elements) < 2 and link_coordinates > 0:
        raise ModelError(f"a reduced link 3 is reduced from an FE model of n_elements "
                         f"ANCF beam elements per segment; n_elements = {n_elements} has no "
                         f"interior node, so none of the {link_coordinates} fixed-interface "
                         "modes asked (link_coordinates) — give n_elements ≥ 2, or "
                         "link_coordinates=0 for its static modes alone")
    S = link_segments if link_model in ("floating_frame", "reduced") else 1
    l3, m3 = geom.link_lengths[2], geom.link_masses[2]
    mat = Material(E, nu, m3 / (np.pi * radius**2 * l3), name="link 3")
    P0 = np.asarray(geom.start_point, float)
    jp = joint_positions(geom, P0)
    robot = Robot(f"rrru3_flexible_links_{mode}", gravity=(0.0, 0.0, -geom.gravity))
    robot.model.view = "iso"
    # the platform: a uniform triangular lamina through the U centres (its vertices)
    V0 = np.array([jp["U"][0, k] for k in range(3)])
    c = V0.mean(axis=0)
    J = geom.platform_mass / 12 * sum(np.outer(s, s) for s in V0 - c)
    robot.add_link("platform", Rigid(geom.platform_mass + geom.payload_mass,
                                     inertia=np.trace(J) * np.eye(3) - J),
                   {"P": pose(c), **{f"U{k + 1}": pose(V0[k]) for k in range(3)}})
    motion = (JointMotion(geom, path or constant_path(P0))
              if drive == "joints" or mode == "control" else None)
    chains = []
    reduced_beams: dict = {}
    for k in range(3):
        t, u = geom.tangent(k), geom.actuator_axis(k)
        A, B, C, U = jp["A"][k], jp["B"][0, k], jp["C"][0, k], jp["U"][0, k]
        a = np.cross(t, C - B)
        limb = f"limb {k + 1}"
        for i, (p, q, z0, z1) in enumerate(((A, B, u, t), (B, C, t, a))):
            m, L = geom.link_masses[i], float(np.linalg.norm(q - p))
            robot.add_link(f"{limb} link{i + 1}", Rigid(m, com=(L / 2, 0, 0), inertia=np.diag(
                [0.0, 1.0, 1.0]) * m * L**2 / 12), {"ABC"[i]: pose(p, z=z0, x=q - p),
                                                     "ABC"[i + 1]: pose(q, z=z1, x=q - p)})
        names = [f"{limb} link3"] if S == 1 else [f"{limb} link3 segment {j + 1}"
                                                  for j in range(S)]
        ends = [C + j / S * (U - C) for j in range(S + 1)]
        for j, nm in enumerate(names):
            spec = AncfBeam(mat, radius=radius, elements=int(n_elements),
                            formulation=formulation) if link_model != "floating_frame" else \
                FloatingFrame(mat, radius=radius, basis=link_basis,
                              functions=link_coordinates, kinematics=link_kinematics)
            frames3 = {"C" if j == 0 else "root": pose(ends[j], z=a, x=U - C),
                       "U" if j == S - 1 else "tip": pose(ends[j + 1], z=a, x=U - C)}
            if link_model == "reduced":
                spec = ReducedBeam(spec, modes=link_coordinates)
            if link_model == "rigid":     # the rigid robot: the rod's rigid equivalent
                spec = spec.rigid_equivalent(nm, frames3)
            link = robot.add_link(nm, spec, frames3)
            if link.beam is not None:        # a reduced beam: read as a beam
                reduced_beams[nm] = link.beam
            if j:
                robot.add_joint(f"{names[j - 1]}–{j + 1}", "fixed", (names[j - 1], "tip"),
                                (nm, "root"))
        chains.append(names)
        if link_model == "reduced" and S > 1:   # pictures: the link's bending, C to U
            c_, u_ = robot.frame(names[0], "C"), robot.frame(names[-1], "U")
            for nm in names:
                robot.model.add_link_frame(robot.links[nm].body, c_.origin, u_.origin,
                                           c_.basis[1])
        robot.add_joint(f"{limb} R1", "revolute", "ground", (f"{limb} link1", "A"))
        robot.add_joint(f"{limb} R2", "revolute", (f"{limb} link1", "B"),
                        (f"{limb} link2", "B"))
        robot.add_joint(f"{limb} R3", "revolute", (f"{limb} link2", "C"), (names[0], "C"))
        b = V0[(k + 1) % 3] - V0[(k + 2) % 3]           # the edge facing limb k, ∥ t_k
        robot.add_joint(f"U{k + 1}", "universal", (names[-1], "U"), ("platform", f"U{k + 1}"),
                        axis="z", axis2=b / np.linalg.norm(b))
        if joint_sections == "square" and link_model == "ancf_beam":
            for f in ("C", "U"):
                fr = robot.frame(names[0], f)
                robot.model.add_constraint(Dot(fr.basis[1], fr.basis[2], 0.0,
                                               f"{limb} link3 section at {f} square"))
        if mode == "forward":
            robot.add_motor(f"motor {k + 1}", f"{limb} R1", effort=torques[k])
        elif mode == "control":
            from ..robot import PD

            d = B - A
            zero = np.arctan2(d @ np.cross(u, geom.radial(k)), d @ geom.radial(k))
            if isinstance(controllers[k], dict):
                c = dict(controllers[k])
                c.setdefault("reference", motion.motion(k, zero))
                ctrl = PD(**c)
            else:                           # a controller object (one law for all three)
                ctrl = controllers[k]
            robot.add_motor(f"motor {k + 1}", f"{limb} R1", controller=ctrl)
        elif motion is not None:
            d = B - A
            zero = np.arctan2(d @ np.cross(u, geom.radial(k)), d @ geom.radial(k))
            robot.add_motor(f"motor {k + 1}", f"{limb} R1", servo=motion.motion(k, zero))
        else:
            robot.add_motor(f"motor {k + 1}", f"{limb} R1")
    model = robot.model
    frames = {n: robot.frame("platform", n) for n in ("P", "U1", "U2", "U3")}
    base = [model.ground(geom.actuator_position(k)) for k in (0, 1, 2, 0)]
    model.add_sketch(base, "static platform")
    V = [frames[f"U{k + 1}"].origin for k in range(3)]
    model.add_sketch([*V, V[0]], "moving platform")
    path_con = None
    if mode == "inverse" and drive == "path":
        path_con = robot.add_path("path of P", ("platform", "P"), path or constant_path(P0))
    elif mode == "inverse":
        path_con = [m.drive for m in robot.motors.values()]
    built = [[robot.links[n] for n in names] for names in chains]
    ancf = link_model == "ancf_beam"
    if link_model == "rigid":
        built = []
    rm = FlexibleLinksRobot(
        model, geom, "flexible_links", frames["P"].origin, V,
        [robot.frame(f"limb {k + 1} link1", "A").origin for k in range(3)],
        [robot.frame(f"limb {k + 1} link1", "B").origin for k in range(3)],
        [m.actuator for m in robot.motors.values()], path_con,
        beams=[c[0].group for c in built] if ancf else [],
        beam_nodes=[np.r_[c[0].group.nodes[:, 0], c[0].group.nodes[-1, -1]] for c in built]
        if ancf else [], link_bodies=[] if ancf else [b.body for c in built for b in c],
        link_segments=[] if ancf else [[reduced_beams.get(b.name, b.body) for b in c]
                                       for c in built], robot=robot)
    asm = model.assemble()
    rm.counts = {"n_coordinates": asm.n, "n_constraints": asm.m,
                 "n_elements_per_link": int(n_elements) if ancf else 0}
    if not ancf:
        rm.counts["n_segments_per_link"] = S
    return rm


def _segment_at(chain, s: float):
    """The body of a segmented link holding arc length ``s`` [m] from C, and ``s`` on it."""
    Ls = chain[0].length if isinstance(chain[0], ReducedBeamView) else chain[0].link.length
    j = int(min(max(np.floor(s / Ls), 0), len(chain) - 1))
    return chain[j], s - j * Ls


def platform_tilt(rm: RobotModel, q: np.ndarray) -> float:
    """Angle [rad] between the platform normal and Z."""
    V = [v(q) for v in rm.W]
    n = np.cross(V[1] - V[0], V[2] - V[0])
    return float(np.arccos(min(1.0, abs(n[2]) / np.linalg.norm(n))))


def link_midpoint_outputs(rm: RobotModel, q: np.ndarray) -> dict[str, np.ndarray]:
    """Per limb at the mid-point of link 3: transverse deformation [m] (distance of the
    centreline point from the chord C–U) and the shear angles [rad] (both planes)."""
    defl, shear = np.zeros(3), np.zeros((3, 2))
    for k, chain in enumerate(rm.link_segments):    # Euler–Bernoulli: no shear
        S = len(chain)         # the mid-point: a segment's middle (S odd) or its tip
        mid = chain[S // 2].centreline(q, 3)[1] if S % 2 else \
            chain[S // 2 - 1].centreline(q, 3)[-1]
        c, u = chain[0].centreline(q, 3)[0], chain[-1].centreline(q, 3)[-1]
        d = (u - c) / np.linalg.norm(u - c)
        r = mid - c
        defl[k] = np.linalg.norm(r - (r @ d) * d)
        if isinstance(chain[0], ReducedBeamView):   # the FE beam's shear
            seg, x = _segment_at(chain, 0.5 * S * chain[0].length)
            shear[k] = seg.shear_angles(q, x)
    if rm.link_bodies:
        return {"deformation": defl, "shear_angle": shear}
    for k, (g, nodes) in enumerate(zip(rm.beams, rm.beam_nodes, strict=True)):
        ne = g.n_elements                   # mid-point: a node (even) or a centre (odd)
        e, xi = (ne // 2 - 1, 1.0) if ne % 2 == 0 else (ne // 2, 0.0)
        qe = q[g.dofs]
        mid = g.family.centreline(qe, [[xi]])[e, 0]
        c = q[rm.model.node_dofs(int(nodes[0]), "r")]
        u = q[rm.model.node_dofs(int(nodes[-1]), "r")]
        d = (u - c) / np.linalg.norm(u - c)
        r = mid - c
        defl[k] = np.linalg.norm(r - (r @ d) * d)
        st = g.family.strains(qe, np.array([[xi]]))
        shear[k] = [st["shear_angle_y"][e, 0], st["shear_angle_z"][e, 0]]
    return {"deformation": defl, "shear_angle": shear}


def gauge_strains(rm: RobotModel, q: np.ndarray, limb: int = 0,
                  distances=(0.200, 0.4075, 0.600), radius: float = 0.01,
                  recovered: bool = False) -> np.ndarray:
    """Axial surface strains on link 3 of ``limb`` at ``distances`` [m] from the upper
    joint C (liu2018 Table 3), at the four surface points ±y, ±z: (n_distances, 4).

    ``recovered`` (ANCF links, and reduced links' FE beams segment by segment): the
    strains at the element centres, interpolated
    linearly to the gauges (extrapolated from the two nearest centres before the first
    and after the last).  The structural element's curvature is constant per element, so
    its strain at a point converges only with the element size h — most slowly at the
    element ends, where the gauges of the paper sit with 8 elements per link — while the
    centre values, the element's mean curvature, converge with h²: on the links robot's
    circle (``drive=joints``), 8 → 16 elements moved the gauges' extremes by up to 7 %
    point-wise and 2 % recovered, 16 → 32 by 0.5 % recovered.  Floating-frame links
    evaluate their continuous fields at the point either way.
    """
    sides = ((radius, 0), (-radius, 0), (0, radius), (0, -radius))
    if rm.link_bodies:
        chain = rm.link_segments[limb]
        if isinstance(chain[0], ReducedBeamView):     # each segment's FE beam
            out = np.zeros((len(distances), 4))
            for i, s in enumerate(distances):
                seg, x = _segment_at(chain, s)
                out[i] = _beam_gauges(lambda xi, seg=seg: seg.strains(q, xi),
                                      seg.group.family.L, [x], sides, recovered)[0]
            return out
        return np.array([[body.surface_strain(q, x, y, z) for y, z in sides]
                         for body, x in (_segment_at(chain, s) for s in distances)])
    g = rm.beams[limb]
    qe = q[g.dofs]
    return _beam_gauges(lambda xi: g.family.strains(qe, xi), g.family.L, distances, sides,
                        recovered)


def _beam_gauges(strains, L: np.ndarray, distances, sides, recovered: bool) -> np.ndarray:
    """The axial strains (n_distances, 4) at ``distances`` [m] from the start of beam
    elements of lengths ``L`` whose strains at ``ξ`` are ``strains([[ξ]])``, at the
    section points ``sides``: from the element centres interpolated linearly
    (``recovered``, more than one element) or at each gauge's point of its element."""
    edges = np.concatenate([[0.0], np.cumsum(L)])
    if recovered and len(L) > 1:
        centres = 0.5 * (edges[1:] + edges[:-1])
        st = strains([[0.0]])                       # one evaluation for the four sides
        at = np.array([fibre_strain(st, y, z)[:, 0] for y, z in sides])
        out = np.zeros((len(distances), 4))
        for i, s in enumerate(distances):
            e = int(np.clip(np.searchsorted(centres, s) - 1, 0, len(centres) - 2))
            w = (s - centres[e]) / (centres[e + 1] - centres[e])
            out[i] = (1.0 - w) * at[:, e] + w * at[:, e + 1]
        return out
    out = np.zeros((len(distances), 4))
    for i, s in enumerate(distances):
        e = int(min(np.searchsorted(edges, s, side="right") - 1, len(L) - 1))
        xi = 2.0 * (s - edges[e]) / L[e] - 1.0
        st = strains([[xi]])                        # one evaluation for the four sides
        for j, (y, z) in enumerate(sides):
            out[i, j] = fibre_strain(st, y, z)[e, 0]
    return out


def equilibrium_under_torques(geom: RRRU3Geometry, torques, tol: float = 1e-10,
                              max_iter: int = 20, **build) -> tuple[np.ndarray, np.ndarray]:
    """Static state of the torque-driven robot: the platform position ``P`` where the
    flexible robot's holding torques equal ``torques`` (3,) [N·m].

    Newton on P (3 unknowns) over static solves with P held (central-difference
    Jacobian, 1 µm); the torque-driven model's own static tangent is singular at rest
    (its three mechanism freedoms carry no stiffness before the multipliers exist).
    Each static solve starts from the last one's state (the first from the reference
    configuration): the differences' solves are 1 µm away from it, the next Newton
    point a small correction (seed 001, 2 elements a link: 46 Newton iterations over the
    29 solves instead of 236; q and P the same to 1.4e-15).
    ``build``: keyword arguments of :func:`build_flexible_links_robot`.  Returns
    ``(q, P)``; ``q`` has the layout of both the forward and the inverse model.
    """
    from ..solvers import solve_static

    target = np.asarray(torques, float).reshape(3)

    def holding(P, start=None):
        rm = build_flexible_links_robot(geom, path=constant_path(P), **build)
        st = solve_static(rm.model, start, tol=1e-12)
        asm = rm.model.assemble()
        return np.array([asm.efforts(st.lam)[a.name] for a in rm.actuators]), st.q

    P = np.asarray(geom.start_point, float).copy()
    q = None
    for _ in range(max_iter):
        tau, q = holding(P, q)
        r = tau - target
        if np.abs(r).max() <= tol * max(1.0, np.abs(target).max()):
            return q, P
        h = 1e-6
        J = np.column_stack([(holding(P + h * e, q)[0] - holding(P - h * e, q)[0]) / (2 * h)
                             for e in np.eye(3)])
        P = P - np.linalg.solve(J, r)
    raise ModelError(f"no static state holds the torques {target.tolist()} N·m near "
                     f"{geom.start_point} (last residual {np.abs(r).max():.2e} N·m)")
