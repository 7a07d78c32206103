"""Benchmark: why the 96-element platform's circle is not real time (issue 12).

Measures, on the flagship robot with a given platform mesh (default ``hexagon_96``):

``staleness``
    How fast a kept iteration matrix goes stale.  States come from a run with a fresh
    factorization every step; for a matrix made at step k (default 100: t = 0.5 s, mid
    circle, where the platform moves fastest) and used s steps later, the
    spectral radius of ``I − X⁻¹ S_new`` (power iteration), for ``X`` the kept matrix,
    the kept matrix co-rotated with the platform (what ``corotate=True`` does), and both
    with the robot's part (limb coordinates and every constraint row but the plate's own)
    taken exact from the new matrix.  Modified Newton contracts at about this radius.
``factorizations``
    Factorization and solve times of the alternatives for the same matrix: SuperLU on
    the saddle matrix (what runs); SuperLU with a symmetric ordering and no pivoting on
    the plate's SPD augmented matrix ``S + ρ AᵀA`` (the linear constraint rows folded in,
    a lower bound for any saddle solver); the null-space elimination of the linear
    constraint rows by sparse Gauss–Jordan with Markowitz pivoting (fill of the basis and
    of the reduced matrix).
``policy``
    Wall time of the whole circle for several fixed factorization-cost ratios
    (``factor_cost``), the default estimated from operation counts and the clock-timed
    policy: the best any setting of this modified Newton reaches.

Prints one JSON object.  Run: ``python tests/benchmarks/platform_floor.py [mesh]``
(≈ 2 min for hexagon_96 on the project's 2-core machine).
"""

from __future__ import annotations

import json
import platform
import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from fem.robots import rrru3
from fem.robots.rrru3_model import build_robot, run_path, static_state
from fem.solvers.corotation import CoRotation, best_fit_rotation
from fem.solvers.dynamic import GeneralizedAlpha, simulate

H = 5e-3


def _robot(mesh):
    geom = rrru3.RRRU3Geometry()
    return build_robot(geom, "flexible", mesh, path=rrru3.paper_circle_path(geom),
                       shear_factor="auto", damping_beta=1e-5)


def _radius(X, S_new, iters=30, seed=1):
    lu = spla.splu(sp.csc_matrix(X))
    x = np.random.default_rng(seed).standard_normal(X.shape[0])
    x /= np.linalg.norm(x)
    r = 0.0
    for _ in range(iters):
        y = x - lu.solve(S_new @ x)
        r = float(np.linalg.norm(y))
        x = y / r
    return r


def _timed(fn, repeat=5):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def staleness_and_factorizations(mesh: str, k0: int = 100, spans=(1, 2, 5, 10)) -> dict:
    rm = _robot(mesh)
    asm = rm.model.assemble()
    n, m = asm.n, asm.m
    st = static_state(rm)
    ga = GeneralizedAlpha(rm.model, 0.1, q0=st.q, tol=1e-8, reuse="step", factor_cost=1e-3)
    p = ga.p
    bp = (1 - p["alpha_m"]) / (H * H * p["beta"] * (1 - p["alpha_f"]))
    gp = p["gamma"] / (H * p["beta"])

    def matrix(q, lam, t):
        kv = asm.internal_forces(q, None, tangent=True)[1]
        return sp.csr_matrix(asm.saddle(1.0, 1.0 / bp, kv, asm.hessian_values(lam, q),
                                        asm.jacobian_values(q, t), 1.0, q=q, cC=gp / bp))

    states = []
    for _ in range(k0 + max(spans) + 1):
        states.append((ga.q.copy(), ga.lam.copy(), ga.t + H))
        ga.advance(H)
    trip, pos = CoRotation(asm).bodies[0]
    plate = np.unique(trip)
    plate_rows = np.concatenate([asm.rows_of(c) for c in rm.model.constraints
                                 if "continuity" in c.name or "edge straight" in c.name])
    robot = np.concatenate([np.setdiff1d(np.arange(n), plate),
                            n + np.setdiff1d(np.arange(m), plate_rows)])
    keep = np.ones(n + m)
    keep[robot] = 0.0
    Dk = sp.diags(keep)

    def hybrid(X, S_new):     # the robot's rows and columns exact
        return Dk @ X @ Dk + (S_new - Dk @ S_new @ Dk)

    q0, l0, t0 = states[k0]
    S0 = matrix(q0, l0, t0)
    stale = []
    for s in spans:
        q1, l1, t1 = states[k0 + s]
        S1 = matrix(q1, l1, t1)
        R = best_fit_rotation(q0[pos], q1[pos])
        rows, cols, vals = [], [], []
        for tr in trip:
            rows.append(np.repeat(tr, 3))
            cols.append(np.tile(tr, 3))
            vals.append(R.ravel())
        other = np.setdiff1d(np.arange(n + m), trip.ravel())
        P = sp.csr_matrix((np.concatenate(vals + [np.ones(other.size)]),
                           (np.concatenate(rows + [other]), np.concatenate(cols + [other]))),
                          shape=(n + m, n + m))
        Xr = P @ S0 @ P.T
        stale.append({"steps": s,
                      "platform_rotation_deg": round(float(np.degrees(np.arccos(
                          np.clip((np.trace(R) - 1) / 2, -1, 1)))), 3),
                      "kept": round(_radius(S0, S1), 4),
                      "corotated": round(_radius(Xr, S1), 4),
                      "kept_robot_exact": round(_radius(hybrid(S0, S1), S1), 4),
                      "corotated_robot_exact": round(_radius(hybrid(Xr, S1), S1), 4)})

    # ---- factorization alternatives at the first state
    S = S0.tocsc()
    b = np.random.default_rng(0).standard_normal(n + m)
    t_fac, lu = _timed(lambda: spla.splu(S, permc_spec="COLAMD"))
    t_sol, _ = _timed(lambda: lu.solve(b), 20)
    fac = {"saddle_superlu_colamd": {"unknowns": n + m, "nnz": int(S.nnz),
                                     "lu_nnz": int(lu.L.nnz + lu.U.nnz),
                                     "factorize_ms": round(1e3 * t_fac, 2),
                                     "solve_ms": round(1e3 * t_sol, 3)}}
    # the linear constraint rows (constant Jacobian, not servo)
    hrows = set(asm._h_lrow[np.abs(asm._h_val) > 0].tolist())
    servo = set(asm._servo_rows.tolist())
    lin = np.array([i for i in range(m) if i not in hrows and i not in servo])
    A = asm.jacobian(q0, t0).tocsr()[lin]
    Snn = sp.csr_matrix(S0[:n, :n])
    rho = np.abs(Snn.diagonal()).mean() / np.abs(A.data).max() ** 2
    Haug = (Snn + rho * (A.T @ A)).tocsc()
    t_fac, lu2 = _timed(lambda: spla.splu(Haug, permc_spec="MMD_AT_PLUS_A",
                                          diag_pivot_thresh=0.0,
                                          options={"SymmetricMode": True}))
    t_sol, _ = _timed(lambda: lu2.solve(b[:n]), 20)
    fac["augmented_spd_superlu_mmd_no_pivoting"] = {
        "unknowns": n, "linear_rows_folded": int(lin.size), "nnz": int(Haug.nnz),
        "lu_nnz": int(lu2.L.nnz + lu2.U.nnz), "factorize_ms": round(1e3 * t_fac, 2),
        "solve_ms": round(1e3 * t_sol, 3)}
    T = _null_space_basis(A.toarray())
    rest = np.setdiff1d(np.arange(m), lin)
    Q = sp.bmat([[sp.csr_matrix(T), None],
                 [None, sp.csr_matrix((np.ones(rest.size), (rest, np.arange(rest.size))),
                                      shape=(m, rest.size))]]).tocsr()
    Kr = (Q.T @ S0 @ Q).tocsc()
    t_fac, lu3 = _timed(lambda: spla.splu(Kr, permc_spec="COLAMD"), 3)
    fac["null_space_elimination"] = {
        "unknowns": int(Kr.shape[0]), "basis_nnz": int(np.count_nonzero(T)),
        # density of the dependent coordinates' rows (the identity rows excluded)
        "basis_density": round((np.count_nonzero(T) - T.shape[1])
                               / (lin.size * T.shape[1]), 4),
        "nnz": int(Kr.nnz), "lu_nnz": int(lu3.L.nnz + lu3.U.nnz),
        "factorize_ms": round(1e3 * t_fac, 2)}
    return {"n_coordinates": n, "n_constraints": m, "staleness": stale,
            "factorizations": fac}


def _null_space_basis(A: np.ndarray, thresh: float = 0.1) -> np.ndarray:
    """``T`` with ``A T = 0`` by Gauss–Jordan elimination with Markowitz pivoting and
    threshold partial pivoting (the sparsest coordinate partitioning we could find)."""
    A = A.copy()
    mL, n = A.shape
    nz = A != 0
    left = np.ones(mL, bool)
    piv_rows, piv_cols = [], []
    for _ in range(mL):
        rc = np.where(left, nz.sum(1), 1 << 30)
        cc = nz[left].sum(0)
        best = None
        for i in np.argsort(rc)[:8]:
            if not left[i]:
                continue
            cand = np.flatnonzero(np.abs(A[i]) >= thresh * np.abs(A[i]).max())
            cost = (rc[i] - 1) * (cc[cand] - 1)
            if best is None or cost.min() < best[0]:
                best = (cost.min(), i, cand[np.argmin(cost)])
        _, i, j = best
        left[i] = False
        A[i] /= A[i, j]
        others = np.flatnonzero(nz[:, j])
        others = others[others != i]
        if others.size:
            A[others] -= np.outer(A[others, j], A[i])
            A[others, j] = 0.0
            nz[others] = A[others] != 0
        nz[i] = A[i] != 0
        piv_rows.append(i)
        piv_cols.append(j)
    dep = np.array(piv_cols)
    ind = np.setdiff1d(np.arange(n), dep)
    T = np.zeros((n, ind.size))
    T[dep] = -A[np.array(piv_rows)][:, ind]
    T[ind, np.arange(ind.size)] = 1.0
    return T


def policy(mesh: str, costs=("estimated", "timed", 5.0, 20.0)) -> list[dict]:
    rm = _robot(mesh)
    q0 = static_state(rm).q
    out = []
    for c in costs:
        t0 = time.perf_counter()
        if c == "estimated":
            res = run_path(rm, 1.6, H, 0.1, q0=q0)      # the case's default
        else:
            res = simulate(rm.model, 1.6, H, rho_inf=0.1, q0=q0, tol=1e-8,
                           constraint_tol=1e-11, reuse="step", corotate=True, factor_cost=c)
        wall = time.perf_counter() - t0
        out.append({"factor_cost": c, "ratio": round(res.info["factor_cost_iterations"], 2),
                    "wall_s": round(wall, 2),
                    "real_time_factor": round(1.6 / wall, 3),
                    "factorizations": res.info["factorizations"],
                    "iterations_per_step": round(float(res.stats["iterations"][1:].mean()), 2)})
    return out


if __name__ == "__main__":
    mesh = sys.argv[1] if len(sys.argv) > 1 else "hexagon_96"
    report = {"mesh": mesh, **staleness_and_factorizations(mesh), "policy": policy(mesh),
              "machine": f"{platform.machine()}, python {sys.version.split()[0]}"}
    print(json.dumps(report))
