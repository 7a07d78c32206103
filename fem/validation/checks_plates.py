"""Checks of the Bézier-triangle plate (the element of Liu et al. (2023)) against Kirchhoff's plate:
Navier's series, a converged Ritz solution and Navier's frequencies
(:mod:`fem.references.plates`, through ``cases/plate_benchmark.py``)."""

from __future__ import annotations

import numpy as np

from .checks_beams import orders
from .plots import new_figure, order_guide, plain_ticks, to_plot
from .registry import Limit, Measurement, check

TW = ("Timoshenko & Woinowsky-Krieger, Theory of Plates and Shells (1959), ch. 5, Table 8; "
      "fem.references.plates")


def _plate():
    from ..cases import load_case

    return load_case("plate_benchmark")


@check(name="plate_navier_convergence", group="Plates",
       subject="Bézier-triangle plate (bezier_plate_shared), simply supported square, "
               "a/h = 50, uniform pressure, n × n × 2 meshes",
       reference="Navier's series (Kirchhoff) and the thick-plate value w_K (1 + 4.318 "
                 "(h/a)²/κ) it converges to", kind="series",
       source=TW + ".navier_center_deflection, navier_shear_deflection",
       limits=(Limit("order_vs_thick_plate_min", lower=1.8),
               Limit("error_vs_thick_plate_finest_percent", upper=0.2),
               Limit("error_vs_kirchhoff_finest_percent", upper=2.0)),
       why="The element's shear stabilization (factor h²/(h² + 0.2ℓ²) with ℓ the element "
           "size) changes the shear compliance by O(ℓ²), so the centre deflection converges "
           "at order 2 at least (measured 2.2–2.5); at n = 16 the remaining error is "
           "≈ 1/4 of the n = 8 one, 0.1 %, so 0.2 % is 2×.  Against Kirchhoff itself the "
           "limit is 0.17 % above (shear), so the brief's 2 % is met with room.")
def plate_navier_convergence(quick: bool) -> Measurement:
    pb = _plate()
    ns = [4, 8, 16] if quick else [4, 8, 16, 32]
    res = [pb.run(support="simply_supported", thickness_m=0.02, divisions=n) for n in ns]
    e_m = np.array([r["error_vs_mindlin_percent"] for r in res])
    e_k = np.array([r["error_vs_kirchhoff_percent"] for r in res])
    rates = orders(ns, e_m)
    table = [{"mesh": f"{n}×{n}×2", "coordinates": r["n_coordinates"],
              "w/w_Kirchhoff − 1 [%]": f"{ek:+.3f}", "w/w_thick − 1 [%]": f"{em:+.3f}",
              "order": "" if i == 0 else f"{rates[i - 1]:.2f}"}
             for i, (n, r, ek, em) in enumerate(zip(ns, res, e_k, e_m, strict=True))]
    fig, ax = new_figure(size=(6.4, 4.2))
    ax.loglog(ns, np.abs(e_m), "o-", label="vs thick-plate value (its limit)")
    ax.loglog(ns, np.abs(e_k), "s--", label="vs Navier (Kirchhoff)")
    order_guide(ax, ns, np.abs(e_m), -2, "slope −2 (order 2)")
    ax.set(xlabel="elements per edge n", ylabel="|centre-deflection error| [%]")
    plain_ticks(ax, ns)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    plot = to_plot(fig, "convergence", "Simply supported square plate (a/h = 50): "
                   "centre-deflection error under mesh refinement.")
    return Measurement({"order_vs_thick_plate_min": float(rates.min()),
                        "error_vs_thick_plate_finest_percent": float(abs(e_m[-1])),
                        "error_vs_kirchhoff_finest_percent": float(abs(e_k[-1]))},
                       "1 m steel square, h = 20 mm, pressure giving a Kirchhoff deflection of "
                       "1 % of h (linear range).", table, [plot])


@check(name="plate_clamped_convergence", group="Plates",
       subject="Bézier-triangle plate, clamped square, a/h = 100, uniform pressure",
       reference="Ritz–Galerkin solution w D/(q a⁴) = 0.00126532 (Kirchhoff)",
       kind="series",
       source="Taylor & Govindjee, Commun. Numer. Meth. Engng 20 (2004) 757–765; "
              "fem.references.plates.clamped_ritz",
       limits=(Limit("order_min", lower=1.5),
               Limit("extrapolated_vs_ritz_percent", lower=-0.2, upper=0.6)),
       why="Successive refinements must shrink at order ≥ 1.5 (measured 1.65–1.9: the O(ℓ²) "
           "stabilization and the clamped corners' singular moments).  The Richardson limit "
           "of the last three meshes must lie where the thick plate lies: above Kirchhoff by "
           "the shear term ≈ 20 (h/a)² = +0.2 % (docs/plate_benchmark.md §2), give or take "
           "the extrapolation's uncertainty (the orders vary by 0.3): −0.2 … +0.6 %.")
def plate_clamped_convergence(quick: bool) -> Measurement:
    pb = _plate()
    ns = [4, 8, 16] if quick else [4, 8, 16, 32]
    res = [pb.run(support="clamped", thickness_m=0.01, divisions=n) for n in ns]
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


@check(name="plate_frequencies", group="Plates",
       subject="Bézier-triangle plate, simply supported square (a/h = 100), six lowest "
               "bending frequencies on 4×4×2 and 8×8×2 meshes",
       reference="ω_mn = π²(m² + n²)/a² √(D/ρh) (Kirchhoff)", kind="closed form",
       source="Leissa, Vibration of Plates, NASA SP-160 (1969), ch. 4; "
              "fem.references.plates.navier_frequencies",
       limits=(Limit("max_error_8_percent", upper=1.0),
               Limit("error_reduction_4_to_8", lower=2.0)),
       why="On 8×8×2 the unsymmetric diagonal mesh splits the repeated pairs (1,2)/(2,1) by "
           "< 1 % and the errors are ≤ 0.7 %; refining from 4×4 must reduce the largest "
           "error at least 2× (first order would be the least a converging element gives; "
           "measured ≈ 9×).")
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
