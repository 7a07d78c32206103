"""ParaView time series: one ``.vtu`` per frame plus a ``.pvd`` collection.

A *frame* is plain arrays at one time: ``time``, ``points`` (n, 3), ``cells`` (meshio style:
``{"triangle": (k, 3), "line": (l, 2), "vertex": (p, 1), "polyline": [chains]}``),
``point_data`` (``name -> (n,)`` or ``(n, 3)``) and ``cell_data`` (``name -> per cell``).
Pass a :class:`Frame` or any mapping with those keys.

Layout on disk::

    out/robot.pvd                  the collection (times, relative file names)
    out/robot/robot_000000.vtu     one file per frame (binary; zlib-compressed when large)

Convention (what ParaView's *Warp By Vector* expects): ``points`` are the reference
configuration and ``point_data["displacement"]`` is current − reference, so warping with
scale 1 shows the current configuration and a larger scale exaggerates it.  See
``docs/output.md``.

:class:`SeriesWriter` writes each frame as it comes and rewrites the ``.pvd`` after every
frame (atomically), so a run that is interrupted leaves a valid collection of the frames
written so far.  Under ``fem run`` with a worker beside the run (:mod:`fem.core.beside`)
it hands the frames after the first to the worker in batches, lists them as they are
written, and an interrupted run writes in its own process those the worker had not.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import meshio
import numpy as np
import numpy.typing as npt

from fem.core.errors import ModelError
from fem.model.mesh import Mesh
from fem.model.mesh_files import read_meshio

__all__ = ["Frame", "SeriesWriter", "read_series", "series_entries", "to_meshio",
           "write_series"]


_XML_ATTRIBUTE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                                "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def quoteattr(text: str) -> str:
    """``text`` as a double-quoted XML attribute value (``xml.sax.saxutils.quoteattr``
    without importing it: it loads ``urllib.request``, 10 ms on every run's path)."""
    return f'"{text.translate(_XML_ATTRIBUTE)}"'


@dataclass
class Frame:
    """One time step of a series.

    Attributes
    ----------
    time : float
    points : (n, 3) float
        Reference positions (2D input is padded with z = 0).
    cells : dict[str, array]
        meshio cell blocks by type; ``"polyline"`` is a sequence of vertex chains, written as
        their line segments.
    point_data : dict[str, array]
        ``(n,)`` scalars or ``(n, 3)`` vectors (e.g. ``"displacement"``).
    cell_data : dict[str, array]
        One value (or vector) per cell: an array over all cells in the order of ``cells``
        (for ``"polyline"``: one per chain), a list of per-type arrays, or a dict by type.
    field_data : dict[str, array]
        Numbers that belong to the whole frame (ParaView's *field data*): e.g. the names of
        the ``group`` ids, actuator efforts, constraint multipliers.  Each value is a scalar
        or a 1D array of numbers.
    """

    time: float
    points: npt.ArrayLike
    cells: Mapping[str, Any]
    point_data: Mapping[str, npt.ArrayLike] = field(default_factory=dict)
    cell_data: Mapping[str, Any] = field(default_factory=dict)
    field_data: Mapping[str, npt.ArrayLike] = field(default_factory=dict)

    @classmethod
    def from_mesh(
        cls,
        mesh: Mesh,
        time: float = 0.0,
        displacement: npt.ArrayLike | None = None,
        point_data: Mapping[str, npt.ArrayLike] | None = None,
        cell_data: Mapping[str, Any] | None = None,
    ) -> Frame:
        """A frame on a :class:`fem.model.mesh.Mesh` (its triangles and lines).

        `displacement` (n, 3), if given, is stored as ``point_data["displacement"]``.
        """
        cells = {"triangle": mesh.triangles, "line": mesh.lines}
        data = dict(point_data or {})
        if displacement is not None:
            data["displacement"] = displacement
        return cls(
            time,
            mesh.vertices,
            {k: v for k, v in cells.items() if len(v)},
            data,
            dict(cell_data or {}),
        )


def sensor_fields(sensors: dict | None) -> dict[str, np.ndarray]:
    """Field data of the sensors' values at one step: ``sensor:<name>`` for each value
    that is a number or a numeric array of at most 64 entries."""
    out = {}
    for k, val in (sensors or {}).items():
        a = np.asarray(val)
        if np.issubdtype(a.dtype, np.number) and a.size <= 64:
            out[f"sensor:{k}"] = np.atleast_1d(a.astype(float)).ravel()
    return out


@dataclass(frozen=True)
class StateFrame:
    """A frame still to be made: the state ``(t, q, q̇, λ, sensors)`` of a run and the
    number under which its drawing is shared with the worker beside the run
    (:func:`fem.core.beside.share`).  The worker makes the frame from it
    (``drawing.frame(*state)``) while the run goes on; wherever it is written in the
    run's own process (the first frame, an interrupted run) it is made there, the same."""

    key: int
    time: float
    state: tuple

    def make(self) -> Frame:
        from ..core import beside

        return beside.shared(self.key).frame(*self.state)


def _as_frame(frame: Frame | Mapping[str, Any], index: int) -> Frame:
    if isinstance(frame, Frame):
        return frame
    if isinstance(frame, StateFrame):
        return frame.make()
    if isinstance(frame, Mapping):
        unknown = set(frame) - {"time", "points", "cells", "point_data", "cell_data",
                                "field_data"}
        missing = {"time", "points", "cells"} - set(frame)
        if unknown or missing:
            raise ModelError(
                f"frame {index}: expected keys time, points, cells[, point_data, cell_data, "
                f"field_data]; "
                f"missing {sorted(missing)}, unknown {sorted(unknown)}"
            )
        return Frame(**frame)
    raise ModelError(f"frame {index}: expected a Frame or a mapping, got {type(frame).__name__}")


def _polyline_segments(chains: Any) -> tuple[np.ndarray, np.ndarray]:
    """Line segments of vertex chains and, per segment, the chain it came from."""
    chains = [np.asarray(c, dtype=np.int64).ravel() for c in chains]
    if chains and all(len(c) == len(chains[0]) for c in chains):
        arr = np.stack(chains)  # equal lengths: vectorized
        seg = np.stack([arr[:, :-1], arr[:, 1:]], axis=2).reshape(-1, 2)
        owner = np.repeat(np.arange(len(arr)), arr.shape[1] - 1)
        return seg, owner
    segs = [np.stack([c[:-1], c[1:]], axis=1) for c in chains]
    owner = np.repeat(np.arange(len(chains)), [len(s) for s in segs])
    return (np.concatenate(segs) if segs else np.zeros((0, 2), np.int64)), owner


def to_meshio(frame: Frame | Mapping[str, Any], index: int = 0) -> meshio.Mesh:
    """The frame as a :class:`meshio.Mesh` (polylines split into lines), checking sizes.

    Raises
    ------
    ModelError
        If a data array does not match the number of points or cells, naming it.
    """
    f = _as_frame(frame, index)
    where = f"frame {index} (t = {f.time})"
    points = np.asarray(f.points, dtype=float)
    if points.ndim != 2 or points.shape[1] not in (2, 3):
        raise ModelError(f"{where}: points must be (n, 3), got {points.shape}")
    if points.shape[1] == 2:
        points = np.hstack([points, np.zeros((len(points), 1))])
    n = len(points)

    blocks: list[tuple[str, np.ndarray]] = []
    owners: list[np.ndarray | None] = []  # per block: written cell -> given cell (polyline)
    given: list[int] = []  # cells per block as the caller counts them
    for cell_type, cells in f.cells.items():
        if cell_type == "polyline":
            seg, owner = _polyline_segments(cells)
            blocks.append(("line", seg))
            owners.append(owner)
            given.append(len(cells))
            continue
        data = np.asarray(cells, dtype=np.int64)
        data = data.reshape(-1, 1) if cell_type == "vertex" else data.reshape(len(data), -1)
        blocks.append((cell_type, data))
        owners.append(None)
        given.append(len(data))
    for cell_type, data in blocks:
        if data.size and (data.min() < 0 or data.max() >= n):
            raise ModelError(f"{where}: '{cell_type}' cells refer to points outside 0..{n - 1}")

    point_data = {}
    for name, values in f.point_data.items():
        values = np.asarray(values)
        if len(values) != n:
            raise ModelError(f"{where}: point data '{name}' has {len(values)} rows for {n} points")
        if values.ndim == 2 and values.shape[1] == 2:
            values = np.hstack([values, np.zeros((n, 1))])
        point_data[name] = values

    cell_data = {}
    types = list(f.cells)
    for name, values in f.cell_data.items():
        if isinstance(values, Mapping):
            per_block = [np.asarray(values[t]) if t in values else None for t in types]
            if any(v is None for v in per_block):
                raise ModelError(
                    f"{where}: cell data '{name}' lacks cell types "
                    f"{[t for t, v in zip(types, per_block, strict=True) if v is None]}"
                )
        elif (
            isinstance(values, list | tuple)
            and len(values) == len(blocks)
            and all(np.ndim(v) >= 1 for v in values)
        ):
            per_block = [np.asarray(v) for v in values]
        else:
            values = np.asarray(values)
            if len(values) != sum(given):
                raise ModelError(
                    f"{where}: cell data '{name}' has {len(values)} rows for {sum(given)} cells "
                    f"({dict(zip(types, given, strict=True))})"
                )
            per_block = np.split(values, np.cumsum(given)[:-1])
        for t, v, g in zip(types, per_block, given, strict=True):
            if len(v) != g:
                raise ModelError(f"{where}: cell data '{name}' has {len(v)} '{t}' rows for {g}")
        cell_data[name] = [v if e is None else v[e] for v, e in zip(per_block, owners, strict=True)]
    field_data = {}
    for name, values in f.field_data.items():
        values = np.atleast_1d(np.asarray(values))
        if values.ndim != 1 or values.dtype.kind not in "biuf":
            raise ModelError(f"{where}: field data '{name}' must be a number or a 1D array of "
                             f"numbers, got {values.dtype} {values.shape}")
        field_data[name] = values
    return meshio.Mesh(points, [meshio.CellBlock(t, c) for t, c in blocks], point_data, cell_data,
                       field_data=field_data)


_VTU_TYPE = {"f": "Float64", "i": "Int64", "u": "UInt64", "b": "UInt8"}


def _field_data_xml(field_data: Mapping[str, np.ndarray]) -> bytes:
    """``<FieldData>`` of a VTK XML file (ASCII; meshio's writer leaves field data out),
    written as text directly (an ElementTree per frame cost a third of the writing)."""
    parts = ["<FieldData>"]
    for name, values in field_data.items():
        kind = values.dtype.kind
        values = values.astype({"f": np.float64, "i": np.int64, "u": np.uint64,
                                "b": np.uint8}[kind]).ravel()
        text = " ".join(map(repr, values.tolist())) if kind == "f" else \
            " ".join(map(str, values.tolist()))
        # numbers' text has nothing to escape (digits, signs, '.', 'e', inf, nan)
        parts.append(f'<DataArray type="{_VTU_TYPE[kind]}" Name={quoteattr(str(name))} '
                     f'NumberOfTuples="{len(values)}" format="ascii">{text}</DataArray>')
    parts.append("</FieldData>")
    return "".join(parts).encode("utf-8")


def _write_vtu(path: Path, mesh: meshio.Mesh, compression: str | None) -> None:
    """Write ``mesh`` as a binary ``.vtu`` with its field data, atomically."""
    from ..core.files import temporary_path

    tmp = temporary_path(path)
    try:
        data = _vtu_bytes(mesh, compression)
        if data is not None:
            tmp.write_bytes(data)
        else:                   # cells this writer does not know: meshio's writer
            meshio.write(tmp, mesh, file_format="vtu", compression=compression)
            if mesh.field_data:
                data = tmp.read_bytes()
                tag = b"<UnstructuredGrid>"
                at = data.index(tag) + len(tag)
                tmp.write_bytes(data[:at] + _field_data_xml(mesh.field_data) + data[at:])
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


#: VTK's numbers of the cell types written directly (their point order is VTK's)
_VTK_CELL = {"vertex": 1, "line": 3, "triangle": 5, "quad": 9, "tetra": 10,
             "hexahedron": 12, "wedge": 13, "pyramid": 14}

#: VTK XML names of the array types written directly
_VTU_ARRAY = {np.dtype(np.float64): "Float64", np.dtype(np.float32): "Float32",
              np.dtype(np.int64): "Int64", np.dtype(np.int32): "Int32",
              np.dtype(np.uint8): "UInt8", np.dtype(np.uint64): "UInt64"}

VTU_BLOCK = 32768
"""Bytes per compressed block of a ``.vtu`` array (VTK's default block size)."""

ZLIB_LEVEL = 1
"""zlib level of a compressed ``.vtu``'s arrays (the default 6 gains 1 % of size here)."""

COMPRESS_ABOVE = 2**17
"""A ``.vtu`` is compressed only when its arrays hold more bytes than this: below, zlib's
set-up for each array costs more than the bytes it saves (a frame of the flagship's
6-element plate: 0.96 ms and 47 kB plain, 2.3 ms and 34 kB compressed)."""


def _vtu_array(name: str, values: np.ndarray, compression: str | None,
               tuples: bool = False) -> str:
    """One binary ``<DataArray>``: a UInt32 header and the base64 of the (zlib blocks
    of the) little-endian bytes, as VTK's XML readers (and meshio's) read it."""
    import base64
    import zlib

    values = np.ascontiguousarray(values)
    if values.dtype == bool:
        values = values.astype(np.uint8)
    kind = _VTU_ARRAY[values.dtype]
    raw = values.astype(values.dtype.newbyteorder("<"), copy=False).tobytes()
    if compression:
        blocks = [zlib.compress(raw[i:i + VTU_BLOCK], ZLIB_LEVEL)
                  for i in range(0, len(raw), VTU_BLOCK)] or [zlib.compress(b"", ZLIB_LEVEL)]
        last = len(raw) - (len(blocks) - 1) * VTU_BLOCK
        header = np.array([len(blocks), VTU_BLOCK, last] + [len(b) for b in blocks],
                          dtype="<u4").tobytes()
        text = (base64.b64encode(header).decode() + base64.b64encode(b"".join(blocks))
                .decode())
    else:
        text = base64.b64encode(np.array([len(raw)], dtype="<u4").tobytes() + raw).decode()
    comps = (f' NumberOfComponents="{values.shape[1]}"' if values.ndim == 2 else
             f' NumberOfTuples="{len(values)}"' if tuples else "")
    return (f'<DataArray type="{kind}" Name={quoteattr(name)}{comps} format="binary">'
            f"{text}</DataArray>\n")


def _vtu_bytes(mesh: meshio.Mesh, compression: str | None) -> bytes | None:
    """The ``.vtu`` file of ``mesh`` (unstructured grid, binary arrays, field data
    included), written directly: several times faster than meshio's writer, which builds
    an XML tree per frame.  None where the mesh has something this writer does not write
    (a cell type outside :data:`_VTK_CELL`, an array type outside :data:`_VTU_ARRAY`,
    more than 2 GB)."""
    arrays = [np.asarray(a) for a in (mesh.points, *mesh.point_data.values(),
                                      *(v for vals in mesh.cell_data.values() for v in vals))]
    size = sum(a.nbytes for a in arrays)
    if (compression not in (None, "zlib") or size > 2**31
            or any(c.type not in _VTK_CELL for c in mesh.cells)
            or any(a.ndim > 2 for a in arrays)
            or any(np.asarray(a).dtype not in _VTU_ARRAY and np.asarray(a).dtype != bool
                   for a in [*arrays, *mesh.field_data.values()])):
        return None
    if size <= COMPRESS_ABOVE:
        compression = None
    points = np.asarray(mesh.points, dtype=float)
    conn = [np.asarray(c.data, dtype=np.int64).reshape(len(c.data), -1) for c in mesh.cells]
    n_cells = sum(len(c) for c in conn)
    sizes = np.concatenate([np.full(len(c), c.shape[1], dtype=np.int64) for c in conn]) \
        if conn else np.zeros(0, np.int64)
    types = np.concatenate([np.full(len(c), _VTK_CELL[b.type], dtype=np.uint8)
                            for b, c in zip(mesh.cells, conn, strict=True)]) \
        if conn else np.zeros(0, np.uint8)
    head = ('<?xml version="1.0"?>\n<VTKFile type="UnstructuredGrid" version="0.1" '
            'byte_order="LittleEndian"'
            + (' compressor="vtkZLibDataCompressor"' if compression else "") + ">\n"
            "<UnstructuredGrid>\n")
    parts = [head.encode()]
    if mesh.field_data:
        # binary, as the other arrays (their text took half of the writing)
        parts.append(("<FieldData>\n" + "".join(
            _vtu_array(name, np.atleast_1d(values).ravel(), compression, tuples=True)
            for name, values in mesh.field_data.items()) + "</FieldData>\n").encode())
    body = [f'<Piece NumberOfPoints="{len(points)}" NumberOfCells="{n_cells}">\n<Points>\n',
            _vtu_array("Points", points, compression), "</Points>\n<Cells>\n",
            _vtu_array("connectivity", np.concatenate([c.ravel() for c in conn])
                       if conn else np.zeros(0, np.int64), compression),
            _vtu_array("offsets", np.cumsum(sizes), compression),
            _vtu_array("types", types, compression), "</Cells>\n"]
    if mesh.point_data:
        body.append("<PointData>\n")
        body += [_vtu_array(name, np.asarray(v), compression)
                 for name, v in mesh.point_data.items()]
        body.append("</PointData>\n")
    if mesh.cell_data:
        body.append("<CellData>\n")
        body += [_vtu_array(name, np.concatenate([np.asarray(b) for b in vals]), compression)
                 for name, vals in mesh.cell_data.items()]
        body.append("</CellData>\n")
    body.append("</Piece>\n</UnstructuredGrid>\n</VTKFile>\n")
    parts.append("".join(body).encode())
    return b"".join(parts)


def _write_frame(frame: Frame, index: int, file: Path, compression: bool) -> None:
    _write_vtu(file, to_meshio(frame, index), "zlib" if compression else None)


def _write_frames(frames: list[tuple[Frame, int, Path]], compression: bool) -> None:
    """Write a batch of a series' frames."""
    for frame, index, file in frames:
        _write_frame(frame, index, file, compression)


def _write_frames_beside(frames: list[tuple[Frame, int, Path]], compression: bool) -> None:
    """Write a batch of a series' frames in the worker beside a run, keeping each
    frame's mesh as :func:`read_series` would read it back (:func:`_keep`): the worker
    renders the run's movie from them without reading its files again."""
    for frame, index, file in frames:
        mesh = to_meshio(frame, index)
        _write_vtu(file, mesh, "zlib" if compression else None)
        _keep(file, mesh)


_KEPT: dict[Path, tuple[tuple, meshio.Mesh]] = {}
"""Frames this process wrote beside a run, by file: the file's identity when written
(inode, size, modification time) and its mesh.  Read by :func:`read_series` while the
file is unchanged."""

KEEP_BYTES = 256 * 2**20
"""At most this many bytes of kept frames' arrays (beyond: read from their files)."""

_KEPT_BYTES = [0]

#: the array types a ``.vtu`` gives back as written (others are read back converted)
_ROUND_TRIP = (np.dtype(np.float64), np.dtype(np.int64))


def _identity(file: Path) -> tuple:
    st = os.stat(file)
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _keep(file: Path, mesh: meshio.Mesh) -> None:
    """Keep ``mesh`` (just written to ``file``) as reading the file would give it: the
    field data as :func:`_field_data_xml` writes it, nothing kept where an array would
    come back in another type, or past :data:`KEEP_BYTES`."""
    arrays = [mesh.points, *(c.data for c in mesh.cells), *mesh.point_data.values(),
              *(a for v in mesh.cell_data.values() for a in v)]
    if any(np.asarray(a).dtype not in _ROUND_TRIP for a in arrays):
        return
    size = sum(np.asarray(a).nbytes for a in arrays)
    if _KEPT_BYTES[0] + size > KEEP_BYTES:
        return
    as_read = {"f": np.float64, "i": np.int64, "u": np.uint64, "b": np.uint8}
    mesh.field_data = {k: v.astype(as_read[v.dtype.kind]).ravel()
                       for k, v in mesh.field_data.items()}
    try:
        _KEPT[Path(file)] = (_identity(file), mesh)
    except OSError:
        return
    _KEPT_BYTES[0] += size


def _kept(file: Path) -> meshio.Mesh | None:
    """The mesh kept for ``file`` while the file is the one written (None otherwise)."""
    entry = _KEPT.get(Path(file))
    if entry is None:
        return None
    try:
        same = _identity(file) == entry[0]
    except OSError:
        same = False
    return entry[1] if same else None


def _pvd_line(time: float, file: str) -> str:
    return (f'    <DataSet timestep="{float(time)!r}" group="" part="0" '
            f'file={quoteattr(file)} />\n')


def _write_pvd(path: Path, entries: Sequence[tuple[float, str]],
               lines: Sequence[str] | None = None) -> None:
    """Write the collection atomically (a reader never sees a half-written file);
    ``lines``: the entries already formatted (:func:`_pvd_line`), kept by the writer so
    that rewriting the collection after each frame stays cheap."""
    body = "".join(lines if lines is not None else (_pvd_line(t, f) for t, f in entries))
    text = ("<?xml version='1.0' encoding='utf-8'?>\n"
            '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">\n'
            "  <Collection>\n" + body + "  </Collection>\n</VTKFile>")
    from ..core.files import temporary_path

    tmp = temporary_path(path)
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class SeriesWriter:
    """Write a time series frame by frame.

    Parameters
    ----------
    directory : str or Path
        Output folder (created).  The collection is ``directory/name.pvd``, the frames
        ``directory/name/name_000000.vtu`` …; stale frame files of an earlier series with the
        same name are removed.
    name : str
        Series name.
    compression : bool
        zlib-compress the binary ``.vtu`` data (ParaView and meshio read both).

    Examples
    --------
    >>> with SeriesWriter("out", "platform") as series:   # doctest: +SKIP
    ...     for t, u in zip(times, displacements):
    ...         series.add(Frame.from_mesh(mesh, t, displacement=u))
    """

    def __init__(self, directory: str | Path, name: str, *, compression: bool = True):
        if not name or any(c in name for c in "/\\"):
            raise ModelError(f"series name must be a plain file name, got '{name}'")
        self.directory = Path(directory)
        self.name = name
        self.compression = compression
        self.pvd_path = self.directory / f"{name}.pvd"
        self.frame_dir = self.directory / name
        self.frame_dir.mkdir(parents=True, exist_ok=True)
        for stale in self.frame_dir.glob(f"{name}_*.vtu"):
            stale.unlink()
        self.entries: list[tuple[float, str]] = []
        self._lines: list[str] = []
        # frames handed to the worker beside the run: (frame, index, file, pvd entry) in
        # order, the first ``_handed`` of them given on in ``_jobs`` (job, frames)
        self._waiting: list[tuple[Frame, int, Path, tuple[float, str]]] = []
        self._handed = 0
        self._jobs: list[tuple[Any, int]] = []
        self.closed = False
        _write_pvd(self.pvd_path, self.entries, self._lines)

    def __len__(self) -> int:
        """Frames added (listed in the ``.pvd``, or on their way to it)."""
        return len(self.entries) + len(self._waiting)

    def add(self, frame: Frame | StateFrame | Mapping[str, Any]) -> Path:
        """Write one frame's ``.vtu`` and rewrite the ``.pvd``; return the ``.vtu`` path.

        Under ``fem run`` with a worker beside the run (:mod:`fem.core.beside`), frames
        after the first are handed to it in batches of :attr:`BATCH` (a
        :class:`StateFrame` whose drawing the worker has is made there) and the ``.pvd``
        lists them once they are written; :meth:`close` (or the end of the run) waits for
        them, and an interrupted run writes here the frames the worker had not: the
        files are the same bytes either way."""
        if self.closed:
            raise ModelError(f"series '{self.name}' is closed")
        index = len(self.entries) + len(self._waiting)
        from ..core import beside

        if index > 0 and isinstance(frame, StateFrame) and beside.knows(frame.key):
            f, time = frame, float(frame.time)      # made by the worker
        else:
            f = _as_frame(frame, index)
            time = float(f.time)
        if not np.isfinite(time):
            raise ModelError(f"frame {index} of series '{self.name}': time is {time}")
        file = self.frame_dir / f"{self.name}_{index:06d}.vtu"
        entry = (time, file.relative_to(self.directory).as_posix())
        if index > 0 and beside.allowed():
            self._waiting.append((f, index, file, entry))
            if len(self._waiting) - self._handed >= self.BATCH:
                self._hand_on()
            self._confirm(block=False)
            return file
        _write_frame(f, index, file, self.compression)
        self._listed([entry])
        return file

    BATCH = 16
    """Frames a batch handed to the worker beside the run."""

    def _listed(self, entries: list[tuple[float, str]]) -> None:
        self.entries.extend(entries)
        self._lines.extend(_pvd_line(*e) for e in entries)
        _write_pvd(self.pvd_path, self.entries, self._lines)

    def _hand_on(self) -> None:
        """Give the frames not handed on yet to the worker beside the run."""
        from ..core import beside

        batch = self._waiting[self._handed:]
        if not batch:
            return
        self._handed = len(self._waiting)
        job = beside.call(_write_frames_beside, [(f, i, file) for f, i, file, _ in batch],
                          self.compression)
        self._jobs.append((job, len(batch)))
        beside.on_settle(self._settle)

    def _confirm(self, block: bool) -> None:
        """List in the ``.pvd`` the batches the worker has written, in order; with
        ``block``, wait for all of them (taking back what it has not started)."""
        from ..core import beside

        if block:
            self._hand_on()
            beside.collect([job for job, _ in self._jobs])
        while self._jobs and self._jobs[0][0].done():
            job, n = self._jobs.pop(0)
            job.result()                        # the worker's error (a full disk), here
            done, self._waiting = self._waiting[:n], self._waiting[n:]
            self._handed -= n
            self._listed([entry for *_, entry in done])

    def _settle(self) -> None:
        """The work beside the run is over: list what the worker wrote, and write here
        (then list) what it did not — an interrupted run keeps every frame computed.  A
        frame that cannot be written here either (a full disk) ends the series there."""
        written = []
        try:
            for job, n in self._jobs:
                batch, self._waiting = self._waiting[:n], self._waiting[n:]
                if not job.succeeded():
                    _write_frames([(f, i, file) for f, i, file, _ in batch], self.compression)
                written.extend(batch)
            for item in list(self._waiting):                  # never handed on
                _write_frame(*item[:3], self.compression)
                written.append(item)
        finally:
            self._jobs, self._waiting, self._handed = [], [], 0
            if written:
                self._listed([entry for *_, entry in written])

    def close(self) -> Path:
        """Finish the series: every frame written and listed; return the ``.pvd`` path."""
        if not self.closed and (self._waiting or self._jobs):
            self._confirm(block=True)
        self.closed = True
        return self.pvd_path

    def __enter__(self) -> SeriesWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_series(
    directory: str | Path,
    name: str,
    frames: Iterable[Frame | Mapping[str, Any]],
    *,
    compression: bool = True,
) -> Path:
    """Write frames as ``.vtu`` files plus a ``.pvd`` collection; return the ``.pvd`` path.

    Parameters
    ----------
    directory, name, compression
        See :class:`SeriesWriter`.
    frames : iterable of Frame or mapping
        Consumed lazily, so a generator streams frames to disk.
    """
    with SeriesWriter(directory, name, compression=compression) as series:
        for frame in frames:
            series.add(frame)
    return series.pvd_path


def read_series(pvd_path: str | Path, *, skip_unreadable: bool = False,
                frames: Sequence[int] | None = None,
                progress: Callable[[int], object] | None = None
                ) -> tuple[np.ndarray, list[meshio.Mesh]]:
    """Read a ``.pvd`` collection and its ``.vtu`` files.

    ``skip_unreadable``: a frame file that is missing or unreadable (a run killed while
    writing it) is skipped with a :class:`fem.FemWarning` instead of refusing the series.
    ``frames``: read only these entries of the collection (indices, in the given order;
    :func:`series_entries` counts them).  ``progress``: called with 1 after each frame.

    Returns
    -------
    times : (m,) float
        In the order of the collection.
    meshes : list of meshio.Mesh
        One per frame, with their point and cell data.

    Raises
    ------
    ModelError
        If the collection or one of its files is missing or unreadable.
    """
    pvd_path = Path(pvd_path)
    entries = series_entries(pvd_path)
    if frames is not None:
        entries = [entries[i] for i in frames]
    times, meshes = [], []
    for time, name in entries:
        file = pvd_path.parent / name
        try:
            meshes.append(_kept(file) or read_meshio(file))
        except Exception as exc:   # noqa: BLE001 - a corrupt file surfaces as anything
            if not skip_unreadable:
                raise ModelError(f"collection {pvd_path}: {exc}") from exc
            from ..core.validate import warn

            warn(f"{pvd_path}: frame {file.name} is unreadable ({type(exc).__name__}); "
                 "skipped")
            continue
        finally:
            if progress is not None:
                progress(1)
        times.append(time)
    return np.asarray(times), meshes


def series_entries(pvd_path: str | Path) -> list[tuple[float, str]]:
    """The ``(time, file)`` entries of a ``.pvd`` collection, in its order (file names
    relative to the collection's folder).

    Raises
    ------
    ModelError
        If the collection is missing or unreadable.
    """
    pvd_path = Path(pvd_path)
    try:
        root = ET.parse(pvd_path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise ModelError(f"cannot read collection {pvd_path}: {exc}") from exc
    return [(float(ds.get("timestep", "nan")), ds.get("file", ""))
            for ds in root.iter("DataSet")]


def write_centreline_series(out, name: str, times, lines_per_frame,
                            max_frames: int = 400) -> list:
    """Write the links' deformed centre lines as a ParaView series.

    ``lines_per_frame[k]`` is a list of (n_points, 3) polylines at ``times[k]``; every
    frame becomes ``out/<name>_NNNNN.vtu`` (line cells; a Tube filter draws the links as
    tubes) and ``out/<name>.pvd`` collects them with their times.  At most ``max_frames``
    frames, evenly spaced.  Returns the written paths."""
    from pathlib import Path

    import meshio

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    n = len(times)
    idx = np.unique(np.linspace(0, n - 1, min(n, max_frames)).round().astype(int))
    written, entries = [], []
    for k, i in enumerate(idx):
        lines = lines_per_frame[i]
        pts = np.concatenate(lines)
        start = np.cumsum([0] + [len(ln) for ln in lines])
        cells = np.concatenate([np.column_stack([np.arange(a, b - 1), np.arange(a + 1, b)])
                                for a, b in zip(start[:-1], start[1:], strict=True)])
        link = np.concatenate([np.full(len(ln) - 1, j) for j, ln in enumerate(lines)])
        path = out / f"{name}_{k:05d}.vtu"
        meshio.write(str(path), meshio.Mesh(pts, [("line", cells)],
                                            cell_data={"link": [link]}))
        written.append(path)
        entries.append(f'  <DataSet timestep="{float(times[i]):.9g}" file="{path.name}"/>')
    pvd = out / f"{name}.pvd"
    pvd.write_text('<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1">\n'
                   "<Collection>\n" + "\n".join(entries) + "\n</Collection>\n</VTKFile>\n")
    return [*written, pvd]
