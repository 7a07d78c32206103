"""Points and directions nonlinear in the coordinates.

A :class:`~fem.LinearMap` is ``x = C q[dofs] + x₀``; the points of a floating-frame body
(:mod:`fem.bodies`) are not: ``r = r₀ + R p(x; e)`` multiplies the frame by the elastic
centre line.  A :class:`PointMap` is any smooth 3-vector ``x(q[dofs])`` that gives its
value, Jacobian ``J = ∂x/∂q`` (3, k) and second derivatives ``H = ∂²x/∂q∂q`` (3, k, k).
With them every constraint of :mod:`fem.constraints` keeps its analytic Jacobian,
Hessian and acceleration term ``γ`` (``ẍ = J q̈ + q̇ᵀ H q̇``).

Maps combine: ``a ± b``, ``s * a`` and ``-a`` of point maps and linear maps give a
:class:`MapSum` (a point map).  :func:`evaluate` evaluates either kind.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import ModelError
from ..core.validate import shown
from .linear_map import LinearMap

__all__ = ["PointMap", "MapSum", "CrossMap", "evaluate", "is_nonlinear", "point_map"]


class PointMap:
    """A 3-vector ``x(q[dofs])`` nonlinear in the coordinates (abstract).

    Subclasses set ``dofs`` (k,) global coordinate indices and ``label``, and implement
    :meth:`evaluate`.  A map whose second derivatives do not depend on ``q`` (bilinear in
    its coordinates) sets ``constant_hessian = True``: sums of such maps then build their
    ``H`` once.
    """

    dofs: np.ndarray
    label: str = "?"
    constant_hessian: bool = False
    body = None
    """The nonlinear body (:mod:`fem.bodies`) the point is a point of, or None."""

    def evaluate(self, q: np.ndarray, second: bool = False):
        """``(x (3,), J (3, k), H (3, k, k) or None)`` at the global coordinates ``q``."""
        raise NotImplementedError

    def __call__(self, q: np.ndarray) -> np.ndarray:
        return self.evaluate(q)[0]

    def second_pattern(self) -> np.ndarray | None:
        """Where the second derivatives ``H`` (3, k, k) can be nonzero (a boolean mask of
        that shape, the same at every ``q``), or None (anywhere, the default): entries
        outside it are left out of ``λ·Φ_qq`` (:mod:`fem.constraints.general`)."""
        return None

    def second_source(self) -> tuple | None:
        """Where the second derivatives are found when a batch forms them for several
        maps at once: ``(key, get, index)`` — ``get(q)`` a flat array (maps with the same
        ``key`` share it) and ``index`` (3, k, k) where each entry of this map's ``H`` is
        in it (−1: zero at every ``q``); or None (the default: :meth:`evaluate` gives
        ``H`` on its own, dense)."""
        return None

    def bilinear_form(self, component: int):
        """The map's ``component`` as ``lin(q)[component] + Σ a(q)·b(q)`` with linear maps
        ``lin`` (or None) and pairs ``(a, b)`` of linear 3-vector maps, when the map
        declares itself bilinear in its coordinates; None (the default) otherwise.  A
        constraint row on such a map keeps the compiled quadratic form of
        :mod:`fem.constraints` instead of becoming a general row."""
        return None

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        """``∂x/∂q[dofs]`` (3, k)."""
        return self.evaluate(q)[1]

    def acceleration_term(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``J̇ q̇ = q̇ᵀ H q̇`` (3,), so that ``ẍ = J q̈ + J̇ q̇``."""
        _, _, H = self.evaluate(q, second=True)
        vl = v[self.dofs]
        return np.einsum("ijk,j,k->i", H, vl, vl)

    # ---- arithmetic: sums of maps
    def _terms(self):
        return [(1.0, self)]

    def __add__(self, other):
        return MapSum(_terms(self) + _terms(other), f"({self.label} + {_label(other)})")

    def __radd__(self, other):
        return MapSum(_terms(other) + _terms(self), f"({_label(other)} + {self.label})")

    def __sub__(self, other):
        return MapSum(_terms(self) + [(-c, m) for c, m in _terms(other)],
                      f"({self.label} - {_label(other)})")

    def __rsub__(self, other):
        return MapSum(_terms(other) + [(-c, m) for c, m in _terms(self)],
                      f"({_label(other)} - {self.label})")

    def __mul__(self, s: float):
        return MapSum([(float(s) * c, m) for c, m in _terms(self)], f"{s}*{self.label}")

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1.0

    def named(self, label: str):
        return MapSum(_terms(self), label)


def _label(m) -> str:
    return getattr(m, "label", "?")


def _terms(m) -> list:
    if isinstance(m, MapSum):
        return list(m.terms)
    if isinstance(m, PointMap | LinearMap):
        return [(1.0, m)]
    raise TypeError(f"cannot combine a point map with {type(m).__name__}")


def is_nonlinear(m) -> bool:
    """True for a :class:`PointMap` (a map whose second derivatives do not vanish)."""
    return isinstance(m, PointMap)


class MapSum(PointMap):
    """``Σ cᵢ mᵢ(q)`` of point maps and linear maps."""

    def __init__(self, terms, label: str = "?"):
        self.terms = [(float(c), m) for c, m in terms]
        self.dofs = np.unique(np.concatenate(
            [np.asarray(m.dofs, np.int64) for _, m in self.terms])).astype(np.int64)
        self._cols = [np.searchsorted(self.dofs, m.dofs) for _, m in self.terms]
        self.label = label
        self.constant_hessian = all(isinstance(m, LinearMap) or m.constant_hessian
                                    for _, m in self.terms)
        self._H = None
        # the value and Jacobian without second derivatives (the constraint rows' every
        # iteration): the linear terms folded into one matrix and offset once, the
        # point maps added on (whole when they span every coordinate of the sum)
        k = self.dofs.size
        lin, off, nonlin = np.zeros((3, k)), np.zeros(3), []
        for (c, m), cols in zip(self.terms, self._cols, strict=True):
            if isinstance(m, LinearMap):
                lin[:, cols] += c * m.coef
                off += c * m.offset
            else:
                whole = cols.size == k and bool(np.all(cols == np.arange(k)))
                nonlin.append((c, m, None if whole else cols))
        self._first = (lin, off, nonlin)

    def _evaluate_first(self, q: np.ndarray):
        """``(x, J, None)``: :meth:`evaluate` without second derivatives."""
        lin, off, nonlin = self._first
        x = lin @ q[self.dofs] + off
        J = lin.copy()
        for c, m, cols in nonlin:
            xm, Jm, _ = m.evaluate(q, False)
            x += c * xm
            if cols is None:
                J += c * Jm
            else:
                J[:, cols] += c * Jm
        return x, J, None

    def bilinear_form(self, component: int):
        lin, pairs = None, []
        for c, m in self.terms:
            if isinstance(m, LinearMap):
                part, more = m, []
            else:
                form = m.bilinear_form(component)
                if form is None:
                    return None
                part, more = form
            if part is not None:
                lin = c * part if lin is None else lin + c * part
            pairs += [(c * a, b) for a, b in more]
        return lin, pairs

    def evaluate(self, q: np.ndarray, second: bool = False):
        if not second:
            return self._evaluate_first(q)
        k = self.dofs.size
        x = np.zeros(3)
        J = np.zeros((3, k))
        cached = self._H is not None
        build = second and not cached
        H = np.zeros((3, k, k)) if build else None
        for (c, m), cols in zip(self.terms, self._cols, strict=True):
            if isinstance(m, LinearMap):
                x += c * m(q)
                J[:, cols] += c * m.coef
                continue
            xm, Jm, Hm = m.evaluate(q, build)
            x += c * xm
            J[:, cols] += c * Jm
            if build:
                H[:, cols[:, None], cols[None, :]] += c * Hm
        if build and self.constant_hessian:
            H.setflags(write=False)
            self._H = H
        if second and cached:
            H = self._H
        return x, J, H


_EPS = np.zeros((3, 3, 3))
_EPS[0, 1, 2] = _EPS[1, 2, 0] = _EPS[2, 0, 1] = 1.0
_EPS[0, 2, 1] = _EPS[2, 1, 0] = _EPS[1, 0, 2] = -1.0


class CrossMap(PointMap):
    """``a(q) × b(q)`` of two linear maps (bilinear: constant second derivatives) — e.g.
    the normal of an ANCF beam's section, ``r_y × r_z``, which turns with the section
    rather than with the centre line's slope."""

    constant_hessian = True

    def __init__(self, a: LinearMap, b: LinearMap, label: str | None = None):
        self.a, self.b = a, b
        self.dofs = np.unique(np.concatenate([a.dofs, b.dofs])).astype(np.int64)
        self._ca = np.searchsorted(self.dofs, a.dofs)
        self._cb = np.searchsorted(self.dofs, b.dofs)
        self.label = label or f"({a.label} × {b.label})"
        k = self.dofs.size
        A = np.zeros((3, k))
        B = np.zeros((3, k))
        A[:, self._ca] = a.coef
        B[:, self._cb] = b.coef
        # x_i = ε_ijk a_j b_k:  H_i = ε_ijk (A_jᵀ B_k + B_kᵀ A_j)
        H = np.einsum("ijk,jm,kn->imn", _EPS, A, B)
        self._H = H + np.swapaxes(H, 1, 2)
        self._H.setflags(write=False)

    def evaluate(self, q: np.ndarray, second: bool = False):
        a, b = self.a(q), self.b(q)
        k = self.dofs.size
        J = np.zeros((3, k))
        # d(a × b) = da × b + a × db = −[b]× da + [a]× db
        J[:, self._ca] += -_skew(b) @ self.a.coef
        J[:, self._cb] += _skew(a) @ self.b.coef
        return _cross(a, b), J, (self._H if second else None)

    def bilinear_form(self, component: int):
        # (a × b)_i = a · (M_i b), (M_i)_jk = ε_ijk
        M = _EPS[component]
        mb = LinearMap(self.b.dofs, M @ self.b.coef, M @ self.b.offset, label=self.b.label)
        return None, [(self.a, mb)]


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a × b`` of two 3-vectors: the products and differences of :func:`numpy.cross`
    (the same numbers, bit for bit) without its axis handling, which cost 20 times the
    arithmetic (a third of a CrossMap's evaluation, every constraint row of a robot's
    beam links every iteration)."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


def _skew(x: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def evaluate(m, q: np.ndarray, second: bool = False):
    """``(x, J, H)`` of a :class:`PointMap` or a :class:`~fem.LinearMap` (``H`` zero)."""
    if isinstance(m, LinearMap):
        k = m.dofs.size
        return m(q), m.coef, (np.zeros((3, k, k)) if second else None)
    return m.evaluate(q, second)


def point_map(value, what: str):
    """A point or vector of the model: a :class:`fem.LinearMap` (``model.point(node)``,
    ``body.point(x)``, ``fem.constant(x)``) or a floating frame's point map — the argument
    rule of :mod:`fem.core.validate` for points."""
    if isinstance(value, LinearMap | PointMap) or is_nonlinear(value):
        return value
    hint = (" — for a fixed point or direction write fem.constant(x)"
            if isinstance(value, list | tuple | np.ndarray) else "")
    raise ModelError(f"{what} must be a point or vector of the model, a fem.LinearMap "
                     f"(model.point(node), body.point(x), fem.constant(x)); got "
                     f"{shown(value)}{hint}")
