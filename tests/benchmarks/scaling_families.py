"""Time per step against coordinates for every model family, log–log (issue 23, item 4).

Four families, each timed by its own benchmark's runner (the wall of the solver call
only, after a warm-up run of the same size in this process):

* **cable**: the ANCF cable cantilever of ``cable_cantilever.py`` (2 m steel, clamped,
  falling under gravity; h = 1 ms, 200 steps), 8–512 elements;
* **beam**: the shear-deformable ANCF beam cantilever of ``beam_cantilever.py`` (the
  same problem; h = 1 ms, 200 steps), 4–128 elements;
* **plate robot**: the flagship circle of ``robot_circle.py`` (3-RRRU robot, flexible
  Bézier-plate platform, h = 5 ms) on ``hexagon_6``, ``_24``, ``_96`` and ``_384``: its
  first 0.4 s (80 steps), the same segment for every mesh;
* **floating-frame chain**: the two-link fall of ``basis_speed.py`` (Bézier basis, the
  case's default, 0.5 s at h = 5 ms), 2–16 functions per transverse field.

The sizes of one family run interleaved (order rotated every repeat); the median per
step is kept.  Prints one JSON line per (family, size) — coordinates, steps, median and
min wall per step, Newton iterations per step where the runner gives them — and one per
family with the fitted exponent ``p`` of ``time/step ∝ coordinatesᵖ`` (least squares on
log–log, all sizes, and over the upper half); writes the figure (default
``docs/img/scaling_families.png``) with the exponents in the legend.

    python tests/benchmarks/scaling_families.py --quick            # ≈ 2 min, 1 repeat
    python tests/benchmarks/scaling_families.py                    # ≈ 10 min, 3 repeats
    python tests/benchmarks/scaling_families.py --families cable beam -o out.png
"""

from __future__ import annotations

import argparse
import json
import statistics

from benchtools import fit_loglog, interleaved, machine, one_thread

one_thread()

import basis_speed  # noqa: E402
import beam_cantilever  # noqa: E402
import cable_cantilever  # noqa: E402
import robot_circle  # noqa: E402

ROBOT_T_END = 0.4
"""Seconds of the circle timed for every mesh (80 steps of 5 ms)."""
CHAIN_T_END = 0.5
STEPS = 200


def _cable(n: int, warm: bool) -> dict:
    r = cable_cantilever.run(n, steps=5 if warm else STEPS)
    return {"coordinates": r["coordinates"], "steps": r["steps"], "wall_s": r["wall_s"],
            "newton_iterations_per_step": r["newton_iterations_per_step"]}


def _beam(n: int, warm: bool) -> dict:
    r = beam_cantilever.run(n, steps=5 if warm else STEPS)
    return {"coordinates": r["coordinates"], "steps": r["steps"], "wall_s": r["wall_s"],
            "newton_iterations_per_step": r["newton_iterations_per_step"]}


def _robot(mesh: str, warm: bool) -> dict | None:
    if warm:               # robot_circle.run warms up itself (numba kernels, the path)
        return None
    r = robot_circle.run(mesh, t_end=ROBOT_T_END)
    return {"coordinates": r["coordinates"], "steps": r["steps"], "wall_s": r["wall_s"],
            "newton_iterations_per_step": r["newton_iterations_per_step"]}


def _chain(n: int, warm: bool) -> dict:
    dt = basis_speed.CASES["two_link_arm_fall"][1]
    r = basis_speed.run_once("two_link_arm_fall", "bezier", n,
                             t_end=5 * dt if warm else CHAIN_T_END)
    return {"coordinates": r["chain_coordinates"], "steps": r["steps"], "wall_s": r["wall_s"],
            "newton_iterations_per_step": round(r["newton_iterations"] / r["steps"], 3)}


FAMILIES = {
    # name: (runner, sizes, quick sizes, what a size is)
    "cable": (_cable, [8, 16, 32, 64, 128, 256, 512], [8, 32, 128], "elements"),
    "beam": (_beam, [4, 8, 16, 32, 64, 128], [4, 16, 64], "elements"),
    "plate robot": (_robot, ["hexagon_6", "hexagon_24", "hexagon_96", "hexagon_384"],
                    ["hexagon_6", "hexagon_24"], "mesh"),
    "floating-frame chain": (_chain, [2, 4, 8, 16], [2, 4, 8], "n_coordinates"),
}


def family(name: str, repeats: int, quick: bool) -> tuple[list[dict], dict]:
    """Rows (one per size) and the fit of one family."""
    runner, sizes, quick_sizes, what = FAMILIES[name]
    sizes = quick_sizes if quick else sizes
    for s in sizes:
        runner(s, True)
    runs = interleaved(sizes, repeats, lambda s: runner(s, False))
    rows = []
    for s in sizes:
        per_step = [r["wall_s"] / r["steps"] for r in runs[s]]
        last = runs[s][-1]
        rows.append({"family": name, what: s, "coordinates": last["coordinates"],
                     "steps": last["steps"],
                     "ms_per_step_median": round(1e3 * statistics.median(per_step), 4),
                     "ms_per_step_min": round(1e3 * min(per_step), 4),
                     "newton_iterations_per_step": last["newton_iterations_per_step"],
                     "repeats": repeats})
    x = [r["coordinates"] for r in rows]
    y = [r["ms_per_step_median"] for r in rows]
    p, c = fit_loglog(x, y)
    half = len(rows) // 2
    fit = {"family": name, "exponent": round(p, 3), "prefactor_ms": c,
           "exponent_upper_half": (round(fit_loglog(x[half:], y[half:])[0], 3)
                                   if len(rows) - half >= 2 else None),
           "coordinates": [min(x), max(x)], "machine": machine()}
    return rows, fit


def plot(rows: list[dict], fits: list[dict], path: str) -> None:
    """Log–log time per step against coordinates, one series per family."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import LogFormatterSciNotation, NullFormatter

    fig, ax = plt.subplots(figsize=(6.4, 5.0), dpi=110)
    for fit, marker in zip(fits, "osD^", strict=False):
        sel = [r for r in rows if r["family"] == fit["family"]]
        x = np.array([r["coordinates"] for r in sel], float)
        y = np.array([r["ms_per_step_median"] for r in sel])
        lo = np.array([r["ms_per_step_min"] for r in sel])
        line, = ax.plot(x, y, marker + "-",
                        label=f"{fit['family']}: $t \\propto n^{{{fit['exponent']:.2f}}}$")
        ax.plot(x, lo, "_", color=line.get_color(), ms=9)
        xx = np.geomspace(x.min(), x.max(), 20)
        ax.plot(xx, fit["prefactor_ms"] * xx ** fit["exponent"], ":", color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("coordinates n")
    ax.set_ylabel("wall time per step [ms]")
    ax.set_title("Time per step by model family: median (dash: min), fit dotted",
                 fontsize=10)
    ax.grid(True, which="both", lw=0.3)
    for axis in (ax.xaxis, ax.yaxis):      # decades labelled, no crowded minor labels
        axis.set_major_formatter(LogFormatterSciNotation())
        axis.set_minor_formatter(NullFormatter())
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2,
              frameon=False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", nargs="+", choices=list(FAMILIES), default=list(FAMILIES))
    ap.add_argument("--quick", action="store_true", help="fewer sizes, 1 repeat")
    ap.add_argument("-r", "--repeats", type=int, default=None, help="default 3 (quick: 1)")
    ap.add_argument("-o", "--out", default="docs/img/scaling_families.png",
                    help="the figure (relative to the current directory)")
    args = ap.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 3)
    rows, fits = [], []
    for name in args.families:
        r, f = family(name, repeats, args.quick)
        for row in r:
            print(json.dumps(row), flush=True)
        print(json.dumps(f), flush=True)
        rows += r
        fits.append(f)
    plot(rows, fits, args.out)
    print(json.dumps({"figure": args.out}), flush=True)
    return 0


if __name__ == "__main__":
    main()
