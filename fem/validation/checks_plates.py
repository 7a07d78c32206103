"""Checks of the Bézier-triangle plate (the element of Liu et al. (2023)) against Kirchhoff's plate:
Navier's series, a converged Ritz solution and Navier's frequencies
(:mod:`fem.references.plates`, through ``cases/plate_benchmark.py``).

Each ``@check`` function measures the check of its name in ``checks.toml``, which declares
its subject, reference, limits and why."""

from __future__ import annotations

import numpy as np

from .checks_beams import orders
from .plots import refinement_plot
from .registry import Measurement, check


def _plate():
    from ..cases import load_case

    return load_case("plate_benchmark")


def _refinement(quick: bool, **params) -> tuple[list[int], list[dict]]:
    """The plate benchmark's figures on n × n × 2 meshes, n = 4, 8, 16 (and 32 in the full
    set): ``(ns, figures)``.  The runs are :func:`fem.validation.runs.run`'s, on the
    case's whole parameter set (tests/test_plate_benchmark.py makes the same ones: one
    test process makes each once)."""
    from .runs import run

    full = {**_plate().PARAMS, **params}
    ns = [4, 8, 16] if quick else [4, 8, 16, 32]
    return ns, [run("plate_benchmark", **{**full, "divisions": n}) for n in ns]


@check
def plate_navier_convergence(quick: bool) -> Measurement:
    ns, res = _refinement(quick, support="simply_supported", thickness_m=0.02)
    e_m = np.array([r["error_vs_mindlin_percent"] for r in res])
    e_k = np.array([r["error_vs_kirchhoff_percent"] for r in res])
    rates = orders(ns, e_m)
    table = [{"mesh": f"{n}×{n}×2", "coordinates": r["n_coordinates"],
              "w/w_Kirchhoff − 1 [%]": f"{ek:+.3f}", "w/w_thick − 1 [%]": f"{em:+.3f}",
              "order": "" if i == 0 else f"{rates[i - 1]:.2f}"}
             for i, (n, r, ek, em) in enumerate(zip(ns, res, e_k, e_m, strict=True))]
    plot = refinement_plot("convergence", "Simply supported square plate (a/h = 50): "
                           "centre-deflection error under mesh refinement.", ns,
                           [(e_m, "o-", "vs thick-plate value (its limit)"),
                            (e_k, "s--", "vs Navier (Kirchhoff)")], (0, -2),
                           "elements per edge n", "|centre-deflection error| [%]")
    return Measurement({"order_vs_thick_plate_min": float(rates.min()),
                        "error_vs_thick_plate_finest_percent": float(abs(e_m[-1])),
                        "error_vs_kirchhoff_finest_percent": float(abs(e_k[-1]))},
                       "1 m steel square, h = 20 mm, pressure giving a Kirchhoff deflection of "
                       "1 % of h (linear range).", table, [plot])


@check
def plate_clamped_convergence(quick: bool) -> Measurement:
    ns, res = _refinement(quick, support="clamped", thickness_m=0.01)
    w = np.array([r["w_D_over_q_a4"] for r in res])
    ref = res[0]["kirchhoff_w_D_over_q_a4"]
    d = np.diff(w)
    p = np.log2(np.abs(d[:-1] / d[1:]))
    limit = w[-1] + d[-1] / (2 ** p[-1] - 1)
    table = [{"mesh": f"{n}×{n}×2", "w D/(q a⁴)": f"{wi:.7f}",
              "vs Ritz [%]": f"{100 * (wi / ref - 1):+.3f}",
              "order of differences": f"{p[i - 2]:.2f}" if i >= 2 else ""}
             for i, (n, wi) in enumerate(zip(ns, w, strict=True))]
    table.append({"mesh": "Richardson limit", "w D/(q a⁴)": f"{limit:.7f}",
                  "vs Ritz [%]": f"{100 * (limit / ref - 1):+.3f}",
                  "order of differences": ""})
    return Measurement({"order_min": float(p.min()),
                        "extrapolated_vs_ritz_percent": float(100 * (limit / ref - 1)),
                        "error_finest_vs_ritz_percent": float(100 * (w[-1] / ref - 1))},
                       "1 m steel square, h = 10 mm.", table)


@check
def plate_frequencies(quick: bool) -> Measurement:
    pb = _plate()
    rows, worst = [], {}
    for n in (4, 8):
        r = pb.run(support="simply_supported", divisions=n, analysis="modal", n_modes=6)
        f, fk = np.array(r["bending_frequencies_hz"]), np.array(r["kirchhoff_frequencies_hz"])
        k = min(len(f), len(fk), 6)
        err = 100 * (f[:k] / fk[:k] - 1)
        worst[n] = float(np.abs(err).max())
        for i in range(k):
            rows.append({"mesh": f"{n}×{n}×2", "mode": i + 1,
                         "(m, n)": "({}, {})".format(*r["kirchhoff_mode_indices"][i]),
                         "Kirchhoff [Hz]": f"{fk[i]:.3f}", "FE [Hz]": f"{f[i]:.3f}",
                         "error [%]": f"{err[i]:+.3f}"})
    return Measurement({"max_error_8_percent": worst[8], "max_error_4_percent": worst[4],
                        "error_reduction_4_to_8": worst[4] / worst[8]},
                       "1 m steel square, h = 10 mm.", rows)
