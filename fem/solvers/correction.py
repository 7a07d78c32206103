"""Kinematic corrections of the index-3 generalized-α scheme (Liu et al. 2018 §3).

Index-3 generalized-α satisfies the position constraints to the Newton tolerance but the
velocity constraints only to O(h²) (undamped with ``ρ∞ = 1``).  A correction is the
smallest change in a metric ``W`` that lands on the constraint manifold:

* ``"projection"``: after each step ``q̇`` is replaced by its M-orthogonal projection onto
  ``Φ_q q̇ + Φ_t = 0`` (projected generalized-α);
* ``"rigid"``: the paper's *transient rigid-body correction* made general — corrections
  are taken in the metric ``W = M + κ K_ref`` (``K_ref`` the elastic tangent in the
  reference state, ``κ`` large), which freezes the deformation and moves the bodies
  rigidly; applied to the positions whenever the constraint residual rises during a
  Newton iteration, and to the velocities after each step.

See ``docs/kinematic_correction.md``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..assembly.linalg import Factorization

__all__ = ["KinematicCorrection"]


class KinematicCorrection:
    """One of ``"none"``, ``"projection"``, ``"rigid"`` for a system (module docstring)."""

    def __init__(self, system, mode: str):
        self.system = system
        self.mode = mode
        self.n_corrections = 0
        self._metric = None

    @property
    def on_positions(self) -> bool:
        """Whether a rising constraint residual is corrected inside Newton."""
        return self.mode == "rigid"

    @property
    def on_velocities(self) -> bool:
        """Whether the velocities are projected after each step."""
        return self.mode != "none" and self.system.m > 0

    def metric_matrix(self, q, t) -> sp.csc_matrix:
        """``[[W, Φ_qᵀ], [Φ_q, 0]]`` with the correction metric ``W`` (M, or M + κ K_ref).

        The plain Jacobian on both sides, servo rows included: a correction is a
        projection onto the constraint manifold, not a motion the actuators make."""
        sys_ = self.system
        W = sp.csr_matrix(sys_.mass_matrix(q))
        if self.mode == "rigid" and sys_.has_elastic:
            if self._metric is None:
                _, kref = sys_.internal_forces(sys_.q0, tangent=True)
                K = sp.csr_matrix(sys_.stiffness(kref))
                kappa = 1e6 * np.abs(W.diagonal()).mean() / max(np.abs(K.diagonal()).mean(),
                                                                1e-300)
                self._metric = W + kappa * K
            W = self._metric
        J = sys_.jacobian(q, t)
        return sp.bmat([[W, J.T], [J, None]], format="csc")

    def step(self, q: np.ndarray, t: float, rhs: np.ndarray) -> np.ndarray:
        """The smallest change ``Δq`` in the correction metric with ``Φ_q Δq = rhs``: with
        ``rhs = −Φ(q, t)`` one Gauss–Newton step back onto the constraints, rigid for
        ``"rigid"``."""
        n = self.system.n
        x = Factorization(self.metric_matrix(q, t), "kinematic correction matrix").solve(
            np.concatenate([np.zeros(n), rhs]))
        return x[:n]

    def positions(self, q: np.ndarray, t: float, phi: np.ndarray) -> np.ndarray:
        """The rigid position correction for the residual ``phi`` (counted)."""
        self.n_corrections += 1
        return self.step(q, t, -phi)

    def velocities(self, q: np.ndarray, v: np.ndarray, t: float) -> np.ndarray:
        """``q̇`` projected onto ``Φ_q q̇ + Φ_t = 0`` in the metric."""
        sys_ = self.system
        return v + self.step(q, t, -(sys_.j_dot(sys_.jacobian_values(q, t), v)
                                     + sys_.phi_t(q, t)))
