"""Solvers over the one constrained system ``M q̈ + Φ_qᵀλ = f``, ``Φ = 0``."""

from ..core.lazy import lazy_exports
from .alpha import AlphaOptions
from .dynamic import GeneralizedAlpha, alpha_parameters, consistent_initial_state, simulate
from .inverse import driven_inverse_dynamics
from .modal import ModalResult, closed_loop_poles, modes
from .static import StaticResult, project_positions, solve_static

__all__ = ["solve_static", "StaticResult", "project_positions", "simulate", "GeneralizedAlpha",
           "AlphaOptions",
           "alpha_parameters", "consistent_initial_state", "modes", "ModalResult",
           "closed_loop_poles",
           "driven_inverse_dynamics"]

# every module of the package an attribute, imported on first use
__getattr__, __dir__ = lazy_exports(__name__, {})
