"""Peer figure for the cable benchmark: the same cantilever in Exudyn (issue 12).

Steel cantilever, 2 m, 0.02 × 0.02 m, clamped (position and slope of the first node),
gravity −9.81 z on every element, straight at rest at t = 0; Exudyn's 3D ANCF cable
(`ObjectANCFCable`), generalized-α with spectral radius 0.8, h = 1e-3 s, 1000 steps.
Exudyn is for measurement only, never a dependency of this project (``pip install
exudyn``).  Prints one JSON line per element count; only ``SolveDynamic`` is timed.
Run: ``python tests/benchmarks/peer_exudyn_cable.py [--tol 1e-6] [n ...]``.
"""

from __future__ import annotations

import json
import sys
import time
import warnings


def run(n: int, tol: float = 1e-6, steps: int = 1000, h: float = 1e-3) -> dict:
    import exudyn as exu
    from exudyn import beams
    from exudyn.itemInterface import ObjectANCFCable

    E, rho, b = 2.1e11, 7850.0, 0.02
    A, inertia = b * b, b**4 / 12.0
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    template = ObjectANCFCable(massPerLength=rho * A, bendingStiffness=E * inertia,
                               axialStiffness=E * A, useReducedOrderIntegration=0)
    with warnings.catch_warnings():      # the straight-line generator is deprecated in 1.11
        warnings.simplefilter("ignore", DeprecationWarning)
        nodes = beams.GenerateStraightBeam(mbs, [0, 0, 0], [2.0, 0, 0], n, template,
                                           gravity=[0, 0, -9.81],
                                           fixedConstraintsNode0=[1, 1, 1, 1, 1, 1],
                                           fixedConstraintsNode1=None)[0]
    mbs.Assemble()
    s = exu.SimulationSettings()
    s.timeIntegration.numberOfSteps = steps
    s.timeIntegration.endTime = steps * h
    s.timeIntegration.generalizedAlpha.spectralRadius = 0.8
    s.timeIntegration.newton.relativeTolerance = tol
    s.timeIntegration.verboseMode = 0
    s.solution.file.write = False
    s.solution.sensors.writePeriod = 1e9
    s.show.computationTime = False
    s.show.statistics = False
    s.parallel.numberOfThreads = 1
    t0 = time.perf_counter()
    ok = mbs.SolveDynamic(s)
    wall = time.perf_counter() - t0
    tip = mbs.GetNodeOutput(nodes[-1], exu.OutputVariableType.Position)
    return {"code": "exudyn " + exu.__version__, "elements": n, "steps": steps,
            "tol": tol, "completed": bool(ok), "wall_s": round(wall, 4),
            "tip_z_m": float(tip[2])}


if __name__ == "__main__":
    args = sys.argv[1:]
    tol = 1e-6
    if "--tol" in args:
        i = args.index("--tol")
        tol = float(args[i + 1])
        del args[i:i + 2]
    for n in [int(a) for a in args] or [16, 64, 256]:
        print(json.dumps(run(n, tol)), flush=True)
