"""fem — finite elements for rigid–flexible multibody robots."""

from .errors import ConvergenceError, ModelError
from .materials import Material

__all__ = ["ModelError", "ConvergenceError", "Material"]
__version__ = "0.1.0"
