"""Reduced bodies evaluated together.

A robot of reduced links (:class:`~fem.bodies.ReducedBody`, one per substructure) has a
handful of bodies of a few to a few tens of modes each.  Evaluated one by one, each
spends its time in the overhead of a few tens of small NumPy calls on arrays of tens of
entries; a :class:`ReducedBatch` evaluates all of them in the same calls on arrays with a
leading body axis and hands every body its slice.  Bodies of different mode counts share
one batch: each is padded to the largest count ``m̄`` with modes of no mass and no
stiffness (zero rows and columns of ``W`` and ``K_r``, zero coordinates), which adds
exact zeros to every sum, so a body's forces are those of
:meth:`ReducedBody.inertia_blocks` and :meth:`ReducedBody.forces` to rounding (the order
of the sums may differ).

Per body the coordinates are ``[r, u, v, w, η]`` (12 + m, the body's own ``dofs``
order), padded at the end; the generalized vectors ``X`` (4 + 3 m̄ rows) hold ``η_k e_a``
at row ``4 + a m̄ + k``.  The residual's terms (the inertia forces ``Lᵀ W Ẍ``, the weight
and point loads ``−Lᵀ h_g``, the modal forces ``f₀ + K_r η``) are batched; their tangents
(asked once per factorization) come from the bodies' own methods.  Bodies with the
cubic modal force, the FE model's forces or its damping evaluate alone as before.  The
batch runs on both kernel paths: on the compiled one the residual's terms come from the
``terms`` kernel of :mod:`fem.bodies.reduced_kernels` (one pass over the bodies, each
over its own modes only, the forces added straight into the global vector), the NumPy
forms here their reference; a system whose Newton loop is compiled whole evaluates its
bodies inside it.  :func:`batch_reduced` forms the batch (the assembly calls it).
"""

from __future__ import annotations

import numpy as np

from .reduced import ReducedBody
from .reduced_kernels import reduced_kernels

__all__ = ["ReducedBatch", "batch_reduced"]


def _plain(b) -> bool:
    """A reduced body whose terms the batch evaluates (linear modal force, no FE damping,
    no FE forces)."""
    return (type(b) is ReducedBody and b._poly is None and b._Cx is None
            and getattr(b, "_fe", None) is None)


def batch_reduced(bodies: list) -> list[ReducedBatch]:
    """The reduced bodies of ``bodies`` that the batch can evaluate, as one
    :class:`ReducedBatch` when there are two or more (else an empty list)."""
    plain = [b for b in bodies if _plain(b)]
    return [ReducedBatch(plain)] if len(plain) > 1 else []


class ReducedBatch:
    """Reduced bodies evaluated together (see the module docstring).

    Parameters
    ----------
    bodies : list of ReducedBody
        Bodies with the linear modal force and no FE damping or forces.
    """

    def __init__(self, bodies: list):
        self.bodies = list(bodies)
        B = len(bodies)
        ms = np.array([b.m for b in bodies], np.int64)
        mm = self.mm = int(ms.max())
        self.kmax, self.nV = 12 + mm, 4 + 3 * mm
        self.ks = 12 + ms
        self.mask = np.arange(self.kmax)[None, :] < self.ks[:, None]      # (B, k̄)
        self.dofs = np.concatenate([b.dofs for b in bodies])              # = mask order
        self.W = np.zeros((B, self.nV, self.nV))
        self.K = np.zeros((B, mm, mm))
        self.f0 = np.zeros((B, mm))
        self._rows = []
        # the bodies' global coordinates (B, k̄), padded with their first (never read)
        self.idx = np.zeros((B, self.kmax), np.int64)
        for i, b in enumerate(bodies):
            self.idx[i, :b.k] = b.dofs
            self.idx[i, b.k:] = b.dofs[0]
            m = b.m
            rows = np.concatenate([np.arange(4), 4 + (np.arange(3)[:, None] * mm
                                                      + np.arange(m)[None, :]).ravel()])
            self.W[i][np.ix_(rows, rows)] = b.W
            self.K[i, :m, :m] = b.Kr
            self.f0[i, :m] = b.f0
            self._rows.append(rows)
        self.WT = np.ascontiguousarray(self.W.transpose(0, 2, 1))   # the kernel's W
        self._hg_key = None
        self._hg = None
        self._none = np.zeros(0)        # no global vector: the kernel's forces stay in F
        self._checked = -1              # ReducedBody.changes when last checked plain
        self._plain = True

    def evaluates(self) -> bool:
        """Whether the batch evaluates its bodies: while they are all still plain (a body
        given the FE model's forces after the batch was formed evaluates alone, and so do
        its peers: checked again only when a body was given them,
        :attr:`ReducedBody.changes`; the check itself took 9 % of the vehicle arm's run
        in every residual), on both kernel paths — the bodies alone with the compiled inertia
        kernel cost 1.7 times the batch (the vehicle manipulator's nine reduced links,
        300 steps: a median of 1.49 against 0.90 CPU s over six interleaved rounds)."""
        if self._checked != ReducedBody.changes:    # a body given FE forces since
            self._plain = all(_plain(b) for b in self.bodies)
            self._checked = ReducedBody.changes
        return self._plain

    # ------------------------------------------------------------ the contract
    def add_into(self, f: np.ndarray, F: np.ndarray | None) -> None:
        """Add the bodies' forces ``F`` (B, k̄, padded) into the global ``f`` (None: the
        compiled kernel added them already, :meth:`inertia_all`)."""
        if F is not None:
            np.add.at(f, self.dofs, F[self.mask])

    def body_terms(self, F: np.ndarray, T, i: int) -> tuple:
        """Body ``i``'s force (its ``k``) and tangent (or None) from what
        :meth:`inertia_all` or :meth:`forces_all` returned."""
        return F[i, :self.ks[i]], (None if T is None else T[i])

    # ------------------------------------------------------------ coordinates
    def _gather(self, x: np.ndarray) -> np.ndarray:
        """``x`` at the bodies' coordinates (B, k̄), zeros at the padded modes."""
        out = np.zeros(self.mask.shape)
        out[self.mask] = x[self.dofs]
        return out

    def _project(self, E: np.ndarray, eta: np.ndarray, h: np.ndarray) -> np.ndarray:
        """``Lᵀ h`` (B, k̄) of every body (:meth:`ReducedBody._project`)."""
        B, mm = eta.shape
        f = np.empty((B, self.kmax))
        f[:, :3] = h[:, 0]
        hm = h[:, 4:].reshape(B, 3, mm, 3)                      # (b, a, k, i)
        f[:, 3:12] = (h[:, 1:4] + (eta[:, None, None, :] @ hm)[:, :, 0]).reshape(B, 9)
        f[:, 12:] = np.einsum("bai,baki->bk", E, hm)
        return f

    def _padded_tangents(self, terms: list) -> tuple:
        """The bodies' own ``(f, tangent)`` as ``(F (B, k̄) padded, [tangent, …])``."""
        F = np.zeros(self.mask.shape)
        for i, (f, _) in enumerate(terms):
            F[i, :self.ks[i]] = f
        return F, [t for _, t in terms]

    # ------------------------------------------------------------ terms
    def inertia_all(self, q: np.ndarray, v: np.ndarray, a: np.ndarray,
                    tangent: bool, into: np.ndarray | None = None) -> tuple:
        """Every body's :meth:`ReducedBody.inertia`: ``F`` (B, k̄) and, with ``tangent``,
        the bodies' ``(M, ∂/∂q, ∂/∂q̇)`` (a list; else None).  On the compiled path
        without ``tangent`` the ``terms`` kernel of :mod:`fem.bodies.reduced_kernels`
        forms ``F`` and, given the global vector ``into``, adds the forces into it and
        returns ``(None, None)`` (:meth:`add_into` then adds nothing)."""
        if tangent:
            return self._padded_tangents([b.inertia(q, v, a, True) for b in self.bodies])
        kern = reduced_kernels()
        if kern is not None:
            return self._compiled_terms(kern, q, v, a, None, into)
        return self._inertia_numpy(q, v, a), None

    def _compiled_terms(self, kern, q, v, a, gravity, into) -> tuple:
        """The ``terms`` kernel: the inertia forces at ``(q, v, a)``, or with ``gravity``
        (``v``, ``a`` unused) the forces at ``q``; ``(F, None)``, or ``(None, None)``
        with the forces added into ``into``."""
        c = np.ascontiguousarray
        out = into if (into is not None and into.dtype == np.float64
                       and into.flags.c_contiguous) else None
        F = np.empty(self.mask.shape)
        hg = self.W if gravity is None else self._load_vectors(gravity)
        kern[0](c(q, dtype=float), c(v, dtype=float), c(a, dtype=float), self.idx,
                self.ks, self.WT, hg, self.K, self.f0, gravity is None, F,
                self._none if out is None else out)
        if into is not None and out is None:
            self.add_into(into, F)
        return (F, None) if into is None else (None, None)

    def _inertia_numpy(self, q: np.ndarray, v: np.ndarray, a: np.ndarray) -> np.ndarray:
        """The NumPy form of :meth:`inertia_all` without tangent: ``F`` (B, k̄)."""
        qB, vB, aB = self._gather(q), self._gather(v), self._gather(a)
        B, mm = qB.shape[0], self.mm
        E, eta = qB[:, 3:12].reshape(B, 3, 3), qB[:, 12:]
        Ed, etad = vB[:, 3:12].reshape(B, 3, 3), vB[:, 12:]
        Edd, etadd = aB[:, 3:12].reshape(B, 3, 3), aB[:, 12:]
        G = np.empty((B, self.nV, 3))                           # Ẍ
        G[:, 0] = aB[:, :3]
        G[:, 1:4] = Edd
        # η_k ë_a + η̈_k e_a + 2 η̇_k ė_a at row 4 + a m̄ + k
        G[:, 4:] = (eta[:, None, :, None] * Edd[:, :, None, :]
                    + etadd[:, None, :, None] * E[:, :, None, :]
                    + 2.0 * etad[:, None, :, None] * Ed[:, :, None, :]).reshape(B, 3 * mm, 3)
        return self._project(E, eta, self.W @ G)

    def _load_vectors(self, gravity) -> np.ndarray:
        """Every body's ``h_g`` (B, n̄_V, 3), kept while the gravity is and no body was
        given a load (:attr:`ReducedBody.changes`)."""
        g = np.asarray(gravity, dtype=float)
        key = (g.tobytes(), ReducedBody.changes)
        if self._hg_key != key:
            hg = np.zeros((len(self.bodies), self.nV, 3))
            for i, b in enumerate(self.bodies):
                hg[i, self._rows[i]] = b._load_vectors(g)
            self._hg_key, self._hg = key, hg
        return self._hg

    def forces_all(self, q: np.ndarray, gravity: np.ndarray, tangent: bool,
                   into: np.ndarray | None = None) -> tuple:
        """Every body's :meth:`ReducedBody.forces` (``F`` (B, k̄), tangents as
        :meth:`inertia_all`; on the compiled path as there, the forces added into
        ``into`` when given)."""
        if tangent:
            return self._padded_tangents([b.forces(q, gravity, True) for b in self.bodies])
        kern = reduced_kernels()
        if kern is not None:
            return self._compiled_terms(kern, q, q, q, gravity, into)
        return self._forces_numpy(q, gravity), None

    def _forces_numpy(self, q: np.ndarray, gravity: np.ndarray) -> np.ndarray:
        """The NumPy form of :meth:`forces_all` without tangent: ``F`` (B, k̄)."""
        qB = self._gather(q)
        B = qB.shape[0]
        E, eta = qB[:, 3:12].reshape(B, 3, 3), qB[:, 12:]
        f = -self._project(E, eta, self._load_vectors(gravity))
        f[:, 12:] += self.f0 + (self.K @ eta[:, :, None])[:, :, 0]
        return f
