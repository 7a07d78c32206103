"""fem — finite elements for rigid–flexible multibody robots.

The public API: build a :class:`Model` of nodes, elements (see
:func:`fem.elements.available`), constraints and loads; solve it with
:func:`solve_static`, :func:`simulate` (generalized-α) or :func:`modes`.
"""

from . import constraints, elements, frames, reduction
from .builders import circle_section, rectangle_section, straight_beam, straight_cable
from .constraints import (
    AngleDrive,
    Coincident,
    Distance,
    Dot,
    Fixed,
    Linear,
    PrescribedCoordinates,
    PrescribedPoint,
)
from .errors import ConvergenceError, ModelError, SingularMatrixError
from .linear_map import LinearMap, constant
from .materials import Material
from .mesh import Mesh, load_builtin_mesh, read_mesh, write_mesh
from .model import Body, ElementGroup, Model
from .output import write_outputs
from .results import Result
from .solvers import (
    GeneralizedAlpha,
    consistent_initial_state,
    driven_inverse_dynamics,
    modes,
    project_positions,
    simulate,
    solve_static,
)
from .validate import FemWarning

__all__ = [
    "Model", "ElementGroup", "Body", "Material", "LinearMap", "constant", "Result",
    "ModelError", "ConvergenceError", "SingularMatrixError", "FemWarning", "elements",
    "constraints", "frames", "reduction",
    "Coincident", "Distance", "Dot", "Fixed", "Linear", "PrescribedPoint",
    "PrescribedCoordinates", "AngleDrive",
    "solve_static", "project_positions", "simulate", "GeneralizedAlpha",
    "consistent_initial_state", "modes", "driven_inverse_dynamics",
    "straight_cable", "straight_beam", "rectangle_section", "circle_section", "write_outputs",
    "Mesh", "read_mesh", "write_mesh", "load_builtin_mesh", "sweep",
]
__version__ = "0.1.0"


def __getattr__(name: str):
    # fem.sweep (parameter studies on Dask) is imported on first use: `import fem` stays
    # free of dask, pandas and the sweep machinery
    if name == "sweep":
        from .parametric import sweep

        return sweep
    raise AttributeError(f"module 'fem' has no attribute {name!r}")
