"""Steel cantilever as an ANCF cable: statics, dynamics and modes (closed-form benchmark).

A 2 m steel bar (E = 2.1e11 Pa, ρ = 7850 kg/m³, 20 × 20 mm square section) is clamped at
x = 0 (position and slope fixed) and lies along +x.  It checks the gradient-deficient ANCF
cable against Euler–Bernoulli closed forms: the tip deflection under self-weight
``qL⁴/8EI`` and the clamped–free bending frequencies ``(βₙL)²·√(EI/ρAL⁴)/2π`` with
``βₙL = 1.87510, 4.69409, 7.85476``.  The dynamic analysis drops the straight bar under
gravity (and/or a tip force) from rest and integrates with generalized-α.
"""

from __future__ import annotations

import numpy as np

import fem
from fem.references.beams import (  # noqa: F401  (BETA_L: re-exported)
    BETA_L,
    cantilever_frequencies,
    cantilever_tip_deflection,
)

PARAMS = {
    "n_elements": 8,
    "analysis": "static",        # "static", "dynamic" or "modal"
    "gravity": True,
    "tip_force_z_N": 0.0,
    "t_end_s": 1.0,
    "dt_s": 1e-3,
    "rho_inf": 0.8,
    "length_m": 2.0,
    "side_m": 0.02,
    "E_Pa": 2.1e11,
    "rho_kgm3": 7850.0,
    "n_modes": 10,
    "load_steps": 1,
}

LIMITS = {"n_elements": ">=1", "analysis": ("static", "dynamic", "modal"), "length_m": ">0",
          "side_m": ">0", "rho_kgm3": ">=0",
          **fem.cases.STANDARD.limits("t_end_s", "dt_s", "rho_inf", "E_Pa", "n_modes",
                                      "load_steps")}

DOCS = {
    "n_elements": "ANCF cable elements along the bar",
    "analysis": "static equilibrium, dynamic drop from rest, or modal frequencies",
    "gravity": "gravity 9.81 m/s² along −z",
    "tip_force_z_N": "force at the tip along +z",
    "t_end_s": "duration of the dynamic analysis",
    "dt_s": "time step of the dynamic analysis",
    "length_m": "length of the bar",
    "side_m": "side of the square section",
    "rho_kgm3": "density (0: massless, no frequencies)",
    **fem.cases.STANDARD.docs("rho_inf", "E_Pa", "n_modes", "load_steps"),
}
"""What each parameter means, with its unit where the name does not carry it (``fem info``)."""
KERNELS = "numpy"
"""Its runs are too short to repay loading the compiled kernels: 35 % more CPU on them
(``tests/benchmarks/kernel_paths.py``, 3 rounds, 2026-11-29)."""


def build(**params) -> fem.Model:
    p = {**PARAMS, **params}
    g = (0.0, 0.0, -9.81) if p["gravity"] else (0.0, 0.0, 0.0)
    model = fem.Model("cantilever_cable", gravity=g)
    mat = fem.Material(p["E_Pa"], 0.3, p["rho_kgm3"], name="steel")
    sec = fem.rectangle_section(p["side_m"], p["side_m"])
    _, nodes = fem.straight_cable(model, (0, 0, 0), (p["length_m"], 0, 0), p["n_elements"],
                                  mat, sec["area"], sec["iy"], name="bar",
                                  end_names=(None, "tip"))
    model.fix(nodes[0], name="clamp")
    if p["tip_force_z_N"]:
        model.add_force(model.point(nodes[-1]), (0.0, 0.0, p["tip_force_z_N"]), "tip force")
    model.view = "xz"
    return model


def reference(**params) -> dict:
    """Closed forms of linear Euler–Bernoulli theory for the same bar
    (:mod:`fem.references.beams`): tip deflection along z and the first three
    clamped–free bending frequencies."""
    p = {**PARAMS, **params}
    sec = fem.rectangle_section(p["side_m"], p["side_m"])
    EI = p["E_Pa"] * sec["iy"]
    L = p["length_m"]
    q = p["rho_kgm3"] * sec["area"] * 9.81 if p["gravity"] else 0.0
    w = cantilever_tip_deflection(L, EI, q=-q, F=p["tip_force_z_N"])
    rho_A = p["rho_kgm3"] * sec["area"]
    # a massless bar (rho = 0) has no finite frequencies: no reference for them
    f = cantilever_frequencies(L, EI, rho_A, 3).tolist() if rho_A > 0 else None
    return {"tip_z_m": w, "bending_frequencies_hz": f}


def run(out=None, **params) -> dict:
    p = {**PARAMS, **params}
    model = build(**p)
    ref = reference(**p)
    figures: dict = {"n_coordinates": model.n_dof, "n_elements": p["n_elements"]}

    def modal(mr) -> dict:
        # classify: transverse-z bending modes have their largest tip motion along z
        shapes = mr.shapes[model.node_dofs(model.node("tip"))]
        z_modes = np.abs(shapes[2]) > np.maximum(np.abs(shapes[0]), np.abs(shapes[1]))
        return {"frequencies_hz": mr.frequencies_hz.tolist(),
                "bending_z_frequencies_hz": mr.frequencies_hz[z_modes].tolist(),
                "reference_bending_frequencies_hz": ref["bending_frequencies_hz"]}

    return fem.cases.cantilever_analysis(model, p, out, figures, ref["tip_z_m"], modal)
