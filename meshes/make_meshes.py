"""Make the built-in triangle meshes in this folder (gmsh 2.2 ASCII ``.msh``).

Run ``python meshes/make_meshes.py`` (optionally ``--out DIR``).  The output is
deterministic: no gmsh binary, numpy + meshio only (through ``fem.model.mesh_files``), a
fixed random seed for the unstructured meshes.

Meshes
------
``hexagon_6, hexagon_24, hexagon_96, hexagon_384``
    The moving platform of seed 000: a regular hexagon of inscribed radius r = 0.09 m in the
    XY plane, centred at the origin, six triangles around the centre P, then uniform red
    refinements.  Its edges are perpendicular to the directions 0°, 60°, …; the limbs attach
    at the edge midpoints W1 = (−r, 0, 0) (on the −X axis) and W2, W3 at 180° + 120° and
    180° + 240° (i.e. W2 at −60°, W3 at +60°, counter-clockwise from W1).  Groups: ``P``
    (vertex), ``W1``, ``W2``, ``W3`` (the edge whose midpoint is W_k; two, four, eight
    segments after refinement), ``boundary`` (lines), ``platform`` (triangles).
``square_s{2,4,8,16}``
    Structured square plate [−0.5, 0.5]² (side 1 m; scale as needed), n divisions per edge,
    each square split into two triangles along its (−,−)→(+,+) diagonal.
``square_x{2,4,8}``
    The same with each square split into four triangles about its centre (symmetric).
``square_u{4,8,16}``
    Unstructured: the grid points jittered (interior points in both directions, edge points
    along the edge, corners and the centre fixed) and re-triangulated to a Delaunay
    triangulation by edge flips.
    Square groups: ``left`` (x = −0.5), ``right``, ``bottom`` (y = −0.5), ``top`` (lines),
    ``boundary`` (lines), ``center`` (the vertex at the origin), ``plate`` (triangles).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from fem.model.mesh import Mesh  # noqa: E402
from fem.model.mesh_files import write_mesh  # noqa: E402

HEX_INSCRIBED_RADIUS = 0.09  # m, seed 000
SQUARE_SIDE = 1.0  # m
SEED = 20240607


def hexagon(r: float = HEX_INSCRIBED_RADIUS) -> Mesh:
    """Six triangles about the centre P, attachment edges W1..W3 (see module docstring)."""
    half = r / np.sqrt(3.0)  # half the side; the corners lie at 30° + 60° i, radius 2 half
    corners = np.array(
        [[r, half], [0, 2 * half], [-r, half], [-r, -half], [0, -2 * half], [r, -half]]
    )
    corners = np.hstack([corners, np.zeros((6, 1))])
    vertices = np.vstack([np.zeros(3), corners])  # vertex 0 is P
    ring = 1 + np.arange(6)
    triangles = np.stack([np.zeros(6, int), ring, np.roll(ring, -1)], axis=1)
    lines = np.stack([ring, np.roll(ring, -1)], axis=1)  # line i: corners i+1, i+2
    # Line i has its midpoint at angle 60° (i + 1); W_k sits at 180° + 120° (k − 1).
    midpoint_angle = 60 * (np.arange(6) + 1) % 360
    groups = {
        "P": {"vertex": [0]},
        "boundary": {"line": np.arange(6)},
        "platform": {"triangle": np.arange(6)},
    }
    for k in (1, 2, 3):
        angle = (180 + 120 * (k - 1)) % 360
        groups[f"W{k}"] = {"line": np.flatnonzero(midpoint_angle == angle)}
    return Mesh.from_arrays(vertices, triangles, lines, groups, name="hexagon_6")


def _square_grid(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(n+1)² grid vertices on [−L/2, L/2]², vertex i + (n+1) j at (x_i, y_j)."""
    x = np.linspace(-SQUARE_SIDE / 2, SQUARE_SIDE / 2, n + 1)
    xx, yy = np.meshgrid(x, x, indexing="xy")
    vertices = np.stack([xx.ravel(), yy.ravel(), np.zeros(xx.size)], axis=1)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="xy")
    a = (i + (n + 1) * j).ravel()  # lower-left corner of each square, then b, c, d CCW
    return vertices, np.stack([a, a + 1, a + n + 2, a + n + 1], axis=1)


def _square_groups(vertices: np.ndarray, triangles: np.ndarray) -> tuple[np.ndarray, dict]:
    """Boundary lines, edge groups, centre vertex and the plate group of a square mesh."""
    mesh = Mesh.from_arrays(vertices, triangles, validate=False)
    lines = mesh.edges[mesh.boundary_edges]
    mid = vertices[lines].mean(axis=1)
    half = SQUARE_SIDE / 2
    tol = 1e-9 * SQUARE_SIDE
    center = np.flatnonzero(np.linalg.norm(vertices, axis=1) <= tol)
    groups = {
        "left": {"line": np.flatnonzero(np.abs(mid[:, 0] + half) <= tol)},
        "right": {"line": np.flatnonzero(np.abs(mid[:, 0] - half) <= tol)},
        "bottom": {"line": np.flatnonzero(np.abs(mid[:, 1] + half) <= tol)},
        "top": {"line": np.flatnonzero(np.abs(mid[:, 1] - half) <= tol)},
        "boundary": {"line": np.arange(len(lines))},
        "plate": {"triangle": np.arange(len(triangles))},
    }
    if center.size:
        groups["center"] = {"vertex": center}
    return lines, groups


def square_structured(n: int, crossed: bool = False) -> Mesh:
    """Square plate, n divisions per edge, 2 (or 4 if `crossed`) triangles per square."""
    vertices, quads = _square_grid(n)
    a, b, c, d = quads.T
    if crossed:
        e = len(vertices) + np.arange(len(quads))
        centres = vertices[quads].mean(axis=1)
        vertices = np.vstack([vertices, centres])
        triangles = np.array([[a, b, e], [b, c, e], [c, d, e], [d, a, e]])
        triangles = triangles.transpose(2, 0, 1).reshape(-1, 3)
    else:
        triangles = np.array([[a, b, c], [a, c, d]]).transpose(2, 0, 1).reshape(-1, 3)
    lines, groups = _square_groups(vertices, triangles)
    name = f"square_{'x' if crossed else 's'}{n}"
    return Mesh.from_arrays(vertices, triangles, lines, groups, name=name)


def square_unstructured(n: int, seed: int = SEED) -> Mesh:
    """Jittered grid points, Delaunay-triangulated by edge flips (deterministic)."""
    vertices, quads = _square_grid(n)
    h = SQUARE_SIDE / n
    rng = np.random.default_rng(seed + n)
    # Up to 0.2 h per coordinate: no triangle of the initial split can invert.
    jitter = rng.uniform(-0.2 * h, 0.2 * h, size=(len(vertices), 2))
    half = SQUARE_SIDE / 2
    on_x = np.isclose(np.abs(vertices[:, 0]), half)
    on_y = np.isclose(np.abs(vertices[:, 1]), half)
    center = np.isclose(np.linalg.norm(vertices, axis=1), 0.0)
    jitter[on_x, 0] = 0.0  # points on x = ±L/2 slide along y only
    jitter[on_y, 1] = 0.0
    jitter[center] = 0.0
    vertices[:, :2] += jitter
    a, b, c, d = quads.T
    triangles = np.array([[a, b, c], [a, c, d]]).transpose(2, 0, 1).reshape(-1, 3)
    triangles = delaunay_flips(vertices, triangles)
    lines, groups = _square_groups(vertices, triangles)
    return Mesh.from_arrays(vertices, triangles, lines, groups, name=f"square_u{n}")


def delaunay_flips(vertices: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    """Lawson flips of a counter-clockwise planar triangulation until it is Delaunay.

    Each pass flips a set of non-Delaunay interior edges no two of which share a triangle.
    """
    triangles = triangles.copy()
    for _ in range(1000):
        ie = Mesh.from_arrays(vertices, triangles, validate=False).interior_edges
        v0, v1 = ie.vertices.T
        c, d = ie.opposite_vertices.T
        # Triangle 0 runs v0 -> v1 counter-clockwise: (v0, v1, c); d is in triangle 1.
        rows = np.stack([vertices[v0], vertices[v1], vertices[c]], axis=1)[..., :2]
        rel = rows - vertices[d][:, None, :2]
        det = np.linalg.det(np.concatenate([rel, (rel**2).sum(axis=2, keepdims=True)], axis=2))
        scale = ((rows - rows[:, [1, 2, 0]]) ** 2).sum(axis=2).max(axis=1) ** 2
        bad = np.flatnonzero(det > 1e-9 * scale)  # d strictly inside the circumcircle
        if bad.size == 0:
            return triangles
        bad = bad[np.argsort(-det[bad] / scale[bad], kind="stable")]
        tri = ie.triangles[bad]
        rank = np.arange(bad.size)
        first = np.full(len(triangles), bad.size)
        np.minimum.at(first, tri[:, 0], rank)
        np.minimum.at(first, tri[:, 1], rank)
        take = (first[tri[:, 0]] == rank) & (first[tri[:, 1]] == rank)
        e, t = bad[take], tri[take]
        triangles[t[:, 0]] = np.stack([v0[e], d[e], c[e]], axis=1)
        triangles[t[:, 1]] = np.stack([d[e], v1[e], c[e]], axis=1)
    raise RuntimeError("edge flipping did not converge")


def build_all() -> dict[str, Mesh]:
    """All built-in meshes by name."""
    meshes = {}
    mesh = hexagon()
    for _ in range(4):
        mesh.name = f"hexagon_{len(mesh.triangles)}"
        meshes[mesh.name] = mesh.validate()
        mesh = mesh.refined()
    for n in (2, 4, 8, 16):
        meshes[f"square_s{n}"] = square_structured(n)
    for n in (2, 4, 8):
        meshes[f"square_x{n}"] = square_structured(n, crossed=True)
    for n in (4, 8, 16):
        meshes[f"square_u{n}"] = square_unstructured(n)
    return meshes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="output folder (default: here)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, mesh in build_all().items():
        path = write_mesh(mesh, args.out / f"{name}.msh")
        print(
            f"{path.name:18s} {len(mesh.vertices):5d} vertices {len(mesh.triangles):5d} "
            f"triangles  groups: {' '.join(sorted(mesh.groups))}"
        )


if __name__ == "__main__":
    main()
