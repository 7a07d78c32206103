"""The solver contract: the one interface every solver uses.

Every solver of :mod:`fem.solvers` works on one system

    M(q) q̈ + f_int(q, q̇) + C q̇ + Σᵢ λᵢ wᵢ(q) = f_ext(q, t),      Φ(q, t) = 0

(``wᵢ = ∂Φᵢ/∂q``, or an actuator's ``−B(q)`` on a servo row) and reaches it only through
:class:`System`, what ``model.assemble()`` returns: no solver reads a private attribute,
tests a model's class or branches on a family.  A fast path — the constant mass of
element families, the compiled constraint form — lives inside the implementation.

Implementations: :class:`fem.assembly.Assembly` (every element family, the bodies of
:mod:`fem.bodies`, the constraint library) and the minimal-coordinate chains of
:mod:`fem.chains`.  A new body kind plugs into the assembly through
:class:`fem.bodies.NonlinearBody` (inertia, mass, forces, energy) and its point maps
(:class:`fem.point_maps.PointMap`); it needs no solver change.

Value arrays: ``kvals`` (element tangent), ``hvals`` (constraint Hessian), ``jvals``
(Jacobian) are the implementation's own storage, produced by one method and consumed by
another (``internal_forces`` → ``saddle``/``stiffness``); a solver never looks inside.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["ConstantStructure", "System", "conforms"]


@dataclass(frozen=True)
class ConstantStructure:
    """The constant matrices of a system whose mass, damping and constraint Jacobian do
    not depend on the configuration, and whose constraints are linear:
    ``Φ(q, t) = Φ_q q + c(t)`` (clamps, coordinate couplings, prescribed coordinates).
    A solver may then evaluate ``M q̈ + C q̇ + Φ_qᵀλ`` and ``Φ`` in one compiled pass
    (:mod:`fem.solvers.constant_iteration`) instead of through the general methods.

    Attributes
    ----------
    mass, damping : scipy.sparse.csr_matrix (n × n)
        ``M`` and ``C`` (``damping`` None without damping).
    jacobian : scipy.sparse.csr_matrix (m × n)
        ``Φ_q``; the reaction of the multipliers is ``Φ_qᵀλ``.
    offset : callable
        ``t ↦ c(t) = Φ(0, t)`` (m,).
    rate : callable
        ``t ↦ ∂Φ/∂t`` (m,).
    forces : tuple or None
        When all internal forces come from one element group with a compiled kernel:
        ``(group_forces, kind, dofs, arrays3, arrays2)`` — the compiled entry point
        :func:`fem.elements.kernels.group_forces` and its arguments
        (:meth:`fem.elements.ElementFamily.compiled_forces`) — so a compiled solver can
        run whole Newton iterations; None otherwise.
    timed : bool
        Whether ``offset`` and ``rate`` depend on time (prescribed motions); False:
        evaluate them once.
    """

    mass: sp.csr_matrix
    damping: sp.csr_matrix | None
    jacobian: sp.csr_matrix
    offset: Callable[[float], np.ndarray]
    rate: Callable[[float], np.ndarray]
    forces: tuple | None = None
    timed: bool = True


class System(ABC):
    """The declared solver contract (see module docstring).

    Attributes
    ----------
    n, m : int
        Coordinates and constraint rows.
    q0 : ndarray (n,)
        Reference coordinates.
    labels : list of str
        A readable name of every constraint row.
    has_elastic : bool
        Whether any part is elastic (a tangent is costly; modified Newton pays).
    has_damping : bool
        Whether ``damping_force`` can be nonzero.
    constant_mass : bool
        Information only (reports, benchmarks): solvers never branch on it.
    factor_cost_iterations : float or None
        Optional: the cost of factorizing the iteration matrix in Newton iterations, for
        implementations whose force evaluations cost what operation counts cannot see
        (None: estimated from counts, :mod:`fem.solvers.factor_cost`).
    """

    n: int
    m: int
    q0: np.ndarray
    labels: list
    has_elastic: bool
    has_damping: bool = False
    constant_mass: bool = True
    factor_cost_iterations: float | None = None

    # ---------------------------------------------------------------- forces
    @abstractmethod
    def internal_forces(self, q, v=None, tangent: bool = False):
        """``(f_int (n,), kvals or None)``: elastic (and configuration-dependent weight)
        forces, their tangent values for :meth:`stiffness`/:meth:`saddle`."""

    @abstractmethod
    def external_forces(self, t: float = 0.0, q=None) -> np.ndarray:
        """Applied loads ``f_ext (n,)`` at ``t``."""

    @abstractmethod
    def damping_force(self, v) -> np.ndarray:
        """``C q̇`` (n,)."""

    @abstractmethod
    def inertia_forces(self, q, v, a, tangent: bool = False):
        """``(M(q) a + f_qv(q, q̇), inertia tangent or None)``; the tangent (opaque) goes
        to :meth:`saddle` as ``inertia``."""

    @abstractmethod
    def mass_matrix(self, q=None):
        """``M(q)`` (dense or sparse n × n)."""

    @abstractmethod
    def stiffness(self, kvals, hvals=None):
        """``K + Σλ Φ_qq`` (n × n) from tangent and Hessian values."""

    @abstractmethod
    def saddle(self, cM: float, cK: float, kvals, hvals, jvals, cJ: float = 1.0, q=None,
               cC: float = 0.0, inertia=None):
        """``[[cM M + cC C_v + cK (K + H + K_q), cJ Wᵀ], [cJ Φ_q, 0]]``: the iteration
        matrix of every Newton loop (statics: ``cM = 0``)."""

    @abstractmethod
    def zero_tangent(self):
        """Zero ``(kvals, hvals)`` of the right sizes."""

    # ------------------------------------------------------------ constraints
    @abstractmethod
    def phi(self, q, t: float = 0.0) -> np.ndarray:
        """``Φ(q, t)`` (m,)."""

    @abstractmethod
    def constraint_state(self, q, t: float = 0.0):
        """``(Φ, jvals)`` in one pass."""

    @abstractmethod
    def phi_t(self, q, t: float = 0.0) -> np.ndarray:
        """``∂Φ/∂t``."""

    @abstractmethod
    def jacobian_values(self, q, t: float = 0.0):
        """``Φ_q`` values (``jvals``)."""

    @abstractmethod
    def jacobian(self, q, t: float = 0.0):
        """``Φ_q`` as a sparse (m × n) matrix."""

    @abstractmethod
    def j_dot(self, jvals, x) -> np.ndarray:
        """``Φ_q x`` from Jacobian values."""

    @abstractmethod
    def gamma(self, q, v, t: float = 0.0) -> np.ndarray:
        """``γ`` with ``Φ_q q̈ = γ``."""

    @abstractmethod
    def reaction(self, jvals, lam, q) -> np.ndarray:
        """``Σ λᵢ wᵢ`` (n,)."""

    @abstractmethod
    def hessian_values(self, lam, q=None):
        """``Σ λᵢ Φᵢ,qq`` values (``hvals``)."""

    @abstractmethod
    def check_rank(self, q=None, t: float = 0.0, tol: float = 1e-9) -> None:
        """Raise :class:`fem.ModelError` naming redundant rows."""

    @abstractmethod
    def efforts(self, lam) -> dict:
        """Actuator efforts by name from a multiplier vector."""

    # --------------------------------------------------------------- reports
    @abstractmethod
    def dof_label(self, dof: int) -> str:
        """A readable name of a coordinate."""

    @abstractmethod
    def energy(self, q, v) -> dict:
        """``kinetic_J``, ``potential_J``, ``elastic_J``, ``total_J``."""

    def constant_structure(self) -> ConstantStructure | None:
        """The constant matrices when mass, damping and the constraint Jacobian do not
        depend on ``q`` and the constraints are linear (:class:`ConstantStructure`), for
        solvers' fused fast path; None (the default) where they do."""
        return None

    def parts_of(self, dofs) -> list[str]:
        """Names of the parts (element groups, bodies) that own any of ``dofs``."""
        return []

    def coupling(self) -> tuple[np.ndarray, np.ndarray]:
        """Pairs of coordinates joined by a part (not by constraints), for the loose-part
        diagnosis."""
        return np.zeros(0, np.int64), np.zeros(0, np.int64)

    def rotating_parts(self) -> list:
        """``(dofs (n_el, n_dof), translation pattern)`` of elastic parts made of
        3-vectors, for the co-rotated reuse of factorizations
        (:mod:`fem.solvers.corotation`); empty where it does not apply."""
        return []

    def translation_patterns(self) -> np.ndarray:
        """(n, 3): the coordinates a rigid translation along x, y, z moves."""
        return np.zeros((self.n, 3))


def conforms(system) -> list[str]:
    """Names of the contract a system does not provide (empty: it conforms)."""
    names = [k for k, v in vars(System).items()
             if callable(v) and not k.startswith("_")]
    missing = [k for k in names if not callable(getattr(system, k, None))]
    missing += [k for k in ("n", "m", "q0", "labels", "has_elastic", "has_damping")
                if not hasattr(system, k)]
    return missing
