"""Robots in robot words: links of any model, joints between their frames, motors.

The layer above the model: a :class:`Robot` holds links (:class:`Rigid`,
:class:`AncfBeam`, :class:`AncfCable`, :class:`FloatingFrame`) with named frames
(:func:`pose`), joints between any two frames that build their own constraint rows
(:data:`JOINT_KINDS`), and motors on joints (servo: inverse dynamics; effort: forward
dynamics).  Underneath is one :class:`fem.Model` (``robot.model``), so every solver, the
output and the web view work on it unchanged.  The user guide's chapter "Your own
robot" (``docs/your-robot.md``) walks through it.
"""

from .frames import Frame, Pose, pose
from .joints import JOINT_KINDS, Joint
from .links import (
    AncfBeam,
    AncfCable,
    FloatingFrame,
    LinkModel,
    Plate,
    Reduced,
    Rigid,
    section_properties,
)
from .robot import Motor, Placement, Robot
from .urdf import from_urdf, read_urdf

__all__ = ["Robot", "Placement", "Motor", "Joint", "JOINT_KINDS", "Frame", "Pose", "pose",
           "LinkModel", "Rigid", "AncfBeam", "AncfCable", "FloatingFrame", "Reduced", "Plate",
           "section_properties", "from_urdf", "read_urdf"]

# forces between two frames (springs, cylinders): fem/robot/forces.py
from .forces import Cylinder, SpringDamper, add_cylinder, add_spring  # noqa: E402

__all__ += ["add_spring", "add_cylinder", "SpringDamper", "Cylinder"]

# planar robots and links of a given reduction: fem/robot/planar.py, substructure.py
from .planar import PLANAR_KINDS, add_planar_joint, keep_in_plane  # noqa: E402
from .substructure import Substructure  # noqa: E402

__all__ += ["keep_in_plane", "add_planar_joint", "PLANAR_KINDS", "Substructure"]
