"""Old home of the Bézier plate's continuity: now :mod:`fem.elements.bezier_plate`
(kept so that ``fem.plates.add_continuity`` and friends still work)."""

from .elements.bezier_plate.continuity import (  # noqa: F401
    add_continuity,
    continuity_counts,
    continuity_rows,
    independent_rows,
)

__all__ = ["add_continuity", "continuity_rows", "continuity_counts", "independent_rows"]
