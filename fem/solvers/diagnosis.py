"""Turning a solver failure into a diagnosis from the evidence.

One place for every Newton solver (static, generalized-α, inverse dynamics) to explain a
failure: the residual history (diverging, stalled, oscillating, slow), the load factor or
step size, how far the iterate moved, the coordinate (node, field) with the largest force
residual, the constraint row with the largest violation, and — when the iteration matrix is
singular — whether that is the model (a loose part, a free translation, redundant rows:
decided at the state the model was given) or the iteration (a diverged iterate).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..core.errors import ModelError

__all__ = ["dof_label", "trend", "loose_parts", "singular_structure", "newton_failure",
           "nonfinite_inputs", "check_finite_start"]

_XYZ = "xyz"


def dof_label(system, dof: int) -> str:
    """``"cable node 3 r_y"`` for a global coordinate index (a system of the solver
    contract, or a model)."""
    return system.dof_label(int(dof))


def _groups_of(asm, dofs) -> list[str]:
    return asm.parts_of(dofs)


def trend(history: list[float]) -> str:
    """A word on how a residual history behaved."""
    h = [r for r in history if np.isfinite(r)]
    if len(h) < len(history):
        return "became non-finite (the iterate blew up)"
    if len(h) < 3:
        return "had too few iterations to judge"
    tail = np.asarray(h[-4:])
    if tail[-1] > 10 * min(h):
        return f"diverged (from {min(h):.1e} up to {h[-1]:.1e})"
    steps = np.diff(np.log10(np.maximum(tail, 1e-300)))
    if np.any(steps > 0.1) and np.any(steps < -0.1):
        return f"oscillated between {tail.min():.1e} and {tail.max():.1e}"
    if np.all(np.abs(steps) < 0.05):
        return f"stalled near {tail[-1]:.1e}"
    return f"fell only slowly (to {h[-1]:.1e})"


def _where(asm, dofs: np.ndarray) -> str:
    labels = [dof_label(asm, int(d)) for d in dofs[:4]]
    groups = _groups_of(asm, dofs)
    return (f"{labels}{' …' if dofs.size > 4 else ''}"
            + (f" (element group {groups})" if groups else ""))


def nonfinite_inputs(asm, q: np.ndarray, v: np.ndarray | None = None, t: float = 0.0
                     ) -> list[str]:
    """What in the model is not finite at a state: the mass matrix, internal and external
    forces (named by coordinate and element group) and constraint values and Jacobian rows
    (named by row).  Empty when everything is finite.  An infinite section area or a NaN
    length shows here, before a solver could mistake it for a limit point or a singular
    (redundant) constraint set."""
    out = []
    with np.errstate(all="ignore"):
        checks = (("mass matrix", lambda: asm.mass_matrix(q)),
                  ("internal (elastic) forces", lambda: asm.internal_forces(q, v)[0]),
                  ("external forces (loads, weight)", lambda: asm.external_forces(t, q)))
        for what, fn in checks:
            try:
                val = fn()
            except ModelError:
                raise           # already names what is wrong (a load function's value)
            except (FloatingPointError, ValueError, ZeroDivisionError) as err:
                out.append(f"{what} cannot be evaluated ({type(err).__name__}: {err})")
                continue
            if sp.issparse(val):
                val = val.tocoo()
                bad = np.unique(val.row[~np.isfinite(val.data)])
            else:
                arr = np.asarray(val, dtype=float)
                bad = np.flatnonzero(~np.isfinite(arr).reshape(arr.shape[0], -1).all(axis=1)) \
                    if arr.ndim else np.zeros(0, np.int64)
            if bad.size:
                out.append(f"{what} at {_where(asm, bad)}")
        if asm.m:
            rows: set[int] = set()
            phi = np.asarray(asm.phi(q, t), dtype=float)
            rows.update(np.flatnonzero(~np.isfinite(phi)).tolist())
            J = asm.jacobian(q, t).tocoo()
            rows.update(J.row[~np.isfinite(J.data)].tolist())
            if rows:
                r = sorted(rows)
                out.append(f"constraint rows {[asm.labels[i] for i in r[:4]]}"
                           f"{' …' if len(r) > 4 else ''}")
    return out


def check_finite_start(asm, q: np.ndarray, t: float, solver: str,
                       v: np.ndarray | None = None) -> None:
    """Raise a :class:`~fem.ModelError` naming what is not finite at the start state, so
    that a non-finite input stops the solver before it starts (and is never reported as
    buckling or redundant constraints)."""
    problems = nonfinite_inputs(asm, q, v, t)
    if problems:
        raise ModelError(f"{solver}: the model gives non-finite values (inf or NaN) at the "
                         f"start state (t = {t:g} s): {'; '.join(problems)}. Check the inputs "
                         "that feed them: section data, materials, loads and their functions "
                         "of time, constraint lengths and motions, point masses")


def _translation_patterns(asm) -> np.ndarray:
    """(n, 3): rigid translations in x, y, z (from the solver contract)."""
    return asm.translation_patterns()


def loose_parts(asm, q: np.ndarray, t: float = 0.0) -> list[str]:
    """Parts of the model that translate freely: connected sets of coordinates (joined by
    elements and constraint rows) on which a rigid translation leaves every constraint
    row satisfied.  Returns one sentence per loose part."""
    n = asm.n
    r0, c0 = asm.coupling()
    rows, cols = [r0], [c0]
    J = asm.jacobian(q, t).tocsr() if asm.m else sp.csr_matrix((0, n))
    J.eliminate_zeros()
    for i in range(J.shape[0]):
        c = J.indices[J.indptr[i]:J.indptr[i + 1]]
        if c.size > 1:
            rows.append(np.full(c.size - 1, c[0]))
            cols.append(c[1:])
    r = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    c = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    G = sp.coo_matrix((np.ones(r.size), (r, c)), shape=(n, n))
    n_comp, label = connected_components(G, directed=False)
    T = _translation_patterns(asm)
    out = []
    for k in range(n_comp):
        dofs = np.flatnonzero(label == k)
        Tk = np.zeros_like(T)
        Tk[dofs] = T[dofs]
        if not Tk.any():
            continue
        JT = J @ Tk if J.shape[0] else np.zeros((0, 3))
        scale = abs(J).max() if J.nnz else 1.0
        free = [ax for ax in range(3) if Tk[:, ax].any()
                and (JT.shape[0] == 0 or np.abs(JT[:, ax]).max() <= 1e-12 * scale)]
        if not free:
            continue
        nodes = sorted({dof_label(asm, d).rsplit(" ", 1)[0] for d in dofs[:60]})
        groups = _groups_of(asm, dofs)
        what = (f"element group(s) {groups}" if groups else "") + \
            (" with " if groups else "") + f"nodes {nodes[:4]}{' ...' if len(nodes) > 4 else ''}"
        whole = dofs.size == n
        out.append(
            f"{'the whole model' if whole else 'a loose part'} ({what}) can translate freely "
            f"along {', '.join(_XYZ[a] for a in free)}: nothing "
            f"{'supports it' if whole else 'joins it to the rest or supports it'} "
            f"in that direction"
            + ("" if whole else " (an unmerged node between parts? share the node or add a "
               "coincident constraint)"))
    return out


def singular_structure(asm, S, q: np.ndarray, t: float = 0.0, n_max: int = 1500) -> list[str]:
    """Explain a singular saddle matrix ``S`` at a given state: loose parts first (cheap,
    any size), then, for systems up to ``n_max`` unknowns, the singular vector of ``S``:
    its coordinate part names the free motion, its multiplier part the redundant rows."""
    notes = loose_parts(asm, q, t)
    if notes:
        return notes
    N = S.shape[0]
    if N > n_max:
        return []
    A = S if isinstance(S, np.ndarray) else S.toarray()
    try:
        _, sv, Vt = np.linalg.svd(A)
    except np.linalg.LinAlgError:
        return []
    v = Vt[-1]
    dq, dl = v[: asm.n], v[asm.n:]
    if np.linalg.norm(dq) >= np.linalg.norm(dl):
        top = np.argsort(-np.abs(dq))[:4]
        labels = [dof_label(asm, int(d)) for d in top if abs(dq[d]) > 0.2 * abs(dq[top[0]])]
        return [f"an unrestrained motion (mechanism) moves mostly {labels}: add a support or "
                "joint that fixes it, or give those coordinates stiffness/mass"]
    top = np.argsort(-np.abs(dl))[:6]
    labels = [asm.labels[i] for i in top if abs(dl[i]) > 0.2 * abs(dl[top[0]])]
    return [f"constraint rows {labels} depend on each other (redundant or conflicting)"]


def newton_failure(asm, *, solver: str, where: str, history: list[float],
                   residual: np.ndarray | None = None, phi: np.ndarray | None = None,
                   q: np.ndarray | None = None, q_start: np.ndarray | None = None,
                   singular: str | None = None, advice: str = "") -> str:
    """The message for a Newton failure, from what the iteration saw.

    Parameters
    ----------
    solver, where : str
        "static solve", "load increment 3 (load factor 0.2 → 0.3)", "t = 0.12 s (h = 1e-3 s)".
    history : relative residuals of the iterations made.
    residual : the last force residual vector (its largest entry is named).
    phi : the last constraint values (the worst row is named).
    q, q_start : the last iterate and the converged state it started from (how far Newton
        moved, against the model's size).
    singular : the factorization's message, when the iteration matrix became singular.
    advice : what to try, specific to the solver.
    """
    parts = [f"{solver} failed at {where}"]
    if singular:
        parts.append(f"the iteration matrix became singular after {len(history) - 1} "
                     f"iteration(s) ({singular.split(';')[0]})")
    parts.append(f"the relative force residual {trend(history)} "
                 f"[{', '.join(f'{r:.1e}' for r in history[-6:])}]")
    if residual is not None and residual.size and np.all(np.isfinite(residual)):
        d = int(np.argmax(np.abs(residual)))
        parts.append(f"largest force residual {residual[d]:.3g} N at {dof_label(asm, d)}"
                     + (f" (element group {_groups_of(asm, d)})" if _groups_of(asm, d) else ""))
    if phi is not None and phi.size and np.all(np.isfinite(phi)):
        i = int(np.argmax(np.abs(phi)))
        if abs(phi[i]) > 0:
            parts.append(f"largest constraint violation {phi[i]:.2e} in {asm.labels[i]!r}")
    if q is not None and q_start is not None and np.all(np.isfinite(q)):
        moved = float(np.abs(q - q_start).max())
        pos = q_start[_translation_patterns(asm).any(axis=1)]
        size = float(np.ptp(pos.reshape(-1, 3), axis=0).max()) if pos.size >= 6 else 0.0
        if size > 0:
            parts.append(f"the iterate moved up to {moved:.3g} m from the last converged "
                         f"state ({moved / size:.2g} × the model size {size:.3g} m)")
            if moved > 10 * size:
                parts.append("displacements of many times the model's size mean the "
                             "structure is far too soft for this load: check the units of "
                             "E, the section data and the loads")
            if singular and moved > 0.05 * size:
                parts.append("so the singularity comes from a diverged iterate, not from "
                             "the model: the increment was too large for Newton (or the "
                             "structure has buckled/snapped through)")
    notes = getattr(asm, "failure_notes", None)
    if notes is not None and q_start is not None:
        parts.extend(notes(q_start))
    msg = "; ".join(parts) + "."
    return msg + (f" {advice}" if advice else "")
