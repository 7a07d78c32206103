"""Log-log wall time against elements for fem and Exudyn, from ``peer_compare.py`` output.

Reads the JSON lines of ``peer_compare.py`` (one per size), fits ``wall = c · n^p`` by
least squares on log-log for each code (median walls), prints the exponents as JSON and
saves the plot.  Exudyn points run at a looser Newton tolerance than 1e-6 are labelled
with it.  The JSON also gives the exponents fitted on n ≥ 64 only, where fixed per-step
costs no longer dominate.

    python tests/benchmarks/scaling_plot.py out.jsonl docs/img/cable_scaling.png
"""

from __future__ import annotations

import json
import sys

import numpy as np
from benchtools import fit_loglog as fit


def load(path: str) -> list[dict]:
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.lstrip().startswith("{")]


def series(rows: list[dict], side: str):
    pts = sorted((r["elements"], r[side]["wall_median_s"], r[side]["wall_min_s"])
                 for r in rows if r.get(side))
    return np.array(pts, float).reshape(-1, 3)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: scaling_plot.py RESULTS.jsonl OUT.png", file=sys.stderr)
        return 2
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = load(argv[0])
    fig, ax = plt.subplots(figsize=(5.2, 3.8), dpi=100)
    exponents, tail = {}, {}
    for side, label, style in (("ours", "fem", "o-"), ("exudyn", "Exudyn", "s--")):
        data = series(rows, side)
        if len(data) == 0:
            continue
        n, med, lo = data.T
        text = label
        if len(n) >= 2:
            p, c = fit(n, med)
            exponents[side] = round(p, 3)
            text = f"{label}: wall ∝ n^{p:.2f}"
            ax.plot(n, c * n**p, ":", color="grey", lw=0.8)
        if (n >= 64).sum() >= 2:
            tail[side] = round(fit(n[n >= 64], med[n >= 64])[0], 3)
        line, = ax.plot(n, med, style, label=text)
        ax.plot(n, lo, "_", color=line.get_color(), ms=8)   # the min of the repeats
        if side == "exudyn":
            for r in rows:
                tol = (r.get("exudyn") or {}).get("tol")
                if tol is not None and tol > 1e-6:
                    ax.annotate(f"tol {tol:g}", (r["elements"], r["exudyn"]["wall_median_s"]),
                                textcoords="offset points", xytext=(6, -13), fontsize=7, ha="right",
                                color=line.get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("cable elements n")
    ax.set_ylabel("wall time, 1000 steps [s]")
    ax.set_title("ANCF cable cantilever: median (dash: min)", fontsize=10)
    ax.grid(True, which="both", lw=0.3)
    ax.legend(fontsize=9)
    fig.tight_layout()
    fig.savefig(argv[1])
    print(json.dumps({"exponents": exponents, "exponents_n_ge_64": tail, "png": argv[1]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
