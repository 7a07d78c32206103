"""What a run's output does, as settings of the process: whether and how pictures are
made (:data:`OPTIONS`, set by ``fem run``'s flags), where the time went
(:data:`TIMING`), progress bars and warnings."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["OPTIONS", "OutputOptions", "TIMING", "progress_bar"]


@dataclass
class OutputOptions:
    render: bool = True      # write an animation
    every: int = 0           # VTK frame every N recorded steps (0: about max_vtk frames)
    max_vtk: int = 200
    progress: bool = True    # progress bars
    fps: int = 20
    max_frames: int = 120    # animation frames at most, 6 s at 20 fps (VTK keeps every frame)
    window_size: tuple = (800, 600)
    defer_render: bool = False   # `fem run`: render after summary.json is written
    pending: list = field(default_factory=list)   # deferred pictures (folder, kind)


OPTIONS = OutputOptions()


TIMING: dict[str, float] = {"run": 0.0, "writing": 0.0, "rendering": 0.0, "compiling": 0.0}
"""Wall time [s] of the last case's ``run()`` (:func:`fem.cases.run_case`), and the time
spent in it writing results (series frames, result arrays, plots of
:func:`fem.io.output.write_outputs`) and rendering pictures — for the terminal and
``summary.json`` of ``fem run`` only, never for a result."""


def warn(message: str) -> None:
    from ..core.validate import warn

    warn(message)


def progress_bar(total: int | None, desc: str, unit: str = "it",
                 enabled: bool | None = None):
    """A tqdm progress bar on stderr for ``fem`` commands, removed when done: shown only
    on a terminal (tqdm's ``disable=None``) and when ``enabled`` (default
    ``OPTIONS.progress``: off for ``--json``)."""
    from tqdm import tqdm

    on = OPTIONS.progress if enabled is None else enabled
    return tqdm(total=total, desc=desc, unit=unit, leave=False, dynamic_ncols=True,
                disable=None if on else True)
