"""Global assembly: sparse patterns built once, data refilled per evaluation.

Every global matrix is a sum of *contributions*, each with fixed (row, column) positions:
element mass and tangent blocks, point masses, constraint Jacobian entries and constraint
Hessian entries.  A :class:`Pattern` sorts those positions once and keeps, for every
contribution, its index into the storage the linear-algebra layer (:mod:`fem.assembly.linalg`)
chose for it — dense, banded or CSR; assembling is then one ``np.bincount``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..core.errors import ModelError
from .constraints import ConstraintEquations
from .linalg import DENSE_LIMIT, Factorization, Pattern, matvec
from .system import (
    BilinearRows,
    Bodies,
    ConstantStructure,
    ElementForces,
    ProductRows,
    ServoRows,
    System,
)

__all__ = ["Pattern", "Assembly", "Factorization", "DENSE_LIMIT"]


def _block_pattern(dofs: np.ndarray):
    nd = dofs.shape[1]
    rows = np.repeat(dofs, nd, axis=1).ravel()
    cols = np.tile(dofs, (1, nd)).ravel()
    return rows, cols


class Assembly(ConstraintEquations, System):
    """The frozen structure of a :class:`~fem.Model`: patterns, constant mass, loads.

    Attributes
    ----------
    n, m : int
        Number of coordinates and of constraint rows.
    M : sparse or dense (n, n)
        Constant mass matrix.
    f_gravity : ndarray (n,)
    labels : list[str]
        A human-readable name for every constraint row.
    """

    def __init__(self, model, dense: bool | None = None):
        self.model = model
        n = self.n = model.n_dof
        self.q0 = model.q0
        self.groups = list(model.groups)
        self.elastic = [g for g in self.groups if g.family.elastic]
        # bodies nonlinear in their coordinates (fem.bodies): M(q), quadratic-velocity
        # forces and configuration-dependent weight, added to the constant part
        self.bodies = list(model.nonlinear_bodies)
        # floating frames of one shape, and reduced bodies, evaluated together on the
        # NumPy path
        from ..bodies.frame_batch import batch_bodies
        from ..bodies.reduced_batch import batch_reduced
        self.body_batches = batch_bodies(self.bodies) + batch_reduced(self.bodies)
        self._alone: tuple = (None, [])      # (body_batches, the bodies of none of them)
        self.has_elastic = bool(self.elastic) or any(b.elastic for b in self.bodies)
        # element families interpolate linearly in their coordinates: constant mass
        bad = [g.name for g in self.groups if not g.family.constant_mass]
        if bad:
            raise ModelError(f"element groups {bad} declare a configuration-dependent mass; "
                             "element families must be linear in their coordinates (a "
                             "body nonlinear in its coordinates belongs in fem.bodies)")
        self.constant_mass = not self.bodies
        brows, bcols = [], []
        for b in self.bodies:
            r, c = _block_pattern(b.dofs[None, :])
            brows.append(r)
            bcols.append(c)
        self._brows = np.concatenate(brows) if brows else np.zeros(0, np.int64)
        self._bcols = np.concatenate(bcols) if bcols else np.zeros(0, np.int64)

        # ---- mass and gravity (element level, so they are consistent)
        mrows, mcols, mvals = [], [], []
        fg = np.zeros(n)
        g = model.gravity
        for grp in self.groups:
            fam = grp.family
            Me = fam.mass()
            r, c = _block_pattern(grp.dofs)
            mrows.append(r)
            mcols.append(c)
            mvals.append(Me.ravel())
            tg = np.kron(fam.translation_pattern(), g)
            np.add.at(fg, grp.dofs.ravel(), (Me @ tg).ravel())
        for pt, mass in model.point_masses:
            C = pt.coef
            r = np.repeat(pt.dofs, len(pt.dofs))
            c = np.tile(pt.dofs, len(pt.dofs))
            mrows.append(r)
            mcols.append(c)
            mvals.append((mass * C.T @ C).ravel())
            np.add.at(fg, pt.dofs, mass * C.T @ g)
        self._mrows = np.concatenate(mrows) if mrows else np.zeros(0, np.int64)
        self._mcols = np.concatenate(mcols) if mcols else np.zeros(0, np.int64)
        self._mvals = np.concatenate(mvals) if mvals else np.zeros(0)
        self.f_gravity = fg

        # ---- constant external loads
        f0 = fg.copy()
        self._timed_forces = []
        for pt, F, _name in model.forces:
            if callable(F):
                self._timed_forces.append((pt, F))
            else:
                np.add.at(f0, pt.dofs, pt.coef.T @ F)
        for grp, w in model.distributed:
            Si = grp.family.shape_integral()             # (n_el, n_vec)
            np.add.at(f0, grp.dofs.ravel(), np.einsum("ek,d->ekd", Si, w).ravel())
        self.f_const = f0

        # ---- element tangent pattern
        krows, kcols = [], []
        for grp in self.elastic:
            r, c = _block_pattern(grp.dofs)
            krows.append(r)
            kcols.append(c)
        krows.append(self._brows)        # the bodies' elastic and weight tangents
        kcols.append(self._bcols)
        self._krows = np.concatenate(krows) if krows else np.zeros(0, np.int64)
        self._kcols = np.concatenate(kcols) if kcols else np.zeros(0, np.int64)

        self._build_constraints(model)
        self._build_actuators(model)
        m = self.m = self.n_con
        self.dense = (n + m <= DENSE_LIMIT) if dense is None else dense

        # ---- patterns
        self.M = Pattern((n, n), self._mrows, self._mcols, self.dense)(self._mvals)
        self.M_sparse = sp.csr_matrix(self.M) if self.dense else self.M
        self._M_mul = matvec(self.M)
        self._pat_Mq = (Pattern((n, n), np.concatenate([self._mrows, self._brows]),
                                np.concatenate([self._mcols, self._bcols]), self.dense)
                        if self.bodies else None)
        self._pat_K = Pattern((n, n), np.concatenate([self._krows, self._hrows]),
                              np.concatenate([self._kcols, self._hcols]), self.dense)
        self._pat_J = Pattern((max(m, 1), n), self._jrows, self._jcols, False)
        jup = self._jup
        self._build_damping(model)
        self._build_viscous(model)
        srows = np.concatenate([self._mrows, self._krows, self._hrows, n + self._jrows,
                                self._jcols[jup], self._b_dofs, self._brows, self._frows])
        scols = np.concatenate([self._mcols, self._kcols, self._hcols, self._jcols,
                                n + self._jrows[jup], n + self._b_rows, self._bcols,
                                self._fcols])
        # the iteration matrix's storage (dense, banded or sparse) is chosen from its
        # pattern by the linear-algebra layer unless the caller fixed it
        self._pat_S = Pattern((n + m, n + m), srows, scols, self.dense,
                              kind="auto" if dense is None else
                              ("dense" if dense else "sparse"))

    def _build_damping(self, model) -> None:
        """Stiffness-proportional (Rayleigh) damping ``C = β K(q_ref)`` of chosen element
        groups, assembled once on the element-tangent pattern."""
        self._cvals = None
        specs = model.damping
        bodies_c = [b.damping_matrix for b in self.bodies]
        if not specs and all(c is None for c in bodies_c):
            return
        vals = []
        q_ref = model.q0                 # the tangent in the reference configuration
        for grp in self.elastic:
            beta = sum(b for g, b in specs if g is grp)
            _, Ke = grp.family.forces(q_ref[grp.dofs], None, True)
            vals.append(beta * Ke.ravel())
        for b, c in zip(self.bodies, bodies_c, strict=True):     # a body's own damping
            vals.append(np.zeros(b.dofs.size ** 2) if c is None else np.ravel(c))
        self._cvals = np.concatenate(vals)
        self.C = self._pat_K(np.concatenate([self._cvals, np.zeros(self._hrows.size)]))

    def _build_viscous(self, model) -> None:
        """Strain-rate (Kelvin–Voigt) damping of element groups
        (:meth:`Model.add_damping` with ``kind="strain_rate"``): per damped group its
        index among the elastic groups, its retardation times, and where its tangent
        values sit in the element-tangent values and in the velocity-tangent values
        appended after them (:meth:`internal_forces`)."""
        self._viscous = []
        offsets = np.cumsum([0] + [g.dofs.size * g.dofs.shape[1] for g in self.elastic])
        at = 0
        for i, grp in enumerate(self.elastic):
            etas = [e for g, e in model.strain_rate_damping if g is grp]
            if not etas:
                continue
            size = int(offsets[i + 1] - offsets[i])
            self._viscous.append((i, grp, np.full(grp.n_elements, float(sum(etas))),
                                  int(offsets[i]), size, at))
            at += size

    @property
    def storage(self) -> str:
        """How the iteration matrix is stored: "dense", "banded" or "sparse" (the
        linear-algebra layer's choice for its pattern, :func:`fem.assembly.linalg
        .choose_storage`)."""
        return self._pat_S.kind

    @property
    def has_damping(self) -> bool:
        """Whether the model has a constant damping matrix ``C`` (:meth:`Model.add_damping`
        of kind "reference", bodies' damping matrices such as
        :meth:`Model.add_modal_damping`); strain-rate damping is part of
        :meth:`internal_forces` instead."""
        return self._cvals is not None

    def damping_force(self, v: np.ndarray) -> np.ndarray:
        """``C v`` (zero without damping)."""
        if self._cvals is None:
            return np.zeros(self.n)
        return self.C @ v

    # ================================================================ forces
    def internal_forces(self, q: np.ndarray, v: np.ndarray | None = None,
                        tangent: bool = False):
        """Global internal forces (n,) and the element tangent values (or None).

        With velocities ``v`` they include the strain-rate damping of element groups
        (:meth:`Model.add_damping`, ``kind="strain_rate"``); its tangent ``∂f/∂q`` is
        then part of the element tangent values and its ``∂f/∂q̇`` follows them in the
        same array (:meth:`saddle` takes it with ``cC``, :meth:`stiffness` ignores it)."""
        f = np.zeros(self.n)
        kv = []
        for grp in self.elastic:
            Ke = grp.family.add_forces(q, v, grp.dofs, f, tangent)
            if tangent:
                kv.append(Ke.ravel())
        cv = []
        if v is not None and self._viscous:
            for i, grp, eta, _off, _size, _at in self._viscous:
                fd, dq, dv = grp.family.strain_rate_forces(q[grp.dofs], v[grp.dofs], eta,
                                                           tangent)
                f += np.bincount(grp.dofs.ravel(), fd.ravel(), minlength=self.n)
                if tangent:
                    kv[i] = kv[i] + dq.ravel()
                    cv.append(dv.ravel())
        done = self._batched_terms(f, lambda bt, into: bt.forces_all(
            q, self.model.gravity, tangent, into), tangent)
        for b in (self.bodies if tangent or done is not None else self._bodies_alone()):
            if done is not None and id(b) in done:
                fb, Kb = done[id(b)]
            else:
                fb, Kb = b.forces(q, self.model.gravity, tangent)
                np.add.at(f, b.dofs, fb)
            if tangent:
                kv.append(Kb.ravel())
        if not tangent:
            return f, None
        return f, (np.concatenate(kv + cv) if kv else np.zeros(0))

    @property
    def constant_loads(self) -> bool:
        """No timed forces and no forward actuators: :meth:`external_forces` is the
        same array at every ``t`` and ``q``."""
        return not self._timed_forces and not self._forward_act and not self._feedback

    def external_forces(self, t: float = 0.0, q: np.ndarray | None = None) -> np.ndarray:
        """Gravity, point and distributed loads at time ``t`` (conservative, constant
        direction)."""
        if not self._timed_forces and not self._forward_act:
            return self.f_const
        f = self.f_const.copy()
        for pt, F in self._timed_forces:
            value = F(t)
            try:
                Ft = np.asarray(value, float)
            except (TypeError, ValueError):
                Ft = None
            if Ft is None or Ft.shape != (3,) or not np.all(np.isfinite(Ft)):
                from ..core.validate import vector3
                Ft = vector3(value, f"force on {pt.label} at t = {t:g} s (its function's "
                             "value)")
            np.add.at(f, pt.dofs, pt.coef.T @ Ft)
        for a in self._forward_act:
            np.add.at(f, a.dofs, a.B(self.q0 if q is None else q) * float(a.effort(t)))
        return f

    def _bodies_alone(self) -> list:
        """The bodies of no batch of :attr:`body_batches` (kept while the list is)."""
        if self._alone[0] is not self.body_batches:
            batched = {id(b) for bt in self.body_batches for b in bt.bodies}
            self._alone = (self.body_batches,
                           [b for b in self.bodies if id(b) not in batched])
        return self._alone[1]

    def _batched_terms(self, f: np.ndarray, evaluate, tangent: bool) -> dict | None:
        """The forces of the body batches on the NumPy path (floating frames,
        :mod:`fem.bodies.frame_batch`; reduced bodies, :mod:`fem.bodies.reduced_batch`)
        added into ``f`` (one scatter per batch, ``batch.add_into``): ``evaluate(batch,
        into)`` gives the batch's ``(F, tangents or None)``; given ``into`` (``f``, when
        the bodies' shares are not needed) a batch may add its forces into it itself and
        give ``F`` None (the reduced batch's compiled kernel).  ``batch.body_terms(F, T,
        i)`` is body ``i``'s share; returns ``{id(body): (its force, its tangent or None)}`` for the
        loop over the bodies (the tangents keep the bodies' order).  Without ``tangent``
        the bodies' shares are not formed: returns None when every batch ran (the caller
        then visits only the bodies of no batch, ``_alone``), else ``{id(body): …}`` of
        the batches that ran."""
        done: dict = {}
        ran = [bt for bt in self.body_batches if bt.evaluates()]
        shares = tangent or len(ran) < len(self.body_batches)
        for bt in ran:
            F, T = evaluate(bt, None if shares else f)
            bt.add_into(f, F)
            if shares:
                for i, b in enumerate(bt.bodies):
                    done[id(b)] = bt.body_terms(F, T if tangent else None, i)
        return done if shares else None

    # ================================================================ inertia
    def inertia_forces(self, q: np.ndarray, v: np.ndarray, a: np.ndarray,
                       tangent: bool = False):
        """``M(q) a + f_qv(q, q̇)`` and, with ``tangent`` and bodies nonlinear in their
        coordinates, their tangent values for :meth:`saddle` (None for constant mass)."""
        f = self._M_mul(a)
        if not self.bodies:
            return f, None
        vals = ([], [], [])
        done = self._batched_terms(f, lambda bt, into: bt.inertia_all(q, v, a, tangent, into),
                                   tangent)
        for b in (self.bodies if tangent or done is not None else self._bodies_alone()):
            if done is not None and id(b) in done:
                fb, tb = done[id(b)]
            else:
                fb, tb = b.inertia(q, v, a, tangent)
                np.add.at(f, b.dofs, fb)
            if tangent:
                for lst, T in zip(vals, tb, strict=True):
                    lst.append(T.ravel())
        if not tangent:
            return f, None
        return f, tuple(np.concatenate(x) for x in vals)

    def constant_structure(self):
        """:class:`fem.assembly.system.ConstantStructure` when every general constraint row is a
        product of maps quadratic in ``q`` (:meth:`GeneralRows.compiled_form`), every
        actuator on a servo row is affine in ``q`` (:meth:`fem.model.actuators.Actuator.
        affine`), every body declares a compiled kernel
        (:meth:`fem.bodies.NonlinearBody.compiled_kernel`) and, with bodies, the element
        forces come from at most one group with a compiled kernel; None otherwise (also
        with strain-rate damping, a velocity- and configuration-dependent force the
        compiled loop does not evaluate).  Built once."""
        if self._constant_structure:
            return self._constant_structure[0]
        if self._feedback:           # efforts from the state: the general Newton loop
            self._constant_structure.append(None)
            return None
        cs = None
        gravity = self.model.gravity
        kernels = [b.compiled_kernel(gravity) for b in self.bodies]
        group = (self.elastic[0].family.compiled_forces() if len(self.elastic) == 1
                 else None)
        from ..constraints.compiled import declare_products

        products = declare_products(self._general, self.q0)
        products = None if products is None else ProductRows(*products)
        affine = [a.affine() for a in self._act]
        if (products is not None and all(x is not None for x in affine)
                and not self._viscous
                and all(k is not None for k in kernels)
                and not (self.bodies and self.elastic and group is None)):
            cs = self._structure(kernels, group, products, affine)
        self._constant_structure.append(cs)
        return cs

    def _servo(self, affine: list) -> ServoRows | None:
        """The ``servo`` declaration of :class:`ConstantStructure` (None without)."""
        if not self._act:
            return None
        from ..constraints.compiled import segments

        sizes = np.array([len(a.dofs) for a in self._act], np.int64)
        offsets = lambda x: np.concatenate([[0], np.cumsum(x)]).astype(np.int64)
        return ServoRows(np.ascontiguousarray(self._keep_row, dtype=float),
                         *segments((self._servo_rows, offsets(sizes), self._b_dofs,
                                    offsets(sizes**2)),
                                   (np.concatenate([np.ravel(D) for D, _ in affine]),
                                    np.concatenate([np.ravel(b) for _, b in affine]))))

    def _structure(self, kernels: list, group, products: ProductRows,
                   affine: list) -> ConstantStructure:
        from ..elements.kernels import group_forces, no_group

        C = None if self._cvals is None else sp.csr_matrix(self.C)
        G = self._G if self.n_con else sp.csr_matrix((0, self.n))
        forces = None
        if group is not None or (kernels and not self.elastic):
            kind, arrays3, arrays2 = group if group is not None else no_group()
            dofs = (np.ascontiguousarray(self.elastic[0].dofs, dtype=np.int64)
                    if group is not None else np.zeros((0, 0), np.int64))
            forces = ElementForces(group_forces, kind, dofs, arrays3, arrays2)
        from ..constraints.compiled import state_kernel

        bilinear = BilinearRows(state_kernel(), self._A, self._alpha, self._B, self._bil_row,
                                lambda t: self._timed_terms(t)[1])
        from ..bodies.kernels import body_tangents, body_terms, pack

        bodies = Bodies(body_terms(), *pack(kernels))
        timed = bool(self._motions or self._beta_motions or products.directions is not None)
        return ConstantStructure(
            mass=sp.csr_matrix(self.M), damping=C, jacobian=G.tocsr(),
            offset=lambda t: self._timed_terms(t)[0],
            rate=lambda t, q: self.phi_t(q, t),
            forces=forces, timed=timed, bilinear=bilinear, bodies=bodies,
            tangents=body_tangents(), products=products, servo=self._servo(affine),
            rate_terms=(None if self._general is not None and self._general.directed
                        else lambda t: (self._h(t, 1), self._beta(t, 1))),
            terms_at=self._timed_terms_at)

    def mass_matrix(self, q: np.ndarray | None = None):
        """``M(q)`` (the constant mass when no body depends on the configuration)."""
        if not self.bodies:
            return self.M
        q = self.q0 if q is None else q
        return self._pat_Mq(np.concatenate(
            [self._mvals, *(b.mass(q).ravel() for b in self.bodies)]))

    def _body_mass_values(self, q):
        return np.concatenate([b.mass(q).ravel() for b in self.bodies]) if self.bodies \
            else np.zeros(0)

    def dof_label(self, dof: int) -> str:
        """A readable name of a coordinate (node and field, or a body's block)."""
        return self.model.dof_label(dof)

    def parts_of(self, dofs) -> list[str]:
        d = set(int(x) for x in np.atleast_1d(dofs))
        return [g.name for g in self.groups if d.intersection(g.dofs.ravel().tolist())] + \
            [b.name for b in self.bodies if d.intersection(b.dofs.tolist())]

    def failure_notes(self, q: np.ndarray) -> list[str]:
        """The bodies' notes on a failure at ``q`` (:meth:`NonlinearBody.failure_notes`)."""
        return [note for b in self.bodies for note in b.failure_notes(q)]

    def coupling(self) -> tuple[np.ndarray, np.ndarray]:
        rows, cols = [], []
        for d in [g.dofs for g in self.groups] + [b.dofs[None, :] for b in self.bodies]:
            rows.append(np.repeat(d[:, :1], d.shape[1], axis=1).ravel())
            cols.append(d.ravel())
        for pt, _m in self.model.point_masses:
            if pt.dofs.size > 1:
                rows.append(np.full(pt.dofs.size - 1, pt.dofs[0]))
                cols.append(pt.dofs[1:])
        cat = lambda L: np.concatenate(L).astype(np.int64) if L else np.zeros(0, np.int64)
        return cat(rows), cat(cols)

    def rotating_parts(self) -> list:
        return [(g.dofs, g.family.translation_pattern()) for g in self.elastic]

    def translation_patterns(self) -> np.ndarray:
        T = np.zeros((self.n, 3))
        for fields in self.model.node_fields:
            if "r" in fields:
                T[fields["r"] + np.arange(3), np.arange(3)] = 1.0
        return T

    # ================================================================ matrices
    def stiffness(self, kvals: np.ndarray, hvals: np.ndarray | None = None):
        """K + Σλ Φ_qq (n × n)."""
        if hvals is None:
            hvals = np.zeros(self._hrows.size)
        return self._pat_K(np.concatenate([kvals[:self._krows.size], hvals]))

    def saddle(self, cM: float, cK: float, kvals: np.ndarray, hvals: np.ndarray,
               jvals: np.ndarray, cJ: float = 1.0, q: np.ndarray | None = None,
               cC: float = 0.0, inertia=None, feedback=None):
        """``[[cM M + cC C + cK (K + H), cJ Wᵀ], [cJ J, 0]]`` — ``W = J`` except on servo
        rows, whose columns are the actuators' ``−B(q)`` (``q`` needed then); ``C`` the
        constant damping matrix (:meth:`Model.add_damping`) plus, when ``kvals`` carries
        it (:meth:`internal_forces` with velocities), the velocity tangent of
        strain-rate damping.  With bodies nonlinear in
        their coordinates, ``inertia`` (from :meth:`inertia_forces`) adds
        ``cM M(q) + cK ∂f/∂q + cC ∂f/∂q̇`` of their inertia forces; without it, ``cM M(q)``.
        ``feedback``: the fed-back actuators' ``(∂f/∂q, ∂f/∂q̇)`` values
        (:meth:`feedback_forces`), entering as ``−cK ∂f/∂q − cC ∂f/∂q̇`` (they are applied
        forces); zero without."""
        nk = self._krows.size
        if kvals.size > nk:             # ∂f/∂q̇ of strain-rate damping (internal_forces)
            cv = kvals[nk:]
            kvals = kvals[:nk]
            if cC and cK:
                kvals = kvals.copy()
                for _i, _g, _eta, off, size, at in self._viscous:
                    kvals[off:off + size] += (cC / cK) * cv[at:at + size]
        if self._cvals is not None and cC:
            kvals = kvals + (cC / cK if cK else 0.0) * self._cvals
        parts = [cM * self._mvals, cK * kvals, cK * hvals, cJ * jvals,
                 cJ * jvals[self._jup], cJ * self.actuator_values(q)]
        if self.bodies:
            if inertia is None:
                parts.append(cM * self._body_mass_values(self.q0 if q is None else q))
            else:
                Mv, Kq, Cv = inertia
                parts.append(cM * Mv + cK * Kq + cC * Cv)
        if self._frows.size:
            if feedback is None:
                parts.append(np.zeros(self._frows.size))
            else:
                parts.append(-(cK * feedback[0] + cC * feedback[1]))
        return self._pat_S(np.concatenate(parts))

    def zero_tangent(self) -> tuple[np.ndarray, np.ndarray]:
        """Zero element-tangent and Hessian value arrays of the right sizes."""
        return np.zeros(self._krows.size), np.zeros(self._hrows.size)

    def energy(self, q: np.ndarray, v: np.ndarray) -> dict[str, float]:
        """Kinetic, gravitational and elastic energy [J] (``kinetic_J``, ``potential_J``,
        ``elastic_J``, ``total_J``)."""
        kin = 0.5 * float(v @ (self.M @ v))
        pot = -float(self.f_gravity @ q)
        el = float(sum(g.family.energy(q[g.dofs]).sum() for g in self.elastic))
        for b in self.bodies:
            e = b.energy(q, v, self.model.gravity)
            kin += e["kinetic_J"]
            pot += e["potential_J"]
            el += e["elastic_J"]
        return {"kinetic_J": kin, "potential_J": pot, "elastic_J": el,
                "total_J": kin + pot + el}
