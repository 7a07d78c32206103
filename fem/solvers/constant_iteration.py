"""One compiled pass for the Newton residual of systems of declared structure (issue 23).

Where the system declares its structure (:class:`fem.assembly.system.ConstantStructure`: constant
mass and damping, constraint rows linear or bilinear, bodies whose mass depends on ``q``
by compiled kernels — ANCF cables clamped or coupled, natural-coordinate frames and the
joints on them, reduced-order bodies), generalized-α's residual

    r = M(q) q̈ + f − f_ext + Φ_qᵀλ (+ C q̇),     Φ = G q + c(t) + Σ (A q + α)·(B q + β(t))

and its right-hand side, scale and constraint maximum are formed in one compiled loop per
iteration instead of five calls through the general methods (mass product, constraint
state, reaction, damping, fused residual).  On the 8-element cable the per-iteration
Python that decides the run time against a compiled peer (issue 23) falls by ≈ 10 µs;
on a reduced body on a spherical hinge (issue 19, item 7) a whole iteration is compiled.
The NumPy form below (constant mass and Jacobian only) and the general methods are the
references; they give the same results to round-off (the order of the sums).

The compiled kernels themselves — residual, iterations, steps, the iteration matrix and
its factorization — are :mod:`fem.solvers.constant_kernels`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..assembly.linalg import DENSE_LIMIT, BandedMatrix, Factorization
from . import constant_kernels
from .constant_kernels import loop_kernels
from .elimination import MIN_UNKNOWNS, EliminatedFactorization, Elimination, linear_rows

__all__ = ["LOOP_LIMIT", "ConstantIteration"]


LOOP_LIMIT = 200
"""The largest system stored dense (``n + m``) whose Newton iterations run in the
compiled loop (:attr:`ConstantIteration.loops`).  Larger ones (``LOOP_LIMIT < n + m ≤
DENSE_LIMIT``: the flagship's full platform, 219) iterate as on the NumPy path, through
the general methods, with the compiled element and constraint kernels: on the flagship's
320 steps the loop's saving did not pay back the loading of its compiled code (1.2–2.7 s
a process: each entry point carries its whole call tree) and its compile took minutes
against seconds for those kernels (issue 46, item 2; ``docs/performance.md``).  Systems
stored banded (cables from 12 elements on), sparse ones and smaller dense ones keep the
loop: their steps are cheap, the Python round trips the loop saves are most of them."""


def _csr(A: sp.spmatrix, drop_zeros: bool = False) -> tuple[np.ndarray, np.ndarray,
                                                           np.ndarray]:
    A = sp.csr_matrix(A, copy=drop_zeros)
    A.sum_duplicates()
    if drop_zeros:      # a pattern's explicit zeros (mass blocks m ⊗ I₃: two thirds)
        A.eliminate_zeros()
    return (np.ascontiguousarray(A.data, dtype=float), A.indices.astype(np.int64),
            A.indptr.astype(np.int64))


class ConstantIteration:
    """The fused residual of a system of declared structure.

    Parameters
    ----------
    structure : fem.assembly.system.ConstantStructure
        The system's constant matrices and compiled parts
        (``System.constant_structure()``).
    storage : str, optional
        How the system stores its iteration matrix ("dense", "banded", "sparse";
        ``Assembly.storage``); None: dense where :attr:`dense`.  Only :attr:`loops`
        reads it.
    beyond_dense : bool
        Eliminate the constant linear rows also where the full matrix is above
        ``DENSE_LIMIT`` and dense without them (``AlphaOptions.eliminate_beyond_dense``).
    """

    def __init__(self, structure, storage: str | None = None, beyond_dense: bool = False):
        self.structure = s = structure
        self.n = n = structure.mass.shape[0]
        self.m = m = structure.jacobian.shape[0]
        # the mass without its stored zeros: the same sums (+0.0 changes nothing), a
        # third of the work in every residual (3084-unknown cable: 73 → 35 µs)
        self._M = _csr(structure.mass, drop_zeros=True)
        self._G = _csr(structure.jacobian)
        self._C = (_csr(structure.damping) if structure.damping is not None
                   else (np.zeros(0), np.zeros(0, np.int64), np.zeros(1, np.int64)))
        self.phi = np.empty(m)
        self._jacobian_t = None           # (Φ_q, Φ_qᵀ) of the NumPy residual
        self._t = None
        self._c_t = np.zeros(m)
        self._beta_t = np.zeros(0)
        self._rate = None
        self._directions = None
        self.hist_r = self.hist_p = np.empty(0)
        self._factorization = self._lu = None      # the last factorization's arrays
        kernels = loop_kernels()
        bil, bodies, prod = s.bilinear, s.bodies, s.products
        have_state = (kernels is not None and bil is not None and bil.state is not None
                      and prod is not None and prod.state is not None)
        # the compiled parts the declaration brings (the solvers import no element,
        # body or constraint module: the entry points come with the declaration)
        self.compiled = (have_state and s.forces is not None and bodies is not None
                         and bodies.terms is not None)
        """Whether :meth:`iterate` can run (compiled kernels for every part)."""
        # Φ_t depends on q where the structure is timed and not plain: the step leaves
        # the velocity residual to Python (evaluated once here: the step asks each time)
        self._rate_left = s.timed and not s.plain
        # ... from its terms in t (ConstantStructure.rate_terms) where declared
        self._rate_terms = s.rate_terms if self._rate_left else None
        stored_dense = self.dense if storage is None else storage == "dense"
        self.loop_size = not (stored_dense and n + m > LOOP_LIMIT)
        """Whether the system's size and storage let the compiled Newton loop run it
        (:attr:`loops` where every part has its compiled kernels): the same on both
        kernel paths, so that the factorization policy estimates the same iteration
        costs, and decides the same, on both."""
        self.loops = self.compiled and self.loop_size
        """Whether the compiled Newton loop (:meth:`iterate`, :meth:`step`,
        :meth:`march`, the factorizations made in it, the fused :meth:`residual`) runs
        this system: compiled kernels for every part and not a system stored dense of
        more than :data:`LOOP_LIMIT` unknowns.  Decided from the structure alone, never the
        clock, so a rerun takes the same loop.  Where not, the solver iterates as on the
        NumPy path, through the general methods — with the compiled element and
        constraint kernels on the compiled path."""
        self.fused = (self.loops and not s.has_bodies) or s.plain
        """Whether :meth:`residual` takes the system's internal forces (the compiled
        loop's without bodies, or the NumPy form of a plain structure) and
        :meth:`velocity_residual` runs; with bodies only the compiled loop evaluates
        them."""
        self._kernels = kernels if have_state and (self.loops or s.plain) else None
        self.eliminable = None
        """The constant linear rows' elimination (:class:`fem.solvers.elimination
        .Elimination`) where the matrix is dense, or is dense once they are eliminated,
        and it pays (:meth:`~fem.solvers.elimination.Elimination.pays`), decided from the
        structure alone (the factorization policy's estimate reads it with or without
        numba); None otherwise."""
        if n + m >= MIN_UNKNOWNS and (n + m <= DENSE_LIMIT or beyond_dense):
            rows = linear_rows(s, m)
            # above DENSE_LIMIT (``beyond_dense``: the solver's ``eliminate_beyond_dense``)
            # where the rows bring the matrix under it: a robot of rigid links joined by
            # frames, every joint's point rows linear
            if rows.size and n + m - 2 * rows.size <= DENSE_LIMIT:
                try:
                    el = Elimination(sp.csr_matrix(s.jacobian)[rows].toarray(), rows, n, m)
                except ValueError:       # dependent rows: the full matrix (and its
                    el = None            # singular diagnosis)
                self.eliminable = el if el is not None and el.pays() else None
        if self._kernels is None:
            return
        loop = constant_kernels     # the compiled loop's globals (read when it compiles)
        if bil is not None:
            # the kernels take the parts as plain tuples of arrays (the types they are
            # compiled for), gathered here by name
            loop._constraint_state = bil.state
            loop._product_state, loop._product_hessian = prod.state, prod.hessian
            self._P = (prod.pi, prod.pf)
            self._directions = prod.directions
            servo = s.servo
            self._S = ((servo.keep, servo.si, servo.sf) if servo is not None else (
                np.ones(m), np.array([8, 8, 8, 8, 8, 0, 0, 0], np.int64),  # no servo rows
                np.zeros(0)))                                               # (packed, empty)
            A, B = sp.csr_matrix(bil.A), sp.csr_matrix(bil.B)
            A.sum_duplicates()
            B.sum_duplicates()
            self._A, self._B = _csr(A), _csr(B)
            self._alpha = np.ascontiguousarray(bil.alpha, dtype=float)
            self._bil_row = np.ascontiguousarray(bil.row, dtype=np.int64)
            Ac, Bc, Gc = A.tocoo(), B.tocoo(), sp.csr_matrix(s.jacobian).tocoo()
            self._jrows = np.concatenate([self._bil_row[Ac.row // 3],
                                          self._bil_row[Bc.row // 3], Gc.row,
                                          prod.jrows]).astype(np.int64)
            self._jcols = np.concatenate([Ac.col, Bc.col, Gc.col, prod.jcols]).astype(np.int64)
        if bodies is not None and bodies.terms is not None:
            loop._body_terms = bodies.terms
            self._bodies = (bodies.header, bodies.dofs, bodies.data, bodies.index)
        else:
            self._bodies = (np.zeros((0, 8), np.int64), np.zeros(0, np.int64), np.zeros(0),
                            np.zeros(0, np.int64))
        if s.forces is not None:
            # the element kernels' entry point, a global of the compiled loop (numba
            # takes no functions as arguments without losing its disk cache)
            loop._group_forces = s.forces.kernel
            self.forces = (s.forces.kind, s.forces.dofs, s.forces.arrays3, s.forces.arrays2)
        if s.tangents is not None:
            loop._body_tangents = s.tangents
        self.factorizes = (self.compiled and self.dense
                           and (s.tangents is not None or not s.has_bodies))
        """Whether the compiled loop can form and factorize the iteration matrix itself
        (every tangent compiled, a dense factorization; :meth:`workspace`)."""
        P, S = self._P[0], self._S[1]
        self.factorizes_banded = (self.compiled and not s.has_bodies
                                  and P[8] == P[7] and S[1] == S[0])
        """Whether it can where the matrix is stored banded (:meth:`layout`): the bodies'
        tangents, the product rows' Hessian and the servo columns are formed densely
        only."""
        dofs = s.forces.dofs if s.forces is not None else np.zeros((0, 0), np.int64)
        nd = dofs.shape[1] if dofs.ndim == 2 else 0
        # the element tangents of a compiled factorization (the kernels' work array)
        self._K = (np.empty((dofs.shape[0], nd, nd))
                   if (self.factorizes or self.factorizes_banded) and dofs.size
                   else np.empty((0, 1, 1)))
        self.elimination = self.eliminable if self.factorizes else None
        """The constant linear rows eliminated from the matrix the compiled loop
        factorizes densely (:attr:`eliminable` where it :attr:`factorizes`)."""
        self._no_elimination = Elimination.empty_data()
        self._work = None
        self._band = None       # (kl, ku, perm) of a banded layout (:meth:`layout`)
        self.f_int = np.empty(n)
        self.mq = np.empty(n)                       # work arrays of the residual
        self.jl = np.empty(n)
        self.jv = np.empty(self._jrows.size) if bil is not None else np.empty(0)
        self.dx = np.zeros(n + m)
        self.res = np.empty(n)                      # work arrays of the Newton loop
        self.rhs = np.empty(n + m)
        self._phi_v = np.empty(m)
        self._no_rate = np.empty(0)       # Φ_t depends on q: the step leaves it to Python
        self._step_tail = None      # the step kernel's arguments fixed per factorization
        self._tail_of = None
        self._cons, self._cons_t = (), None

    @property
    def dense(self) -> bool:
        """Whether the iteration matrix is small enough for a dense factorization
        (n + m ≤ ``DENSE_LIMIT``, or its size with the linear rows eliminated, where they
        are: :attr:`eliminable`), which the compiled loop makes itself where its kernels
        are there (:attr:`factorizes`); a property of the structure alone."""
        return self.n + self.m <= DENSE_LIMIT or (
            getattr(self, "eliminable", None) is not None
            and self.eliminable.size <= DENSE_LIMIT)

    @property
    def eliminated_beyond_dense(self) -> bool:
        """Whether the full matrix is above ``DENSE_LIMIT`` and dense only with its linear
        rows eliminated: every factorization is then made eliminated, the NumPy ones too
        (:func:`fem.solvers.reduced_factorization.eliminated_factorization`)."""
        return self.n + self.m > DENSE_LIMIT and self.dense

    def _constraints(self, t: float) -> tuple:
        """The constraint arguments of the compiled kernels at ``t``."""
        if t == self._cons_t:
            return self._cons
        c_t, beta_t = self._terms(t)
        self._cons_t = t
        self._cons = (c_t, beta_t, self._G, self._A, self._alpha, self._B, self._bil_row,
                      self._jrows, self._jcols, self._P, self._S)
        return self._cons

    def history(self, size: int) -> None:
        """Room for ``size`` entries of the iteration history (:attr:`hist_r`,
        :attr:`hist_p`: relative residual and max |Φ| per evaluation)."""
        if self.hist_r.size < size:
            self.hist_r, self.hist_p = np.empty(size), np.empty(size)
            self._step_tail = None

    def iterate(self, it: int, refactor: bool, err_prev: float, nh: int, q, v, qdd, lam,
                f_ext, t: float, floor2: float, k, tol: float, ctol: float, max_iter: int,
                ratio: float, contraction: float, factorization, res, rhs,
                have_dq: bool, fac: bool = False) -> tuple:
        """Compiled modified-Newton iterations with a kept factorization (see the kernel
        ``iterate``); ``k`` the step's :class:`~fem.solvers.alpha.StepCoefficients`;
        ``fac``: renew the factorization in place when due (:attr:`factorizes`).
        Returns ``(status, it, nh, err, err_prev, refactor, scale, evaluations,
        factorizations)``."""
        lu_kind, lu, piv, kl, ku, perm, el = self._lu_of(factorization)
        kind, dofs, arrays3, arrays2 = self.forces
        c_t, beta_t, G, A, alpha, B, bil_row, jrows, jcols, P, S = self._constraints(t)
        return self._kernels[2](
            it, refactor, err_prev, nh, q, v, qdd, lam, f_ext, c_t, beta_t, self._M,
            self._C, G, A, alpha, B, bil_row, jrows, jcols, P, S, self._bodies, self.mq,
            self.jl,
            self.jv, floor2, k.rhs_scale, k.gamma_prime, k.beta_prime, tol, ctol, max_iter,
            ratio, contraction, kind, dofs, arrays3, arrays2, self._K, self.f_int,
            lu_kind, lu, piv, kl, ku, perm, el, res, rhs, self.phi, self.dx, self.hist_r,
            self.hist_p, have_dq, fac)

    def step(self, q0, v0, qdd0, a0, prev, c: float, h: float, par, lam0, f_ext, t: float,
             floor2: float, k, tol: float, ctol: float, max_iter: int, ratio: float,
             contraction: float, factorization, refactor: bool = False,
             fac: bool = False) -> tuple:
        """A whole step in one compiled call (the kernel ``step``), from the kept
        ``factorization`` or, with ``refactor`` (and ``fac``, see :meth:`iterate`), one
        made at its first iteration into ``factorization``'s arrays; ``par`` the
        :class:`~fem.solvers.alpha.AlphaParameters`, ``prev`` the acceleration before
        ``q̈₀`` (or ``q̈₀`` itself with ``c = 0``).  Returns ``(iterate's tuple, q, q̇, q̈,
        λ, a₁, velocity residual or −1)``."""
        if factorization is not self._tail_of or self._step_tail is None:
            self._tail_of = factorization
            self._step_tail = (*self.forces, self._K, self.f_int,
                               *self._lu_of(factorization), self.res, self.rhs, self.phi,
                               self.dx, self.hist_r, self.hist_p, self._phi_v)
        # Φ_t known before the step (it does not depend on q): checked inside the kernel
        rate = self._no_rate if self._rate_left else self._rate_at(t, q0)
        return self._kernels[3](
            q0, v0, qdd0, a0, prev, c, h, par.alpha_f, par.alpha_m, par.gamma, par.beta,
            lam0, rate, f_ext, *self._constraints(t), self._M, self._C, self._bodies,
            self.mq, self.jl, self.jv, floor2, k.rhs_scale, k.gamma_prime, k.beta_prime,
            tol, ctol, max_iter, ratio, contraction, *self._step_tail, refactor, fac)

    @property
    def marches(self) -> bool:
        """Whether :meth:`march` can run: the compiled loop is there and every time term
        of a step can be evaluated before it (no prescribed directions written in place
        at each time, ``ConstantStructure.products``)."""
        return self._kernels is not None and self.loops and self._directions is None

    def march(self, count: int, q0, v0, qdd0, a0, prev, c: float, linear: bool, h: float,
              par, lam0, f_ext, times: np.ndarray, floor2: float, k, tol: float,
              ctol: float, max_iter: int, ratio: float, contraction: float,
              factorization, have_lu: bool, renew_each: bool) -> tuple:
        """Up to ``count`` whole steps of ``h`` in one compiled call (the kernel
        ``march``: :meth:`step` after :meth:`step`, with the decisions generalized-α
        makes between them), ending at ``times``; the loop renews ``factorization``
        in place where due.  ``prev``, ``c``: the first step's predictor (as for
        :meth:`step`), ``linear``: the linear predictor on the steps after it.  The
        time terms of every step are evaluated here first (:attr:`marches`).

        Returns ``(done, iterate's tuple, q, q̇, q̈, λ, kept, rows)``: the steps
        converged, the iterate and state where it stopped (see the kernel), and
        ``rows = (Q, V, QDD, L, AA, stats)`` with the converged steps' states,
        algorithmic accelerations and statistics in their first ``done`` rows."""
        n, m = self.n, self.m
        cdots = bdots = np.empty((1, 0))
        by_terms = self._rate_left and self._rate_terms is not None
        s = self.structure
        batch = (s.terms_at(times) if s.timed and self._rate_left
                 and s.terms_at is not None and s.bilinear is not None else None)
        if batch is not None:
            # every step's time terms in one call (ConstantStructure.terms_at: the same
            # values to the bit as the loop below)
            c_ts, beta_ts, cd, bd = batch
            rates = np.empty((1, 0))
            if by_terms:
                cdots, bdots = cd, bd
        elif s.timed:
            # every time term of a step at once, so that the prescribed motions are
            # evaluated once a time (the structure keeps the last time's values)
            count_t = len(times)
            c_ts = beta_ts = None
            rates = np.empty((1, 0) if self._rate_left else (count_t, m))
            if by_terms:
                cdots = np.empty((count_t, m))
            for i, t in enumerate(times.tolist()):   # copied: a term may be a kept buffer
                c_t, beta_t = self._terms(t)
                if c_ts is None:
                    c_ts = np.empty((count_t, m))
                    beta_ts = np.empty((count_t, beta_t.size))
                c_ts[i], beta_ts[i] = c_t, beta_t
                if by_terms:
                    cd, bd = self._rate_terms(t)
                    if i == 0:
                        bdots = np.empty((count_t, np.size(bd)))
                    cdots[i], bdots[i] = cd, bd
                elif not self._rate_left:
                    rates[i] = self._rate_at(t, q0)
        else:                            # untimed (so no rate left to the kernel)
            c_t, beta_t = self._terms(float(times[0]))
            c_ts, beta_ts = c_t.reshape(1, m), beta_t.reshape(1, -1)
            rates = self._rate_at(float(times[0]), q0).reshape(1, m)
        kind, dofs, arrays3, arrays2 = self.forces
        rows = (np.empty((count, n)), np.empty((count, n)), np.empty((count, n)),
                np.empty((count, m)), np.empty((count, n)), np.empty((count, 8)))
        out = self._kernels[8](
            count, q0, v0, qdd0, a0, prev, c, linear, h, par.alpha_f, par.alpha_m,
            par.gamma, par.beta, lam0, rates, f_ext, c_ts, beta_ts, self._G, self._A,
            self._alpha, self._B, self._bil_row, self._jrows, self._jcols, self._P,
            self._S, self._M, self._C, self._bodies, self.mq, self.jl, self.jv, floor2,
            k.rhs_scale, k.gamma_prime, k.beta_prime, tol, ctol, max_iter, ratio,
            contraction, kind, dofs, arrays3, arrays2, self._K, self.f_int,
            *self._lu_of(factorization), self.res, self.rhs, self.phi, self.dx,
            self.hist_r, self.hist_p, self._phi_v, have_lu, renew_each, True, cdots,
            bdots, np.empty(self.jv.size), *rows)
        return (*out, rows)

    def iteration_matrix(self, q, v, qdd, lam, t: float, k,
                         band: tuple | None = None) -> np.ndarray | BandedMatrix:
        """The iteration matrix the compiled loop factorizes at ``(q, q̇, q̈, λ, t)`` for
        the step coefficients ``k``: dense (:attr:`factorizes`), or with ``band = (kl,
        ku, perm)`` a :class:`~fem.assembly.linalg.BandedMatrix` in that layout
        (:attr:`factorizes_banded`).  The reference is
        :meth:`fem.assembly.Assembly.saddle` (the tests compare them)."""
        if not (self.factorizes if band is None else self.factorizes_banded):
            raise ValueError("ConstantIteration: this structure is not factorized in the "
                             "compiled loop (see `factorizes`)")
        c_t, beta_t, G, A, alpha, B, bil_row, jrows, jcols, P, S = self._constraints(t)
        self._kernels[5](q, c_t, beta_t, G, A, alpha, B, bil_row, P, self.phi, self.jv)
        kind, dofs, arrays3, arrays2 = self.forces
        N = self.n + self.m
        bpi = 1.0 / k.beta_prime
        args = (q, v, qdd, lam, self._M, self._C, A, alpha, B, bil_row, jrows, jcols, P, S,
                self.jv, self._bodies, kind, dofs, arrays3, arrays2, self._K,
                np.zeros(self.n), bpi, k.gamma_prime * bpi)
        if band is None:
            out = np.empty((N, N), order="F")
            self._kernels[4](*args, out)
            return np.ascontiguousarray(out)
        kl, ku, perm = band
        ab = np.empty((2 * kl + ku + 1, N), order="F")
        inv = np.empty_like(perm)
        inv[perm] = np.arange(N)
        if not self._kernels[6](*args, ab, kl + ku, 1, inv):
            raise ValueError("ConstantIteration: the iteration matrix does not fit the band")
        return BandedMatrix(ab, kl, ku, perm)

    def layout(self, factorization: Factorization) -> None:
        """Factorize in the compiled loop in ``factorization``'s storage (dense or
        banded, its ordering and band) from now on: :meth:`workspace` takes it."""
        band = None
        if factorization.kind == "banded":
            A = factorization.A
            band = (A.kl, A.ku, A.perm)
        old = self._band
        if (band is None) != (old is None) or (
                band is not None and (band[:2] != old[:2]
                                      or not np.array_equal(band[2], old[2]))):
            self._band, self._work = band, None

    def workspace(self) -> Factorization:
        """A factorization's arrays for the compiled loop to factorize into when no
        factorization is kept, in the storage of :meth:`layout` (dense by default:
        ``getrf``'s layout, or ``gbtrf``'s; dense with the linear rows eliminated where
        :attr:`elimination` is set); the same arrays every time."""
        if self._work is None:
            N = self.n + self.m
            if self._band is None and self.elimination is not None:
                self._work = EliminatedFactorization(self.elimination)
            elif self._band is None:
                self._work = Factorization.of_dense(np.zeros((N, N), order="F"),
                                                    np.zeros(N, np.int32))
            else:
                kl, ku, perm = self._band
                self._work = Factorization.of_banded(
                    np.zeros((2 * kl + ku + 1, N), order="F"), np.zeros(N, np.int32), kl,
                    ku, perm)
        return self._work

    def _lu_of(self, factorization) -> tuple:
        """The substitution arrays of ``factorization`` and its elimination's data (an
        empty one but for :class:`EliminatedFactorization`), kept while it is the
        same."""
        if factorization is not self._factorization:
            self._factorization = factorization
            el = (factorization.elimination.data
                  if isinstance(factorization, EliminatedFactorization)
                  else self._no_elimination)
            self._lu = (*factorization.substitution_data(), el)
        return self._lu

    def factorize(self, q, v, qdd, lam, t: float, k) -> Factorization | None:
        """The iteration matrix at ``(q, q̇, q̈, λ, t)`` for the step coefficients ``k``
        formed and factorized by the compiled loop's kernels with the linear rows
        eliminated, in :meth:`workspace`; None without :attr:`elimination` or where the
        pivot test fails (the caller keeps the general factorization)."""
        if self.elimination is None or self._band is not None:
            return None
        work = self.workspace()
        _, lu, piv, _, _, _, el = self._lu_of(work)
        c_t, beta_t, G, A, alpha, B, bil_row, jrows, jcols, P, S = self._constraints(t)
        jv = np.empty(self.jv.size)
        self._kernels[5](q, c_t, beta_t, G, A, alpha, B, bil_row, P, np.empty(self.m), jv)
        kind, dofs, arrays3, arrays2 = self.forces
        bpi = 1.0 / k.beta_prime
        ok = self._kernels[7](q, v, qdd, lam, self._M, self._C, A, alpha, B, bil_row, jrows,
                              jcols, P, S, jv, self._bodies, kind, dofs, arrays3, arrays2,
                              self._K, np.zeros(self.n), bpi, k.gamma_prime * bpi, el, lu,
                              piv)
        return work if ok else None

    def _rate_at(self, t: float, q) -> np.ndarray:
        """``∂Φ/∂t`` at ``(t, q)``, evaluated once for an untimed structure (zero)."""
        if self._rate is None or self.structure.timed:
            self._rate = np.asarray(self.structure.rate(t, q), dtype=float)
        return self._rate

    def _terms(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """``(c(t), β(t))``, evaluated once for an untimed structure."""
        if t != self._t and (self._t is None or self.structure.timed):
            s = self.structure
            self._c_t = np.asarray(s.offset(t), dtype=float)
            if s.bilinear is not None:
                self._beta_t = np.asarray(s.bilinear.beta(t), dtype=float)
            if self._directions is not None:
                self._directions(t)
            self._t = t
        return self._c_t, self._beta_t

    def residual(self, q, v, qdd, lam, f_int, f_ext, t: float, floor2: float,
                 c_rhs: float, res: np.ndarray, rhs: np.ndarray) -> tuple[float, float, float]:
        """Write ``res = M(q) q̈ + f − f_ext + Φ_qᵀλ (+ C q̇)``, ``rhs = [c_rhs·res; −Φ]``
        and :attr:`phi` ``= Φ(q, t)``; return ``(‖res‖², scale², max|Φ|)`` with
        ``scale² = max(‖M q̈‖², ‖f‖², ‖Φ_qᵀλ‖², floor2)`` (the contract of
        :func:`fem.solvers.fused.residual_and_rhs`).  ``f_int`` holds the element
        groups' forces (:meth:`fem.assembly.system.System.internal_forces` without bodies; with
        bodies the compiled pass adds theirs, in place)."""
        if self._kernels is not None:
            self.mq.fill(0.0)
            return self._kernels[0](q, v, qdd, lam, f_int, f_ext, *self._constraints(t),
                                    self._M, self._C, self.mq, self.jl, self.jv,
                                    float(floor2), float(c_rhs), res, rhs, self.phi)
        c_t = self._terms(t)[0]
        s = self.structure
        Mq = s.mass @ qdd
        jt = self._jacobian_t
        if jt is None or jt[0] is not s.jacobian:
            # Φ_qᵀ of the constant rows made once (its arrays are the Jacobian's): forming
            # the transpose anew was half of this residual's time (ANCF cable pendulum)
            jt = self._jacobian_t = (s.jacobian, s.jacobian.T)
        JTl = jt[1] @ lam
        np.add(Mq, f_int, out=res)
        res -= f_ext
        res += JTl
        if s.damping is not None:
            res += s.damping @ v
        n = self.n
        np.multiply(res, c_rhs, out=rhs[:n])
        self.phi[:] = s.jacobian @ q + c_t
        np.negative(self.phi, out=rhs[n:])
        scale2 = max(float(Mq @ Mq), float(f_int @ f_int), float(JTl @ JTl), floor2)
        pmax = float(np.abs(self.phi).max()) if self.m else 0.0
        return float(res @ res), scale2, pmax

    def velocity_residual(self, q: np.ndarray, v: np.ndarray, t: float) -> float:
        """``max |Φ_q q̇ + Φ_t|`` (0 without constraints)."""
        if not self.m:
            return 0.0
        if self._kernels is not None:
            if self._rate_terms is not None:     # compiled, as march does
                cdot, bdot = self._rate_terms(t)
                rate = self._kernels[9](q, np.asarray(cdot, dtype=float),
                                        np.asarray(bdot, dtype=float), self._A,
                                        self._alpha, self._bil_row)
            else:
                rate = self._rate_at(t, q)
            return float(self._kernels[1](q, v, rate, *self._constraints(t),
                                          np.empty(self.m), np.empty(self.jv.size)))
        rate = self._rate_at(t, q)
        return float(np.abs(self.structure.jacobian @ v + rate).max())
