"""fem — finite elements for rigid–flexible multibody robots.

The public API: build a :class:`Model` of nodes, elements (see
:func:`fem.elements.available`), constraints and loads; solve it with
:func:`solve_static`, :func:`simulate` (generalized-α) or :func:`modes`.
"""

from typing import TYPE_CHECKING

from .core.errors import ConvergenceError, FemWarning, ModelError, SingularMatrixError

# Everything else is imported on first use (PEP 562): `import fem` loads neither scipy
# nor meshio, numba, matplotlib or pyvista (issue 12: under 0.3 s in a fresh process).
_LAZY = {
    "circle_section": "elements.sections", "rectangle_section": "elements.sections",
    "straight_beam": "model.builders", "straight_cable": "model.builders",
    "AngleDrive": "constraints", "Coincident": "constraints", "Distance": "constraints",
    "Dot": "constraints", "Fixed": "constraints", "Linear": "constraints",
    "PrescribedCoordinates": "constraints", "PrescribedPoint": "constraints",
    "LinearMap": "maps.linear_map", "constant": "maps.linear_map",
    "Material": "elements.materials",
    "Mesh": "model.mesh", "load_builtin_mesh": "model.mesh_files",
    "read_mesh": "model.mesh_files", "write_mesh": "model.mesh_files",
    "Body": "model", "ElementGroup": "model", "Model": "model",
    "write_outputs": "io.output",
    "Result": "solvers.results",
    "GeneralizedAlpha": "solvers", "AlphaOptions": "solvers",
    "consistent_initial_state": "solvers",
    "driven_inverse_dynamics": "solvers", "modes": "solvers", "closed_loop_poles": "solvers",
    "project_positions": "solvers", "simulate": "solvers", "solve_static": "solvers",
    "sweep": "parametric",
    "Robot": "robot",
}
_PACKAGES = {name: name for name in (
    "core", "maps", "model", "bases", "elements", "constraints", "bodies", "assembly",
    "solvers", "reduction", "rigid", "references", "io", "robot", "robots", "parametric",
    "validation", "cases", "cli")}
_PACKAGES["frames"] = "reduction.frames"     # the linear frames of fem.reduction
"""Every public package of ``fem`` (and the module ``fem.frames``), imported on first use."""

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from . import constraints, elements, reduction  # noqa: F401
    from .constraints import (  # noqa: F401
        AngleDrive,
        Coincident,
        Distance,
        Dot,
        Fixed,
        Linear,
        PrescribedCoordinates,
        PrescribedPoint,
    )
    from .elements.materials import Material  # noqa: F401
    from .elements.sections import circle_section, rectangle_section  # noqa: F401
    from .io.output import write_outputs  # noqa: F401
    from .maps.linear_map import LinearMap, constant  # noqa: F401
    from .model.builders import straight_beam, straight_cable  # noqa: F401
    from .model.core import Body, ElementGroup, Model  # noqa: F401
    from .model.mesh import Mesh  # noqa: F401
    from .model.mesh_files import load_builtin_mesh, read_mesh, write_mesh  # noqa: F401
    from .parametric import sweep  # noqa: F401
    from .reduction import frames  # noqa: F401
    from .solvers import (  # noqa: F401
        AlphaOptions,
        GeneralizedAlpha,
        closed_loop_poles,
        consistent_initial_state,
        driven_inverse_dynamics,
        modes,
        project_positions,
        simulate,
        solve_static,
    )
    from .solvers.results import Result  # noqa: F401

__all__ = [
    "Model", "ElementGroup", "Body", "Material", "LinearMap", "constant", "Result",
    "ModelError", "ConvergenceError", "SingularMatrixError", "FemWarning", "elements",
    "constraints", "frames", "reduction",
    "Coincident", "Distance", "Dot", "Fixed", "Linear", "PrescribedPoint",
    "PrescribedCoordinates", "AngleDrive",
    "solve_static", "project_positions", "simulate", "GeneralizedAlpha",
    "AlphaOptions", "consistent_initial_state", "modes", "closed_loop_poles",
    "driven_inverse_dynamics",
    "straight_cable", "straight_beam", "rectangle_section", "circle_section", "write_outputs",
    "Mesh", "read_mesh", "write_mesh", "load_builtin_mesh", "sweep", "Robot",
]
__version__ = "0.1.0"


def __getattr__(name: str):
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value          # next access is a plain attribute
        return value
    if name in _PACKAGES:
        value = importlib.import_module(f".{_PACKAGES[name]}", __name__)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'fem' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_PACKAGES))
