"""Constraint library.

Every constraint row of the framework has the form

    Φᵢ(q, t) = (Aᵢ q + αᵢ)·(Bᵢ q + βᵢ) + Gᵢ q + cᵢ + hᵢ(t)

with ``Aᵢ q + αᵢ`` and ``Bᵢ q + βᵢ`` 3-vectors linear in ``q`` (:class:`~fem.LinearMap`).
Joints between natural-coordinate bodies and ANCF elements, rigidity conditions,
inter-element continuity and prescribed motions are all of this form, because positions
and gradients are linear in the coordinates.  Hence, analytically and for every row:

    Φ_q   = Aᵀ b + Bᵀ a + G          (a = A q + α, b = B q + β)
    Φ_qq  = AᵀB + BᵀA                (constant)
    Φ_t   = h′(t),  Φ_tt = h″(t)
    γ     = −(Φ_q q̇)_q q̇ − 2Φ_qt q̇ − Φ_tt = −2 (A q̇)·(B q̇) − h″(t)

so the acceleration right-hand side and the Hessian-vector products need no special code.

A point or direction of a floating-frame body is a :class:`~fem.maps.point_maps.PointMap`
(nonlinear in ``q``).  Every constraint accepts one: a row that involves a point map is a
*general* row ``Φᵢ = Σ a(q)·b(q, t) + cᵢ + hᵢ(t)`` whose Jacobian ``J_aᵀb + J_bᵀa``,
Hessian ``Σ_c (b_c H_a,c + a_c H_b,c) + J_aᵀJ_b + J_bᵀJ_a`` and acceleration term
``γ = −(q̇ᵀH_a q̇·b + 2 (J_a q̇)·(J_b q̇) + a·q̇ᵀH_b q̇) − …`` come from the maps' own
derivatives (:func:`fem.maps.point_maps.evaluate`).  Rows of linear maps keep the compiled
quadratic form.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..core.errors import ModelError
from ..core.lazy import lazy_exports
from ..core.validate import direction, finite, function, indices, positive, vector3
from ..maps.linear_map import LinearMap, constant
from ..maps.point_maps import is_nonlinear, point_map

__all__ = [
    "Constraint", "ConstraintRows", "Coincident", "Distance", "Dot", "Fixed", "Linear",
    "PrescribedPoint", "PrescribedCoordinates", "AngleDrive", "DistanceDrive", "Motion",
    "motion_values",
]

Motion = Callable[[float], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""A prescribed motion: ``f(t) -> (x, ẋ, ẍ)``, each an array with one value per row."""


@dataclass
class ConstraintRows:
    """The rows of one constraint in the common quadratic form (see module docstring)."""

    n: int
    labels: list[str]
    c: np.ndarray
    G: sp.coo_matrix | None = None                       # (n, n_dof)
    bilinear: list[tuple[int, LinearMap, LinearMap]] = field(default_factory=list)
    motion: Motion | None = None                         # h(t) = -x(t)
    motion_rows: np.ndarray | None = None                # rows the motion acts on
    # rows (A q + α)·β(t) whose second vector is a prescribed direction:
    # beta_motion(t) -> (β, β̇, β̈), each (k, 3), for the bilinear entries beta_rows
    beta_motion: Callable[[float], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
    beta_rows: np.ndarray | None = None
    # general rows (point maps, fem.maps.point_maps): (local_row, a, b) adds a(q)·b(q) to the
    # row; b None: the row's prescribed direction β(t) of beta_motion (in beta_rows order)
    general: list[tuple[int, object, object | None]] = field(default_factory=list)


class Constraint:
    """Base class: a named group of constraint rows."""

    kind = "constraint"
    servo = False   # rows whose reaction is supplied by actuators (inverse dynamics)

    def __init__(self, name: str | None = None):
        if name is not None and not isinstance(name, str):
            raise ModelError(f"{type(self).__name__}: name must be a str; got {name!r:.80}")
        self.name = name or self.kind

    def rows(self, q0: np.ndarray, n_dof: int) -> ConstraintRows:
        raise NotImplementedError

    def coordinates_used(self) -> np.ndarray:
        """The global coordinates the constraint refers to (for :meth:`check`)."""
        used = [np.asarray(getattr(m, "dofs", ()), np.int64).ravel()
                for m in vars(self).values() if isinstance(m, LinearMap) or is_nonlinear(m)]
        used += [np.asarray(d, np.int64).ravel() for k, d in vars(self).items()
                 if k == "dofs"]
        return np.concatenate(used) if used else np.zeros(0, np.int64)

    def check(self, model) -> None:
        """Refuse a constraint that refers to coordinates the model does not have (a point
        of another model, a coordinate index beyond ``model.n_dof``)."""
        used = self.coordinates_used()
        bad = used[(used < 0) | (used >= model.n_dof)]
        if bad.size:
            raise ModelError(f"constraint {self.name!r} refers to coordinates "
                             f"{np.unique(bad)[:8].tolist()} that model {model.name!r} does "
                             f"not have (it has {model.n_dof}: 0..{model.n_dof - 1}); a point "
                             f"of another model?")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    def _relate(self, a: LinearMap, b: LinearMap, name: str | None,
                roles: tuple[str, str] = ("p1", "p2")) -> None:
        """Check the two maps a constraint relates (``roles`` name them in a message) and
        take its name, ``kind(a, b)`` unless one is given."""
        for m, role in zip((a, b), roles, strict=True):
            point_map(m, f"{type(self).__name__}: {role}")
        Constraint.__init__(self, name or f"{self.kind}({a.label}, {b.label})")


_UNIT = [constant(e, f"e_{'xyz'[i]}") for i, e in enumerate(np.eye(3))]


def _components(components, what: str) -> tuple[int, ...]:
    """Components 0, 1, 2 (x, y, z), each at most once."""
    comps = indices(components, f"{what}: components (0: x, 1: y, 2: z)", upper=3,
                    noun="component").ravel()
    if comps.size == 0 or len(set(comps.tolist())) != comps.size:
        raise ModelError(f"{what}: components must be distinct among 0, 1, 2 (x, y, z) and "
                         f"not empty; got {components!r:.80}")
    return tuple(int(c) for c in comps)


def _component_rows(maps, comps, n_dof):
    """Rows ``e_d·m(q)``: ``(G, c, bilinear, general)`` — linear maps in ``G q + c``, point
    maps that declare a bilinear form (:meth:`fem.maps.point_maps.PointMap.bilinear_form`) in
    the quadratic form, other point maps as general rows."""
    if any(is_nonlinear(m) for m in maps):
        forms = [m.bilinear_form(d) if is_nonlinear(m) else (m, [])
                 for m, d in zip(maps, comps, strict=True)]
        if any(f is None for f in forms):
            general = [(i, m, _UNIT[d]) for i, (m, d) in enumerate(zip(maps, comps,
                                                                       strict=True))]
            return None, np.zeros(len(general)), [], general
        lins = [lin if lin is not None else constant(np.zeros(3)) for lin, _ in forms]
        G, c = _linear_rows(lins, comps, n_dof)
        bilinear = [(i, a, b) for i, (_, pairs) in enumerate(forms) for a, b in pairs]
        return G, c, bilinear, []
    G, c = _linear_rows(maps, comps, n_dof)
    return G, c, [], []


def _linear_rows(maps: Sequence[LinearMap], comps: Sequence[int], n_dof: int):
    rows, cols, vals, c = [], [], [], []
    for i, (m, d) in enumerate(zip(maps, comps, strict=True)):
        rows.append(np.full(len(m.dofs), i))
        cols.append(m.dofs)
        vals.append(m.coef[d])
        c.append(m.offset[d])
    n = len(c)
    G = sp.coo_matrix((np.concatenate(vals) if vals else np.zeros(0),
                       (np.concatenate(rows) if rows else np.zeros(0, int),
                        np.concatenate(cols) if cols else np.zeros(0, int))), shape=(n, n_dof))
    return G, np.asarray(c, dtype=float)


class Coincident(Constraint):
    """Two points coincide (3 rows): ``p₁(q) − p₂(q) = 0``.  A spherical joint."""

    kind = "coincident"

    def __init__(self, p1: LinearMap, p2: LinearMap, name: str | None = None,
                 components: Sequence[int] = (0, 1, 2)):
        self._relate(p1, p2, name)
        self.d = p1 - p2
        self.components = _components(components, f"constraint {self.name!r}")
        # the fixed point a point is pinned to (a pivot, a base joint), for the drawing
        fixed = [m.offset for m in (p1, p2)
                 if isinstance(m, LinearMap) and not np.any(m.coef)]
        self.ground_point = (np.array(fixed[0], float) if len(fixed) == 1
                             and len(self.components) == 3 else None)

    def rows(self, q0, n_dof):
        G, c, bil, gen = _component_rows([self.d] * len(self.components), self.components,
                                         n_dof)
        xyz = "xyz"
        return ConstraintRows(len(c), [f"{self.name} [{xyz[k]}]" for k in self.components], c, G,
                              bilinear=bil, general=gen)


class Distance(Constraint):
    """Distance between two points is constant: ``|p₁ − p₂|² − L² = 0``.

    ``length=None`` takes the distance in the reference configuration.
    """

    kind = "distance"

    def __init__(self, p1: LinearMap, p2: LinearMap, length: float | None = None,
                 name: str | None = None):
        self._relate(p1, p2, name)
        self.d = p1 - p2
        # a negative length would be solved as its absolute value: refused, not squared
        self.length = None if length is None else positive(
            length, f"constraint {self.name!r}: length", "m")

    def rows(self, q0, n_dof):
        L2 = float(self.d(q0) @ self.d(q0)) if self.length is None else self.length**2
        if L2 <= 0:
            raise ModelError(f"constraint {self.name!r}: distance must be > 0 "
                             "(the two points coincide in the reference configuration; "
                             "use Coincident instead)")
        if is_nonlinear(self.d):
            return ConstraintRows(1, [self.name], np.array([-L2]),
                                  general=[(0, self.d, self.d)])
        return ConstraintRows(1, [self.name], np.array([-L2]), bilinear=[(0, self.d, self.d)])


class DistanceDrive(Constraint):
    """Length drive: the distance between two points follows ``length(t)`` (a hydraulic
    cylinder, a linear actuator between two pins): ``|p₁ − p₂|² − L(t)² = 0``.

    ``length(t)`` returns ``(L, L̇, L̈)`` (scalars, L > 0).  The row's prescribed value is
    ``L²`` with rates ``2 L L̇`` and ``2 (L̇² + L L̈)``.  The reaction on ``p₁`` is
    ``−2 λ (p₁ − p₂)``, so the actuator's pushing force is ``−2 λ L`` (:meth:`force`).
    """

    kind = "distance_drive"

    def __init__(self, p1: LinearMap, p2: LinearMap,
                 length: Callable[[float], tuple[float, float, float]],
                 name: str | None = None):
        self._relate(p1, p2, name)
        self.d = p1 - p2
        self.length = function(length, f"constraint {self.name!r}: length (t -> (L, L̇, L̈))")

    def force(self, lam: np.ndarray, q: np.ndarray) -> np.ndarray:
        """The actuator's pushing force [N] (positive: it pushes the points apart) from the
        row's multiplier(s) ``lam`` at ``q``."""
        return -2.0 * np.asarray(lam) * np.linalg.norm(self.d(q))

    def rows(self, q0, n_dof):
        def h(t):
            L, Ld, Ldd = motion_values(self.length, t, None, self.name)
            if not L > 0:
                raise ModelError(f"constraint {self.name!r}: length({t:g} s) = {L:g} m; a "
                                 "length drive needs a positive length")
            return (np.array([L * L]), np.array([2.0 * L * Ld]),
                    np.array([2.0 * (Ld * Ld + L * Ldd)]))

        if is_nonlinear(self.d):
            return ConstraintRows(1, [self.name], np.zeros(1), general=[(0, self.d, self.d)],
                                  motion=h, motion_rows=np.array([0]))
        return ConstraintRows(1, [self.name], np.zeros(1), bilinear=[(0, self.d, self.d)],
                              motion=h, motion_rows=np.array([0]))


class Dot(Constraint):
    """Dot product of two vectors is constant: ``v₁·v₂ − c = 0``.

    ``value=None`` takes the reference value (0 for vectors perpendicular there).
    Either vector may be constant (a fixed direction in space).
    """

    kind = "dot"

    def __init__(self, v1: LinearMap, v2: LinearMap, value: float | None = None,
                 name: str | None = None):
        self._relate(v1, v2, name, ("v1", "v2"))
        self.v1, self.v2 = v1, v2
        self.value = None if value is None else finite(value, f"constraint {self.name!r}: "
                                                               "value")

    def rows(self, q0, n_dof):
        val = float(self.v1(q0) @ self.v2(q0)) if self.value is None else float(self.value)
        if is_nonlinear(self.v1) or is_nonlinear(self.v2):
            return ConstraintRows(1, [self.name], np.array([-val]),
                                  general=[(0, self.v1, self.v2)])
        if len(self.v1.dofs) == 0 or len(self.v2.dofs) == 0:
            # one side constant: the row is linear, G = aᵀ C_b (+ ...)
            const, var = (self.v1, self.v2) if len(self.v1.dofs) == 0 else (self.v2, self.v1)
            w = const.offset
            G = sp.coo_matrix((w @ var.coef, (np.zeros(len(var.dofs), int), var.dofs)),
                              shape=(1, n_dof))
            return ConstraintRows(1, [self.name], np.array([w @ var.offset - val]), G)
        return ConstraintRows(1, [self.name], np.array([-val]), bilinear=[(0, self.v1, self.v2)])


class Fixed(Constraint):
    """Coordinates keep their reference values: ``q_i − q_i⁰ = 0``."""

    kind = "fixed"

    def __init__(self, dofs: Sequence[int] | np.ndarray, name: str | None = None,
                 values: np.ndarray | None = None, labels: Sequence[str] | None = None):
        super().__init__(name or "fixed")
        self.dofs = indices(dofs, f"constraint {self.name!r}: dofs", noun="coordinate "
                            "index").ravel()
        if self.dofs.size == 0:
            raise ModelError(f"constraint {self.name!r}: no coordinates to fix (dofs is empty)")
        if values is not None:
            from ..core.validate import coordinates

            values = coordinates(values, self.dofs.size, f"constraint {self.name!r}: values")
        self.values = values
        self.labels = list(labels) if labels is not None else None
        if self.labels is not None and len(self.labels) != self.dofs.size:
            raise ModelError(f"constraint {self.name!r}: {len(self.labels)} labels for "
                             f"{self.dofs.size} coordinates")

    def rows(self, q0, n_dof):
        n = len(self.dofs)
        G = sp.coo_matrix((np.ones(n), (np.arange(n), self.dofs)), shape=(n, n_dof))
        vals = q0[self.dofs] if self.values is None else self.values
        labels = self.labels or [f"{self.name} [dof {d}]" for d in self.dofs]
        return ConstraintRows(n, labels, -vals.astype(float), G)


class Linear(Constraint):
    """General linear constraints ``A q = b`` (A: dense or sparse, shape (m, n_dof))."""

    kind = "linear"

    def __init__(self, A, b=None, name: str | None = None, labels: Sequence[str] | None = None):
        super().__init__(name or "linear")
        try:
            self.A = sp.coo_matrix(A, dtype=float)
        except (TypeError, ValueError):
            raise ModelError(f"constraint {self.name!r}: A must be a matrix of numbers "
                             f"(dense or scipy.sparse, rows × model coordinates); got "
                             f"{A!r:.80}") from None
        if self.A.ndim != 2 or not np.all(np.isfinite(self.A.data)):
            raise ModelError(f"constraint {self.name!r}: A must be a 2D matrix of finite "
                             f"numbers; got shape {self.A.shape}")
        if b is None:
            self.b = np.zeros(self.A.shape[0])
        else:
            from ..core.validate import coordinates

            self.b = coordinates(np.ravel(b) if not isinstance(b, str) else b,
                                 self.A.shape[0], f"constraint {self.name!r}: b (one value "
                                 "per row of A)")
        self.labels = labels

    def rows(self, q0, n_dof):
        if self.A.shape[1] > n_dof:
            raise ModelError(f"constraint {self.name!r}: matrix has {self.A.shape[1]} columns, "
                             f"the model has {n_dof} coordinates")
        if self.A.shape[1] < n_dof:     # coordinates added to the model later
            self.A = sp.coo_matrix((self.A.data, (self.A.row, self.A.col)),
                                   shape=(self.A.shape[0], n_dof))
        m = self.A.shape[0]
        labels = list(self.labels) if self.labels else [f"{self.name} [{i}]" for i in range(m)]
        return ConstraintRows(m, labels, -self.b, self.A)


class PrescribedPoint(Constraint):
    """A point follows a trajectory: ``p(q)_k − x_k(t) = 0`` for the chosen components.

    ``motion(t)`` returns ``(x, ẋ, ẍ)`` with 3 values each (all components).
    ``servo=True`` makes it a trajectory constraint of inverse dynamics: its rows carry
    no reaction; the model's actuators (one per row, in order) supply it.
    """

    kind = "prescribed_point"

    def __init__(self, p: LinearMap, motion: Motion, components: Sequence[int] = (0, 1, 2),
                 name: str | None = None, servo: bool = False):
        point_map(p, "PrescribedPoint: p")
        super().__init__(name or f"path({p.label})")
        self.p = p
        self.motion = function(motion, f"constraint {self.name!r}: motion (t -> (x, ẋ, ẍ))")
        self.components = _components(components, f"constraint {self.name!r}")
        self.servo = bool(servo)

    def rows(self, q0, n_dof):
        G, c, bil, gen = _component_rows([self.p] * len(self.components), self.components,
                                         n_dof)
        comps = list(self.components)

        def h(t):
            x, xd, xdd = motion_values(self.motion, t, 3, self.name)
            return x[comps], xd[comps], xdd[comps]

        def at_times(times):
            """``h`` at every time of ``times`` ((n, k) arrays, row i as ``h(times[i])``)
            where the motion has the same at once (``at_times``, the paths of
            :mod:`fem.model.trajectory`) and gives finite values; None otherwise (then
            ``h`` per time, whose checks name what is wrong)."""
            batch = getattr(self.motion, "at_times", None)
            if batch is None:
                return None
            n = len(times)
            out = batch(times)
            if not (isinstance(out, tuple) and len(out) == 3 and all(
                    type(x) is np.ndarray and x.dtype == np.float64 and x.shape == (n, 3)
                    for x in out) and all(np.isfinite(x).all() for x in out)):
                return None
            return tuple(x[:, comps] for x in out)

        h.at_times = at_times
        xyz = "xyz"
        return ConstraintRows(len(c), [f"{self.name} [{xyz[k]}]" for k in comps], c, G,
                              bilinear=bil, motion=h, motion_rows=np.arange(len(c)),
                              general=gen)


class PrescribedCoordinates(Constraint):
    """Coordinates follow given functions: ``q_i − x_i(t) = 0``."""

    kind = "prescribed_coordinates"

    def __init__(self, dofs: Sequence[int], motion: Motion, name: str | None = None):
        super().__init__(name or "drive")
        self.dofs = indices(dofs, f"constraint {self.name!r}: dofs",
                            noun="coordinate index").ravel()
        if self.dofs.size == 0:
            raise ModelError(f"constraint {self.name!r}: no coordinates to drive (dofs is "
                             "empty)")
        self.motion = function(motion, f"constraint {self.name!r}: motion (t -> (x, ẋ, ẍ))")

    def rows(self, q0, n_dof):
        n = len(self.dofs)
        G = sp.coo_matrix((np.ones(n), (np.arange(n), self.dofs)), shape=(n, n_dof))

        def h(t):
            return motion_values(self.motion, t, n, self.name)

        return ConstraintRows(n, [f"{self.name} [dof {d}]" for d in self.dofs], np.zeros(n), G,
                              motion=h, motion_rows=np.arange(n))


class AngleDrive(Constraint):
    """Rotary drive: the arm from ``center`` to ``tip`` turns by ``angle(t)`` about ``axis``.

    With ``d₀`` the arm direction at angle 0 (perpendicular to the axis ``k``) and
    ``e(θ) = −sin θ d₀ + cos θ (k × d₀)`` the in-plane normal of the desired arm direction,
    the single row is ``Φ = (tip − center)·e(θ(t)) = 0``.  The constraint reaction on the
    tip is ``−λ e``, so the driving torque about ``k`` is ``τ = −λ l`` with ``l`` the arm
    length (see :meth:`torque`).  Use it together with the arm's length constraint.

    ``angle(t)`` returns ``(θ, θ̇, θ̈)`` (scalars).  ``servo=True`` makes the row a
    trajectory row of inverse dynamics whose reaction a model actuator supplies (a motor
    that follows a prescribed joint angle: the collocated inverse problem).
    """

    kind = "angle_drive"

    def __init__(self, center: LinearMap, tip: LinearMap, axis, zero_direction,
                 angle: Callable[[float], tuple[float, float, float]], name: str | None = None,
                 servo: bool = False):
        point_map(center, "AngleDrive: center")
        point_map(tip, "AngleDrive: tip")
        super().__init__(name or f"angle_drive({tip.label})")
        # a zero axis would be NaN in every row, later blamed on redundant constraints
        k = direction(axis, f"constraint {self.name!r}: axis")
        d0 = vector3(zero_direction, f"constraint {self.name!r}: zero_direction")
        d0 = d0 - (d0 @ k) * k
        if np.linalg.norm(d0) < 1e-12:
            raise ModelError(f"constraint {self.name!r}: zero_direction is parallel to the axis")
        self.k, self.d0 = k, d0 / np.linalg.norm(d0)
        self.k_x_d0 = np.cross(self.k, self.d0)
        self.arm = tip - center
        self.angle = function(angle, f"constraint {self.name!r}: angle (t -> (θ, θ̇, θ̈))")
        self.length = None
        self.servo = bool(servo)

    def directions(self, theta: float) -> tuple[np.ndarray, np.ndarray]:
        """Arm direction ``d(θ)`` and its in-plane normal ``e(θ)``."""
        c, s = np.cos(theta), np.sin(theta)
        return c * self.d0 + s * self.k_x_d0, -s * self.d0 + c * self.k_x_d0

    def torque(self, lam: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Driving torque about the axis from the row's multiplier(s) ``lam``."""
        return -np.asarray(lam) * np.linalg.norm(self.arm(q))

    def rows(self, q0, n_dof):
        self.length = float(np.linalg.norm(self.arm(q0)))

        def beta(t):
            th, thd, thdd = motion_values(self.angle, t, None, self.name)
            d, e = self.directions(th)
            de = -thd * d
            dde = -thdd * d - thd**2 * e
            return e[None], de[None], dde[None]

        if is_nonlinear(self.arm):
            return ConstraintRows(1, [self.name], np.zeros(1), general=[(0, self.arm, None)],
                                  beta_motion=beta, beta_rows=np.array([0]))
        zero = LinearMap(np.zeros(0, np.int64), np.zeros((3, 0)), np.zeros(3), "e(t)")
        return ConstraintRows(1, [self.name], np.zeros(1), bilinear=[(0, self.arm, zero)],
                              beta_motion=beta, beta_rows=np.array([0]))


def _what(t: float, name: str, owner: str | None) -> str:
    return (f"{owner} at t = {t:g} s" if owner else
            f"constraint {name!r}: its motion function at t = {t:g} s")


def motion_values(motion: Callable, t: float, n: int | None, name: str,
                  owner: str | None = None):
    """``motion(t)`` as three finite float arrays of ``n`` values (scalars for ``n`` None):
    a function of time that returns the wrong thing is named, not a numpy error.
    ``owner``: who calls it, for the message (default: the constraint ``name``)."""
    try:
        out = motion(t)
        x, xd, xdd = out
    except (TypeError, ValueError):
        what = _what(t, name, owner)
        raise ModelError(f"{what} must return (value, rate, acceleration); got "
                         f"{out!r:.80}" if "out" in locals() else
                         f"{what} must return (value, rate, acceleration)") from None
    if n is None and all((type(v) is float or type(v) is np.float64) and math.isfinite(v)
                         for v in (x, xd, xdd)):
        # the usual answer, three finite floats, taken as they are (the checks below cost
        # ten times the motion itself, which runs once a row and Newton iteration)
        return float(x), float(xd), float(xdd)
    if (n is not None and type(x) is np.ndarray and type(xd) is np.ndarray
            and type(xdd) is np.ndarray and x.dtype == xd.dtype == xdd.dtype == np.float64
            and x.size == xd.size == xdd.size == n
            and math.isfinite(x.sum() + xd.sum() + xdd.sum())):
        # the usual vector answer (a path's point): a finite sum has no NaN or inf in it
        return x.reshape(n), xd.reshape(n), xdd.reshape(n)
    what = _what(t, name, owner)
    vals = []
    for label, v in (("value", x), ("rate", xd), ("acceleration", xdd)):
        try:
            a = np.asarray(v, dtype=float)
        except (TypeError, ValueError):
            raise ModelError(f"{what}: the {label} must be numbers; got {v!r:.60}") from None
        if n is None:
            if a.size != 1:
                raise ModelError(f"{what}: the {label} must be one number; got {v!r:.60}")
            a = a.reshape(())
        elif a.size != n:
            raise ModelError(f"{what}: the {label} must have {n} values; got {v!r:.60}")
        else:
            a = a.reshape(n)
        if not np.all(np.isfinite(a)):
            raise ModelError(f"{what}: the {label} is not finite ({v!r:.60})")
        vals.append(a if n is not None else float(a))
    return tuple(vals)

# every module of the package an attribute, imported on first use
__getattr__, __dir__ = lazy_exports(__name__, {})
