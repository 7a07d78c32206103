"""One validation layer for user input.

Every public entry point (model building, sections, solvers, case parameters) checks its
arguments through these functions, so a bad value gets one kind of message — what was
given, what was expected, and for what — as a :class:`~fem.ModelError`, and never a
traceback from deep inside numpy.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence

import numpy as np

from .errors import ModelError

#: The named cameras of renderings (:attr:`fem.Model.view`, :func:`fem.io.render.snapshot`).
CAMERAS = ("iso", "xy", "xz", "yz")

__all__ = ["vector3", "finite", "positive", "nonnegative", "integer", "coordinates",
           "CAMERAS", "FemWarning"]


class FemWarning(UserWarning):
    """Something was done for the user that changes their input (an initial state
    projected onto the constraints, a load step cut): the message says what and by how
    much."""


def _show(value) -> str:
    s = repr(value.tolist() if isinstance(value, np.ndarray) else value)
    return s if len(s) <= 80 else s[:77] + "..."


def vector3(value, what: str) -> np.ndarray:
    """A finite 3-vector ``[x, y, z]``.

    Raises
    ------
    ModelError
        When ``value`` is not three finite numbers (a 2-vector, a string, NaN, …).
    """
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{what} must be a 3-vector [x, y, z] of numbers; got "
                         f"{_show(value)}") from None
    if a.shape != (3,):
        raise ModelError(f"{what} must be a 3-vector [x, y, z]; got {_show(value)} "
                         f"(shape {a.shape})")
    if not np.all(np.isfinite(a)):
        raise ModelError(f"{what} must be finite; got {_show(value)}")
    return a


def finite(value, what: str) -> float:
    """A finite real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ModelError(f"{what} must be a number; got {_show(value)}") from None
    v = float(value)
    if not np.isfinite(v):
        raise ModelError(f"{what} must be finite; got {v}")
    return v


def positive(value, what: str, unit: str = "") -> float:
    """A finite number > 0."""
    v = finite(value, what)
    if v <= 0:
        raise ModelError(f"{what} must be > 0{(' ' + unit) if unit else ''}; got {v:g}")
    return v


def nonnegative(value, what: str, unit: str = "") -> float:
    """A finite number ≥ 0."""
    v = finite(value, what)
    if v < 0:
        raise ModelError(f"{what} must be ≥ 0{(' ' + unit) if unit else ''}; got {v:g}")
    return v


def integer(value, what: str, minimum: int | None = None) -> int:
    """An integer (an integral float such as ``5.0`` is accepted), optionally ≥ ``minimum``."""
    if isinstance(value, bool):
        raise ModelError(f"{what} must be an integer; got {value!r}")
    if isinstance(value, numbers.Integral):
        v = int(value)
    else:
        try:
            f = float(value)
        except (TypeError, ValueError):
            raise ModelError(f"{what} must be an integer; got {_show(value)}") from None
        if not np.isfinite(f) or f != int(f):
            raise ModelError(f"{what} must be an integer; got {_show(value)}")
        v = int(f)
    if minimum is not None and v < minimum:
        raise ModelError(f"{what} must be an integer ≥ {minimum}; got {v}")
    return v


def coordinates(value, n: int, what: str) -> np.ndarray:
    """A finite vector of the model's ``n`` coordinates (a copy)."""
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{what} must be a vector of {n} numbers") from None
    if a.shape != (n,):
        raise ModelError(f"{what} must have the model's {n} coordinates; got shape "
                         f"{a.shape}")
    bad = np.flatnonzero(~np.isfinite(a))
    if bad.size:
        raise ModelError(f"{what} has non-finite values at coordinates "
                         f"{bad[:8].tolist()}{' ...' if bad.size > 8 else ''}")
    return a


def choice(value, options: Sequence[str], what: str) -> str:
    """One of a fixed set of names."""
    if value not in options:
        raise ModelError(f"{what} must be one of {', '.join(map(repr, options))}; "
                         f"got {value!r}")
    return value


def warn(message: str) -> None:
    """Tell the user something was changed for them (a :class:`FemWarning`)."""
    warnings.warn(message, FemWarning, stacklevel=3)
