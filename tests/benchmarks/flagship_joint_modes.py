"""Benchmark: why the flagship's collocated drive does not converge in the mesh.

For each platform mesh, the robot with ``drive=joints`` at its static state: the lowest
modes with the motors holding (``fem.modes`` with the static multipliers), the kink of
each U joint's edge tangent against the edge's chord, W2, and (``--circle``) the
collocated circle's largest path error and torque extremes.  ``--chord`` reads each U
joint's edge direction as the chord between the edge's two corner points instead of the
tangent at one corner vertex, and drops the straight-edge rows (the experiment of
``docs/parallel_robot.md``, "Neither drive converges in the mesh").

Run: ``python tests/benchmarks/flagship_joint_modes.py [mesh ...] [--chord] [--circle]``.
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
    add_continuity,
    edge_tangent_along,
    plate_point,
    vertex_at,
    vertex_elements,
)
from fem.elements.materials import Material  # noqa: E402
from fem.model.mesh import Mesh  # noqa: E402
from fem.solvers.modal import modes  # noqa: E402


def _chord_plate(model, geom, mesh, E, nu, continuity, shear_factor, damping_beta, P0):
    """``rrru3_model._add_plate`` with the edge directions read as corner-to-corner chords
    and no straight-edge rows."""
    m = rrru3_model.load_builtin_mesh(mesh)
    m = Mesh.from_arrays(m.vertices + P0, m.triangles, m.lines, m.groups, name=m.name)
    family = "bezier_plate_shared" if continuity == "shared" else "bezier_plate"
    mat = Material(E, nu, geom.platform_density, name="platform")
    g = model.add_mesh(m, family, mat, name="platform", thickness=geom.platform_thickness,
                       shear_factor=shear_factor)
    con = add_continuity(model, g, "plate continuity")
    if damping_beta:
        model.add_damping(g, damping_beta)
    P = plate_point(g, P0).named("P")
    centre = vertex_elements(g, vertex_at(g, P0))
    W = [plate_point(g, P0 + geom.edge_midpoint_offset(k)).named(f"W{k + 1}")
         for k in range(3)]
    dirs = []
    for k in range(3):
        t, w = geom.tangent(k), P0 + geom.edge_midpoint_offset(k)
        c0, c1 = (plate_point(g, w + s * 0.5 * geom.platform_side * t) for s in (-1.0, 1.0))
        dirs.append((c1 - c0).named(f"E{k + 1}"))
    return g, m, P, W, dirs, centre, con


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
    p = {**case.PARAMS, "drive": "joints", "rho_inf": 0.8, "mesh": mesh, "static_mesh": mesh}
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
        f = case.run(None, **{k: p[k] for k in ("drive", "rho_inf", "mesh", "static_mesh")})
        out.update(max_path_error_mm=round(f["max_path_error_mm"], 2),
                   torque_extremes_Nm=[round(f["torque_min_Nm"], 2),
                                       round(f["torque_max_Nm"], 2)],
                   circle_cpu_s=round(time.process_time() - c0, 1))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("meshes", nargs="*", default=["hexagon_6", "hexagon_24", "hexagon_96"])
    ap.add_argument("--chord", action="store_true", help="edge directions as chords")
    ap.add_argument("--circle", action="store_true", help="also run the collocated circle")
    args = ap.parse_args(argv)
    if args.chord:
        rrru3_model._add_plate = _chord_plate
    for mesh in args.meshes:
        print(json.dumps(run(mesh, args.chord, args.circle)), flush=True)


if __name__ == "__main__":
    main()
