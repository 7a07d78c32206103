"""Modal analysis of the linearized constrained system about a configuration.

About an equilibrium ``(q*, λ*)`` the motions compatible with the constraints are
``δq = N z`` with ``N`` a basis of the null space of ``Φ_q(q*)``.  The tangent stiffness
includes the constraint geometric term ``Σλᵢ Φᵢ,qq``.  The eigenproblem
``Nᵀ K_t N z = ω² Nᵀ M N z`` gives the natural frequencies.

With servo rows whose actuators act elsewhere (a task-space drive: the tool point
prescribed, the motors at the joints) the reactions do not act along the rows: the
motion left free — the *internal dynamics* — is balanced in the directions no reaction
acts in, ``W = null([Φ_q of ordinary rows; Bᵀ])``, a non-symmetric problem whose
negative or complex eigenvalues are unstable (reported as negative frequencies).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ..core.errors import ModelError
from ..core.threads import blas_single_threaded
from ..core.validate import coordinates, finite, integer, solver_options, warn

__all__ = ["modes", "ModalResult", "closed_loop_poles"]


@dataclass
class ModalResult:
    """Eigenpairs about a state.

    ``frequencies_hz`` is ``sign(ω²) √|ω²| / 2π``: an eigenvalue ω² < 0 (a buckled or
    otherwise unstable state) shows as a *negative* frequency, never as 0 Hz, and
    ``unstable`` counts them.  Rigid-body modes of an unsupported model are ≈ 0.
    """

    frequencies_hz: np.ndarray     # (k,) ascending; negative for ω² < 0 (unstable)
    omega2: np.ndarray             # (k,) eigenvalues ω² [rad²/s²]
    shapes: np.ndarray             # (n_dof, k) mode shapes in global coordinates, M-normalized

    kind = "modal"                 # what the result is, as fem.Result.kind and fem.Modes.kind

    @property
    def unstable(self) -> int:
        """Number of modes with ω² < 0 beyond round-off (the state is not stable)."""
        return int(np.sum(self.omega2 < -_zero_tol(self.omega2)))

    def _overview(self) -> list[tuple[str, str]]:
        from ..core.display import span

        f = np.asarray(self.frequencies_hz, dtype=float)
        lines = [("modes", str(f.size)), ("frequencies", span(f, "Hz")),
                 ("coordinates", str(np.shape(self.shapes)[0]))]
        lines.append(("status", f"{self.unstable} unstable (ω² < 0: the state is not stable)"
                      if self.unstable else "stable"))
        return lines

    def __repr__(self) -> str:
        from ..core.display import text

        head = ", ".join(f"{x:.4g}" for x in np.asarray(self.frequencies_hz)[:8])
        more = " …" if np.size(self.frequencies_hz) > 8 else ""
        return text("fem ModalResult", [*self._overview(), ("f [Hz]", head + more)])

    def _repr_html_(self) -> str:
        from ..core.display import html

        rows = [(i + 1, f"{f:.6g}", f"{w2:.6g}") for i, (f, w2) in
                enumerate(zip(self.frequencies_hz[:20], self.omega2[:20], strict=True))]
        if np.size(self.frequencies_hz) > 20:
            rows.append(("…", "", ""))
        return html("fem ModalResult", self._overview(),
                    (["mode", "frequency [Hz]", "ω² [rad²/s²]"], rows))


def _zero_tol(w2: np.ndarray) -> float:
    return 1e-9 * max(float(np.abs(w2).max()) if w2.size else 0.0, 1.0)


def _signed_hz(w2: np.ndarray) -> np.ndarray:
    f = np.sqrt(np.abs(w2)) / (2 * np.pi)
    neg = w2 < -_zero_tol(w2)
    return np.where(neg, -f, np.where(np.abs(w2) <= _zero_tol(w2), 0.0, f))


def _result(w2: np.ndarray, shapes: np.ndarray, internal: bool = False) -> ModalResult:
    r = ModalResult(_signed_hz(w2), w2, shapes)
    if r.unstable and internal:
        warn(f"modal analysis: {unstable_internal_dynamics(w2)}")
    elif r.unstable:
        warn(f"modal analysis: {r.unstable} eigenvalue(s) ω² < 0 (lowest {w2.min():.3g} "
             f"rad²/s², reported as {r.frequencies_hz.min():.4g} Hz): the state is "
             "unstable (buckled, or not an equilibrium); its frequencies are not those of "
             "small vibrations")
    return r


def reaction_matrix(asm, q: np.ndarray, t: float) -> np.ndarray:
    """The generalized force of a unit multiplier of each row (n, m): ``Φ_qᵀ`` columns for
    ordinary rows, ``−B_k`` for the servo rows whose reactions actuators supply."""
    jv = asm.jacobian_values(q, t)
    e = np.zeros(asm.m)
    R = np.zeros((asm.n, asm.m))
    for i in range(asm.m):
        e[i] = 1.0
        R[:, i] = asm.reaction(jv, e, q)
        e[i] = 0.0
    return R


def _internal_dynamics(asm, q, t, J, N, K, M):
    """The linearized internal dynamics of a model whose servo rows are *not* collocated
    with their actuators (a tool point prescribed, motors at the joints): the motions
    left by all rows, ``δq = N z``, balanced in the directions no reaction acts in,
    ``W = null([Φ_q of ordinary rows; Bᵀ])``: ``Wᵀ K N z = ω² Wᵀ M N z``.  With
    collocated drives ``W`` spans ``N`` and this is the ordinary modal problem (None
    is returned).  Eigenvalues that are negative or not real are unstable (the
    internal dynamics of a flexible arm driven at its tip; De Luca, "Trajectory
    control of flexible manipulators", 1998).  Returns ``(ω², shapes)`` with unstable
    eigenvalues as −|ω²|, ascending."""
    if asm.m == 0 or not asm.efforts(np.zeros(asm.m)):
        return None
    R = reaction_matrix(asm, q, t)
    W = _null_space(R.T)
    if W.shape[1] != N.shape[1]:
        return None
    # the same subspace: collocated drives, the symmetric problem
    if np.linalg.norm(W - N @ (N.T @ W)) <= 1e-8 * max(1.0, np.linalg.norm(W)):
        return None
    A, B = W.T @ K @ N, W.T @ M @ N
    lam, Z = sla.eig(A, B)
    ok = np.isfinite(lam)
    lam, Z = lam[ok], Z[:, ok]
    scale = max(float(np.abs(lam).max()) if lam.size else 0.0, 1.0)
    bad = (lam.real < -1e-9 * scale) | (np.abs(lam.imag) > 1e-7 * np.abs(lam))
    w2 = np.where(bad, -np.abs(lam), lam.real)
    order = np.argsort(w2)
    shapes = (N @ Z[:, order]).real
    return w2[order], shapes


def unstable_internal_dynamics(w2: np.ndarray) -> str:
    """The sentence that names unstable internal dynamics (eigenvalues ``w2`` of
    :func:`_internal_dynamics`, unstable ones negative)."""
    bad = -w2[w2 < -_zero_tol(w2)]
    slow, fast = float(np.sqrt(bad.min())), float(np.sqrt(bad.max()))
    return (f"the servo (trajectory) rows are not collocated with their actuators, and the "
            f"motion they leave free — the internal dynamics — has {bad.size} unstable "
            f"mode(s), growing at {slow:.3g} to {fast:.3g} 1/s: a forward run with this "
            f"drive diverges whatever the step.  Drive the joints instead (servo motors on "
            f"the joints: the collocated drive), or regularize the task-space drive")


def internal_instability(system, q: np.ndarray, lam: np.ndarray, t: float,
                         n_max: int = 1500) -> str | None:
    """The sentence of :func:`unstable_internal_dynamics` when ``system`` has servo rows
    not collocated with their actuators and their internal dynamics is unstable at
    ``(q, λ)``; None otherwise (or above ``n_max`` coordinates: a dense eigenproblem)."""
    if system.n > n_max or system.m == 0 or not system.efforts(np.zeros(system.m)):
        return None
    try:
        _, kv = system.internal_forces(q, tangent=True)
        K = _dense(system.stiffness(kv, system.hessian_values(lam, q)))
        M = _dense(system.mass_matrix(q))
        J = _dense(system.jacobian(q, t))
        out = _internal_dynamics(system, q, t, J, _null_space(J), K, M)
    except (ModelError, np.linalg.LinAlgError, ValueError):
        return None
    if out is None or not np.any(out[0] < -_zero_tol(out[0])):
        return None
    return unstable_internal_dynamics(out[0])


def _dense(A) -> np.ndarray:
    return A.toarray() if sp.issparse(A) else np.asarray(A)


def _null_space(J: np.ndarray) -> np.ndarray:
    n = J.shape[1]
    if J.shape[0] == 0:
        return np.eye(n)
    nz = J != 0
    if np.all(nz.sum(axis=1) == 1):      # only fixed coordinates: plain selection
        fixed = np.flatnonzero(nz.any(axis=0))
        free = np.setdiff1d(np.arange(n), fixed)
        return np.eye(n)[:, free]
    return sla.null_space(J)


@blas_single_threaded
def _sparse_fixed(asm, K, J, n_modes: int, q) -> ModalResult:
    """Large models whose constraints only fix coordinates: shift-invert Lanczos
    (``eigsh``, σ = 0) on the free coordinates, sparse throughout."""
    import scipy.sparse.linalg as spla

    fixed = np.unique(J.indices)
    free = np.setdiff1d(np.arange(asm.n), fixed)
    Kf = K.tocsr()[free][:, free]
    Kf = 0.5 * (Kf + Kf.T)
    Mf = sp.csr_matrix(asm.mass_matrix(q))[free][:, free]
    k = min(n_modes, len(free) - 2)
    w2, Z = spla.eigsh(Kf.tocsc(), k=k, M=Mf.tocsc(), sigma=0.0, which="LM")
    order = np.argsort(w2)
    w2, Z = w2[order], Z[:, order]
    shapes = np.zeros((asm.n, k))
    shapes[free] = Z
    return _result(w2, shapes)


@solver_options
@blas_single_threaded
def modes(model, q: np.ndarray | None = None, lam: np.ndarray | None = None, t: float = 0.0,
          n_modes: int | None = 10) -> ModalResult:
    """Natural frequencies and mode shapes about ``q`` (reference state by default).

    ``lam`` are the constraint multipliers of that state (from :func:`solve_static`);
    zero by default, which is exact for an unloaded reference state.
    ``n_modes`` (≥ 1, or None for all) lowest modes are returned.  An unstable state
    (ω² < 0) gives negative frequencies and a :class:`fem.FemWarning` (see
    :class:`ModalResult`).
    """
    asm = model.assemble()
    if n_modes is not None:
        n_modes = integer(n_modes, "modes: n_modes", minimum=1)
    t = finite(t, "modes: t")
    if q is not None and np.ndim(q) == 0:
        raise ModelError(f"modes: the second argument is the state q ({asm.n} coordinates), "
                         f"got the number {q!r}; for the number of modes write "
                         f"modes(model, n_modes={q!r})")
    q = asm.q0 if q is None else coordinates(q, asm.n, "modes: q")
    lam = np.zeros(asm.m) if lam is None else coordinates(lam, asm.m, "modes: lam "
                                                           "(one multiplier per constraint row)")
    from .diagnosis import check_finite_start

    check_finite_start(asm, q, t, "modal analysis")
    _, kv = asm.internal_forces(q, tangent=True)
    K = asm.stiffness(kv, asm.hessian_values(lam, q))
    Js = asm.jacobian(q, t).tocsr()
    Js.eliminate_zeros()
    if (sp.issparse(K) and n_modes is not None and asm.n > 800
            and np.all(np.diff(Js.indptr) == 1)):
        return _sparse_fixed(asm, K, Js, n_modes, q)
    K = _dense(K)
    M = _dense(asm.mass_matrix(q))
    J = asm.jacobian(q, t).toarray()
    N = _null_space(J)
    internal = _internal_dynamics(asm, q, t, J, N, K, M)
    if internal is not None:
        w2, shapes = internal
        k = len(w2) if n_modes is None else min(n_modes, len(w2))
        return _result(w2[:k], shapes[:, :k], internal=True)
    Kr = N.T @ K @ N
    Mr = N.T @ M @ N
    Kr = 0.5 * (Kr + Kr.T)
    try:
        w2, Z = sla.eigh(Kr, Mr)
    except np.linalg.LinAlgError as err:
        raise ModelError(f"modal analysis: the reduced mass matrix is not positive definite "
                         f"({err}); some free coordinates carry no mass") from None
    k = len(w2) if n_modes is None else min(n_modes, len(w2))
    w2, Z = w2[:k], Z[:, :k]
    return _result(w2, N @ Z)


def closed_loop_poles(model, q: np.ndarray | None = None, v: np.ndarray | None = None,
                      lam: np.ndarray | None = None, t: float = 0.0) -> np.ndarray:
    """The poles ``s`` of the motion linearized about ``(q, q̇, λ)`` at ``t`` with its
    damping and its controllers (continuous; a sampled controller's zero-order hold is
    not in them): the eigenvalues of ``M ẍ + C ẋ + K x = 0`` on the constraints'
    tangent space (``Φ_q x = 0``), ``K`` the tangent stiffness with the constraint
    Hessian ``Σλ Φ_qq`` and the controllers' ``−∂f/∂q``, ``C`` the damping and the
    controllers' ``−∂f/∂q̇``.

    Returns the poles (complex) with non-negative imaginary part, in order of their
    imaginary part (frequency ``|Im s|/(2π)``, damping ratio ``−Re s/|s|``); rigid
    motions with no restoring force give ``s = 0``.  Dense: for models of up to a few
    thousand coordinates.
    """
    asm = model.assemble()
    t = finite(t, "closed_loop_poles: t")
    q = asm.q0 if q is None else coordinates(q, asm.n, "closed_loop_poles: q")
    v = np.zeros(asm.n) if v is None else coordinates(v, asm.n, "closed_loop_poles: v")
    lam = np.zeros(asm.m) if lam is None else coordinates(
        lam, asm.m, "closed_loop_poles: lam (one multiplier per constraint row)")
    if asm.n > 4000:
        raise ModelError(f"closed_loop_poles: {asm.n} coordinates; the dense eigenproblem "
                         f"of {2 * asm.n} states needs ≈ {8 * (2 * asm.n) ** 2 / 2**30:.1f} "
                         "GiB and minutes; reduce the model (fem.reduction) first")
    _, kv = asm.internal_forces(q, v, tangent=True)
    hv = asm.hessian_values(lam, q)
    jv = asm.jacobian_values(q, t)
    fb = asm.feedback_forces(t, q, v, tangent=True)[1] if asm.has_feedback else None
    inertia = asm.inertia_forces(q, v, np.zeros(asm.n), tangent=True)[1]
    n = asm.n

    def block(cM, cK, cC):
        S = _dense(asm.saddle(cM, cK, kv, hv, jv, 1.0, q=q, cC=cC, inertia=inertia,
                              feedback=fb))
        return S[:n, :n], S[n:, :n]

    M, J = block(1.0, 0.0, 0.0)
    K, _ = block(0.0, 1.0, 0.0)
    C, _ = block(0.0, 0.0, 1.0)
    W = _null_space(J)
    Mr, Kr, Cr = W.T @ M @ W, W.T @ K @ W, W.T @ C @ W
    k = W.shape[1]
    Z, I = np.zeros((k, k)), np.eye(k)
    A = np.block([[Z, I], [-np.linalg.solve(Mr, Kr), -np.linalg.solve(Mr, Cr)]])
    s_all = np.linalg.eigvals(A)
    s_all = s_all[s_all.imag >= -1e-9 * max(1.0, float(np.abs(s_all).max()))]
    return s_all[np.argsort(np.abs(s_all.imag), kind="stable")]
