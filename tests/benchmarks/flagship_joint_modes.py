"""Benchmark: how the flagship's U-joint model decides whether it converges in the mesh.

For each platform mesh, the robot with ``drive=joints`` at its static state: the lowest
modes with the motors holding (``fem.modes`` with the static multipliers), W2, with the
tangent reading the kink of each U joint's edge tangent against the edge's chord, and
(``--circle``) the collocated circle's largest path error and torque extremes.
``--tangent`` reads each U joint's edge direction as the paper's eq 36 (the tangent at
one corner vertex, the edge kept straight) instead of the case's default, the chord
between the edge's two corner points (``docs/parallel_robot.md``, "The U joints' edge
reading").

Run: ``python tests/benchmarks/flagship_joint_modes.py [mesh ...] [--tangent] [--circle]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
for folder in (ROOT, ROOT / "cases"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import parallel_robot_flexible_platform as case  # noqa: E402

import fem.robots.rrru3_model as rrru3_model  # noqa: E402
from fem.elements.bezier_plate import (  # noqa: E402
    edge_tangent_along,
    plate_point,
    vertex_at,
)
from fem.solvers.modal import modes  # noqa: E402


def _kinks(rm):
    """Per edge: a function of q giving the angle [rad] between the edge tangent at its
    first corner vertex and the chord between its corners."""
    g, geom = rm.plate_group, rm.geom
    P0 = np.asarray(geom.start_point, float)
    edges = []
    for k in range(3):
        t, w = geom.tangent(k), P0 + geom.edge_midpoint_offset(k)
        ends = [w + s * 0.5 * geom.platform_side * t for s in (-1.0, 1.0)]
        edges.append(([plate_point(g, x) for x in ends],
                      edge_tangent_along(g, vertex_at(g, ends[0]), t)))

    def kinks(q):
        out = []
        for (c0, c1), T0 in edges:
            chord, T = c1(q) - c0(q), T0(q)
            s = np.linalg.norm(np.cross(chord / np.linalg.norm(chord), T / np.linalg.norm(T)))
            out.append(float(np.arcsin(min(s, 1.0))))
        return np.array(out)
    return kinks


def run(mesh: str, chord: bool, circle: bool) -> dict:
    p = {**case.PARAMS, "drive": "joints", "rho_inf": 0.8, "mesh": mesh, "static_mesh": mesh,
         "u_joint_edge": "chord" if chord else "tangent"}
    rm = case._robot(p)
    st = rrru3_model.static_state(rm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = modes(rm.model, st.q, st.lam, n_modes=4)
    out = {"mesh": mesh, "edge": "chord" if chord else "vertex tangent",
           "f_Hz": np.round(r.frequencies_hz, 3).tolist(),
           "W2_m": np.round(rm.W[1](st.q), 5).tolist()}
    if not chord:
        out["edge_kink_deg"] = np.round(np.degrees(_kinks(rm)(st.q)), 3).tolist()
    if circle:
        c0 = time.process_time()
        f = case.run(None, **{k: p[k] for k in ("drive", "rho_inf", "mesh", "static_mesh",
                                                "u_joint_edge")})
        out.update(max_path_error_mm=round(f["max_path_error_mm"], 2),
                   torque_extremes_Nm=[round(f["torque_min_Nm"], 2),
                                       round(f["torque_max_Nm"], 2)],
                   circle_cpu_s=round(time.process_time() - c0, 1))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("meshes", nargs="*", default=["hexagon_6", "hexagon_24", "hexagon_96"])
    ap.add_argument("--tangent", action="store_true",
                    help="edge directions as the paper's vertex tangents (eq 36)")
    ap.add_argument("--circle", action="store_true", help="also run the collocated circle")
    args = ap.parse_args(argv)
    for mesh in args.meshes:
        print(json.dumps(run(mesh, not args.tangent, args.circle)), flush=True)


if __name__ == "__main__":
    main()
