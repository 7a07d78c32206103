"""Benchmark: static equilibrium of the flagship robot with a refined platform, and the
converged static sag its tests compare with.

The flexible platform meshed with ``hexagon_96`` (or the meshes given) under gravity, solved
by ``fem.solve_static`` with its default adaptive load continuation, at the flagship's
default settings (6 kg payload, the element's shear remedy ``"auto"``; damping does not
enter a static state).  Prints one JSON line per mesh: wall time, increments, Newton
iterations, storage of the iteration matrix and the platform's sag ``|P − mean(W)|``.
``hexagon_1536`` (not a built-in mesh) is ``hexagon_384`` refined once more (red
refinement, as the built-in ones are made); it takes minutes and 3 GB.

``--reference PATH`` writes the sags of the meshes run, the Richardson extrapolation of
every three successive meshes (ratio of the increments, observed order, limit), the
two-mesh extrapolation of every successive pair with the order the case uses
(``SAG_ORDER`` of ``cases/parallel_robot_flexible_platform.py``), the reference value
(``--reference-mesh``, else the last three's limit) and how they were made to ``PATH``
(``tests/data/flagship_static_sag.json``, the value the flagship's tests hold its
default sag to).  ``--rows FILE`` takes the meshes' rows from the JSON lines an earlier
run printed instead of solving again.  ``--u-joint-edge tangent`` runs the paper's
joint model (eq 36) instead of the case's default, the chord.

Run: ``python tests/benchmarks/platform_statics.py [mesh ...] [--reference PATH]
[--rows FILE] [--u-joint-edge chord|tangent]``.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import fem  # noqa: E402
import fem.robots.rrru3_model as rrru3_model  # noqa: E402
from fem.model.mesh_files import load_builtin_mesh  # noqa: E402
from fem.robots import rrru3  # noqa: E402
from fem.robots.rrru3_model import build_robot, static_state  # noqa: E402


def _mesh(name: str, **kw):
    """The built-in meshes, and ``hexagon_1536``: hexagon_384 refined once more."""
    if name == "hexagon_1536":
        mesh = load_builtin_mesh("hexagon_384", **kw).refined()
        mesh.name = name
        return mesh
    return load_builtin_mesh(name, **kw)


rrru3_model.load_builtin_mesh = _mesh     # the robot builder loads its platform here


def run(mesh: str = "hexagon_96", u_joint_edge: str = "chord") -> dict:
    geom = rrru3.RRRU3Geometry()
    rm = build_robot(geom, "flexible", mesh, shear_factor="auto", u_joint_edge=u_joint_edge)
    asm = rm.model.assemble()
    t0 = time.perf_counter()
    c0 = time.process_time()
    st = static_state(rm)
    wall = time.perf_counter() - t0
    P = rm.P(st.q)
    W = np.mean([w(st.q) for w in rm.W], axis=0)
    return {"mesh": mesh, "unknowns": asm.n + asm.m, "storage": asm._pat_S.kind,
            "wall_s": round(wall, 3), "cpu_s": round(time.process_time() - c0, 3),
            "increments": st.info.get("increments"),
            "iterations": int(st.iterations) if hasattr(st, "iterations") else None,
            "sag_mm": float(np.linalg.norm(P - W)) * 1e3,
            "max_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2),
            "machine": f"{platform.machine()}, {fem.__version__}, python "
                       f"{sys.version.split()[0]}"}


def richardson(sags: list[float]) -> dict:
    """Richardson extrapolation of three sags on meshes refined by halving the element
    size: the observed order and the limit."""
    d1, d2 = sags[1] - sags[0], sags[2] - sags[1]
    ratio = d2 / d1
    return {"ratio": ratio, "order": -math.log2(abs(ratio)),
            "limit_mm": sags[2] + d2 * ratio / (1 - ratio)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("meshes", nargs="*", default=["hexagon_96"])
    ap.add_argument("--u-joint-edge", choices=("chord", "tangent"), default="chord",
                    help="the U joints' edge reading (default: chord, the case's default; "
                         "tangent: the paper's eq 36)")
    ap.add_argument("--note", default="", help="with --reference: a note stored with it")
    ap.add_argument("--rows", metavar="FILE",
                    help="the rows of an earlier run (its printed JSON lines), not solved")
    ap.add_argument("--reference", metavar="PATH",
                    help="write the sags and their Richardson limit (three meshes or more)")
    ap.add_argument("--reference-mesh", metavar="MESH",
                    help="with --reference: the mesh whose sag is the reference (default: "
                         "the Richardson limit where the last increments shrink "
                         "monotonically, else the finest mesh)")
    args = ap.parse_args(argv)
    rows = []
    if args.rows:
        lines = Path(args.rows).read_text().splitlines()
        found = {r["mesh"]: r for r in map(json.loads, filter(None, lines))}
        rows = [found[name] for name in args.meshes]
    else:
        for name in args.meshes:
            rows.append(run(name, args.u_joint_edge))
            print(json.dumps(rows[-1]), flush=True)
    if args.reference:
        sys.path.insert(0, str(ROOT / "cases"))
        import parallel_robot_flexible_platform as case

        sags = [r["sag_mm"] for r in rows]
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                capture_output=True, text=True).stdout.strip()
        out = {"what": "static sag d = |P − mean(W1, W2, W3)| of the flagship robot at its "
                       "default settings (P held at (0.1, 0, −0.8) m, 6 kg, E = 6.9e8 Pa, "
                       "shear_factor auto, U joints reading the platform's edges as "
                       f"{args.u_joint_edge}s), per platform mesh",
               "made_by": "python tests/benchmarks/platform_statics.py "
                          + " ".join(args.meshes) + f" --u-joint-edge {args.u_joint_edge}"
                          + " --reference PATH"
                          + (" --rows ROWS (the lines the same command printed without "
                             "--rows)" if args.rows else ""),
               "date": time.strftime("%Y-%m-%d"), "commit": commit,
               "u_joint_edge": args.u_joint_edge,
               "sag_mm": {r["mesh"]: r["sag_mm"] for r in rows},
               "solve": {r["mesh"]: {k: r.get(k) for k in ("unknowns", "increments",
                                                          "iterations", "cpu_s", "wall_s",
                                                          "max_rss_gb") if k in r}
                         for r in rows}}
        out["richardson"] = {", ".join(args.meshes[i:i + 3]): richardson(sags[i:i + 3])
                             for i in range(len(sags) - 2)}
        out["extrapolated_order"] = case.SAG_ORDER
        out["extrapolated_mm"] = {
            f"{args.meshes[i]}, {args.meshes[i + 1]}":
                case.extrapolated_sag(sags[i + 1], sags[i]) for i in range(len(sags) - 1)}
        rich = richardson(sags[-3:]) if len(sags) >= 3 else None
        out["richardson_last_three"] = rich
        # the reference: the mesh asked for, else the Richardson limit where the last
        # increments shrink monotonically, else the finest mesh's sag
        if args.reference_mesh:
            out.update(reference_mm=out["sag_mm"][args.reference_mesh],
                       reference_from=args.reference_mesh)
        elif rich is not None and 0 < rich["ratio"] < 1:
            out.update(reference_mm=rich["limit_mm"], reference_from="Richardson limit of "
                       f"{', '.join(args.meshes[-3:])}")
        else:
            out.update(reference_mm=sags[-1], reference_from=args.meshes[-1])
        if args.note:
            out["note"] = args.note
        Path(args.reference).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
