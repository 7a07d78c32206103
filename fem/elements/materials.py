"""Materials: linear elastic data and the St. Venant–Kirchhoff law."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ..core.errors import ModelError
from ..core.validate import shown

__all__ = ["Material", "svk_elasticity", "material"]


@dataclass(frozen=True)
class Material:
    """Isotropic linear elastic material.

    Parameters
    ----------
    E : float
        Young's modulus [Pa], > 0.
    nu : float
        Poisson's ratio, in (-1, 0.5).
    rho : float
        Density [kg/m³], ≥ 0.
    name : str
        Used in error messages and summaries.
    """

    E: float
    nu: float = 0.3
    rho: float = 0.0
    name: str = "material"

    def __post_init__(self) -> None:
        from ..core.validate import finite

        if not isinstance(self.name, str):
            raise ModelError(f"Material: name must be a str; got {self.name!r:.60}")
        for key, what in (("E", "Young's modulus E [Pa]"), ("nu", "Poisson's ratio nu"),
                          ("rho", "density rho [kg/m³]")):
            # a frozen dataclass: the checked float replaces what was given
            object.__setattr__(self, key, finite(getattr(self, key),
                                                 f"material {self.name!r}: {what}"))
        if not np.isfinite(self.E) or self.E <= 0:
            raise ModelError(f"material {self.name!r}: Young's modulus E must be > 0, got {self.E}")
        if not (-1.0 < self.nu < 0.5):
            raise ModelError(
                f"material {self.name!r}: Poisson's ratio nu must lie in (-1, 0.5), got {self.nu}"
            )
        if not np.isfinite(self.rho) or self.rho < 0:
            raise ModelError(f"material {self.name!r}: density rho must be ≥ 0, got {self.rho}")

    @property
    def G(self) -> float:
        """Shear modulus ``E / (2 (1 + ν))``."""
        return self.E / (2.0 * (1.0 + self.nu))

    @property
    def lame(self) -> tuple[float, float]:
        """Lamé parameters ``(λ, μ)``."""
        lam = self.E * self.nu / ((1.0 + self.nu) * (1.0 - 2.0 * self.nu))
        return lam, self.G


def svk_elasticity(material: Material) -> np.ndarray:
    """6×6 elasticity matrix in Voigt order (11, 22, 33, 23, 13, 12), engineering shears.

    St. Venant–Kirchhoff: ``S = C : E`` with Green–Lagrange strain ``E``.
    """
    lam, mu = material.lame
    C = np.zeros((6, 6))
    C[:3, :3] = lam
    C[np.arange(3), np.arange(3)] += 2 * mu
    C[np.arange(3, 6), np.arange(3, 6)] = mu
    return C


def material(value, what: str) -> Material:
    """A :class:`fem.Material` (a number where the material belongs is the usual slip):
    the argument rule of :mod:`fem.core.validate` for materials."""
    if not isinstance(value, Material):
        hint = (" (a number: write fem.Material(E=..., nu=..., rho=...))"
                if isinstance(value, numbers.Number) else "")
        raise ModelError(f"{what} must be a fem.Material{hint}; got {shown(value)}")
    return value
