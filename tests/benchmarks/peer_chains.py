"""Floating-frame chains against Exudyn: each side's fastest model within 1 % (issue 23, item 2).

Three benchmarks: the spin-up beam at Ω0 = 4 and 10 rad/s (``cases/spinup_beam.py``,
the case's 20 s) and the two-link fall (``cases/two_link_arm_fall.py``, its first
``--t-end-fall`` = 2 s: the fall through the lowest position).  The figure of merit is
the **peak tip deflection**: the spin-up's ``max |tip_v_m|`` (the tip's transverse
position in the hub frame) and, for the fall, ``max |deflection{1,2}_m|`` of *each* link
(the tip's offset from its link's root transverse to the root tangent); both sides
compute the same quantity (``peer_exudyn_chains.py`` says how).

1. **Reference**: Exudyn's ``ANCFCable2D`` at a sequence of refinements (elements and
   step halved together, :data:`REFERENCE`); the last is the reference, and the JSON
   shows how far each refinement moved the peaks.  Without Exudyn, our Hermite elements
   with 16 functions at a small step stand in (said in the JSON).
2. **Search**: every configuration of each side is run once; a configuration passes when
   every peak is within ``--tolerance`` (1 %) of the reference's, and so are those of the
   same model at the finest step of the grid (the model stays within 1 %: a coarse step
   whose error happens to cancel the model's own does not count).  Ours: bases ×
   ``n_coordinates`` × kinematics × ``dt_s``; Exudyn: elements × step.  Steps are tried
   from the coarsest down, and a model stops at its first passing step (a finer step of
   the same model is slower); a larger model only tries steps coarser than the best
   passing one of its family (at the same or a finer step it is slower).
3. **Timing**: the three fastest passing configurations of each side (Exudyn also with
   its dense solver and with a Jacobian per step, settings that change its speed, not its
   result) run interleaved in this process, the order rotated every repeat, ``-r``
   repeats (default 5; ``--quick`` 3); the fastest median of each side gives the ratio
   (ours / Exudyn).  Walls are the solver call only: ``fem.simulate`` (the case's
   ``wall_s``) and Exudyn's ``SolveSystem``.

Prints JSON lines: one per search run (``"kind": "search"``), then one per benchmark
(``"kind": "result"``: reference and its convergence, the chosen configurations with
their errors, the timing table, the ratio); ``--table`` adds the Markdown tables of
``docs/performance.md``.

    pip install exudyn        # measurement only, never a dependency of fem
    python tests/benchmarks/peer_chains.py --quick            # ≈ 7 min, loaded 2 cores
    python tests/benchmarks/peer_chains.py --table > chains.jsonl    # full grid
    python tests/benchmarks/peer_chains.py spinup_omega10 -r 7
    python tests/benchmarks/peer_chains.py --chosen --table     # ≈ 1 min: no search

``--chosen`` skips the reference and the search: it times the configurations the full
run chose (:data:`CHOSEN`, docs/performance.md), Exudyn's with its four settings,
interleaved, and measures their peaks against the full run's reference
(:data:`REFERENCE_PEAKS`) — the cheapest run that still gives the three ratios, valid
while the chosen configurations stay the fastest passing ones.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings

import numpy as np
from benchtools import interleaved, machine, one_thread, summary

one_thread()

import peer_exudyn_chains as peer  # noqa: E402
import spinup_beam  # noqa: E402
import two_link_arm_fall  # noqa: E402

from fem import bases  # noqa: E402

BENCHMARKS = {
    # name: (case module, case parameters)
    "spinup_omega4": (spinup_beam, {"omega0_rad_s": 4.0}),
    "spinup_omega10": (spinup_beam, {"omega0_rad_s": 10.0}),
    "two_link_fall": (two_link_arm_fall, {}),
}
REFERENCE = {
    # Exudyn (elements, step [s]) refinements, the last one the reference
    "spinup_beam": [(16, 5e-3), (32, 2.5e-3), (64, 1.25e-3)],
    "two_link_arm_fall": [(8, 5e-4), (16, 2.5e-4), (32, 1.25e-4)],
}
OURS_REFERENCE = ("fe", 16, "fourth_order", 0.25)
"""Without Exudyn: our reference (basis, n, kinematics, step as a fraction of the
finest searched step)."""
STEPS = {
    "spinup_beam": [0.2, 0.1, 0.05, 0.02, 0.01, 0.005],
    "two_link_arm_fall": [0.02, 0.01, 0.005, 0.0025, 0.001],
}
EXUDYN_STEPS = {
    "spinup_beam": [0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.0025],
    "two_link_arm_fall": [0.02, 0.01, 0.005, 0.0025, 0.001, 5e-4],
}
CHOSEN = {
    # the fastest passing configurations of the full run (docs/performance.md):
    # ours (basis, n, kinematics, step), Exudyn's (elements, step)
    "spinup_omega4": {"fem": [("fe", 2, "paper", 0.2)], "exudyn": [(4, 0.05)]},
    "spinup_omega10": {"fem": [("fe", 2, "paper", 0.2)], "exudyn": [(6, 0.01)]},
    "two_link_fall": {"fem": [("bspline", 3, "paper", 0.01)], "exudyn": [(2, 5e-4)]},
}
REFERENCE_PEAKS = {
    # the full run's reference: Exudyn at its last refinement (REFERENCE)
    "spinup_omega4": [0.533602], "spinup_omega10": [1.083107],
    "two_link_fall": [0.017639, 0.010971],
}
SIZES = [1, 2, 3, 4, 6, 8]
QUICK_SIZES = [1, 2, 4]
EXUDYN_ELEMENTS = [2, 3, 4, 6, 8, 12, 16]
QUICK_EXUDYN_ELEMENTS = [2, 4, 8]
KINEMATICS = ("paper", "fourth_order")
EXUDYN_SETTINGS = [("sparse", "modified"), ("dense", "modified"), ("sparse", "per_step"),
                   ("dense", "per_step")]
"""Exudyn's linear solver and Newton variants timed for its candidates: its default
modified Newton, or a fresh Jacobian every step (``modifiedNewtonJacUpdatePerStep``)."""


def _t_end(mod, args) -> float:
    return args.t_end_fall if mod is two_link_arm_fall else mod.PARAMS["t_end_s"]


def ours(mod, case_params: dict, basis: str, n: int, kinematics: str, dt: float,
         t_end: float) -> dict:
    """One run of the case (its ``run``: the same figures as ``fem run``); the peaks."""
    params = {**case_params, "basis": basis, "n_coordinates": n, "kinematics": kinematics,
              "dt_s": dt, "t_end_s": t_end}
    try:
        f = mod.run(**params)
    except Exception as err:      # noqa: BLE001  (a failed configuration is a result)
        return {"completed": False,
                "error": f"{type(err).__name__}: {str(err).split(';')[0][:200]}"}
    if f.get("diverged_at_s") is not None:
        return {"completed": False, "error": f"diverged at {f['diverged_at_s']} s"}
    if mod is spinup_beam:
        peaks = [f["tip_v_peak_m"]]
    else:
        peaks = [float(np.abs(f["deflection1_m"]).max()),
                 float(np.abs(f["deflection2_m"]).max())]
    return {"completed": True, "wall_s": f["wall_s"], "peaks_m": peaks,
            "coordinates": int(mod.build(**params).n_dof)}


def exudyn(mod, case_params: dict, elements: int, h: float, t_end: float,
           solver: str = "sparse", newton: str = "modified", abs_tols=peer.ABS_TOLS) -> dict:
    return peer.solve(mod.__name__, elements, h, t_end,
                      case_params.get("omega0_rad_s", 0.0), abs_tols, solver, newton)


def error(peaks, ref) -> float:
    """The largest relative difference of the peaks from the reference's."""
    return max(abs(p - r) / abs(r) for p, r in zip(peaks, ref, strict=True))


def reference(mod, case_params: dict, t_end: float, quick: bool, have_exudyn: bool,
              finest: float) -> dict:
    """The converged peaks: the last of the refinement sequence, and the sequence."""
    seq = []
    if have_exudyn:
        plan = REFERENCE[mod.__name__][:2] if quick else REFERENCE[mod.__name__]
        for elements, h in plan:
            r = exudyn(mod, case_params, elements, h, t_end)
            seq.append({"code": "exudyn", "elements": elements, "h_s": h,
                        "peaks_m": r.get("peaks_m"), "wall_s": r.get("wall_s"),
                        "abs_tol": r.get("abs_tol"), "completed": r["completed"]})
    else:
        basis, n, kin, frac = OURS_REFERENCE
        for k in ((n // 2, 2 * frac), (n, frac)):
            r = ours(mod, case_params, basis, k[0], kin, finest * k[1], t_end)
            seq.append({"code": "fem", "basis": basis, "n_coordinates": k[0],
                        "kinematics": kin, "dt_s": finest * k[1], **r})
    done = [s for s in seq if s["completed"]]
    if not done:
        raise RuntimeError(f"{mod.__name__}: no reference run completed: {seq}")
    for a, b in zip(done, done[1:], strict=False):
        b["moved_from_previous"] = round(error(b["peaks_m"], a["peaks_m"]), 6)
    return {"peaks_m": done[-1]["peaks_m"], "sequence": seq}


def _scan(models, steps, run, ref, tol, family, emit) -> list[dict]:
    """Run every model from the coarsest step down; the rows (pruned as documented).

    A row passes when its peaks are within ``tol`` of the reference's *and* those of the
    same model at the finest step are: a model whose converged answer is off by more
    (the paper's kinematics at Ω0 = 10, a basis too small) can otherwise hit the
    reference at one coarse step by a cancellation of its time-step error."""
    rows, best = [], {}
    for model in models:
        fam = family(model)
        finest = None
        for h in steps:
            if fam in best and h <= best[fam]:
                break
            r = run(model, h)
            row = {**model, "h_s": h, **r}
            if r["completed"]:
                row["error"] = round(error(r["peaks_m"], ref), 6)
                row["passes"] = row["error"] <= tol
                if row["passes"]:
                    if finest is None:
                        finest = r if h == steps[-1] else run(model, steps[-1])
                    row["error_finest_step"] = (round(error(finest["peaks_m"], ref), 6)
                                                if finest["completed"] else None)
                    row["passes"] = (row["error_finest_step"] is not None
                                     and row["error_finest_step"] <= tol)
            rows.append(row)
            emit(row)
            if row.get("passes"):
                best[fam] = max(best.get(fam, 0.0), h)
                break
            if "error_finest_step" in row:
                break          # the model itself is off: no step of it passes
    return rows


def _fastest(rows: list[dict], k: int) -> list[dict]:
    return sorted((r for r in rows if r.get("passes")), key=lambda r: r["wall_s"])[:k]


def _chosen_rows(name: str, mod, case_params: dict, t_end: float, have_exudyn: bool,
                 emit) -> tuple[dict, list, list]:
    """``--chosen``: the reference of the full run and one run of each chosen
    configuration (no search); every row passes when its peaks are within the
    tolerance (reported, not required: the full run established it)."""
    ref = {"peaks_m": REFERENCE_PEAKS[name], "sequence": [],
           "note": "the full run's reference (REFERENCE_PEAKS), not recomputed"}
    ours_rows, exu_rows = [], []
    for basis, n, kin, h in CHOSEN[name]["fem"]:
        ours(mod, case_params, basis, n, kin, h, 5 * h)          # warm-up
        r = ours(mod, case_params, basis, n, kin, h, t_end)
        ours_rows.append({"code": "fem", "basis": basis, "kinematics": kin,
                          "n_coordinates": n, "h_s": h, **r})
    if have_exudyn:
        for elements, h in CHOSEN[name]["exudyn"]:
            r = exudyn(mod, case_params, elements, h, t_end)
            exu_rows.append({"code": "exudyn", "elements": elements, "h_s": h, **r})
    for row in ours_rows + exu_rows:
        if row["completed"]:
            row["error"] = round(error(row["peaks_m"], ref["peaks_m"]), 6)
            row["error_finest_step"] = None
            row["passes"] = True
        emit(row)
    return ref, ours_rows, exu_rows


def benchmark(name: str, args, have_exudyn: bool) -> dict:
    mod, case_params = BENCHMARKS[name]
    t_end = _t_end(mod, args)
    steps = STEPS[mod.__name__]

    def emit(row):
        print(json.dumps({"kind": "search", "benchmark": name, **_clean(row)}), flush=True)

    if args.chosen:
        ref, ours_rows, exu_rows = _chosen_rows(name, mod, case_params, t_end, have_exudyn,
                                                emit)
        return _timed(name, mod, case_params, t_end, args, ref, ours_rows, exu_rows)
    ref = reference(mod, case_params, t_end, args.quick, have_exudyn, steps[-1])

    sizes = QUICK_SIZES if args.quick else SIZES
    models = [{"code": "fem", "basis": b, "kinematics": kin, "n_coordinates": n}
              for b in bases.available() for kin in KINEMATICS for n in sizes
              if n >= bases.get(b).min_n and not (b == "fe" and n % 2)]
    for m in models:       # warm-up (numba kernels from the disk cache), not recorded
        ours(mod, case_params, m["basis"], m["n_coordinates"], m["kinematics"], steps[0],
             5 * steps[0])
    ours_rows = _scan(models, steps, lambda m, h: ours(
        mod, case_params, m["basis"], m["n_coordinates"], m["kinematics"], h, t_end),
        ref["peaks_m"], args.tolerance, lambda m: (m["basis"], m["kinematics"]), emit)
    exu_rows = []
    if have_exudyn:
        elements = QUICK_EXUDYN_ELEMENTS if args.quick else EXUDYN_ELEMENTS
        exu_rows = _scan([{"code": "exudyn", "elements": e} for e in elements],
                         EXUDYN_STEPS[mod.__name__],
                         lambda m, h: exudyn(mod, case_params, m["elements"], h, t_end),
                         ref["peaks_m"], args.tolerance, lambda m: "ancf", emit)
    return _timed(name, mod, case_params, t_end, args, ref, ours_rows, exu_rows)


def _timed(name: str, mod, case_params: dict, t_end: float, args, ref: dict,
           ours_rows: list, exu_rows: list) -> dict:
    """The fastest passing configurations of both sides timed interleaved; the result."""
    configs = {}
    for r in _fastest(ours_rows, args.candidates):
        configs[("fem", r["basis"], r["n_coordinates"], r["kinematics"], r["h_s"])] = r
    for r in _fastest(exu_rows, args.candidates):
        for solver, newton in EXUDYN_SETTINGS:
            configs[("exudyn", r["elements"], r["h_s"], solver, newton, r["abs_tol"])] = r

    def run(key):
        if key[0] == "fem":
            out = ours(mod, case_params, *key[1:], t_end)
        else:
            out = exudyn(mod, case_params, key[1], key[2], t_end, key[3], key[4],
                         abs_tols=(key[5],) + tuple(t for t in peer.ABS_TOLS if t > key[5]))
        return out["wall_s"] if out["completed"] else None

    walls = interleaved(list(configs), args.repeats, run)
    timing = []
    for key, w in walls.items():
        if not w:
            continue
        r = configs[key]
        timing.append({**{k: r[k] for k in ("code", "h_s", "error", "error_finest_step",
                                             "peaks_m")},
                       **({"basis": key[1], "n_coordinates": key[2], "kinematics": key[3]}
                          if key[0] == "fem" else
                          {"elements": key[1], "solver": key[3], "newton": key[4],
                           "abs_tol": key[5]}), **summary(w)})
    best = {side: min((t for t in timing if t["code"] == side),
                      key=lambda t: t["wall_median_s"], default=None)
            for side in ("fem", "exudyn")}
    out = {"kind": "result", "benchmark": name, "case": mod.__name__,
           "case_params": {**case_params, "t_end_s": t_end}, "tolerance": args.tolerance,
           "reference": ref, "chosen": best, "timing": timing, "repeats": args.repeats,
           "searched": {"fem": len(ours_rows), "exudyn": len(exu_rows)},
           "machine": machine()}
    if best["fem"] and best["exudyn"]:
        out["ratio_median"] = round(best["fem"]["wall_median_s"]
                                    / best["exudyn"]["wall_median_s"], 3)
        out["ratio_min"] = round(best["fem"]["wall_min_s"] / best["exudyn"]["wall_min_s"], 3)
    else:
        out["ratio_median"] = out["ratio_min"] = None
    return out


def _clean(row: dict) -> dict:
    return {k: (float(f"{v:.5g}") if isinstance(v, float) else v) for k, v in row.items()}


def _config(t: dict) -> str:
    if t["code"] == "fem":
        return f"{t['basis']} n={t['n_coordinates']}, {t['kinematics']}, h = {t['h_s']:g} s"
    return (f"ANCFCable2D × {t['elements']}, h = {t['h_s']:g} s, {t['solver']}, "
            f"{t['newton']} Newton, abs. tol. {t['abs_tol']:g}")


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.2g} %"


def table(results: list[dict]) -> str:
    """The Markdown tables of docs/performance.md."""
    lines = ["| benchmark | reference peak(s) [m] | last refinement moved | side | fastest "
             "within 1 % | peak error (at the finest step) | median (min) [s] | ratio |",
             "|---|---|---|---|---|---|---|---|"]
    for res in results:
        ref = res["reference"]
        moved = ref["sequence"][-1].get("moved_from_previous") if ref["sequence"] else None
        for side in ("fem", "exudyn"):
            t = res["chosen"][side]
            if t is None:
                continue
            ratio = res["ratio_median"] if side == "fem" and res["ratio_median"] else ""
            lines.append(
                f"| {res['benchmark']} | {', '.join(f'{p:.5f}' for p in ref['peaks_m'])} | "
                f"{_pct(moved)} | {side} | "
                f"{_config(t)} | {100 * t['error']:.2f} % ({_pct(t['error_finest_step'])}) | "
                f"{t['wall_median_s']:.3f} "
                f"({t['wall_min_s']:.3f}) | "
                f"{ratio} |")
    return "\n".join(lines)


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("benchmarks", nargs="*", help=f"any of {', '.join(BENCHMARKS)} "
                    "(default: all)")
    ap.add_argument("--quick", action="store_true",
                    help="smaller grids, two reference refinements, 3 repeats")
    ap.add_argument("-r", "--repeats", type=int, default=None, help="default 5 (quick: 3)")
    ap.add_argument("--tolerance", type=float, default=0.01,
                    help="largest relative peak error that passes")
    ap.add_argument("--candidates", type=int, default=3,
                    help="fastest passing configurations of each side to time")
    ap.add_argument("--t-end-fall", type=float, default=2.0,
                    help="simulated time of the two-link fall [s]")
    ap.add_argument("--chosen", action="store_true",
                    help="no reference, no search: time the configurations the full run "
                         "chose (CHOSEN) against its reference (≈ 1 min)")
    ap.add_argument("--table", action="store_true", help="print the Markdown table too")
    ap.add_argument("--table-from", default=None, metavar="JSONL",
                    help="only print the table of an earlier run's output")
    args = ap.parse_args(argv)
    args.repeats = args.repeats or (3 if args.quick else 5)
    unknown = [b for b in args.benchmarks if b not in BENCHMARKS]
    if unknown:
        ap.error(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
    have_exudyn = peer.exu is not None
    if not have_exudyn:
        print("peer_chains: exudyn is not installed (pip install exudyn); the Exudyn side is "
              "skipped and our finest model is the reference. Exudyn is a measurement-only "
              "peer, not a dependency of fem.", file=sys.stderr)
    if args.table_from:
        with open(args.table_from) as fh:
            print(table([r for r in map(json.loads, filter(lambda ln: ln.startswith("{"), fh))
                         if r["kind"] == "result"]))
        return []
    warnings.simplefilter("ignore", DeprecationWarning)
    results = []
    for name in args.benchmarks or list(BENCHMARKS):
        res = benchmark(name, args, have_exudyn)
        results.append(res)
        print(json.dumps(res), flush=True)
    if args.table:
        print()
        print(table(results))
    return results


if __name__ == "__main__":
    main()
