"""Minimal-coordinate models of floating-frame links (Fan and Zhang 2016, eq 1).

A :class:`HubLink` is one :class:`~fem.elements.floating_frame.FloatingFrameLink` clamped
to a hub that turns about the global z axis: coordinates ``q = [θ, e]`` (hub angle, the
link's elastic coordinates).  The hub angle is free or prescribed (``hub_angle(t) ->
(θ, θ̇, θ̈)``, one constraint row ``θ − θ_p(t) = 0`` whose multiplier is the hub torque).

Every material point is a *nonlinear point map* ``r(x; q) = R(θ) p(x; e)``
(:class:`PointMap`: value, Jacobian ``J = ∂r/∂q`` and acceleration term ``κ = J̇ q̇``).
With them, Lagrange's equations ``J(z) z̈ = R(z, ż)`` of the paper become the framework's
one system ``M(q) q̈ + f(q, q̇) + Φ_qᵀλ = f_ext``::

    M(q)   = ∫ ρA JᵀJ dx + M_twist + I_hub
    f      = ∫ ρA Jᵀκ dx + K e − ∫ ρA Jᵀg dx,    κ = Σ_ij (∂²r/∂q_i∂q_j) q̇_i q̇_j

:meth:`HubLinkSystem.inertia_forces` returns ``M(q) q̈ + ∫ρA Jᵀκ`` and its tangents
``∂/∂q̈ = M``, ``∂/∂q̇ = 2∫ρA Jᵀ(∂²r q̇)`` (gyroscopic) and ``∂/∂q`` (less the third
derivatives of ``r``, which only slow modified Newton); :mod:`fem.solvers.dynamic` calls
it for every model whose assembly says ``constant_mass = False``.

:class:`PlanarChain` joins links by pin joints about parallel (z) axes;
:class:`SpatialChain` (built by :func:`dh_chain`) by revolute joints placed with
Denavit–Hartenberg parameters, its links bending in two planes and twisting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np
import scipy.sparse as sp

from ..assembly.system import ConstantStructure, System
from ..core.errors import ModelError
from ..core.validate import finite, vector3
from ..elements.floating_frame import Coupling, FloatingFrameLink
from .chain_inertia import ChainInertia, Frame, LinkState, frame_term, index
from .chain_kernels import CONST, OFFSET, RESET, TURN, chain_kernel, pack
from .floating_frame import axis_rotation

__all__ = ["HubLink", "HubLinkSystem", "PointMap", "PlanarChain", "PlanarChainSystem",
           "SpatialChain", "SpatialChainSystem", "dh_chain",
           "write_centreline_series"]


def _rotation_z(theta: float):
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    R1 = np.array([[-s, -c, 0.0], [c, -s, 0.0], [0.0, 0.0, 0.0]])
    R2 = np.array([[-c, s, 0.0], [-s, -c, 0.0], [0.0, 0.0, 0.0]])
    return R, R1, R2


KINEMATICS_RANGE = {"seed": 0.3, "curvature_only": 0.3, "foreshortening_only": 0.3,
                    "fourth_order": 0.5}
"""A link's transverse tip deflection, as a fraction of its length, past which a run
warns (:meth:`HubLink.past_kinematics_range`): the kinematics keep the slopes to first
('seed') or third order ('fourth_order'), and at 30 % (a cantilever's tip slope ≈ 0.45)
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
        neglected terms of order slope² for 'seed', slope⁴ for 'fourth_order'); None
        inside it.  At most 200 states are looked at (evenly spaced)."""
        qs = np.asarray(qs, float)
        if qs.ndim != 2 or not len(qs):
            return None
        qs = qs[np.unique(np.linspace(0, len(qs) - 1, min(len(qs), 200)).astype(int))]
        links = getattr(self, "links", [self.link])
        dofs = getattr(self, "elastic_dofs", [np.arange(1, 1 + self.link.n_coordinates)])
        worst = None
        for i, (lk, d) in enumerate(zip(links, dofs, strict=True)):
            limit = KINEMATICS_RANGE.get(lk.kinematics, KINEMATICS_RANGE["seed"])
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
        return p @ _rotation_z(q[0])[0].T

    def energy(self, q: np.ndarray, v: np.ndarray) -> dict[str, float]:
        """Kinetic, strain and gravitational energy [J]."""
        asm = self.assemble()
        M = asm.mass_matrix(q)
        r = self.link.local(q[1:])[0] @ _rotation_z(q[0])[0].T
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
        from ..model.core import Model

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
        _set_frame(Q, b, np.zeros(3), _rotation_z(q[0])[0], q[1:])
        return Q

    def dae_state(self, model, q: np.ndarray, v: np.ndarray, eps: float = 1e-6):
        """``(Q, V)`` of :meth:`to_model`'s model for this chain's state ``(q, q̇)``
        (``V`` by central differences of :meth:`dae_coordinates` along ``q̇``)."""
        Q = self.dae_coordinates(model, q)
        V = (self.dae_coordinates(model, q + eps * v)
             - self.dae_coordinates(model, q - eps * v)) / (2 * eps)
        return Q, V


def _kernel_kinematics(lk: FloatingFrameLink, smp, tip=None) -> dict:
    """The kinematics' data of :func:`fem.bodies.chain_kernels.pack` for a link: the
    running rule of the fourth-order foreshortening at the samples ``smp`` (and at the
    ``tip`` samples), the rule of the nonlinear curvature."""
    out: dict = {"rule": None, "tip_rule": None, "bend": None}
    if lk.nonlinear_foreshortening:
        dYK, wtK = lk._pieces
        out["rule"] = (dYK, wtK, smp.nfull, smp.dY, smp.wt)
        if tip is not None:
            out["tip_rule"] = (tip.nfull, tip.dY, tip.wt)
    if lk.nonlinear_curvature:
        wb, Bz = lk._bend
        out["bend"] = (wb, Bz, lk.EI_z, lk.EI_y)
    return out


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
        return p[0], Pe[0], Q[0], _rotation_z(q[0])

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


class HubLinkSystem(System):
    """The frozen system of a :class:`HubLink` in the solver contract
    (:class:`fem.assembly.system.System`; dense, configuration-dependent mass)."""

    constant_mass = False
    dense = True
    has_elastic = True
    has_damping = False
    constant_loads = True       # no applied loads (the weight is an internal force)

    @property
    def factor_cost_iterations(self) -> float:
        """The cost of a factorization in iterations: ``max(0.7, n / (30 n_links))``.

        Small chains: about one iteration, the Lagrange equations evaluated in Python
        every iteration dominate (measured with the clock on the two- and five-link falls
        and the spin-up beam: 0.5–0.9; the count-based estimate of
        :mod:`fem.solvers.factor_cost` does not see them and gave 3.3 and 4.9, which made
        the two-link fall 11 % slower).  The tangent's projections to the chain
        coordinates and the LU grow with the coordinates ``n``, an iteration with the links
        (issue 23, ``factor_cost="timed"``: two-link fall 0.4–1.0 at n = 26–38, 1.0–1.25 at
        70, 1.5 at 98, 1.6–2.4 at 130–134; five-link fall 0.54 at 95, 1.06 at 175).  The
        defaults of the chain cases (n ≤ 30 per link) keep 0.7.

        With the compiled evaluation (:mod:`fem.bodies.chain_kernels`) an iteration with a
        kept factorization runs compiled (≈ 15–20 µs) while a factorization still forms
        the tangents and the saddle matrix through Python (≈ 70–150 µs): 6, the best of
        the fixed ratios 1.5–32 tried on the spin-up beam (7 coordinates, Ω0 = 4 and 10)
        and the two-link fall (30, 70 and 134 coordinates), 1.2–1.6× faster than 0.7."""
        if self._kernel() is not None:
            return 6.0
        return max(0.7, self.n / (30.0 * len(self.elastic)))

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
        self._hub_c = np.eye(n)[0]
        self._cols = slice(1, n)
        self._state = None
        self.use_kernel = True
        self._packed = None

    # ------------------------------------------------ inertia in the links' frames
    def _link_states(self, q: np.ndarray) -> list[LinkState]:
        """The link in its frame (:mod:`fem.bodies.chain_inertia`): hub angle, no origin."""
        R, R1, R2 = _rotation_z(q[0])
        p, Pe, Q = self.link.local_band(q[1:])
        F = Frame(R, R1[None], R2[None, None], self._hub_c[None])
        return [LinkState(F, self._cols, p, Pe, Q, self.wm, [], self.link.band)]

    def _inertia_state(self, q: np.ndarray) -> ChainInertia:
        """The :class:`~fem.bodies.chain_inertia.ChainInertia` at ``q``, kept for the next call
        at the same ``q`` (a Newton iteration asks for the weight, then the inertia)."""
        key = (q.tobytes(), tuple(lk.use_kernel for lk in self.elastic))
        st = self._state
        if st is None or st[0] != key:
            st = self._state = (key, ChainInertia(self._link_states(q), self.n))
        return st[1]

    # ------------------------------------------------------ the compiled evaluation
    use_kernel: bool
    """Evaluate with the compiled kernel (:mod:`fem.bodies.chain_kernels`) where it
    applies; False: the NumPy form (:mod:`fem.bodies.chain_inertia`, the reference)."""

    def _kernel_links(self) -> list[dict] | None:
        """The links in :func:`fem.bodies.chain_kernels.pack`'s form, or None where the
        kernel does not apply (the fourth-order kinematics)."""
        lk = self.link
        if not lk.use_kernel:
            return None
        smp = lk.quadrature_samples
        return [{"L1": smp.L1, "H": smp.H, "p0": smp.p0, "w": self.wm,
                 "ops": [(RESET, 0, np.eye(3)), (TURN, 2, self._hub_c)],
                 "cols": np.arange(1, self.n), "na": lk.na, "nb": lk.nb, "tip": None,
                 **_kernel_kinematics(lk, smp)}]

    def _kernel(self):
        """``(evaluate, index, data)`` of the compiled evaluation, or None (NumPy form:
        no numba, ``use_kernel`` False, or a chain the kernel does not cover)."""
        if not self.use_kernel:
            return None
        if self._packed is None:
            fn = chain_kernel()
            links = None if fn is None else self._kernel_links()
            self._packed = (None,) if links is None else (
                fn, *pack(self.model.gravity, self.K, self._theta_ref(), links))
        return None if self._packed[0] is None else self._packed

    def _theta_ref(self) -> np.ndarray:
        return np.zeros(self.n)

    def _compiled(self, q, v, a, inertia: bool, weight: bool, tangent: bool):
        """``(mq, f, (M, C, Kq, Kw))`` of the compiled evaluation (see
        :func:`fem.bodies.chain_kernels.chain_kernel`)."""
        fn, index, data = self._packed
        n = self.n
        mq, f = np.zeros(n), np.zeros(n)
        T = [np.zeros((n, n)) if tangent else np.zeros((0, 0)) for _ in range(4)]
        fn(index, data, q, v, a, inertia, weight, tangent, mq, f, *T)
        return mq, f, T

    def constant_structure(self) -> ConstantStructure | None:
        """The declared structure (:class:`fem.assembly.system.ConstantStructure`) with the
        compiled chain as its one body (:data:`fem.bodies.kernels.KIND_CHAIN`): constant
        twist and hub masses, the hub drive a linear row; generalized-α then runs its
        iterations with a kept factorization compiled and (``tangents``: the chain's
        part of the iteration matrix, :data:`fem.bodies.kernels.KIND_CHAIN` in
        ``body_tangents``) forms and factorizes small iteration matrices there too.
        None where the compiled evaluation does not apply."""
        if self._kernel() is None:
            return None
        from ..constraints.compiled import declare_products, state_kernel
        from ..elements.kernels import group_forces, no_group
        from .kernels import KIND_CHAIN, body_tangents, body_terms
        from .kernels import pack as pack_bodies

        state, terms, tangents = state_kernel(), body_terms(), body_tangents()
        if state is None or terms is None or group_forces is None:
            return None
        _, index, data = self._packed
        n = self.n
        empty = sp.csr_matrix((0, n))
        bodies = pack_bodies([(KIND_CHAIN, 0, np.arange(n), data, index, 0)])
        return ConstantStructure(
            mass=sp.csr_matrix(self.M_const), damping=None, jacobian=sp.csr_matrix(self.Jd),
            offset=lambda t: -self._drive(t, 0), rate=lambda t, q: self.phi_t(q, t),
            forces=(group_forces, no_group()[0], np.zeros((0, 0), np.int64),
                    *no_group()[1:]),
            timed=bool(self.m),
            bilinear=(state, empty, np.zeros(0), empty, np.zeros(0, np.int64),
                      lambda t: np.zeros(0)),
            bodies=(terms, *bodies), tangents=tangents, products=declare_products())

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
        if self._kernel() is not None:
            z = np.zeros(self.n)
            return self._compiled(q, z, z, True, False, True)[2][0] + self.M_const
        return self._inertia_state(q).mass() + self.M_const

    def inertia_forces(self, q: np.ndarray, v: np.ndarray, a: np.ndarray,
                       tangent: bool = False):
        """``M(q) a + ∫ρA Jᵀκ`` and, with ``tangent``, ``(M, ∂/∂q, ∂/∂q̇)``.

        Summed in every link's frame coordinates and carried to ``q`` by the chain rule
        (:mod:`fem.bodies.chain_inertia`); :meth:`kinematics` gives the point-by-point ``J`` and
        ``∂²r/∂q∂q`` the same sums come from (the reference of the tests).  Compiled
        where :meth:`_kernel` applies."""
        if self._kernel() is not None:
            f, _, (M, C, Kq, _) = self._compiled(q, v, a, True, False, tangent)
            f += self.M_const @ a
            return (f, (M + self.M_const, Kq, C)) if tangent else (f, None)
        f, tan = self._inertia_state(q).inertia(v, a, tangent)
        f += self.M_const @ a
        if not tangent:
            return f, None
        M, Kq, C = tan
        return f, (M + self.M_const, Kq, C)

    # ---------------------------------------------------------------- forces
    def _link_dofs(self):
        """(link, its elastic coordinates in q) for every link."""
        return [(self.link, np.arange(1, self.n))]

    def _elastic(self, f: np.ndarray, Kt: np.ndarray | None, q: np.ndarray):
        """Add the nonlinear part of the links' elastic forces (and tangents) to ``K q``."""
        for lk, d in self._link_dofs():
            if lk.nonlinear_curvature:
                fe, Ke = lk.elastic_forces(q[d], Kt is not None)
                f[d] += fe - lk.K @ q[d]
                if Kt is not None:
                    Kt[np.ix_(d, d)] += Ke - lk.K
        return f, Kt

    def internal_forces(self, q: np.ndarray, v: np.ndarray | None = None,
                        tangent: bool = False):
        """Elastic forces ``∂U/∂e`` and the weight (configuration-dependent)."""
        if self._kernel() is not None:
            return self._compiled_internal(q, tangent)
        f, Kt = self._elastic(self.K @ q, self.K.copy() if tangent else None, q)
        g = self.model.gravity
        if not np.any(g):
            return f, Kt
        fg, Kg = self._inertia_state(q).weight(g, tangent)
        if not tangent:
            return f - fg, None
        return f - fg, Kt - Kg

    def _compiled_internal(self, q: np.ndarray, tangent: bool):
        """:meth:`internal_forces` by the compiled evaluation."""
        _, f, (_, _, _, Kw) = self._compiled(q, q, q, False, True, tangent)
        return (f, self.K - Kw) if tangent else (f, None)

    def damping_force(self, v: np.ndarray) -> np.ndarray:
        return np.zeros(self.n)

    def external_forces(self, t: float = 0.0, q: np.ndarray | None = None) -> np.ndarray:
        return np.zeros(self.n)

    # ------------------------------------------------------------ constraint
    def _drive(self, t: float, k: int) -> np.ndarray:
        from ..constraints import motion_values

        if not self.m:
            return np.zeros(0)
        # checked: a NaN or inf angle stops the run at this time, naming the function
        return np.array([motion_values(self.drive, t, None, "hub_angle",
                                       "HubLink: hub_angle(t)")[k]])

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

    def stiffness(self, kvals, hvals=None) -> np.ndarray:
        return kvals if hvals is None else kvals + hvals

    def check_rank(self, q=None, t: float = 0.0, tol: float = 1e-9) -> None:
        """The rows are drives of distinct joint coordinates: independent."""

    def efforts(self, lam) -> dict[str, float]:
        """The hub torque [N·m] (the drive row's multiplier)."""
        return {"hub torque": float(lam[0])} if self.m else {}

    def dof_label(self, dof: int) -> str:
        return self._dof_names()[int(dof)] if 0 <= dof < self.n else f"coordinate {dof}"

    def _dof_names(self) -> list[str]:
        names = [f"{self.model.name} hub angle"]
        names += [f"{self.model.name} e[{i}]" for i in range(self.n - 1)]
        return names

    def parts_of(self, dofs) -> list[str]:
        return [self.model.name]

    def energy(self, q, v) -> dict[str, float]:
        e = self.model.energy(q, v)
        out = {"kinetic_J": e["kinetic"], "potential_J": e["gravity"],
               "elastic_J": e["strain"]}
        out["total_J"] = sum(out.values())
        return out

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


def _planar_to_model(chain, rotary_inertia: str = "twist"):
    from ..constraints import Coincident, Dot
    from ..model.core import Model

    if np.any(chain.joint_stiffness):
        raise ModelError(f"{chain.name}: joint springs (joint_stiffness) exist only in the "
                         "minimal-coordinate chain; to_model() builds pin joints")
    m = Model(chain.name, gravity=chain.gravity)
    q = chain.q0
    bodies = []
    for i, (lk, c, tm) in enumerate(zip(chain.links, chain.frame_vectors(),
                                        chain.tip_masses, strict=True)):
        R = _rot(c @ q)[0]
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
        R = _rot(c @ q)[0]
        _set_frame(Q, b, o, R, q[d])
        o = b.centreline(Q, 2)[-1]
    return Q


class PlanarChainSystem(HubLinkSystem):
    """:class:`HubLinkSystem` for a :class:`PlanarChain` (no drives; joint springs)."""

    def _setup(self, model) -> None:
        """What planar and spatial chains share: constant twist mass, stiffness, joint
        springs, the mass weights of the sample points (distributed, then tip masses)."""
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
        self.wm = np.concatenate([*(lk.w * lk.rho_A for lk in model.links),
                                  model.tip_masses])
        # mass weights of every link's points (its tip last when it carries a mass)
        self._weights = [np.append(lk.w * lk.rho_A, tm) if tm else lk.w * lk.rho_A
                         for lk, tm in zip(model.links, model.tip_masses, strict=True)]
        # every link's elastic coordinates in q, and those of its bending band
        self._cols = [index(d) for d in model.elastic_dofs]
        self._qcols = [index(d[lk.band]) for lk, d in zip(model.links, model.elastic_dofs,
                                                         strict=True)]
        self._state = None
        self.use_kernel = True
        self._packed = None
        self.drive = None
        self.m = self.n_con = 0
        self.labels, self.owner = [], []
        self.Jd = np.zeros((0, n))

    def __init__(self, model: PlanarChain):
        self._setup(model)
        self.c = model.frame_vectors()
        self._tips = [lk.sample([lk.length]) for lk in model.links]

    def _theta_ref(self) -> np.ndarray:
        return self.theta_ref

    def _frame_ops(self, i: int) -> list[tuple]:
        """The program of link ``i``'s frame (:func:`fem.bodies.chain_kernels.pack`):
        the rotation about z by ``c_i·q``."""
        return [(RESET, 0, np.eye(3)), (TURN, 2, self.c[i])]

    def _kernel_links(self) -> list[dict] | None:
        """The links in :func:`fem.bodies.chain_kernels.pack`'s form (a tip mass as one
        more point, the tip's data where a next link starts), or None."""
        model = self.model
        if not all(lk.use_kernel for lk in model.links):
            return None
        out, nl = [], len(model.links)
        for i, (lk, tip) in enumerate(zip(model.links, self._tips, strict=True)):
            smp = lk.quadrature_samples
            L1, H, p0 = smp.L1, smp.H, smp.p0
            kin = _kernel_kinematics(lk, smp, tip)
            if model.tip_masses[i]:
                L1, H, p0 = (np.concatenate([L1, tip.L1]), np.concatenate([H, tip.H]),
                             np.concatenate([p0, tip.p0]))
                if kin.get("rule") is not None:
                    dYK, wtK, nfull, dY, wt = kin["rule"]
                    kin["rule"] = (dYK, wtK, np.concatenate([nfull, tip.nfull]),
                                   np.concatenate([dY, tip.dY]), np.concatenate([wt, tip.wt]))
            if i + 1 == nl:
                kin["tip_rule"] = None
            out.append({"L1": L1, "H": H, "p0": p0, "w": self._weights[i],
                        "ops": self._frame_ops(i),
                        "cols": model.elastic_dofs[i], "na": lk.na, "nb": lk.nb,
                        "tip": (tip.L1[0], tip.H[0], tip.p0[0]) if i + 1 < nl else None,
                        **kin})
        return out

    def _link_states(self, q: np.ndarray) -> list[LinkState]:
        """Every link in its frame (:mod:`fem.bodies.chain_inertia`): frame angle ``c_i·q``,
        origin the previous tip, a tip mass as one more point."""
        out, prev = [], None
        nl = len(self.model.links)
        for i, (lk, c, d, tip, w) in enumerate(zip(self.model.links, self.c, self._cols,
                                                   self._tips, self._weights, strict=True)):
            e = q[d]
            R, R1, R2 = _rot(c @ q)
            F = Frame(R, R1[None], R2[None, None], c[None])
            p, Pe, Q = lk.local_band(e)
            tm = self.model.tip_masses[i]
            if tm or i + 1 < nl:
                pt, Pt, Qt = lk.local_band(e, tip)
                if tm:
                    p, Pe, Q = (np.concatenate([p, pt]), np.concatenate([Pe, Pt]),
                                Coupling.concat(Q, Qt))
            out.append(LinkState(F, d, p, Pe, Q, w, [prev] if prev else [], lk.band))
            if i + 1 < nl:
                prev = (F, pt[0], Pt[0], Qt.dense()[0], d, self._qcols[i])
        return out

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
        for lk, c, d, tip in zip(self.model.links, self.c, self.model.elastic_dofs,
                                 self._tips, strict=True):
            e = q[d]
            p, Pe, Q = lk.local(e)
            J, Hs = self._term(c @ q, c, p, Pe, Q, d, n)
            Js.append(J + J_o)
            Hss.append(Hs + H_o)
            # the tip of this link is the origin of the next
            pt, Pt, Qt = lk.local(e, tip)
            Jt, Ht = self._term(c @ q, c, pt, Pt, Qt, d, n)
            J_o, H_o = J_o + Jt, H_o + Ht
            tips_J.append(J_o)
            tips_H.append(H_o)
        return np.concatenate(Js + tips_J), np.concatenate(Hss + tips_H)

    def positions(self, q: np.ndarray) -> np.ndarray:
        """Material points at the quadrature points of all links (P, 3)."""
        out, tips, o = [], [], np.zeros(3)
        for lk, c, d, tip in zip(self.model.links, self.c, self.model.elastic_dofs,
                                 self._tips, strict=True):
            R = _rot(c @ q)[0]
            out.append(o + lk.local(q[d])[0] @ R.T)
            o = o + R @ lk.local(q[d], tip)[0][0]
            tips.append(o)
        return np.concatenate([*out, np.array(tips)])

    def _link_dofs(self):
        return list(zip(self.model.links, self.model.elastic_dofs, strict=True))

    def _dof_names(self) -> list[str]:
        names = [""] * self.n
        for i, (j, d) in enumerate(zip(self.model.joint_dofs, self.model.elastic_dofs,
                                       strict=True)):
            names[j] = f"{self.model.name} joint {i + 1} angle"
            for k, dd in enumerate(d):
                names[dd] = f"{self.model.name} link {i + 1} e[{k}]"
        return names

    def internal_forces(self, q: np.ndarray, v: np.ndarray | None = None,
                        tangent: bool = False):
        """Elastic and joint-spring forces and the weight."""
        if self._kernel() is not None:
            return self._compiled_internal(q, tangent)
        f, Kt = self._elastic(self.K @ (q - self.theta_ref),
                              self.K.copy() if tangent else None, q)
        if not np.any(self.model.gravity):
            return f, Kt
        fg, Kg = self._inertia_state(q).weight(self.model.gravity, tangent)
        if not tangent:
            return f - fg, None
        return f - fg, Kt - Kg


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


# ---------------------------------------------------------------------------------------
# spatial chains (D-H joints, links that bend in two planes and twist)
class _RotationProduct:
    """A running product ``R = F_1 F_2 …`` of constant rotations and elementary rotations
    ``E_axis(c_k·q)`` with exact first and second derivatives in the angles ``a_k``."""

    def __init__(self, n: int, K: int, R0: np.ndarray):
        self.R = np.array(R0, float)
        self.dR = np.zeros((K, 3, 3))
        self.ddR = np.zeros((K, K, 3, 3))
        self.C = np.zeros((K, n))
        self.k = 0

    def copy(self) -> _RotationProduct:
        new = object.__new__(_RotationProduct)
        new.R, new.dR, new.ddR = self.R.copy(), self.dR.copy(), self.ddR.copy()
        new.C, new.k = self.C.copy(), self.k
        return new

    def const(self, F: np.ndarray) -> None:
        k = self.k
        self.R = self.R @ F
        self.dR[:k] = self.dR[:k] @ F
        self.ddR[:k, :k] = self.ddR[:k, :k] @ F

    def turn(self, axis: int, c: np.ndarray, q: np.ndarray) -> None:
        E, E1, E2 = axis_rotation(axis, float(c @ q))
        k = self.k
        self.ddR[:k, :k] = self.ddR[:k, :k] @ E
        cross = self.dR[:k] @ E1
        self.ddR[:k, k] = cross
        self.ddR[k, :k] = cross
        self.ddR[k, k] = self.R @ E2
        self.dR[:k] = self.dR[:k] @ E
        self.dR[k] = self.R @ E1
        self.R = self.R @ E
        self.C[k] = c
        self.k = k + 1

    def frame(self) -> Frame:
        """The product as a :class:`~fem.bodies.chain_inertia.Frame` (its ``k`` angles)."""
        k = self.k
        return Frame(self.R, self.dR[:k], self.ddR[:k, :k], self.C[:k])

    def term(self, p, Pe, Q, cols, n):
        """``J`` (P, 3, n) and ``∂²r/∂q∂q`` (P, 3, n, n) of ``r = R(q) p(e)``."""
        return frame_term(self.frame(), p, Pe, Q, cols, n)


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
        S = _RotationProduct(n, 4 * nl, self.base)
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
    from ..model.core import Model

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


class SpatialChainSystem(PlanarChainSystem):
    """:class:`HubLinkSystem` for a :class:`SpatialChain`."""

    def __init__(self, model: SpatialChain):
        self._setup(model)
        self._tips = model.tip_samples

    def _frame_ops(self, i: int) -> list[tuple]:
        """The program of link ``i``'s frame: :meth:`SpatialChain.walk` from the
        previous link's frame (its tip rotation, then joint ``i``)."""
        model = self.model
        d_i, a_i, al_i = model.dh[i]
        ops = ([(RESET, 0, model.base)] if i == 0 else
               [(TURN, axis, cv) for axis, cv in model.tip_vectors[i - 1]])
        if d_i:
            ops.append((OFFSET, 0, np.array([0.0, 0.0, d_i])))
        c = np.zeros(self.n)
        c[model.joint_dofs[i]] = 1.0
        ops.append((TURN, 2, c))
        if a_i:
            ops.append((OFFSET, 0, np.array([a_i, 0.0, 0.0])))
        ops.append((CONST, 0, axis_rotation(0, al_i)[0]))
        return ops

    def _link_states(self, q: np.ndarray) -> list[LinkState]:
        """Every link in its frame (:mod:`fem.bodies.chain_inertia`): the rotation product of
        the D-H walk, the origin terms it adds (rigid offsets, the previous tip)."""
        model = self.model
        out, done = [], 0
        for i, (R, origin) in enumerate(model.walk(q)):
            lk, d = model.links[i], model.elastic_dofs[i]
            # origin terms: rigid offsets, and the previous tip (link i − 1)
            b = model.links[i - 1].band
            new = [(Rt.frame(), p[0], None, None, None, None) if Pe is None else
                   (Rt.frame(), p[0], Pe[0], Q[0][b, b], self._cols[i - 1],
                    self._qcols[i - 1])
                   for Rt, p, Pe, Q, _ in origin[done:]]
            done = len(origin)
            p, Pe, Q = lk.local_band(q[d])
            if model.tip_masses[i]:
                pt, Pt, Qt = lk.local_band(q[d], model.tip_samples[i])
                p, Pe, Q = (np.concatenate([p, pt]), np.concatenate([Pe, Pt]),
                            Coupling.concat(Q, Qt))
            out.append(LinkState(R.frame(), self._cols[i], p, Pe, Q, self._weights[i], new,
                                 lk.band))
        return out

    def _walk_terms(self, q):
        """Per link: (frame, origin terms, e) — for kinematics and positions."""
        model = self.model
        for (R, origin), lk, d in zip(model.walk(q), model.links, model.elastic_dofs,
                                      strict=True):
            yield R, origin, lk, d

    def kinematics(self, q: np.ndarray):
        n = self.n
        Js, Hss, tips_J, tips_H = [], [], [], []
        J_o = np.zeros((1, 3, n))
        H_o = np.zeros((1, 3, n, n))
        done = 0
        for R, origin, lk, d in self._walk_terms(q):
            # the origin terms of link i extend those of link i − 1
            for Rt, p, Pe, Q, cols in origin[done:]:
                Jt, Ht = Rt.term(p, Pe, Q, cols, n)
                J_o, H_o = J_o + Jt, H_o + Ht
            done = len(origin)
            p, Pe, Q = lk.local(q[d])
            J, Hs = R.term(p, Pe, Q, d, n)
            Js.append(J + J_o)
            Hss.append(Hs + H_o)
            pt, Pt, Qt = lk.local(q[d], self.model.tip_samples[len(Js) - 1])
            Jt, Ht = R.term(pt, Pt, Qt, d, n)
            tips_J.append(J_o + Jt)
            tips_H.append(H_o + Ht)
        return np.concatenate(Js + tips_J), np.concatenate(Hss + tips_H)

    def positions(self, q: np.ndarray) -> np.ndarray:
        out, tips = [], []
        for (o, R), lk, d in zip(self.model.frames(q), self.model.links,
                                 self.model.elastic_dofs, strict=True):
            out.append(o + lk.local(q[d])[0] @ R.T)
            tips.append(o + R @ lk.local(q[d], self.model.tip_samples[len(tips)])[0][0])
        return np.concatenate([*out, np.array(tips)])

    def tip_rotation_rates(self, q: np.ndarray) -> np.ndarray:
        """``W`` (3, n): the angular velocity of the last tip frame is ``W q̇``."""
        model = self.model
        *_, (R, _) = model.walk(q)
        T = R.copy()
        for axis, cv in model.tip_vectors[-1]:
            T.turn(axis, cv, q)
        k = T.k
        Om = np.einsum("kij,lj->kil", T.dR[:k], T.R)          # skew(ω_k) = dR_k Rᵀ
        w = np.stack([Om[:, 2, 1], Om[:, 0, 2], Om[:, 1, 0]], axis=1)   # (k, 3)
        return w.T @ T.C[:k]

    @property
    def constant_loads(self) -> bool:
        """No tip torque: :meth:`external_forces` is zero."""
        return self.model.tip_torque is None

    def external_forces(self, t: float = 0.0, q: np.ndarray | None = None) -> np.ndarray:
        tq = self.model.tip_torque
        if tq is None:
            return np.zeros(self.n)
        M = np.asarray(tq(t), float).ravel()
        if M.size != 3 or not np.all(np.isfinite(M)):
            raise ModelError(f"SpatialChain: tip_torque(t) must give 3 finite values, got {M}")
        return self.tip_rotation_rates(self.q0 if q is None else q).T @ M


def dh_chain(dh, lengths, masses, EA, EI_y, EI_z, GJ, basis: str = "bezier",
             n_coordinates: int = 4, angles=None, polar_inertia_per_length=None,
             kinematics: str = "seed", **kwargs) -> SpatialChain:
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
        Of every link (:class:`FloatingFrameLink`): 'seed' or 'fourth_order'.  The tip
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
