"""The systems of the minimal-coordinate chains (:mod:`fem.model.chains`) in the solver
contract (:class:`fem.assembly.system.System`): what ``HubLink.assemble()``,
``PlanarChain.assemble()`` and ``SpatialChain.assemble()`` return, as
:class:`fem.assembly.Assembly` is what ``Model.assemble()`` returns.

Lagrange's equations ``J(z) z̈ = R(z, ż)`` of Fan and Zhang (2016) become the framework's
one system ``M(q) q̈ + f(q, q̇) + Φ_qᵀλ = f_ext``::

    M(q)   = ∫ ρA JᵀJ dx + M_twist + I_hub
    f      = ∫ ρA Jᵀκ dx + K e − ∫ ρA Jᵀg dx,    κ = Σ_ij (∂²r/∂q_i∂q_j) q̇_i q̇_j

:meth:`HubLinkSystem.inertia_forces` returns ``M(q) q̈ + ∫ρA Jᵀκ`` and its tangents
``∂/∂q̈ = M``, ``∂/∂q̇ = 2∫ρA Jᵀ(∂²r q̇)`` (gyroscopic) and ``∂/∂q`` (less the third
derivatives of ``r``, which only slow modified Newton); :mod:`fem.solvers.dynamic` calls
it for every model whose assembly says ``constant_mass = False``.  The sums are taken in
every link's frame coordinates (:mod:`fem.bodies.chain_inertia`), compiled where
:mod:`fem.bodies.chain_kernels` applies.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..bodies.chain_inertia import ChainInertia, Frame, LinkState, index, rotation_z
from ..bodies.chain_kernels import CONST, OFFSET, RESET, TURN, chain_kernel, pack
from ..bodies.floating_frame import axis_rotation
from ..core.errors import ModelError
from ..elements.floating_frame import Coupling, FloatingFrameLink
from .system import (
    BilinearRows,
    Bodies,
    ConstantStructure,
    ElementForces,
    ProductRows,
    System,
)

__all__ = ["HubLinkSystem", "PlanarChainSystem", "SpatialChainSystem"]


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

    def __init__(self, model):
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
        R, R1, R2 = rotation_z(q[0])
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
        from ..bodies.kernels import KIND_CHAIN, body_tangents, body_terms
        from ..bodies.kernels import pack as pack_bodies
        from ..constraints.compiled import declare_products, state_kernel
        from ..elements import kernels as element_kernels
        from ..elements.kernels import no_group

        state, terms, tangents = state_kernel(), body_terms(), body_tangents()
        # the element kernels are defined on first use (the chain has no element group,
        # but the compiled loop calls their entry point)
        if state is None or terms is None or not element_kernels.available():
            return None
        group_forces = element_kernels.group_forces
        _, index, data = self._packed
        n = self.n
        empty = sp.csr_matrix((0, n))
        bodies = pack_bodies([(KIND_CHAIN, 0, np.arange(n), data, index, 0)])
        return ConstantStructure(
            mass=sp.csr_matrix(self.M_const), damping=None, jacobian=sp.csr_matrix(self.Jd),
            offset=lambda t: -self._drive(t, 0), rate=lambda t, q: self.phi_t(q, t),
            forces=ElementForces(group_forces, no_group()[0], np.zeros((0, 0), np.int64),
                                 *no_group()[1:]),
            timed=bool(self.m),
            bilinear=BilinearRows(state, empty, np.zeros(0), empty, np.zeros(0, np.int64),
                                  lambda t: np.zeros(0)),
            bodies=Bodies(terms, *bodies), tangents=tangents,
            products=ProductRows(*declare_products()))

    # ------------------------------------------------------------ kinematics
    def kinematics(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``J`` (P, 3, n) and ``∂²r/∂q∂q`` (P, 3, n, n) at the quadrature points."""
        R, R1, R2 = rotation_z(q[0])
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

    def __init__(self, model):
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
            R, R1, R2 = rotation_z(c @ q)
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
        R, R1, R2 = rotation_z(phi)
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
            R = rotation_z(c @ q)[0]
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

class SpatialChainSystem(PlanarChainSystem):
    """:class:`HubLinkSystem` for a :class:`SpatialChain`."""

    def __init__(self, model):
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
