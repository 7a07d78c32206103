"""Meshes in files: reading any format meshio reads (gmsh physical groups become named
groups), writing (groups as ``group:<name>`` data; gmsh files with physical groups), and
the built-in meshes (``meshes/*.msh``, made by ``meshes/make_meshes.py``) loaded by
name."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import meshio
import numpy as np

from fem.core.bundled import bundled_dir
from fem.core.errors import ModelError

from .mesh import Mesh, mesh_from_meshio
from .mesh_cells import cell_dim

__all__ = ["MESH_DIR", "builtin_mesh_names", "load_builtin_mesh", "read_mesh", "read_meshio",
           "write_mesh"]


#: Folder of the built-in meshes (made by ``meshes/make_meshes.py``): beside the package
#: in a checkout, ``<prefix>/share/fem/meshes`` in an installed wheel.
MESH_DIR = bundled_dir("meshes")


# Formats that hold triangles but no lines or points.
_SURFACE_ONLY = (".stl", ".obj", ".off", ".ply")


# ---------------------------------------------------------------------- files
def _extension(path: Path) -> str:
    suffixes = "".join(path.suffixes[-2:]).lower()
    if suffixes in meshio.extension_to_filetypes:
        return suffixes
    return path.suffix.lower()


def read_meshio(path: str | Path) -> meshio.Mesh:
    """:func:`meshio.read`, with every failure a :class:`ModelError` naming file and reason.

    meshio itself prints each parser's complaint and calls ``sys.exit(1)`` on an unreadable
    file; this function keeps stdout clean and raises instead.
    """
    if not isinstance(path, str | os.PathLike):
        raise ModelError(f"a mesh file is named by a path (str or Path); got {path!r:.60}")
    path = Path(path)
    if not path.is_file():
        what = "is a directory" if path.is_dir() else "does not exist"
        raise ModelError(f"cannot read mesh file {path}: it {what}")
    ext = _extension(path)
    if ext not in meshio.extension_to_filetypes:
        known = " ".join(sorted(meshio.extension_to_filetypes))
        raise ModelError(
            f"cannot read mesh file {path}: unsupported extension '{ext or '(none)'}'. "
            f"Readable mesh formats: {known}"
        )
    # Try the extension's formats one by one (gmsh before ANSYS for .msh), capturing what
    # meshio prints, and collect every reason (meshio 5.3 would print them and exit).
    formats = sorted(meshio.extension_to_filetypes[ext], key=lambda f: f != "gmsh")
    reasons, error = [], None
    for file_format in formats:
        captured = io.StringIO()
        try:
            with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
                m = meshio.read(path, file_format=file_format)
            break
        except (Exception, SystemExit) as exc:  # ReadError, ValueError, KeyError, exit …
            error = exc
            lines = captured.getvalue().splitlines()
            said = [ln.strip() for ln in lines if ln.strip() and "Couldn't read" not in ln]
            if not isinstance(exc, SystemExit):
                said.append(f"{type(exc).__name__}: {exc}")
            reasons.append(f"{file_format}: {' '.join(said) or 'the reader rejected the content'}")
    else:
        raise ModelError(
            f"cannot read mesh file {path}: it is not valid {' or '.join(formats)} data "
            f"({'; '.join(reasons)})"
        ) from error
    return m


def read_mesh(path: str | Path, *, validate: bool = True) -> Mesh:
    """Read a mesh file with meshio.

    Parameters
    ----------
    path : str or Path
        Any format meshio reads, chosen by extension: gmsh ``.msh`` (2.2 and 4.1, ASCII or
        binary; physical groups become :attr:`Mesh.groups`), ``.vtu``, ``.vtk``, ``.obj``,
        ``.stl``, ``.ply``, ``.off``, ``.xdmf``, ``.med``, ``.inp``, …
    validate : bool
        Run :meth:`Mesh.validate`.

    Returns
    -------
    Mesh

    Raises
    ------
    ModelError
        If the file does not exist, its extension is not a mesh format meshio knows, meshio
        fails to parse it (the message names the file and carries meshio's reason), or the
        mesh fails validation.
    """
    m = read_meshio(path)
    return mesh_from_meshio(m, name=Path(path).name, validate=validate)


def write_mesh(mesh: Mesh, path: str | Path) -> Path:
    """Write a mesh, keeping its groups.

    ``.msh`` is written as gmsh 2.2 ASCII with physical groups (a cell in several groups is
    repeated once per group, as gmsh does; :func:`read_mesh` merges the copies).  Each group
    must hold cells of a single dimension there.  ``.vtu``/``.vtk`` store groups as
    ``group:<name>`` 0/1 point or cell data.  Surface formats (``.stl``, ``.obj``, ``.off``,
    ``.ply``) get the triangles only, other extensions all cells without groups.

    Returns
    -------
    Path
        The file written.
    """
    path = Path(path)
    ext = _extension(path)
    try:
        if ext == ".msh":
            meshio.write(path, _to_gmsh(mesh), file_format="gmsh22", binary=False)
        else:
            m = mesh.to_meshio(groups_as_data=ext in (".vtu", ".vtk"))
            if ext in _SURFACE_ONLY:
                m = meshio.Mesh(m.points, [b for b in m.cells if b.type == "triangle"])
            meshio.write(path, m)
    except ModelError:
        raise
    except Exception as exc:
        raise ModelError(
            f"cannot write {mesh.label} to {path}: {type(exc).__name__}: {exc}"
        ) from exc
    return path


def _to_gmsh(mesh: Mesh) -> meshio.Mesh:
    """meshio mesh with gmsh:physical/geometrical tags, one physical tag per group."""
    tags: dict[str, tuple[int, int]] = {}
    for tag, (g, entry) in enumerate(sorted(mesh.groups.items()), start=1):
        dims = {cell_dim(t) for t in entry}
        if len(dims) > 1:
            raise ModelError(
                f"cannot write group '{g}' of {mesh.label} to gmsh: it mixes cell types "
                f"{sorted(entry)} of different dimensions; split it into one group per type"
            )
        tags[g] = (tag, dims.pop() if dims else 0)

    cells = {t: c for t, c in mesh._blocks()}
    vertex_nodes = [np.zeros(0, np.int64)]
    vertex_nodes += [e["vertex"] for e in mesh.groups.values() if "vertex" in e]
    if "vertex" in cells:
        vertex_nodes.insert(0, cells["vertex"][:, 0])
    if sum(len(v) for v in vertex_nodes):
        nodes = np.concatenate(vertex_nodes)
        cells["vertex"] = nodes[np.sort(np.unique(nodes, return_index=True)[1])][:, None]

    blocks, physical = [], []
    for cell_type, data in cells.items():
        # Membership index of each group in this block (vertex groups hold vertex indices).
        members = []
        for g, entry in sorted(mesh.groups.items()):
            if cell_type not in entry:
                continue
            idx = entry[cell_type]
            if cell_type == "vertex":
                idx = np.flatnonzero(np.isin(data[:, 0], idx))
            members.append((tags[g][0], idx))
        # First block: every cell once, in order, tagged with its first group (0 = none).
        first_tag = np.zeros(len(data), dtype=np.int64)
        for tag, idx in reversed(members):
            first_tag[idx] = tag
        blocks.append((cell_type, data))
        physical.append(first_tag)
        # Repeat cells that belong to further groups.
        for tag, idx in members:
            again = idx[first_tag[idx] != tag]
            if again.size:
                blocks.append((cell_type, data[again]))
                physical.append(np.full(again.size, tag, dtype=np.int64))
    return meshio.Mesh(
        mesh.vertices,
        [meshio.CellBlock(t, c) for t, c in blocks],
        # Elementary (geometrical) tag = physical tag, or one spare entity for ungrouped cells.
        cell_data={
            "gmsh:physical": physical,
            "gmsh:geometrical": [np.where(p > 0, p, len(tags) + 1) for p in physical],
        },
        field_data={g: np.array(v) for g, v in tags.items()},
    )


# ---------------------------------------------------------------------- built-in meshes
def builtin_mesh_names() -> list[str]:
    """Names of the meshes in ``meshes/`` (file stems), sorted."""
    files = list(MESH_DIR.glob("*.msh")) + list(MESH_DIR.glob("*.vtu"))
    return sorted({f.stem for f in files}, key=_natural_key)


def _natural_key(name: str) -> tuple:
    stem, _, number = name.rpartition("_")
    digits = "".join(ch for ch in number if ch.isdigit())
    prefix = number.rstrip("0123456789")
    return (stem, prefix, int(digits) if digits else -1, name)


def load_builtin_mesh(name: str, *, validate: bool = True) -> Mesh:
    """Load a built-in mesh by name, e.g. ``"hexagon_6"``, ``"square_s8"``, ``"square_u8"``.

    The files live in ``meshes/`` next to the ``fem`` package and are made by
    ``python meshes/make_meshes.py`` (see ``docs/output.md`` for the list).

    Raises
    ------
    ModelError
        If there is no such mesh; the message lists the available names.
    """
    for ext in (".msh", ".vtu"):
        path = MESH_DIR / f"{name}{ext}"
        if path.is_file():
            mesh = read_mesh(path, validate=validate)
            mesh.name = name
            return mesh
    names = ", ".join(builtin_mesh_names()) or f"none (run python {MESH_DIR / 'make_meshes.py'})"
    raise ModelError(f"unknown built-in mesh '{name}'; available: {names}")
