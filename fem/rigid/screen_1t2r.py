"""The 1T2R parallel vibrating screen of Shen et al. 2021: geometry, closed-form kinematics, models.

**Mechanism** (Shen et al. 2021 §1, Fig. 1a).  Fixed frame ``OXYZ``: origin at the centre of R1,
``X`` along the axis of R1, ``Y`` along R1R4.  Five moving links:

=========  =========  ======================================================  =========
link       ends       joints                                                   paper
=========  =========  ======================================================  =========
crank      R1 – R2    R1 revolute to ground, axis X, driven (angle θ)          link 1
coupler    R2 – R3    R2, R3 revolute, axis X (planar four-bar in x = 0)       link 2
rocker     R3 – R4    R4 revolute to ground at (0, l7, 0), axis X              link 3
platform   R5 – S6    R5 revolute on the coupler midpoint, axis along R2R3     link 4
strut      S6 – S7    S6, S7 spherical; S7 fixed at (−l8, l7/2, H)             link 5
=========  =========  ======================================================  =========

**Closed-form positions** (Shen et al. 2021 eqs 1–5, re-derived).  With ``e(x) = (0, cos x, sin x)``
and ``e⊥(x) = (0, −sin x, cos x)``::

    R2 = l1 e(θ),  R3 = R2 + l2 e(α),  R5 = R2 + ½ l2 e(α),  R4 = (0, l7, 0)
    S6 = R5 + l4 d,   d = −cos β X̂ + sin β e⊥(α)

``α`` (coupler angle from Y) closes the four-bar ``|R3 − R4| = l3`` (eq 2); ``β`` (rotation
of the platform about R2R3, right-handed about R2→R3, measured from −X) closes the spatial
limb ``|S6 − S7| = l5`` (eq 3).  Both are solved as a triangle angle::

    α = ψ + σ_α arccos((l2² + |R4 − R2|² − l3²) / (2 l2 |R4 − R2|)),   ψ = ∠(R4 − R2)
    β = φ + σ_β arccos((l4² + |S7 − R5|² − l5²) / (2 l4 ρ)),

where ``(ρ cos φ, ρ sin φ)`` are the components of ``S7 − R5`` along ``(−X̂, e⊥(α))``.
The platform heave is ``z = l1 sin θ`` (eq 1, the height of R2 = origin of the platform
frame).  **Assembly branch**: ``σ_α = σ_β = +1`` by default (the ``−√`` root of the paper's
eqs 4–5): R3 lies above the line R2R4 and S6 above the base plane; at θ = 0 the Table-1
geometry gives α = 0.5433 rad, β = 0.2828 rad.

**Velocities and accelerations** follow from the θ-derivatives of the closure conditions
(first- and second-order influence coefficients; the paper's eqs 6–25 in vector form)::

    s = R3 − R4:   s·s' = 0,  s'·s' + s·s'' = 0          → α', α''
    p = S6 − S7:   p·p' = 0,  p'·p' + p·p'' = 0          → β', β''

so that ``v = J θ̇`` and ``a = J θ̈ + H θ̇²`` for every point, and ``ω = w θ̇``,
``ε = w θ̈ + Ω θ̇²`` for every link.  Angular velocities: crank ``θ̇ X̂``, coupler
``α̇ X̂``, rocker ``(s × ṡ)/l3²``, platform ``α̇ X̂ + β̇ e(α)`` (coupler plus hinge rate),
strut ``(p × ṗ)/l5²`` (no spin about its own axis; the paper's eq 24).

**Mass model** (choice fixed by the issue): every link is a uniform slender rod between its
joint centres, mass from Table 1, inertia ``m l²/12`` about axes through the centre
perpendicular to the rod and zero about the rod — the same inertia as a natural-coordinate
``rigid_bar``.

Units: SI (m, kg, s) throughout; :data:`TABLE1_MM` holds the paper's values in mm.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import ModelError, refuse_first
from . import lagrange
from .newton_euler import (
    Chain,
    Joint,
    Link,
    NewtonEulerResult,
    revolute,
    solve_inverse_dynamics,
    spherical,
    universal,
)

__all__ = [
    "TABLE1_MM",
    "TABLE1_MASSES_KG",
    "LINK_NAMES",
    "LINK_ENDS",
    "JOINT_NAMES",
    "Screen1T2R",
    "LinkMotion",
    "ScreenMotion",
    "positions",
    "kinematics",
    "newton_euler_model",
    "newton_euler",
    "lagrange_bodies",
    "lagrange_torque",
]

#: Shen et al. 2021 Table 1, lengths in mm.
TABLE1_MM = {"l1": 50.0, "l2": 350.0, "l3": 270.0, "l4": 350.0, "l5": 200.0,
             "H": 80.0, "l7": 550.0, "l8": 460.0}
#: Shen et al. 2021 Table 1, masses of links 1–5 in kg.
TABLE1_MASSES_KG = (0.0132087, 0.0828033, 0.0646953, 0.0413585, 0.0219757)
#: Links 1–5 of the paper, in order.
LINK_NAMES = ("crank", "coupler", "rocker", "platform", "strut")
#: End joints of each link (the rod runs from the first to the second).
LINK_ENDS = {"crank": ("R1", "R2"), "coupler": ("R2", "R3"), "rocker": ("R3", "R4"),
             "platform": ("R5", "S6"), "strut": ("S6", "S7")}
JOINT_NAMES = ("R1", "R2", "R3", "R4", "R5", "S6", "S7")

_X = np.array([1.0, 0.0, 0.0])


def _e(x: np.ndarray) -> np.ndarray:
    return np.stack([np.zeros_like(x), np.cos(x), np.sin(x)], axis=-1)


def _e_perp(x: np.ndarray) -> np.ndarray:
    return np.stack([np.zeros_like(x), -np.sin(x), np.cos(x)], axis=-1)


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("...i,...i->...", a, b)


@dataclass(frozen=True)
class Screen1T2R:
    """Geometry, masses and assembly branch of the vibrating screen (SI units).

    Parameters
    ----------
    l1, l2, l3, l4, l5 : float
        Crank R1R2, coupler R2R3, rocker R3R4, platform R5S6, strut S6S7 [m].
    H : float
        Height of S7 above the base plane [m].
    l7 : float
        Base R1R4 [m].
    l8 : float
        Distance of S7 from the YZ plane (``AB`` in the paper) [m].
    masses : tuple of 5 floats
        Masses of crank, coupler, rocker, platform, strut [kg].
    branch_coupler, branch_platform : {+1, −1}
        Assembly branch ``σ_α`` and ``σ_β`` (see the module docstring).
    """

    l1: float = TABLE1_MM["l1"] * 1e-3
    l2: float = TABLE1_MM["l2"] * 1e-3
    l3: float = TABLE1_MM["l3"] * 1e-3
    l4: float = TABLE1_MM["l4"] * 1e-3
    l5: float = TABLE1_MM["l5"] * 1e-3
    H: float = TABLE1_MM["H"] * 1e-3
    l7: float = TABLE1_MM["l7"] * 1e-3
    l8: float = TABLE1_MM["l8"] * 1e-3
    masses: tuple[float, ...] = field(default=TABLE1_MASSES_KG)
    branch_coupler: int = 1
    branch_platform: int = 1

    def __post_init__(self) -> None:
        for name in ("l1", "l2", "l3", "l4", "l5", "l7"):
            value = getattr(self, name)
            if not np.isfinite(value) or value <= 0:
                raise ModelError(f"vibrating screen: length {name} must be > 0, got {value}")
        for name in ("H", "l8"):
            if not np.isfinite(getattr(self, name)):
                raise ModelError(f"vibrating screen: {name} must be finite")
        if len(self.masses) != 5 or any(not np.isfinite(m) or m < 0 for m in self.masses):
            raise ModelError(f"vibrating screen: need 5 masses ≥ 0 (kg), got {self.masses}")
        for name in ("branch_coupler", "branch_platform"):
            if getattr(self, name) not in (1, -1):
                raise ModelError(f"vibrating screen: {name} must be +1 or -1")

    @classmethod
    def from_mm(cls, **kwargs: float) -> Screen1T2R:
        """Build from lengths in mm (keys ``l1 … l8, H``), other keywords passed through."""
        si = {k: (v * 1e-3 if k in TABLE1_MM else v) for k, v in kwargs.items()}
        return cls(**si)

    @property
    def lengths(self) -> dict[str, float]:
        """Rod length of each link [m]."""
        return dict(zip(LINK_NAMES, (self.l1, self.l2, self.l3, self.l4, self.l5), strict=True))

    @property
    def link_masses(self) -> dict[str, float]:
        """Mass of each link [kg]."""
        return dict(zip(LINK_NAMES, self.masses, strict=True))

    @property
    def R4(self) -> np.ndarray:
        return np.array([0.0, self.l7, 0.0])

    @property
    def S7(self) -> np.ndarray:
        return np.array([-self.l8, 0.5 * self.l7, self.H])


@dataclass
class LinkMotion:
    """Motion of one rod-shaped link over ``n`` steps (world frame, SI).

    ``com_d1 = ∂c/∂θ``, ``com_d2 = ∂²c/∂θ²``, ``omega_d1 = ∂ω/∂θ̇``,
    ``omega_d2 = ∂(omega_d1)/∂θ`` are the kinematic influence coefficients.
    """

    name: str
    mass: float
    length: float
    ends: tuple[str, str]
    axis: np.ndarray            # (n, 3) unit vector from ends[0] to ends[1]
    com: np.ndarray
    com_vel: np.ndarray
    com_acc: np.ndarray
    omega: np.ndarray
    omega_dot: np.ndarray
    inertia: np.ndarray         # (n, 3, 3) about the centre, world frame
    com_d1: np.ndarray
    com_d2: np.ndarray
    omega_d1: np.ndarray
    omega_d2: np.ndarray


@dataclass
class ScreenMotion:
    """Kinematics of the screen over ``n`` steps.

    Attributes
    ----------
    theta, theta_dot, theta_ddot : ndarray (n,)
        Crank motion.
    joints : dict[str, ndarray (n, 3)]
        Joint centres R1 … R5, S6, S7 [m].
    links : dict[str, LinkMotion]
    z, alpha, beta (and ``_dot``, ``_ddot``) : ndarray (n,)
        Platform heave [m], rotation about X and about R2R3 [rad] and their rates.
    alpha_d1, alpha_d2, beta_d1, beta_d2 : ndarray (n,)
        ``dα/dθ, d²α/dθ², dβ/dθ, d²β/dθ²``.
    loop_closure : ndarray (n,)
        Largest violation of the rod lengths and of the hinge R5 (``(S6 − R5)·e(α)``) [m].
    """

    theta: np.ndarray
    theta_dot: np.ndarray
    theta_ddot: np.ndarray
    joints: dict[str, np.ndarray]
    links: dict[str, LinkMotion]
    z: np.ndarray
    z_dot: np.ndarray
    z_ddot: np.ndarray
    alpha: np.ndarray
    alpha_dot: np.ndarray
    alpha_ddot: np.ndarray
    beta: np.ndarray
    beta_dot: np.ndarray
    beta_ddot: np.ndarray
    alpha_d1: np.ndarray
    alpha_d2: np.ndarray
    beta_d1: np.ndarray
    beta_d2: np.ndarray
    loop_closure: np.ndarray


def _triangle_angle(cosine: np.ndarray, theta: np.ndarray, what: str) -> np.ndarray:
    """``arccos`` of a law-of-cosines value, with a clear error when the loop cannot close."""
    refuse_first(np.abs(cosine) > 1.0, lambda k: (
        f"vibrating screen: the {what} cannot close at θ = {theta[k]:.6g} rad "
        f"(cosine {cosine[k]:.6g} outside [-1, 1]); the configuration is unreachable "
        f"with these link lengths — reduce the crank amplitude or change the lengths"))
    refuse_first(1.0 - np.abs(cosine) < 1e-12, lambda k: (
        f"vibrating screen: the {what} is at a dead centre (singular configuration) at "
        f"θ = {theta[k]:.6g} rad; velocities are undefined there"))
    return np.arccos(cosine)


def positions(screen: Screen1T2R, theta: ArrayLike) -> tuple[dict[str, np.ndarray],
                                                             np.ndarray, np.ndarray]:
    """Joint centres and the angles α, β for crank angles ``theta`` (Shen et al. 2021 eqs 1–5).

    Returns
    -------
    joints : dict[str, ndarray (n, 3)]
    alpha, beta : ndarray (n,)
    """
    th = np.atleast_1d(np.asarray(theta, dtype=float))
    if th.ndim != 1 or not np.all(np.isfinite(th)):
        raise ModelError("vibrating screen: theta must be a finite 1-D array of angles")
    s = screen
    R2 = s.l1 * _e(th)
    q = s.R4 - R2
    dist = np.linalg.norm(q, axis=1)
    psi = np.arctan2(q[:, 2], q[:, 1])
    delta = _triangle_angle((s.l2**2 + dist**2 - s.l3**2) / (2.0 * s.l2 * dist), th,
                            "four-bar R1-R2-R3-R4")
    alpha = psi + s.branch_coupler * delta
    alpha = np.arctan2(np.sin(alpha), np.cos(alpha))
    R3 = R2 + s.l2 * _e(alpha)
    R5 = R2 + 0.5 * s.l2 * _e(alpha)
    w = s.S7 - R5
    u_c = -w[:, 0]                           # component along −X̂
    u_s = _dot(w, _e_perp(alpha))            # component along e⊥(α)
    rho = np.hypot(u_c, u_s)
    if np.any(rho <= 1e-12 * s.l4):
        raise ModelError("vibrating screen: S7 lies on the hinge axis R2R3; β is undefined")
    phi = np.arctan2(u_s, u_c)
    gamma = _triangle_angle((s.l4**2 + _dot(w, w) - s.l5**2) / (2.0 * s.l4 * rho), th,
                            "spatial limb R5-S6-S7")
    beta = phi + s.branch_platform * gamma
    beta = np.arctan2(np.sin(beta), np.cos(beta))
    d = -np.cos(beta)[:, None] * _X + np.sin(beta)[:, None] * _e_perp(alpha)
    n = th.size
    joints = {
        "R1": np.zeros((n, 3)),
        "R2": R2,
        "R3": R3,
        "R4": np.broadcast_to(s.R4, (n, 3)).copy(),
        "R5": R5,
        "S6": R5 + s.l4 * d,
        "S7": np.broadcast_to(s.S7, (n, 3)).copy(),
    }
    return joints, alpha, beta


def _rod_inertia(mass: float, length: float, axis: np.ndarray) -> np.ndarray:
    """Slender uniform rod: ``m l²/12 (𝟙 − u uᵀ)`` about its centre."""
    return mass * length**2 / 12.0 * (np.eye(3) - axis[:, :, None] * axis[:, None, :])


def kinematics(screen: Screen1T2R, theta: ArrayLike, theta_dot: ArrayLike,
               theta_ddot: ArrayLike) -> ScreenMotion:
    """Positions, velocities and accelerations of every link for a crank motion.

    Parameters
    ----------
    screen : Screen1T2R
    theta, theta_dot, theta_ddot : array_like, shape (n,)
        Crank angle [rad], rate [rad/s] and angular acceleration [rad/s²].

    Returns
    -------
    ScreenMotion

    Raises
    ------
    ModelError
        If a loop cannot close (unreachable configuration) or is at a dead centre.
    """
    th = np.atleast_1d(np.asarray(theta, dtype=float))
    try:
        thd = np.array(np.broadcast_to(np.asarray(theta_dot, dtype=float), th.shape))
        thdd = np.array(np.broadcast_to(np.asarray(theta_ddot, dtype=float), th.shape))
    except ValueError:
        raise ModelError(f"vibrating screen: theta_dot and theta_ddot must be scalars or have "
                         f"the shape of theta {th.shape}") from None
    if not (np.all(np.isfinite(thd)) and np.all(np.isfinite(thdd))):
        raise ModelError("vibrating screen: theta_dot and theta_ddot must be finite")
    s = screen
    joints, alpha, beta = positions(s, th)
    col = lambda v: v[:, None]  # a scalar series as a column, for broadcasting
    e_t, ep_t = _e(th), _e_perp(th)
    e_a, ep_a = _e(alpha), _e_perp(alpha)

    # Four-bar: s = R3 − R4 keeps its length l3 (eq 2 differentiated).
    R2_1, R2_2 = s.l1 * ep_t, -s.l1 * e_t
    sv = joints["R3"] - s.R4
    den_a = s.l2 * _dot(sv, ep_a)
    a1 = -_dot(sv, R2_1) / den_a
    R3_1 = R2_1 + s.l2 * ep_a * col(a1)
    a2 = -(_dot(R3_1, R3_1) + _dot(sv, R2_2 - s.l2 * e_a * col(a1**2))) / den_a
    R3_2 = R2_2 + s.l2 * (-e_a * col(a1**2) + ep_a * col(a2))
    R5_1 = 0.5 * (R2_1 + R3_1)
    R5_2 = 0.5 * (R2_2 + R3_2)

    # Spatial limb: p = S6 − S7 keeps its length l5 (eq 3 differentiated).
    cb, sb = col(np.cos(beta)), col(np.sin(beta))
    d_a = -sb * e_a                          # ∂d/∂α
    d_b = sb * _X + cb * ep_a                # ∂d/∂β
    d_aa = -sb * ep_a
    d_ab = -cb * e_a
    d_bb = cb * _X - sb * ep_a
    p = joints["S6"] - s.S7
    den_b = s.l4 * _dot(p, d_b)
    b1 = -_dot(p, R5_1 + s.l4 * d_a * col(a1)) / den_b
    d_1 = d_a * col(a1) + d_b * col(b1)
    S6_1 = R5_1 + s.l4 * d_1
    d_2_known = (d_aa * col(a1**2) + 2.0 * d_ab * col(a1 * b1) + d_bb * col(b1**2)
                 + d_a * col(a2))
    b2 = -(_dot(S6_1, S6_1) + _dot(p, R5_2 + s.l4 * d_2_known)) / den_b
    d_2 = d_2_known + d_b * col(b2)
    S6_2 = R5_2 + s.l4 * d_2

    # Influence coefficients of the centres of mass and angular velocities.
    zero = np.zeros_like(R2_1)
    X = np.broadcast_to(_X, R2_1.shape)
    com = {"crank": 0.5 * joints["R2"], "coupler": joints["R5"],
           "rocker": 0.5 * (joints["R3"] + joints["R4"]),
           "platform": 0.5 * (joints["R5"] + joints["S6"]),
           "strut": 0.5 * (joints["S6"] + joints["S7"])}
    com_d1 = {"crank": 0.5 * R2_1, "coupler": R5_1, "rocker": 0.5 * R3_1,
              "platform": 0.5 * (R5_1 + S6_1), "strut": 0.5 * S6_1}
    com_d2 = {"crank": 0.5 * R2_2, "coupler": R5_2, "rocker": 0.5 * R3_2,
              "platform": 0.5 * (R5_2 + S6_2), "strut": 0.5 * S6_2}
    w_d1 = {"crank": X, "coupler": X * col(a1),
            "rocker": np.cross(sv, R3_1) / s.l3**2,
            "platform": X * col(a1) + e_a * col(b1),
            "strut": np.cross(p, S6_1) / s.l5**2}
    w_d2 = {"crank": zero, "coupler": X * col(a2),
            "rocker": np.cross(sv, R3_2) / s.l3**2,
            "platform": X * col(a2) + e_a * col(b2) + ep_a * col(a1 * b1),
            "strut": np.cross(p, S6_2) / s.l5**2}

    links: dict[str, LinkMotion] = {}
    for name in LINK_NAMES:
        first, second = LINK_ENDS[name]
        rod = joints[second] - joints[first]
        axis = rod / np.linalg.norm(rod, axis=1, keepdims=True)
        m, length = s.link_masses[name], s.lengths[name]
        J, Hc, W, Om = com_d1[name], com_d2[name], w_d1[name], w_d2[name]
        links[name] = LinkMotion(
            name=name, mass=m, length=length, ends=(first, second), axis=axis,
            com=com[name], com_vel=J * col(thd), com_acc=J * col(thdd) + Hc * col(thd**2),
            omega=W * col(thd), omega_dot=W * col(thdd) + Om * col(thd**2),
            inertia=_rod_inertia(m, length, axis),
            com_d1=J, com_d2=Hc, omega_d1=W, omega_d2=Om)

    closure = np.stack(
        [np.abs(np.linalg.norm(joints[b] - joints[a], axis=1) - s.lengths[name])
         for name, (a, b) in LINK_ENDS.items()]
        + [np.abs(_dot(joints["S6"] - joints["R5"], e_a))], axis=1).max(axis=1)

    return ScreenMotion(
        theta=th, theta_dot=thd, theta_ddot=thdd, joints=joints,
        links=links,
        z=s.l1 * np.sin(th), z_dot=s.l1 * np.cos(th) * thd,
        z_ddot=s.l1 * (np.cos(th) * thdd - np.sin(th) * thd**2),
        alpha=alpha, alpha_dot=a1 * thd, alpha_ddot=a1 * thdd + a2 * thd**2,
        beta=beta, beta_dot=b1 * thd, beta_ddot=b1 * thdd + b2 * thd**2,
        alpha_d1=a1, alpha_d2=a2, beta_d1=b1, beta_d2=b2, loop_closure=closure)


# --------------------------------------------------------------------------- dynamics models

def newton_euler_model(motion: ScreenMotion) -> tuple[list[Link], list[Joint], list[Chain]]:
    """Links, joints and the SOC solve order of Shen et al. 2021 §3 for a given motion.

    SKC2 (platform + strut; joints R5, S6, S7) is solved first (eq 26), then SKC1
    (rocker, coupler, crank; joints R1–R4) for the drive torque (eq 27).

    The planar four-bar R1–R4 is over-constrained in space: its out-of-plane reactions
    (force along X, moments about Y and Z) are statically indeterminate.  We make them
    determinate by modelling R2 as spherical and R3 as a universal joint with cross axes
    X and e⊥(α), which transmits the twist about R2R3.  The in-plane equations (forces
    along Y, Z and moments about X — the paper's eq 27) do not involve the out-of-plane
    unknowns, so the drive torque and the in-plane reactions do not depend on this choice.

    The drive torque is ``result.component("R1", "M_axis")`` (about +X, ground on crank).
    """
    L, J = motion.links, motion.joints
    links = [Link(name, lm.mass, lm.com, lm.com_acc, lm.omega, lm.omega_dot, lm.inertia)
             for name, lm in L.items()]
    e_alpha = L["coupler"].axis
    n_alpha = np.cross(_X, e_alpha)           # e⊥(α)
    joints = [
        revolute("R1", "crank", None, J["R1"], _X, driven=True),
        spherical("R2", "coupler", "crank", J["R2"]),
        universal("R3", "rocker", "coupler", J["R3"], _X, n_alpha),
        revolute("R4", "rocker", None, J["R4"], _X),
        revolute("R5", "platform", "coupler", J["R5"], e_alpha),
        spherical("S6", "platform", "strut", J["S6"]),
        spherical("S7", "strut", None, J["S7"]),
    ]
    chains = [Chain("SKC2", ["platform", "strut"], ["R5", "S6", "S7"]),
              Chain("SKC1", ["rocker", "coupler", "crank"], ["R1", "R2", "R3", "R4"])]
    return links, joints, chains


def newton_euler(motion: ScreenMotion, gravity: ArrayLike = (0.0, 0.0, -9.81)
                 ) -> NewtonEulerResult:
    """Joint reactions and drive torque by the ordered-SOC Newton–Euler method (SI)."""
    return solve_inverse_dynamics(*newton_euler_model(motion), gravity=gravity)


def lagrange_bodies(motion: ScreenMotion) -> list[lagrange.Body]:
    """The five links as :class:`fem.rigid.lagrange.Body` (one DOF, the crank angle)."""
    return [lagrange.Body(name, lm.mass, lm.com, lm.com_d1, lm.com_d2, lm.omega_d1,
                          lm.omega_d2, lm.inertia) for name, lm in motion.links.items()]


def lagrange_torque(motion: ScreenMotion, gravity: ArrayLike = (0.0, 0.0, -9.81)
                    ) -> np.ndarray:
    """Drive torque [N·m] from Lagrange's equations (Shen et al. 2021 eqs 28–38), shape (n,)."""
    tau = lagrange.inverse_dynamics(lagrange_bodies(motion), motion.theta_dot,
                                    motion.theta_ddot, gravity)
    return tau[:, 0]
