"""The constraint equations of an :class:`~fem.assembly.Assembly`.

Every constraint row is ``Φᵢ = Σ (A q + α)·(B q + β) + G q + c + h(t)`` (the common form
of :mod:`fem.constraints`), so values, Jacobian entries, ``Φ_t``, the acceleration term
``γ``, Hessian entries and reactions all come from a few sparse matrices built once here.
Actuators (inverse dynamics) supply the reactions of *servo* rows.  The values and the
Jacobian are evaluated in one compiled pass (:mod:`fem.constraints.compiled`) with the
NumPy form kept as the reference.  :class:`ConstraintEquations` is a part of
:class:`~fem.assembly.Assembly` (split out to keep each readable in one sitting); its
methods are the assembly's.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..constraints.compiled import reaction_kernel, state_kernel
from ..constraints.general import GeneralRows
from ..core.errors import ModelError
from ..core.threads import blas_single_threaded

__all__ = ["ConstraintEquations"]


class ConstraintEquations:
    """Constraint rows, their derivatives and the actuators of servo rows (the part of
    :class:`~fem.assembly.Assembly` built by ``_build_constraints`` and
    ``_build_actuators``)."""

    def _build_constraints(self, model) -> None:
        n = self.n
        q0 = self.q0
        labels: list[str] = []
        self.owner: list = []          # constraint object per row
        G_r, G_c, G_v, cvec = [], [], [], []
        A_r, A_c, A_v, alpha = [], [], [], []
        B_r, B_c, B_v, beta = [], [], [], []
        bil_row = []
        motions, beta_motions = [], []
        general = []
        row0 = 0
        nb = 0
        for con in model.constraints:
            try:
                rows = con.rows(q0, n)
            except ModelError:
                raise
            except Exception as err:  # a user's malformed constraint
                raise ModelError(f"constraint {con.name!r} could not be built: {err}") from err
            labels.extend(rows.labels)
            self.owner.extend([con] * rows.n)
            cvec.append(np.asarray(rows.c, float))
            if rows.G is not None:
                G = rows.G.tocoo()
                G_r.append(G.row + row0)
                G_c.append(G.col)
                G_v.append(G.data)
            bmap = {}
            for local_row, a, b in rows.bilinear:
                bmap.setdefault(local_row, []).append(nb)
                for maps, R, Cc, V, off in ((a, A_r, A_c, A_v, alpha), (b, B_r, B_c, B_v, beta)):
                    k = len(maps.dofs)
                    R.append(3 * nb + np.repeat(np.arange(3), k))
                    Cc.append(np.tile(maps.dofs, 3))
                    V.append(maps.coef.ravel())
                    off.append(maps.offset)
                bil_row.append(row0 + local_row)
                nb += 1
            if rows.motion is not None:
                motions.append((row0 + np.asarray(rows.motion_rows), rows.motion))
            for local_row, a, b in rows.general:
                direction = None      # b None: the row's prescribed direction β(t)
                if b is None:
                    direction = (rows.beta_motion, list(rows.beta_rows).index(local_row))
                general.append((row0 + local_row, a, b, direction))
            if rows.beta_motion is not None and not rows.general:
                idx = np.array([bmap[r][0] for r in rows.beta_rows])
                beta_motions.append((idx, rows.beta_motion))
            row0 += rows.n
        cat = lambda L, dt=float: np.concatenate(L).astype(dt) if L else np.zeros(0, dt)
        self.n_con = row0
        self.labels = labels
        self._c = cat(cvec)
        self._G = sp.csr_matrix((cat(G_v), (cat(G_r, np.int64), cat(G_c, np.int64))),
                                shape=(row0, n))
        self.n_bil = nb
        self._A = sp.csr_matrix((cat(A_v), (cat(A_r, np.int64), cat(A_c, np.int64))),
                                shape=(3 * nb, n))
        self._B = sp.csr_matrix((cat(B_v), (cat(B_r, np.int64), cat(B_c, np.int64))),
                                shape=(3 * nb, n))
        self._alpha = np.concatenate(alpha) if alpha else np.zeros(0)
        self._beta0 = np.concatenate(beta) if beta else np.zeros(0)
        self._bil_row = np.asarray(bil_row, dtype=np.int64)
        self._motions = motions
        self._beta_motions = beta_motions
        self._motion_t: float | None = None       # time of the cached motion values
        self._motion_cache: tuple[list, list] = ([], [])
        self._beta_t: float | None = None         # time of the kept β and its rates
        self._beta_kept: dict = {}
        # Jacobian contributions: A-part, B-part, G-part, each in CSR order (canonical:
        # the compiled evaluation walks the CSR arrays in the same order)
        for M in (self._G, self._A, self._B):
            M.sum_duplicates()
        Ac, Bc, Gc = self._A.tocoo(), self._B.tocoo(), self._G.tocoo()
        self._Acoo, self._Bcoo = Ac, Bc
        self._jrows = np.concatenate([self._bil_row[Ac.row // 3], self._bil_row[Bc.row // 3],
                                      Gc.row]).astype(np.int64)
        self._jcols = np.concatenate([Ac.col, Bc.col, Gc.col]).astype(np.int64)
        self._Gdata = Gc.data
        # small constraint sets: a dense G is faster than a sparse product
        if row0 * n <= 40000:
            Gd = self._G.toarray()
            self._G_eval = lambda q: Gd @ q
        else:
            self._G_eval = self._G.__matmul__
        self._jv_linear = Gc.data.copy()
        # the compiled evaluation of Φ and Φ_q (fem.constraints.compiled): CSR arrays
        # with int64 indices, and the time-dependent terms cached per time
        self._state_kernel = state_kernel() if nb else None
        self._reaction_kernel = reaction_kernel() if self._jrows.size > 64 else None
        self._jv_size = self._jv_lin_size = Ac.nnz + Bc.nnz + Gc.nnz
        self._terms_t: float | None = None
        self._constant_structure: list = []       # built on first request
        self._terms: tuple = ()
        # Hessian contributions: pairs of A and B entries in the same component row
        order_b = np.argsort(Bc.row, kind="stable")
        b_rows_sorted = Bc.row[order_b]
        start = np.searchsorted(b_rows_sorted, Ac.row, side="left")
        stop = np.searchsorted(b_rows_sorted, Ac.row, side="right")
        cnt = stop - start
        ia = np.repeat(np.arange(Ac.nnz), cnt)
        offs = np.arange(cnt.sum()) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        ib = order_b[np.repeat(start, cnt) + offs]
        self._h_ia, self._h_ib = ia, ib
        self._h_lrow = self._bil_row[Ac.row[ia] // 3]
        self._h_val = Ac.data[ia] * Bc.data[ib]
        self._hrows = np.concatenate([Ac.col[ia], Bc.col[ib]]).astype(np.int64)
        self._hcols = np.concatenate([Bc.col[ib], Ac.col[ia]]).astype(np.int64)
        # general rows (point maps of floating-frame bodies): their Jacobian and Hessian
        # entries follow the quadratic form's in the patterns
        self._general = GeneralRows(general, row0) if general else None
        self._t_general = 0.0
        if self._general is not None:
            gr = self._general
            self._jrows = np.concatenate([self._jrows, gr.jrows])
            self._jcols = np.concatenate([self._jcols, gr.jcols])
            self._hrows = np.concatenate([self._hrows, gr.hrows])
            self._hcols = np.concatenate([self._hcols, gr.hcols])
            self._jv_size += gr.jrows.size


    def _build_actuators(self, model) -> None:
        servo_rows = np.array([i for i, c in enumerate(self.owner) if c.servo], dtype=np.int64)
        act = [a for a in model.actuators if a.unknown]
        if len(act) != len(servo_rows):
            raise ModelError(
                f"inverse dynamics needs one actuator with unknown effort per servo "
                f"(trajectory) row: {len(servo_rows)} servo rows "
                f"({sorted({self.owner[i].name for i in servo_rows})}) but {len(act)} "
                f"actuators without effort ({[a.name for a in act]})")
        for a in model.actuators:
            a.bind(self.q0)
        self._act = act
        self._servo_rows = servo_rows
        keep = np.ones(self.n_con)
        keep[servo_rows] = 0.0
        self._keep_row = keep
        self._jup = keep[self._jrows] > 0 if self.n_con else np.zeros(0, bool)
        self._h_keep = keep[self._h_lrow] if self._h_lrow.size else np.zeros(0)
        self._b_dofs = (np.concatenate([a.dofs for a in act]) if act
                        else np.zeros(0, np.int64)).astype(np.int64)
        self._b_owner = (np.concatenate([np.full(len(a.dofs), k) for k, a in enumerate(act)])
                         if act else np.zeros(0, np.int64)).astype(np.int64)
        self._b_rows = servo_rows[self._b_owner] if act else np.zeros(0, np.int64)
        self._forward_act = [a for a in model.actuators if a.effort is not None]
        # feedback actuators: u(t, q, q̇) B(q); their tangent blocks (dofs of B and of the
        # controller's gradient) follow the other parts of the iteration matrix
        self._feedback = [a for a in model.actuators if a.feedback is not None]
        fr, fc, self._fb_dofs = [], [], []
        for a in self._feedback:
            d = np.unique(np.concatenate([a.dofs, a.feedback.dofs])).astype(np.int64)
            self._fb_dofs.append(d)
            fr.append(np.repeat(d, len(d)))
            fc.append(np.tile(d, len(d)))
        self._frows = np.concatenate(fr).astype(np.int64) if fr else np.zeros(0, np.int64)
        self._fcols = np.concatenate(fc).astype(np.int64) if fc else np.zeros(0, np.int64)
        if act:
            dr, dc = [], []
            for a in act:
                dr.append(np.repeat(a.dofs, len(a.dofs)))
                dc.append(np.tile(a.dofs, len(a.dofs)))
            self._hrows = np.concatenate([self._hrows, *dr]).astype(np.int64)
            self._hcols = np.concatenate([self._hcols, *dc]).astype(np.int64)

    # ---- time-dependent parts
    def motion_values(self, t: float) -> tuple[list, list]:
        """Values (x, ẋ, ẍ) of every prescribed motion at ``t``, evaluated once per time:
        a Newton step asks for them at one t in every iteration (the flagship's circle
        path cost 15 % of its run before this cache)."""
        if t != self._motion_t:
            self._motion_cache = (
                [tuple(np.asarray(v, float) for v in fn(t)) for _, fn in self._motions],
                [tuple(np.asarray(v, float) for v in fn(t)) for _, fn in self._beta_motions])
            self._motion_t = t
        return self._motion_cache

    def refresh_motions(self) -> None:
        """The prescribed motions were changed (not only the time): the next evaluation
        calls them again instead of using the values cached for its time."""
        self._motion_t = None
        self._terms_t = None
        self._beta_t = None

    def _beta(self, t: float, deriv: int = 0) -> np.ndarray:
        """``β(t)`` (or its ``deriv``-th time derivative) of the bilinear rows, kept for
        the last time (read-only): every residual of a Newton step asks for it."""
        if t != self._beta_t:
            self._beta_t, self._beta_kept = t, {}
        b = self._beta_kept.get(deriv)
        if b is not None:
            return b
        b = self._beta0.copy() if deriv == 0 else np.zeros_like(self._beta0)
        values = self.motion_values(t)[1]
        for (idx, _fn), val in zip(self._beta_motions, values, strict=True):
            b[(3 * idx[:, None] + np.arange(3)).ravel()] = val[deriv].reshape(len(idx), 3).ravel()
        b.setflags(write=False)
        self._beta_kept[deriv] = b
        return b

    def _h(self, t: float, deriv: int) -> np.ndarray:
        h = np.zeros(self.n_con)
        for (rows, _fn), val in zip(self._motions, self.motion_values(t)[0], strict=True):
            h[rows] -= val[deriv]
        return h

    def _ab(self, q: np.ndarray, t: float):
        return self._A @ q + self._alpha, self._B @ q + self._beta(t)

    def _rowsum(self, x: np.ndarray) -> np.ndarray:
        if self.n_bil == 0:
            return np.zeros(self.n_con)
        """Sum of a 3·n_bil vector per bilinear row, scattered to constraint rows."""
        return np.bincount(self._bil_row, x.reshape(-1, 3).sum(axis=1), minlength=self.n_con)

    def phi(self, q: np.ndarray, t: float = 0.0) -> np.ndarray:
        """Constraint values Φ(q, t)."""
        return self.constraint_state(q, t)[0]

    def _timed_terms(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """``(c + h(t), β(t))`` for the compiled constraint kernel, once per time."""
        if t != self._terms_t:
            c_t = self._c + self._h(t, 0) if self._motions else self._c
            self._terms = (c_t, self._beta(t))
            self._terms_t = t
        return self._terms

    def _timed_terms_at(self, times: np.ndarray) -> tuple | None:
        """``(c + h(t), β(t), ḣ(t), β̇(t))`` at every time of ``times`` (rows, C order),
        row ``i`` the same to the bit as :meth:`_timed_terms` and the rates of
        :meth:`_h`, :meth:`_beta` at ``times[i]`` (the same operations, elementwise),
        where every prescribed motion can be evaluated at many times at once (its
        ``at_times``) and no bilinear row has a prescribed direction; None otherwise
        (then per time).  A compiled solver marching a block of steps takes them in one
        call: per time through Python they cost ≈ 0.1 ms (the flagship's circle, 320
        steps).  The kept values of one time (:meth:`motion_values`) are left alone."""
        if self._beta_motions:
            return None
        n = len(times)
        vals = []
        for _, fn in self._motions:
            batch = getattr(fn, "at_times", None)
            v = batch(times) if batch is not None else None
            if v is None:
                return None
            vals.append(v)
        h0 = np.zeros((n, self.n_con))
        h1 = np.zeros((n, self.n_con))
        for (rows, _fn), v in zip(self._motions, vals, strict=True):
            h0[:, rows] -= v[0]
            h1[:, rows] -= v[1]
        c_ts = self._c + h0 if self._motions else np.tile(self._c, (n, 1))
        return (c_ts, np.tile(self._beta0, (n, 1)), h1, np.zeros((n, self._beta0.size)))

    def constraint_state(self, q: np.ndarray, t: float = 0.0):
        """``(Φ, Φ_q values)`` at ``(q, t)`` in one pass (compiled,
        :mod:`fem.constraints.compiled`; :meth:`constraint_state_numpy` without numba),
        general rows (:mod:`fem.constraints.general`) appended."""
        if self.n_bil == 0 or self._state_kernel is None:
            return self.constraint_state_numpy(q, t)
        c_t, beta_t = self._timed_terms(t)
        phi = np.empty(self.n_con)
        jv = np.empty(self._jv_lin_size)
        G, A, B = self._G, self._A, self._B
        self._state_kernel(q, G.indptr, G.indices, G.data, c_t, A.indptr, A.indices,
                           A.data, self._alpha, B.indptr, B.indices, B.data, beta_t,
                           self._bil_row, phi, jv)
        return self._with_general(phi, jv, q, t)

    def _with_general(self, phi, jv, q, t):
        if self._general is None:
            return phi, jv
        self._t_general = t
        gphi, gjv = self._general.state(q, t)
        return phi + gphi, np.concatenate([jv, gjv])

    def constraint_state_numpy(self, q: np.ndarray, t: float = 0.0):
        """The NumPy form of :meth:`constraint_state` (its reference)."""
        phi = self._G_eval(q) + self._c
        if self._motions:
            phi += self._h(t, 0)
        if self.n_bil == 0:
            return self._with_general(phi, self._jv_linear, q, t)
        a, b = self._ab(q, t)
        phi += self._rowsum(a * b)
        jv = np.concatenate([self._Acoo.data * b[self._Acoo.row],
                             self._Bcoo.data * a[self._Bcoo.row], self._Gdata])
        return self._with_general(phi, jv, q, t)

    def phi_t(self, q: np.ndarray, t: float = 0.0) -> np.ndarray:
        """∂Φ/∂t."""
        if self.n_bil == 0 or not self._beta_motions:      # β constant: a·β̇ = 0
            out = self._h(t, 1)
        else:
            a = self._A @ q + self._alpha
            out = self._rowsum(a * self._beta(t, 1)) + self._h(t, 1)
        if self._general is not None and self._general.directed:
            out = out + self._general.phi_t(q, t)
        return out

    def jacobian_values(self, q: np.ndarray, t: float = 0.0) -> np.ndarray:
        if self._general is not None:
            return self.constraint_state(q, t)[1]
        if self.n_bil == 0:
            return self._jv_linear
        if self._state_kernel is not None:
            return self.constraint_state(q, t)[1]
        a, b = self._ab(q, t)
        return np.concatenate([self._Acoo.data * b[self._Acoo.row],
                               self._Bcoo.data * a[self._Bcoo.row], self._Gdata])

    def jacobian(self, q: np.ndarray, t: float = 0.0) -> sp.csr_matrix:
        """Φ_q as a sparse (m × n) matrix."""
        J = self._pat_J(self.jacobian_values(q, t))
        return J[: self.n_con] if self.n_con else sp.csr_matrix((0, self.n))

    def gamma(self, q: np.ndarray, v: np.ndarray, t: float = 0.0) -> np.ndarray:
        """Acceleration right-hand side: Φ_q q̈ = γ."""
        gen = 0.0 if self._general is None else self._general.gamma(q, v, t)
        if self.n_bil == 0:
            return gen - self._h(t, 2)
        Av, Bv = self._A @ v, self._B @ v
        g = 2.0 * Av * Bv
        if self._beta_motions:
            a = self._A @ q + self._alpha
            g += 2.0 * Av * self._beta(t, 1) + a * self._beta(t, 2)
        return gen - self._rowsum(g) - self._h(t, 2)

    def hessian_values(self, lam: np.ndarray, q: np.ndarray | None = None) -> np.ndarray:
        """Values of ∂(reaction)/∂q in pattern order: Σᵢ λᵢ ∂²Φᵢ/∂q² over ordinary rows
        (both symmetric halves) and −u_k ∂B_k/∂q for actuators on servo rows."""
        h = lam[self._h_lrow] * self._h_val * self._h_keep
        parts = [h, h]
        if self._general is not None:
            parts.append(self._general.hessian_values(
                lam, self.q0 if q is None else q, self._keep_row, self._t_general))
        if not self._act:
            return np.concatenate(parts)
        dB = [-lam[r] * a.dB(q).ravel() for a, r in zip(self._act, self._servo_rows,
                                                          strict=True)]
        return np.concatenate([*parts, *dB])

    @property
    def has_feedback(self) -> bool:
        """Actuators whose effort is fed back from the state (:class:`fem.model.
        actuators.Feedback`)."""
        return bool(self._feedback)

    def feedback_forces(self, t: float, q: np.ndarray, v: np.ndarray,
                        tangent: bool = False):
        """The fed-back actuators' forces ``Σ u(t, q, q̇) B(q)`` (n,) and, with
        ``tangent``, the values of ``(∂f/∂q, ∂f/∂q̇)`` on their blocks (pattern order):
        ``∂f/∂q = B ⊗ ∂u/∂q + u ∂B/∂q``, ``∂f/∂q̇ = B ⊗ ∂u/∂q̇``."""
        f = np.zeros(self.n)
        kq, cv = [], []
        for a, d in zip(self._feedback, self._fb_dofs, strict=True):
            u, du_dq, du_dv = a.feedback.value(t, q, v, tangent)
            B = a.B(q)
            np.add.at(f, a.dofs, u * B)
            if not tangent:
                continue
            ia = np.searchsorted(d, a.dofs)
            ic = np.searchsorted(d, a.feedback.dofs)
            Kq = np.zeros((len(d), len(d)))
            Cv = np.zeros((len(d), len(d)))
            if len(ic):
                Kq[np.ix_(ia, ic)] += np.outer(B, du_dq)
                Cv[np.ix_(ia, ic)] += np.outer(B, du_dv)
            if u:
                Kq[np.ix_(ia, ia)] += u * a.dB(q)
            kq.append(Kq.ravel())
            cv.append(Cv.ravel())
        if not tangent:
            return f, None
        return f, (np.concatenate(kq) if kq else np.zeros(0),
                   np.concatenate(cv) if cv else np.zeros(0))

    def start_feedback(self, t: float, q: np.ndarray, v: np.ndarray) -> None:
        """Reset the controllers' own states at the start of a run."""
        for a in self._feedback:
            a.feedback.start(t, q, v)

    def sample_feedback(self, t: float, q: np.ndarray, v: np.ndarray) -> None:
        """Sampled controllers take their sample at an accepted state."""
        for a in self._feedback:
            a.feedback.sample(t, q, v)

    def actuator_values(self, q: np.ndarray) -> np.ndarray:
        """−B_k(q) of the inverse-dynamics actuators, concatenated (pattern order)."""
        if not self._act:
            return np.zeros(0)
        return np.concatenate([-a.B(q) for a in self._act])

    def reaction(self, jvals: np.ndarray, lam: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Σ λᵢ wᵢ: Φ_qᵀλ over ordinary rows plus −B(q) u over servo rows."""
        if self.n_con == 0:
            return np.zeros(self.n)
        if self._reaction_kernel is not None:
            r = np.zeros(self.n)
            self._reaction_kernel(jvals, lam * self._keep_row, self._jrows, self._jcols, r)
        else:
            r = np.bincount(self._jcols, jvals * (lam * self._keep_row)[self._jrows],
                            minlength=self.n)
        if self._act:
            r += np.bincount(self._b_dofs, self.actuator_values(q)
                             * lam[self._servo_rows][self._b_owner], minlength=self.n)
        return r

    def efforts(self, lam: np.ndarray) -> dict[str, float]:
        """Actuator efforts (torques [N·m] / forces [N]) from a multiplier vector."""
        return {a.name: float(lam[r]) for a, r in zip(self._act, self._servo_rows,
                                                        strict=True)}

    # ================================================================ checks
    @blas_single_threaded
    def check_rank(self, q: np.ndarray | None = None, t: float = 0.0, tol: float = 1e-9):
        """Raise a ModelError naming redundant constraint rows (rank-deficient Φ_q).

        Rows that each fix one distinct coordinate (supports, clamps) are independent of
        each other; they are set aside and their columns removed, and the QR with column
        pivoting runs on the remaining rows and columns only — on large plate meshes
        most rows are of that kind.
        """
        if self.n_con == 0:
            return
        q = self.q0 if q is None else q
        J = self.jacobian(q, t).tocsr()
        J.eliminate_zeros()
        nnz = np.diff(J.indptr)
        single = np.flatnonzero(nnz == 1)
        cols = J.indices[J.indptr[single]]
        # keep one row per fixed column (duplicates are redundant)
        _, first = np.unique(cols, return_index=True)
        unit = single[first]
        fixed_cols = cols[first]
        dup = np.setdiff1d(single, unit)
        rest = np.setdiff1d(np.arange(self.n_con), unit)
        bad: list[int] = []
        if rest.size:
            keep_cols = np.setdiff1d(np.arange(self.n), fixed_cols)
            R_rows = J[rest][:, keep_cols]
            used = np.unique(R_rows.indices)
            Jr = R_rows[:, used].toarray()
            scale = np.abs(Jr).max(axis=1) if Jr.size else np.zeros(len(rest))
            zero = scale <= 1e-300
            bad.extend(rest[zero].tolist())
            live = rest[~zero]
            Jr = Jr[~zero] / scale[~zero, None]
            if len(live):
                import scipy.linalg as sla

                _, R, perm = sla.qr(Jr.T, mode="economic", pivoting=True)
                d = np.abs(np.diag(R))
                rank = int(np.sum(d > tol * d[0])) if d.size else 0
                bad.extend(live[perm[rank:]].tolist())
        bad = sorted(set(bad) | set(dup.tolist()))
        if bad:
            names = [self.labels[i] for i in bad[:12]]
            raise ModelError(
                f"redundant or conflicting constraints: the Jacobian has rank "
                f"{self.n_con - len(bad)} < {self.n_con} rows; these rows depend on others: "
                f"{names}" + (" ..." if len(bad) > 12 else "")
                + ". Remove them (a joint that repeats what another joint already fixes).")

    def constraint_multipliers(self, lam: np.ndarray) -> dict[str, np.ndarray]:
        """Split a multiplier vector per constraint name."""
        out: dict[str, list] = {}
        for i, con in enumerate(self.owner):
            out.setdefault(con.name, []).append(lam[i])
        return {k: np.asarray(v) for k, v in out.items()}

    def rows_of(self, constraint) -> np.ndarray:
        """Global row indices of a constraint object."""
        return np.array([i for i, c in enumerate(self.owner) if c is constraint], dtype=int)

    def j_dot(self, jvals: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Φ_q x from Jacobian values."""
        if self.n_con == 0:
            return np.zeros(0)
        return np.bincount(self._jrows, jvals * x[self._jcols], minlength=self.n_con)
