"""Benchmark: the link models priced on one robot (issue 40 item 2).

The 3-RRRU robot with flexible links (Liu et al. 2018: E = 6.9e8 Pa links 3) on its
circle, the motors as servos on the rigid robot's angles (the collocated drive, its
inverse dynamics), built with each link model through the robot layer: ANCF beams at
several element counts, floating-frame links (Bézier basis, fourth-order kinematics) and
reduced links (Craig–Bampton modes of ANCF FE models of segments welded end to end) at
several segment counts. ANCF cables do not apply to this robot: link 3 turns its
universal joint at U about an axis of its section, which a cable (a tangent, no twist)
does not carry — the robot layer refuses it, naming joint U1. The reference is ANCF with
``--reference`` elements. For each model: the error of the three motors' torque
histories (largest over the motors of max |τ − τ_ref| / range τ_ref), the wall time of
the simulation, cold (its first run in a fresh process: a child started for it; and the
whole child, start-up, imports, build and kernels included, as ``cold_process_s``) and
warm (median of the repeats in this process after a first, untimed one), the coordinates
and the Newton iterations, and the CPU seconds of the warm runs (median) with their CPU
milliseconds per Newton iteration (the honest measure on a shared machine). One JSON
line per model, then the machine.

``--arm STEPS``: instead, the vehicle manipulator's arm (``cases/vehicle_manipulator_cms``,
its swing from the static equilibrium) with ANCF cables and with reduced bodies, ``STEPS``
steps of the swing each, interleaved over ``-r`` rounds: CPU seconds and wall of the
steps (median), coordinates, Newton iterations, CPU milliseconds per iteration.

The NumPy path is ``FEM_JIT=numpy`` (no compiled kernels); else the compiled one.

    python tests/benchmarks/link_models.py                     # the defaults
    python tests/benchmarks/link_models.py --speed 0.5 -r 2 --reference 16
    python tests/benchmarks/link_models.py --models "ancf_beam 8" "floating_frame 2×4"
    FEM_JIT=numpy python tests/benchmarks/link_models.py --arm 400 -r 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

from benchtools import clock, last_json, machine, one_thread, one_thread_env

one_thread()                               # the checkout's fem, ahead of an installed one

import numpy as np  # noqa: E402

import fem  # noqa: E402
from fem.robots.rrru3_flexible_links import (  # noqa: E402
    build_flexible_links_robot,
    liu2018_circle_path,
    liu2018_geometry,
)

MODELS = {"ancf_beam 2": dict(link_model="ancf_beam", n_elements=2),
          "ancf_beam 4": dict(link_model="ancf_beam", n_elements=4),
          "ancf_beam 6": dict(link_model="ancf_beam", n_elements=6),
          "ancf_beam 7": dict(link_model="ancf_beam", n_elements=7),
          "ancf_beam 8": dict(link_model="ancf_beam", n_elements=8),
          "floating_frame 1×4": dict(link_model="floating_frame", link_segments=1,
                                     link_coordinates=4),
          "floating_frame 2×4": dict(link_model="floating_frame", link_segments=2,
                                     link_coordinates=4),
          "floating_frame 4×4": dict(link_model="floating_frame", link_segments=4,
                                     link_coordinates=4),
          # reduced: segments × fixed-interface modes, each segment an FE model of
          # n_elements ANCF beam elements (the segments welded: fixed joints between
          # node interfaces)
          "reduced 1×2": dict(link_model="reduced", link_segments=1, link_coordinates=2,
                              n_elements=8),
          "reduced 2×2": dict(link_model="reduced", link_segments=2, link_coordinates=2,
                              n_elements=8),
          "reduced 3×2": dict(link_model="reduced", link_segments=3, link_coordinates=2,
                              n_elements=8),
          "reduced 4×2": dict(link_model="reduced", link_segments=4, link_coordinates=2,
                              n_elements=4)}


def run(spec: dict, speed: float, dt: float, t_end: float):
    geom = liu2018_geometry()
    path = liu2018_circle_path(geom, speed)
    rm = build_flexible_links_robot(geom, mode="inverse", drive="joints", path=path, **spec)
    st = rm.robot.rest()
    t0, c0 = clock(), time.process_time()
    res = fem.simulate(rm.model, t_end, dt, q0=st.q, rho_inf=0.5,
                       sensors=rm.robot.sensors(deflections=False))
    wall, cpu = clock() - t0, time.process_time() - c0
    tau = np.array([res.sensors[f"motor {k + 1} effort_Nm"] for k in range(3)])
    its = np.asarray(res.stats["iterations"])
    return tau, wall, rm.model.assemble().n, float(np.mean(its)), cpu, int(its.sum())


def run_arm(kind: str, steps: int) -> dict:
    """The vehicle manipulator's arm (``kind`` "ancf" or "reduced") swung for ``steps``
    steps from its static equilibrium: CPU seconds and wall of the steps."""
    import vehicle_manipulator_cms as vm

    p = dict(vm.PARAMS)
    a = vm.arm(kind, "drive", **p)
    st = fem.solve_static(a.model, q0=a.model.q0, tol=1e-10)
    t0, c0 = clock(), time.process_time()
    res = fem.simulate(a.model, steps * p["dt_s"], p["dt_s"], rho_inf=p["rho_inf"], q0=st.q)
    wall, cpu = clock() - t0, time.process_time() - c0
    its = int(np.sum(res.stats["iterations"]))
    return {"model": f"{kind} arm", "coordinates": int(a.model.assemble().n), "steps": steps,
            "iterations": its, "cpu_s": cpu, "wall_s": wall,
            "cpu_ms_per_iteration": 1e3 * cpu / its}


def arms(steps: int, rounds: int) -> None:
    """:func:`run_arm` of both arms interleaved (the order flips each round); the medians."""
    out: dict = {"ancf": [], "reduced": []}
    for r in range(rounds):
        for kind in (("ancf", "reduced") if r % 2 == 0 else ("reduced", "ancf")):
            out[kind].append(run_arm(kind, steps))
    for runs in out.values():
        row = dict(runs[0])
        for key in ("cpu_s", "wall_s", "cpu_ms_per_iteration"):
            row[key] = round(statistics.median(x[key] for x in runs), 4)
        print(json.dumps(row), flush=True)
    print(json.dumps({"machine": machine(), "rounds": rounds, "path": fem_path()}))


def fem_path() -> str:
    """Which kernels ran: "numpy" or "compiled"."""
    from fem.core.jit import disabled

    return "numpy" if disabled() else "compiled"


def cold(name: str, a) -> tuple[float, float]:
    """The wall time of the model's first run in a fresh process (a child), and of the
    whole child from outside: start-up, imports, building the model and its rest state,
    loading (or compiling) its kernels — what a user waits for."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--child", name, "--speed", str(a.speed),
                          "--dt", str(a.dt)], capture_output=True, text=True,
                         env=one_thread_env(), check=True)
    return last_json(out.stdout)["wall_s"], time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--speed", type=float, default=0.5)
    ap.add_argument("--dt", type=float, default=5e-3)
    ap.add_argument("--reference", type=int, default=16)
    ap.add_argument("-r", "--repeats", type=int, default=2)
    ap.add_argument("--models", nargs="*", default=list(MODELS), choices=list(MODELS))
    ap.add_argument("--arm", type=int, metavar="STEPS",
                    help="the vehicle manipulator's arm, ANCF against reduced, STEPS steps")
    ap.add_argument("--child", help=argparse.SUPPRESS)      # one cold run, in a child
    a = ap.parse_args()
    if a.arm:
        arms(a.arm, max(a.repeats, 1))
        return
    t_end = 2.0 * np.pi * 0.1 / (0.6 * a.speed)
    if a.child:
        _, wall, *_ = run(MODELS[a.child], a.speed, a.dt, t_end)
        print(json.dumps({"model": a.child, "wall_s": wall}))
        return
    ref, *_ = run(dict(link_model="ancf_beam", n_elements=a.reference), a.speed, a.dt, t_end)
    span = np.ptp(ref, axis=1)
    for name in a.models:
        spec = MODELS[name]
        t_cold, t_process = cold(name, a)
        walls, cpus = [], []
        for _ in range(1 + a.repeats):
            tau, wall, n, its, cpu, n_its = run(spec, a.speed, a.dt, t_end)
            walls.append(wall)
            cpus.append(cpu)
        err = float((np.abs(tau - ref).max(axis=1) / span).max())
        cpu = statistics.median(cpus[1:])
        print(json.dumps({"model": name, "error_of_range": round(err, 5),
                          "cold_s": round(t_cold, 3), "cold_process_s": round(t_process, 3),
                          "warm_s": round(statistics.median(walls[1:]), 3),
                          "warm_cpu_s": round(cpu, 3),
                          "cpu_ms_per_iteration": round(1e3 * cpu / n_its, 3),
                          "coordinates": n, "iterations_per_step": round(its, 2)}),
              flush=True)
    print(json.dumps({"machine": machine(), "reference": f"ancf_beam {a.reference}",
                      "speed_mps": a.speed, "dt_s": a.dt, "path": fem_path()}))


if __name__ == "__main__":
    main()
