"""Peer side of the floating-frame chain benchmark: the spin-up beam and the two-link fall
in Exudyn, as planar ANCF cables (``ObjectANCFCable2D``) (issue 23, item 2).

Measurement only: Exudyn is never a dependency of ``fem``.  Install it by hand
(``pip install exudyn``); without it :data:`exu` is None and ``peer_chains.py`` runs
our side only.  The data come from the cases' ``PARAMS`` (``cases/spinup_beam.py``,
``cases/two_link_arm_fall.py``); nothing of the physics is chosen here.

* **Spin-up beam** (Kane's beam): ``n`` cables from the hub centre along x, nodes
  ``NodePoint2DSlope1``; node 0's position held at the origin and its slope prescribed as
  ``(cos θ(t), sin θ(t))`` by four ``CoordinateConstraint`` s, the two slope rows with a
  symbolic offset (evaluated in C++: the case's hub law, checked against
  ``spinup_beam.hub_motion`` at build time).  No gravity.  The tip deflection is the
  case's ``tip_v_m``: the tip's position in the hub frame, transverse component
  ``v = −sin θ x + cos θ y``.
* **Two-link fall**: two chains of ``n`` cables each, own nodes at the joint, joined by
  two ``CoordinateConstraint`` s on the joint's positions (a pin: the slopes are free);
  the first link's root held at the origin.  Gravity as ``LoadMassProportional``.  The
  deflection of link i is the case's ``deflection{i}_m``: the tip's offset from the
  link's root, transverse to the root tangent, ``d = (r(L) − r(0))·n̂``,
  ``n̂ = e_z × r′(0)/|r′(0)|`` (the floating frame's clamped basis has its x axis along
  the root tangent, so its ``Y(L)·b`` is the same quantity).

Generalized-α (the case's ρ∞), index 3, Exudyn's modified Newton at relative tolerance
1e-8 (ours too).  At rest with no load the spin-up's first residual is zero, and the
stiff axial terms give a round-off floor, so Exudyn's default absolute tolerance (1e-10)
cannot be reached: the absolute tolerances of ``abs_tols`` are tried in order with the
adaptive step off (a tolerance Newton cannot reach fails fast) and the first one that
completes is kept.  One thread; sensors stored in memory (every step), no files.  Only
``SolveSystem`` is timed (the build and the post-processing are not; ours likewise
times ``fem.simulate`` only).

    python tests/benchmarks/peer_exudyn_chains.py spinup_beam 8 0.01 --omega0 4
    python tests/benchmarks/peer_exudyn_chains.py two_link_arm_fall 8 0.002 --t-end 2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings

import numpy as np
from benchtools import one_thread

one_thread()

try:
    import exudyn as exu
    from exudyn import itemInterface as ii
    from exudyn.advancedUtilities import CreateSymbolicUserFunction
except ImportError:  # measurement only: never a project dependency
    exu = None

import spinup_beam  # noqa: E402  (the cases: their data and definitions)
import two_link_arm_fall  # noqa: E402

ABS_TOLS = (1e-10, 1e-8, 1e-6, 1e-4)
"""Newton absolute tolerances to try, tightest (Exudyn's default) first."""
REL_TOL = 1e-8
SOLVERS = ("sparse", "dense")
"""Exudyn's linear solvers: ``EigenSparse`` and ``EXUdense``."""
NEWTON = ("modified", "per_step")
"""Exudyn's modified Newton (its default), or with a fresh Jacobian every step
(``modifiedNewtonJacUpdatePerStep``)."""


def _cable(mbs, nodes, le: float, rho_A: float, EA: float, EI: float):
    return [mbs.AddObject(ii.ObjectANCFCable2D(
        length=le, massPerLength=rho_A, bendingStiffness=EI, axialStiffness=EA,
        nodeNumbers=[nodes[i], nodes[i + 1]], visualization=ii.VObjectANCFCable2D(show=False)))
        for i in range(len(nodes) - 1)]


def _line(mbs, start, angle: float, length: float, n: int):
    c, s = np.cos(angle), np.sin(angle)
    return [mbs.AddNode(ii.NodePoint2DSlope1(referenceCoordinates=[
        start[0] + i * length / n * c, start[1] + i * length / n * s, c, s])) for i in range(n + 1)]


def _hub_slope_offsets(omega0: float, T: float):
    """The case's hub law as the two slope offsets ``cos θ − 1`` and ``sin θ`` (node
    coordinates are displacements from the reference slope (1, 0)), symbolic-ready."""
    esym = exu.symbolic

    def theta(t):
        return esym.IfThenElse(
            t <= T, omega0 * t * t / (2 * T) + omega0 * T / (4 * np.pi**2)
            * (esym.cos(2 * np.pi * t / T) - 1.0), omega0 * T / 2 + omega0 * (t - T))

    def ox(mbs, t, itemNumber, lOffset):
        return esym.cos(theta(t)) - 1.0

    def oy(mbs, t, itemNumber, lOffset):
        return esym.sin(theta(t))

    return ox, oy


def build_spinup(n: int, omega0: float):
    """The spin-up beam with ``n`` cables: ``(container, mbs, sensors, keep)``."""
    p = spinup_beam.PARAMS
    L, A, rho, E = p["length_m"], p["area_m2"], p["rho_kgm3"], p["E_Pa"]
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    nodes = _line(mbs, (0.0, 0.0), 0.0, L, n)
    _cable(mbs, nodes, L / n, rho * A, E * A, E * p["inertia_m4"])
    ground = mbs.AddNode(ii.NodePointGround(referenceCoordinates=[0, 0, 0]))
    m_ground = mbs.AddMarker(ii.MarkerNodeCoordinate(nodeNumber=ground, coordinate=0))
    rows = [mbs.AddObject(ii.CoordinateConstraint(markerNumbers=[m_ground, mbs.AddMarker(
        ii.MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=j))])) for j in range(4)]
    keep = []            # the symbolic functions must outlive the run
    motion = spinup_beam.hub_motion(omega0, p["spinup_time_s"])
    for row, f, exact in zip(rows[2:], _hub_slope_offsets(omega0, p["spinup_time_s"]),
                             (lambda t: np.cos(motion(t)[0]) - 1.0,
                              lambda t: np.sin(motion(t)[0])), strict=True):
        sym = CreateSymbolicUserFunction(mbs, f, "offsetUserFunction", row)
        for t in (0.0, 3.7, p["spinup_time_s"], p["spinup_time_s"] + 2.3):
            got = sym.Evaluate(mbs, t, 0, 0.0)
            if abs(got - exact(t)) > 1e-12:
                raise RuntimeError(f"Exudyn hub law differs from spinup_beam.hub_motion at "
                                   f"t = {t}: {got} against {exact(t)}")
        mbs.SetObjectParameter(row, "offsetUserFunction", sym)
        keep.append(sym)
    sensors = [mbs.AddSensor(ii.SensorNode(nodeNumber=nodes[-1], storeInternal=True,
                                           writeToFile=False,
                                           outputVariableType=exu.OutputVariableType.Position))]
    mbs.Assemble()
    return sc, mbs, sensors, keep


def build_two_link(n: int):
    """The two-link fall with ``n`` cables per link: ``(container, mbs, sensors, keep)``;
    the sensors give the coordinates of link 1's root and tip, link 2's root and tip."""
    p = two_link_arm_fall.PARAMS
    L, k = p["length_m"], p["stiffness_factor"]
    phi = np.cumsum(np.radians([p["theta1_0_deg"], p["theta2_0_deg"]]))
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    links, start = [], (0.0, 0.0)
    for angle in phi:
        nodes = _line(mbs, start, angle, L, n)
        for body in _cable(mbs, nodes, L / n, p["mass_kg"] / L, k * p["EA_N"],
                           k * p["EI_Nm2"]):
            mbs.AddLoad(ii.LoadMassProportional(
                markerNumber=mbs.AddMarker(ii.MarkerBodyMass(bodyNumber=body)),
                loadVector=[0.0, -p["gravity_mps2"], 0.0]))
        links.append(nodes)
        start = (start[0] + L * np.cos(angle), start[1] + L * np.sin(angle))
    ground = mbs.AddNode(ii.NodePointGround(referenceCoordinates=[0, 0, 0]))
    m_ground = mbs.AddMarker(ii.MarkerNodeCoordinate(nodeNumber=ground, coordinate=0))
    for j in range(2):                       # root pin, then the joint's positions
        for a, b in ((None, links[0][0]), (links[0][-1], links[1][0])):
            ma = m_ground if a is None else mbs.AddMarker(
                ii.MarkerNodeCoordinate(nodeNumber=a, coordinate=j))
            mb = mbs.AddMarker(ii.MarkerNodeCoordinate(nodeNumber=b, coordinate=j))
            mbs.AddObject(ii.CoordinateConstraint(markerNumbers=[ma, mb]))
    sensors = [mbs.AddSensor(ii.SensorNode(
        nodeNumber=node, storeInternal=True, writeToFile=False,
        outputVariableType=exu.OutputVariableType.Coordinates))
        for node in (links[0][0], links[0][-1], links[1][0], links[1][-1])]
    mbs.Assemble()
    return sc, mbs, sensors, [[links[0][0], links[0][-1], links[1][0], links[1][-1]]]


def _settings(t_end: float, h: float, rho_inf: float, abs_tol: float, solver: str,
              newton: str):
    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.numberOfSteps = int(round(t_end / h))
    ti.endTime = ti.numberOfSteps * h
    ti.verboseMode = 0
    ti.adaptiveStep = False              # fail fast when Newton cannot reach the tolerance
    ti.generalizedAlpha.spectralRadius = rho_inf
    ti.generalizedAlpha.useNewmark = False
    ti.generalizedAlpha.useIndex2Constraints = False
    ti.newton.relativeTolerance = REL_TOL
    ti.newton.absoluteTolerance = abs_tol
    ti.newton.modifiedNewtonJacUpdatePerStep = {"modified": False, "per_step": True}[newton]
    s.solution.file.write = False
    s.solution.sensors.writePeriod = 0.5 * h     # every step
    s.parallel.numberOfThreads = 1
    s.linearSolver.solverType = {"sparse": exu.LinearSolverType.EigenSparse,
                                 "dense": exu.LinearSolverType.EXUdense}[solver]
    return s


def _deflections(case: str, mbs, sensors, keep, omega0: float):
    """``(t, deflections)``: the spin-up tip's ``v`` or both links' ``d`` at every step."""
    data = [mbs.GetSensorStoredData(s) for s in sensors]
    t = data[0][:, 0]
    if case == "spinup_beam":
        motion = spinup_beam.hub_motion(omega0, spinup_beam.PARAMS["spinup_time_s"])
        th = np.array([motion(s)[0] for s in t])
        x, y = data[0][:, 1], data[0][:, 2]
        return t, (-np.sin(th) * x + np.cos(th) * y)[:, None]
    ref = [np.asarray(mbs.GetNodeParameter(node, "referenceCoordinates")) for node in keep[0]]
    c = [d[:, 1:] + r for d, r in zip(data, ref, strict=True)]
    out = []
    for root, tip in ((c[0], c[1]), (c[2], c[3])):
        s = root[:, 2:4]
        normal = np.column_stack([-s[:, 1], s[:, 0]]) / np.linalg.norm(s, axis=1)[:, None]
        out.append(np.sum((tip[:, :2] - root[:, :2]) * normal, axis=1))
    return t, np.column_stack(out)


def solve(case: str, elements: int, h: float, t_end: float, omega0: float = 4.0,
          abs_tols=ABS_TOLS, solver: str = "sparse", newton: str = "modified") -> dict:
    """One run: the first of ``abs_tols`` at which Exudyn completes, its wall time
    (``SolveSystem`` only) and the peak deflection(s) ``peaks_m`` (one per link)."""
    rho_inf = (spinup_beam if case == "spinup_beam" else two_link_arm_fall).PARAMS["rho_inf"]
    failed = []
    for tol in abs_tols:
        sc, mbs, sensors, keep = (build_spinup(elements, omega0) if case == "spinup_beam"
                                  else build_two_link(elements))
        s = _settings(t_end, h, rho_inf, tol, solver, newton)
        steps = s.timeIntegration.numberOfSteps
        slv = exu.MainSolverImplicitSecondOrder()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            ok = slv.SolveSystem(mbs, s)
            wall = time.perf_counter() - t0
        it = slv.it
        if ok and it.currentStepIndex - 1 == steps and abs(it.currentTime - steps * h) < 1e-9:
            break
        failed.append({"abs_tol": tol, "failed_at_t_s": round(float(it.currentTime), 6)})
    else:
        return {"code": "exudyn", "case": case, "elements": elements, "h_s": h,
                "completed": False, "failed": failed}
    t, d = _deflections(case, mbs, sensors, keep, omega0)
    return {"code": "exudyn", "version": exu.config.Version(), "case": case,
            "elements": elements, "h_s": h, "solver": solver, "newton": newton,
            "completed": True,
            "abs_tol": tol, "rel_tol": REL_TOL, "failed": failed, "wall_s": wall,
            "peaks_m": np.abs(d).max(axis=0).tolist(), "steps": int(steps),
            "coordinates": len(mbs.systemData.GetODE2Coordinates()),
            "constraints": len(mbs.systemData.GetAECoordinates()),
            "newton_iterations_per_step": round(it.newtonStepsCount / steps, 3),
            "jacobians": int(it.newtonJacobiCount)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case", choices=("spinup_beam", "two_link_arm_fall"))
    ap.add_argument("elements", type=int, help="cables (per link)")
    ap.add_argument("h", type=float, help="time step [s]")
    ap.add_argument("--omega0", type=float, default=4.0)
    ap.add_argument("--t-end", type=float, default=None, help="default: the case's")
    ap.add_argument("--solver", choices=SOLVERS, default="sparse")
    ap.add_argument("--newton", choices=NEWTON, default="modified")
    args = ap.parse_args(argv)
    if exu is None:
        print("peer_exudyn_chains: exudyn is not installed (pip install exudyn); it is a "
              "measurement-only peer, not a dependency of fem. Skipping.", file=sys.stderr)
        return 0
    mod = spinup_beam if args.case == "spinup_beam" else two_link_arm_fall
    t_end = args.t_end or mod.PARAMS["t_end_s"]
    print(json.dumps(solve(args.case, args.elements, args.h, t_end, args.omega0,
                           solver=args.solver, newton=args.newton)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
