"""Former home of :func:`generalized_eigen`, now :mod:`fem.solvers.linear` (kept for old
imports)."""

from ..solvers.linear import generalized_eigen

__all__ = ["generalized_eigen"]
