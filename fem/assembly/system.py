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
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

__all__ = ["ConstantStructure", "ElementForces", "BilinearRows", "Bodies", "ProductRows",
           "ServoRows", "System", "conforms"]


class ElementForces(NamedTuple):
    """The element forces of a :class:`ConstantStructure`: all internal forces of element
    groups come from one group whose family declares a compiled kernel
    (:meth:`fem.elements.ElementFamily.compiled_forces`), or there is none (kind
    ``KIND_NONE``, :func:`fem.elements.kernels.no_group`)."""

    kernel: Callable
    """The compiled entry point :func:`fem.elements.kernels.group_forces`."""
    kind: int
    """Which kernel of ``group_forces`` (:data:`fem.elements.kernels.KIND_NONE`, …)."""
    dofs: np.ndarray
    """(n_el, n_dof) int64: the group's coordinates of every element ((0, 0): none)."""
    arrays3: tuple
    """Four 3-D work arrays of the kernel (the family's data, padded)."""
    arrays2: tuple
    """Four 2-D work arrays of the kernel."""


class BilinearRows(NamedTuple):
    """The bilinear terms of the constraint rows ``Φᵢ = Gᵢ q + cᵢ(t) + Σ (A q + α)·(B q +
    β(t))`` (:mod:`fem.constraints`).  The Jacobian values are the ``A``, ``B``, then
    ``G`` entries, each in CSR order."""

    state: Callable | None
    """The compiled constraint state :func:`fem.constraints.compiled.state_kernel` (None
    without numba)."""
    A: sp.csr_matrix
    """(3 n_bil × n): the first factors' linear parts."""
    alpha: np.ndarray
    """(3 n_bil,): the first factors' offsets."""
    B: sp.csr_matrix
    """(3 n_bil × n): the second factors' linear parts."""
    row: np.ndarray
    """(n_bil,) int64: the constraint row of every bilinear term."""
    beta: Callable[[float], np.ndarray]
    """``t ↦ β(t)`` (3 n_bil,): the second factors' offsets (prescribed directions)."""


class Bodies(NamedTuple):
    """The bodies whose mass depends on ``q``, as data for one compiled entry point;
    no rows: no bodies."""

    terms: Callable | None
    """The compiled entry point :func:`fem.bodies.kernels.body_terms` (None without
    numba)."""
    header: np.ndarray
    """(n_bodies, 8) int64: each body's kind and where its data start
    (:func:`fem.bodies.kernels.pack`)."""
    dofs: np.ndarray
    """int64: the bodies' coordinates, one after another."""
    data: np.ndarray
    """float: the bodies' declarations (inertia invariants, stiffness, loads, …) packed."""
    index: np.ndarray
    """int64: the bodies' integer data (index tables) packed."""


class ProductRows(NamedTuple):
    """Constraint rows that are sums of products of maps quadratic in ``q`` (general rows
    on points of reduced bodies, :meth:`fem.constraints.general.GeneralRows.compiled_form`);
    empty data without such rows (:func:`fem.constraints.compiled.no_products`).  A
    compiled loop needs it."""

    state: Callable | None
    """The rows' values and Jacobian values, compiled
    (:func:`fem.constraints.compiled.product_kernels`; None without numba)."""
    hessian: Callable | None
    """Their Hessian ``Σ λ ∂²Φ/∂q²``, compiled (None without numba)."""
    jrows: np.ndarray
    """int64: the rows of their Jacobian entries (after the ``A``, ``B``, ``G`` entries)."""
    jcols: np.ndarray
    """int64: the columns of their Jacobian entries."""
    pi: np.ndarray
    """The integer data (:func:`fem.constraints.compiled.segments`)."""
    pf: np.ndarray
    """The float data (:func:`fem.constraints.compiled.segments`)."""
    directions: Callable[[float], None] | None
    """``t ↦`` writes the prescribed directions ``β(t)`` into ``pf`` in place (None:
    none)."""


class ServoRows(NamedTuple):
    """Servo rows of inverse dynamics, whose reaction the actuators supply, with
    actuators affine in ``q``: actuator ``k`` on row ``rows[k]`` acts on ``dofs[offsets[k]:
    offsets[k+1]]`` with ``B_k(q) = D_k q[dofs_k] + b_k`` (``D_k`` row-major), its reaction
    ``−B_k(q) λ[rows[k]]``."""

    keep: np.ndarray
    """(m,): 0 on servo rows, 1 elsewhere."""
    si: np.ndarray
    """The integer parts ``(rows, offsets, dofs, D offsets)`` packed by
    :func:`fem.constraints.compiled.segments`."""
    sf: np.ndarray
    """The float parts ``(D, b)`` packed likewise."""


@dataclass(frozen=True)
class ConstantStructure:
    """What a solver needs to evaluate the Newton residual of a system in one compiled
    pass: constant matrices, and the parts that depend on the configuration declared as
    compiled kernels with their data.

    In the plain case mass, damping and constraint Jacobian are constant and the
    constraints linear, ``Φ(q, t) = Φ_q q + c(t)`` (clamps, coordinate couplings,
    prescribed coordinates).  Optional parts extend it, each a small named structure
    defined above: bilinear constraint rows (:class:`BilinearRows`: natural-coordinate
    frames, joints on them, points of reduced bodies), bodies whose mass depends on ``q``
    (:class:`Bodies`: their inertia and forces by a compiled kernel), rows of products of
    quadratic maps (:class:`ProductRows`), servo rows (:class:`ServoRows`) and the
    element forces (:class:`ElementForces`).  A solver may then evaluate ``M(q) q̈ + f +
    C q̇ + Φ_qᵀλ`` and ``Φ`` in one compiled pass (:mod:`fem.solvers.constant_iteration`)
    instead of through the general methods; tangents still come from those.

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
    forces : ElementForces or None
        The element forces by one compiled kernel, so a compiled solver can run whole
        Newton iterations; None otherwise.
    timed : bool
        Whether ``offset`` and ``rate`` depend on time (prescribed motions); False:
        evaluate them once.
    bilinear : BilinearRows or None
    bodies : Bodies or None
    tangents : callable or None
        The compiled entry point of the bodies' part of the iteration matrix,
        :func:`fem.bodies.kernels.body_tangents` (None without numba): with it, and
        ``forces`` (whose kernels give their tangents too), a compiled solver can form
        and factorize the whole iteration matrix of a small system itself.
    products : ProductRows or None
    servo : ServoRows or None
        None: no servo rows.
    terms_at : callable or None
        Optional: ``times ↦ (c (n, m), β (n, 3 n_bil), ċ (n, m), β̇ (n, 3 n_bil))``, the
        rows of ``offset``, ``bilinear.beta`` and ``rate_terms`` at every time of
        ``times`` (n,) to the bit, or None where they cannot be had at once (then per
        time); a compiled solver marching a block of steps takes them in one call.
    """

    mass: sp.csr_matrix
    damping: sp.csr_matrix | None
    jacobian: sp.csr_matrix
    offset: Callable[[float], np.ndarray]
    rate: Callable[[float, np.ndarray], np.ndarray]
    forces: ElementForces | None = None
    timed: bool = True
    bilinear: BilinearRows | None = None
    bodies: Bodies | None = None
    tangents: Callable | None = None
    products: ProductRows | None = None
    servo: ServoRows | None = None
    rate_terms: Callable[[float], tuple] | None = None
    terms_at: Callable[[np.ndarray], tuple | None] | None = None

    @property
    def has_bodies(self) -> bool:
        """Whether bodies add configuration-dependent inertia (``bodies`` not empty)."""
        return self.bodies is not None and self.bodies.header.shape[0] > 0

    @property
    def plain(self) -> bool:
        """Constant mass and Jacobian: no bilinear, product or servo rows, no bodies."""
        return (not self.has_bodies and (self.bilinear is None or self.bilinear.A.nnz == 0)
                and (self.products is None or self.products.jrows.size == 0)
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

    def failure_notes(self, q: np.ndarray) -> list[str]:
        """What the parts can say about a solver's failure at the state ``q`` (the last
        converged one), for the diagnosis; none by default."""
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
