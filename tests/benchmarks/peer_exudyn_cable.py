"""Peer side of the cable benchmark: the same cantilever in Exudyn (issue 12).

Measurement only: Exudyn is never a dependency of ``fem``.  Install it by hand
(``pip install exudyn``); without it this script prints a message and exits 0.

The model of ``cable_cantilever.py``: steel cantilever 2 m, 0.02 × 0.02 m square section
(EA, EI, ρA from E 2.1e11, ρ 7850), ``n`` 3D ANCF cables (``ObjectANCFCable``, nodes
``NodePointSlope1``), gravity −9.81 z as ``LoadMassProportional`` on every element,
node 0's position and slope held by six ``CoordinateConstraint`` s to ground (Exudyn
fixes coordinates with constraints, not by elimination).  Generalized-α, spectral
radius 0.8, h = 1e-3 s, 1000 steps, modified Newton (Exudyn's default), sparse LU
(``EigenSparse``), one thread, no solution or sensor files.

Newton tolerance: the relative tolerances in ``--tols`` are tried in order (default
1e-6, 1e-5, 1e-4) with the adaptive step switched off, so a tolerance that Newton cannot
reach fails fast instead of shrinking the step; the first one that completes all 1000
steps is timed and reported.  Only the solver call is timed, after a small warm-up run
in the same process.  Prints one JSON line.

    python tests/benchmarks/peer_exudyn_cable.py 64 [--tols 1e-6,1e-5] [--abs-tol 1e-10]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

try:
    import exudyn as exu
    from exudyn import itemInterface as ii
except ImportError:  # measurement only: never a project dependency
    exu = None

E, RHO, SIDE, LENGTH, G = 2.1e11, 7850.0, 0.02, 2.0, 9.81
AREA, INERTIA = SIDE * SIDE, SIDE**4 / 12.0
TOLS = (1e-6, 1e-5, 1e-4)


def build(n: int):
    """The cantilever with ``n`` elements, assembled: ``(container, mbs, tip_node)``."""
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    le = LENGTH / n
    nodes = [mbs.AddNode(ii.NodePointSlope1(referenceCoordinates=[i * le, 0, 0, 1, 0, 0]))
             for i in range(n + 1)]
    for i in range(n):
        body = mbs.AddObject(ii.ObjectANCFCable(
            length=le, massPerLength=RHO * AREA, bendingStiffness=E * INERTIA,
            axialStiffness=E * AREA, nodeNumbers=[nodes[i], nodes[i + 1]],
            visualization=ii.VObjectANCFCable(show=False)))
        marker = mbs.AddMarker(ii.MarkerBodyMass(bodyNumber=body))
        mbs.AddLoad(ii.LoadMassProportional(markerNumber=marker, loadVector=[0, 0, -G]))
    ground = mbs.AddNode(ii.NodePointGround(referenceCoordinates=[0, 0, 0]))
    m_ground = mbs.AddMarker(ii.MarkerNodeCoordinate(nodeNumber=ground, coordinate=0))
    for j in range(6):   # x, y, z and r_x of node 0
        m_j = mbs.AddMarker(ii.MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=j))
        mbs.AddObject(ii.CoordinateConstraint(markerNumbers=[m_ground, m_j]))
    mbs.Assemble()
    return sc, mbs, nodes[-1]


def settings(steps: int, h: float, tol: float, abs_tol: float | None):
    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.numberOfSteps = steps
    ti.endTime = steps * h
    ti.verboseMode = 0
    ti.adaptiveStep = False              # fail fast when Newton cannot reach tol
    ti.generalizedAlpha.spectralRadius = 0.8
    ti.generalizedAlpha.useNewmark = False
    ti.generalizedAlpha.useIndex2Constraints = False
    ti.newton.relativeTolerance = tol
    if abs_tol is not None:
        ti.newton.absoluteTolerance = abs_tol
    s.solution.file.write = False
    s.solution.sensors.active = False
    s.parallel.numberOfThreads = 1
    s.show.computationTime = False
    s.show.globalTimers = False
    s.show.statistics = False
    s.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    return s


def solve(n: int, steps: int, h: float, tol: float, abs_tol: float | None):
    sc, mbs, tip = build(n)
    s = settings(steps, h, tol, abs_tol)
    solver = exu.MainSolverImplicitSecondOrder()
    t0 = time.perf_counter()
    ok = solver.SolveSystem(mbs, s)
    wall = time.perf_counter() - t0
    it = solver.it
    done = bool(ok) and it.currentStepIndex - 1 == steps and abs(it.currentTime - steps * h) < 1e-9
    return done, wall, (sc, mbs), tip, it


def run(n: int, steps: int = 1000, h: float = 1e-3, tols=TOLS,
        abs_tol: float | None = None) -> dict:
    solve(n, 5, h, tols[0], abs_tol)       # warm-up on the same model size, not timed
    failed = []
    for tol in tols:
        done, wall, (_sc, mbs), tip, it = solve(n, steps, h, tol, abs_tol)
        if done:
            break
        failed.append({"tol": tol, "failed_at_t_s": round(float(it.currentTime), 6)})
    else:
        return {"code": "exudyn", "elements": n, "completed": False, "failed": failed}
    z = float(mbs.GetNodeOutput(tip, exu.OutputVariableType.Position)[2])
    return {"code": "exudyn", "version": exu.GetVersionString(), "elements": n,
            "steps": steps, "completed": True, "tol": tol,
            "abs_tol": 1e-10 if abs_tol is None else abs_tol,
            "failed": failed, "wall_s": round(wall, 4), "tip_z_m": z,
            "newton_iterations_per_step": round(it.newtonStepsCount / steps, 3),
            "jacobians": int(it.newtonJacobiCount),
            "machine": f"{platform.processor() or platform.machine()}, python "
                       f"{sys.version.split()[0]}"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("elements", nargs="*", type=int, default=[16, 64, 256])
    ap.add_argument("--tols", default=",".join(f"{t:g}" for t in TOLS),
                    help="relative Newton tolerances to try, tightest first")
    ap.add_argument("--abs-tol", type=float, default=None,
                    help="Newton absolute tolerance (Exudyn's default 1e-10)")
    ap.add_argument("--steps", type=int, default=1000)
    args = ap.parse_args(argv)
    if exu is None:
        print("peer_exudyn_cable: exudyn is not installed (pip install exudyn); it is a "
              "measurement-only peer, not a dependency of fem. Skipping.", file=sys.stderr)
        return 0
    warnings.simplefilter("ignore", DeprecationWarning)
    tols = [float(t) for t in args.tols.split(",")]
    for n in args.elements:
        print(json.dumps(run(n, args.steps, tols=tols, abs_tol=args.abs_tol)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
