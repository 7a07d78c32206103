"""Checks as data: what is measured, against what, to which tolerance and why.

A :class:`Check` declares its subject, its reference (what, of which kind, from where),
its :class:`Limit`\\ s with the reason for them, and one function that *measures*: it
returns a :class:`Measurement` (named values with units in the names, optional tables and
plots) and never decides pass or fail.  The declarations are a table,
``fem/validation/checks.toml``; :func:`check` joins a measuring function to the entry of
its name.  :func:`run_check` compares the measured values
with the limits.  So a check cannot pass by construction: the verdict is computed from
the numbers the report prints.

>>> from fem.validation.registry import Limit
>>> Limit("order", lower=1.8).holds(2.01)
True
"""

from __future__ import annotations

import functools
import math
import time
import tomllib
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import ModelError

__all__ = ["KINDS", "Limit", "Plot", "Measurement", "Check", "Outcome", "CHECKS", "check",
           "declarations", "in_declared_order", "run_check", "selected"]

KINDS = {
    "closed form": "a formula of the continuous problem (book or paper cited)",
    "series": "a converged series or Ritz solution of the continuous problem",
    "independent ODE": "the same system in other coordinates, integrated to 1e-12 by SciPy",
    "another method": "a different formulation or method inside the framework",
    "full model": "the unreduced finite-element model the reduction comes from",
    "invariant": "a quantity the continuous system conserves (energy)",
    "peer code": "another program's stored run, with the script that made it",
    "residual": "the solved equations evaluated at the solution (path, constraints, motion)",
    "paper": "a figure printed in a paper (fem.references.citations)",
}
"""Kinds of reference a check may name, with what each means."""


@dataclass(frozen=True)
class Limit:
    """A bound on one measured value: ``lower ≤ value ≤ upper`` (either may be None).

    Attributes
    ----------
    key : str
        Name of the value in the :class:`Measurement` it bounds.
    lower, upper : float or None
        The bounds (inclusive).
    """

    key: str
    lower: float | None = None
    upper: float | None = None

    def holds(self, value: float) -> bool:
        """Whether a (finite) measured value lies within the bounds."""
        if value is None or not math.isfinite(float(value)):
            return False
        value = float(value)
        return ((self.lower is None or value >= self.lower)
                and (self.upper is None or value <= self.upper))

    def text(self) -> str:
        """``key ≤ upper``, ``key ≥ lower`` or ``lower ≤ key ≤ upper``."""
        if self.lower is not None and self.upper is not None:
            return f"{_num(self.lower)} ≤ {self.key} ≤ {_num(self.upper)}"
        if self.upper is not None:
            return f"{self.key} ≤ {_num(self.upper)}"
        return f"{self.key} ≥ {_num(self.lower)}"


def _num(x: float) -> str:
    return f"{x:.3g}"


@dataclass
class Plot:
    """A PNG image of a check.

    Attributes
    ----------
    name : str
        File stem (the report writes ``<check>-<name>.png``).
    png : bytes
    caption : str
    """

    name: str
    png: bytes
    caption: str


@dataclass
class Measurement:
    """What a check's function returns: measured values, no verdict.

    Attributes
    ----------
    values : dict
        Named measured values (floats), units in the names (``error_rel``,
        ``order``, ``torque_difference_Nmm``); every :class:`Limit` key must be here.
    detail : str
        One or two sentences on what was run (sizes, steps) and what else was seen.
    table : list of dict
        Optional rows (a frequency table, a refinement sequence), printed as a table.
    plots : list of Plot
    """

    values: dict[str, float]
    detail: str = ""
    table: list[dict[str, Any]] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)


@dataclass(frozen=True)
class Check:
    """One validation check (see the module docstring).

    Attributes
    ----------
    name : str
        Short identifier (``fem validate --only NAME``).
    subject : str
        What is checked (element, solver, case).
    reference : str
        What it is compared with.
    kind : str
        One of :data:`KINDS`.
    source : str
        Where the reference comes from: a book or paper (``fem.references.citations``), or the
        function that computes it.
    limits : tuple of Limit
    why : str
        Why these tolerances (the discretization error estimated from a refinement, the
        round-off of an exact method, ...).
    measure : callable ``(quick: bool) -> Measurement``
    quick : bool
        Part of ``fem validate --quick`` (small sizes when ``quick`` is passed True).
    group : str
        Section of the report.
    """

    name: str
    subject: str
    reference: str
    kind: str
    source: str
    limits: tuple[Limit, ...]
    why: str
    measure: Callable[[bool], Measurement]
    quick: bool = True
    group: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"check {self.name!r}: kind must be one of {sorted(KINDS)}, "
                             f"got {self.kind!r}")
        if not self.limits:
            raise ValueError(f"check {self.name!r}: a check needs at least one limit")


@dataclass
class Outcome:
    """A check's measured values and verdict.

    Attributes
    ----------
    check : Check
    measurement : Measurement or None
        None when the measuring function raised.
    passed : bool
    failures : list of str
        The limits that do not hold (or the error raised).
    seconds : float
        Wall time of the measurement.
    quick : bool
        Whether it ran at the quick sizes.
    """

    check: Check
    measurement: Measurement | None
    passed: bool
    failures: list[str]
    seconds: float
    quick: bool

    def summary(self) -> dict[str, Any]:
        """JSON-ready record (name, status, values, limits, seconds)."""
        m = self.measurement
        return {"name": self.check.name, "status": "pass" if self.passed else "fail",
                "group": self.check.group, "subject": self.check.subject,
                "kind": self.check.kind, "limits": [lim.text() for lim in self.check.limits],
                "values": {} if m is None else {k: float(v) for k, v in m.values.items()},
                "failures": self.failures, "seconds": round(self.seconds, 3),
                "quick": self.quick}


CHECKS: dict[str, Check] = {}
"""Every registered check by name, in registration order (the report's order)."""


DECLARED = Path(__file__).with_name("checks.toml")
"""The table of checks: ``[name]`` with group, subject, reference, kind, source, limits
(``{key, lower, upper}``), why and, for the full set only, ``quick = false``."""


@functools.cache
def declarations() -> dict[str, dict[str, Any]]:
    """The entries of :data:`DECLARED` by check name, in its order."""
    with DECLARED.open("rb") as f:
        return tomllib.load(f)


def check(fn: Callable[[bool], Measurement]) -> Callable[[bool], Measurement]:
    """Register the decorated measuring function as the :class:`Check` its name declares
    in :data:`DECLARED`."""
    name = fn.__name__
    if name in CHECKS:
        raise ValueError(f"check {name!r} registered twice")
    entry = declarations().get(name)
    if entry is None:
        raise ValueError(f"check {name!r}: no entry [{name}] in {DECLARED.name}")
    CHECKS[name] = Check(name, entry["subject"], entry["reference"], entry["kind"],
                         entry["source"], tuple(Limit(**lim) for lim in entry["limits"]),
                         entry["why"], fn, entry.get("quick", True), entry["group"])
    return fn


def in_declared_order() -> None:
    """Put :data:`CHECKS` in the order of :data:`DECLARED` (the report's), once every
    measuring function is registered; an entry that none measures is an error."""
    unmeasured = [name for name in declarations() if name not in CHECKS]
    if unmeasured:
        raise ValueError(f"{DECLARED.name} declares checks no function measures: "
                         f"{', '.join(unmeasured)}")
    ordered = {name: CHECKS[name] for name in declarations()}
    CHECKS.clear()
    CHECKS.update(ordered)


def run_check(chk: Check, quick: bool) -> Outcome:
    """Measure one check and compare with its limits (an exception is a failure)."""
    t0 = time.perf_counter()
    try:
        m = chk.measure(quick)
    except Exception as err:  # noqa: BLE001 - a broken check is reported, not raised
        where = traceback.extract_tb(err.__traceback__)[-1]
        return Outcome(chk, None, False, [f"{type(err).__name__}: {err} (at "
                                          f"{where.filename}:{where.lineno})"],
                       time.perf_counter() - t0, quick)
    seconds = time.perf_counter() - t0
    failures = []
    for lim in chk.limits:
        if lim.key not in m.values:
            failures.append(f"{lim.key} not measured")
        elif not lim.holds(m.values[lim.key]):
            failures.append(f"{lim.text()} does not hold: {lim.key} = "
                            f"{float(m.values[lim.key]):.4g}")
    return Outcome(chk, m, not failures, failures, seconds, quick)


def selected(quick: bool, only: list[str] | None = None) -> list[Check]:
    """The checks to run: ``only`` (names, in the registry's order) or every check of the
    quick or full set.  An unknown name is a :class:`~fem.ModelError` listing the
    known ones."""
    if only:
        unknown = [n for n in only if n not in CHECKS]
        if unknown:
            raise ModelError(f"unknown check(s) {', '.join(unknown)}; known: "
                             f"{', '.join(CHECKS)}")
        return [c for n, c in CHECKS.items() if n in only]
    return [c for c in CHECKS.values() if c.quick or not quick]
