"""Continuity of Bézier-triangle plates across mesh edges (Liu et al. 2023, eqs 17–29).

Two formulations of the same plate (compare them with :func:`continuity_counts`):

* **shared** — ``bezier_plate_shared``: vertex nodes (position and Cartesian gradients)
  are shared by the triangles around them, which satisfies the G⁰ equations and the outer
  rows of the simplified G¹ condition (eq 29) identically; only the *middle* G¹ row of
  eq 29 remains, 3 linear equations per interior edge.
* **constraints** — ``bezier_plate``: every element keeps its own 48 coordinates and the
  33 equations of eqs 17, 19, 21 and 29 join every adjacent pair.  Around an interior
  vertex these equations are linearly dependent; only an independent subset is kept
  (the paper's 183 for the six-element hexagon).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ...core.errors import ModelError
from ...core.threads import blas_single_threaded
from .family import BezierTrianglePlate, BezierTrianglePlateShared, paper_continuity

__all__ = ["add_continuity", "continuity_rows", "continuity_counts", "independent_rows"]


@blas_single_threaded
def independent_rows(A: np.ndarray, tol: float = 1e-10) -> np.ndarray:
    """Indices of a maximal set of linearly independent rows of ``A`` (QR with pivoting)."""
    if A.shape[0] == 0:
        return np.zeros(0, dtype=int)
    scale = np.maximum(np.abs(A).max(axis=1), 1e-300)
    _, R, perm = sla.qr((A / scale[:, None]).T, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    rank = int(np.sum(d > tol * d.max()))
    return np.sort(perm[:rank])


def continuity_rows(model, group) -> tuple[sp.coo_matrix, int]:
    """Continuity equations of a plate group built by :meth:`Model.add_mesh`.

    Returns ``(A, written)``: the independent rows ``A q = 0`` (sparse, over all model
    coordinates) and the number of equations written before removing dependent ones.
    """
    fam = group.family
    if not isinstance(fam, BezierTrianglePlate):
        raise ModelError(f"plate continuity needs a Bézier plate group; group "
                         f"{group.name!r} is of family {fam.name!r}")
    mesh = group.mesh
    if mesh is None:
        raise ModelError(f"group {group.name!r} was not built from a mesh (use add_mesh)")
    ie = mesh.interior_edges
    shared = isinstance(fam, BezierTrianglePlateShared)
    pm = fam.plate_map                       # (n_el, 16, 16)
    I3 = np.eye(3)
    rows, cols, vals = [], [], []
    r0 = 0
    for k in range(len(ie.edge)):
        e, f = ie.triangles[k]
        le, lf = ie.local_edge[k]
        c = paper_continuity(int(le), int(lf))          # (11, 32) scalar rows
        if shared:
            c = c[9:10]                                # the middle G¹ row of eq 29
        ce = c[:, :16] @ pm[e]
        cf = c[:, 16:] @ pm[f]
        for half, el in ((ce, e), (cf, f)):
            blk = np.kron(half, I3)                    # (3·rows, 48)
            rr, cc = np.nonzero(np.abs(blk) > 0)
            rows.append(r0 + rr)
            cols.append(group.dofs[el][cc])
            vals.append(blk[rr, cc])
        r0 += 3 * c.shape[0]
    if r0 == 0:
        return sp.coo_matrix((0, model.n_dof)), 0
    A = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(r0, model.n_dof)).tocsr()
    # drop rows that vanish identically and rows dependent on others
    used = np.unique(A.indices)
    Ad = A[:, used].toarray()
    keep = independent_rows(Ad)
    return sp.coo_matrix(A[keep]), r0


def add_continuity(model, group, name: str | None = None):
    """Add the plate's continuity equations as one :class:`~fem.Linear` constraint (None
    when there are none: a single element)."""
    from ...constraints import Linear

    A, written = continuity_rows(model, group)
    if A.shape[0] == 0:
        return None
    con = model.add_constraint(Linear(A, None, name or f"{group.name} continuity"))
    con.written = written
    return con


def continuity_counts(model, group) -> dict[str, int]:
    """Coordinates of the plate and continuity equations (written / independent)."""
    A, written = continuity_rows(model, group)
    n_coords = len(np.unique(group.dofs))
    return {"plate_coordinates": n_coords, "continuity_written": written,
            "continuity_independent": A.shape[0]}
