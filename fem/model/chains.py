"""Minimal-coordinate models of floating-frame links (Fan and Zhang 2016, eq 1).

A :class:`HubLink` is one :class:`~fem.elements.floating_frame.FloatingFrameLink` clamped
to a hub that turns about the global z axis: coordinates ``q = [θ, e]`` (hub angle, the
link's elastic coordinates).  The hub angle is free or prescribed (``hub_angle(t) ->
(θ, θ̇, θ̈)``, one constraint row ``θ − θ_p(t) = 0`` whose multiplier is the hub torque).

Every material point is a *nonlinear point map* ``r(x; q) = R(θ) p(x; e)``
(:class:`PointMap`: value, Jacobian ``J = ∂r/∂q`` and acceleration term ``κ = J̇ q̇``).
A chain is a model of its own: ``assemble()`` gives its system in the solver contract
(:mod:`fem.assembly.chains`), ``to_model()`` the same chain as a :class:`fem.Model` of
floating-frame bodies and joints.

:class:`PlanarChain` joins links by pin joints about parallel (z) axes;
:class:`SpatialChain` (built by :func:`dh_chain`) by revolute joints placed with
Denavit–Hartenberg parameters, its links bending in two planes and twisting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

from ..assembly.chains import HubLinkSystem, PlanarChainSystem, SpatialChainSystem
from ..bodies.chain_inertia import RotationProduct, rotation_z
from ..bodies.floating_frame import axis_rotation
from ..core.errors import ModelError
from ..core.validate import finite, vector3
from ..elements.floating_frame import FloatingFrameLink

__all__ = ["HubLink", "PointMap", "PlanarChain", "SpatialChain", "dh_chain",
           "KINEMATICS_RANGE"]


KINEMATICS_RANGE = {"paper": 0.3, "curvature_only": 0.3, "foreshortening_only": 0.3,
                    "fourth_order": 0.5}
"""A link's transverse tip deflection, as a fraction of its length, past which a run
warns (:meth:`HubLink.past_kinematics_range`): the kinematics keep the slopes to first
('paper') or third order ('fourth_order'), and at 30 % (a cantilever's tip slope ≈ 0.45)
the neglected slope² is already ~20 %."""


class HubLink:
    """A flexible link on a revolute hub about the global z axis (see module docstring).

    Parameters
    ----------
    link : FloatingFrameLink
    hub_angle : callable or None
        Prescribed hub motion ``t -> (θ, θ̇, θ̈)``; None leaves the hub free.
    hub_inertia : float
        Hub moment of inertia about z [kg·m²].
    gravity : array_like (3,)
    name : str
    """

    drawing: ClassVar[str] = "centrelines"
    """How output draws the model (:func:`fem.io.output.drawing_for`): the centre lines of
    its links and a hub disc (:class:`fem.io.centreline.CentrelineDrawing`)."""
    chain: ClassVar[bool] = False
    """A chain of links (``links``, ``elastic_dofs``, ``centrelines(q, n_points)``); False:
    one link on a hub (``link``, ``centreline(q, n_points)``, ``q = [θ, e]``), whose one
    constraint row, when its hub is driven, is the drive."""
    spatial: ClassVar[bool] = False
    """The link frames turn in space (``frames(q)``); False: about the global z axis."""

    def __init__(self, link: FloatingFrameLink, hub_angle: Callable | None = None,
                 hub_inertia: float = 0.0, gravity=(0.0, 0.0, 0.0), name: str = "hub_link"):
        if not isinstance(link, FloatingFrameLink):
            raise ModelError(f"HubLink: link must be a FloatingFrameLink, got "
                             f"{type(link).__name__}")
        if hub_angle is not None and not callable(hub_angle):
            raise ModelError("HubLink: hub_angle is a function t -> (θ, θ̇, θ̈) or None")
        self.link = link
        self.hub_angle = hub_angle
        self.hub_inertia = finite(hub_inertia, "HubLink: hub inertia [kg·m²]")
        if self.hub_inertia < 0:
            raise ModelError(f"HubLink: hub inertia must be >= 0, got {self.hub_inertia}")
        if hub_angle is None and self.hub_inertia == 0.0:
            raise ModelError("HubLink: a free hub needs a positive hub inertia")
        self.gravity = vector3(gravity, "HubLink: gravity")
        self.name = name
        self.n_dof = 1 + link.n_coordinates
        self._assembly = None
        # coordinate names for solver diagnoses (fem.solvers.diagnosis.dof_label)
        self.node_fields: list[dict[str, int]] = []
        self.node_names: list[str] = []

    @property
    def q0(self) -> np.ndarray:
        return np.zeros(self.n_dof)

    def assemble(self) -> HubLinkSystem:
        if self._assembly is None:
            self._assembly = HubLinkSystem(self)
        return self._assembly

    def point(self, x: float) -> PointMap:
        """The material point at distance ``x`` from the hub along the link."""
        return PointMap(self, float(x))

    def tip_deflection(self, q: np.ndarray) -> tuple[float, float, float]:
        """Tip displacement in the rotating (hub) frame: axial ``u_x``, ``u_y``, ``u_z``."""
        p, _, _ = self.link.local(q[1:], np.array([self.link.length]))
        return (float(p[0, 0] - self.link.length), float(p[0, 1]), float(p[0, 2]))

    def past_kinematics_range(self, qs) -> str | None:
        """A warning's text when a link's transverse tip deflection in the states ``qs``
        (records of a run) exceeds the range its kinematics are built for
        (:data:`KINEMATICS_RANGE`, a fraction of its length: the slopes are small, the
        neglected terms of order slope² for 'paper', slope⁴ for 'fourth_order'); None
        inside it.  At most 200 states are looked at (evenly spaced)."""
        qs = np.asarray(qs, float)
        if qs.ndim != 2 or not len(qs):
            return None
        qs = qs[np.unique(np.linspace(0, len(qs) - 1, min(len(qs), 200)).astype(int))]
        links = getattr(self, "links", [self.link])
        dofs = getattr(self, "elastic_dofs", [np.arange(1, 1 + self.link.n_coordinates)])
        worst = None
        for i, (lk, d) in enumerate(zip(links, dofs, strict=True)):
            limit = KINEMATICS_RANGE.get(lk.kinematics, KINEMATICS_RANGE["paper"])
            for q in qs:
                p = lk.local(q[d], np.array([lk.length]))[0]
                ratio = float(np.hypot(p[0, 1], p[0, 2])) / lk.length
                if ratio > limit and (worst is None or ratio > worst[1]):
                    worst = (i, ratio, limit, lk.kinematics)
        if worst is None:
            return None
        i, ratio, limit, kin = worst
        which = f"link {i + 1}" if len(links) > 1 else "the link"
        return (f"{type(self).__name__}: {which} deflects {ratio:.0%} of its length at its "
                f"tip, past the range of its kinematics {kin!r} (small slopes: "
                f"{limit:.0%}); the answer is outside what the model describes — use "
                "stiffer links, smaller loads or motions, or "
                "kinematics='fourth_order'" if kin != "fourth_order" else
                f"{type(self).__name__}: {which} deflects {ratio:.0%} of its length at its "
                f"tip, past the range of its kinematics {kin!r} ({limit:.0%}); the answer is "
                "outside what the model describes — use stiffer links, smaller loads or "
                "motions, or a large-deformation model (ANCF beams)")

    def centreline(self, q: np.ndarray, n_points: int = 41) -> np.ndarray:
        """Deformed centre line in space (n_points, 3) — for drawing."""
        x = np.linspace(0.0, self.link.length, n_points)
        p, _, _ = self.link.local(q[1:], x)
        return p @ rotation_z(q[0])[0].T

    def energy(self, q: np.ndarray, v: np.ndarray) -> dict[str, float]:
        """Kinetic, strain and gravitational energy [J]."""
        asm = self.assemble()
        M = asm.mass_matrix(q)
        r = self.link.local(q[1:])[0] @ rotation_z(q[0])[0].T
        wm = self.link.w * self.link.rho_A
        return {"kinetic": 0.5 * float(v @ M @ v),
                "strain": self.link.strain_energy(q[1:]),
                "gravity": -float(wm @ (r @ self.gravity))}


    # ------------------------------------------------ the same system in the DAE core
    def to_model(self, rotary_inertia: str = "twist"):
        """The same hub link as a :class:`fem.Model`: a floating-frame body
        (:meth:`fem.Model.add_floating_frame`) on a revolute joint about z at the
        origin, the hub drive an :class:`~fem.AngleDrive` of the frame axis ``u`` (its
        multiplier ``λ`` gives the hub torque ``−λ``).  ``rotary_inertia="twist"`` is this
        chain's own model of the section (same motion); "section" adds the section's
        rotary inertia to the frame's rotations."""
        from ..constraints import AngleDrive
        from .core import Model

        m = Model(self.name, gravity=self.gravity)
        I = self.hub_inertia
        b = m.add_floating_frame("link", self.link, rotary_inertia=rotary_inertia,
                                 hub_inertia=np.diag([I / 2, I / 2, I]) if I else None)
        _pin_z(m, b.origin, b, "hub")
        if self.hub_angle is not None:
            m.add_constraint(AngleDrive(m.ground((0.0, 0.0, 0.0), "hub centre"), b.axis(0),
                                        (0.0, 0.0, 1.0), (1.0, 0.0, 0.0), self.hub_angle,
                                        name="hub drive"))
        m.view = "xy"
        return m

    def dae_coordinates(self, model, q: np.ndarray) -> np.ndarray:
        """The coordinates of :meth:`to_model`'s model for this chain's ``q``."""
        Q = model.q0.copy()
        b = model.nonlinear_bodies[0]
        _set_frame(Q, b, np.zeros(3), rotation_z(q[0])[0], q[1:])
        return Q

    def dae_state(self, model, q: np.ndarray, v: np.ndarray, eps: float = 1e-6):
        """``(Q, V)`` of :meth:`to_model`'s model for this chain's state ``(q, q̇)``
        (``V`` by central differences of :meth:`dae_coordinates` along ``q̇``)."""
        Q = self.dae_coordinates(model, q)
        V = (self.dae_coordinates(model, q + eps * v)
             - self.dae_coordinates(model, q - eps * v)) / (2 * eps)
        return Q, V


def _set_frame(Q, body, origin, R, e) -> None:
    Q[body.frame_dofs] = np.concatenate([origin, R[:, 0], R[:, 1], R[:, 2]])
    Q[body.elastic_dofs] = e


def _pin_z(m, point, body, name: str, at=(0.0, 0.0, 0.0)) -> None:
    """A pin about the global z axis: ``point`` fixed at ``at``, the frame's ``w`` ∥ z."""
    from ..constraints import Coincident, Dot

    m.add_constraint(Coincident(point, m.ground(at, f"{name} centre"), f"{name} pin"))
    m.add_constraint(Dot(body.axis(2), m.ground((1.0, 0.0, 0.0), "x"), 0.0,
                         f"{name} axis ⊥ x"))
    m.add_constraint(Dot(body.axis(2), m.ground((0.0, 1.0, 0.0), "y"), 0.0,
                         f"{name} axis ⊥ y"))


class PointMap:
    """A material point of a :class:`HubLink` as a nonlinear map of the coordinates:
    value ``r(q)``, Jacobian ``∂r/∂q`` and acceleration term ``J̇ q̇`` (so that
    ``r̈ = J q̈ + J̇ q̇``)."""

    def __init__(self, model: HubLink, x: float):
        self.model = model
        self.x = x
        self.samples = model.link.sample([x])
        self.label = f"{model.name} point x = {x:g} m"

    def _parts(self, q):
        p, Pe, Q = self.model.link.local(q[1:], self.samples)
        return p[0], Pe[0], Q[0], rotation_z(q[0])

    def __call__(self, q: np.ndarray) -> np.ndarray:
        p, _, _, (R, _, _) = self._parts(q)
        return R @ p

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        p, Pe, _, (R, R1, _) = self._parts(q)
        return np.column_stack([R1 @ p, R @ Pe])

    def acceleration_term(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        p, Pe, Q, (R, R1, R2) = self._parts(q)
        w, ed = v[0], v[1:]
        return (R2 @ p * w * w + 2.0 * w * (R1 @ (Pe @ ed))
                - R[:, 0] * float(ed @ Q @ ed))


class PlanarChain(HubLink):
    """A serial chain of floating-frame links joined by pin joints about the global z
    axis, the first pinned at the origin (Fan and Zhang 2016, Fig 9).

    Coordinates ``q = [θ_1, e_1, θ_2, e_2, …]``: the relative joint angles and every link's
    elastic coordinates.  Link ``i`` starts at the tip of link ``i − 1`` and its frame turns
    by ``φ_i = Σ_{j≤i} θ_j + Σ_{j<i} Y′_j(L)·b_j`` — the joint angles plus the elastic
    slopes of the preceding tips (the D-H transforms of a planar chain with flexible
    links).  Material points ``r = o_i(q) + R(φ_i) p_i(x; e_i)``; every term is a rotated
    centre line ``R(c·q) p(e)`` whose derivatives are exact (``c`` constant).

    Parameters
    ----------
    links : list of FloatingFrameLink
    angles : sequence of float
        Initial joint angles [rad] (relative; the first from +x).
    gravity : array_like (3,)
    joint_stiffness : sequence of float or None
        Torsional springs of the joints [N·m/rad] (0: pin joints) — with ``tip_masses``
        the paper's flexible revolute joints (spring and joint mass).
    tip_masses : sequence of float or None
        Point masses [kg] at the tip of every link (the next joint's mass, or a payload
        at the last tip).
    """

    chain = True

    def __init__(self, links, angles, gravity=(0.0, -9.81, 0.0), joint_stiffness=None,
                 tip_masses=None, name: str = "planar_chain"):
        links = list(links)
        if not links or not all(isinstance(lk, FloatingFrameLink) for lk in links):
            raise ModelError("PlanarChain: links must be a non-empty list of "
                             "FloatingFrameLink")
        angles = np.asarray(angles, float).ravel()
        if angles.size != len(links) or not np.all(np.isfinite(angles)):
            raise ModelError(f"PlanarChain: one finite initial angle per link "
                             f"({len(links)}), got {angles.tolist()}")
        ks = np.zeros(len(links)) if joint_stiffness is None else \
            np.asarray(joint_stiffness, float).ravel()
        if ks.size != len(links) or np.any(ks < 0) or not np.all(np.isfinite(ks)):
            raise ModelError("PlanarChain: joint_stiffness is one value >= 0 per joint")
        tm = np.zeros(len(links)) if tip_masses is None else \
            np.asarray(tip_masses, float).ravel()
        if tm.size != len(links) or np.any(tm < 0) or not np.all(np.isfinite(tm)):
            raise ModelError("PlanarChain: tip_masses is one value >= 0 per link")
        self.tip_masses = tm
        self.links = links
        self.link = links[0]
        self.angles0 = angles
        self.joint_stiffness = ks
        self.hub_angle = None
        self.hub_inertia = 0.0
        self.gravity = vector3(gravity, "PlanarChain: gravity")
        self.name = name
        starts = np.cumsum([0] + [1 + lk.n_coordinates for lk in links])
        self.joint_dofs = starts[:-1]
        self.elastic_dofs = [np.arange(s + 1, s + 1 + lk.n_coordinates)
                             for s, lk in zip(starts[:-1], links, strict=True)]
        self.n_dof = int(starts[-1])
        self._assembly = None
        self.node_fields: list[dict[str, int]] = []
        self.node_names: list[str] = []

    @property
    def q0(self) -> np.ndarray:
        q = np.zeros(self.n_dof)
        q[self.joint_dofs] = self.angles0
        return q

    def assemble(self) -> PlanarChainSystem:
        if self._assembly is None:
            self._assembly = PlanarChainSystem(self)
        return self._assembly

    def to_model(self, rotary_inertia: str = "twist"):
        """The same chain as a :class:`fem.Model`: one floating-frame body per link
        (:meth:`fem.Model.add_floating_frame`), pin joints about z between a link's tip
        (a point map) and the next link's root, tip masses as point masses on the links.
        Joint springs exist only in the minimal-coordinate chain."""
        return _planar_to_model(self, rotary_inertia)

    def dae_coordinates(self, model, q: np.ndarray) -> np.ndarray:
        """The coordinates of :meth:`to_model`'s model for this chain's ``q``."""
        return _planar_dae_coordinates(self, model, q)

    def frame_vectors(self) -> list[np.ndarray]:
        """``c_i`` with ``φ_i = c_i · q`` (absolute frame angle of link i)."""
        out, c = [], np.zeros(self.n_dof)
        for i, lk in enumerate(self.links):
            c = c.copy()
            c[self.joint_dofs[i]] = 1.0
            out.append(c)
            _, dY, _ = lk.basis.bending(np.array([lk.length]))
            c = c.copy()
            c[self.elastic_dofs[i][lk.slices["y"]]] += dY[0]
        return out

    def centrelines(self, q: np.ndarray, n_points: int = 21) -> list[np.ndarray]:
        """Deformed centre lines of every link in space, each (n_points, 3)."""
        out, o = [], np.zeros(3)
        for lk, c, d in zip(self.links, self.frame_vectors(), self.elastic_dofs, strict=True):
            R = rotation_z(c @ q)[0]
            x = np.linspace(0.0, lk.length, n_points)
            p, _, _ = lk.local(q[d], x)
            out.append(o + p @ R.T)
            o = out[-1][-1]
        return out

    def tip_deflections(self, q: np.ndarray) -> np.ndarray:
        """Transverse tip deflection of every link in its own root frame [m]."""
        return np.array([lk.local(q[d], np.array([lk.length]))[0][0, 1]
                         for lk, d in zip(self.links, self.elastic_dofs, strict=True)])

    def energy(self, q: np.ndarray, v: np.ndarray) -> dict[str, float]:
        asm = self.assemble()
        kin = 0.5 * float(v @ asm.mass_matrix(q) @ v)
        strain = sum(lk.strain_energy(q[d]) for lk, d in zip(self.links, self.elastic_dofs,
                                                              strict=True))
        strain += 0.5 * float(self.joint_stiffness @ (q[self.joint_dofs] - self.angles0) ** 2)
        grav = -float(asm.wm @ (asm.positions(q) @ self.gravity))
        return {"kinetic": kin, "strain": strain, "gravity": grav}


def _planar_to_model(chain, rotary_inertia: str = "twist"):
    from ..constraints import Coincident, Dot
    from .core import Model

    if np.any(chain.joint_stiffness):
        raise ModelError(f"{chain.name}: joint springs (joint_stiffness) exist only in the "
                         "minimal-coordinate chain; to_model() builds pin joints")
    m = Model(chain.name, gravity=chain.gravity)
    q = chain.q0
    bodies = []
    for i, (lk, c, tm) in enumerate(zip(chain.links, chain.frame_vectors(),
                                        chain.tip_masses, strict=True)):
        R = rotation_z(c @ q)[0]
        o = np.zeros(3) if i == 0 else bodies[-1].centreline(m.q0, 2)[-1]
        b = m.add_floating_frame(f"link {i + 1}", lk, o, R, rotary_inertia=rotary_inertia,
                                 point_masses=[(lk.length, tm)] if tm else ())
        if i == 0:
            _pin_z(m, b.origin, b, "joint 1")
        else:
            prev = bodies[-1]
            m.add_constraint(Coincident(b.origin, prev.point(prev.link.length),
                                        f"joint {i + 1} pin"))
            m.add_constraint(Dot(b.axis(2), m.ground((1.0, 0.0, 0.0), "x"), 0.0,
                                 f"joint {i + 1} axis ⊥ x"))
            m.add_constraint(Dot(b.axis(2), m.ground((0.0, 1.0, 0.0), "y"), 0.0,
                                 f"joint {i + 1} axis ⊥ y"))
        bodies.append(b)
    m.view = "xy"
    return m


def _planar_dae_coordinates(chain, model, q):
    Q = model.q0.copy()
    o = np.zeros(3)
    for b, c, d in zip(model.nonlinear_bodies, chain.frame_vectors(), chain.elastic_dofs,
                       strict=True):
        R = rotation_z(c @ q)[0]
        _set_frame(Q, b, o, R, q[d])
        o = b.centreline(Q, 2)[-1]
    return Q


# ---------------------------------------------------------------------------------------
# spatial chains (D-H joints, links that bend in two planes and twist)
class SpatialChain(PlanarChain):
    """A serial chain of floating-frame links joined by revolute joints placed by
    Denavit–Hartenberg parameters; the links bend in two planes, stretch and twist.

    Coordinates ``q = [θ_1, e_1, θ_2, e_2, …]`` as in :class:`PlanarChain`.  Frames::

        S_1 = B,                  S_i = R_{i−1} T_{i−1}(e_{i−1})
        R_i = S_i R_z(θ_i) R_x(α_i)
        o_i = o_{i−1} + R_{i−1} p_{i−1}(L) + S_i (0, 0, d_i) + S_i R_z(θ_i) (a_i, 0, 0)

    Joint ``i`` turns about the z axis of ``S_i`` (the base frame ``B`` for the first, the
    deformed tip frame of link ``i − 1`` otherwise); ``d_i`` and ``a_i`` are rigid,
    massless offsets along that axis and along the new x axis, ``α_i`` the twist of the
    next joint axis about the link.  Link ``i`` lies along the x axis of ``R_i``.  The
    elastic tip rotation ``T(e) = R_z(Y′(L)·b) R_y(−Y′(L)·c) R_x(X(L)·d)`` carries the
    slopes and the twist at the tip into the next frame.  Every term of a material point is
    a product of constant and elementary rotations with angles linear in ``q`` times a
    centre line quadratic in ``e``, so ``J`` and ``∂²r/∂q∂q`` are exact.  With parallel
    axes (all ``α = 0``, ``a = d = 0``, ``B = I``) the chain is a :class:`PlanarChain`.

    Parameters
    ----------
    links : list of FloatingFrameLink
    angles : sequence of float
        Initial joint angles θ_i [rad].
    dh : sequence of (d, a, alpha) or None
        D-H offsets [m, m, rad] per joint (None: all zero).
    base : array_like (3, 3) or None
        Rotation of the base frame (None: identity).
    gravity : array_like (3,)
    joint_stiffness, tip_masses : sequence of float or None
        As in :class:`PlanarChain`.
    tip_torque : callable or None
        ``t -> (3,)`` a torque [N·m] in global axes on the last tip.
    """

    spatial = True

    def __init__(self, links, angles, dh=None, base=None, gravity=(0.0, 0.0, -9.81),
                 joint_stiffness=None, tip_masses=None, tip_torque=None,
                 name: str = "spatial_chain"):
        super().__init__(links, angles, gravity=gravity, joint_stiffness=joint_stiffness,
                         tip_masses=tip_masses, name=name)
        nl = len(self.links)
        for i, lk in enumerate(self.links):
            if lk.GJ == 0:
                raise ModelError(f"SpatialChain: link {i + 1}'s twist has no stiffness (GJ = "
                                 "0, FloatingFrameLink's default), so its twist coordinates "
                                 "are free and every solve is singular; give "
                                 "FloatingFrameLink(..., GJ=G·J, polar_inertia_per_length=ρ·I_p)")
        dh = np.zeros((nl, 3)) if dh is None else np.asarray(dh, float)
        if dh.shape != (nl, 3) or not np.all(np.isfinite(dh)):
            raise ModelError(f"SpatialChain: dh is one finite (d, a, alpha) per joint "
                             f"({nl}), got shape {dh.shape}")
        self.dh = dh
        B = np.eye(3) if base is None else np.asarray(base, float)
        if B.shape != (3, 3) or not np.allclose(B @ B.T, np.eye(3), atol=1e-9) \
                or np.linalg.det(B) < 0:
            raise ModelError("SpatialChain: base must be a proper 3×3 rotation matrix")
        self.base = B
        if tip_torque is not None and not callable(tip_torque):
            raise ModelError("SpatialChain: tip_torque is a function t -> (3,) or None")
        self.tip_torque = tip_torque
        self.tip_samples = [lk.sample([lk.length]) for lk in self.links]
        self.tip_vectors = [self._tip_vectors(i) for i in range(nl)]

    def assemble(self) -> SpatialChainSystem:
        if self._assembly is None:
            self._assembly = SpatialChainSystem(self)
        return self._assembly

    def to_model(self, rotary_inertia: str = "twist"):
        """The same chain as a :class:`fem.Model`: one floating-frame body per link
        (:meth:`fem.Model.add_floating_frame`) and a revolute joint per D-H row.

        Joint ``i`` (five rows): the link's root, moved back by ``a_i`` along its own
        ``u`` axis, coincides with the previous tip moved by ``d_i`` along the previous
        tip's section axis ``z`` (:meth:`~fem.bodies.FloatingFrameBody.direction`); the
        joint axis, the body vector ``(0, sin α_i, cos α_i)`` of link ``i``, stays normal
        to the previous tip's section axes ``x`` and ``y``.  The first joint does the same
        with the base frame.  Tip masses become point masses; joint springs and the tip
        torque exist only in the minimal-coordinate chain."""
        return _spatial_to_model(self, rotary_inertia)

    def dae_coordinates(self, model, q: np.ndarray) -> np.ndarray:
        """The coordinates of :meth:`to_model`'s model for this chain's ``q``."""
        Q = model.q0.copy()
        for b, (o, R), d in zip(model.nonlinear_bodies, self.frames(q), self.elastic_dofs,
                                strict=True):
            _set_frame(Q, b, o, R, q[d])
        return Q

    def _tip_vectors(self, i: int) -> list[tuple[int, np.ndarray]]:
        """(axis, c) of the elastic tip rotation of link ``i``: angle ``c·q``."""
        lk, d = self.links[i], self.elastic_dofs[i]
        Lx = np.array([lk.length])
        _, dY, _ = lk.basis.bending(Lx)
        X, _ = lk.basis.axial(Lx)
        out = []
        for axis, field, val in ((2, "y", dY[0]), (1, "z", -dY[0]), (0, "torsion", X[0])):
            c = np.zeros(self.n_dof)
            c[d[lk.slices[field]]] = val
            out.append((axis, c))
        return out

    def walk(self, q: np.ndarray, derivatives: bool = True):
        """Yield, per link, ``(R_i, origin terms)``: the rotation product of the link frame
        and the list of ``(rotation product, p, Pe, Q, cols)`` whose sum is the origin."""
        n, nl = self.n_dof, len(self.links)
        S = RotationProduct(n, 4 * nl, self.base)
        origin: list = []
        for i in range(nl):
            d_i, a_i, al_i = self.dh[i]
            if d_i:
                origin.append((S.copy(), np.array([[0.0, 0.0, d_i]]), None, None, None))
            c = np.zeros(n)
            c[self.joint_dofs[i]] = 1.0
            S.turn(2, c, q)
            if a_i:
                origin.append((S.copy(), np.array([[a_i, 0.0, 0.0]]), None, None, None))
            S.const(axis_rotation(0, al_i)[0])
            R = S.copy()
            yield R, list(origin)
            pt, Pt, Qt = self.links[i].local(q[self.elastic_dofs[i]], self.tip_samples[i])
            origin.append((R, pt, Pt, Qt, self.elastic_dofs[i]))
            for axis, cv in self.tip_vectors[i]:
                S.turn(axis, cv, q)

    def frames(self, q: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Origin and rotation of every link frame."""
        out = []
        for R, origin in self.walk(q):
            o = sum((Rt.R @ p[0] for Rt, p, *_ in origin), np.zeros(3))
            out.append((o, R.R))
        return out

    def centrelines(self, q: np.ndarray, n_points: int = 21) -> list[np.ndarray]:
        out = []
        for (o, R), lk, d in zip(self.frames(q), self.links, self.elastic_dofs, strict=True):
            x = np.linspace(0.0, lk.length, n_points)
            p, _, _ = lk.local(q[d], x)
            out.append(o + p @ R.T)
        return out

    def tip_deflections(self, q: np.ndarray) -> np.ndarray:
        """Tip deflections ``(u_y, u_z)`` of every link in its own frame [m] (nl, 2)."""
        return np.array([lk.local(q[d], np.array([lk.length]))[0][0, 1:]
                         for lk, d in zip(self.links, self.elastic_dofs, strict=True)])

    def tip_twists(self, q: np.ndarray) -> np.ndarray:
        """Twist angle at the tip of every link [rad]."""
        return np.array([float(lk.twist(q[d], [lk.length])[0])
                         for lk, d in zip(self.links, self.elastic_dofs, strict=True)])


def _spatial_to_model(chain, rotary_inertia: str = "twist"):
    from ..constraints import Coincident, Dot
    from .core import Model

    if np.any(chain.joint_stiffness) or chain.tip_torque is not None:
        raise ModelError(f"{chain.name}: joint springs (joint_stiffness) and the tip torque "
                         "exist only in the minimal-coordinate chain; to_model() builds "
                         "revolute joints without them")
    m = Model(chain.name, gravity=chain.gravity)
    B = chain.base
    bodies = []
    for i, ((o, R), lk, tm) in enumerate(zip(chain.frames(chain.q0), chain.links,
                                             chain.tip_masses, strict=True)):
        d_i, a_i, al_i = chain.dh[i]
        b = m.add_floating_frame(f"link {i + 1}", lk, o, R, rotary_inertia=rotary_inertia,
                                 point_masses=[(lk.length, tm)] if tm else ())
        root = b.origin - b.axis(0) * a_i if a_i else b.origin
        axis = b.axis(1) * np.sin(al_i) + b.axis(2) * np.cos(al_i) if al_i else b.axis(2)
        if i == 0:
            at = m.ground(B @ np.array([0.0, 0.0, d_i]), "joint 1 centre")
            normals = [m.ground(B[:, k], f"base {'xy'[k]}") for k in (0, 1)]
        else:
            prev = bodies[-1]
            L = prev.link.length
            at = prev.point(L)
            if d_i:
                at = at + prev.direction(L, 2) * d_i
            normals = [prev.direction(L, k) for k in (0, 1)]
        m.add_constraint(Coincident(root, at, f"joint {i + 1} pin"))
        for k, nk in enumerate(normals):
            m.add_constraint(Dot(axis, nk, 0.0, f"joint {i + 1} axis ⊥ {'xy'[k]}"))
        bodies.append(b)
    return m


def dh_chain(dh, lengths, masses, EA, EI_y, EI_z, GJ, basis: str = "bezier",
             n_coordinates: int = 4, angles=None, polar_inertia_per_length=None,
             kinematics: str = "paper", **kwargs) -> SpatialChain:
    """Build a :class:`SpatialChain` from D-H parameters and link data.

    Parameters
    ----------
    dh : array_like (nl, 3)
        ``(d, a, α)`` per joint [m, m, rad].
    lengths, masses, EA, EI_y, EI_z, GJ : float or sequence
        Per link (a scalar is used for every link): length [m], mass [kg], axial [N],
        bending [N·m²] and torsional [N·m²] stiffness.
    basis : str
        A :mod:`fem.bases` name.
    n_coordinates : int
        Functions per transverse field.
    angles : sequence or None
        Initial joint angles [rad] (None: zeros).
    polar_inertia_per_length : float or sequence or None
        ``ρI_p`` [kg·m] (None: 1 % of ρA m² — a thin section).
    kinematics : str
        Of every link (:class:`FloatingFrameLink`): 'paper' or 'fourth_order'.  The tip
        rotation carried into the next frame stays linear in the tip slopes.
    **kwargs
        Passed to :class:`SpatialChain` (base, gravity, joint_stiffness, tip_masses,
        tip_torque, name).
    """
    dh = np.asarray(dh, float)
    if dh.ndim != 2 or dh.shape[1] != 3 or dh.shape[0] < 1:
        raise ModelError(f"dh_chain: dh must be (n_links, 3) rows (d, a, alpha), got "
                         f"shape {dh.shape}")
    nl = dh.shape[0]

    def per_link(v, what):
        arr = np.broadcast_to(np.asarray(v, float), (nl,)) if np.ndim(v) == 0 else \
            np.asarray(v, float).ravel()
        if arr.size != nl:
            raise ModelError(f"dh_chain: {what} needs one value per link ({nl}), got "
                             f"{arr.size}")
        return arr

    Ls, ms = per_link(lengths, "lengths"), per_link(masses, "masses")
    ea, eiy, eiz, gj = (per_link(v, w) for v, w in ((EA, "EA"), (EI_y, "EI_y"),
                                                     (EI_z, "EI_z"), (GJ, "GJ")))
    ip = None if polar_inertia_per_length is None else \
        per_link(polar_inertia_per_length, "polar_inertia_per_length")
    links = []
    for i in range(nl):
        if not (Ls[i] > 0 and ms[i] > 0):
            raise ModelError(f"dh_chain: link {i + 1} needs length > 0 and mass > 0")
        rA = ms[i] / Ls[i]
        links.append(FloatingFrameLink(Ls[i], basis, n_coordinates, rA, ea[i], eiy[i],
                                       eiz[i], GJ=gj[i],
                                       polar_inertia_per_length=0.01 * rA if ip is None
                                       else ip[i], kinematics=kinematics))
    angles = np.zeros(nl) if angles is None else angles
    return SpatialChain(links, angles, dh=dh, **kwargs)
