"""Solid cross sections: area and second moments of a rectangle and a circle."""

from __future__ import annotations

import numpy as np

from ..core.validate import positive

__all__ = ["rectangle_section", "circle_section"]


def rectangle_section(width: float, height: float) -> dict[str, float]:
    """Area and second moments of a solid ``width × height`` rectangle [m², m⁴]."""
    width = positive(width, "rectangle section: width", "m")
    height = positive(height, "rectangle section: height", "m")
    A = width * height
    return {"area": A, "iy": width * height**3 / 12, "iz": height * width**3 / 12}


def circle_section(radius: float) -> dict[str, float]:
    """Area and second moment of a solid circle [m², m⁴]."""
    radius = positive(radius, "circle section: radius", "m")
    A = np.pi * radius**2
    return {"area": A, "iy": np.pi * radius**4 / 4, "iz": np.pi * radius**4 / 4}
