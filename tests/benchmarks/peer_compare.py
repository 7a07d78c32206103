"""Interleaved peer comparison of the cable benchmark: fem against Exudyn (issue 12).

For each number of elements, runs ``fem`` (``cable_cantilever.py``) and Exudyn
(``peer_exudyn_cable.py``) alternately, each in a fresh subprocess, ``-r`` times each
(the order flips every repeat), and prints one JSON line per size: median and min wall
of both, their ratio (fem / Exudyn), both tip z and their relative difference, the
Newton tolerances and iterations, the machine.

Each worker runs a 100-step warm-up of the same model size in the same process (imports,
numba kernels from the on-disk cache, the code path of the chosen storage, Exudyn's
first-call set-up), then builds the model again and times only the
simulation call.  One thread on both sides: OMP/MKL/OpenBLAS threads = 1 in the
environment, Exudyn's ``parallel.numberOfThreads = 1``, fem's solvers limit BLAS to one
thread themselves.

Exudyn is measurement only, never a dependency of ``fem``; without it the fem side
still runs and the Exudyn fields are null.  Exudyn's Newton tolerance is the tightest of
``--tols`` at which it completes the 1000 steps (found on its first run, then kept).

    python tests/benchmarks/peer_compare.py 16 64 256 > out.jsonl
    python tests/benchmarks/scaling_plot.py out.jsonl cable_scaling.png
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from benchtools import interleaved, last_json, machine, one_thread_env, summary

HERE = Path(__file__).resolve().parent
OURS_TOL = 1e-6
SIZES = (8, 16, 64, 256, 512)


def run_ours(n: int, timeout: float) -> dict:
    p = subprocess.run([sys.executable, str(HERE / "peer_compare.py"), "--worker", str(n)],
                       capture_output=True, text=True, env=one_thread_env(), timeout=timeout)
    out = last_json(p.stdout)
    if out is None:
        raise RuntimeError(f"fem worker n={n} failed:\n{p.stderr[-2000:]}")
    return out


def run_exudyn(n: int, tols: list[float], abs_tol: float | None, timeout: float) -> dict:
    cmd = [sys.executable, str(HERE / "peer_exudyn_cable.py"), str(n),
           "--tols", ",".join(f"{t:g}" for t in tols)]
    if abs_tol is not None:
        cmd += ["--abs-tol", f"{abs_tol:g}"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=one_thread_env(),
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"completed": False, "error": f"timeout after {timeout:g} s"}
    out = last_json(p.stdout)
    if out is None:
        return {"completed": False, "error": p.stderr[-500:]}
    return out


def worker(n: int) -> None:
    """fem side, in a fresh process: warm-up, then the timed benchmark."""
    spec = importlib.util.spec_from_file_location("cable_cantilever",
                                                  HERE / "cable_cantilever.py")
    cc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cc)
    # warm-up on the same model size (imports, numba kernels from the disk cache, the
    # storage's code path: dense, banded or sparse depends on n), not timed; 100 steps so
    # that every compiled path the run takes is loaded (the compiled loop's fresh
    # factorization first comes after 5–15 steps; loading it costs ≈ 70 ms)
    cc.run(n, steps=100)
    print(json.dumps(cc.run(n)), flush=True)


def compare(n: int, repeats: int, tols: list[float], abs_tol: float | None,
            have_exudyn: bool, timeout: float) -> dict:
    exu_tols, exu_fail = list(tols), None

    def run(side: str) -> dict | None:
        nonlocal exu_tols, exu_fail
        if side == "ours":
            return run_ours(n, timeout)
        if not have_exudyn or exu_fail is not None:
            return None
        r = run_exudyn(n, exu_tols, abs_tol, timeout)
        if not r.get("completed"):
            exu_fail = r
            return None
        exu_tols = [r["tol"]]            # keep the tolerance found first
        return r

    runs = interleaved(("ours", "exudyn"), repeats, run)   # the order flips every repeat
    ours, exu = runs["ours"], runs["exudyn"]
    o = ours[-1]
    row = {"elements": n, "steps": o["steps"], "repeats": repeats,
           "ours": {**summary([r["wall_s"] for r in ours]), "tol": OURS_TOL,
                    "tip_z_m": o["tip_z_m"],
                    "newton_iterations_per_step": o["newton_iterations_per_step"],
                    "factorizations": o["factorizations"],
                    "roundoff_accepts": o["roundoff_accepts"]}}
    if exu:
        e = exu[-1]
        row["exudyn"] = {**summary([r["wall_s"] for r in exu]), "version": e["version"],
                         "tol": e["tol"],
                         "abs_tol": e["abs_tol"], "tols_failed": exu[0]["failed"],
                         "tip_z_m": e["tip_z_m"],
                         "newton_iterations_per_step": e["newton_iterations_per_step"],
                         "jacobians": e["jacobians"]}
        row["ratio_median"] = round(row["ours"]["wall_median_s"]
                                    / row["exudyn"]["wall_median_s"], 3)
        row["ratio_min"] = round(row["ours"]["wall_min_s"] / row["exudyn"]["wall_min_s"], 3)
        row["tip_rel_diff"] = float(f"{abs(o['tip_z_m'] - e['tip_z_m']) / abs(e['tip_z_m']):.3g}")
    else:
        row["exudyn"] = None if not have_exudyn else exu_fail
        row["ratio_median"] = row["ratio_min"] = row["tip_rel_diff"] = None
    row["machine"] = machine()
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("elements", nargs="*", type=int, default=list(SIZES))
    ap.add_argument("-r", "--repeats", type=int, default=3)
    ap.add_argument("--tols", default="1e-6,1e-5,1e-4",
                    help="Exudyn relative Newton tolerances to try, tightest first")
    ap.add_argument("--exudyn-abs-tol", type=float, default=None,
                    help="Exudyn Newton absolute tolerance (its default 1e-10)")
    ap.add_argument("--timeout", type=float, default=900.0, help="per subprocess [s]")
    ap.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker is not None:
        worker(args.worker)
        return 0
    try:
        import exudyn  # noqa: F401  (only to know whether the peer can run)
        have_exudyn = True
    except ImportError:
        have_exudyn = False
    if not have_exudyn:
        print("peer_compare: exudyn is not installed (pip install exudyn); running the fem "
              "side only. Exudyn is a measurement-only peer, not a dependency of fem.",
              file=sys.stderr)
    tols = [float(t) for t in args.tols.split(",")]
    for n in args.elements:
        print(json.dumps(compare(n, args.repeats, tols, args.exudyn_abs_tol, have_exudyn,
                                 args.timeout)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
