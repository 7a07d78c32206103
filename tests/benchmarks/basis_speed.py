"""Benchmark: the deformation bases of a floating-frame chain at equal coordinates (issue 23).

Times every registered basis (:func:`fem.bases.available`: assumed modes, Hermite finite
elements, Bézier, cubic B-spline) at 4, 8 and 16 functions per transverse field on
``two_link_arm_fall`` (0.5 s of simulated time at the case's ``dt_s = 0.005``, or
``--case spinup_beam``: 2 s at 0.01 s, fourth-order kinematics, Ω0 = 4 rad/s).  One
process; every configuration is warmed up first (imports, numba kernels), then the
configurations of one size run interleaved, their order rotated every repeat, and the
medians are kept.  Prints one JSON line per (size, basis): median and min wall time of
the ``fem.simulate`` call, steps, Newton iterations, factorizations, quadrature points
per link, chain coordinates, and the ratio to the fastest basis of that size; then one
line naming the machine.  ``--table`` adds the Markdown table of ``docs/performance.md``.

    python tests/benchmarks/basis_speed.py                  # two-link fall, 5 repeats
    python tests/benchmarks/basis_speed.py --case spinup_beam --sizes 4 8 -r 3
"""

from __future__ import annotations

import argparse
import json
import statistics

from benchtools import clock, interleaved, machine, one_thread

one_thread()                               # the checkout's fem, ahead of an installed one

import fem  # noqa: E402
from fem import bases  # noqa: E402

CASES = {
    # case: (t_end [s], dt [s], simulate keywords)
    "two_link_arm_fall": (0.5, 0.005, {"rho_inf": 1.0}),
    "spinup_beam": (2.0, 0.01, {"rho_inf": 0.8}),
}


def _build(case: str, basis: str, n: int):
    mod = __import__(case)
    return mod.build(basis=basis, n_coordinates=n)


def _kwargs(case: str) -> dict:
    kw = dict(CASES[case][2])
    if case == "spinup_beam":
        import spinup_beam as sb

        p = sb.PARAMS
        # the case's own residual scale (ρA L² Ω0²/2, see spinup_beam.run)
        kw["force_scale"] = (0.5 * p["rho_kgm3"] * p["area_m2"] * p["length_m"] ** 2
                             * max(p["omega0_rad_s"], 1.0) ** 2)
    return kw


def run_once(case: str, basis: str, n: int, t_end: float | None = None) -> dict:
    """Build the model and time one ``fem.simulate`` call (the build is not timed)."""
    T, dt, _ = CASES[case]
    model = _build(case, basis, n)
    t0 = clock()
    res = fem.simulate(model, T if t_end is None else t_end, dt, **_kwargs(case))
    wall = clock() - t0
    it = res.stats["iterations"][1:]
    link = model.links[0] if hasattr(model, "links") else model.link
    return {"wall_s": wall, "steps": len(res.t) - 1, "newton_iterations": int(it.sum()),
            "factorizations": int(res.info["factorizations"]),
            "quadrature_points_per_link": int(link.x.size),
            "chain_coordinates": int(model.n_dof)}


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", choices=sorted(CASES), default="two_link_arm_fall")
    ap.add_argument("--sizes", type=int, nargs="+", default=[4, 8, 16],
                    help="functions per transverse field (n_coordinates)")
    ap.add_argument("--bases", nargs="+", default=None, help="default: all registered")
    ap.add_argument("-r", "--repeats", type=int, default=5)
    ap.add_argument("--table", action="store_true", help="print a Markdown table too")
    args = ap.parse_args(argv)
    names = args.bases or bases.available()
    rows = []
    for n in args.sizes:
        configs = [b for b in names if n >= bases.get(b).min_n
                   and not (b == "fe" and n % 2)]
        for b in configs:                          # warm-up: imports, kernels, caches
            run_once(args.case, b, n, t_end=5 * CASES[args.case][1])
        runs = interleaved(configs, args.repeats,
                           lambda b, n=n: run_once(args.case, b, n))
        walls = {b: [r["wall_s"] for r in rs] for b, rs in runs.items()}
        last = {b: rs[-1] for b, rs in runs.items()}
        med = {b: statistics.median(w) for b, w in walls.items()}
        fastest = min(med.values())
        for b in configs:
            row = {"case": args.case, "n_coordinates": n, "basis": b,
                   "wall_median_s": round(med[b], 4), "wall_min_s": round(min(walls[b]), 4),
                   "ratio_to_fastest": round(med[b] / fastest, 2),
                   **{k: v for k, v in last[b].items() if k != "wall_s"},
                   "repeats": args.repeats}
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(json.dumps({"machine": machine()}), flush=True)
    if args.table:
        print()
        print("| n | basis | points/link | coordinates | steps | Newton it. | "
              "factorizations | median [s] | ratio to fastest |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['n_coordinates']} | {r['basis']} | "
                  f"{r['quadrature_points_per_link']} | {r['chain_coordinates']} | "
                  f"{r['steps']} | {r['newton_iterations']} | {r['factorizations']} | "
                  f"{r['wall_median_s']:.3f} | {r['ratio_to_fastest']:.2f} |")
    return rows


if __name__ == "__main__":
    main()
