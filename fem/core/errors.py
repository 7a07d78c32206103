"""Exceptions a user of the framework meets.

Every user mistake (bad element name, non-physical material, degenerate geometry,
inconsistent constraints) raises :class:`ModelError` with a message naming the object
and what to change.  Solver failures raise :class:`ConvergenceError`, which is also a
``ModelError`` so one ``except fem.ModelError`` catches everything the user can act on.
"""

from __future__ import annotations

from collections.abc import Callable


class ModelError(ValueError):
    """The model as described cannot be built or solved; the message says why."""


def refuse_first(bad, message: Callable[[int], str]) -> None:
    """Raise :class:`ModelError` with ``message(k)`` for the first index ``k`` at which the
    boolean array ``bad`` holds (an instant, a step); nothing where it holds nowhere."""
    if bad.any():
        raise ModelError(message(int(bad.argmax())))


class FemWarning(UserWarning):
    """Something was done for the user that changes their input (an initial state
    projected onto the constraints, a load step cut): the message says what and by how
    much."""


class ConvergenceError(ModelError):
    """A Newton iteration diverged or stalled.

    Attributes
    ----------
    where : str
        Which solver and which step/time.
    residuals : list[float]
        Residual norms of the iterations that were made.
    """

    def __init__(self, message: str, where: str = "", residuals: list[float] | None = None):
        super().__init__(message)
        self.where = where
        self.residuals = list(residuals or [])


class SingularMatrixError(ModelError):
    """A system matrix could not be factorized.  Solvers turn it into a diagnosis
    (:mod:`fem.solvers.diagnosis`): at the reference state it points to the model
    (redundant constraints, loose parts), after Newton moved the state to divergence."""


class Interrupted(KeyboardInterrupt):
    """A termination signal (SIGTERM, SIGHUP) turned into an interrupt, so that a run stops
    as it does on Ctrl-C: what was computed is kept and ``summary.json`` says
    "interrupted" (``fem.cli`` installs the handler)."""

    def __init__(self, signal_name: str = "SIGTERM"):
        super().__init__(signal_name)
        self.signal_name = signal_name
