"""Robots in robot words: links of any model, joints between their frames, motors.

The layer above the model: a :class:`Robot` holds links (:class:`Rigid`, :class:`Bar`,
:class:`AncfBeam`, :class:`AncfCable`, :class:`FloatingFrame`, :class:`Reduced`,
:class:`ReducedBeam`, :class:`Plate`, :class:`Substructure`) with named frames
(:func:`pose`), joints between any two frames that build their own constraint rows
(:data:`JOINT_KINDS`; planar ones: :func:`add_planar_joint`), motors on joints (servo:
inverse dynamics; effort or a controller such as :class:`PD`: forward dynamics), springs
and cylinders between frames (:func:`add_spring`, :func:`add_cylinder`), and robots read
from URDF (:func:`from_urdf`). Underneath is one :class:`fem.Model` (``robot.model``),
so every solver, the output and the web view work on it unchanged. The user guide's
chapters "Your own robot" (``docs/your-robot.md``) and "Your URDF robot"
(``docs/your-urdf-robot.md``) walk through it.
"""

from ..core.lazy import lazy_exports
from .control import PD, ComputedTorque, Controller, InverseDynamics
from .forces import Cylinder, SpringDamper, add_cylinder, add_spring
from .frames import Frame, Pose, pose
from .joints import JOINT_KINDS, Joint
from .links import (
    AncfBeam,
    AncfCable,
    Bar,
    FloatingFrame,
    LinkModel,
    Plate,
    Reduced,
    Rigid,
    section_properties,
)
from .motions import rest_to_rest, table, tabulated
from .planar import PLANAR_KINDS, add_planar_joint, keep_in_plane
from .reduced_beam import ReducedBeam
from .robot import Motor, Placement, Robot
from .substructure import Substructure
from .urdf import from_urdf, read_urdf

__all__ = ["Robot", "Placement", "Motor", "Joint", "JOINT_KINDS", "Frame", "Pose", "pose",
           "LinkModel", "Rigid", "Bar", "AncfBeam", "AncfCable", "FloatingFrame", "Reduced",
           "ReducedBeam",
           "Plate",
           "Substructure", "section_properties", "from_urdf", "read_urdf", "PD",
           "Controller", "ComputedTorque", "InverseDynamics",
           "add_spring", "add_cylinder", "SpringDamper", "Cylinder", "keep_in_plane",
           "add_planar_joint", "PLANAR_KINDS", "rest_to_rest", "table", "tabulated"]

# every module of the package an attribute, imported on first use
__getattr__, __dir__ = lazy_exports(__name__, {})
