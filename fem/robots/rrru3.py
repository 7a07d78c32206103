"""The 3-RRRU parallel robot of Liu et al. 2023: geometry, rigid kinematics, reference dynamics.

Liu, Wang, Feng, Zhao (2023), *Trans. CSAM* 54(12) (key liu2023): §3.1, Fig. 6, eqs 30–37 and
§5; the same architecture as Liu et al. 2018. This module is the **independent rigid reference**
for the constrained-DAE model (natural coordinates + ANCF plate): it works in minimal
coordinates and shares only the definitions below with the DAE.

**Frame.** ``OXYZ`` at the centre of the static platform, Z up, gravity ``−g Z``. Limb
``k`` lies in the vertical plane at azimuth ``α_k`` with the unit vectors
``r̂_k = (cos α_k, sin α_k, 0)`` (outward), ``t_k = Z × r̂_k`` (counter-clockwise tangent)
and ``Z``; ``α = (180°, −60°, 60°)`` so limb 1 is on the −X side (liu2023: actuator at
``(−R, 0, 0)``) and limb 2 on the −Y side (liu2023 §5.1: ``W2 = (0.145, −0.0779, ·)``).

**Limb k** (liu2023 §3.1): joint centres ``A → B → C → U``

=======  =======  ===========================================================================
link     ends     joints
=======  =======  ===========================================================================
link 1   A – B    R1 at ``A = R r̂`` (actuated), axis ``t`` (in the base plane, tangential)
link 2   B – C    R2 at B, axis ``t`` (∥ R1): links 1 and 2 move in the limb plane (eq 33₄)
link 3   C – U    R3 at C, axis ``a`` ⊥ R2 in the limb plane and ⊥ link 2 (eq 35:
                  ``a ∝ (B_z − C_z, 0, C_x − B_x)`` for limb 1); link 3 ⊥ ``a`` (eq 33₅)
—        U        U joint: first axis ∥ ``a`` (on link 3), second axis along the platform edge
                  through ``W_k`` (∥ R1 in the home orientation, eq 36); centre
                  ``U = W + Δh Z`` (eq 34), ``W_k = P + r r̂_k`` (edge midpoint)
=======  =======  ===========================================================================

**Minimal coordinates of a limb**: ``q = (φ1, φ2, β)`` — elevation of link 1 and of link 2
above the outward horizontal ``r̂`` in the limb plane, and the R3 angle ``β`` of link 3
out of the plane::

    B = A + l1 e(φ1),  C = B + l2 e(φ2),  U = C + l3 (cos β e(φ2) + sin β t),
    e(φ) = cos φ r̂ + sin φ Z.

Links 2 and 3 form a forearm of in-plane length ``L23 = l2 + l3 cos β``, so the inverse
kinematics is closed form: ``sin β = (U − A)·t / l3``, then a two-link triangle in the limb
plane for ``φ1`` (law of cosines) and ``φ2``.

**Mobility.** Each limb (5 joint freedoms) imposes one constraint on the platform: with
R1 ∥ R2 ∥ (U edge axis) and R3 ∥ (U first axis), its constraint wrench is a pure couple
along ``t × a`` ∥ link 2. Three such couples span space unless all links 2 are horizontal,
so the rigid platform can only **translate** (a translational parallel manipulator; liu2023
eq 36, ``a_k · b_k = 0`` with ``b_k`` the edge direction, is the constraint that removes
the three rotations). The rigid robot has 3 DOF, the platform keeps its home orientation
(edges facing the limbs), and ``P`` is a set of minimal coordinates.

**Actuator angle** ``θ_k``: rotation of link 1 about the actuator axis
``u_k = σ t_k`` measured from the outward horizontal, ``θ_k = −σ φ1``. With
``σ = +1`` (the default) ``u_k`` is the counter-clockwise tangent and positive θ lowers
link 1; the holding torques then come out negative, as in liu2023 §5.2–5.4.

**Mass model.** Each link is a uniform slender bar between its joint centres with the
natural-coordinate mass matrix ``[[m/3, m/6], [m/6, m/3]] ⊗ I3`` (the paper's eq 32; inertia
``m l²/12`` across, none about the bar); the platform is a uniform regular hexagonal
prism (inertia in :meth:`RRRU3Geometry.platform_inertia`) with its centre of mass at P,
plus the payload as a point mass at P. The platform only translates, so its rotary
inertia never enters the rigid dynamics.

**Inverse dynamics** (d'Alembert/virtual work in the minimal coordinates P)::

    (∂θ/∂P)ᵀ τ = Σ_bars Σ_ends (∂x_end/∂P)ᵀ F_end + (m_p + m_L)(P̈ − g),
    F_a = (m/3) ä + (m/6) b̈ − m g / 2   (end a of a bar a–b; likewise b)

All rates are analytic: ``q̇ = J⁻¹ U̇`` and ``q̈ = J⁻¹(Ü − h(q, q̇))`` with the limb
Jacobian ``J = ∂U/∂q`` in closed form (see :func:`limb_state`).

Units: SI throughout (m, kg, s, rad, N·m).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..core.errors import ModelError
from ..core.validate import direction as unit_direction
from ..model.trajectory import (
    CirclePath,
    CosineAccelerationProfile,
    LinePath,
    circle_path,
    line_path,
)

__all__ = [
    "RRRU3Geometry",
    "LimbState",
    "limb_coordinates",
    "limb_state",
    "joint_positions",
    "actuator_angles",
    "actuator_jacobian",
    "actuator_motion",
    "ActuatorMotion",
    "forward_kinematics",
    "rigid_constraint_residuals",
    "potential_energy",
    "kinetic_energy",
    "inverse_dynamics",
    "gravity_torques",
    "reference_torques",
    "paper_line_path",
    "paper_circle_path",
    "PAPER_LINE_DIRECTION",
    # former names, kept
    "seed_line_path",
    "seed_circle_path",
    "SEED_LINE_DIRECTION",
]

FloatArray = NDArray[np.float64]

#: Direction of the paper's straight line from P0 (Liu et al. 2023 §5.2 leaves it open): +Y, in the
#: plane of the circle and tangent to it at P0 (the circle's initial heading); see
#: docs/rrru3_robot.md for the scan against the paper's line figures.
PAPER_LINE_DIRECTION = (0.0, 1.0, 0.0)


@dataclass(frozen=True)
class RRRU3Geometry:
    """Every parameter of the 3-RRRU robot of liu2023, with the choices the paper leaves open.

    Parameters
    ----------
    base_radius : float
        R, circumradius of the static platform: actuator k at ``R r̂_k`` (liu2023 §5) [m].
    platform_inradius : float
        r, inscribed radius of the hexagonal moving platform; edge midpoints
        ``W_k = P + r r̂_k`` (liu2023 §5, §5.1 W coordinates) [m].
    platform_thickness : float
        h (liu2023 §5) [m].
    platform_mass : float
        Moving platform (liu2023 Table 1) [kg].
    payload_mass : float
        Point payload at P (liu2023 §5: 6 kg; §5.4 also 10 kg) [kg].
    link_masses, link_lengths : tuple of 3 floats
        Links 1, 2, 3 (liu2023 Table 1) [kg], [m].
    limb_angles : tuple of 3 floats
        Azimuths ``α_k`` of the limb planes [rad]. ``(π, −π/3, π/3)``: 120° apart (liu2023
        §3.1), limb 1 on −X (brief), limb 2 on −Y, because the paper's static result puts
        ``W2`` at ``y = −0.0779`` and the hexagon edge of limb k faces its actuator.
    u_joint_offset : float
        Δh of eq 34, ``U = W + Δh Z`` [m]. The paper gives no value. Default 0: the U centre
        at the edge midpoint of the mid-surface, which makes ``W_k`` the joint centre the
        paper reports and keeps the rigid reference free of an unreported length; the
        torques move by about 0.015 N·m per mm of Δh, and Δh = 0 reproduces the paper's
        circle statistics best (docs/rrru3_robot.md).
    actuator_axis_sign : int
        σ in ``u_k = σ t_k`` (+1: the counter-clockwise tangent ``Z × r̂_k``). The paper
        only says "tangential"; +1 makes the holding torques negative as in liu2023 §5.2–5.4.
    elbow : int
        Assembly branch of the limb triangle: +1 puts the elbow B outside the line AU
        (link 1 points outward, Delta-robot style; links 1 of the three limbs cannot
        collide), −1 inside (link 1 reaches past the base centre). Default +1.
    gravity : float
        g along −Z [m/s²].
    start_point : tuple of 3 floats
        P0, start of both paths of liu2023, at static equilibrium (liu2023 §5.1) [m].
    """

    base_radius: float = 0.175
    platform_inradius: float = 0.09
    platform_thickness: float = 0.006
    platform_mass: float = 0.5
    payload_mass: float = 6.0
    link_masses: tuple[float, float, float] = (0.8, 0.3, 0.6)
    link_lengths: tuple[float, float, float] = (0.375, 0.09, 0.815)
    limb_angles: tuple[float, float, float] = (np.pi, -np.pi / 3.0, np.pi / 3.0)
    u_joint_offset: float = 0.0
    actuator_axis_sign: int = 1
    elbow: int = 1
    gravity: float = 9.81
    start_point: tuple[float, float, float] = (0.1, 0.0, -0.8)

    def __post_init__(self) -> None:
        if self.actuator_axis_sign not in (1, -1) or self.elbow not in (1, -1):
            raise ModelError("RRRU3Geometry: actuator_axis_sign and elbow must be +1 or −1")
        if min(self.link_lengths) <= 0.0 or min(self.link_masses) < 0.0:
            raise ModelError("RRRU3Geometry: link lengths must be > 0 and masses ≥ 0")

    # --- frames and fixed points ------------------------------------------------------
    def radial(self, k: int) -> FloatArray:
        """Outward unit vector ``r̂_k`` of limb k (0-based)."""
        a = self.limb_angles[k]
        return np.array([np.cos(a), np.sin(a), 0.0])

    def tangent(self, k: int) -> FloatArray:
        """Counter-clockwise tangent ``t_k = Z × r̂_k`` (direction of R1, R2, U edge axis)."""
        a = self.limb_angles[k]
        return np.array([-np.sin(a), np.cos(a), 0.0])

    def limb_frame(self, k: int) -> FloatArray:
        """Rotation ``Q_k = [r̂_k, t_k, Z]`` (columns): local limb coordinates → global."""
        return np.column_stack([self.radial(k), self.tangent(k), [0.0, 0.0, 1.0]])

    def actuator_axis(self, k: int) -> FloatArray:
        """Unit axis ``u_k = σ t_k`` of R1; θ_k and τ_k are right-handed about it."""
        return self.actuator_axis_sign * self.tangent(k)

    def actuator_position(self, k: int) -> FloatArray:
        """Centre A_k of the actuated joint R1 on the static platform (z = 0)."""
        return self.base_radius * self.radial(k)

    def edge_midpoint_offset(self, k: int) -> FloatArray:
        """``W_k − P`` for the platform in its home orientation."""
        return self.platform_inradius * self.radial(k)

    def attachment_offset(self, k: int) -> FloatArray:
        """``U_k − P = r r̂_k + Δh Z`` (eq 34)."""
        return self.edge_midpoint_offset(k) + np.array([0.0, 0.0, self.u_joint_offset])

    # --- platform ---------------------------------------------------------------------
    @property
    def platform_side(self) -> float:
        """Hexagon side ``a = 2 r / √3`` (= circumradius) [m]."""
        return 2.0 * self.platform_inradius / np.sqrt(3.0)

    @property
    def platform_area(self) -> float:
        """Hexagon area ``2√3 r²`` [m²]."""
        return 2.0 * np.sqrt(3.0) * self.platform_inradius**2

    @property
    def platform_density(self) -> float:
        """Density of the platform plate [kg/m³] (for the ANCF plate of the DAE model)."""
        return self.platform_mass / (self.platform_area * self.platform_thickness)

    @property
    def moving_mass(self) -> float:
        """Platform plus payload, both with centre of mass at P [kg]."""
        return self.platform_mass + self.payload_mass

    def platform_inertia(self) -> FloatArray:
        """Inertia tensor of the hexagonal prism about P [kg m²].

        Regular hexagon of side a: polar area moment ``(5√3/8) a⁴``, area ``(3√3/2) a²``,
        so ``I_zz = (5/12) m a²`` and ``I_xx = I_yy = m (5a²/24 + h²/12)``.
        """
        m, a, h = self.platform_mass, self.platform_side, self.platform_thickness
        ixx = m * (5.0 * a**2 / 24.0 + h**2 / 12.0)
        return np.diag([ixx, ixx, 5.0 / 12.0 * m * a**2])

    def platform_vertices(self, P: ArrayLike) -> FloatArray:
        """The six hexagon corners (mid-surface) for centre P, counter-clockwise from 30°."""
        ang = np.deg2rad(30.0 + 60.0 * np.arange(6))
        corners = self.platform_side * np.column_stack([np.cos(ang), np.sin(ang),
                                                        np.zeros(6)])
        return np.asarray(P, dtype=float).reshape(3) + corners

    def with_payload(self, payload_mass: float) -> RRRU3Geometry:
        """A copy with another payload (liu2023 §5.4: 6 and 10 kg)."""
        return replace(self, payload_mass=payload_mass)


# ---------------------------------------------------------------------------------------
# kinematics
# ---------------------------------------------------------------------------------------
def _as_points(P: ArrayLike) -> FloatArray:
    return np.atleast_2d(np.asarray(P, dtype=float)).reshape(-1, 3)


def _e(phi: FloatArray) -> FloatArray:
    """In-plane unit vector ``e(φ) = cos φ r̂ + sin φ Z`` in local coordinates, (n, 3)."""
    return np.stack([np.cos(phi), np.zeros_like(phi), np.sin(phi)], axis=-1)


def _e_perp(phi: FloatArray) -> FloatArray:
    """``de/dφ = −sin φ r̂ + cos φ Z`` in local coordinates, (n, 3)."""
    return np.stack([-np.sin(phi), np.zeros_like(phi), np.cos(phi)], axis=-1)


def limb_coordinates(geom: RRRU3Geometry, P: ArrayLike) -> FloatArray:
    """Closed-form inverse kinematics: limb coordinates ``q = (φ1, φ2, β)`` for P.

    Parameters
    ----------
    geom : RRRU3Geometry
    P : array_like, shape (3,) or (n, 3)
        Platform centre(s) [m]; the platform has its home orientation.

    Returns
    -------
    ndarray, shape (n, 3, 3)
        ``q[i, k] = (φ1, φ2, β)`` of limb k at pose i [rad].

    Raises
    ------
    ModelError
        If a limb cannot reach its U joint (P outside the workspace).
    """
    P = _as_points(P)
    l1, l2, l3 = geom.link_lengths
    R = geom.base_radius
    q = np.empty((P.shape[0], 3, 3))
    for k in range(3):
        U = (P + geom.attachment_offset(k)) @ geom.limb_frame(k)  # local (ρ, y, z)
        sb = U[:, 1] / l3
        if np.any(np.abs(sb) >= 1.0):
            raise ModelError(f"3-RRRU limb {k + 1}: U joint out of reach of link 3 (|y| ≥ l3)")
        beta = np.arcsin(sb)  # branch cos β > 0: link 3 continues link 2 (forearm straight)
        L23 = l2 + l3 * np.cos(beta)
        Dr, Dz = U[:, 0] - R, U[:, 2]
        d = np.hypot(Dr, Dz)
        c = (l1**2 + d**2 - L23**2) / (2.0 * l1 * d)
        if np.any(np.abs(c) > 1.0):
            raise ModelError(f"3-RRRU limb {k + 1}: P outside the workspace (triangle "
                             f"A-B-U cannot close, cos = {c[np.argmax(np.abs(c))]:.4f})")
        phi1 = np.arctan2(Dz, Dr) + geom.elbow * np.arccos(c)
        phi2 = np.arctan2(Dz - l1 * np.sin(phi1), Dr - l1 * np.cos(phi1))
        q[:, k] = np.column_stack([phi1, phi2, beta])
    return q


def _local_points(geom: RRRU3Geometry, q: FloatArray) -> tuple[FloatArray, ...]:
    """Local B, C, U of one limb from q (n, 3)."""
    l1, l2, l3 = geom.link_lengths
    A = np.array([geom.base_radius, 0.0, 0.0])
    phi1, phi2, beta = q[:, 0], q[:, 1], q[:, 2]
    B = A + l1 * _e(phi1)
    C = B + l2 * _e(phi2)
    U = C + l3 * (np.cos(beta)[:, None] * _e(phi2)
                  + np.sin(beta)[:, None] * np.array([0.0, 1.0, 0.0]))
    return B, C, U


def _limb_jacobian(geom: RRRU3Geometry, q: FloatArray) -> FloatArray:
    """``J = ∂U_local/∂q`` of one limb, (n, 3, 3): columns ``l1 e'(φ1)``,
    ``L23 e'(φ2)``, ``l3 (−sin β e(φ2) + cos β t)``."""
    l1, l2, l3 = geom.link_lengths
    phi1, phi2, beta = q[:, 0], q[:, 1], q[:, 2]
    sb, cb = np.sin(beta), np.cos(beta)
    ey = np.array([0.0, 1.0, 0.0])
    j1 = l1 * _e_perp(phi1)
    j2 = (l2 + l3 * cb)[:, None] * _e_perp(phi2)
    j3 = l3 * (-sb[:, None] * _e(phi2) + cb[:, None] * ey)
    return np.stack([j1, j2, j3], axis=-1)


@dataclass(frozen=True)
class LimbState:
    """Positions, velocities and accelerations of every limb along a motion of P.

    Arrays are indexed ``[pose, limb, ...]``; points are global, shape (n, 3, 3).

    Attributes
    ----------
    q, qd, qdd : ndarray, (n, 3, 3)
        Limb coordinates ``(φ1, φ2, β)`` and their rates.
    jacobian : ndarray, (n, 3, 3, 3)
        ``J_k = ∂U_local/∂q_k`` (local limb coordinates).
    B, C, U, Bd, Cd, Ud, Bdd, Cdd, Udd : ndarray, (n, 3, 3)
        Joint centres B (R2), C (R3), U (U joint) and their velocities, accelerations.
    """

    q: FloatArray
    qd: FloatArray
    qdd: FloatArray
    jacobian: FloatArray
    B: FloatArray
    C: FloatArray
    U: FloatArray
    Bd: FloatArray
    Cd: FloatArray
    Ud: FloatArray
    Bdd: FloatArray
    Cdd: FloatArray
    Udd: FloatArray


def limb_state(geom: RRRU3Geometry, P: ArrayLike, Pd: ArrayLike | None = None,
               Pdd: ArrayLike | None = None) -> LimbState:
    """Limb coordinates, rates and joint-centre motion for a translating platform.

    Velocity and acceleration loop equations, solved exactly (no differencing)::

        J q̇ = U̇,     J q̈ = Ü − h,
        h = −l1 φ̇1² e(φ1) − L23 φ̇2² e(φ2) − 2 l3 sin β β̇ φ̇2 e'(φ2)
            − l3 cos β β̇² e(φ2) − l3 sin β β̇² t,

    with ``U̇ = Ṗ``, ``Ü = P̈`` (the platform translates) expressed in the limb frame.

    Parameters
    ----------
    geom : RRRU3Geometry
    P, Pd, Pdd : array_like, shape (3,) or (n, 3)
        Platform centre position, velocity, acceleration (rates default to zero).

    Returns
    -------
    LimbState
    """
    P = _as_points(P)
    n = P.shape[0]
    Pd = np.zeros_like(P) if Pd is None else _as_points(Pd)
    Pdd = np.zeros_like(P) if Pdd is None else _as_points(Pdd)
    l1, l2, l3 = geom.link_lengths
    q = limb_coordinates(geom, P)
    out = {name: np.empty((n, 3, 3)) for name in
           ("qd", "qdd", "B", "C", "U", "Bd", "Cd", "Ud", "Bdd", "Cdd", "Udd")}
    jac = np.empty((n, 3, 3, 3))
    ey = np.array([0.0, 1.0, 0.0])
    for k in range(3):
        Q = geom.limb_frame(k)
        qk = q[:, k]
        J = _limb_jacobian(geom, qk)
        jac[:, k] = J
        Ud_loc = Pd @ Q
        Udd_loc = Pdd @ Q
        qd = np.linalg.solve(J, Ud_loc[..., None])[..., 0]
        phi1, phi2, beta = qk[:, 0], qk[:, 1], qk[:, 2]
        w1, w2, wb = qd[:, 0:1], qd[:, 1:2], qd[:, 2:3]
        sb, cb = np.sin(beta)[:, None], np.cos(beta)[:, None]
        e1, e1p, e2, e2p = _e(phi1), _e_perp(phi1), _e(phi2), _e_perp(phi2)
        h = (-l1 * w1**2 * e1 - (l2 + l3 * cb) * w2**2 * e2 - 2.0 * l3 * sb * wb * w2 * e2p
             - l3 * cb * wb**2 * e2 - l3 * sb * wb**2 * ey)
        qdd = np.linalg.solve(J, (Udd_loc - h)[..., None])[..., 0]
        a1, a2 = qdd[:, 0:1], qdd[:, 1:2]
        B, C, U = _local_points(geom, qk)
        Bd = l1 * w1 * e1p
        Cd = Bd + l2 * w2 * e2p
        Bdd = l1 * (a1 * e1p - w1**2 * e1)
        Cdd = Bdd + l2 * (a2 * e2p - w2**2 * e2)
        out["qd"][:, k], out["qdd"][:, k] = qd, qdd
        for name, loc in (("B", B), ("C", C), ("U", U), ("Bd", Bd), ("Cd", Cd),
                          ("Bdd", Bdd), ("Cdd", Cdd)):
            out[name][:, k] = loc @ Q.T
        out["Ud"][:, k] = Pd
        out["Udd"][:, k] = Pdd
    return LimbState(q=q, jacobian=jac, **out)


def joint_positions(geom: RRRU3Geometry, P: ArrayLike) -> dict[str, FloatArray]:
    """Every joint centre of the rigid robot for platform centre(s) P (home orientation).

    Returns
    -------
    dict
        ``A`` (3, 3): actuator centres; ``B``, ``C``, ``U``, ``W`` (n, 3, 3): R2, R3, U-joint
        centres and edge midpoints, indexed ``[pose, limb, xyz]``; ``P`` (n, 3).
    """
    P = _as_points(P)
    st = limb_state(geom, P)
    W = P[:, None, :] + np.array([geom.edge_midpoint_offset(k) for k in range(3)])[None]
    A = np.array([geom.actuator_position(k) for k in range(3)])
    return {"A": A, "B": st.B, "C": st.C, "U": st.U, "W": W, "P": P}


def actuator_angles(geom: RRRU3Geometry, P: ArrayLike) -> FloatArray:
    """Actuator angles ``θ_k = −σ φ1_k`` for platform centre(s) P, shape (n, 3) [rad]."""
    return -geom.actuator_axis_sign * limb_coordinates(geom, P)[:, :, 0]


def _theta_jacobian(geom: RRRU3Geometry, st: LimbState) -> FloatArray:
    """``∂θ/∂P``, (n, 3, 3): row k is ``−σ (J_k⁻¹)[0, :] Q_kᵀ``."""
    n = st.q.shape[0]
    out = np.empty((n, 3, 3))
    for k in range(3):
        Jinv_row = np.linalg.inv(st.jacobian[:, k])[:, 0, :]
        out[:, k, :] = -geom.actuator_axis_sign * Jinv_row @ geom.limb_frame(k).T
    return out


def actuator_jacobian(geom: RRRU3Geometry, P: ArrayLike) -> FloatArray:
    """``∂θ/∂P`` (inverse of the manipulator Jacobian), shape (n, 3, 3): ``θ̇ = (∂θ/∂P) Ṗ``."""
    return _theta_jacobian(geom, limb_state(geom, P))


def actuator_motion(geom: RRRU3Geometry, P: ArrayLike, Pd: ArrayLike, Pdd: ArrayLike
                    ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Actuator angles, rates and accelerations ``(θ, θ̇, θ̈)``, each (n, 3), analytic."""
    st = limb_state(geom, P, Pd, Pdd)
    s = -geom.actuator_axis_sign
    return s * st.q[:, :, 0], s * st.qd[:, :, 0], s * st.qdd[:, :, 0]


def _limb_rates(pose: tuple, bx: float, by: float, bz: float) -> tuple[float, float, float]:
    """``J⁻¹ b`` for one limb's Jacobian ``J = [l1 e'(φ1) | L23 e'(φ2) | l3 (−sin β e(φ2)
    + cos β ŷ)]`` (``e = (cos, 0, sin)``, ``e' = (−sin, 0, cos)`` in the limb frame) by
    blocks: its middle row is ``(0, 0, l3 cos β)``.  ``pose = (l1, l3, L23, sin β,
    cos β, sin φ1, cos φ1, sin φ2, cos φ2, det)`` with ``det = l1 L23 sin(φ2 − φ1)``."""
    l1, l3, L23, sb, cb, s1, c1, s2, c2, det = pose
    wb = by / (l3 * cb)
    rx = bx + wb * l3 * sb * c2
    rz = bz + wb * l3 * sb * s2
    return L23 * (rx * c2 + rz * s2) / det, -l1 * (rx * c1 + rz * s1) / det, wb


class ActuatorMotion:
    """:func:`actuator_motion` at one pose, in scalar arithmetic: what a drive asks for
    at every time step (the vectorized form spends about a millisecond in NumPy calls on
    arrays of one pose, a quarter of the flexible-links robot's run).  The same closed
    forms: ``J q̇ = U̇`` and ``J q̈ = Ü − h`` of :func:`limb_state`, solved by blocks —
    the limb Jacobian's middle row is ``(0, 0, l3 cos β)``, so ``β̇`` first, then the
    2 × 2 block of ``φ̇1, φ̇2`` (determinant ``l1 L23 sin(φ2 − φ1)``)."""

    def __init__(self, geom: RRRU3Geometry):
        self.geom = geom
        self.frames = [np.asarray(geom.limb_frame(k), float) for k in range(3)]
        self.offsets = [np.asarray(geom.attachment_offset(k), float) for k in range(3)]

    def __call__(self, P, Pd, Pdd) -> tuple[FloatArray, FloatArray, FloatArray]:
        """``(θ, θ̇, θ̈)`` of the three actuators [rad, rad/s, rad/s²] for the platform
        centre's position, velocity and acceleration ``P, Ṗ, P̈`` (3,) each."""
        g = self.geom
        l1, l2, l3 = g.link_lengths
        R, elbow = g.base_radius, g.elbow
        s = -g.actuator_axis_sign
        P, Pd, Pdd = (np.asarray(x, float).reshape(3) for x in (P, Pd, Pdd))
        th, thd, thdd = np.empty(3), np.empty(3), np.empty(3)
        for k in range(3):
            Q = self.frames[k]
            ux, uy, uz = ((P + self.offsets[k]) @ Q).tolist()
            vx, vy, vz = (Pd @ Q).tolist()
            ax_, ay, az = (Pdd @ Q).tolist()
            sb = uy / l3
            if abs(sb) >= 1.0:
                raise ModelError(f"3-RRRU limb {k + 1}: U joint out of reach of link 3 "
                                 "(|y| ≥ l3)")
            beta = math.asin(sb)
            cb = math.cos(beta)
            L23 = l2 + l3 * cb
            Dr, Dz = ux - R, uz
            d = math.hypot(Dr, Dz)
            c = (l1 * l1 + d * d - L23 * L23) / (2.0 * l1 * d)
            if abs(c) > 1.0:
                raise ModelError(f"3-RRRU limb {k + 1}: P outside the workspace (triangle "
                                 f"A-B-U cannot close, cos = {c:.4f})")
            phi1 = math.atan2(Dz, Dr) + elbow * math.acos(c)
            s1, c1 = math.sin(phi1), math.cos(phi1)
            phi2 = math.atan2(Dz - l1 * s1, Dr - l1 * c1)
            s2, c2 = math.sin(phi2), math.cos(phi2)
            pose = (l1, l3, L23, sb, cb, s1, c1, s2, c2, l1 * L23 * (s2 * c1 - s1 * c2))
            w1, w2, wb = _limb_rates(pose, vx, vy, vz)
            # h = −l1 φ̇1² e(φ1) − L23 φ̇2² e(φ2) − 2 l3 sin β β̇ φ̇2 e'(φ2)
            #     − l3 cos β β̇² e(φ2) − l3 sin β β̇² ŷ
            e2 = -L23 * w2 * w2 - l3 * cb * wb * wb
            p2 = -2.0 * l3 * sb * wb * w2
            hx = -l1 * w1 * w1 * c1 + e2 * c2 - p2 * s2
            hy = -l3 * sb * wb * wb
            hz = -l1 * w1 * w1 * s1 + e2 * s2 + p2 * c2
            a1 = _limb_rates(pose, ax_ - hx, ay - hy, az - hz)[0]
            th[k], thd[k], thdd[k] = s * phi1, s * w1, s * a1
        return th, thd, thdd


def forward_kinematics(geom: RRRU3Geometry, theta: ArrayLike, guess: ArrayLike | None = None,
                       tol: float = 1e-14, max_iter: int = 50) -> FloatArray:
    """Platform centre P for actuator angles θ (3,), by Newton on ``θ(P) = θ``.

    Parameters
    ----------
    theta : array_like, shape (3,)
    guess : array_like, shape (3,), optional
        Start of the iteration (default: the paper's start point); selects the assembly
        branch of the forward problem.
    """
    theta = np.asarray(theta, dtype=float).reshape(3)
    P = np.asarray(geom.start_point if guess is None else guess, dtype=float).reshape(3)
    for _ in range(max_iter):
        st = limb_state(geom, P)
        r = -geom.actuator_axis_sign * st.q[0, :, 0] - theta
        dP = np.linalg.solve(_theta_jacobian(geom, st)[0], r)
        P = P - dP
        if np.linalg.norm(dP) < tol:
            return P
    raise ModelError(f"3-RRRU forward kinematics did not converge for θ = {theta}")


def rigid_constraint_residuals(geom: RRRU3Geometry, P: ArrayLike, rotation: ArrayLike,
                               q: ArrayLike) -> FloatArray:
    """Joint constraints of the rigid robot in the paper's terms (eqs 33–36), (12,).

    For limb k with coordinates ``q_k`` and a platform at centre P with rotation matrix
    ``Rp``: three loop closures ``U(q_k) − (P + Rp r r̂_k + Δh Z) = 0`` (eq 34; links and
    R1/R2/R3 are built into ``U(q_k)``, eq 33) and the U-joint axis condition
    ``a_k · (Rp t_k) = 0`` (eq 36: the R3/U first axis ``a_k = t_k × e(φ2)`` is
    perpendicular to the platform edge through ``W_k``). Used to check the mobility
    analysis: the solution set is 3-dimensional and has ``Rp = I``.
    """
    P = np.asarray(P, dtype=float).reshape(3)
    Rp = np.asarray(rotation, dtype=float).reshape(3, 3)
    q = np.asarray(q, dtype=float).reshape(3, 3)
    res = []
    for k in range(3):
        Q = geom.limb_frame(k)
        _, _, U = _local_points(geom, q[k:k + 1])
        W = P + Rp @ geom.edge_midpoint_offset(k) + np.array([0.0, 0.0, geom.u_joint_offset])
        res.extend(U[0] @ Q.T - W)
    for k in range(3):
        a = geom.limb_frame(k) @ _e_perp(q[k:k + 1, 1])[0]  # ⊥ link 2 in the limb plane
        res.append(a @ (Rp @ geom.tangent(k)))
    return np.array(res)


# ---------------------------------------------------------------------------------------
# energies and inverse dynamics
# ---------------------------------------------------------------------------------------
def _bars(geom: RRRU3Geometry, st: LimbState, P: FloatArray, Pd: FloatArray, Pdd: FloatArray
          ) -> list[tuple[float, tuple[FloatArray, ...], tuple[FloatArray, ...]]]:
    """The nine bars ``(m, (a, ȧ, ä), (b, ḃ, b̈))`` with end-point motion, (n, 3) each."""
    m1, m2, m3 = geom.link_masses
    zero = np.zeros_like(P)
    bars = []
    for k in range(3):
        A = np.broadcast_to(geom.actuator_position(k), P.shape)
        pA = (A, zero, zero)
        pB = (st.B[:, k], st.Bd[:, k], st.Bdd[:, k])
        pC = (st.C[:, k], st.Cd[:, k], st.Cdd[:, k])
        pU = (st.U[:, k], st.Ud[:, k], st.Udd[:, k])
        bars += [(m1, pA, pB), (m2, pB, pC), (m3, pC, pU)]
    return bars


def potential_energy(geom: RRRU3Geometry, P: ArrayLike) -> FloatArray:
    """Gravitational potential energy ``V = Σ m g z_centre`` of the rigid robot, (n,) [J]."""
    P = _as_points(P)
    st = limb_state(geom, P)
    g = geom.gravity
    V = geom.moving_mass * g * P[:, 2]
    for m, a, b in _bars(geom, st, P, P, P):
        V = V + m * g * 0.5 * (a[0][:, 2] + b[0][:, 2])
    return V


def kinetic_energy(geom: RRRU3Geometry, P: ArrayLike, Pd: ArrayLike) -> FloatArray:
    """Kinetic energy, (n,) [J]: bars ``½ ėᵀ M_bar ė`` (eq 32) plus ``½ (m_p + m_L) |Ṗ|²``.

    The platform only translates, so its rotary inertia does not contribute.
    """
    P, Pd = _as_points(P), _as_points(Pd)
    st = limb_state(geom, P, Pd)
    T = 0.5 * geom.moving_mass * np.sum(Pd**2, axis=1)
    for m, a, b in _bars(geom, st, P, Pd, Pd):
        va, vb = a[1], b[1]
        T = T + 0.5 * m / 3.0 * np.sum(va * va + va * vb + vb * vb, axis=1)
    return T


def inverse_dynamics(geom: RRRU3Geometry, P: ArrayLike, Pd: ArrayLike, Pdd: ArrayLike
                     ) -> tuple[FloatArray, LimbState]:
    """Actuator torques of the rigid robot for a platform motion, by virtual work.

    Generalized force in the minimal coordinates P (d'Alembert, the paper's eq 32 mass model)::

        f_P = Σ_bars Σ_ends (∂x_end/∂P)ᵀ F_end + (m_p + m_L)(P̈ − g),
        F_a = (m/3) ä + (m/6) b̈ − m g/2,   F_b = (m/6) ä + (m/3) b̈ − m g/2,

    with ``∂U/∂P = I`` and ``∂(B, C)/∂P = Q_k (∂(B, C)/∂q_k) J_k⁻¹ Q_kᵀ``; then
    ``τ = (∂θ/∂P)⁻ᵀ f_P`` from ``τ · δθ = f_P · δP``. τ_k is the torque the actuator exerts
    on link 1 about ``u_k`` (positive power ``τ_k θ̇_k`` drives the robot).

    Returns
    -------
    torque : ndarray, (n, 3) [N·m]
    state : LimbState
    """
    P, Pd, Pdd = _as_points(P), _as_points(Pd), _as_points(Pdd)
    st = limb_state(geom, P, Pd, Pdd)
    l1, l2, _ = geom.link_lengths
    gvec = np.array([0.0, 0.0, -geom.gravity])
    f_P = geom.moving_mass * (Pdd - gvec)
    # end forces F on B, C, U of every limb from the three bars
    force = {name: np.zeros_like(st.B) for name in ("B", "C", "U")}
    ends = ("A", "B"), ("B", "C"), ("C", "U")
    for i, (m, a, b) in enumerate(_bars(geom, st, P, Pd, Pdd)):
        k, j = divmod(i, 3)
        na, nb = ends[j]
        Fa = m / 3.0 * a[2] + m / 6.0 * b[2] - 0.5 * m * gvec
        Fb = m / 6.0 * a[2] + m / 3.0 * b[2] - 0.5 * m * gvec
        if na != "A":
            force[na][:, k] += Fa
        force[nb][:, k] += Fb
    for k in range(3):
        Q = geom.limb_frame(k)
        FB, FC = force["B"][:, k] @ Q, force["C"][:, k] @ Q  # local
        e1p, e2p = _e_perp(st.q[:, k, 0]), _e_perp(st.q[:, k, 1])
        # generalized limb force (∂B/∂q)ᵀF_B + (∂C/∂q)ᵀF_C;  ∂B/∂q = [l1 e1', 0, 0],
        # ∂C/∂q = [l1 e1', l2 e2', 0]
        g_q = np.column_stack([l1 * np.sum(e1p * (FB + FC), axis=1),
                               l2 * np.sum(e2p * FC, axis=1), np.zeros(len(P))])
        f_loc = np.linalg.solve(np.swapaxes(st.jacobian[:, k], 1, 2), g_q[..., None])[..., 0]
        f_P = f_P + f_loc @ Q.T + force["U"][:, k]
    JT = np.swapaxes(_theta_jacobian(geom, st), 1, 2)
    torque = np.linalg.solve(JT, f_P[..., None])[..., 0]
    return torque, st


def gravity_torques(geom: RRRU3Geometry, P: ArrayLike) -> FloatArray:
    """Holding torques at rest, ``τ = (∂θ/∂P)⁻ᵀ ∇_P V``, (n, 3) [N·m]."""
    P = _as_points(P)
    z = np.zeros_like(P)
    return inverse_dynamics(geom, P, z, z)[0]


def reference_torques(path: Any, times: ArrayLike, geom: RRRU3Geometry | None = None
                      ) -> dict[str, FloatArray]:
    """Rigid-robot reference along a prescribed path of P.

    Parameters
    ----------
    path : callable
        ``path(t) -> (x, ẋ, ẍ)`` for an array of times, (n, 3) each (e.g. from
        :func:`paper_line_path`, :func:`fem.model.trajectory.circle_path`).
    times : array_like, (n,)
    geom : RRRU3Geometry, optional
        Default: the paper's robot with the 6 kg payload.

    Returns
    -------
    dict
        ``time`` (n,); ``P, P_dot, P_ddot`` (n, 3); ``theta, theta_dot, theta_ddot``
        (n, 3) [rad, rad/s, rad/s²]; ``torque`` (n, 3) [N·m]; joint positions ``A`` (3, 3),
        ``B, C, U, W`` (n, 3, 3); ``q`` (n, 3, 3) limb coordinates ``(φ1, φ2, β)``;
        ``kinetic, potential`` (n,) [J]; ``power`` (n,) ``Σ τ_k θ̇_k`` [W].
    """
    geom = RRRU3Geometry() if geom is None else geom
    t = np.atleast_1d(np.asarray(times, dtype=float))
    P, Pd, Pdd = (np.atleast_2d(a) for a in path(t))
    torque, st = inverse_dynamics(geom, P, Pd, Pdd)
    s = -geom.actuator_axis_sign
    th, thd, thdd = s * st.q[:, :, 0], s * st.qd[:, :, 0], s * st.qdd[:, :, 0]
    W = P[:, None, :] + np.array([geom.edge_midpoint_offset(k) for k in range(3)])[None]
    return {
        "time": t, "P": P, "P_dot": Pd, "P_ddot": Pdd,
        "theta": th, "theta_dot": thd, "theta_ddot": thdd, "torque": torque,
        "A": np.array([geom.actuator_position(k) for k in range(3)]),
        "B": st.B, "C": st.C, "U": st.U, "W": W, "q": st.q,
        "kinetic": kinetic_energy(geom, P, Pd), "potential": potential_energy(geom, P),
        "power": np.sum(torque * thd, axis=1),
    }


# ---------------------------------------------------------------------------------------
# the paper's two paths
# ---------------------------------------------------------------------------------------
def paper_line_path(geom: RRRU3Geometry | None = None,
                    direction: ArrayLike = PAPER_LINE_DIRECTION) -> LinePath:
    """Liu et al. 2023 §5.2 line: from P0, 0.8 s, eq 45 with ``H = 0.003``, 40 % phases.

    The length follows from the paper's numbers, ``2π H ω (T − t_a) = 0.17765`` m
    (:class:`fem.model.trajectory.CosineAccelerationProfile`); the direction is our choice
    (default +Y, :data:`PAPER_LINE_DIRECTION`).
    """
    geom = RRRU3Geometry() if geom is None else geom
    profile = CosineAccelerationProfile.from_amplitude(duration=0.8, amplitude=0.003)
    d = unit_direction(direction, "paper_line_path: direction (of the line from P0)")
    p0 = np.asarray(geom.start_point, dtype=float)
    return line_path(p0, p0 + profile.distance * d, profile)


def paper_circle_path(geom: RRRU3Geometry | None = None, closed: bool = True) -> CirclePath:
    """Liu et al. 2023 §5.3 circle: radius 0.1 m in the plane of P0 about ``P0 − (0.1, 0, 0)``,
    counter-clockwise seen from +Z, 1.6 s, eq 45 with 40 % phases.

    Parameters
    ----------
    geom : RRRU3Geometry, optional
    closed : bool
        True (default): one full turn, ``H = 0.01061`` (cruise 0.6545 m/s) — the path
        closes. False: the paper's literal ``H = 0.011`` (cruise 0.6786 m/s), which sweeps
        373.2°; the paper's reported circle figures (mean torques −13.23/−18.44 N·m, mean
        deviations 5.05/7.74 N·m, peak rate 1.03 rad/s) match this run (docs/rrru3_robot.md).
    """
    geom = RRRU3Geometry() if geom is None else geom
    p0 = np.asarray(geom.start_point, dtype=float)
    radius = 0.1
    if closed:
        profile = CosineAccelerationProfile(duration=1.6, distance=2.0 * np.pi * radius)
    else:
        profile = CosineAccelerationProfile.from_amplitude(duration=1.6, amplitude=0.011)
    return circle_path(p0 - np.array([radius, 0.0, 0.0]), radius, (0.0, 0.0, 1.0), 0.0,
                       profile, sweep=profile.distance / radius)


#: Former names, kept: the contract extends, never renames.
seed_line_path = paper_line_path
seed_circle_path = paper_circle_path
SEED_LINE_DIRECTION = PAPER_LINE_DIRECTION
