"""The solver contract: the one interface every solver uses.

Every solver of :mod:`fem.solvers` works on one system

    M(q) q̈ + f_int(q, q̇) + C q̇ + Σᵢ λᵢ wᵢ(q) = f_ext(q, t),      Φ(q, t) = 0

(``wᵢ = ∂Φᵢ/∂q``, or an actuator's ``−B(q)`` on a servo row) and reaches it only through
:class:`System`, what ``model.assemble()`` returns: no solver reads a private attribute,
tests a model's class or branches on a family.  A fast path — the constant mass of
element families, the compiled constraint form — lives inside the implementation.

Implementations: :class:`fem.assembly.Assembly` (every element family, the bodies of
:mod:`fem.bodies`, the constraint library) and the minimal-coordinate chains of
:mod:`fem.model.chains`.  A new body kind plugs into the assembly through
:class:`fem.bodies.NonlinearBody` (inertia, mass, forces, energy) and its point maps
(:class:`fem.maps.point_maps.PointMap`); it needs no solver change.

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
    """What a solver needs to evaluate the Newton residual of a system in one compiled
    pass: constant matrices, and the parts that depend on the configuration declared as
    compiled kernels with their data.

    In the plain case mass, damping and constraint Jacobian are constant and the
    constraints linear, ``Φ(q, t) = Φ_q q + c(t)`` (clamps, coordinate couplings,
    prescribed coordinates).  Two optional parts extend it: bilinear constraint rows
    (``bilinear``: natural-coordinate frames, joints on them, points of reduced bodies),
    and bodies whose mass depends on ``q`` (``bodies``: their inertia and forces by a
    compiled kernel).  A solver may then evaluate ``M(q) q̈ + f + C q̇ + Φ_qᵀλ`` and ``Φ``
    in one compiled pass (:mod:`fem.solvers.constant_iteration`) instead of through the
    general methods; tangents still come from those.

    Attributes
    ----------
    mass, damping : scipy.sparse.csr_matrix (n × n)
        The constant ``M`` and ``C`` (``damping`` None without damping); with ``bodies``
        the bodies' inertia adds to ``M q̈``.
    jacobian : scipy.sparse.csr_matrix (m × n)
        The linear part ``G`` of the constraints, ``Φ_q`` without ``bilinear``.
    offset : callable
        ``t ↦ c(t) = Φ(0, t)`` without the bilinear terms (m,).
    rate : callable
        ``(t, q) ↦ ∂Φ/∂t`` (m,).
    rate_terms : callable or None
        Optional: ``t ↦ (ċ(t) (m,), β̇(t) (3 n_bil,))`` where ``∂Φ/∂t = ċ + Σ (A q +
        α)·β̇`` on the bilinear rows (nothing else depends on ``t``), so a compiled
        solver evaluates ``∂Φ/∂t`` at any ``q`` from terms of ``t`` alone; None: only
        ``rate``.
    forces : tuple or None
        When all internal forces of element groups come from one group with a compiled
        kernel (or there is none, kind ``KIND_NONE``): ``(group_forces, kind, dofs,
        arrays3, arrays2)`` — the compiled entry point
        :func:`fem.elements.kernels.group_forces` and its arguments
        (:meth:`fem.elements.ElementFamily.compiled_forces`) — so a compiled solver can
        run whole Newton iterations; None otherwise.
    timed : bool
        Whether ``offset`` and ``rate`` depend on time (prescribed motions); False:
        evaluate them once.
    bilinear : tuple or None
        ``(state, A, α, B, bil_row, β)``: the compiled constraint state of the rows
        ``Φᵢ = Gᵢ q + cᵢ(t) + Σ (A q + α)·(B q + β(t))``
        (:mod:`fem.constraints`), ``state`` the compiled
        :func:`fem.constraints.compiled.state_kernel` (None without numba), ``A``, ``B``
        CSR (3 n_bil × n), ``β`` a callable of ``t``; the Jacobian values are the ``A``,
        ``B``, then ``G`` entries, each in CSR order.
    bodies : tuple or None
        ``(body_terms, header, dofs, data, index)``: the compiled entry point
        :func:`fem.bodies.kernels.body_terms` (None without numba) and the bodies'
        declarations packed by :func:`fem.bodies.kernels.pack` (no rows: no bodies).
    tangents : callable or None
        The compiled entry point of the bodies' part of the iteration matrix,
        :func:`fem.bodies.kernels.body_tangents` (None without numba): with it, and
        ``forces`` (whose kernels give their tangents too), a compiled solver can form
        and factorize the whole iteration matrix of a small system itself.
    products : tuple or None
        ``(state, hessian, jrows, jcols, pi, pf, directions)``: rows that are sums
        of products of maps quadratic in ``q`` (general rows on points of reduced
        bodies), the compiled entry points of
        :func:`fem.constraints.compiled.product_kernels`, their Jacobian pattern (after
        the ``A``, ``B``, ``G`` entries), their data (two arrays,
        :func:`fem.constraints.compiled.segments`) and ``directions(t)``, which writes
        the prescribed directions ``β(t)`` into ``pf`` (None without); empty data without such rows
        (:func:`fem.constraints.compiled.no_products`).  A compiled loop needs it.
    servo : tuple or None
        Servo rows of inverse dynamics, whose reaction the actuators supply, with
        actuators affine in ``q``: ``(keep, si, sf)`` — ``keep`` (m,) 0 on servo rows and
        1 elsewhere; ``si``, ``sf`` packed by :func:`fem.constraints.compiled.segments`
        from the integer parts ``(rows, offsets, dofs, D offsets)`` and the float parts
        ``(D, b)``: actuator ``k`` on row ``rows[k]`` acts on ``dofs[offsets[k]:
        offsets[k+1]]`` with ``B_k(q) = D_k q[dofs_k] + b_k`` (``D_k`` row-major), its
        reaction ``−B_k(q) λ[rows[k]]``.  None: no servo rows.
    """

    mass: sp.csr_matrix
    damping: sp.csr_matrix | None
    jacobian: sp.csr_matrix
    offset: Callable[[float], np.ndarray]
    rate: Callable[[float, np.ndarray], np.ndarray]
    forces: tuple | None = None
    timed: bool = True
    bilinear: tuple | None = None
    bodies: tuple | None = None
    tangents: Callable | None = None
    products: tuple | None = None
    servo: tuple | None = None
    rate_terms: Callable[[float], tuple] | None = None

    @property
    def has_bodies(self) -> bool:
        """Whether bodies add configuration-dependent inertia (``bodies`` not empty)."""
        return self.bodies is not None and self.bodies[1].shape[0] > 0

    @property
    def plain(self) -> bool:
        """Constant mass and Jacobian: no bilinear, product or servo rows, no bodies."""
        return (not self.has_bodies and (self.bilinear is None or self.bilinear[1].nnz == 0)
                and (self.products is None or self.products[2].size == 0)
                and self.servo is None)


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
    constant_loads : bool
        Optional: ``external_forces`` gives the same values at every ``t`` and ``q``
        (gravity, constant point loads), so a solver may evaluate it once for many steps
        (:meth:`fem.solvers.GeneralizedAlpha.advance_steps`).  False (the default): it
        is evaluated at every step.
    """

    n: int
    m: int
    q0: np.ndarray
    labels: list
    has_elastic: bool
    has_damping: bool = False
    constant_mass: bool = True
    factor_cost_iterations: float | None = None
    constant_loads: bool = False

    # ---------------------------------------------------------------- forces
    @abstractmethod
    def internal_forces(self, q, v=None, tangent: bool = False):
        """``(f_int (n,), kvals or None)``: elastic (and configuration-dependent weight)
        forces — with velocities ``v`` also the internal forces that depend on them
        (strain-rate damping) — and their tangent values for
        :meth:`stiffness`/:meth:`saddle` (a velocity tangent goes to :meth:`saddle`'s
        ``cC`` term)."""

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
               cC: float = 0.0, inertia=None, feedback=None):
        """``[[cM M + cC C_v + cK (K + H + K_q), cJ Wᵀ], [cJ Φ_q, 0]]``: the iteration
        matrix of every Newton loop (statics: ``cM = 0``); ``feedback`` the tangent of
        :meth:`feedback_forces` (applied forces: ``−cK ∂f/∂q − cC ∂f/∂q̇``)."""

    # ------------------------------------------------- efforts fed back from the state
    # Optional: a system without controllers keeps these defaults.
    @property
    def has_feedback(self) -> bool:
        """Applied forces that depend on the state through controllers (their efforts
        ``u(t, q, q̇)``): solvers add :meth:`feedback_forces` in every iteration."""
        return False

    def feedback_forces(self, t: float, q, v, tangent: bool = False):
        """``(f (n,), tangent or None)``: the controllers' applied forces and, with
        ``tangent``, ``(∂f/∂q, ∂f/∂q̇)`` values for :meth:`saddle`'s ``feedback``."""
        return np.zeros(self.n), None

    def start_feedback(self, t: float, q, v) -> None:  # noqa: B027 - optional, no-op
        """Reset the controllers' own states (held samples) at a run's start."""

    def sample_feedback(self, t: float, q, v) -> None:  # noqa: B027 - optional, no-op
        """Sampled controllers take their samples at an accepted state."""

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
        """The constant matrices and compiled parts of the residual
        (:class:`ConstantStructure`), for solvers' fused fast path; None (the default)
        where the system cannot declare them."""
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
