"""Robots from their URDF (Unified Robot Description Format), any link made flexible.

:func:`from_urdf` reads a URDF file and builds a :class:`fem.Robot`: each URDF link
with its mass, centre of mass and inertia becomes a :class:`~fem.robot.Rigid` link, each
revolute, continuous and prismatic joint a joint of the same kind about its axis.  Links
joined by fixed joints are one rigid link (their masses and inertias combined, each
kept as a named frame, as Pinocchio does); the root link and everything fixed to it is
the ground.  A link named in ``flexible`` gets the link model given for it instead (an
ANCF beam, a floating-frame rod, a reduced FE body) spanning its parent joint to its
child joint.

The file is read with the standard library's XML parser: URDF is plain XML with a
dozen elements, and the parsers of the ROS world (``urdfdom``, ``urdf_parser_py``) would
add a compiled or unmaintained dependency for what fits in a page.  Anything this
reader does not model is refused by name rather than skipped: floating and planar
joints, ``<mimic>``, transmissions other than a simple gear reduction, closed chains
(a link that is a child twice), several roots.  Joint ``<dynamics>`` (damping,
friction) is not applied: a warning names the joints that have it.

Conventions (URDF's): a joint's ``<origin>`` places the child link's frame in the
parent's at zero joint position; ``rpy`` are fixed-axis roll, pitch, yaw
(``R = Rz(y) Ry(p) Rx(r)``); the axis is in the child's frame; ``<inertial>``'s origin
places the centre of mass and the axes of its inertia tensor in the link frame.  The
robot is built at zero joint positions, so every joint's coordinate counts from URDF's
zero.
"""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..core.errors import ModelError
from ..core.validate import choice, warn
from ..elements.materials import Material
from .frames import Pose
from .links import LinkModel, Reduced, Rigid
from .robot import Robot

__all__ = ["from_urdf", "read_urdf", "UrdfLink", "UrdfJoint", "UrdfRobot"]

KINDS = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic",
         "fixed": "fixed"}


@dataclasses.dataclass
class UrdfLink:
    """A URDF link: ``mass`` [kg], centre of mass ``com`` and ``inertia`` about it, both
    in the link frame; ``visuals`` and ``collisions``: (mesh file as written, 4×4 pose in
    the link frame, scale)."""

    name: str
    mass: float = 0.0
    com: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((3, 3)))
    visuals: list = dataclasses.field(default_factory=list)
    collisions: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class UrdfJoint:
    """A URDF joint: ``kind`` (revolute, continuous, prismatic, fixed), ``origin`` (4×4,
    the child frame in the parent's at zero), ``axis`` (in the child frame), ``limits``
    (lower, upper [rad or m], effort [N·m or N], velocity), ``gear`` (a simple
    transmission's reduction, 1 without)."""

    name: str
    kind: str
    parent: str
    child: str
    origin: np.ndarray
    axis: np.ndarray
    limits: dict
    gear: float = 1.0
    dynamics: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class UrdfRobot:
    """What a URDF file says: its name, links and joints (in file order), root link."""

    name: str
    links: dict
    joints: list
    root: str
    path: Path


def _floats(text: str | None, n: int, what: str, default=None) -> np.ndarray:
    if text is None:
        if default is None:
            raise ModelError(f"{what}: missing")
        return np.array(default, float)
    try:
        v = np.array([float(x) for x in text.split()], float)
    except ValueError:
        raise ModelError(f"{what}: expected {n} numbers, got {text!r}") from None
    if v.size != n or not np.all(np.isfinite(v)):
        raise ModelError(f"{what}: expected {n} finite numbers, got {text!r}")
    return v


def _number(el, key: str, what: str, default: float | None = None) -> float:
    text = None if el is None else el.get(key)
    if text is None:
        if default is None:
            raise ModelError(f"{what}: attribute {key!r} missing")
        return default
    try:
        value = float(text)
    except ValueError:
        raise ModelError(f"{what}: {key}={text!r} is not a number") from None
    if not np.isfinite(value):
        raise ModelError(f"{what}: {key}={text!r} is not finite")
    return value


def rpy_matrix(rpy) -> np.ndarray:
    """``R = Rz(yaw) Ry(pitch) Rx(roll)`` (URDF's fixed-axis roll, pitch, yaw)."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def _origin(el, what: str) -> np.ndarray:
    T = np.eye(4)
    if el is not None:
        T[:3, :3] = rpy_matrix(_floats(el.get("rpy"), 3, f"{what} origin rpy", (0, 0, 0)))
        T[:3, 3] = _floats(el.get("xyz"), 3, f"{what} origin xyz", (0, 0, 0))
    return T


def read_urdf(path) -> UrdfRobot:
    """Read a URDF file into :class:`UrdfRobot` (links and joints as written), refusing
    by name what :func:`from_urdf` cannot model."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"URDF file {str(path)!r} not found")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        raise ModelError(f"URDF file {path.name!r} is not valid XML: {err}") from None
    if root.tag != "robot":
        raise ModelError(f"URDF file {path.name!r}: the top element is <{root.tag}>, not "
                         "<robot>")
    where = f"URDF {path.name!r}"
    links: dict[str, UrdfLink] = {}
    for el in root.findall("link"):
        name = el.get("name")
        if not name:
            raise ModelError(f"{where}: a <link> without a name")
        if name in links:
            raise ModelError(f"{where}: link {name!r} is defined twice")
        link = UrdfLink(name)
        inertial = el.find("inertial")
        if inertial is not None:
            w = f"{where}: link {name!r} <inertial>"
            link.mass = _number(inertial.find("mass"), "value", f"{w} <mass>")
            if link.mass < 0:
                raise ModelError(f"{w}: mass {link.mass:g} kg is negative")
            T = _origin(inertial.find("origin"), w)
            ie = inertial.find("inertia")
            c = {k: _number(ie, k, f"{w} <inertia>", 0.0)
                 for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
            I = np.array([[c["ixx"], c["ixy"], c["ixz"]], [c["ixy"], c["iyy"], c["iyz"]],
                          [c["ixz"], c["iyz"], c["izz"]]])
            link.com = T[:3, 3].copy()
            link.inertia = T[:3, :3] @ I @ T[:3, :3].T
        for tag, store in (("visual", link.visuals), ("collision", link.collisions)):
            for vis in el.findall(tag):
                mesh = vis.find("geometry/mesh")
                if mesh is not None and mesh.get("filename"):
                    scale = _floats(mesh.get("scale"), 3,
                                    f"{where}: link {name!r} mesh scale", (1, 1, 1))
                    store.append((mesh.get("filename"),
                                  _origin(vis.find("origin"), f"{where}: {name!r} {tag}"),
                                  scale))
        links[name] = link
    joints: list[UrdfJoint] = []
    children: dict[str, str] = {}
    for el in root.findall("joint"):
        name = el.get("name") or "?"
        w = f"{where}: joint {name!r}"
        kind = el.get("type")
        if kind in ("floating", "planar"):
            raise ModelError(f"{w}: {kind} joints are not supported (a {kind} joint has "
                             f"{'six' if kind == 'floating' else 'three'} freedoms); build "
                             "a mobile base with fem.Robot's joints")
        if kind not in KINDS:
            raise ModelError(f"{w}: joint type {kind!r} is not a URDF type this reader knows "
                             f"({', '.join(KINDS)})")
        if el.find("mimic") is not None:
            raise ModelError(f"{w}: <mimic> joints (coupled to another joint) are not "
                             "supported; remove the mimic and drive the joint itself")
        parent = el.find("parent")
        child = el.find("child")
        if parent is None or child is None or not parent.get("link") or not child.get("link"):
            raise ModelError(f"{w}: needs <parent link=…> and <child link=…>")
        p, c = parent.get("link"), child.get("link")
        for role, ln in (("parent", p), ("child", c)):
            if ln not in links:
                raise ModelError(f"{w}: its {role} link {ln!r} is not defined")
        if c in children:
            raise ModelError(f"{w}: link {c!r} is already the child of joint "
                             f"{children[c]!r}; closed chains are not supported in URDF "
                             "(close the loop with fem.Robot.add_joint)")
        children[c] = name
        axis = _floats(el.find("axis").get("xyz") if el.find("axis") is not None else None,
                       3, f"{w} axis", (1, 0, 0))
        if kind != "fixed":
            n = float(np.linalg.norm(axis))
            if n < 1e-12:
                raise ModelError(f"{w}: the axis is zero")
            axis = axis / n
        lim = el.find("limit")
        limits = {}
        if lim is not None:
            limits = {k: _number(lim, k, f"{w} <limit>", default)
                      for k, default in (("lower", 0.0), ("upper", 0.0), ("effort", 0.0),
                                         ("velocity", 0.0))}
        elif kind in ("revolute", "prismatic"):
            raise ModelError(f"{w}: a {kind} joint needs <limit> (URDF requires it; a "
                             "joint without limits is 'continuous')")
        dyn = el.find("dynamics")
        dynamics = {} if dyn is None else {
            k: _number(dyn, k, f"{w} <dynamics>", 0.0) for k in ("damping", "friction")}
        joints.append(UrdfJoint(name, kind, p, c, _origin(el.find("origin"), w), axis,
                                limits, dynamics={k: v for k, v in dynamics.items() if v}))
    for el in root.findall("transmission"):
        _transmission(el, joints, where)
    roots = [ln for ln in links if ln not in children]
    if len(roots) != 1:
        raise ModelError(f"{where}: a robot has one root link (a link that is no joint's "
                         f"child); found {len(roots)}: {roots[:6]}")
    return UrdfRobot(root.get("name") or path.stem, links, joints, roots[0], path)


def _transmission(el, joints: list[UrdfJoint], where: str) -> None:
    """A simple transmission's mechanical reduction becomes its joint's gear; anything
    else is refused."""
    name = el.get("name") or "?"
    kind = el.findtext("type") or el.get("type") or ""
    if not kind.endswith("SimpleTransmission"):
        raise ModelError(f"{where}: transmission {name!r} is {kind!r}; only simple "
                         "transmissions (a gear ratio on one joint) are supported")
    jel = el.findall("joint")
    if len(jel) != 1:
        raise ModelError(f"{where}: transmission {name!r} has {len(jel)} joints; a simple "
                         "transmission has one")
    jname = jel[0].get("name")
    joint = next((j for j in joints if j.name == jname), None)
    if joint is None:
        raise ModelError(f"{where}: transmission {name!r} names joint {jname!r}, which is "
                         "not defined")
    act = el.find("actuator")
    text = None if act is None else act.findtext("mechanicalReduction")
    if text is not None:
        try:
            joint.gear = float(text)
        except ValueError:
            raise ModelError(f"{where}: transmission {name!r}: mechanicalReduction "
                             f"{text!r} is not a number") from None
        if not (np.isfinite(joint.gear) and joint.gear > 0):
            raise ModelError(f"{where}: transmission {name!r}: mechanicalReduction must be "
                             f"positive, got {text!r}")


def from_urdf(path, flexible: Mapping[str, LinkModel] | None = None,
              gravity=(0.0, 0.0, -9.81), flexible_mass: str = "material",
              name: str | None = None, rigid_equivalent: bool = False,
              meshes: bool = True) -> Robot:
    """A :class:`fem.Robot` from a URDF file, built at zero joint positions.

    Parameters
    ----------
    path : str or Path
        The URDF file.
    flexible : {link name: link model}, optional
        Links to model as flexible: each a link model with its section and material
        (:class:`~fem.robot.AncfBeam`, :class:`~fem.robot.AncfCable`,
        :class:`~fem.robot.FloatingFrame`, or :class:`~fem.robot.Reduced` with
        interfaces named after the link and its child joint).  The model spans the
        link's parent joint (its link frame) to its one child joint; a link with
        several child joints, or with links fixed to it, is refused.  There is no default
        section: a flexible link's stiffness is the user's statement.
    gravity : 3-vector
        [m/s²], world axes (the URDF root's frame).
    flexible_mass : {"material", "urdf"}
        ``"material"`` (default): a flexible link's mass and inertia follow from its
        section and material — what the structure you describe weighs.  ``"urdf"``: its
        density is scaled so that its mass equals the URDF link's (its inertia is then a
        uniform rod's along the joint-to-joint line, not the URDF tensor: a rod cannot
        carry an arbitrary tensor).
    name : str, optional
        The robot's name (default: the URDF's).
    rigid_equivalent : bool
        Build each link of ``flexible`` as the rigid body with its model's mass
        distribution (:meth:`~fem.robot.links._Rod.rigid_equivalent`): the rigid robot
        to compare the flexible one with.
    meshes : bool
        Draw each rigid link's mesh in the pictures and the ParaView series: its
        ``<visual>`` mesh, or its ``<collision>`` mesh where the visual one cannot be
        read (meshio reads STL, OBJ, PLY, …, not COLLADA ``.dae``); ``package://``
        names are looked up in the folders above the URDF.  Links without a readable
        mesh are drawn as lines between their joints (one warning names them).

    Returns
    -------
    fem.Robot
        Links named as the URDF's moving links (each with a frame named after itself,
        its link frame, one per link fixed to it, and one per child joint, named after
        the joint); joints named as the URDF's, each with its ``limits`` (lower, upper,
        effort, velocity); ``robot.urdf`` is what the file says (:class:`UrdfRobot`:
        masses, visual meshes, transmissions' gears).  No motors: add servo or effort
        motors by joint name.
    """
    urdf = read_urdf(path)
    flexible = dict(flexible or {})
    flexible_mass = choice(flexible_mass, ("material", "urdf"), "from_urdf: flexible_mass")
    for ln, spec in flexible.items():
        if ln not in urdf.links:
            raise ModelError(f"from_urdf: flexible link {ln!r} is not in {urdf.path.name!r}; "
                             f"its links: {sorted(urdf.links)}")
        if not isinstance(spec, LinkModel) or not getattr(spec, "flexible", False):
            raise ModelError(f"from_urdf: flexible[{ln!r}] must be a flexible link model "
                             f"with its section and material (fem.robot.AncfBeam(material, "
                             f"radius=…), FloatingFrame(…), Reduced(…)); got "
                             f"{type(spec).__name__}")
    kids: dict[str, list[UrdfJoint]] = {ln: [] for ln in urdf.links}
    for j in urdf.joints:
        kids[j.parent].append(j)
    # world poses at zero and the body each link belongs to (fixed joints merge)
    joints = _dfs(urdf.root, kids)
    world: dict[str, np.ndarray] = {urdf.root: np.eye(4)}
    body_of: dict[str, str] = {urdf.root: "ground"}
    for j in joints:
        world[j.child] = world[j.parent] @ j.origin
        body_of[j.child] = body_of[j.parent] if j.kind == "fixed" else j.child
    order = [urdf.root] + [j.child for j in joints]
    members: dict[str, list[str]] = {}
    for ln in order:
        members.setdefault(body_of[ln], []).append(ln)
    moving = [j for j in joints if j.kind != "fixed"]
    for ln in flexible:
        if body_of[ln] != ln:
            raise ModelError(f"from_urdf: flexible link {ln!r} is fixed to "
                             f"{body_of[ln]!r} (or the ground); a flexible link moves on "
                             "its own joint")
        out = [j for j in moving if body_of[j.parent] == ln]
        if len(out) != 1 or len(members[ln]) != 1:
            raise ModelError(f"from_urdf: flexible link {ln!r} has {len(out)} child joints "
                             f"and {len(members[ln]) - 1} links fixed to it; a flexible "
                             "link spans its parent joint to exactly one child joint")
    dyn = [j.name for j in urdf.joints if j.dynamics]
    if dyn:
        warn(f"from_urdf: the <dynamics> damping and friction of joints {dyn[:6]} are not "
             "applied (add them to a servo motor: viscous=, coulomb=)")
    robot = Robot(name or urdf.name, gravity=gravity)
    robot.urdf = urdf
    undrawn: list[str] = []
    for body, lns in members.items():
        if body == "ground":
            if meshes:
                _draw_meshes(robot, urdf, None, lns, world, undrawn)
            continue
        frames = {ln: _pose(world[ln]) for ln in lns}
        for j in moving:
            if body_of[j.parent] == body:
                if j.name in frames:
                    raise ModelError(f"from_urdf: joint {j.name!r} has a link's name; "
                                     "frames are named after both")
                frames[j.name] = _pose(world[j.child])
        if body in flexible:
            spec = _flexible_spec(flexible[body], urdf.links[body], flexible_mass, body,
                                  frames)
            if rigid_equivalent:
                if not hasattr(spec, "rigid_equivalent"):
                    raise ModelError(f"from_urdf: link {body!r}: rigid_equivalent needs a "
                                     "rod model (AncfBeam, AncfCable, FloatingFrame)")
                spec = spec.rigid_equivalent(body, frames)
        else:
            spec = _rigid(urdf, lns, world, body)
        built = robot.add_link(body, spec, frames)
        if meshes and body not in flexible:
            _draw_meshes(robot, urdf, built, lns, world, undrawn)
    if undrawn:
        warn(f"from_urdf: no readable mesh for links {undrawn[:8]} (meshio reads STL, "
             "OBJ, PLY…, not .dae): they are drawn as lines between their joints")
    for j in moving:
        parent = body_of[j.parent]
        joint = robot.add_joint(j.name, KINDS[j.kind],
                                "ground" if parent == "ground" else (parent, j.name),
                                (j.child, j.child), axis=j.axis)
        joint.limits = dict(j.limits)
    if not moving:
        raise ModelError(f"from_urdf: {urdf.path.name!r} has no moving joint")
    return robot


def _dfs(ln: str, kids) -> list[UrdfJoint]:
    """Joints in depth-first order from ``ln``, children in file order (Pinocchio's
    order for a tree)."""
    out = []
    for j in kids[ln]:
        out.append(j)
        out += _dfs(j.child, kids)
    return out


def _pose(T: np.ndarray) -> Pose:
    return Pose(T[:3, 3].copy(), T[:3, :3].copy())


def _rigid(urdf: UrdfRobot, lns: list[str], world, body: str) -> Rigid:
    """One rigid link of ``lns`` (a link and those fixed to it): total mass, centre and
    inertia about it (parallel axes), in the axes of the first link's frame."""
    m = sum(urdf.links[ln].mass for ln in lns)
    T0 = world[lns[0]]
    R0, p0 = T0[:3, :3], T0[:3, 3]
    if m <= 0:
        raise ModelError(f"from_urdf: link {body!r} has no mass (no <inertial>, or mass 0, "
                         f"with the links fixed to it: {lns}); a moving link needs its "
                         "mass and inertia")
    c = sum(urdf.links[ln].mass * (world[ln][:3, :3] @ urdf.links[ln].com + world[ln][:3, 3])
            for ln in lns) / m
    I = np.zeros((3, 3))
    for ln in lns:
        lk = urdf.links[ln]
        R = world[ln][:3, :3]
        d = R @ lk.com + world[ln][:3, 3] - c
        I += R @ lk.inertia @ R.T + lk.mass * (d @ d * np.eye(3) - np.outer(d, d))
    return Rigid(m, com=R0.T @ (c - p0), inertia=R0.T @ I @ R0)


def _flexible_spec(spec: LinkModel, link: UrdfLink, how: str, name: str, frames) -> LinkModel:
    if how == "material":
        return spec
    if isinstance(spec, Reduced):
        raise ModelError(f"from_urdf: flexible link {name!r}: flexible_mass='urdf' scales a "
                         "rod's density; a reduced link's mass is its FE model's")
    (_, p0), (_, p1) = list(frames.items())[:2]
    L = float(np.linalg.norm(p1.position - p0.position))
    s = spec.properties(name)
    m = spec.material.rho * s["area"] * L
    if link.mass <= 0:
        raise ModelError(f"from_urdf: flexible link {name!r}: flexible_mass='urdf' but the "
                         "URDF gives it no mass")
    mat = spec.material
    return dataclasses.replace(spec, material=Material(
        E=mat.E, nu=mat.nu, rho=mat.rho * link.mass / m, name=f"{mat.name} (URDF mass)"))


def mesh_file(urdf: UrdfRobot, filename: str) -> Path | None:
    """The file a URDF mesh name points to: ``package://pkg/rest`` looked up in the
    folders above the URDF (a folder named ``pkg``, or one holding it), ``file://`` and
    plain names as paths (relative to the URDF's folder); None if not there."""
    if filename.startswith("package://"):
        pkg, _, rest = filename[len("package://"):].partition("/")
        for parent in urdf.path.resolve().parents:
            for base in (parent if parent.name == pkg else None, parent / pkg):
                if base is not None and (base / rest).is_file():
                    return base / rest
        return None
    f = Path(filename[len("file://"):] if filename.startswith("file://") else filename)
    f = f if f.is_absolute() else urdf.path.parent / f
    return f if f.is_file() else None


def _read_mesh(urdf: UrdfRobot, link: UrdfLink):
    """``(points (m, 3) in the link frame, triangles (k, 3))`` of the link's first
    readable visual mesh, else collision mesh; None when none can be read."""
    import meshio

    for filename, T, scale in link.visuals + link.collisions:
        f = mesh_file(urdf, filename)
        if f is None:
            continue
        try:
            m = meshio.read(f)
        except Exception:   # noqa: BLE001 - an unreadable format or file: try the next
            continue
        tri = [c.data for c in m.cells if c.type == "triangle"]
        if not tri:
            continue
        P = np.asarray(m.points, float)[:, :3] * scale
        return P @ T[:3, :3].T + T[:3, 3], np.vstack(tri).astype(np.int64)
    return None


def _draw_meshes(robot: Robot, urdf: UrdfRobot, built, lns: list[str], world,
                 undrawn: list[str]) -> None:
    """Each link's mesh as a sketch surface moving with the rigid link ``built`` (fixed
    on the ground for ``built`` None)."""
    if built is not None:
        first = next(iter(built.frames.values())).pose
        R0, p0 = first.rotation, first.position
    for ln in lns:
        link = urdf.links[ln]
        if not (link.visuals or link.collisions):
            continue
        mesh = _read_mesh(urdf, link)
        if mesh is None:
            undrawn.append(ln)
            continue
        P, tri = mesh
        W = P @ world[ln][:3, :3].T + world[ln][:3, 3]
        if built is None:
            pts = [robot.model.ground(x) for x in W]
        else:
            pts = [built.body.point(x, label=f"{ln} mesh") for x in (W - p0) @ R0]
        robot.model.add_sketch(pts, ln, triangles=tri)
