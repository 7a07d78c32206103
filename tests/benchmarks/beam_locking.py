"""Measurement behind the ANCF beam's locking remedy (docs/ancf_beam.md, issue 9).

Prints JSON lines: for each formulation of ``ancf_beam`` ('structural' with the section
strains at the nodes or at the Gauss points, 'continuum', 'continuum_split'):

* ``tip_ratio``: tip deflection under a small tip load (PL²/EI = 3e-3) divided by
  Timoshenko's ``PL³/3EI + PL/kGA`` for L/h ∈ {5, 10, 100, 1000} and n ∈ {4, 16};
* ``elastica_error``: relative tip-deflection error for PL²/EI = 5 against the elastica,
  n ∈ {8, 16} (L/h = 100);
* ``torsion_ratio``: first torsion frequency of the square cantilever / (1/4L)√(GJ/ρI_p).

Not collected by pytest (run: ``python tests/benchmarks/beam_locking.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

import fem
from fem.elements.ancf_beam import beam_section

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_ancf_beam import elastica  # noqa: E402

VARIANTS = {"structural (nodal section strains)": {"formulation": "structural"},
            "structural (section strains at Gauss points)": {
                "formulation": "structural", "section_strains": "gauss"},
            "continuum": {"formulation": "continuum"},
            "continuum_split": {"formulation": "continuum_split"}}


def cantilever(n, slenderness, load, options, h=0.02, steps=1):
    E, nu, L = 2.1e11, 0.3, slenderness * h
    mat = fem.Material(E, nu, 7850.0)
    m = fem.Model("cantilever")
    _, nodes = fem.straight_beam(m, (0, 0, 0), (L, 0, 0), n, mat, section="rectangle",
                                 width=h, height=h, **options)
    m.fix(nodes[0], ("r", "r_y", "r_z"))
    sec = beam_section("rectangle", nu, width=h, height=h)
    EI, kGA = E * sec["iy"], sec["shear_factor"] * mat.G * sec["area"]
    P = load * EI / L**2
    m.add_force(m.point(nodes[-1]), (0, 0, -P))
    st = fem.solve_static(m, load_steps=steps, max_iter=200)
    tip = st.q[m.node_dofs(nodes[-1])]
    return tip / L, (P * L**3 / (3 * EI) + P * L / kGA) / L, m, nodes


def torsion_ratio(options, n=16):
    m = fem.Model("torsion")
    mat = fem.Material(2.1e11, 0.3, 7850.0)
    _, nodes = fem.straight_beam(m, (0, 0, 0), (2.0, 0, 0), n, mat, section="rectangle",
                                 width=0.02, height=0.02, **options)
    m.fix(nodes[0], ("r", "r_y", "r_z"))
    mr = fem.modes(m, n_modes=30)
    dy = mr.shapes[m.node_dofs(nodes[-1], "r_y")]
    u = mr.shapes[m.node_dofs(nodes[-1], "r")]
    k = int(np.flatnonzero(2.0 * np.abs(dy[2]) > np.abs(u).max(axis=0))[0])
    sec = beam_section("rectangle", 0.3, width=0.02, height=0.02)
    ref = np.sqrt(mat.G * sec["torsion_constant"] / (mat.rho * (sec["iy"] + sec["iz"]))) / 8
    return mr.frequencies_hz[k] / ref


if __name__ == "__main__":
    x5, w5 = elastica(5)
    for name, opt in VARIANTS.items():
        row = {"variant": name, "tip_ratio": {}, "elastica_error": {}}
        for lh in (5, 10, 100, 1000):
            row["tip_ratio"][f"L/h={lh}"] = {
                f"n={n}": round(float(-a[2] / b), 5)
                for n in (4, 16) for a, b, *_ in [cantilever(n, lh, 3e-3, opt)]}
        for n in (8, 16):
            try:
                tip, *_ = cantilever(n, 100, 5.0, opt, steps=20)
                row["elastica_error"][f"n={n}"] = round(float(-tip[2] / w5 - 1), 5)
            except fem.ConvergenceError:
                row["elastica_error"][f"n={n}"] = "no convergence"
        row["torsion_ratio"] = round(float(torsion_ratio(opt)), 5)
        print(json.dumps(row), flush=True)
