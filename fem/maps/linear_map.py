"""Points and vectors of a model as linear maps of the coordinates.

Every element family in the framework interpolates positions linearly in its
coordinates, so a material point, a nodal gradient, a body axis or the difference of two
points is ``x(q) = C q[dofs] + x₀``: a :class:`LinearMap`.  Constraints and loads are
written in terms of these maps, which gives them exact Jacobians for free.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.errors import ModelError

__all__ = ["LinearMap", "constant"]


@dataclass(frozen=True)
class LinearMap:
    """A 3-vector ``x = coef @ q[dofs] + offset``.

    Attributes
    ----------
    dofs : ndarray of int, shape (k,)
    coef : ndarray, shape (3, k)
    offset : ndarray, shape (3,)
    label : str
        Human-readable name used in error messages ("node 4 r", "body 'crank' point").
    """

    dofs: np.ndarray
    coef: np.ndarray
    offset: np.ndarray = field(default_factory=lambda: np.zeros(3))
    label: str = "?"

    def __post_init__(self) -> None:
        object.__setattr__(self, "dofs", np.asarray(self.dofs, dtype=np.int64).ravel())
        object.__setattr__(self, "coef", np.asarray(self.coef, dtype=float).reshape(3, -1))
        object.__setattr__(self, "offset", np.asarray(self.offset, dtype=float).reshape(3))

    def __call__(self, q: np.ndarray) -> np.ndarray:
        """Value at coordinates ``q`` (global vector)."""
        return self.coef @ q[self.dofs] + self.offset

    def _combine(self, other: LinearMap, sign: float, label: str) -> LinearMap:
        if not isinstance(other, LinearMap):
            return NotImplemented        # a nonlinear map (fem.maps.point_maps) combines itself
        dofs = np.concatenate([self.dofs, other.dofs])
        coef = np.hstack([self.coef, sign * other.coef])
        uniq, inv = np.unique(dofs, return_inverse=True)
        c = np.zeros((3, len(uniq)))
        np.add.at(c, (slice(None), inv), coef)
        return LinearMap(uniq, c, self.offset + sign * other.offset, label)

    def __add__(self, other: LinearMap) -> LinearMap:
        return self._combine(other, 1.0, f"({self.label} + {other.label})")

    def __sub__(self, other: LinearMap) -> LinearMap:
        return self._combine(other, -1.0, f"({self.label} - {other.label})")

    def __mul__(self, s: float) -> LinearMap:
        if isinstance(s, str | bytes | bool | np.bool_) or not isinstance(
                s, int | float | np.integer | np.floating):
            if isinstance(s, LinearMap) or hasattr(s, "jacobian"):
                return NotImplemented   # a map times a map is not linear (a nonlinear map
                #                         may define the product itself)
            raise ModelError(f"{self.label} × {s!r:.40}: a point or vector map is multiplied "
                             "by a number only")
        from ..core.validate import finite

        s = finite(s, f"{self.label} × a number: the number")
        return LinearMap(self.dofs, s * self.coef, s * self.offset, f"{s}*{self.label}")

    __rmul__ = __mul__

    def __neg__(self) -> LinearMap:
        return self * -1.0

    def crossed(self, t) -> LinearMap:
        """``t × x`` for a constant vector ``t`` (still linear in q).

        The cross product of two *moving* vectors is quadratic in q and is not a linear map;
        express such conditions as :class:`~fem.Dot` constraints instead."""
        from ..core.validate import vector3

        if isinstance(t, LinearMap):
            if t.dofs.size:
                raise ModelError(
                    f"LinearMap.crossed: {t.label} × {self.label} is quadratic in the "
                    "coordinates (both vectors move); crossed takes a constant 3-vector. "
                    "Write the condition with Dot constraints instead.")
            t = t.offset
        t = vector3(t, f"LinearMap.crossed({self.label}): the constant vector")
        T = np.array([[0.0, -t[2], t[1]], [t[2], 0.0, -t[0]], [-t[1], t[0], 0.0]])
        return LinearMap(self.dofs, T @ self.coef, T @ self.offset, f"{t.tolist()}×{self.label}")

    def named(self, label: str) -> LinearMap:
        return LinearMap(self.dofs, self.coef, self.offset, label)


def constant(x, label: str | None = None) -> LinearMap:
    """A fixed point or direction in space (depends on no coordinate)."""
    from ..core.validate import vector3

    x = vector3(x, f"constant {label!r}" if label else "constant: the point")
    return LinearMap(np.zeros(0, dtype=np.int64), np.zeros((3, 0)), x,
                     label or f"fixed {x.tolist()}")
