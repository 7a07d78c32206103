"""Rigid-body inverse dynamics: Newton–Euler by ordered single open chains, Lagrange II.

* :mod:`fem.rigid.newton_euler` — links, joints with unknown reaction components, chains
  solved in a given order (Shen et al. 2021 §3).
* :mod:`fem.rigid.lagrange` — Lagrange's equations of the second kind from kinematic
  influence coefficients (Shen et al. 2021 §4).
* :mod:`fem.rigid.screen_1t2r` — the 1T2R parallel vibrating screen of Shen et al. 2021.
"""

from . import lagrange, newton_euler, screen_1t2r
from .newton_euler import (
    Chain,
    Joint,
    Link,
    NewtonEulerResult,
    revolute,
    solve_inverse_dynamics,
    spherical,
    universal,
)

__all__ = [
    "lagrange",
    "newton_euler",
    "screen_1t2r",
    "Chain",
    "Joint",
    "Link",
    "NewtonEulerResult",
    "revolute",
    "spherical",
    "universal",
    "solve_inverse_dynamics",
]
