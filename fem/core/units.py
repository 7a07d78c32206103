"""Units read from names: figure and parameter keys carry their unit as a suffix.

A key such as ``torque_Nm``, ``tip_z_m`` or ``omega0_rad_s`` ends with its unit
(``docs/user-guide.md``, the case contract).  :func:`split_unit` separates the quantity
from the unit, :func:`axis_label` writes the label a plot axis or a table column shows:

>>> axis_label("torque_Nm")
'torque [N·m]'
>>> axis_label("omega0_rad_s")
'omega0 [rad/s]'
>>> axis_label("n_elements")
'n elements'
"""

from __future__ import annotations

__all__ = ["SUFFIXES", "split_unit", "unit_of", "axis_label"]

SUFFIXES: dict[str, str] = {
    # two-token suffixes first (``rad_s`` before ``s``)
    "rad_s": "rad/s", "rad_s2": "rad/s²", "m_s": "m/s", "m_s2": "m/s²",
    "m": "m", "mm": "mm", "um": "µm", "m2": "m²", "m3": "m³", "m4": "m⁴", "mm2": "mm²",
    "s": "s", "ms": "ms", "hz": "Hz", "Hz": "Hz",
    "kg": "kg", "kgm3": "kg/m³", "kgm2": "kg·m²", "kgpm": "kg/m",
    "N": "N", "Nm": "N·m", "Nmm": "N·mm", "Nm2": "N·m²", "Npm": "N/m", "Nsm": "N·s/m",
    "Pa": "Pa", "MPa": "MPa", "GPa": "GPa",
    "J": "J", "uJ": "µJ", "W": "W",
    "rad": "rad", "deg": "deg", "radps": "rad/s", "radps2": "rad/s²",
    "mps": "m/s", "mps2": "m/s²",
}
"""Key suffix → unit as printed."""


def split_unit(key: str) -> tuple[str, str]:
    """``(quantity, unit)`` of a key: ``"tip_z_m"`` → ``("tip_z", "m")``; ``(key, "")``
    when the key ends in no known unit.  A key that is only a unit (``"m"``) has none."""
    parts = key.split("_")
    for n in (2, 1):
        if len(parts) > n:
            suffix = "_".join(parts[-n:])
            if suffix in SUFFIXES:
                return "_".join(parts[:-n]), SUFFIXES[suffix]
    return key, ""


def unit_of(key: str) -> str:
    """The unit a key's suffix names (``"torque_Nm"`` → ``"N·m"``), or ``""``."""
    return split_unit(key)[1]


def axis_label(key: str) -> str:
    """A readable label: the quantity with underscores as spaces and the unit in
    brackets, ``"torque_Nm"`` → ``"torque [N·m]"``; an element of a history
    (``"torque_Nm[1]"``) keeps its index: ``"torque [1] [N·m]"``."""
    index = ""
    if key.endswith("]") and "[" in key:
        key, index = key[: key.index("[")], key[key.index("["):]
    quantity, unit = split_unit(key)
    text = quantity.replace("_", " ") + (f" {index}" if index else "")
    return f"{text} [{unit}]" if unit else text
