"""Minimal-coordinate models of floating-frame links (seed 002, eq 1).

A :class:`HubLink` is one :class:`~fem.elements.floating_frame.FloatingFrameLink` clamped
to a hub that turns about the global z axis: coordinates ``q = [θ, e]`` (hub angle, the
link's elastic coordinates).  The hub angle is free or prescribed (``hub_angle(t) ->
(θ, θ̇, θ̈)``, one constraint row ``θ − θ_p(t) = 0`` whose multiplier is the hub torque).

Every material point is a *nonlinear point map* ``r(x; q) = R(θ) p(x; e)``
(:class:`PointMap`: value, Jacobian ``J = ∂r/∂q`` and acceleration term ``κ = J̇ q̇``).
With them, Lagrange's equations ``J(z) z̈ = R(z, ż)`` of the seed become the framework's
one system ``M(q) q̈ + f(q, q̇) + Φ_qᵀλ = f_ext``::

    M(q)   = ∫ ρA JᵀJ dx + M_twist + I_hub
    f      = ∫ ρA Jᵀκ dx + K e − ∫ ρA Jᵀg dx,    κ = Σ_ij (∂²r/∂q_i∂q_j) q̇_i q̇_j

:meth:`HubLinkSystem.inertia_forces` returns ``M(q) q̈ + ∫ρA Jᵀκ`` and its tangents
``∂/∂q̈ = M``, ``∂/∂q̇ = 2∫ρA Jᵀ(∂²r q̇)`` (gyroscopic) and ``∂/∂q`` (less the third
derivatives of ``r``, which only slow modified Newton); :mod:`fem.solvers.dynamic` calls
it for every model whose assembly says ``constant_mass = False``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from .elements.floating_frame import FloatingFrameLink
from .errors import ModelError
from .validate import finite, vector3

__all__ = ["HubLink", "HubLinkSystem", "PointMap", "PlanarChain", "PlanarChainSystem",
           "write_centreline_series"]


def _rotation_z(theta: float):
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    R1 = np.array([[-s, -c, 0.0], [c, -s, 0.0], [0.0, 0.0, 0.0]])
    R2 = np.array([[-c, s, 0.0], [-s, -c, 0.0], [0.0, 0.0, 0.0]])
    return R, R1, R2


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

    def centreline(self, q: np.ndarray, n_points: int = 41) -> np.ndarray:
        """Deformed centre line in space (n_points, 3) — for drawing."""
        x = np.linspace(0.0, self.link.length, n_points)
        p, _, _ = self.link.local(q[1:], x)
        return p @ _rotation_z(q[0])[0].T

    def energy(self, q: np.ndarray, v: np.ndarray) -> dict[str, float]:
        """Kinetic, strain and gravitational energy [J]."""
        asm = self.assemble()
        M = asm.mass_matrix(q)
        J, _ = asm.kinematics(q)
        r = self.link.local(q[1:])[0] @ _rotation_z(q[0])[0].T
        wm = self.link.w * self.link.rho_A
        return {"kinetic": 0.5 * float(v @ M @ v),
                "strain": self.link.strain_energy(q[1:]),
                "gravity": -float(wm @ (r @ self.gravity))}


class PointMap:
    """A material point of a :class:`HubLink` as a nonlinear map of the coordinates:
    value ``r(q)``, Jacobian ``∂r/∂q`` and acceleration term ``J̇ q̇`` (so that
    ``r̈ = J q̈ + J̇ q̇``)."""

    def __init__(self, model: HubLink, x: float):
        self.model = model
        self.x = x
        self.L1, self.Q, self.p0 = model.link.samples([x])
        self.label = f"{model.name} point x = {x:g} m"

    def _parts(self, q):
        e = q[1:]
        Qe = self.Q[0] @ e
        p = self.p0[0] + self.L1[0] @ e
        p[0] -= 0.5 * Qe @ e
        Pe = self.L1[0].copy()
        Pe[0] -= Qe
        return p, Pe, _rotation_z(q[0])

    def __call__(self, q: np.ndarray) -> np.ndarray:
        p, _, (R, _, _) = self._parts(q)
        return R @ p

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        p, Pe, (R, R1, _) = self._parts(q)
        return np.column_stack([R1 @ p, R @ Pe])

    def acceleration_term(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        p, Pe, (R, R1, R2) = self._parts(q)
        w, ed = v[0], v[1:]
        return (R2 @ p * w * w + 2.0 * w * (R1 @ (Pe @ ed))
                - R[:, 0] * float(ed @ self.Q[0] @ ed))


class HubLinkSystem:
    """The frozen system of a :class:`HubLink` in the interface the generalized-α solver
    uses (dense; ``constant_mass = False``)."""

    constant_mass = False
    dense = True
    groups: list = []

    def __init__(self, model: HubLink):
        self.model = model
        link = model.link
        self.link = link
        n = self.n = model.n_dof
        self.q0 = model.q0
        self.elastic = [link]
        self._cvals = None
        Mc = np.zeros((n, n))
        Mc[0, 0] = model.hub_inertia
        Mc[1:, 1:] = link.M_twist
        self.M_const = Mc
        K = np.zeros((n, n))
        K[1:, 1:] = link.K
        self.K = K
        self.wm = link.w * link.rho_A
        self.drive = model.hub_angle
        self.m = self.n_con = 1 if self.drive is not None else 0
        self.labels = ["hub drive θ − θ_p(t)"] if self.m else []
        self.owner = [model] * self.m
        Jd = np.zeros((self.m, n))
        if self.m:
            Jd[0, 0] = 1.0
        self.Jd = Jd

    # ------------------------------------------------------------ kinematics
    def kinematics(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``J`` (P, 3, n) and ``∂²r/∂q∂q`` (P, 3, n, n) at the quadrature points."""
        R, R1, R2 = _rotation_z(q[0])
        p, Pe, Q = self.link.local(q[1:])
        P, n = p.shape[0], self.n
        J = np.empty((P, 3, n))
        J[:, :, 0] = p @ R1.T
        J[:, :, 1:] = np.einsum("ij,pjk->pik", R, Pe)
        Hs = np.zeros((P, 3, n, n))
        Hs[:, :, 0, 0] = p @ R2.T
        RP = np.einsum("ij,pjk->pik", R1, Pe)
        Hs[:, :, 0, 1:] = RP
        Hs[:, :, 1:, 0] = RP
        Hs[:, :, 1:, 1:] = -R[None, :, 0, None, None] * Q[:, None]
        return J, Hs

    def mass_matrix(self, q: np.ndarray) -> np.ndarray:
        J, _ = self.kinematics(q)
        return np.einsum("p,pin,pim->nm", self.wm, J, J) + self.M_const

    def inertia_forces(self, q: np.ndarray, v: np.ndarray, a: np.ndarray,
                       tangent: bool = False):
        """``M(q) a + ∫ρA Jᵀκ`` and, with ``tangent``, ``(M, ∂/∂q, ∂/∂q̇)``."""
        J, Hs = self.kinematics(q)
        wm = self.wm
        Hv = np.einsum("pink,k->pin", Hs, v)
        acc = np.einsum("pin,n->pi", J, a) + np.einsum("pin,n->pi", Hv, v)
        f = np.einsum("p,pin,pi->n", wm, J, acc) + self.M_const @ a
        if not tangent:
            return f, None
        M = np.einsum("p,pin,pim->nm", wm, J, J) + self.M_const
        C = 2.0 * np.einsum("p,pin,pim->nm", wm, J, Hv)
        Ha = np.einsum("pink,k->pin", Hs, a)
        Kq = (np.einsum("p,pink,pi->nk", wm, Hs, acc)
              + np.einsum("p,pin,pik->nk", wm, J, Ha))
        return f, (M, Kq, C)

    # ---------------------------------------------------------------- forces
    def internal_forces(self, q: np.ndarray, v: np.ndarray | None = None,
                        tangent: bool = False):
        """Elastic forces ``K e`` and the weight (configuration-dependent)."""
        f = self.K @ q
        g = self.model.gravity
        if not np.any(g):
            return f, (self.K.copy() if tangent else None)
        J, Hs = self.kinematics(q)
        f = f - np.einsum("p,pin,i->n", self.wm, J, g)
        if not tangent:
            return f, None
        return f, self.K - np.einsum("p,pink,i->nk", self.wm, Hs, g)

    def damping_force(self, v: np.ndarray) -> np.ndarray:
        return np.zeros(self.n)

    def external_forces(self, t: float = 0.0, q: np.ndarray | None = None) -> np.ndarray:
        return np.zeros(self.n)

    # ------------------------------------------------------------ constraint
    def _drive(self, t: float, k: int) -> np.ndarray:
        return np.array([float(self.drive(t)[k])]) if self.m else np.zeros(0)

    def phi(self, q: np.ndarray, t: float = 0.0) -> np.ndarray:
        return self.Jd @ q - self._drive(t, 0)

    def constraint_state(self, q: np.ndarray, t: float = 0.0):
        return self.phi(q, t), self.Jd

    def jacobian_values(self, q: np.ndarray, t: float = 0.0) -> np.ndarray:
        return self.Jd

    def jacobian(self, q: np.ndarray, t: float = 0.0) -> sp.csr_matrix:
        return sp.csr_matrix(self.Jd)

    def j_dot(self, jv: np.ndarray, x: np.ndarray) -> np.ndarray:
        return jv @ x

    def phi_t(self, q: np.ndarray, t: float = 0.0) -> np.ndarray:
        return -self._drive(t, 1)

    def gamma(self, q: np.ndarray, v: np.ndarray, t: float = 0.0) -> np.ndarray:
        return self._drive(t, 2)

    def reaction(self, jv: np.ndarray, lam: np.ndarray, q: np.ndarray) -> np.ndarray:
        return jv.T @ lam

    def hessian_values(self, lam: np.ndarray, q: np.ndarray | None = None) -> np.ndarray:
        return np.zeros((self.n, self.n))

    def zero_tangent(self) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros((self.n, self.n)), np.zeros((self.n, self.n))

    def saddle(self, cM: float, cK: float, kvals, hvals, jvals, cJ: float = 1.0,
               q: np.ndarray | None = None, cC: float = 0.0, inertia=None) -> np.ndarray:
        """``[[cM M(q) + cK (K + ∂f/∂q) + cC ∂f/∂q̇, cJ Φ_qᵀ], [cJ Φ_q, 0]]``."""
        if inertia is None:
            A = cM * self.mass_matrix(self.q0 if q is None else q) + cK * (kvals + hvals)
        else:
            M, Kq, C = inertia
            A = cM * M + cK * (kvals + hvals + Kq) + cC * C
        n, m = self.n, self.m
        S = np.zeros((n + m, n + m))
        S[:n, :n] = A
        S[:n, n:] = cJ * jvals.T
        S[n:, :n] = cJ * jvals
        return S


def _rot(phi: float):
    return _rotation_z(phi)


class PlanarChain(HubLink):
    """A serial chain of floating-frame links joined by pin joints about the global z
    axis, the first pinned at the origin (seed 002, Fig 9).

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
        the seed's flexible revolute joints (spring and joint mass).
    tip_masses : sequence of float or None
        Point masses [kg] at the tip of every link (the next joint's mass, or a payload
        at the last tip).
    """

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
            R = _rot(c @ q)[0]
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


class PlanarChainSystem(HubLinkSystem):
    """:class:`HubLinkSystem` for a :class:`PlanarChain` (no drives; joint springs)."""

    def __init__(self, model: PlanarChain):
        self.model = model
        self.link = model.links[0]
        n = self.n = model.n_dof
        self.q0 = model.q0
        self.elastic = list(model.links)
        self._cvals = None
        Mc = np.zeros((n, n))
        K = np.zeros((n, n))
        for lk, d in zip(model.links, model.elastic_dofs, strict=True):
            Mc[np.ix_(d, d)] = lk.M_twist
            K[np.ix_(d, d)] = lk.K
        K[model.joint_dofs, model.joint_dofs] = model.joint_stiffness
        self.M_const, self.K = Mc, K
        self.theta_ref = np.zeros(n)
        self.theta_ref[model.joint_dofs] = model.angles0
        # distributed mass at the quadrature points, then the tip point masses
        self.wm = np.concatenate([*(lk.w * lk.rho_A for lk in model.links),
                                  model.tip_masses])
        self.drive = None
        self.m = self.n_con = 0
        self.labels, self.owner = [], []
        self.Jd = np.zeros((0, n))
        self.c = model.frame_vectors()
        tip = [lk.samples([lk.length]) for lk in model.links]
        self._tips = tip

    @staticmethod
    def _term(phi, c, p, Pe, Q, cols, n):
        """J and ∂²r/∂q∂q of ``R(c·q) p(e)`` at P points (``p`` (P, 3), ``Pe`` (P, 3, k),
        ``Q`` (P, k, k), ``cols`` the k columns of e)."""
        R, R1, R2 = _rot(phi)
        P = p.shape[0]
        J = np.einsum("pi,n->pin", p @ R1.T, c)
        J[:, :, cols] += np.einsum("ij,pjk->pik", R, Pe)
        Hs = np.einsum("pi,n,m->pinm", p @ R2.T, c, c)
        RP = np.zeros((P, 3, n))
        RP[:, :, cols] = np.einsum("ij,pjk->pik", R1, Pe)
        Hs += np.einsum("pin,m->pinm", RP, c) + np.einsum("pim,n->pinm", RP, c)
        Hs[:, :, cols[:, None], cols[None, :]] -= R[None, :, 0, None, None] * Q[:, None]
        return J, Hs

    def kinematics(self, q: np.ndarray):
        n = self.n
        Js, Hss = [], []
        J_o = np.zeros((1, 3, n))
        H_o = np.zeros((1, 3, n, n))
        tips_J, tips_H = [], []
        for lk, c, d, (L1, Q1, p01) in zip(self.model.links, self.c,
                                           self.model.elastic_dofs, self._tips, strict=True):
            e = q[d]
            p, Pe, Q = lk.local(e)
            J, Hs = self._term(c @ q, c, p, Pe, Q, d, n)
            Js.append(J + J_o)
            Hss.append(Hs + H_o)
            # the tip of this link is the origin of the next
            Qe = Q1[0] @ e
            pt = p01[0] + L1[0] @ e
            pt[0] -= 0.5 * Qe @ e
            Pt = L1[0].copy()
            Pt[0] -= Qe
            Jt, Ht = self._term(c @ q, c, pt[None], Pt[None], Q1, d, n)
            J_o, H_o = J_o + Jt, H_o + Ht
            tips_J.append(J_o)
            tips_H.append(H_o)
        return np.concatenate(Js + tips_J), np.concatenate(Hss + tips_H)

    def positions(self, q: np.ndarray) -> np.ndarray:
        """Material points at the quadrature points of all links (P, 3)."""
        out, tips, o = [], [], np.zeros(3)
        for lk, c, d, (L1, Q1, p01) in zip(self.model.links, self.c,
                                           self.model.elastic_dofs, self._tips, strict=True):
            R = _rot(c @ q)[0]
            out.append(o + lk.local(q[d])[0] @ R.T)
            e = q[d]
            pt = p01[0] + L1[0] @ e
            pt[0] -= 0.5 * (Q1[0] @ e) @ e
            o = o + R @ pt
            tips.append(o)
        return np.concatenate([*out, np.array(tips)])

    def internal_forces(self, q: np.ndarray, v: np.ndarray | None = None,
                        tangent: bool = False):
        """Elastic and joint-spring forces and the weight."""
        f = self.K @ (q - self.theta_ref)
        J, Hs = self.kinematics(q)
        g = self.model.gravity
        f = f - np.einsum("p,pin,i->n", self.wm, J, g)
        if not tangent:
            return f, None
        return f, self.K - np.einsum("p,pink,i->nk", self.wm, Hs, g)


def write_centreline_series(out, name: str, times, lines_per_frame,
                            max_frames: int = 400) -> list:
    """Write the links' deformed centre lines as a ParaView series.

    ``lines_per_frame[k]`` is a list of (n_points, 3) polylines at ``times[k]``; every
    frame becomes ``out/<name>_NNNNN.vtu`` (line cells; a Tube filter draws the links as
    tubes) and ``out/<name>.pvd`` collects them with their times.  At most ``max_frames``
    frames, evenly spaced.  Returns the written paths."""
    from pathlib import Path

    import meshio

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    n = len(times)
    idx = np.unique(np.linspace(0, n - 1, min(n, max_frames)).round().astype(int))
    written, entries = [], []
    for k, i in enumerate(idx):
        lines = lines_per_frame[i]
        pts = np.concatenate(lines)
        start = np.cumsum([0] + [len(ln) for ln in lines])
        cells = np.concatenate([np.column_stack([np.arange(a, b - 1), np.arange(a + 1, b)])
                                for a, b in zip(start[:-1], start[1:], strict=True)])
        link = np.concatenate([np.full(len(ln) - 1, j) for j, ln in enumerate(lines)])
        path = out / f"{name}_{k:05d}.vtu"
        meshio.write(str(path), meshio.Mesh(pts, [("line", cells)],
                                            cell_data={"link": [link]}))
        written.append(path)
        entries.append(f'  <DataSet timestep="{float(times[i]):.9g}" file="{path.name}"/>')
    pvd = out / f"{name}.pvd"
    pvd.write_text('<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1">\n'
                   "<Collection>\n" + "\n".join(entries) + "\n</Collection>\n</VTKFile>\n")
    return [*written, pvd]
