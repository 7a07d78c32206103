"""Constraints an element family needs on its own coordinates (rigidity)."""

from __future__ import annotations

import numpy as np

from ..maps.linear_map import LinearMap
from . import Constraint, ConstraintRows


class ElementDot(Constraint):
    """For every element of a group: ``(Σ aₖ q_k)·(Σ bₖ q_k) = reference value``.

    ``a`` and ``b`` are lists of ``(vector_index, coefficient)`` over the element's
    3-vectors; a distance is the dot of a difference with itself.
    """

    kind = "element_dot"

    def __init__(self, group, a, b, name: str | None = None):
        super().__init__(name or f"{group.name} rigidity")
        self.group, self.a, self.b = group, a, b

    def _map(self, e: int, terms) -> LinearMap:
        dofs = self.group.dofs[e].reshape(-1, 3)
        coef = np.hstack([c * np.eye(3) for _, c in terms])
        return LinearMap(np.concatenate([dofs[k] for k, _ in terms]), coef)

    def rows(self, q0, n_dof):
        n = self.group.n_elements
        bil, c = [], np.empty(n)
        for e in range(n):
            a, b = self._map(e, self.a), self._map(e, self.b)
            bil.append((e, a, b))
            c[e] = -float(a(q0) @ b(q0))
        labels = [f"{self.name} [element {e}]" for e in range(n)]
        return ConstraintRows(n, labels, c, bilinear=bil)
