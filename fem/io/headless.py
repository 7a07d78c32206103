"""Rendering without a display: how PyVista/VTK get an off-screen window.

:func:`ensure_offscreen` (called before any plotter is made, :func:`fem.io.render.new_plotter`)
sets ``pyvista.OFF_SCREEN = True`` and, when there is no ``DISPLAY``/``WAYLAND_DISPLAY``,
picks the VTK render window through ``VTK_DEFAULT_OPENGL_WINDOW`` (unless the user set it
already):

1. ``vtkEGLRenderWindow`` if ``libEGL`` is installed (Mesa's software rasterizer llvmpipe
   does the work: Debian packages ``libegl1 libgl1-mesa-dri``),
2. else ``vtkOSOpenGLRenderWindow`` if ``libOSMesa`` is installed (``libosmesa6``),
3. else, if an ``Xvfb`` binary exists, a private virtual X server is started and ``DISPLAY``
   set (needs ``xvfb libgl1 libglx-mesa0 libgl1-mesa-dri``),
4. else a ``RuntimeError`` says what to install.

VTK older than 9.4 cannot choose its window at run time; there the virtual X server (3.) is
the only headless route.

The VTK ≥ 9.4 wheels (pip ``vtk``) link no system graphics library; they load X11, EGL or
OSMesa at run time, and VTK falls back from EGL to OSMesa by itself if EGL cannot make a
context.  Choosing the window explicitly matters: left to itself VTK first probes X11 and,
with ``libX11`` absent, crashes (VTK 9.7).  Minimal install on Debian 12 / Ubuntu
(python:3.11-slim images)::

    apt-get update && apt-get install -y --no-install-recommends libegl1 libgl1-mesa-dri
    # or, instead:   apt-get install -y --no-install-recommends libosmesa6
"""

from __future__ import annotations

import atexit
import ctypes.util
import os
import shutil
import subprocess
import sys
import time as _time
from pathlib import Path

__all__ = ["ensure_offscreen"]


_BACKEND: str | None = None


_XVFB: subprocess.Popen | None = None


_INSTALL_HINT = (
    "no way to render without a display: install EGL "
    "(apt-get install -y --no-install-recommends libegl1 libgl1-mesa-dri) or OSMesa "
    "(apt-get install -y --no-install-recommends libosmesa6), or run under xvfb-run"
)


# ---------------------------------------------------------------------- headless setup
def ensure_offscreen() -> str:
    """Prepare PyVista/VTK for off-screen rendering; return the backend used.

    Returns
    -------
    str
        ``"display"`` (a display is available), ``"env"`` (``VTK_DEFAULT_OPENGL_WINDOW`` was
        already set), ``"egl"``, ``"osmesa"`` or ``"xvfb"``.  See the module docstring for the
        order and the system packages each needs.

    Raises
    ------
    RuntimeError
        If none of EGL, OSMesa or Xvfb is available on a machine without a display.
    """
    global _BACKEND
    import pyvista as pv

    pv.OFF_SCREEN = True
    if _BACKEND is not None:
        return _BACKEND
    if not sys.platform.startswith("linux") or os.environ.get("DISPLAY"):
        _BACKEND = "display"
    elif os.environ.get("WAYLAND_DISPLAY"):
        _BACKEND = "display"
    elif os.environ.get("VTK_DEFAULT_OPENGL_WINDOW"):
        _BACKEND = "env"
    elif tuple(pv.vtk_version_info) < (9, 4):  # older wheels: X only, so a virtual X server
        if not shutil.which("Xvfb"):
            raise RuntimeError(f"VTK {pv.vtk_version_info} renders through X only: {_INSTALL_HINT}")
        _start_xvfb()
        _BACKEND = "xvfb"
    elif ctypes.util.find_library("EGL"):
        os.environ["VTK_DEFAULT_OPENGL_WINDOW"] = "vtkEGLRenderWindow"
        _BACKEND = "egl"
    elif ctypes.util.find_library("OSMesa"):
        os.environ["VTK_DEFAULT_OPENGL_WINDOW"] = "vtkOSOpenGLRenderWindow"
        _BACKEND = "osmesa"
    elif shutil.which("Xvfb"):
        _start_xvfb()
        _BACKEND = "xvfb"
    else:
        raise RuntimeError(_INSTALL_HINT)
    return _BACKEND


def needs_server() -> bool:
    """Whether rendering here would start a virtual X server (no display, no EGL or
    OSMesa): a process that renders for another should not, since the server is
    stopped when the process that started it exits normally."""
    if _BACKEND is not None:
        return _BACKEND == "xvfb"
    if not sys.platform.startswith("linux") or os.environ.get("DISPLAY") \
            or os.environ.get("WAYLAND_DISPLAY") or os.environ.get("VTK_DEFAULT_OPENGL_WINDOW"):
        return False
    if _vtk_version() < (9, 4):
        return True
    return not (ctypes.util.find_library("EGL") or ctypes.util.find_library("OSMesa"))


def _vtk_version() -> tuple[int, ...]:
    """VTK's version, read without loading PyVista (a second in the run's own process,
    which asks only whether the worker beside it may render)."""
    import vtkmodules

    try:
        return tuple(int(v) for v in str(vtkmodules.__version__).split(".")[:2])
    except (AttributeError, ValueError):     # no version there: ask VTK itself
        from vtkmodules.vtkCommonCore import vtkVersion

        return (vtkVersion.GetVTKMajorVersion(), vtkVersion.GetVTKMinorVersion())


def _start_xvfb() -> None:
    """Start a virtual X server on a free display number and point DISPLAY at it."""
    global _XVFB
    for number in range(99, 199):
        if Path(f"/tmp/.X11-unix/X{number}").exists() or Path(f"/tmp/.X{number}-lock").exists():
            continue
        proc = subprocess.Popen(
            ["Xvfb", f":{number}", "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):  # up to 5 s for the socket
            if Path(f"/tmp/.X11-unix/X{number}").exists() or proc.poll() is not None:
                break
            _time.sleep(0.05)
        if proc.poll() is None:
            _XVFB = proc
            atexit.register(proc.terminate)
            os.environ["DISPLAY"] = f":{number}"
            return
    raise RuntimeError("could not start Xvfb; " + _INSTALL_HINT)
