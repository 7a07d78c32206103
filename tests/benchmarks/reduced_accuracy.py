"""Benchmark: the reduced flagship platform against the full plate on the paper's circle
(issue 19, item 4; ``docs/reduced_bodies.md``).

The case's defaults (E = 6.9e8 Pa, ``shear_factor="auto"``, β = 1e-5 s, h = 5 ms,
ρ∞ = 0.1, the whole 1.6 s circle), one mesh per call; each configuration is one run:

* ``full`` — the full Bézier plate (``full@0.004``: at h = 4 ms);
* ``nl:M:K`` — the reduced platform, nonlinear reduction (cubic modal force), ``M``
  fixed-interface normal modes, modal derivatives of the ``K`` lowest (``nl:M:K@h``);
* ``lin:M`` — the linear reduction (``f0 + K η``) with ``M`` normal modes;
* ``nl:M:K+eR`` — the nonlinear one enriched with ``R`` vectors compressed from every
  pair's modal derivative (``reduce_body(..., enrich=R)``; ``+eRm``: weighted by mass,
  ``enrich_weight="mass"``);
* ``…~T`` — the quartic potential compressed to the relative tolerance ``T``
  (``reduce_body(..., cubic_tol=T)``), e.g. ``nl:6:4+e48~1e-3``.

Every run is compared with the first ``full`` run of the call (the reference): torque
max |Δτ| / range of the reference's torques; sag range ``[min, max]`` and the largest
change of its ends over the reference's mean sag; centre strains (Green–Lagrange, at P,
bottom/top e11, e22) max over time of |Δε| over the reference's max |ε| per component
(the largest reported) and the ranges' ends likewise.  A run that fails (Newton) reports
where.  Reductions are cached in ``$FEM_CACHE_DIR`` (default: a fresh temporary
directory per call, ``--cache DIR`` to keep them).  One JSON line per run.

    python tests/benchmarks/reduced_accuracy.py hexagon_24 full nl:12:4 nl:24:4 lin:12
    python tests/benchmarks/reduced_accuracy.py hexagon_96 full full@0.004 --t-end 0.4
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from benchtools import clock, machine, one_thread

one_thread()

import numpy as np  # noqa: E402

from fem.robots import rrru3  # noqa: E402
from fem.robots.rrru3_model import build_robot, histories, run_path, static_state  # noqa: E402

E_PA, BETA, DT, RHO = 6.9e8, 1e-5, 5e-3, 0.1
LAYERS, COMPONENTS = ("bottom", "middle", "top"), ("e11", "e22", "e33")


def parse(spec: str) -> dict:
    """``"full"``, ``"full@0.004"``, ``"nl:12:4"``, ``"nl:12:4+e16"``, ``"lin:12@0.004"``
    → run options."""
    body, _, dt = spec.partition("@")
    body, _, tol = body.partition("~")
    body, _, enrich = body.partition("+e")
    parts = body.split(":")
    cfg = {"spec": spec, "dt_s": float(dt) if dt else DT}
    if parts[0] == "full":
        cfg["platform"] = "flexible"
    elif parts[0] in ("nl", "lin"):
        cfg.update(platform="reduced", n_modes=int(parts[1]),
                   reduction="nonlinear" if parts[0] == "nl" else "linear",
                   n_derivatives=int(parts[2]) if parts[0] == "nl" else 0,
                   n_enrich=0, cubic_tol=0.0)
        if enrich:
            cfg.update(n_enrich=int(enrich.rstrip("m")),
                       enrich_weight="mass" if enrich.endswith("m") else "energy")
        if tol:
            cfg["cubic_tol"] = float(tol)
    else:
        raise SystemExit(f"unknown configuration {spec!r}")
    return cfg


def run(mesh: str, cfg: dict, t_end: float, E: float = E_PA, rho_inf: float = RHO,
        beta: float = BETA) -> dict:
    """One circle: ``{"t", "torque", "sag", "centre_strain"}`` histories and run facts."""
    geom = rrru3.RRRU3Geometry()
    path = rrru3.paper_circle_path(geom)
    kw = {} if cfg["platform"] != "reduced" else {
        k: cfg[k] for k in ("n_modes", "reduction", "n_derivatives", "n_enrich",
                            "enrich_weight", "cubic_tol") if k in cfg}
    t0 = clock()
    rm = build_robot(geom, cfg["platform"], mesh, E, 0.3, "shared", path, "auto", beta, **kw)
    st = static_state(rm)
    offline = clock() - t0
    out = {"spec": cfg["spec"], "mesh": mesh, "dt_s": cfg["dt_s"],
           "coordinates": rm.counts["n_coordinates"], "offline_s": round(offline, 2)}
    if rm.reduced is not None:
        out["modes"] = int(rm.reduced.body.reduction.info["n_modes"])
    t0 = clock()
    try:
        res = run_path(rm, t_end, cfg["dt_s"], rho_inf, q0=st.q)
    except Exception as err:        # noqa: BLE001 - a failed run is a measurement
        out.update(failed=str(err).splitlines()[0][:200], wall_s=clock() - t0)
        return out
    out["wall_s"] = round(clock() - t0, 2)
    h = histories(rm, res, path)
    out["hist"] = {"t": np.asarray(res.t), "torque": h["torque"], "sag": h["sag"],
                   "centre_strain": h["centre_strain"]}
    out["sag_range_mm"] = [round(1e3 * float(h["sag"].min()), 5),
                           round(1e3 * float(h["sag"].max()), 5)]
    out["torque_range_Nm"] = [round(float(h["torque"].min()), 4),
                              round(float(h["torque"].max()), 4)]
    return out


def on_grid(t_ref: np.ndarray, t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``y(t)`` on the reference's times (linear interpolation, per column)."""
    if len(t) == len(t_ref) and np.allclose(t, t_ref):
        return y
    flat = y.reshape(len(t), -1)
    return np.column_stack([np.interp(t_ref, t, flat[:, j])
                            for j in range(flat.shape[1])]).reshape((len(t_ref),) + y.shape[1:])


def compare(ref: dict, other: dict) -> dict:
    """The differences of ``other``'s histories from ``ref``'s (see the module docstring)."""
    t = ref["t"]
    tau_r, tau = ref["torque"], on_grid(t, other["t"], other["torque"])
    sag_r, sag = ref["sag"], on_grid(t, other["t"], other["sag"])
    eps_r, eps = ref["centre_strain"], on_grid(t, other["t"], other["centre_strain"])
    out = {"torque_vs_full": float(np.abs(tau - tau_r).max() / np.ptp(tau_r)),
           "sag_range_vs_full": float(max(abs(sag.min() - sag_r.min()),
                                          abs(sag.max() - sag_r.max())) / sag_r.mean()),
           "sag_vs_full": float(np.abs(sag - sag_r).max() / sag_r.mean())}
    strain, strain_range = {}, {}
    for i, layer in enumerate(LAYERS):
        for j, c in enumerate(COMPONENTS):
            a, b = eps_r[:, i, j], eps[:, i, j]
            scale = np.abs(a).max()
            strain[f"{layer} {c}"] = float(np.abs(b - a).max() / scale)
            strain_range[f"{layer} {c}"] = float(max(abs(b.min() - a.min()),
                                                     abs(b.max() - a.max())) / scale)
    bending = [f"{layer} {c}" for layer in ("bottom", "top") for c in ("e11", "e22")]
    out["strain_vs_full"] = max(strain[k] for k in bending)
    out["strain_range_vs_full"] = max(strain_range[k] for k in bending)
    out["strain_vs_full_each"] = {k: round(v, 5) for k, v in strain.items()}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mesh")
    ap.add_argument("configs", nargs="+",
                    help="full, full@h, nl:M:K, nl:M:K+eR, nl:M:K@h, lin:M")
    ap.add_argument("--t-end", type=float, default=1.6)
    ap.add_argument("--E", type=float, default=E_PA, help="plate modulus [Pa]")
    ap.add_argument("--rho-inf", type=float, default=RHO, help="generalized-α ρ∞")
    ap.add_argument("--beta", type=float, default=BETA, help="plate damping β [s]")
    ap.add_argument("--cache", help="reduction cache directory (FEM_CACHE_DIR)")
    ap.add_argument("--save", help="save every run's histories to this .npz")
    args = ap.parse_args()
    tmp = None
    if args.cache:
        os.environ["FEM_CACHE_DIR"] = args.cache
    elif "FEM_CACHE_DIR" not in os.environ:
        tmp = tempfile.TemporaryDirectory()
        os.environ["FEM_CACHE_DIR"] = tmp.name
    ref, saved = None, {}
    for spec in args.configs:
        out = run(args.mesh, parse(spec), args.t_end, args.E, args.rho_inf, args.beta)
        hist = out.pop("hist", None)
        if hist is not None:
            saved.update({f"{spec}/{k}": v for k, v in hist.items()})
            if ref is None and spec.startswith("full"):
                ref = hist
                out["reference"] = True
            elif ref is not None:
                out.update({k: (round(v, 6) if isinstance(v, float) else v)
                            for k, v in compare(ref, hist).items()})
        out.update(t_end_s=args.t_end, E_Pa=args.E, rho_inf=args.rho_inf, beta_s=args.beta)
        print(json.dumps(out), flush=True)
        if args.save:
            np.savez(args.save, **saved)
    print(json.dumps({"machine": machine()}), flush=True)
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
    sys.exit(0)
