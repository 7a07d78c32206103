"""Still pictures without a display: a PyVista plotter off screen and one picture of a
frame (:func:`snapshot`).

What a picture shows is built and drawn by :mod:`fem.io.scenes`, its camera by
:mod:`fem.io.cameras`; movies are :mod:`fem.io.movies`, history plots
:mod:`fem.io.plots`; rendering without a display (EGL, OSMesa, a private Xvfb) is
:mod:`fem.io.headless`.  Pictures and movies appear under their final names only when
complete (:func:`check_writable` first, so that a read-only folder is "cannot write").
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fem.core.errors import ModelError
from fem.core.files import temporary_path
from fem.io import scenes
from fem.io.cameras import set_camera
from fem.io.headless import ensure_offscreen

if TYPE_CHECKING:
    import pyvista as pv

__all__ = ["new_plotter", "snapshot", "check_writable"]


def video_window(window_size: Sequence[int]) -> tuple[int, int]:
    """Window size rounded up to multiples of 16 (what H.264 encoders want)."""
    w, h = (int(v) for v in window_size)
    return (-(-w // 16) * 16, -(-h // 16) * 16)


def prepare(movie_tools: bool = True) -> bool:
    """Load the renderer ahead: PyVista and VTK's OpenGL, text and interaction modules
    (1.5–2 s of imports, most of a snapshot's time), and the OpenGL driver, by drawing
    one tiny off-screen picture; with ``movie_tools``, also what a movie needs beside
    the renderer (:func:`load_movie_tools`).  The worker beside a ``fem run``
    (:mod:`fem.core.beside`) does it while the run solves, so that it renders the run's
    pictures at once (the movie tools after the rest, while the run does not wait).
    Returns False (nothing loaded) where rendering would start a virtual X server
    (:func:`fem.io.headless.needs_server`)."""
    from .headless import ensure_offscreen, needs_server

    if needs_server():
        return False
    ensure_offscreen()
    import pyvista as pv
    import pyvista.plotting  # noqa: F401
    import vtkmodules.vtkInteractionStyle  # noqa: F401
    import vtkmodules.vtkRenderingContextOpenGL2  # noqa: F401
    import vtkmodules.vtkRenderingFreeType  # noqa: F401
    import vtkmodules.vtkRenderingOpenGL2  # noqa: F401

    if movie_tools:
        load_movie_tools()
    # one tiny picture drawn and closed: the software OpenGL driver is loaded and set up
    # here, so the first window of a snapshot, and of each process forked to draw a
    # movie's frames, opens in ≈ 0.1 s instead of 0.3–0.45 s
    plotter = new_plotter((16, 16), "white", smooth_edges=False)
    try:
        plotter.add_mesh(pv.Triangle())
        plotter.render()
    finally:
        plotter.close()
    return True


def load_movie_tools() -> None:
    """What a movie needs beside the renderer: the encoder's writer and the hull the
    camera is fitted to (:func:`fem.io.movies.animate`), loaded ahead; missing ones are
    left to the movie to report or do without."""
    import contextlib

    with contextlib.suppress(Exception):
        import scipy.spatial  # noqa: F401
    with contextlib.suppress(Exception):
        import imageio.v2  # noqa: F401
        import imageio_ffmpeg

        imageio_ffmpeg.get_ffmpeg_exe()


def new_plotter(window_size: Sequence[int], background: str, *,
                smooth_edges: bool = True) -> pv.Plotter:
    """An off-screen plotter of ``window_size`` (rounded up to multiples of 16).

    Parameters
    ----------
    window_size : (width, height)
        Pixels.
    background : str
        Background colour.
    smooth_edges : bool
        Multi-sample anti-aliasing (PyVista's default, 8 samples asked, 4 given by Mesa's
        software rasterizer).  Without it a picture renders about three times faster in
        software, its edges a pixel stepped: movie frames go without (their encoding
        blurs the steps anyway), still pictures keep it.
    """
    ensure_offscreen()
    import pyvista as pv

    plotter = pv.Plotter(off_screen=True, window_size=list(video_window(window_size)))
    if not smooth_edges:
        plotter.render_window.SetMultiSamples(0)
    # translucent parts (a see-through ground) blended in one pass after the opaque ones,
    # without VTK's order-independent transparency: that pass doubled a robot frame's
    # render in software (24 → 11 ms, the flagship), and a scene's translucent parts are
    # single flat layers (a base plate, a wall), whose pixels it leaves the same
    plotter.renderer.SetUseOIT(False)
    # PyVista's layer for shadows, which no picture here casts: an empty renderer drawn
    # over every picture all the same (1.4 ms a frame of 800 × 608 in software)
    shadows = getattr(plotter.renderers, "shadow_renderer", None)
    if shadows is not None:
        plotter.render_window.RemoveRenderer(shadows)
    plotter.set_background(background)
    return plotter


def snapshot(
    frame_or_meshes: Any,
    path: str | Path,
    *,
    scalars: str | None = None,
    camera: str | Sequence = "iso",
    warp: str | bool | None = None,
    scale: float = 1.0,
    tube_radius: float | None = None,
    window_size: Sequence[int] = (1024, 768),
    clim: Sequence[float] | None = None,
    cmap: str = "viridis",
    show_edges: bool = True,
    title: str | None = None,
    background: str = "white",
    deform: str | None = None,
    factor: float = 1.0,
    triad: bool = True,
    contours: int = 0,
    normalized: str | None = None,
) -> Path:
    """Render one picture (PNG, or any format the extension asks VTK/PIL for) headless.

    Parameters
    ----------
    frame_or_meshes
        A :class:`fem.io.vtk.Frame` or frame mapping, a :class:`meshio.Mesh`, a
        :class:`fem.model.mesh.Mesh`, a PyVista dataset, a mesh file path, or a list of these.
    path : str or Path
        Output image.
    scalars : str, optional
        Point or cell data to colour by; vectors are shown by magnitude (``|name|``).
    camera : {"iso", "xy", "xz", "yz"}, mapping or camera position
        View direction: a named view, or ``{"view", "direction", "up"}``
        (:func:`fem.io.cameras.camera_axes`; e.g. ``up`` against gravity); the camera is
        fitted to the (warped) geometry.  A PyVista camera position is used as given.
    warp : str or bool, optional
        Point-data vector to displace the points by (``True`` means ``"displacement"``).
    scale : float
        Warp factor (exaggeration of the displacement).
    tube_radius : float, optional
        Draw line cells as tubes of this radius (in model units); plain lines otherwise.
    window_size : (width, height)
        Pixels (rounded up to multiples of 16).
    clim : (min, max), optional
        Colour range; the data range by default.
    title : str, optional
        Text in the upper-left corner.
    deform : str, optional
        Point-data vector (e.g. ``"deformation"``, the elastic part of the displacement)
        magnified `factor` times on top of the warp; the caption states the factor.
    factor : float
        Magnification of `deform`.
    triad : bool
        Draw an x/y/z axes triad in the lower-left corner.
    contours : int
        Level lines of the colour field drawn across surfaces (0: none).
    normalized : str, optional
        Colour by the field over its largest magnitude (0–1) under this colour-bar title
        (a mode shape, whose scale is arbitrary: :data:`fem.io.scenes.MODE_SHAPE`)
        instead of the field in its unit.

    Returns
    -------
    Path
        The image written.

    Notes
    -----
    Works without a display: see :func:`fem.io.headless.ensure_offscreen` for the backend
    choice and the system packages (EGL or OSMesa) it needs.
    """
    path = Path(path)
    check_writable(path.parent, path)
    plotter = _composed(frame_or_meshes, scalars=scalars, camera=camera, warp=warp,
                        scale=scale, tube_radius=tube_radius, window_size=window_size,
                        clim=clim, cmap=cmap, show_edges=show_edges, title=title,
                        background=background, deform=deform, factor=factor, triad=triad,
                        contours=contours, normalized=normalized)
    tmp = temporary_path(path, keep_suffix=True)     # the picture appears when complete
    try:
        plotter.screenshot(str(tmp))
        os.replace(tmp, path)
    except OSError as err:
        raise ModelError(f"cannot write the picture {path}: {write_reason(err, path)}"
                         ) from None
    finally:
        plotter.close()
        tmp.unlink(missing_ok=True)
    return path


def _composed(obj: Any, *, scalars, camera, warp, scale, tube_radius, window_size, clim,
              cmap, show_edges, title, background, deform, factor, triad,
              contours=0, normalized=None) -> pv.Plotter:
    """The off-screen plotter of one :func:`snapshot`, ready to render (caller closes)."""
    scene = scenes.build_scene(obj, scalars, warp, scale, tube_radius, deform, factor)
    if normalized:
        scenes.normalize([scene], normalized)
    else:
        clim = scenes.display_units([scene], clim)
    title = scenes.magnified_title(title, deform, factor)
    plotter = new_plotter(window_size, background)
    try:
        scenes.draw_scene(plotter, scene, clim or scenes.scalar_range([scene]), cmap,
                          show_edges, reset_camera=True, contours=contours)
        set_camera(plotter, camera, scenes.scene_bounds([scene]), scenes.camera_samples([scene]))
        if triad:
            scenes.add_triad(plotter)
        if title:
            scenes.add_caption(plotter, title)
    except BaseException:
        plotter.close()
        raise
    return plotter


def check_writable(folder: Path, target: Path) -> None:
    """Make ``folder`` and make sure a file can be written there, before any rendering:
    a read-only folder is "cannot write", not an ffmpeg broken pipe."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = temporary_path(folder / ".fem_render_probe")
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise ModelError(f"cannot write {target} (in {folder}): {err.strerror or err}; "
                         "render into a folder you can write to") from None


def write_reason(err: BaseException | None, path: Path) -> str:
    """Why writing ``path`` failed, in words: the disk is full, the folder is not
    writable, or the encoder's own message (its last lines); "" when none is known."""
    folder = path.parent
    try:
        if shutil.disk_usage(folder).free < 1 << 20:
            return "the disk is full"
    except OSError:
        pass
    if not os.access(folder, os.W_OK):
        return f"the folder {folder} is not writable"
    if err is None:
        return ""
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    text = [ln for ln in str(err).strip().splitlines() if ln.strip()]
    return f"{type(err).__name__}: {' '.join(text[:2])[:300]}" if text else type(err).__name__
