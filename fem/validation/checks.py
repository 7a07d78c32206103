"""The registry of checks, filled: importing this module registers every check.

Order of the report: beams (static deflection, frequency tables), reduced bodies, plates,
time integration, flexible links, rigid inverse dynamics, parallel robots.  The checks are
declared as data in ``checks.toml``; each module holds the functions that measure them
(``@check``).
"""

from __future__ import annotations

from . import (  # noqa: F401  (registration on import)
    checks_beams,
    checks_dynamics,
    checks_plates,
    checks_robots,
)
from .registry import (
    CHECKS,
    Check,
    Limit,
    Measurement,
    Outcome,
    in_declared_order,
    run_check,
    selected,
)

in_declared_order()

__all__ = ["CHECKS", "Check", "Limit", "Measurement", "Outcome", "run_check", "selected"]
