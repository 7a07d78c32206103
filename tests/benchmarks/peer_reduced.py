"""Reduced flexible bodies side by side with Exudyn's ``ObjectFFRFreducedOrder`` (issue 19,
item 7).

Measurement only: Exudyn is never a dependency of ``fem`` (``pip install exudyn`` by
hand; without it our side runs alone and the JSON says so).

**The body.**  A soft round rod (nylon-like: E = 2 GPa, ν = 0.35, ρ = 1150 kg/m³), 1 m
long, 20 mm in diameter, ``n`` fully parameterized ANCF beam elements of this framework
(``fem.straight_beam``: per node a position ``r`` and three gradients ``r_x, r_y,
r_z``; consistent mass, rotary inertia of the section included).  It hangs from a
spherical hinge at its root, starts horizontal along x at rest and falls under gravity
(−z) for 2 s: a pendulum swinging down through the vertical with its bending modes
excited (first clamped frequency 3.6 Hz).  The tracked point is the tip.

**One reduction for both.**  ``fem.reduction.reduce_body`` with the root node a rigid
interface and ``n_modes`` fixed-interface normal modes, mean axes, M-orthonormal basis
(Craig–Bampton; its six static modes are the rigid motions and drop out).  Ours is a
:class:`fem.bodies.ReducedBody` (natural-coordinate frame, linear modal force ``K η``,
exact inertia).  Exudyn gets the same FE model through its ``FEMinterface``: its FFRF
objects know only *position* nodes, so every gradient slot ``g`` of a node with
position ``r`` becomes a position node ``p = r + d g`` (``d`` = half an element): an
exact, slot-wise linear change of coordinates ``x' = T x`` that commutes with rigid
motion, so ``M' = T⁻ᵀ M T⁻¹``, ``K' = T⁻ᵀ K T⁻¹`` and the modes ``Ψ' = T Ψ`` describe the
same body, mass matrix and basis (the rotary inertia of the section is in ``M'`` as
it is in ``M``: nothing lumped, nothing dropped).  ``ObjectFFRFreducedOrderInterface``
computes its inertia invariants from ``M'``, ``Ψ'`` and the nodes; the JSON reports
how far its reduced mass and stiffness are from ours (round-off).  The hinge is a
``SphericalJoint`` on a ``MarkerSuperElementPosition`` of the root node; gravity a
``LoadMassProportional`` (what ``AddObjectFFRFreducedOrder`` adds).

**Solvers.**  Both generalized-α, index 3, the same ρ∞ and step ``h``, relative Newton
tolerance 1e-10; Exudyn with Euler parameters (its default rigid node) and its full
Newton (default), one thread, no files, the tip stored in memory every step.  Only the
solver call is timed (``fem.simulate``; ``SolveSystem``), after a warm-up in the same
process, the two sides interleaved (order flipped every repeat), medians of ``-r``
repeats.  Prints one JSON line: the configuration, the tip's trajectory difference
``max_t |x_ours − x_exudyn| / max_t |x(t) − x(0)|``, both walls and their ratio.

    python tests/benchmarks/peer_reduced.py              # 8 elements, 6 modes, h = 1 ms
    python tests/benchmarks/peer_reduced.py -n 16 --modes 12 --dt 5e-4 -r 5
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings

import numpy as np
from benchtools import clock, interleaved, machine, one_thread, summary

one_thread()

import scipy.sparse as sp  # noqa: E402

import fem  # noqa: E402
from fem.reduction import reduce_body, rigid  # noqa: E402

try:
    import exudyn as exu
    from exudyn import itemInterface as ii
    from exudyn.FEM import FEMinterface, ObjectFFRFreducedOrderInterface
except ImportError:  # measurement only: never a project dependency
    exu = None

E, NU, RHO, RADIUS, LENGTH = 2.0e9, 0.35, 1150.0, 0.01, 1.0
GRAVITY = (0.0, 0.0, -9.81)
TOL = 1e-10


def fe_model(n: int):
    """The rod's FE model and its nodes."""
    m = fem.Model("rod", gravity=GRAVITY)
    _, nodes = fem.straight_beam(m, (0, 0, 0), (LENGTH, 0, 0), n,
                                 fem.Material(E, NU, RHO), section="circle", radius=RADIUS)
    return m, nodes


def reduction(n: int, n_modes: int):
    """``(FE model, nodes, Reduction)``: the root a rigid interface, ``n_modes`` clamped
    modes."""
    m, nodes = fe_model(n)
    return m, nodes, reduce_body(m, {"root": rigid([nodes[0]])}, n_modes=n_modes)


def position_only(fe, red, d: float):
    """The FE model as position nodes for Exudyn (see the module docstring): ``(nodes
    (S, 3) relative to the frame origin, M' (3S, 3S), K' (3S, 3S), Ψ' (3S, m), slot of
    every node's position)``."""
    asm = fe.assemble()
    S = red.n_slots
    slot_of = {int(s): i for i, s in enumerate(red.slot_dofs)}
    T = sp.lil_matrix((S, S))
    Tinv = sp.lil_matrix((S, S))
    r_slot = {}
    for k, fields in enumerate(fe.node_fields):
        r = slot_of[fields["r"]]
        r_slot[k] = r
        T[r, r] = Tinv[r, r] = 1.0
        for f, start in fields.items():
            if f == "r":
                continue
            g = slot_of[start]
            T[g, g], T[g, r] = d, 1.0                # p = r + d g
            Tinv[g, g], Tinv[g, r] = 1.0 / d, -1.0 / d
    T, Tinv = T.tocsr(), Tinv.tocsr()
    idx = (red.slot_dofs[:, None] + np.arange(3)).ravel()        # slot-major, x y z
    M = sp.csr_matrix(asm.mass_matrix(asm.q0))[idx][:, idx]
    _, kv = asm.internal_forces(asm.q0, tangent=True)
    K = sp.csr_matrix(asm.stiffness(kv))[idx][:, idx]
    T3inv = sp.kron(Tinv, sp.eye(3)).tocsr()
    Mp = (T3inv.T @ M @ T3inv).tocsr()
    Kp = (T3inv.T @ ((K + K.T) * 0.5) @ T3inv).tocsr()
    nodes = T @ red.Q
    Psi = np.einsum("st,tjm->sjm", T.toarray(), red.modes).reshape(3 * S, -1)
    return nodes, Mp, Kp, Psi, r_slot


# ------------------------------------------------------------------ ours
def build_ours(fe, nodes, red):
    mb = fem.Model("rod reduced", gravity=GRAVITY)
    b = mb.add_reduced_body("rod", red)
    mb.add_constraint(fem.Coincident(b.map(fe.point(nodes[0])), mb.ground((0, 0, 0)),
                                     "hinge"))
    return mb, b.map(fe.point(nodes[-1]))


def run_ours(model, tip, t_end: float, h: float, rho_inf: float):
    """``(wall [s], t, tip (N, 3), iterations per step)``."""
    t0 = clock()
    res = fem.simulate(model, t_end, h, rho_inf=rho_inf, tol=TOL)
    wall = clock() - t0
    x = np.array([tip(q) for q in res.q])
    return wall, np.asarray(res.t), x, float(res.stats["iterations"][1:].mean())


# ------------------------------------------------------------------ Exudyn
def build_exudyn(fe, nodes, red, d: float):
    """``(container, mbs, tip sensor, check)``: the same body in Exudyn."""
    xn, Mp, Kp, Psi, r_slot = position_only(fe, red, d)
    fi = FEMinterface()
    fi.nodes = {"Position": xn}
    fi.massMatrix, fi.stiffnessMatrix = Mp, Kp
    fi.modeBasis = {"matrix": Psi, "type": "HCBmodes"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cms = ObjectFFRFreducedOrderInterface(fi)
    check = {"reduced_mass_vs_identity": float(np.abs(cms.massMatrixReduced
                                                      - np.eye(red.n_modes)).max()),
             "reduced_stiffness_vs_ours_rel": float(
                 np.abs(cms.stiffnessMatrixReduced - red.K).max() / np.abs(red.K).max()),
             "mass_kg": [float(cms.totalMass), red.mass]}
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    obj = cms.AddObjectFFRFreducedOrder(mbs, positionRef=red.origin, gravity=GRAVITY)
    body = obj["oFFRFreducedOrder"]
    ground = mbs.AddObject(ii.ObjectGround())
    m_ground = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=ground, localPosition=[0, 0, 0]))
    m_root = mbs.AddMarker(ii.MarkerSuperElementPosition(
        bodyNumber=body, meshNodeNumbers=[r_slot[int(nodes[0])]], weightingFactors=[1.0]))
    mbs.AddObject(ii.SphericalJoint(markerNumbers=[m_ground, m_root]))
    sensor = mbs.AddSensor(ii.SensorSuperElement(
        bodyNumber=body, meshNodeNumber=r_slot[int(nodes[-1])], storeInternal=True,
        writeToFile=False, outputVariableType=exu.OutputVariableType.Position))
    mbs.Assemble()
    return sc, mbs, sensor, check


def exudyn_settings(t_end: float, h: float, rho_inf: float):
    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.numberOfSteps = int(round(t_end / h))
    ti.endTime = ti.numberOfSteps * h
    ti.verboseMode = 0
    ti.adaptiveStep = False
    ti.generalizedAlpha.spectralRadius = rho_inf
    ti.generalizedAlpha.useNewmark = False
    ti.generalizedAlpha.useIndex2Constraints = False
    ti.newton.relativeTolerance = TOL
    s.solution.file.write = False
    s.solution.sensors.writePeriod = 0.5 * h          # every step
    s.parallel.numberOfThreads = 1
    s.show.computationTime = False
    s.show.globalTimers = False
    s.linearSolver.solverType = exu.LinearSolverType.EXUdense
    return s


def run_exudyn(built, t_end: float, h: float, rho_inf: float):
    """``(wall [s], t, tip (N, 3), Newton iterations per step)`` of a freshly built
    system."""
    _sc, mbs, sensor, _ = built
    s = exudyn_settings(t_end, h, rho_inf)
    solver = exu.MainSolverImplicitSecondOrder()
    t0 = clock()
    ok = solver.SolveSystem(mbs, s)
    wall = clock() - t0
    if not ok:
        raise RuntimeError(f"Exudyn failed at t = {solver.it.currentTime}")
    data = mbs.GetSensorStoredData(sensor)
    steps = int(round(t_end / h))
    return wall, data[:, 0], data[:, 1:4], solver.it.newtonStepsCount / steps


# ------------------------------------------------------------------ main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", "--elements", type=int, default=8)
    ap.add_argument("--modes", type=int, default=6)
    ap.add_argument("--dt", type=float, default=1e-3)
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--rho-inf", type=float, default=0.8)
    ap.add_argument("-r", "--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", DeprecationWarning)
    n, h, t_end, rho = args.elements, args.dt, args.t_end, args.rho_inf
    t0 = clock()
    fe, nodes, red = reduction(n, args.modes)
    offline = clock() - t0
    ours = build_ours(fe, nodes, red)
    out = {"benchmark": "peer_reduced", "body": "ANCF beam rod, spherical hinge at the root, "
           "falling from horizontal", "elements": n, "fe_coordinates": red.n_fe,
           "modes": red.n_modes, "frequencies_hz": np.round(red.frequencies_hz, 3).tolist(),
           "dt_s": h, "t_end_s": t_end, "rho_inf": rho, "newton_rel_tol": TOL,
           "reduction_s": round(offline, 3), "machine": machine()}
    run_ours(*ours, 0.02, h, rho)                       # warm-up (numba, caches)
    runs = {"ours": lambda: run_ours(*ours, t_end, h, rho)}
    if exu is not None:
        d = 0.5 * LENGTH / n
        built = build_exudyn(fe, nodes, red, d)
        out["exudyn"] = exu.GetVersionString()
        out["exudyn_check"] = built[3]
        run_exudyn(build_exudyn(fe, nodes, red, d), 0.02, h, rho)      # warm-up
        runs["exudyn"] = lambda: run_exudyn(build_exudyn(fe, nodes, red, d), t_end, h, rho)
    else:
        out["exudyn"] = "not installed (pip install exudyn): our side only"
    last = {}

    def one(name):
        wall, t, x, its = runs[name]()
        last[name] = (t, x, its)
        return wall

    walls = interleaved(list(runs), args.repeats, one)
    t, x, its = last["ours"]
    motion = float(np.linalg.norm(x - x[0], axis=1).max())
    out["ours"] = {**summary(walls["ours"]), "newton_iterations_per_step": round(its, 3),
                   "tip_end_m": np.round(x[-1], 6).tolist()}
    out["motion_m"] = round(motion, 6)
    if "exudyn" in last:
        te, xe, itse = last["exudyn"]
        k = min(len(t), len(xe))
        if np.abs(te[:k] - t[:k]).max() > 1e-9:
            raise RuntimeError("the two sides' output times differ")
        diff = float(np.linalg.norm(x[:k] - xe[:k], axis=1).max())
        out["exudyn_run"] = {**summary(walls["exudyn"]),
                             "newton_iterations_per_step": round(itse, 3),
                             "tip_end_m": np.round(xe[k - 1], 6).tolist()}
        out["tip_difference_m"] = diff
        out["tip_difference_rel"] = diff / motion
        out["wall_ratio_ours_over_exudyn"] = round(
            out["ours"]["wall_median_s"] / out["exudyn_run"]["wall_median_s"], 3)
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
