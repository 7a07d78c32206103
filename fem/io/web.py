"""A run's ParaView series as one self-contained web page (``fem view``).

The page shows the deformed model, coloured by a field, with a time slider (or the chosen
frames) and a colour legend; it needs no network and no server: the geometry is embedded
in it and so is vtk.js, the JavaScript port of VTK that draws it with WebGL.

How: every chosen frame is drawn exactly as the pictures are (:mod:`fem.io.scenes`: tubes
for links, the elastic deformation magnified, one colour range over all frames) into one
VTK scene; the scene is serialized to vtk.js's format by ``trame-vtk``'s serializers and
embedded, base64-encoded, in ``trame-vtk``'s offline viewer page (``static_viewer.html``,
vtk.js's *OfflineLocalView*).  This is what PyVista's ``Plotter.export_html`` does, less
the trame server it starts (PyVista 0.49 serializes through a running trame server,
which needs ``trame-pyvista`` and ``nest_asyncio2`` and listens on a port): the
serializers are called directly.  Frames other than the first are hidden; the page's
slider shows one frame's actors at a time.

Needs the ``view`` extra (``pip install -e ".[view]"``: ``trame-vtk``).
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
import zipfile
from pathlib import Path

import numpy as np

from ..core.errors import ModelError
from .scenes import MODE_SHAPE  # noqa: F401 - the legend of a modal series (its home)

__all__ = ["write_view", "parse_frames", "MAX_FRAMES"]

MAX_FRAMES = 50
"""Frames on the slider by default: evenly spread over the series, the last included."""

_WINDOW = (960, 720)


def parse_frames(spec: str | None, n: int, max_frames: int = MAX_FRAMES) -> list[int]:
    """Frame numbers (0-based indices of the collection) from a ``--frames`` text.

    ``None``: at most ``max_frames`` evenly spread, the first and the last included.
    ``"all"``: every frame.  Otherwise comma-separated items, each an index (negative
    counts from the end: ``-1`` is the last frame) or a range ``start:stop[:step]``
    (Python's slice: ``stop`` excluded, either end may be left out).

    Raises
    ------
    ModelError
        For text that is not such a list, or numbers outside ``-n … n-1``.
    """
    if n <= 0:
        raise ModelError("the series has no frame to show")
    if spec is None:
        step = max(1, -(-n // max_frames))
        picked = list(range(0, n, step))
        if picked[-1] != n - 1:
            picked.append(n - 1)
        return picked
    text = str(spec).strip()
    if text == "all":
        return list(range(n))
    picked: list[int] = []
    for item in text.split(","):
        item = item.strip()
        if not re.fullmatch(r"-?\d+|(-?\d+)?:(-?\d+)?(:(-?\d+)?)?", item):
            raise ModelError(f"--frames: cannot read {item!r} in {text!r}; give frame numbers "
                             f"0…{n - 1} separated by commas, ranges start:stop[:step], or "
                             "'all'")
        if ":" not in item:
            k = int(item)
            if not -n <= k < n:
                raise ModelError(f"--frames: frame {k} does not exist; the series has {n} "
                                 f"frames, numbered 0…{n - 1} (or -{n}…-1 from the end)")
            picked.append(k % n)
            continue
        parts = [int(x) if x else None for x in item.split(":")]
        if len(parts) == 3 and parts[2] == 0:
            raise ModelError(f"--frames: the step of {item!r} must not be 0")
        for end in parts[:2]:
            if end is not None and not -n <= end <= n:
                raise ModelError(f"--frames: {item!r} reaches beyond the series; it has {n} "
                                 f"frames, numbered 0…{n - 1}")
        chosen = list(range(n))[slice(*parts)]
        if not chosen:
            raise ModelError(f"--frames: the range {item!r} holds no frame of 0…{n - 1}")
        picked += chosen
    return picked


def _series(directory: Path) -> Path:
    """The ``.pvd`` collection of a run folder, with the reason when there is none."""
    try:
        exists, is_dir = directory.exists(), directory.is_dir()
    except OSError as err:
        raise ModelError(f"cannot read {directory}: {err.strerror or err}") from None
    if not exists:
        raise ModelError(f"no folder {directory}: give the --out folder of a run "
                         "(fem run CASE --out DIR)")
    if not is_dir:
        raise ModelError(f"{directory} is not a folder: give the --out folder of a run")
    pvds = sorted(directory.glob("*.pvd"))
    if not pvds:
        raise ModelError(f"no ParaView series (.pvd) in {directory}: run a case with "
                         f"--out {directory} first")
    return pvds[0]


def _fields(meshes) -> list[str]:
    return sorted({k for m in meshes for k in (*m.point_data, *m.cell_data)})


def _label(mesh, time: float) -> str:
    """The slider's text for one frame: its time, or a mode's number and frequency."""
    fd = mesh.field_data
    if "mode" in fd and "frequency_hz" in fd:
        return (f"mode {int(np.ravel(fd['mode'])[0])}: "
                f"{float(np.ravel(fd['frequency_hz'])[0]):.4g} Hz")
    return f"t = {time:.4g} s"


def write_view(directory: str | Path, out: str | Path | None = None, *,
               frames: str | None = None, field: str | None = None,
               progress: bool = False) -> Path:
    """Write the web page of a run folder's series.

    Parameters
    ----------
    directory : folder
        A run's ``--out`` folder (its first ``.pvd`` collection is shown).
    out : path, optional
        The page (default ``directory/view.html``).
    frames : str, optional
        Which frames (:func:`parse_frames`): default at most :data:`MAX_FRAMES` evenly
        spread, on a slider.
    field : str, optional
        Point or cell data to colour by (vectors by their length).  Default: the elastic
        ``deformation``, or the ``displacement`` where the series has none (rigid bodies
        only).
    progress : bool
        A progress bar on stderr (on a terminal) while the frames are read and drawn.

    Returns
    -------
    Path
        The page written.

    Raises
    ------
    ModelError
        A missing folder, a folder without a series, an unknown field or frame numbers
        outside the series — each named; or the ``view`` extra not installed.
    """
    from ..core.files import atomic_write_text
    from .options import progress_bar
    from .pictures import camera_of, picture_options, picture_settings
    from .vtk import read_series, series_entries

    directory = Path(directory)
    pvd = _series(directory)
    entries = series_entries(pvd)
    chosen = parse_frames(frames, len(entries))
    _serializers()          # the extra is there, before the frames are read
    with progress_bar(len(chosen), f"reading {pvd.stem}", "frame", progress) as bar:
        times, meshes = read_series(pvd, frames=chosen, progress=bar.update)
    if field is None:
        field = "deformation" if "deformation" in meshes[0].point_data else "displacement"
    if not any(field in m.point_data or field in m.cell_data for m in meshes):
        raise ModelError(f"--field {field!r}: the series {pvd.name} has no such point or "
                         f"cell data; it has {', '.join(_fields(meshes)) or 'none'}")
    opts = picture_options(meshes, picture_settings(directory))
    page = _page(meshes, times, field, opts, camera_of(directory), chosen,
                 title=_title(directory, pvd), progress=progress)
    out = Path(out) if out is not None else directory / "view.html"
    try:
        atomic_write_text(out, page)
    except OSError as err:
        raise ModelError(f"cannot write {out}: {err.strerror or err}") from None
    return out


def _title(directory: Path, pvd: Path) -> str:
    """The case's name, and the folder's when it says something more (not the default
    ``results/CASE``, whose name is the case's)."""
    try:
        case = json.loads((directory / "summary.json").read_text()).get("case")
    except (OSError, ValueError, AttributeError):
        case = None
    name = case or pvd.stem
    folder = directory.resolve().name
    return name if folder in (name, pvd.stem, "") else f"{name} — {folder}"


def _serializers():
    """trame-vtk's serializers (the ``view`` extra), or a ModelError saying how to get
    them."""
    try:
        from trame_vtk.modules.vtk import serializers
        from trame_vtk.tools.vtksz2html import HTML_VIEWER_PATH
        from vtkmodules.vtkWebCore import vtkWebApplication
    except ImportError as err:
        raise ModelError(f"fem view needs trame-vtk (vtk.js and its scene serializers): "
                         f'pip install -e ".[view]" ({err})') from None
    return serializers, HTML_VIEWER_PATH, vtkWebApplication


def _page(meshes, times, field: str, opts: dict, camera, chosen: list[int], *, title: str,
          progress: bool) -> str:
    """The HTML page: the scene of every frame, the viewer, the slider and the legend."""
    from . import render, scenes
    from .cameras import fit_view, set_camera
    from .options import progress_bar

    warp, deform, factor = opts.get("warp"), opts.get("deform"), opts.get("factor", 1.0)
    with progress_bar(len(meshes), "drawing frames", "frame", progress) as bar:
        drawn = []
        for m in meshes:
            drawn.append(scenes.build_scene(m, field, warp, 1.0, None, deform, factor))
            bar.update(1)
    modal = all("mode" in m.field_data for m in meshes)
    if modal:       # an arbitrary scale: no unit, each mode to its own largest value
        scenes.normalize(drawn)
    else:
        scenes.display_units(drawn)     # the legend's unit scaled as the pictures' bar
    clim = scenes.scalar_range(drawn)
    master = render.new_plotter(_WINDOW, "white")
    keep = []          # the frames' plotters own their actors until the scene is serialized
    counts = []
    try:
        for scene in drawn:
            p = render.new_plotter(_WINDOW, "white")
            keep.append(p)
            scenes.draw_scene(p, scene, clim, "viridis", False, reset_camera=False)
            actors = list(p.renderer.GetActors())
            counts.append(len(actors))
            for a in actors:
                master.renderer.AddActor(a)
        samples = scenes.camera_samples(drawn)
        set_camera(master, camera, scenes.scene_bounds(drawn), samples)
        if clim is not None and isinstance(camera, str | dict):
            fit_view(master, samples, right=0.7)     # the legend's side stays free
        master.render()
        data = _serialized(master, counts)
    finally:
        for p in keep:
            p.close()
        master.close()
    legend = {"title": drawn[0].scalars or scenes.bar_title(field)[0], "range": clim,
              "colours": _colours("viridis")}
    labels = [_label(m, t) for m, t in zip(meshes, times, strict=True)]
    note = (f"{deform} ×{factor:g}" + (" (true scale)" if factor == 1 else "")
            if deform else "")
    if modal:
        note = ("mode shapes at an arbitrary scale; colour: the "
                f"{field} over its largest value" + (f"; {note}" if note else ""))
    return _html(data, counts, labels, chosen, legend, title, note)


def _serialized(plotter, counts: list[int]) -> bytes:
    """The plotter's scene in vtk.js's offline format (a zip holding ``index.json``):
    what trame-vtk's ``viewport.geometry.view.get.export`` gives, called without a
    server.  Actors after the first frame's are hidden."""
    serializers, _, vtkWebApplication = _serializers()
    app = vtkWebApplication()
    serializers.initialize_serializers()
    context = serializers.SynchronizationContext()
    context.set_ignore_last_dependencies(True)
    window = plotter.render_window
    scene = serializers.serialize(None, window, app.GetObjectIdMap().GetGlobalId(window),
                                  context, 1)
    camera = plotter.renderer.GetActiveCamera()
    scene["extra"] = {"vtkRefId": serializers.reference_id(window),
                      "centerOfRotation": camera.GetFocalPoint(),
                      "camera": serializers.reference_id(camera)}
    actors = [d for r in scene.get("dependencies", []) for d in r.get("dependencies", [])
              if "Actor" in d.get("type", "")]
    if len(actors) != sum(counts):
        raise ModelError(f"fem view: {len(actors)} actors serialized for {sum(counts)} drawn; "
                         "the page would mix frames")
    for a in actors[counts[0]:]:
        a["properties"]["visibility"] = 0
    hashes = {e["hash"]: {**e, "content": context.get_cached_data_array(e["hash"], False)}
              for e in serializers.extract_array_hash(scene)}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("index.json", json.dumps({"hashes": hashes, "scene": scene}),
                   compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def _colours(cmap: str, n: int = 12) -> list[str]:
    """CSS colours of a matplotlib colour map, low to high (the legend's gradient)."""
    from matplotlib import colormaps

    rgba = colormaps[cmap](np.linspace(0.0, 1.0, n))
    return [f"rgb({int(255 * r)},{int(255 * g)},{int(255 * b)})" for r, g, b, _ in rgba]


_CONTROLS = r"""
<style>
  #fem-view { position: absolute; inset: 0; }
  #fem-panel { position: absolute; left: 12px; right: 12px; bottom: 10px; z-index: 10;
    font: 14px sans-serif; color: #222; background: rgba(255,255,255,0.85);
    border-radius: 6px; padding: 6px 10px; display: flex; gap: 12px; align-items: center; }
  #fem-panel input[type=range] { flex: 1; }
  #fem-head { position: absolute; left: 12px; top: 8px; z-index: 10; font: 15px sans-serif;
    color: #222; background: rgba(255,255,255,0.85); border-radius: 6px; padding: 4px 8px; }
  #fem-legend { position: absolute; right: 14px; top: 60px; z-index: 10;
    font: 12px sans-serif; color: #222; text-align: center; }
  #fem-legend .bar { width: 22px; height: 260px; margin: 4px auto; border: 1px solid #555; }
</style>
<div id="fem-view"></div>
<div id="fem-head"><b id="fem-title"></b><br><span id="fem-note"></span></div>
<div id="fem-legend"><div id="fem-legend-title"></div><div id="fem-max"></div>
  <div class="bar" id="fem-bar"></div><div id="fem-min"></div></div>
<div id="fem-panel"><button id="fem-play" type="button">play</button>
  <input id="fem-slider" type="range" min="0" value="0" step="1">
  <span id="fem-label"></span></div>
<script>
const FEM = __FEM__;
function femSetup() {
  document.title = FEM.title;
  document.getElementById("fem-title").textContent = FEM.title;
  document.getElementById("fem-note").textContent = FEM.note;
  const lg = FEM.legend;
  document.getElementById("fem-legend-title").textContent = lg.title;
  if (lg.range) {
    document.getElementById("fem-max").textContent = lg.range[1].toPrecision(3);
    document.getElementById("fem-min").textContent = lg.range[0].toPrecision(3);
    document.getElementById("fem-bar").style.background =
      "linear-gradient(to top, " + lg.colours.join(", ") + ")";
  } else {
    document.getElementById("fem-legend").style.display = "none";
  }
  const slider = document.getElementById("fem-slider");
  slider.max = FEM.counts.length - 1;
  if (FEM.counts.length < 2) {
    slider.style.display = "none";
    document.getElementById("fem-play").style.display = "none";
  }
  let timer = null;
  function actors() {
    const rw = window.global && window.global.renderWindow;
    // the viewer's own (empty) renderer comes first, the scene's after it
    return rw ? rw.getRenderers().flatMap((r) => r.getActors()) : [];
  }
  function show(k) {
    const all = actors();
    let first = 0;
    FEM.counts.forEach((n, j) => {
      for (let i = first; i < first + n && i < all.length; i++) all[i].setVisibility(j === k);
      first += n;
    });
    document.getElementById("fem-label").textContent =
      "frame " + FEM.frames[k] + "   " + FEM.labels[k];
    if (window.global && window.global.renderWindow) window.global.renderWindow.render();
  }
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.getElementById("fem-play").addEventListener("click", (ev) => {
    if (timer) { clearInterval(timer); timer = null; ev.target.textContent = "play"; return; }
    ev.target.textContent = "pause";
    timer = setInterval(() => {
      slider.value = (Number(slider.value) + 1) % FEM.counts.length;
      show(Number(slider.value));
    }, 100);
  });
  (function wait() {        // the scene loads asynchronously: wait for all its actors
    const total = FEM.counts.reduce((a, b) => a + b, 0);
    if (actors().length >= total) {
      const m = /frame=(\d+)/.exec(window.location.hash);   // view.html#frame=K: slider K
      const k = m ? Math.min(Number(m[1]), FEM.counts.length - 1) : 0;
      slider.value = k;
      show(k);
      window.femReady = true;
    }
    else setTimeout(wait, 50);
  })();
}
function loadDataSet() {
  OfflineLocalView.load(document.getElementById("fem-view"), { base64Str: FEM.scene });
  femSetup();
}
</script>
"""


def _html(data: bytes, counts: list[int], labels: list[str], frames: list[int],
          legend: dict, title: str, note: str) -> str:
    """trame-vtk's offline viewer with the scene, the controls and the legend inserted
    before ``</body>`` (as its ``vtksz2html`` inserts a scene)."""
    _, viewer, _ = _serializers()
    fem = {"scene": base64.b64encode(data).decode(), "counts": counts, "labels": labels,
           "frames": frames, "legend": legend, "title": title, "note": note}
    # "</" never appears inside the script's JSON (it would end the script element)
    blob = json.dumps(fem).replace("</", "<\\/")
    page = Path(viewer).read_text(encoding="utf-8")
    at = page.rfind("</body>")
    if at < 0:
        raise ModelError(f"fem view: the viewer page {viewer} has no </body>")
    head = page[:at].replace("<title>VTK.js | Example - OfflineLocalView</title>",
                             f"<title>{html.escape(title)}</title>")
    return head + _CONTROLS.replace("__FEM__", blob) + page[at:]
