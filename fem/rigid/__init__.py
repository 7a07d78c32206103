"""Rigid-body inverse dynamics: Newton–Euler by ordered single open chains, Lagrange II.

* :mod:`fem.rigid.newton_euler` — links, joints with unknown reaction components, chains
  solved in a given order (Shen et al. 2021 §3); its public names are re-exported here.
* :mod:`fem.rigid.lagrange` — Lagrange's equations of the second kind from kinematic
  influence coefficients (Shen et al. 2021 §4).
* :mod:`fem.rigid.screen_1t2r` — the 1T2R parallel vibrating screen of Shen et al. 2021.
"""

from ..core.lazy import lazy_exports
from . import lagrange, newton_euler, screen_1t2r

__all__ = ["lagrange", "newton_euler", "screen_1t2r", *newton_euler.__all__]

__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(newton_euler.__all__,
                                                            "newton_euler"))
