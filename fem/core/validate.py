"""One validation layer for user input.

Every public entry point (model building, constraints, sections, solvers, case
parameters, the command line) checks its arguments through these functions, so a bad
value gets one kind of message — which argument, the value given, and what is expected —
as a :class:`~fem.ModelError`, and never a traceback from deep inside numpy.

Three ways in:

* the value rules (:func:`finite`, :func:`positive`, :func:`integer`, :func:`vector`,
  :func:`points`, :func:`rotation`, :func:`indices`, …), called where a value enters (the
  rules of the model's own objects live beside them: :func:`fem.elements.materials.material`,
  :func:`fem.maps.point_maps.point_map`);
* :func:`checked`, a decorator that declares the rule of each argument beside the
  signature (``@checked(mass=nonnegative, position=vector3)``);
* :func:`solver_options`, a decorator that checks every argument whose *name* is a
  known solver option (``tol``, ``constraint_tol``, ``max_iter``, ``rho_inf``, ``dt``,
  ``load_steps``, …, table :data:`SOLVER_OPTIONS`), so tolerances and iteration limits are
  checked for sign and range in every solver the same way.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import os
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .errors import FemWarning, ModelError

#: The named cameras of renderings (:attr:`fem.Model.view`, :func:`fem.io.render.snapshot`).
CAMERAS = ("iso", "xy", "xz", "yz")

__all__ = ["vector3", "vector", "direction", "matrix", "points", "rotation", "indices",
           "finite", "positive", "nonnegative", "in_range", "integer", "boolean", "text",
           "choice", "function", "tolerance", "iterations",
           "coordinates", "optional", "model", "checked", "solver_options", "SOLVER_OPTIONS",
           "CAMERAS", "FemWarning", "warn", "available_memory", "affordable"]

Rule = Callable[[object, str], object]
"""A rule: ``rule(value, what) -> checked value``; raises :class:`ModelError`."""



def shown(value) -> str:
    s = repr(value.tolist() if isinstance(value, np.ndarray) and value.size < 50 else value)
    return s if len(s) <= 80 else s[:77] + "..."


def _float_array(value, what: str, expected: str) -> np.ndarray:
    """``value`` as a float array, or a ModelError saying what was expected."""
    if isinstance(value, str | bytes) or value is None or callable(value):
        raise ModelError(f"{what} must be {expected}; got {shown(value)}")
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{what} must be {expected} of numbers; got {shown(value)}") from None
    if a.dtype != float:     # pragma: no cover - np.array(dtype=float) always gives float
        raise ModelError(f"{what} must be {expected}; got {shown(value)}")
    return a


def _finite_array(a: np.ndarray, what: str, value) -> np.ndarray:
    if not np.all(np.isfinite(a)):
        raise ModelError(f"{what} must be finite; got {shown(value)} (non-finite entries)")
    return a


# ---------------------------------------------------------------------- numbers
def finite(value, what: str) -> float:
    """A finite real number (not a bool, not a string)."""
    if isinstance(value, bool | np.bool_) or isinstance(value, str | bytes):
        raise ModelError(f"{what} must be a number; got {shown(value)}")
    if not isinstance(value, numbers.Real):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ModelError(f"{what} must be a number; got {shown(value)}") from None
    try:
        v = float(value)
    except OverflowError:       # an int beyond float range
        raise ModelError(f"{what} must be finite; got {shown(value)}") from None
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


def in_range(value, what: str, low: float, high: float, *, low_open: bool = False,
             high_open: bool = False, unit: str = "") -> float:
    """A finite number in the interval ``[low, high]`` (``low_open``/``high_open``: ends
    excluded)."""
    v = finite(value, what)
    ok = (v > low if low_open else v >= low) and (v < high if high_open else v <= high)
    if not ok:
        interval = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        raise ModelError(f"{what} must lie in {interval}{(' ' + unit) if unit else ''}; "
                         f"got {v:g}")
    return v


def integer(value, what: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """An integer (an integral float such as ``5.0`` is accepted; ``2.5``, ``inf``, NaN,
    a bool or a string are not), optionally in ``[minimum, maximum]``."""
    if isinstance(value, bool | np.bool_) or isinstance(value, str | bytes):
        raise ModelError(f"{what} must be an integer; got {shown(value)}")
    if isinstance(value, numbers.Integral):
        v = int(value)
    else:
        try:
            f = float(value)
        except (TypeError, ValueError, OverflowError):
            raise ModelError(f"{what} must be an integer; got {shown(value)}") from None
        if not np.isfinite(f) or f != int(f):
            raise ModelError(f"{what} must be an integer; got {shown(value)}")
        v = int(f)
    if minimum is not None and v < minimum:
        raise ModelError(f"{what} must be an integer ≥ {minimum}; got {v}")
    if maximum is not None and v > maximum:
        raise ModelError(f"{what} must be an integer ≤ {maximum}; got {v}")
    return v


def boolean(value, what: str) -> bool:
    """``True`` or ``False`` (``0``/``1`` accepted; a string such as ``"no"`` is not)."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral) and int(value) in (0, 1):
        return bool(value)
    raise ModelError(f"{what} must be True or False; got {shown(value)}")


def text(value, what: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value:
        raise ModelError(f"{what} must be a non-empty str; got {shown(value)}")
    return value


def choice(value, options: Sequence, what: str):
    """One of a fixed set of values (names, or flags such as ``True``/``"auto"``)."""
    def same(a, b) -> bool:
        return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) \
            else a == b

    try:
        ok = any(same(value, o) for o in options)
    except (TypeError, ValueError):    # an array compared with a name
        ok = False
    if not ok:
        raise ModelError(f"{what} must be one of {', '.join(map(repr, options))}; "
                         f"got {shown(value)}")
    return value


def function(value, what: str) -> Callable:
    """Something callable (a function of time, a sensor)."""
    if not callable(value):
        raise ModelError(f"{what} must be a function; got {shown(value)}")
    return value


# ---------------------------------------------------------------------- arrays
def vector(value, what: str, n: int = 3) -> np.ndarray:
    """A finite ``n``-vector (a copy).

    Raises
    ------
    ModelError
        When ``value`` is not ``n`` finite numbers (a 2-vector where a 3-vector belongs,
        a string, NaN, …).
    """
    label = "[x, y, z]" if n == 3 else f"of {n} numbers"
    a = _float_array(value, what, f"a {n}-vector {label}" if n == 3 else f"a vector {label}")
    if a.shape != (n,):
        raise ModelError(f"{what} must be a {n}-vector {label}; got {shown(value)} "
                         f"(shape {a.shape})")
    return _finite_array(a, what, value)


def vector3(value, what: str) -> np.ndarray:
    """A finite 3-vector ``[x, y, z]`` (see :func:`vector`)."""
    return vector(value, what, 3)


def direction(value, what: str) -> np.ndarray:
    """A finite, non-zero 3-vector, returned normalized (an axis, a direction of motion)."""
    a = vector(value, what, 3)
    length = float(np.linalg.norm(a))
    if not length > 1e-300:
        raise ModelError(f"{what} must be a non-zero 3-vector (a direction); got "
                         f"{shown(value)}")
    return a / length


def matrix(value, what: str, shape: tuple[int, ...]) -> np.ndarray:
    """A finite array of the given shape (a copy)."""
    a = _float_array(value, what, f"a {'×'.join(map(str, shape))} array")
    if a.shape != tuple(shape):
        raise ModelError(f"{what} must be a {'×'.join(map(str, shape))} array; got "
                         f"{shown(value)} (shape {a.shape})")
    return _finite_array(a, what, value)


def points(value, what: str, n: int | None = None) -> np.ndarray:
    """Finite points as an ``(n, 3)`` array; a single 3-vector is one point."""
    a = _float_array(value, what, "points [x, y, z] (an (n, 3) array)")
    if a.ndim == 1 and a.shape == (3,):
        a = a[None]
    if a.ndim != 2 or a.shape[1] != 3 or (n is not None and a.shape[0] != n):
        want = f"({n}, 3)" if n is not None else "(n, 3)"
        raise ModelError(f"{what} must be points [x, y, z], an array of shape {want}; got "
                         f"{shown(value)} (shape {a.shape})")
    bad = np.flatnonzero(~np.isfinite(a).all(axis=1))
    if bad.size:
        raise ModelError(f"{what} must be finite; it has non-finite values in rows "
                         f"{bad[:8].tolist()} (e.g. {shown(a[bad[0]])})")
    return a


def rotation(value, what: str, tol: float = 1e-6) -> np.ndarray:
    """A rotation matrix: 3×3, orthonormal columns (``RᵀR = I`` to ``tol``), ``det R = +1``.

    A scaled or sheared matrix would silently scale or shear the body it places.
    """
    R = matrix(value, what, (3, 3))
    err = float(np.abs(R.T @ R - np.eye(3)).max())
    if err > tol:
        raise ModelError(f"{what} must be a rotation matrix (orthonormal columns, RᵀR = I); "
                         f"got {shown(value)} with |RᵀR − I| = {err:.3g}; normalize its "
                         "columns (e.g. scipy.spatial.transform.Rotation)")
    if np.linalg.det(R) < 0:
        raise ModelError(f"{what} must be a rotation matrix with det R = +1 (right-handed "
                         f"axes); got det R = −1, a reflection: {shown(value)}")
    return R


def indices(value, what: str, upper: int | None = None, width: int | None = None,
            *, noun: str = "index") -> np.ndarray:
    """Integer indices as an int64 array (a copy), each in ``0 .. upper − 1``.

    ``width``: the array must have shape ``(m, width)`` (one row per element; a single
    row may be given as a flat list).  Floats are accepted only when integral (``1.0``);
    ``1.7`` is an error, never truncated; bools and strings are errors.
    """
    nouns = noun[:-5] + "indices" if noun.endswith("index") else noun + "s"
    if isinstance(value, str | bytes) or value is None:
        raise ModelError(f"{what} must be integer {nouns}; got {shown(value)}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise ModelError(f"{what} must be integer {nouns} (a regular array); got "
                         f"{shown(value)}") from None
    if raw.dtype == bool or raw.dtype.kind not in "iuf":
        if raw.dtype == object or raw.dtype.kind in "US":
            try:
                raw = np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                raise ModelError(f"{what} must be integer {nouns}; got {shown(value)}") \
                    from None
        else:
            raise ModelError(f"{what} must be integer {nouns}; got {shown(value)} "
                             f"({raw.dtype})")
    if raw.dtype.kind == "f":
        if not np.all(np.isfinite(raw)) or np.any(raw != np.round(raw)):
            bad = raw[~np.isfinite(raw) | (raw != np.round(raw))]
            raise ModelError(f"{what} must be integer {nouns}; got {shown(value)} "
                             f"({shown(bad[:5])} not integers; they are never rounded)")
    a = raw.astype(np.int64)
    if width is not None:
        if a.ndim == 1 and a.size == width:
            a = a[None]
        if a.ndim != 2 or a.shape[1] != width:
            raise ModelError(f"{what} must be an array of shape (m, {width}), {width} "
                             f"{nouns} per row; got {shown(value)} (shape {a.shape})")
    if upper is not None:
        bad = a[(a < 0) | (a >= upper)]
        if bad.size:
            raise ModelError(f"{what}: {nouns} {np.unique(bad)[:10].tolist()} do not exist "
                             f"(valid: 0..{upper - 1})")
    return a


def coordinates(value, n: int, what: str) -> np.ndarray:
    """A finite vector of the model's ``n`` coordinates (a copy)."""
    a = _float_array(value, what, f"a vector of {n} numbers")
    if a.shape != (n,):
        raise ModelError(f"{what} must have the model's {n} coordinates; got shape "
                         f"{a.shape}")
    bad = np.flatnonzero(~np.isfinite(a))
    if bad.size:
        raise ModelError(f"{what} has non-finite values at coordinates "
                         f"{bad[:8].tolist()}{' ...' if bad.size > 8 else ''}")
    return a


# ---------------------------------------------------------------------- sizes
def available_memory() -> int | None:
    """The memory [bytes] the machine can give now (``MemAvailable`` of ``/proc/meminfo``,
    else the free physical pages); None where neither is known."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def bytes_text(n: float) -> str:
    """A size in bytes in words: ``1.5 GiB``, ``320 KiB``, ``12 B``."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def affordable(n_bytes: float, what: str, value, fraction: float = 0.8) -> None:
    """Refuse, before anything is allocated, a size whose memory estimate ``n_bytes``
    exceeds ``fraction`` of what the machine has available (:func:`available_memory`).

    Parameters
    ----------
    n_bytes : float
        The estimate [bytes].
    what : str
        The parameter that sets the size (named in the message).
    value
        Its value.
    fraction : float
        Of the available memory that may be asked for.

    Raises
    ------
    ModelError
        Naming the parameter, its value, the estimate and the limit.
    """
    avail = available_memory()
    if avail is not None and n_bytes > fraction * avail:
        limit, name = bytes_text(fraction * avail), what.rsplit(": ", 1)[-1]
        raise ModelError(f"{what} = {shown(value)} would need about {bytes_text(n_bytes)} of "
                         f"memory; this machine has {bytes_text(avail)} available (limit "
                         f"{limit}); give a smaller {name}")


# ---------------------------------------------------------------------- solver options
def tolerance(value, what: str) -> float:
    """A relative tolerance: a finite number in (0, 1) — 0 or less can never be met, 1 or
    more accepts anything."""
    v = finite(value, what)
    if v <= 0:
        raise ModelError(f"{what} must be > 0 (a tolerance of zero or less can never be "
                         f"met); got {v:g}")
    if v >= 1:
        raise ModelError(f"{what} must be < 1 (a relative tolerance of 1 or more accepts "
                         f"any answer); got {v:g}")
    return v


def absolute_tolerance(value, what: str) -> float:
    """An absolute tolerance (a constraint violation): a finite number > 0."""
    return positive(value, what)


def iterations(value, what: str) -> int:
    """An iteration limit: an integer in 1..100000."""
    return integer(value, what, minimum=1, maximum=100_000)


def optional(rule: Rule) -> Rule:
    """``rule``, or None."""
    def check(value, what):
        return None if value is None else rule(value, what)

    check.__doc__ = f"None or {rule.__name__}"
    return check


def _factor_cost(value, what):
    """'estimated', 'timed' or a positive number of iterations."""
    if isinstance(value, str):
        if value in ("estimated", "timed"):
            return value
        raise ModelError(f"{what} must be 'estimated', 'timed' or a positive number of "
                         f"iterations; got {value!r}")
    return positive(value, what, "iterations")


def _at_least(minimum: int) -> Rule:
    return lambda value, what: integer(value, what, minimum=minimum)


def _one_of(*options) -> Rule:
    return lambda value, what: choice(value, options, what)


def _sensors(value, what):
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ModelError(f"{what} must be a dict name -> f(t, q, v, a, lam); got "
                         f"{shown(value)}")
    for k, f in value.items():
        function(f, f"{what}[{k!r}]")
    return value


def model(value, what: str):
    """A :class:`fem.Model` or another system the solvers take (a
    :class:`fem.bodies.HubLink`, a chain): what every solver takes first; a name, None or
    a list is the usual slip.  Checked by what it can do (``assemble``), so the core
    layer does not import the model's."""
    if callable(getattr(value, "assemble", None)):      # a Model, a HubLink, a chain
        return value
    hint = ""
    if isinstance(value, str):
        hint = " (a name: build the model first, m = fem.Model(name), and pass m)"
    elif value is None:
        hint = " (None: did the function that builds the model return it?)"
    elif hasattr(value, "model") and callable(getattr(value.model, "assemble", None)):
        hint = f" (a {type(value).__name__}: pass its .model)"
    raise ModelError(f"{what} must be a fem.Model; got {shown(value)}{hint}")


SOLVER_OPTIONS: dict[str, Rule] = {
    "model": model,
    "tol": tolerance,
    "constraint_tol": absolute_tolerance,
    "max_iter": iterations,
    "rho_inf": lambda v, w: in_range(v, w, 0.0, 1.0),
    "contraction": lambda v, w: in_range(v, w, 0.0, 1.0, low_open=True, high_open=True),
    "load_steps": lambda v, w: integer(v, w, minimum=1, maximum=1_000_000),
    "min_increment": lambda v, w: in_range(v, w, 0.0, 1.0, low_open=True),
    "record_every": _at_least(1),
    "n_modes": optional(_at_least(1)),
    "t": lambda v, w: finite(v, f"{w} [s]"),
    "t0": lambda v, w: finite(v, f"{w} [s]"),
    "t_end": lambda v, w: finite(v, f"{w} [s]"),
    "dt": lambda v, w: positive(v, w, "s"),
    "force_scale": lambda v, w: nonnegative(v, w, "N"),
    "factor_cost": optional(_factor_cost),
    "reuse": _one_of(True, False, "auto", "step"),
    "correction": _one_of("none", "projection", "rigid"),
    "predictor": _one_of("linear", "constant"),
    "corotate": boolean,
    "eliminate_beyond_dense": boolean,
    "project_velocities": boolean,
    "perturbed_start": boolean,
    "line_search": boolean,
    "check_rank": boolean,
    "adaptive": boolean,
    "progress": boolean,
    "sensors": _sensors,
    "on_step": optional(function),
}
"""Solver arguments checked by name wherever they appear (:func:`solver_options`)."""


def _label(fn: Callable, label: str | None) -> str:
    if label:
        return label
    if fn.__name__ == "__init__":
        return fn.__qualname__.rsplit(".", 1)[0]
    return fn.__name__


def _decorate(fn: Callable, rules: Mapping[str, Rule], label: str | None) -> Callable:
    sig = inspect.signature(fn)
    unknown = set(rules) - set(sig.parameters)
    if unknown:     # a programming error in the declaration, not user input
        raise TypeError(f"{fn.__qualname__} has no arguments {sorted(unknown)} to check")
    where = _label(fn, label)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as err:        # a wrong call: Python's message, with the name
            raise TypeError(f"{where}: {err}") from None
        given = bound.arguments
        name = given.get("name")
        prefix = f"{where} {name!r}" if isinstance(name, str) and name else where
        for arg, rule in rules.items():
            if arg in given:
                given[arg] = rule(given[arg], f"{prefix}: {arg}")
        return fn(*bound.args, **bound.kwargs)

    wrapper.__checked__ = dict(rules)
    return wrapper


def checked(_label: str | None = None, **rules: Rule) -> Callable:
    """Decorator: check the named arguments with their rules before the call.

    Only arguments that are given are checked (defaults are trusted); the checked value
    (converted: a float, an array) is what the function receives.  Messages start with
    the function's name (a class's for ``__init__``) and the ``name`` argument if any::

        @checked(mass=nonnegative, position=vector3, rotation=optional(rotation))
        def add_rigid_body(self, name, mass, position, rotation=None): ...

        add_rigid_body("arm", 1.0, (0, 0)) → ModelError: add_rigid_body 'arm':
            position must be a 3-vector [x, y, z]; got (0, 0) (shape (2,))
    """
    def deco(fn):
        return _decorate(fn, rules, _label)

    return deco


def solver_options(fn: Callable | None = None, *, label: str | None = None, **extra: Rule):
    """Decorator: check every argument whose name is in :data:`SOLVER_OPTIONS` (plus
    ``extra`` rules) — ``tol``, ``max_iter``, ``rho_inf``, ``dt`` … — by the same rule in
    every solver."""
    def deco(f):
        params = inspect.signature(f).parameters
        rules = {k: r for k, r in SOLVER_OPTIONS.items() if k in params}
        rules.update(extra)
        return _decorate(f, rules, label)

    return deco(fn) if fn is not None else deco


def warn(message: str) -> None:
    """Tell the user something was changed for them (a :class:`FemWarning`)."""
    warnings.warn(message, FemWarning, stacklevel=3)
