"""Robot definitions shared by cases, tests and independent reference models.

* :mod:`fem.robots.rrru3` — the 3-RRRU parallel robot of Liu et al. 2023 (and Liu et
  al. 2018): geometry, rigid kinematics and a minimal-coordinate rigid-body inverse
  dynamics used as the reference for the constrained-DAE model.
"""

from ..core.lazy import lazy_exports
from . import rrru3
from .rrru3 import RRRU3Geometry, reference_torques

__all__ = ["rrru3", "RRRU3Geometry", "reference_torques"]

# every module of the package an attribute, imported on first use
__getattr__, __dir__ = lazy_exports(__name__, {})
