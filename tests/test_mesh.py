"""Meshes: built-in files, topology, selectors, validation and file errors.

References are closed forms: the hexagon of inscribed radius r has area 2√3 r² and
perimeter 4√3 r; a triangulated disc has E = V + F − 1 edges (Euler, χ = 1); a closed
sphere-like surface has χ = 2.  Coordinates are exact up to round-off, hence 1e-12.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import meshio
import numpy as np
import pytest

from fem.core.errors import ModelError
from fem.model.mesh import Mesh
from fem.model.mesh_files import (
    MESH_DIR,
    builtin_mesh_names,
    load_builtin_mesh,
    read_mesh,
    write_mesh,
)

R = 0.09  # inscribed radius of the seed-000 platform [m]
HEXAGONS = {
    "hexagon_6": (6, 7),
    "hexagon_24": (24, 19),
    "hexagon_96": (96, 61),
    "hexagon_384": (384, 217),
}
SQUARES = [
    "square_s2",
    "square_s4",
    "square_s8",
    "square_s16",
    "square_x2",
    "square_x4",
    "square_x8",
    "square_u4",
    "square_u8",
    "square_u16",
]


def octahedron() -> Mesh:
    """Closed surface, outward normals: 6 vertices, 12 edges, 8 triangles."""
    v = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1.0]])
    t = [[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]]
    return Mesh.from_arrays(v, t)


# ---------------------------------------------------------------------- built-in meshes
@pytest.mark.parametrize("name", list(HEXAGONS))
def test_hexagon_counts_area_and_groups(name):
    mesh = load_builtin_mesh(name)
    n_tri, n_vert = HEXAGONS[name]
    assert mesh.triangles.shape == (n_tri, 3)
    assert mesh.vertices.shape == (n_vert, 3)
    assert mesh.area == pytest.approx(2 * np.sqrt(3) * R**2, rel=1e-12)
    assert np.all(mesh.triangle_normals[:, 2] == pytest.approx(1.0))  # counter-clockwise
    assert set(mesh.groups) == {"P", "W1", "W2", "W3", "boundary", "platform"}
    assert np.array_equal(mesh.group_cells("P", "vertex"), [0])
    assert np.allclose(mesh.vertices[0], 0.0)
    assert len(mesh.group_cells("platform", "triangle")) == n_tri
    boundary = mesh.lines[mesh.group_cells("boundary", "line")]
    length = np.linalg.norm(np.diff(mesh.vertices[boundary], axis=1), axis=2).sum()
    assert length == pytest.approx(4 * np.sqrt(3) * R, rel=1e-12)


@pytest.mark.parametrize("name", list(HEXAGONS))
def test_hexagon_attachment_edges(name):
    """W1 at (−r, 0, 0); W2, W3 at ±120° from it; each edge ⟂ to its midpoint direction."""
    mesh = load_builtin_mesh(name)
    level = int(np.log(len(mesh.triangles) / 6) / np.log(4))
    for k, angle in ((1, 180.0), (2, 300.0), (3, 60.0)):
        segments = mesh.lines[mesh.group_cells(f"W{k}", "line")]
        assert len(segments) == 2**level
        ends = mesh.vertices[segments].reshape(-1, 3)
        direction = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle)), 0.0])
        assert np.allclose(ends.mean(axis=0), R * direction, atol=1e-12)
        assert np.allclose(ends @ direction, R, atol=1e-12)  # the whole edge on x·d = r
        side = np.ptp(ends @ np.cross([0, 0, 1.0], direction))
        assert side == pytest.approx(2 * R / np.sqrt(3), rel=1e-12)
    assert np.allclose(mesh.vertices[mesh.group_vertices("W1")][:, 0], -R)


@pytest.mark.parametrize("name", SQUARES)
def test_square_groups(name):
    mesh = load_builtin_mesh(name)
    n = int(name.split("_")[1][1:])
    per_square = 4 if "_x" in name else 2
    assert len(mesh.triangles) == per_square * n * n
    assert mesh.area == pytest.approx(1.0, rel=1e-12)
    assert mesh.vertices[mesh.group_cells("center", "vertex")].tolist() == [[0.0, 0.0, 0.0]]
    for group, axis, value in (
        ("left", 0, -0.5),
        ("right", 0, 0.5),
        ("bottom", 1, -0.5),
        ("top", 1, 0.5),
    ):
        assert len(mesh.group_cells(group, "line")) == n
        assert np.allclose(mesh.vertices[mesh.group_vertices(group), axis], value)
    assert len(mesh.group_cells("boundary", "line")) == 4 * n


def test_builtin_names_and_unknown_name():
    names = builtin_mesh_names()
    assert set(HEXAGONS) | set(SQUARES) <= set(names)
    with pytest.raises(ModelError, match="unknown built-in mesh 'hexagon_7'.*hexagon_6.*square_u8"):
        load_builtin_mesh("hexagon_7")


def test_make_meshes_reproduces_the_files(tmp_path):
    """The script is deterministic and the committed files are what it makes."""
    spec = importlib.util.spec_from_file_location("make_meshes", MESH_DIR / "make_meshes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--out", str(tmp_path)])
    made = sorted(p.name for p in tmp_path.glob("*.msh"))
    assert made == sorted(p.name for p in MESH_DIR.glob("*.msh"))
    for name in made:
        assert (tmp_path / name).read_bytes() == (MESH_DIR / name).read_bytes(), name
    assert sum(p.stat().st_size for p in MESH_DIR.iterdir()) < 1_000_000


# ---------------------------------------------------------------------- topology
@pytest.mark.parametrize("name", list(HEXAGONS) + SQUARES)
def test_disc_euler_and_adjacency(name):
    mesh = load_builtin_mesh(name)
    n_used = np.unique(mesh.triangles).size
    assert len(mesh.edges) == n_used + len(mesh.triangles) - 1
    assert len(mesh.interior_edges) + len(mesh.boundary_edges) == len(mesh.edges)
    assert len(mesh.boundary_vertices) == len(mesh.boundary_edges)  # one boundary loop
    # Neighbour relation is symmetric and crosses the shared edge.
    nb = mesh.triangle_neighbours
    t, j = np.nonzero(nb >= 0)
    back = nb[nb[t, j]]
    assert np.all((back == t[:, None]).sum(axis=1) == 1)
    assert np.array_equal(
        mesh.triangle_edges[t, j],
        mesh.triangle_edges[nb[t, j], np.argmax(back == t[:, None], axis=1)],
    )


def test_hexagon_interior_edges():
    mesh = load_builtin_mesh("hexagon_6")
    ie = mesh.interior_edges
    assert len(ie) == 6 and len(mesh.boundary_edges) == 6
    assert np.all(ie.vertices[:, 0] == 0)  # the six spokes from P
    assert sorted(mesh.boundary_vertices.tolist()) == [1, 2, 3, 4, 5, 6]
    tri = mesh.triangles
    for side in (0, 1):
        t, local = ie.triangles[:, side], ie.local_edge[:, side]
        start, end = tri[t, (local + 1) % 3], tri[t, (local + 2) % 3]
        # Column 0 runs the edge a -> b, column 1 runs it b -> a.
        a, b = ie.vertices.T if side == 0 else ie.vertices.T[::-1]
        assert np.array_equal(start, a) and np.array_equal(end, b)
        assert np.array_equal(ie.opposite_vertices[:, side], tri[t, local])
        assert not np.any(ie.opposite_vertices[:, side][:, None] == ie.vertices)


def test_closed_surface():
    mesh = octahedron()
    assert len(mesh.edges) == 12 and len(mesh.interior_edges) == 12
    assert mesh.boundary_edges.size == 0 and mesh.euler_characteristic() == 2


def test_refinement_preserves_area_orientation_and_groups():
    coarse = load_builtin_mesh("square_u4")
    fine = coarse.refined()
    assert len(fine.triangles) == 4 * len(coarse.triangles)
    assert fine.area == pytest.approx(coarse.area, rel=1e-12)
    assert np.array_equal(fine.vertices[: len(coarse.vertices)], coarse.vertices)
    assert np.all(fine.triangle_normals[:, 2] > 0)
    assert np.array_equal(
        fine.group_cells("center", "vertex"), coarse.group_cells("center", "vertex")
    )
    assert len(fine.group_cells("left", "line")) == 2 * len(coarse.group_cells("left", "line"))
    fine.validate()


# ---------------------------------------------------------------------- selectors
def test_plane_line_box_selectors():
    mesh = load_builtin_mesh("square_s8")
    left = mesh.vertices_on_plane([-0.5, 0, 0], [1, 0, 0])
    assert np.array_equal(left, mesh.group_vertices("left")) and len(left) == 9
    assert np.array_equal(mesh.edges_on_plane([-0.5, 0, 0], [-2, 0, 0]), mesh.group_edges("left"))
    assert len(mesh.vertices_on_plane([0, 0, 0], [0, 0, 1])) == len(mesh.vertices)

    # The segment from the centre to the middle of the right edge, and the whole line.
    half = mesh.vertices_on_line([0, 0, 0], [0.5, 0, 0])
    full = mesh.vertices_on_line([0, 0, 0], [0.5, 0, 0], segment=False)
    assert len(half) == 5 and len(full) == 9
    assert np.allclose(mesh.vertices[full, 1], 0.0)
    assert len(mesh.edges_on_line([0, 0, 0], [0.5, 0, 0])) == 4
    assert len(mesh.edges_on_line([0, 0, 0], [0.5, 0, 0], segment=False)) == 8

    box = mesh.vertices_in_box([-0.5, -0.5, 0], [0, 0, 0])  # the lower-left quarter
    assert len(box) == 25
    assert np.all(mesh.vertices[box, :2] <= 1e-12)
    assert len(mesh.edges_in_box([-0.5, -0.5, 0], [0, 0, 0])) == 4 * 5 * 2 + 16
    with pytest.raises(ModelError, match="normal vector is zero"):
        mesh.vertices_on_plane([0, 0, 0], [0, 0, 0])


def test_nearest_and_group_selectors():
    mesh = load_builtin_mesh("hexagon_24")
    assert mesh.nearest_vertex([0.001, -0.002, 0.0]) == 0
    w1_middle = mesh.vertices_in_box([-R, 0, 0], [-R, 0, 0])
    assert len(w1_middle) == 1
    assert np.array_equal(mesh.nearest_vertex([[0, 0, 0], [-R - 0.01, 0, 0]]), [0, *w1_middle])
    edge = mesh.nearest_edge([-R - 0.01, 0.01, 0.0])
    assert edge in mesh.group_edges("W1")
    assert len(mesh.group_edges("W1")) == 2
    assert np.array_equal(mesh.group_edges("boundary"), mesh.boundary_edges)
    assert len(mesh.group_edges("platform")) == len(mesh.edges)
    assert np.array_equal(mesh.group_vertices("boundary"), mesh.boundary_vertices)
    with pytest.raises(ModelError, match="no group 'W4'.*W1, W2, W3"):
        mesh.group_vertices("W4")


# ---------------------------------------------------------------------- files
@pytest.mark.parametrize("ext", [".msh", ".vtu", ".vtk"])
def test_write_read_keeps_groups(tmp_path, ext):
    mesh = load_builtin_mesh("hexagon_24")
    back = read_mesh(write_mesh(mesh, tmp_path / f"h{ext}"))
    assert np.array_equal(back.vertices, mesh.vertices)
    assert np.array_equal(back.triangles, mesh.triangles)
    assert np.array_equal(back.lines, mesh.lines)
    assert back.groups.keys() == mesh.groups.keys()
    for name, entry in mesh.groups.items():
        for cell_type, idx in entry.items():
            assert np.array_equal(back.groups[name][cell_type], idx), (name, cell_type)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # meshio's STL probe
@pytest.mark.parametrize("ext", [".stl", ".obj"])
def test_surface_formats(tmp_path, ext):
    mesh = load_builtin_mesh("square_u4")
    back = read_mesh(write_mesh(mesh, tmp_path / f"s{ext}"))
    assert len(back.triangles) == 32 and back.area == pytest.approx(1.0)


def test_gmsh_physical_groups_from_meshio(tmp_path):
    """A gmsh file as gmsh writes it: tags in cell_data, names in field_data."""
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0.0]])
    cells = [
        ("triangle", np.array([[0, 1, 2], [0, 2, 3]])),
        ("line", np.array([[0, 1], [3, 0]])),
        ("vertex", np.array([[2]])),
    ]
    tags = [np.array([3, 3]), np.array([1, 2]), np.array([4])]
    m = meshio.Mesh(
        points,
        cells,
        cell_data={"gmsh:physical": tags, "gmsh:geometrical": tags},
        field_data={
            "plate": np.array([3, 2]),
            "bottom": np.array([1, 1]),
            "left": np.array([2, 1]),
            "corner": np.array([4, 0]),
        },
    )
    meshio.write(tmp_path / "g.msh", m, file_format="gmsh22", binary=True)
    mesh = read_mesh(tmp_path / "g.msh")
    assert mesh.group_cells("bottom", "line").tolist() == [0]
    assert mesh.group_cells("left", "line").tolist() == [1]
    assert mesh.group_cells("corner", "vertex").tolist() == [2]
    assert mesh.group_cells("plate", "triangle").tolist() == [0, 1]


# ---------------------------------------------------------------------- errors
def test_missing_unreadable_and_unsupported_files(tmp_path):
    with pytest.raises(ModelError, match="does not exist"):
        read_mesh(tmp_path / "nothing.msh")
    bad = tmp_path / "bad.msh"
    bad.write_text("this is not a mesh\n")
    with pytest.raises(ModelError, match=r"cannot read mesh file .*bad\.msh.*not valid gmsh"):
        read_mesh(bad)
    truncated = tmp_path / "cut.msh"
    text = (MESH_DIR / "hexagon_6.msh").read_text()
    truncated.write_text(text[: len(text) // 2])
    with pytest.raises(ModelError, match=r"cut\.msh"):
        read_mesh(truncated)
    other = tmp_path / "mesh.xyz"
    other.write_text("1 2 3\n")
    with pytest.raises(ModelError, match=r"mesh\.xyz: unsupported extension '\.xyz'.*\.msh"):
        read_mesh(other)


def test_degenerate_triangle_is_named():
    v = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [2, 0, 0]]
    with pytest.raises(ModelError, match=r"degenerate \(zero-area\) triangles \[1\]"):
        Mesh.from_arrays(v, [[0, 1, 2], [0, 1, 3]])  # 0, 1, 3 collinear
    with pytest.raises(ModelError, match=r"degenerate.*\[0\]"):
        Mesh.from_arrays(v, [[0, 0, 2]])


def test_inverted_triangles_are_named():
    v = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]]
    with pytest.raises(ModelError, match=r"inverted triangles \[1\].*XY plane"):
        Mesh.from_arrays(v, [[0, 1, 2], [0, 3, 2]])  # clockwise
    with pytest.raises(ModelError, match="all 2 triangles are inverted.*Reverse Surface"):
        Mesh.from_arrays(v, [[0, 2, 1], [0, 3, 2]])
    good = octahedron()
    flipped = good.triangles.copy()
    flipped[5] = flipped[5, [0, 2, 1]]
    with pytest.raises(ModelError, match=r"inverted triangles \[5\].*majority"):
        Mesh.from_arrays(good.vertices, flipped)
    assert Mesh.from_arrays(good.vertices, flipped, validate=False).triangles.shape == (8, 3)


def test_structural_errors():
    v = [[0, 0, 0], [1, 0, 0], [1, 1, 0]]
    with pytest.raises(ModelError, match=r"triangles \[0\] refer to vertices outside 0..2"):
        Mesh.from_arrays(v, [[0, 1, 3]])
    with pytest.raises(ModelError, match="repeat triangles"):
        Mesh.from_arrays(v, [[0, 1, 2], [1, 2, 0]])
    fan = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1]]
    with pytest.raises(ModelError, match="not a manifold"):
        Mesh.from_arrays(fan, [[0, 1, 2], [1, 0, 3], [0, 1, 4]])


def test_missing_cell_type(tmp_path):
    points = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]]
    meshio.write(tmp_path / "quads.vtu", meshio.Mesh(points, [("quad", [[0, 1, 2, 3]])]))
    mesh = read_mesh(tmp_path / "quads.vtu")
    assert mesh.cells_of("quad").tolist() == [[0, 1, 2, 3]]
    with pytest.raises(ModelError, match=r"no 'triangle' cells; it has 1 quad.*not used by fem"):
        mesh.cells_of("triangle")
    with pytest.raises(ModelError, match="no 'tetra' cells; it has 24 triangle, 12 line"):
        load_builtin_mesh("hexagon_6").refined().cells_of("tetra")


def test_mesh_dir_is_next_to_the_package():
    assert MESH_DIR == Path(__file__).resolve().parent.parent / "meshes"


@pytest.mark.parametrize("n, r", [(1, 1e-9), (7, 1e-9), (300, 1e-9), (300, 0.08),
                                  (3000, 0.2)])
def test_close_pairs_are_scipys_query_pairs(n, r):
    """Coincident vertices found by sorting and sweeping along x are the pairs scipy's
    k-d tree finds (points on one x with different y, z; a point at the tolerance; a
    tolerance wide enough for the tree fallback)."""
    from scipy.spatial import cKDTree

    from fem.model.mesh_checks import _close_pairs

    rng = np.random.default_rng(n)
    p = rng.random((n, 3))
    if n > 3:
        p[n // 2] = p[0] + 1e-12
        p[-1] = p[1]
        p[2, 0] = p[1, 0]
        p[3] = p[2] + [0.0, 0.0, 0.5 * r]
    mine = np.unique(_close_pairs(p, r), axis=0)
    tree = np.unique(np.sort(cKDTree(p).query_pairs(r, output_type="ndarray"), axis=1),
                     axis=0)
    assert mine.shape == tree.shape and np.array_equal(mine, tree)
