"""Cameras as data, and framing a picture with them.

A camera is a named view (``"iso"``, ``"xy"``, ``"xz"``, ``"yz"``) or a mapping with
``view``, ``direction`` and ``up`` (:func:`camera_axes`); a model's pictures take theirs
from its view and gravity (:func:`camera_for`), a small plate beside its robot a close-up
seen from low (:func:`close_up`, :func:`low_camera`).  :func:`set_camera` and
:func:`fit_view` point a plotter's camera and fit the picture to what it shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from fem.core.errors import ModelError
from fem.core.validate import CAMERAS

if TYPE_CHECKING:
    import pyvista as pv

__all__ = ["camera_axes", "view_up", "set_camera", "fit_view", "camera_for", "low_camera",
           "close_up"]


# Named views: the direction from the scene towards the camera and the screen's up.
_DIRECTIONS = {"iso": ((1.0, 1.0, 1.0), (0.0, 0.0, 1.0)), "xy": ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0)),
               "xz": ((0.0, -1.0, 0.0), (0.0, 0.0, 1.0)), "yz": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0))}


def camera_axes(camera: str | Mapping) -> tuple[np.ndarray, np.ndarray]:
    """The viewing direction (unit, from the scene towards the camera) and the screen's up
    vector (unit, perpendicular to it) of a camera given as data.

    Parameters
    ----------
    camera : str or mapping
        A named view, ``"iso"``, ``"xy"`` (along −z, y up), ``"xz"`` (along +y, z up) or
        ``"yz"`` (along −x, z up); or a mapping with ``"view"`` (a named view) and/or
        ``"direction"`` (3-vector towards the camera) and optionally ``"up"`` (3-vector:
        what points up on the screen, e.g. against gravity; ignored when parallel to the
        direction).

    Returns
    -------
    direction, up : (3,) ndarray
    """
    from fem.core.validate import vector3

    if isinstance(camera, str):
        camera = {"view": camera}
    check_keys(camera, "camera", ("view", "direction", "up"),
          f"a camera is a named view ({', '.join(CAMERAS)}) or a mapping")
    view = camera.get("view", "iso")
    if view not in _DIRECTIONS:
        raise ModelError(f"unknown camera '{view}'; choose one of {', '.join(CAMERAS)}")
    direction, up = (np.asarray(v, float) for v in _DIRECTIONS[view])
    if camera.get("direction") is not None:
        direction = vector3(camera["direction"], "camera: direction")
    if camera.get("up") is not None:
        given = vector3(camera["up"], "camera: up")
        if np.linalg.norm(np.cross(given, direction)) > 1e-6 * np.linalg.norm(given) \
                * np.linalg.norm(direction):
            up = given
    norm = np.linalg.norm(direction)
    if norm == 0:
        raise ModelError("camera: direction must not be zero")
    direction = direction / norm
    up = up - (up @ direction) * direction
    if np.linalg.norm(up) < 1e-9:     # the default up along the direction: take another
        up = np.cross(direction, [1.0, 0.0, 0.0])
        if np.linalg.norm(up) < 1e-9:
            up = np.cross(direction, [0.0, 1.0, 0.0])
    return direction, up / np.linalg.norm(up)


def view_up(view: str) -> tuple[float, float, float]:
    """What points up on the screen in a named view (``"xy"``: y; the others: z)."""
    if view not in _DIRECTIONS:
        raise ModelError(f"unknown camera '{view}'; choose one of {', '.join(CAMERAS)}")
    return _DIRECTIONS[view][1]


def set_camera(plotter: pv.Plotter, camera: str | Mapping | Sequence, bounds: list[float],
                samples: np.ndarray | None = None, fill: float = 0.8) -> None:
    if isinstance(camera, str | Mapping):
        direction, up = camera_axes(camera)
        lo, hi = np.array(bounds[::2]), np.array(bounds[1::2])
        focal = (lo + hi) / 2
        distance = 3.0 * max(float(np.linalg.norm(hi - lo)), 1e-9)
        plotter.camera_position = [tuple(focal + distance * direction), tuple(focal),
                                   tuple(up)]
        plotter.reset_camera(bounds=bounds)
        if samples is None or not len(samples):
            samples = np.array([[x, y, z] for x in bounds[:2] for y in bounds[2:4]
                                for z in bounds[4:]])
        fit_view(plotter, samples, fill, right=0.62 if plotter.scalar_bars.keys() else 1.0)
    else:  # an explicit pyvista camera position is used as given
        plotter.camera_position = camera


def fit_view(plotter: pv.Plotter, corners: np.ndarray, fill: float = 0.8,
         right: float = 1.0) -> None:
    """Centre the points ``corners`` (k, 3) in the view and zoom until they fill ``fill``
    of it (reset_camera fits the bounding sphere, which leaves wide margins around a
    long, thin robot).  ``right`` < 1 keeps the right of the view (view coordinates
    ``right`` … 1, e.g. for a colour bar) free."""
    renderer = plotter.renderer
    cam = plotter.camera
    aspect = plotter.window_size[0] / plotter.window_size[1]
    target_x = (-1.0 + right) / 2
    width = (right + 1.0) / 2                  # half-width of the free region

    corners = np.asarray(corners, dtype=float).reshape(-1, 3)
    homogeneous = np.column_stack([corners, np.ones(len(corners))])

    def projected() -> np.ndarray:
        # what vtkViewport.WorldToView does point by point, for all points at once
        matrix = cam.GetCompositeProjectionTransformMatrix(
            renderer.GetTiledAspectRatio(), -1.0, 1.0)
        m = np.array([[matrix.GetElement(i, j) for j in range(4)] for i in range(4)])
        h = homogeneous @ m.T
        return h[:, :2] / h[:, 3:4]            # view coordinates in [-1, 1]

    def shift(by: np.ndarray) -> None:
        focal, position = np.array(cam.focal_point), np.array(cam.position)
        distance = np.linalg.norm(position - focal)
        direction = (focal - position) / distance
        x_axis = np.cross(direction, np.array(cam.up))
        x_axis /= np.linalg.norm(x_axis)
        y_axis = np.cross(x_axis, direction)
        half_h = distance * np.tan(np.radians(cam.view_angle) / 2)
        move = by[0] * half_h * aspect * x_axis + by[1] * half_h * y_axis
        cam.focal_point = tuple(focal + move)
        cam.position = tuple(position + move)

    for _ in range(3):          # perspective: a few passes converge
        ndc = projected()
        lo, hi = ndc.min(axis=0), ndc.max(axis=0)
        shift(0.5 * (lo + hi))
        half = (hi - lo) / 2
        scale = min(fill * width / half[0] if half[0] > 0 else np.inf,
                    fill / half[1] if half[1] > 0 else np.inf)
        if np.isfinite(scale):
            cam.zoom(scale)
    ndc = projected()
    centre = 0.5 * (ndc.min(axis=0) + ndc.max(axis=0))
    shift(centre - np.array([target_x, 0.0]))
    renderer.ResetCameraClippingRange()


def check_keys(value: Any, what: str, allowed: Sequence[str], kind: str) -> None:
    """Check that ``value`` is a mapping with no keys but ``allowed`` (picture settings
    as data: a camera, a close-up); ``kind`` says what it should be."""
    if not isinstance(value, Mapping):
        raise ModelError(f"{kind} with {', '.join(map(repr, allowed))}; got {value!r:.80}")
    unknown = set(value) - set(allowed)
    if unknown:
        raise ModelError(f"{what}: unknown keys {sorted(unknown)}; use "
                         f"{', '.join(map(repr, allowed))}")


def camera_for(view: str, gravity=None) -> str | dict:
    """The camera of a model's pictures as data: its named ``view`` and, under gravity,
    the screen's up against it (a falling arm falls down the picture; ignored for a view
    along gravity).  The name alone when that is the view's own up (``"iso"`` under
    gravity −z, ``"xy"`` under −y).  See :func:`fem.io.cameras.camera_axes`."""
    camera: dict = {"view": view}
    g = np.zeros(3) if gravity is None else np.asarray(gravity, float).ravel()
    if g.size == 3 and np.linalg.norm(g) > 0:
        camera["up"] = [float(v) for v in -g / np.linalg.norm(g)]
    if np.allclose(camera_axes(camera)[1], camera_axes(view)[1], atol=1e-12):
        return view
    return camera


def low_camera(camera: str | dict, elevation_deg: float) -> dict:
    """``camera`` turned about the screen's horizontal so that it looks from
    ``elevation_deg`` above the plane normal to its up vector (a plate's sag reads from
    low, not from above); unchanged when it looks along its up vector."""
    camera = {"view": camera} if isinstance(camera, str) else camera
    direction, _ = camera_axes(camera)
    up = np.asarray(camera.get("up") or view_up(camera.get("view", "iso")), float)
    up = up / np.linalg.norm(up)
    level = direction - (direction @ up) * up
    if np.linalg.norm(level) < 1e-6:
        return dict(camera)
    a = np.radians(elevation_deg)
    turned = np.cos(a) * level / np.linalg.norm(level) + np.sin(a) * up
    return {**camera, "direction": [float(v) for v in turned], "up": [float(v) for v in up]}


def close_up(camera: str | dict, ref: np.ndarray, surfaces: list[tuple[str, np.ndarray]]
             ) -> dict | None:
    """The ``detail`` of a movie (:func:`fem.io.movies.animate`): the surfaces (``(group
    name, reference points)``) under a third of the size of the whole drawing ``ref``
    (a platform beside its robot), seen 25° above the horizontal so that a sag shows;
    None when every surface is large (or there is none)."""
    size = float(np.linalg.norm(np.ptp(ref, axis=0))) if len(ref) else 0.0
    small = [name for name, pts in surfaces
             if len(pts) and np.linalg.norm(np.ptp(pts, axis=0)) < size / 3]
    if not small:
        return None
    shown = dict.fromkeys(name.split(": ")[0] for name in small)   # "platform: platform"
    return {"groups": small, "camera": low_camera(camera, 25.0),
            "title": "close-up: " + ", ".join(shown)}
