"""Movies of a series, headless: one picture per frame into an MP4 (H.264) or a GIF.

MP4 files are encoded by the ffmpeg binary bundled with ``imageio-ffmpeg`` (no system
ffmpeg); without it, :func:`animate` writes a GIF instead.  The movie is written under a
private temporary name and renamed when complete, and checked after the encoder closes:
an interrupted or failed movie never sits under the final name.  Beside the 3D view a
movie may show a close-up of small parts and a :class:`HistoryPanel` of the actuators'
efforts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from fem.core.errors import ModelError
from fem.core.files import temporary_path
from fem.io.cameras import camera_axes, check_keys, set_camera
from fem.io.plots import curve_style
from fem.io.render import check_writable, new_plotter, video_window, write_reason
from fem.io.scenes import (
    Scene,
    add_caption,
    add_triad,
    build_scene,
    camera_samples,
    display_units,
    draw_scene,
    magnified_title,
    rescale_field,
    scalar_range,
    scene_bounds,
    smooth_shaded,
    unit_change,
    with_normals,
)
from fem.io.vtk import Frame, read_series

if TYPE_CHECKING:
    import pyvista as pv

__all__ = ["HistoryPanel", "animate"]


def _same_topology(shown: list, scene: Scene) -> bool:
    if len(shown) != len(scene.parts):
        return False
    return all(ds.n_points == poly.n_points and ds.n_cells == poly.n_cells
               for ds, (_, poly) in zip(shown, scene.parts, strict=True))


def _frame_time(item: Any, index: int) -> float:
    """The time of a frame, or its index where it has none (e.g. a meshio mesh)."""
    if isinstance(item, Frame):
        return float(item.time)
    if isinstance(item, Mapping) and "time" in item:
        return float(item["time"])
    return float(index)


def _check_movie(path: Path, final: Path) -> None:
    """Make sure the encoder wrote a readable movie: imageio does not report ffmpeg's
    exit status, so a full disk would leave a truncated MP4 (no index) behind.  A stream
    copy to nowhere reads the container without decoding (a few ms)."""
    if path.suffix.lower() != ".mp4":
        return          # GIFs are written in this process: failures raise
    try:
        import imageio_ffmpeg

        exe = imageio_ffmpeg.get_ffmpeg_exe()
    except Exception:   # noqa: BLE001 - no ffmpeg to check with (it wrote the file though)
        return
    proc = subprocess.run([exe, "-v", "error", "-i", str(path), "-map", "0:v:0", "-c",
                           "copy", "-f", "null", "-"], capture_output=True, text=True,
                          timeout=120, check=False)
    if proc.returncode != 0:
        said = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip()]
        reason = (write_reason(None, final) or "the encoder (ffmpeg) failed and left an "
                  "unreadable file (a full disk or a file size limit?)")
        detail = f"; ffmpeg: {said[-1][:200]}" if said else ""
        raise ModelError(f"cannot write the movie {final}: {reason}{detail}")


def _open_writer(path: Path, fps: float) -> tuple[Any, Path]:
    """An imageio writer: MP4 through imageio-ffmpeg, else (or if asked) GIF."""
    import imageio.v2 as iio

    if path.suffix.lower() != ".gif":
        try:
            import imageio_ffmpeg

            imageio_ffmpeg.get_ffmpeg_exe()
            writer = iio.get_writer(
                path.with_suffix(".mp4"),
                format="FFMPEG",
                mode="I",
                fps=fps,
                codec="libx264",
                pixelformat="yuv420p",
                macro_block_size=16,
                ffmpeg_log_level="error",
                # x264's "ultrafast": the encoder runs beside the frames' drawing and
                # shares the cores with it, and at "veryfast" it took the largest share
                # of a small movie's CPU (6 ms a frame of 800 × 608 against 3.5 to draw
                # it); "ultrafast" takes half of that, the file about four times larger
                # (the double pendulum's 92 frames: 313 against 82 kB) and no less
                # faithful to the drawn frames (constant quality, CRF 23)
                output_params=["-preset", "ultrafast"],
            )
            return writer, path.with_suffix(".mp4")
        except Exception:  # no ffmpeg binary or codec: fall back to GIF below
            pass
    gif = path.with_suffix(".gif")
    return iio.get_writer(gif, mode="I", duration=1000.0 / fps, loop=0), gif


@dataclass
class HistoryPanel:
    """Time histories drawn beside the 3D view of an animation (the robot's actuator
    torques), with a marker moving with each frame's time.

    Parameters
    ----------
    time : (m,) array_like
        Times of the values [s].
    series : mapping label -> (m,) values
        One curve each (colour × line style, :func:`fem.io.plots.curve_style`).
    ylabel : str
        With its unit, e.g. ``"actuator torque [N·m]"``.
    title : str
    width : float
        Panel width as a fraction of the picture height.
    """

    time: npt.ArrayLike
    series: Mapping[str, npt.ArrayLike]
    ylabel: str = ""
    title: str = ""
    width: float = 0.75
    _figure: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.time = np.asarray(self.time, dtype=float).ravel()
        series = {}
        for label, values in self.series.items():
            y = np.asarray(values, dtype=float).ravel()
            if len(y) != len(self.time):
                raise ModelError(f"history panel: '{label}' has {len(y)} values for "
                                 f"{len(self.time)} times")
            series[str(label)] = y
        if not series:
            raise ModelError("history panel: no series to draw")
        self.series = series

    def pixels(self, height: int) -> int:
        """Panel width in pixels for a picture ``height`` pixels high (a multiple of 16)."""
        return max(16, int(round(self.width * height / 16)) * 16)

    def image(self, t: float, width: int, height: int) -> np.ndarray:
        """The panel at time ``t`` as an RGB image (height, width, 3).

        The curves, axes and legend are drawn once; each frame restores that picture and
        draws only the moving marker and dots on it (a full redraw of the figure per
        frame took half of a robot movie's rendering)."""
        if self._figure is None or self._figure[0] != (width, height):
            fig, marker, dots = self.draw_scene(width, height)
            for artist in (marker, *dots):
                artist.set_animated(True)       # left out of the drawing of the rest
            fig.canvas.draw()
            self._figure = ((width, height), fig, marker, dots,
                            fig.canvas.copy_from_bbox(fig.bbox))
        _, fig, marker, dots, background = self._figure
        marker.set_xdata([t, t])
        for dot, y in zip(dots, self.series.values(), strict=True):
            dot.set_data([t], [np.interp(t, self.time, y)])
        fig.canvas.restore_region(background)
        ax = marker.axes
        for artist in (marker, *dots):
            ax.draw_artist(artist)
        rgba = np.asarray(fig.canvas.buffer_rgba())
        out = np.full((height, width, 3), 255, dtype=np.uint8)
        h, w = min(height, rgba.shape[0]), min(width, rgba.shape[1])
        for c in range(3):      # plane by plane: copying 3 bytes of every 4 at once is
            out[:h, :w, c] = rgba[:h, :w, c]        # about 7 times slower in NumPy
        return out

    def draw_scene(self, width: int, height: int):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        dpi = 100.0
        fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        size = max(8.0, min(width, 1.3 * height) / 48)
        dots = []
        for k, (label, y) in enumerate(self.series.items()):
            colour, style = curve_style(k)
            ax.plot(self.time, y, linestyle=style, color=colour, lw=1.6, label=label)
            dots.append(ax.plot([], [], "o", color=colour, ms=size * 0.7)[0])
        marker = ax.axvline(self.time[0], color="black", lw=1.0)
        ax.set_xlim(self.time[0], self.time[-1] if self.time[-1] > self.time[0]
                    else self.time[0] + 1.0)
        ax.set_xlabel("time [s]", fontsize=size)
        ax.set_ylabel(self.ylabel, fontsize=size)
        ax.tick_params(labelsize=size * 0.9)
        ax.ticklabel_format(axis="y", useOffset=False)
        if self.title:
            ax.set_title(self.title, fontsize=size * 1.1)
        ax.grid(True, alpha=0.3)
        rows = -(-len(dots) // 3)                   # legend rows below the time axis
        line = 1.45 * size * dpi / 72               # a text line in pixels
        fig.legend(loc="lower center", ncol=min(3, len(dots)), fontsize=size * 0.9,
                   frameon=False, borderaxespad=0.2)
        fig.subplots_adjust(left=min(0.3, 5.5 * line / width), right=0.95,
                            top=1 - 2.0 * line / height,
                            bottom=min(0.5, (2.8 + 1.1 * rows) * line / height))
        return fig, marker, dots


def animate(
    frames: Any,
    path: str | Path,
    fps: float = 20.0,
    *,
    scalars: str | None = None,
    camera: str | Sequence = "iso",
    warp: str | bool | None = None,
    scale: float = 1.0,
    tube_radius: float | None = None,
    window_size: Sequence[int] = (960, 720),
    clim: Sequence[float] | None = None,
    cmap: str = "viridis",
    show_edges: bool = True,
    title: str | None = "t = {time:.3f} s",
    stride: int = 1,
    background: str = "white",
    deform: str | None = None,
    factor: float = 1.0,
    triad: bool = True,
    times: Sequence[float] | None = None,
    panel: HistoryPanel | None = None,
    detail: Mapping | None = None,
    progress: Callable[[int], object] | None = None,
    workers: int | None = None,
) -> tuple[Path, int]:
    """Render frames into a video, headless: MP4 (H.264) or, as a fallback, GIF.

    Parameters
    ----------
    frames
        A sequence of frames (anything :func:`fem.io.render.snapshot` accepts, one item per
        frame), or the path of a ``.pvd`` collection (re-rendering a stored series).
    path : str or Path
        Output file; ``.gif`` asks for a GIF, anything else for MP4.  If no ffmpeg is
        available (imageio-ffmpeg bundles one) a GIF is written next to it instead.
    fps : float
        Frames per second of the video.
    title : str, optional
        Per-frame caption, formatted with ``time`` and ``index`` (``None`` for none).
    stride : int
        Render every `stride`-th frame.
    times : sequence of float, optional
        Time of each frame (default: the frames' own, or their index).
    panel : HistoryPanel, optional
        Histories drawn to the right of the 3D view (which keeps `window_size`), with a
        marker at each frame's time: the movie is wider by :meth:`HistoryPanel.pixels`.
    detail : mapping, optional
        A close-up beside the 3D view (above the panel): ``{"groups": [names], "camera":
        camera (default: the main one), "title": text}`` — the frames' groups
        (``group:<name>`` field data) it is fitted to, e.g. a platform small beside its
        robot.  The same scene, seen closer; frames without those groups have none.
    progress : callable, optional
        Called with 1 after each rendered frame (a progress bar's ``update``).
    workers : int, optional
        Processes building and drawing the frames, each every ``workers``-th frame on
        its own off-screen plotter; the movie holds the frames in order, the same as
        drawn by one.  Default: one per core
        (``FEM_RENDER_WORKERS`` overrides), at most one per 8 frames; 1 draws them in
        this process (also where processes cannot be forked).
    scalars, camera, warp, scale, tube_radius, window_size, clim, cmap, show_edges
        As in :func:`fem.io.render.snapshot`.  The camera and the colour range are fixed
        over the whole animation (fitted to all frames), so motion and colours compare
        between frames.
    deform, factor, triad
        As in :func:`fem.io.render.snapshot`; with `deform` the caption states the
        magnification.

    Returns
    -------
    path : Path
        The file actually written (``.mp4`` or ``.gif``).
    n_frames : int
        Number of frames rendered into it.

    Notes
    -----
    Works without a display (see :func:`fem.io.headless.ensure_offscreen`).  GIF encoders may merge
    consecutive identical frames.
    """
    if isinstance(frames, str | os.PathLike) and str(frames).endswith(".pvd"):
        times, items = read_series(frames, skip_unreadable=True)
    else:
        items = list(frames)
        if times is None:
            times = [_frame_time(item, i) for i, item in enumerate(items)]
        elif len(times) != len(items):
            raise ModelError(f"animate: {len(times)} times for {len(items)} frames")
    if not items:
        raise ModelError("animate: no frames to render")
    selected = range(0, len(items), max(int(stride), 1))
    close_up = _close_up(detail)

    from fem.core.validate import in_range

    fps = in_range(fps, "animate: fps (frames per second)", 0.0, 1000.0, low_open=True)
    path = Path(path)
    check_writable(path.parent, path)
    build = (scalars, warp, scale, tube_radius, deform, factor,
             close_up["groups"] if close_up else ())
    n_workers = _worker_count(len(selected), workers)
    # several workers build the scenes of their frames, and here only their outlines
    crew = _Crew(items, list(selected), build, n_workers) if n_workers > 1 else None
    count = 0
    done = False
    writer = partial = renderer = None
    try:
        # rendered to a private temporary name, renamed when complete: an interrupted or
        # failed movie never sits under the final name; the encoder starts while the
        # workers build their scenes (after they are forked: they must not inherit its
        # pipe)
        writer, partial = _open_writer(temporary_path(path, keep_suffix=True), fps)
        written = path.with_suffix(partial.suffix)
        job, change = _fitted(crew.outlines() if crew is not None else
                              [build_scene(items[i], *build) for i in selected],
                              times, selected, window_size=window_size, background=background,
                              clim=clim, cmap=cmap, show_edges=show_edges, camera=camera,
                              close_up=close_up, triad=triad,
                              title=magnified_title(title, deform, factor), panel=panel)
        if crew is None:
            renderer = _FrameRenderer(job)
        images = (renderer.image(k) for k in range(len(job.scenes))) if crew is None else \
            crew.images(job, change)
        for image in images:
            try:
                writer.append_data(image)
            except Exception as err:        # ffmpeg died: a full disk, a broken pipe
                raise ModelError(f"cannot write the movie {written}: "
                                 f"{write_reason(err, written)}") from None
            count += 1
            if progress is not None:
                progress(1)
        try:
            writer.close()
        except Exception as err:            # the encoder's final write failed
            raise ModelError(f"cannot write the movie {written}: "
                             f"{write_reason(err, written)}") from None
        _check_movie(partial, written)      # ffmpeg's own exit status is not reported
        try:
            os.replace(partial, written)
        except OSError as err:
            raise ModelError(f"cannot write the movie {written}: "
                             f"{write_reason(err, written)}") from None
        done = True
    finally:
        if renderer is not None:
            renderer.close()
        if crew is not None:
            crew.stop()
        if not done and writer is not None:
            with contextlib.suppress(Exception):
                writer.close()
            partial.unlink(missing_ok=True)     # never a truncated movie left behind
    return written, count


def _fitted(scenes: list, times: Sequence[float], selected: range, *, window_size, background,
            clim, cmap, show_edges, camera, close_up, triad, title, panel
            ) -> tuple[_Job, tuple | None]:
    """The job of a movie, its camera, colours and close-up fitted over all frames'
    ``scenes`` (or their outlines), and the colour field's change of unit
    (:func:`fem.io.scenes.unit_change`), which :func:`display_units` has made to them."""
    change = unit_change(scenes)
    clim = display_units(scenes, clim)
    colour_range = clim or scalar_range(scenes)
    bounds = scene_bounds(scenes)
    detail_points = np.concatenate([p for s in scenes for p in s.detail]) if close_up and \
        any(s.detail for s in scenes) else None

    # the column right of the 3D view: the close-up above the history panel
    height = video_window(window_size)[1]
    column = 0
    if panel is not None:
        column = panel.pixels(height)
    elif detail_points is not None:
        column = max(16, int(round(0.75 * height / 16)) * 16)
    inset_height = 0
    if detail_points is not None:
        inset_height = height if panel is None else max(16, int(round(0.45 * height / 16)) * 16)
    job = _Job(scenes=scenes, times=[float(times[i]) for i in selected],
               indices=list(selected), window_size=tuple(window_size), background=background,
               column=column, inset_height=inset_height, colour_range=colour_range,
               cmap=cmap, show_edges=show_edges, camera=camera, bounds=bounds,
               samples=_extreme(camera_samples(scenes)), close_up=close_up,
               detail_points=None if detail_points is None else _extreme(detail_points),
               triad=triad, title=title, panel=panel)
    return job, change


def _extreme(points: np.ndarray) -> np.ndarray:
    """The vertices of the convex hull of ``points`` (k, 3): the camera of a movie is
    fitted to where all frames' points project, and a projection's extremes lie on the
    hull, so the fit is the same with these few (the flagship: 64 000 points → about a
    hundred, the fit done in each process drawing frames 5 ms instead of 50); all the
    points where they span no volume (a planar mechanism)."""
    from scipy.spatial import ConvexHull, QhullError

    if len(points) < 64:
        return points
    try:
        return points[np.sort(ConvexHull(points).vertices)]
    except (QhullError, ValueError):
        return points


@dataclass
class _Job:
    """Everything the frames of one movie are drawn from (fitted over all frames)."""

    scenes: list
    times: list
    indices: list
    window_size: tuple
    background: str
    column: int
    inset_height: int
    colour_range: Any
    cmap: str
    show_edges: bool
    camera: Any
    bounds: list
    samples: np.ndarray
    close_up: dict | None
    detail_points: np.ndarray | None
    triad: bool
    title: str | None
    panel: HistoryPanel | None


class _FrameRenderer:
    """Draws the frames of a :class:`_Job`, in any order, on its own off-screen plotters:
    a frame whose parts have the topology of those on screen updates their points and
    data in place (re-adding actors per frame is slow; the datasets of the frame drawn
    anew are overwritten); another is drawn anew.  After the first frame, the picture
    of a frame does not depend on the frames drawn before it: frames drawn by several
    processes, each starting with the first frame, are those drawn by one."""

    def __init__(self, job: _Job) -> None:
        self.job = job
        # without multi-sampling: a third of the time per frame (see new_plotter)
        self.plotter = new_plotter(job.window_size, job.background, smooth_edges=False)
        self.inset = (new_plotter((job.column, job.inset_height), _INSET_BACKGROUND,
                                  smooth_edges=False) if job.inset_height else None)
        self.views = [self.plotter] if self.inset is None else [self.plotter, self.inset]
        self.shown: list | None = None    # the datasets on screen
        self.caption = None
        self.framed = False               # camera and triad set

    def close(self) -> None:
        for view in self.views:
            view.close()

    def image(self, k: int) -> np.ndarray:
        """The picture of the job's frame ``k`` (height, width, 3)."""
        job, plotter, inset = self.job, self.plotter, self.inset
        # the parts drawn smooth with their normals, computed here once for both views
        # (PyVista's normals filter ran in Python at each render of each view)
        scene = dataclasses.replace(job.scenes[k], parts=[
            (kind, with_normals(poly) if smooth_shaded(kind, poly, job.show_edges) else poly)
            for kind, poly in job.scenes[k].parts])
        if self.shown is not None and _same_topology(self.shown, scene):
            for ds, (_, poly) in zip(self.shown, scene.parts, strict=True):
                ds.ShallowCopy(poly)       # points, cells and data, by reference
        else:
            for view in self.views:
                for bar in list(view.scalar_bars.keys()):
                    view.remove_scalar_bar(bar)   # or add_mesh would not redraw it
                view.clear_actors()
            self.caption = None
            draw_scene(plotter, scene, job.colour_range, job.cmap, job.show_edges,
                       reset_camera=False, shaded=True)
            if inset is not None:       # the same datasets: updated together
                draw_scene(inset, scene, job.colour_range, job.cmap, job.show_edges,
                           reset_camera=False, bar=False, shaded=True)
                add_caption(inset, job.close_up["title"])
            # the datasets given to add_mesh (with their normals: PyVista puts no filter
            # between them and the mappers, whose cached output would keep the first
            # frame's colours)
            self.shown = [poly for _, poly in scene.parts]
        if not self.framed:
            set_camera(plotter, job.camera, job.bounds, job.samples)
            if inset is not None:
                set_camera(inset, job.close_up["camera"] or job.camera,
                           _box(job.detail_points), job.detail_points, fill=0.85)
            if job.triad:
                add_triad(plotter)
            self.framed = True
        if job.title:
            text = job.title.format(time=job.times[k], index=job.indices[k])
            if self.caption is None:
                add_caption(plotter, text)
                self.caption = plotter.actors.get("caption")
            else:
                self.caption.SetInput(text)        # a vtkTextActor
        image = _picture(plotter)
        if job.column:
            side = []
            if inset is not None:
                side.append(_picture(inset))
            if job.panel is not None:
                height = video_window(job.window_size)[1]
                side.append(job.panel.image(job.times[k], job.column,
                                            height - job.inset_height))
            image = np.hstack([image, np.vstack(side)])
        return image


# ---------------------------------------------------------------------- worker processes
_WORK: dict = {}
"""What the worker processes draw from (set before they are forked: they inherit it)."""


def _worker_count(n_frames: int, asked: int | None) -> int:
    """How many processes draw a movie's frames: ``asked``, or (None, 0) one per core
    this process may run on (``FEM_RENDER_WORKERS`` overrides), at most one per 8 frames;
    1 (drawn here) where processes cannot be forked (they inherit the frames)."""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    if not asked:
        env = os.environ.get("FEM_RENDER_WORKERS", "").strip()
        if env.isdigit() and int(env) > 0:
            asked = int(env)
        else:
            try:
                asked = len(os.sched_getaffinity(0))
            except AttributeError:       # not on Linux
                asked = os.cpu_count() or 1
            asked = min(asked, max(1, n_frames // 8))
    return max(1, min(int(asked), n_frames))


def _share(k: int, n_frames: int, n_workers: int) -> range:
    """The frames worker ``k`` of ``n_workers`` builds and draws: every ``n_workers``-th
    from its ``k``-th (each worker's frames spread over the whole movie, so that the
    workers finish together)."""
    return range(k, n_frames, n_workers)


class _Crew:
    """Forked processes that each build and draw their own share of a movie's frames
    (:func:`_share`) on their own off-screen plotters.  First every worker builds the
    scenes of its frames and sends their outlines (:func:`_outline`: extents, camera
    samples, value ranges), from which :func:`animate` fits the camera and colours over
    the whole movie as in one process; then each draws its frames in order, the first
    frame of the movie first (as one process does), and the pictures are read back in
    the movie's order.  Building the scenes (tubes around the links) is shared by the
    workers too, not done here before them."""

    def __init__(self, items: Sequence, selected: list[int], build: tuple,
                 n_workers: int) -> None:
        import multiprocessing
        import warnings

        context = multiprocessing.get_context("fork")
        self.n_frames = len(selected)
        self.links: list = []
        self.procs: list = []
        _WORK.clear()
        _WORK.update(items=items, selected=selected, build=build)
        try:
            with warnings.catch_warnings():  # (3.12+) a progress bar's monitor thread
                warnings.simplefilter("ignore", DeprecationWarning)
                for k in range(n_workers):
                    here, there = context.Pipe()
                    proc = context.Process(target=_crew_worker, daemon=True,
                                           args=(there, k, n_workers))
                    proc.start()
                    there.close()
                    self.links.append(here)
                    self.procs.append(proc)
        except BaseException:
            self.stop()
            raise
        finally:
            _WORK.clear()

    def _receive(self, k: int) -> Any:
        """The next message of worker ``k``; its error raised here."""
        try:
            kind, value = self.links[k].recv()
        except (EOFError, OSError):
            raise ModelError("a process drawing the movie's frames stopped (killed, or "
                             "out of memory); set FEM_RENDER_WORKERS=1 to draw them in "
                             "one process") from None
        if kind == "error":
            raise value
        return value

    def outlines(self) -> list:
        """The outlines of all frames' scenes, in the movie's order."""
        out: list = [None] * self.n_frames
        for k in range(len(self.links)):
            for i, outline in zip(_share(k, self.n_frames, len(self.links)),
                                  self._receive(k), strict=True):
                out[i] = outline
        return out

    def images(self, job: _Job, change: tuple | None):
        """The pictures of the frames, in the movie's order: ``job`` fitted over all
        frames and the colour field's ``change`` of unit (:func:`unit_change`)."""
        # without the outlines of every frame: each worker draws from its own scenes
        job = dataclasses.replace(job, scenes=[])
        for link in self.links:
            link.send((job, change))
        for i in range(self.n_frames):
            yield self._receive(i % len(self.links))

    def stop(self) -> None:
        """End the workers (at once: their work is done, or not wanted any more)."""
        for link in self.links:
            link.close()
        for proc in self.procs:
            if proc.is_alive():
                proc.terminate()
        for proc in self.procs:
            proc.join()
        self.links, self.procs = [], []


def _outline(scene: Scene) -> Scene:
    """What :func:`animate` needs of a scene drawn elsewhere: its extents, camera
    samples and close-up points, each colour array's finite least and largest value (the
    colour range and the unit of the whole movie are those of all values); no parts."""
    values = []
    for v in scene.values:
        finite = v[np.isfinite(v)]
        values.append(np.array([finite.min(), finite.max()]) if finite.size else finite)
    return Scene(parts=[], scalars=scene.scalars, boxes=scene.boxes, values=values,
                  samples=scene.samples, detail=scene.detail)


def _crew_worker(link: Any, k: int, n_workers: int) -> None:
    """Worker ``k`` of a :class:`_Crew`: builds the scenes of its frames (and of the
    first frame), sends their outlines, receives the fitted job and sends its frames'
    pictures in order; an error is sent, not raised."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C stops the parent, which ends us
    for name in ("SIGTERM", "SIGHUP"):               # the parent's handlers (a run records
        if hasattr(signal, name):                    # "interrupted") are not ours: the
            signal.signal(getattr(signal, name), signal.SIG_DFL)   # parent ends us so
    # one rasterizer thread per worker (Mesa's llvmpipe): the workers share the cores
    # already, and llvmpipe's threads wait for each other at every frame, which on a
    # busy machine doubled a movie's rendering time (the pixels are the same)
    os.environ.setdefault("LP_NUM_THREADS", "1")
    renderer = None
    try:
        items, selected, build = _WORK["items"], _WORK["selected"], _WORK["build"]
        mine = _share(k, len(selected), n_workers)
        scenes = {i: build_scene(items[selected[i]], *build) for i in mine}
        link.send(("outlines", [_outline(scenes[i]) for i in mine]))
        job, change = link.recv()
        if 0 not in scenes:
            scenes[0] = build_scene(items[selected[0]], *build)
        if change is not None:
            for scene in scenes.values():
                rescale_field(scene, *change)
        job.scenes = scenes
        renderer = _FrameRenderer(job)
        if mine[0] != 0:
            # drawn first, as in one process: the axes triad's labels are placed at the
            # first picture and keep that place (a few pixels apart otherwise)
            renderer.image(0)
        for i in mine:
            link.send(("image", renderer.image(i)))
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        pass                                         # the parent stopped: nothing to say
    except BaseException as err:                     # noqa: BLE001 - raised by the parent
        try:
            link.send(("error", err))
        except Exception:                            # noqa: BLE001 - not picklable
            link.send(("error", ModelError(f"{type(err).__name__}: {err}")))
    finally:
        if renderer is not None:
            renderer.close()
        link.close()


_INSET_BACKGROUND = "#f2f2f2"


def _close_up(detail: Mapping | None) -> dict | None:
    """The close-up of an animation, checked: ``{"groups": [...], "camera": ...,
    "title": ...}`` (see :func:`animate`); None for none."""
    if not detail:
        return None
    check_keys(detail, "animate: detail", ("groups", "camera", "title"),
          "a close-up is a mapping with 'groups' (names of the groups to show close up)")
    if not detail.get("groups"):
        raise ModelError("animate: detail needs 'groups' (names of the groups to show "
                         "close up)")
    groups = [detail["groups"]] if isinstance(detail["groups"], str) else list(detail["groups"])
    camera = detail.get("camera")
    if camera is not None:
        camera_axes(camera)
    return {"groups": tuple(str(g) for g in groups), "camera": camera,
            "title": str(detail.get("title") or "close-up: " + ", ".join(groups))}


def _box(points: np.ndarray) -> list[float]:
    """The bounds (xmin, xmax, ymin, ymax, zmin, zmax) of points, padded by 2 %."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    pad = 0.02 * max(float(np.max(hi - lo)), 1e-12)
    return [float(v) for pair in zip(lo - pad, hi + pad, strict=True) for v in pair]


def _picture(plotter: pv.Plotter) -> np.ndarray:
    """The plotter's current picture (height, width, 3), rendered: the window's front
    buffer read straight into an array, the pixels PyVista's ``screenshot`` gives (which
    copies them through an image filter: 2.5 against 0.9 ms for 800 × 608)."""
    if getattr(plotter, "_first_time", False):     # PyVista's first render of the window
        return np.asarray(plotter.screenshot(return_img=True))[..., :3]
    plotter.render()
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkCommonCore import vtkUnsignedCharArray

    window = plotter.render_window
    width, height = window.GetSize()
    pixels = vtkUnsignedCharArray()
    window.GetPixelData(0, 0, width - 1, height - 1, 1, pixels, 0)     # front buffer, RGB
    # a copy, top row first: the array must not outlive the VTK one whose memory it views
    return np.ascontiguousarray(vtk_to_numpy(pixels).reshape(height, width, 3)[::-1])
