"""The 3-RRRU robot of Liu et al. 2018: rigid triangular platform, flexible third links.

Liu et al. 2018 §2: the flagship's architecture
(:mod:`fem.robots.rrru3`) with a *rigid* equilateral platform (circumradius 0.06 m,
0.3 kg, natural coordinates: its three vertices, eq 6) and links 3 as shear-deformable
ANCF beams (:mod:`fem.elements.ancf_beam`; E = 6.9e8 Pa, ν = 0.3, circular section
r = 0.01 m).  Links 1/2/3: 2.0/0.3/1.2 kg, 0.375/0.090/0.815 m.

Per limb k (joint centres A → B → C → U as in :mod:`fem.robots.rrru3`):

* ``rigid_bar`` links A–B and B–C (positions only; eq 4), A fixed; both in the limb
  plane: ``(B − A)·t = 0``, ``(C − A)·t = 0``;
* link 3: ``n_elements`` ANCF beams from C to U; the section's ``r_z`` is the R3 axis
  ``a = t × (C − B)`` in the reference state;
* R3 at C: the beam's first node *is* the bar's end C (shared position) and its section
  turns about ``a`` only: ``r_z(C)·t = 0``, ``r_z(C)·(C − B) = 0`` (so ``r_z ∥ a``);
* U joint: the beam's last node *is* platform vertex k (shared position) and the first
  U axis (``r_z`` at U, carried by link 3) stays perpendicular to the second, the platform
  edge direction facing limb k: ``r_z(U)·(V_{k+1} − V_{k+2}) = 0``;
* a motor in R1 (:class:`~fem.actuators.RevoluteActuator` about ``u_k``).

The platform is a ``rigid_triangle`` on the three U nodes (three edge lengths); its
centre ``P`` is the mean of the vertices.  The rigid robot of :mod:`fem.robots.rrru3`
with the same masses (``seed001_geometry``; ``platform_inradius`` is then the distance
P → U = 0.06 m) is the reference.  Coordinates: 12 per beam node + 6 per limb for B and A
(A fixed): 90 with one element per link (the paper's 78 use planar two-coordinate links);
constraints: 33 (forward) and 36 with the three path rows (inverse).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..constraints import AngleDrive, Coincident, Dot, PrescribedPoint
from ..core.errors import ModelError
from ..core.validate import choice, integer
from ..elements.floating_frame import FloatingFrameLink
from ..model.actuators import RevoluteActuator
from ..model.builders import straight_beam
from ..model.core import Model
from ..model.linear_map import LinearMap
from ..model.materials import Material
from ..model.trajectory import CirclePath, CosineAccelerationProfile, circle_path
from .rrru3 import RRRU3Geometry, inverse_dynamics, joint_positions
from .rrru3_model import JointMotion, RobotModel, constant_path

__all__ = ["FlexibleLinksRobot", "liu2018_geometry", "liu2018_circle_path",
           "seed001_geometry", "seed001_circle_path",
           "build_flexible_links_robot", "rigid_torque_function", "link_midpoint_outputs",
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


def rigid_torque_function(geom: RRRU3Geometry, path, k: int):
    """``t -> τ_k(t)`` of the rigid robot along ``path`` (exact, closed-form kinematics)."""
    def tau(t: float) -> float:
        x, xd, xdd = path(np.atleast_1d(float(t)))
        return float(inverse_dynamics(geom, x, xd, xdd)[0][0, k])
    return tau


_MAX_SEGMENTS = 1000
"""``link_segments`` above this is refused (a model too large to build in minutes)."""


def build_flexible_links_robot(geom: RRRU3Geometry | None = None, E: float = 6.9e8,
                               nu: float = 0.3, radius: float = 0.01,
                               n_elements: int = 1, mode: str = "inverse", path=None,
                               torques=None, formulation: str = "structural",
                               link_model: str = "ancf_beam", link_basis: str = "bezier",
                               link_coordinates: int = 4,
                               link_kinematics: str = "fourth_order", drive: str = "path",
                               link_segments: int = 1, joint_sections: str = "free"
                               ) -> FlexibleLinksRobot:
    """Assemble the Liu et al. 2018 robot (see the module docstring).

    Parameters
    ----------
    mode : 'inverse' or 'forward'
        'inverse': P follows ``path`` (held at the start by default) through three servo
        rows; the motor torques are unknowns.  'forward': the motors apply ``torques``
        (three callables ``t -> τ_k``), no path rows.
    n_elements : int
        ANCF beam elements per link 3.
    formulation : str
        The beam's energy (``ancf_beam``: 'structural', or 'continuum' for comparison).
    link_model : {'ancf_beam', 'floating_frame'}
        Links 3 as ``n_elements`` ANCF beams, or as floating-frame bodies
        (:meth:`fem.Model.add_floating_frame`: Euler–Bernoulli with ``link_coordinates``
        functions per field of the ``link_basis`` basis, ``link_kinematics``) joined by
        the same joints — the U joint at the link's tip is a constraint on point maps.
    link_segments : int
        Floating-frame links: each link 3 as this many floating-frame bodies of equal
        length clamped to each other (substructuring): the root of each segment sits on
        the tip of the one before and its frame on that tip's section axes
        (:meth:`~fem.bodies.FloatingFrameBody.direction`).  Each segment then turns
        elastically ``link_segments`` times less, and the truncation of the link's
        kinematics (fourth order in the slopes) falls with it (``docs/floating_frame.md``).
        1: one body per link.
    joint_sections : {'free', 'square'}
        ANCF links: 'square' keeps the beam's end sections at the joints C and U
        undistorted (``r_y·r_z = 0`` there; one row each).  The joints act on ``r_z``
        alone, so with 'free' the torsional moment at a joint shears that node's section,
        whose stiffness is sampled at the nodes (``∝`` element length): the robot then
        softens ``∝`` the number of elements (``docs/ancf_beam.md``).  Floating-frame
        sections are rigid; no effect there.
    drive : {'path', 'joints'}
        Inverse mode: 'path' prescribes P (Liu et al. (2018); non-collocated); 'joints'
        has each motor follow the rigid robot's angle for the path through a servo row of
        its own (collocated, :class:`~fem.robots.rrru3_model.JointMotion`), so P leaves
        the path by the links' deflection.

    Returns
    -------
    FlexibleLinksRobot
        ``W`` are the platform vertices (U centres).
    """
    geom = seed001_geometry() if geom is None else geom
    choice(mode, ("inverse", "forward"), "mode")
    if mode == "forward" and (torques is None or len(torques) != 3):
        raise ModelError("forward mode needs torques=(τ1, τ2, τ3), callables of time")
    if int(n_elements) < 1:
        raise ModelError(f"n_elements per link must be ≥ 1, got {n_elements}")
    choice(link_model, ("ancf_beam", "floating_frame"), "link_model")
    choice(drive, ("path", "joints"), "drive")
    choice(joint_sections, ("free", "square"), "joint_sections")
    link_segments = integer(link_segments, "link_segments (floating-frame bodies per "
                            "link 3)", minimum=1)
    if link_segments > _MAX_SEGMENTS:
        # measured: ~60 ms to build each segment (three bodies and their joints), more
        # to solve; 100000 ran for hours before anything answered
        raise ModelError(f"link_segments = {link_segments} would build "
                         f"{3 * link_segments} floating-frame bodies (about "
                         f"{0.06 * link_segments / 60:.0f} min only to build the model, "
                         f"~{3 * link_segments * (12 + 4 * int(link_coordinates) + 4)} "
                         f"coordinates); at most {_MAX_SEGMENTS} are accepted — refine the "
                         "link with link_coordinates instead")
    l3, m3 = geom.link_lengths[2], geom.link_masses[2]
    rho = m3 / (np.pi * radius**2 * l3)
    mat = Material(E, nu, rho, name="link 3")
    P0 = np.asarray(geom.start_point, float)
    jp = joint_positions(geom, P0)
    model = Model(f"rrru3_flexible_links_{mode}", gravity=(0.0, 0.0, -geom.gravity))
    model.view = "iso"
    A_maps, B_maps, beams, beam_nodes, rz_U, acts = [], [], [], [], [], []
    bodies: list = []
    segments: list = []
    for k in range(3):
        t = geom.tangent(k)
        A_node, B_node = model.add_nodes(r=[jp["A"][k], jp["B"][0, k]],
                                         names=[f"limb {k + 1} A", f"limb {k + 1} B"])
        C0, U0 = jp["C"][0, k], jp["U"][0, k]
        a = np.cross(t, C0 - jp["B"][0, k])
        if link_model == "ancf_beam":
            group, nodes = straight_beam(model, C0, U0, n_elements, mat,
                                         f"limb {k + 1} link3", up=a, section="circle",
                                         radius=radius, formulation=formulation)
        else:
            chain, nodes = _floating_link(model, k, C0, U0, a, mat, radius, link_basis,
                                          link_coordinates, link_kinematics,
                                          int(link_segments))
            body, tip = chain[0], chain[-1]
            bodies.extend(chain)
            segments.append(chain)
            group = None
        A, B = model.point(A_node), model.point(B_node)
        C = model.point(nodes[0])
        model.add_element("rigid_bar", [A_node, B_node], mass=geom.link_masses[0],
                          name=f"limb {k + 1} link1")
        model.add_element("rigid_bar", [B_node, nodes[0]], mass=geom.link_masses[1],
                          name=f"limb {k + 1} link2")
        model.fix(A_node, name=f"limb {k + 1} R1 centre")
        tk = model.ground(t, f"t{k + 1}")
        model.add_constraint(Dot(B - A, tk, 0.0, f"limb {k + 1} link 1 in plane"))
        model.add_constraint(Dot(C - A, tk, 0.0, f"limb {k + 1} link 2 in plane"))
        zc = model.node_field(nodes[0], "r_z") if group is not None else \
            body.frame.vector(body.rotation(model.q0).T @ (a / np.linalg.norm(a)))
        model.add_constraint(Dot(zc, tk, 0.0, f"limb {k + 1} R3 axis ⊥ t"))
        model.add_constraint(Dot(zc, C - B, 0.0, f"limb {k + 1} R3 axis ⊥ link 2"))
        act = RevoluteActuator(A, B, geom.actuator_axis(k), f"motor {k + 1}",
                               effort=None if mode == "inverse" else torques[k])
        model.add_actuator(act)
        acts.append(act)
        A_maps.append(A)
        B_maps.append(B)
        if group is not None:
            beams.append(group)
            beam_nodes.append(nodes)
            rz_U.append(model.node_field(nodes[-1], "r_z"))
            for nd, where in ((nodes[0], "C"), (nodes[-1], "U")) * (joint_sections == "square"):
                model.add_constraint(Dot(model.node_field(nd, "r_y"), model.node_field(nd, "r_z"),
                                         0.0, f"limb {k + 1} link3 section at {where} square"))
        else:
            beam_nodes.append(nodes)
            rz_U.append(tip.direction(tip.link.length, 2, f"limb {k + 1} link3 tip r_z"))
    U_nodes = [int(nd[-1]) for nd in beam_nodes]
    model.add_element("rigid_triangle", U_nodes, mass=geom.platform_mass, name="platform")
    V = [model.point(n) for n in U_nodes]
    P = LinearMap(np.concatenate([v.dofs for v in V]),
                  np.hstack([v.coef / 3.0 for v in V]), label="P")
    for k in range(3):
        b = V[(k + 1) % 3] - V[(k + 2) % 3]             # edge opposite vertex k, ∥ t_k
        model.add_constraint(Dot(rz_U[k], b, 0.0, f"U{k + 1} axes"))
    for k, chain in enumerate(segments):  # the U centre is the floating link's tip
        tip = chain[-1]
        model.add_constraint(Coincident(tip.point(tip.link.length), V[k],
                                        f"limb {k + 1} U joint"))
    if geom.payload_mass:
        model.add_point_mass(P, geom.payload_mass)
    base = [model.ground(geom.actuator_position(k)) for k in (0, 1, 2, 0)]
    model.add_sketch(base, "static platform")
    model.add_sketch([*V, V[0]], "moving platform")
    path_con = None
    if mode == "inverse" and drive == "joints":
        motion = JointMotion(geom, path or constant_path(P0))
        path_con = [model.add_constraint(AngleDrive(
            A_maps[k], B_maps[k], geom.actuator_axis(k), geom.radial(k), motion.motion(k),
            f"motor {k + 1} angle", servo=True)) for k in range(3)]
    elif mode == "inverse":
        path_con = model.add_constraint(PrescribedPoint(
            P, path or constant_path(P0), (0, 1, 2), "path of P", servo=True))
    rm = FlexibleLinksRobot(model, geom, "flexible_links", P, V, A_maps, B_maps, acts, path_con,
                            beams=beams, beam_nodes=beam_nodes, link_bodies=bodies,
                            link_segments=segments)
    asm = model.assemble()
    rm.counts = {"n_coordinates": asm.n, "n_constraints": asm.m,
                 "n_elements_per_link": int(n_elements) if not bodies else 0}
    if bodies:
        rm.counts["n_segments_per_link"] = int(link_segments)
    return rm


def _floating_link(model, k, C0, U0, a, mat, radius, basis, n_coordinates, kinematics,
                   n_segments=1):
    """Link 3 of limb ``k`` as ``n_segments`` floating-frame bodies from C to U: frame
    ``u`` along the link, ``w`` the R3 axis ``a`` made normal to it.  Returns the bodies
    (root to tip) and the node ids (C, U): C the first body's root node, U a new position
    node (a platform vertex).

    Segment ``j + 1`` is clamped to segment ``j``'s tip: its origin on the tip point (three
    rows) and its axes on the tip section's (``u ⊥ d_y``, ``u ⊥ d_z``, ``v ⊥ d_z``: with
    both triads orthonormal, the frame *is* the tip section)."""
    L = float(np.linalg.norm(U0 - C0))
    Ls = L / n_segments
    area, inertia = np.pi * radius**2, np.pi * radius**4 / 4
    G = mat.E / (2 * (1 + mat.nu))
    link = FloatingFrameLink(Ls, basis, int(n_coordinates), mat.rho * area, mat.E * area,
                             mat.E * inertia, mat.E * inertia, GJ=G * 2 * inertia,
                             polar_inertia_per_length=mat.rho * 2 * inertia,
                             kinematics=kinematics)
    u = (U0 - C0) / L
    w = a - (a @ u) * u
    w /= np.linalg.norm(w)
    R = np.column_stack([u, np.cross(w, u), w])
    name = f"limb {k + 1} link3"
    chain = [model.add_floating_frame(name if n_segments == 1 else f"{name} segment {j + 1}",
                                      link, C0 + j * Ls * u, R) for j in range(n_segments)]
    for j, (prev, nxt) in enumerate(zip(chain[:-1], chain[1:], strict=True)):
        where = f"{name} joint {j + 1}–{j + 2}"
        d_y, d_z = prev.direction(Ls, 1), prev.direction(Ls, 2)
        model.add_constraint(Coincident(nxt.origin, prev.point(Ls), f"{where} point"))
        model.add_constraint(Dot(nxt.axis(0), d_y, 0.0, f"{where} u ⊥ d_y"))
        model.add_constraint(Dot(nxt.axis(0), d_z, 0.0, f"{where} u ⊥ d_z"))
        model.add_constraint(Dot(nxt.axis(1), d_z, 0.0, f"{where} v ⊥ d_z"))
    C_node = model.add_node(name=f"limb {k + 1} C", r=C0)
    model.add_constraint(Coincident(chain[0].origin, model.point(C_node),
                                    f"limb {k + 1} R3 point"))
    U_node = model.add_node(name=f"limb {k + 1} U", r=U0)
    return chain, np.array([C_node, U_node])


def _segment_at(chain, s: float):
    """The body of a segmented link holding arc length ``s`` [m] from C, and ``s`` on it."""
    Ls = chain[0].link.length
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
                  distances=(0.200, 0.4075, 0.600), radius: float = 0.01) -> np.ndarray:
    """Axial surface strains on link 3 of ``limb`` at ``distances`` [m] from the upper
    joint C (liu2018 Table 3), at the four surface points ±y, ±z: (n_distances, 4)."""
    if rm.link_bodies:
        chain = rm.link_segments[limb]
        return np.array([[body.surface_strain(q, x, y, z)
                          for y, z in ((radius, 0), (-radius, 0), (0, radius), (0, -radius))]
                         for body, x in (_segment_at(chain, s) for s in distances)])
    g = rm.beams[limb]
    L = g.family.L
    edges = np.concatenate([[0.0], np.cumsum(L)])
    out = np.zeros((len(distances), 4))
    qe = q[g.dofs]
    for i, s in enumerate(distances):
        e = int(min(np.searchsorted(edges, s, side="right") - 1, len(L) - 1))
        xi = 2.0 * (s - edges[e]) / L[e] - 1.0
        for j, (y, z) in enumerate(((radius, 0), (-radius, 0), (0, radius), (0, -radius))):
            out[i, j] = g.family.surface_strain(qe, [[xi]], y, z)[e, 0]
    return out


def equilibrium_under_torques(geom: RRRU3Geometry, torques, tol: float = 1e-10,
                              max_iter: int = 20, **build) -> tuple[np.ndarray, np.ndarray]:
    """Static state of the torque-driven robot: the platform position ``P`` where the
    flexible robot's holding torques equal ``torques`` (3,) [N·m].

    Newton on P (3 unknowns) over static solves with P held (central-difference
    Jacobian, 1 µm); the torque-driven model's own static tangent is singular at rest
    (its three mechanism freedoms carry no stiffness before the multipliers exist).
    ``build``: keyword arguments of :func:`build_flexible_links_robot`.  Returns
    ``(q, P)``; ``q`` has the layout of both the forward and the inverse model.
    """
    from ..solvers import solve_static

    target = np.asarray(torques, float).reshape(3)

    def holding(P):
        rm = build_flexible_links_robot(geom, path=constant_path(P), **build)
        st = solve_static(rm.model, tol=1e-12)
        asm = rm.model.assemble()
        return np.array([asm.efforts(st.lam)[a.name] for a in rm.actuators]), st.q

    P = np.asarray(geom.start_point, float).copy()
    for _ in range(max_iter):
        tau, q = holding(P)
        r = tau - target
        if np.abs(r).max() <= tol * max(1.0, np.abs(target).max()):
            return q, P
        h = 1e-6
        J = np.column_stack([(holding(P + h * e)[0] - holding(P - h * e)[0]) / (2 * h)
                             for e in np.eye(3)])
        P = P - np.linalg.solve(J, r)
    raise ModelError(f"no static state holds the torques {target.tolist()} N·m near "
                     f"{geom.start_point} (last residual {np.abs(r).max():.2e} N·m)")
