"""Benchmark: steel cantilever ANCF beam falling under gravity (issue 9).

The cable benchmark's problem (``cable_cantilever.py``) with the shear-deformable beam:
2 m, 20 × 20 mm steel, clamped (position and section) at x = 0, straight at rest at
t = 0, generalized-α ρ∞ = 0.8, h = 1e-3 s, 1000 steps, Newton tolerance 1e-6 relative;
n ∈ {16, 64} elements.  Prints one JSON line per n.  Not collected by pytest (run:
``python tests/benchmarks/beam_cantilever.py [n ...]``).
"""

from __future__ import annotations

import json
import sys

from benchtools import cantilever_drop

import fem


def run(n: int, steps: int = 1000, h: float = 1e-3) -> dict:
    model = fem.Model("cantilever", gravity=(0, 0, -9.81))
    _, nodes = fem.straight_beam(model, (0, 0, 0), (2.0, 0, 0), n,
                                 fem.Material(2.1e11, 0.3, 7850), section="rectangle",
                                 width=0.02, height=0.02)
    model.fix(nodes[0], ("r", "r_y", "r_z"))
    model.assemble()
    return cantilever_drop(model, model.node_dofs(nodes[-1])[2], steps, h, ms_per_step=True,
                           element="ancf_beam", elements=n)


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or [16, 64]
    for n in sizes:
        print(json.dumps(run(n)), flush=True)
