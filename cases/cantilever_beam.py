"""Cantilever as a shear-deformable ANCF beam: statics, dynamics and modes (closed forms).

The element of Liu et al. (2018) (eq 9: the flexible links of the 3-RRRU robot;
``docs/references.md``) checked on the simplest structure: a straight bar along +x clamped at
x = 0 (all 12 coordinates of the first node fixed: position and the three gradients).
Defaults are the cable benchmark's steel bar (2 m, 20 × 20 mm) so the two elements can be
compared; ``section='circle'`` with ``radius_m`` gives that paper's round links.  References
(``reference()``): Timoshenko tip deflection under gravity ``qL⁴/8EI + qL²/2kGA`` and a tip
force ``PL³/3EI + PL/kGA`` (Cowper's shear factor ``k``); clamped–free frequencies —
bending ``(βₙL)²√(EI/ρAL⁴)/2π`` (βₙL = 1.8751, 4.6941, 7.8548), torsion
``(2n−1)/(4L)·√(GJ/ρI_p)`` and axial ``(2n−1)/(4L)·√(E/ρ)``.  The dynamic analysis drops
the straight bar from rest under gravity and/or the tip force (generalized-α).

Convergence of the defaults (``tests/benchmarks/convergence_audit.py``): 32 elements
(16 elements, the former default: the static tip moved 0.1 % from 16 to 32 elements, but in the
dynamic analysis the tip history moved by 1.06 % of its range, the higher bending modes
the drop excites being too stiff on 16).  With 32 the dynamic tip history is within
0.31 % of 64 elements' and moves 0.26 % with the step halved (measured 2026-11-28); the
static tip is −0.04 % from Timoshenko (16: −0.14 %).  Cost: the dynamic analysis 1.4×
(4.3 against 3.1 s, measured 2026-11-29 on the idle 2-core machine), the static one
0.18 against 0.11 s.
"""

from __future__ import annotations

import numpy as np

import fem
from fem.elements.ancf_beam import beam_section
from fem.references.beams import (  # noqa: F401  (BETA_L: re-exported)
    BETA_L,
    cantilever_frequencies,
    cantilever_tip_deflection,
    fixed_free_rod_frequencies,
)

PARAMS = {
    "n_elements": 32,             # −0.04 % from Timoshenko under gravity (16: −0.14 %)
    "section": "square",          # "square" or "circle"
    "side_m": 0.02,
    "radius_m": 0.01,
    "length_m": 2.0,
    "E_Pa": 2.1e11,
    "nu": 0.3,
    "rho_kgm3": 7850.0,
    "tip_force_z_N": 0.0,
    "gravity": True,
    "analysis": "static",         # "static", "dynamic" or "modal"
    "t_end_s": 1.0,
    "dt_s": 1e-3,
    "rho_inf": 0.8,
    "n_modes": 12,
    "load_steps": 1,
}

LIMITS = {"n_elements": ">=1", "section": ("square", "circle"), "side_m": ">0",
          "radius_m": ">0", "length_m": ">0", "rho_kgm3": ">=0",
          "analysis": ("static", "dynamic", "modal"),
          **fem.cases.STANDARD.limits("E_Pa", "nu", "t_end_s", "dt_s", "rho_inf", "n_modes",
                                      "load_steps")}

DOCS = {
    "n_elements": "ANCF beam elements along the bar (32: static tip −0.04 % from Timoshenko "
                  "under gravity, dynamic tip history within 0.3 % of 64's; 16: −0.14 %)",
    "section": "cross-section: square (side_m) or circle (radius_m)",
    "side_m": "side of the square section",
    "radius_m": "radius of the circular section",
    "length_m": "length of the bar",
    "rho_kgm3": "density (0: massless, no frequencies)",
    "tip_force_z_N": "force at the tip along +z",
    "gravity": "gravity 9.81 m/s² along −z",
    "analysis": "static equilibrium, dynamic drop from rest, or modal frequencies",
    "t_end_s": "duration of the dynamic analysis",
    "dt_s": "time step of the dynamic analysis",
    **fem.cases.STANDARD.docs("E_Pa", "nu", "rho_inf", "n_modes", "load_steps"),
}
"""What each parameter means, with its unit where the name does not carry it (``fem info``)."""
KERNELS = "numpy"
"""Its runs are too short to repay loading the compiled kernels: 31 % more CPU on them
(``tests/benchmarks/kernel_paths.py``, 3 rounds, 2026-11-29)."""
REFERENCES = ("liu2018",)
"""The papers this case reproduces (keys of :mod:`fem.references.citations`)."""


def _section(p: dict) -> dict:
    if p["section"] == "square":
        return {"section": "rectangle", "width": p["side_m"], "height": p["side_m"]}
    if p["section"] == "circle":
        return {"section": "circle", "radius": p["radius_m"]}
    raise fem.ModelError(f"section must be 'square' or 'circle', got {p['section']!r}")


def build(**params) -> fem.Model:
    p = {**PARAMS, **params}
    g = (0.0, 0.0, -9.81) if p["gravity"] else (0.0, 0.0, 0.0)
    model = fem.Model("cantilever_beam", gravity=g)
    mat = fem.Material(p["E_Pa"], p["nu"], p["rho_kgm3"], name="steel")
    _, nodes = fem.straight_beam(model, (0, 0, 0), (p["length_m"], 0, 0), p["n_elements"],
                                 mat, name="bar", end_names=(None, "tip"), **_section(p))
    # the clamp holds the position and the section (r_y, r_z); r_x stays free: the
    # centreline may stretch and shear at the support (Timoshenko: v′(0) = γ ≠ 0)
    model.fix(nodes[0], ("r", "r_y", "r_z"), name="clamp")
    if p["tip_force_z_N"]:
        model.add_force(model.point(nodes[-1]), (0.0, 0.0, p["tip_force_z_N"]), "tip force")
    model.view = "xz"
    return model


def reference(**params) -> dict:
    """Closed forms of linear Timoshenko / Euler–Bernoulli / rod theory for the same bar
    (:mod:`fem.references.beams`)."""
    p = {**PARAMS, **params}
    size = {k: v for k, v in _section(p).items() if k != "section"}
    sec = beam_section(_section(p)["section"], p["nu"], **size)
    E, rho, L = p["E_Pa"], p["rho_kgm3"], p["length_m"]
    G = E / (2 * (1 + p["nu"]))
    EI, A = E * sec["iy"], sec["area"]
    kGA = sec["shear_factor"] * G * A
    q = rho * A * 9.81 if p["gravity"] else 0.0
    out = {
        "tip_z_m": cantilever_tip_deflection(L, EI, q=-q, F=p["tip_force_z_N"], kGA=kGA),
        "shear_factor": sec["shear_factor"],
    }
    if rho <= 0:    # a massless bar has no finite frequencies: no reference for them
        return {**out, "bending_frequencies_hz": None, "torsion_frequencies_hz": None,
                "axial_frequencies_hz": None}
    return {
        **out,
        "bending_frequencies_hz": cantilever_frequencies(L, EI, rho * A, 3).tolist(),
        "torsion_frequencies_hz": fixed_free_rod_frequencies(L, np.sqrt(
            G * sec["torsion_constant"] / (rho * (sec["iy"] + sec["iz"]))), 3).tolist(),
        "axial_frequencies_hz": fixed_free_rod_frequencies(L, np.sqrt(E / rho), 3).tolist(),
    }


def classify_modes(model, shapes: np.ndarray, length: float) -> list[str]:
    """Name each mode by its dominant tip motion: 'bending_y' / 'bending_z' (centreline
    along y / z), 'axial' (along x), 'torsion' (rotation of r_y about x, times L) or
    'section' (the section's own stretch, times L)."""
    tip = model.node("tip")
    u = shapes[model.node_dofs(tip, "r")]
    dy = shapes[model.node_dofs(tip, "r_y")]
    dz = shapes[model.node_dofs(tip, "r_z")]
    names = []
    for k in range(shapes.shape[1]):
        score = {"axial": abs(u[0, k]), "bending_y": abs(u[1, k]), "bending_z": abs(u[2, k]),
                 "torsion": length * 0.5 * abs(dy[2, k] - dz[1, k]),
                 "section": length * max(abs(dy[1, k]), abs(dz[2, k]),
                                         0.5 * abs(dy[2, k] + dz[1, k]))}
        names.append(max(score, key=score.get))
    return names


def run(out=None, **params) -> dict:
    p = {**PARAMS, **params}
    model = build(**p)
    ref = reference(**p)
    figures: dict = {"n_coordinates": model.n_dof, "n_elements": p["n_elements"],
                     "shear_factor": ref["shear_factor"]}

    def modal(mr) -> dict:
        kinds = classify_modes(model, mr.shapes, p["length_m"])
        f = mr.frequencies_hz
        found = {"frequencies_hz": f.tolist(), "mode_kinds": kinds}
        for kind in ("bending_y", "bending_z", "torsion", "axial"):
            found[f"{kind}_frequencies_hz"] = [float(fi) for fi, k in zip(f, kinds, strict=True)
                                               if k == kind]
        for kind in ("bending", "torsion", "axial"):
            found[f"reference_{kind}_frequencies_hz"] = ref[f"{kind}_frequencies_hz"]
        return found

    return fem.cases.cantilever_analysis(model, p, out, figures, ref["tip_z_m"], modal,
                                         dynamic_reference=True)
