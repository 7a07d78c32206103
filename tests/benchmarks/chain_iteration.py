"""CPU time per Newton iteration of the chosen floating-frame chain configurations
(issue 23, item 2): the configurations of ``peer_chains.py``'s result, run in this
process with ``fem.simulate`` as their cases do, best of ``-r`` runs (CPU time,
``time.process_time``), interleaved.  Prints one JSON line per configuration and
``--save`` writes ``q`` and ``q̇`` at the end of each run (``.npz``) to compare two
versions of the code (``--compare``).

    python tests/benchmarks/chain_iteration.py -r 7
    python tests/benchmarks/chain_iteration.py --save /tmp/before.npz
    python tests/benchmarks/chain_iteration.py --compare /tmp/before.npz
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from benchtools import machine, one_thread

one_thread()

import spinup_beam  # noqa: E402
import two_link_arm_fall  # noqa: E402

import fem  # noqa: E402

CONFIGS = {
    # name: (case, its parameters)
    "spinup_omega4": (spinup_beam, {"omega0_rad_s": 4.0, "basis": "fe", "n_coordinates": 2,
                                    "kinematics": "paper", "dt_s": 0.2}),
    "spinup_omega10": (spinup_beam, {"omega0_rad_s": 10.0, "basis": "fe",
                                     "n_coordinates": 2, "kinematics": "paper",
                                     "dt_s": 0.2}),
    "two_link_fall": (two_link_arm_fall, {"basis": "bspline", "n_coordinates": 3,
                                          "kinematics": "paper", "dt_s": 0.01,
                                          "t_end_s": 2.0}),
}


def run(name: str):
    """One simulation as the case runs it; (CPU seconds, result)."""
    mod, params = CONFIGS[name]
    p = {**mod.PARAMS, **params}
    model = mod.build(**params)
    opts = {}
    if mod is spinup_beam:     # the case's force scale (spinup_beam.run)
        opts["force_scale"] = (0.5 * p["rho_kgm3"] * p["area_m2"] * p["length_m"] ** 2
                               * max(p["omega0_rad_s"], 1.0) ** 2)
    t0 = time.process_time()
    res = fem.simulate(model, p["t_end_s"], p["dt_s"], rho_inf=p["rho_inf"], **opts)
    return time.process_time() - t0, res


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("configs", nargs="*", help=f"any of {', '.join(CONFIGS)}")
    ap.add_argument("-r", "--repeats", type=int, default=5)
    ap.add_argument("--save", default=None, help="write the final states (.npz)")
    ap.add_argument("--compare", default=None, help="compare with saved final states")
    args = ap.parse_args(argv)
    names = args.configs or list(CONFIGS)
    for name in names:          # warm-up: compiled kernels from the disk cache
        run(name)
    best = {name: np.inf for name in names}
    last = {}
    for r in range(args.repeats):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            cpu, res = run(name)
            best[name] = min(best[name], cpu)
            last[name] = res
    states = {}
    for name in names:
        res = last[name]
        its = int(np.sum(res.stats["iterations"]))
        info = res.info
        row = {"config": name, "steps": len(res.t) - 1, "newton_iterations": its,
               "force_evaluations": info["force_evaluations"],
               "factorizations": info["factorizations"], "cpu_best_s": round(best[name], 4),
               "us_per_iteration": round(1e6 * best[name] / its, 1),
               "us_per_evaluation": round(1e6 * best[name] / info["force_evaluations"], 1)}
        states[f"{name}_q"], states[f"{name}_v"] = res.q[-1], res.v[-1]
        if args.compare:
            old = np.load(args.compare)
            for k in ("q", "v"):
                ref = old[f"{name}_{k}"]
                got = states[f"{name}_{k}"]
                row[f"max_rel_diff_{k}"] = float(np.abs(got - ref).max() / np.abs(ref).max())
        print(json.dumps(row), flush=True)
    if args.save:
        np.savez(args.save, **states)
    print(json.dumps({"machine": machine()}))


if __name__ == "__main__":
    main()
