"""Robots from URDF (fem.robot.from_urdf): rigid dynamics against Pinocchio for real
robots' URDFs (example-robot-data's UR5 and Panda), every refused URDF feature with its
message, and links made flexible.

Pinocchio (``pin``) and ``example-robot-data`` are test-only packages (the ``test``
extra); the comparisons skip with the reason when they are absent."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import fem
from fem.robot import AncfBeam, from_urdf
from fem.robot.joints import DRIVEN_KINDS
from fem.robot.robot import _joint_acceleration
from fem.solvers.dynamic import consistent_initial_state


def _robots_folder() -> Path | None:
    try:
        import pinocchio
    except ImportError:
        return None
    for parent in Path(pinocchio.__file__).resolve().parents:
        d = parent / "share" / "example-robot-data" / "robots"
        if d.is_dir():
            return d
    return None


ROBOTS = _robots_folder()
needs_pinocchio = pytest.mark.skipif(
    ROBOTS is None, reason="Pinocchio and example-robot-data are not installed "
    "(pip install -e '.[test]' installs them)")


def urdf_file(name: str, tmp_path: Path) -> Path:
    """The URDF of ``"ur5"`` or ``"panda"``; the Panda's second finger mimics the first,
    which from_urdf refuses: its copy here drives it as a joint of its own (the
    workaround the refusal names; Pinocchio then reads the same file)."""
    if name == "ur5":
        return ROBOTS / "ur_description" / "urdf" / "ur5_robot.urdf"
    text = (ROBOTS / "panda_description" / "urdf" / "panda.urdf").read_text()
    path = tmp_path / "panda.urdf"
    path.write_text(re.sub(r"<mimic[^>]*/>", "", text))
    return path


def trajectory(names: list[str], robot):
    """A smooth motion of every joint: sines of amplitudes within the joints' limits
    (fingers: a centimetre), incommensurate rates."""
    out = {}
    for i, n in enumerate(names):
        j = robot.joints[n]
        amp = 0.01 if j.kind == "prismatic" else 0.4 + 0.1 * (i % 4)
        w, ph = 1.1 + 0.37 * i, 0.3 * i
        mid = 0.02 if j.kind == "prismatic" else 0.0
        out[n] = (lambda t, a=amp, w=w, ph=ph, c=mid:
                  (c + a * np.sin(w * t + ph), a * w * np.cos(w * t + ph),
                   -a * w * w * np.sin(w * t + ph)))
    return out


def pinocchio_model(path: Path):
    import pinocchio as pin

    model = pin.buildModelFromUrdf(str(path))
    return pin, model, model.createData()


@needs_pinocchio
@pytest.mark.filterwarnings("ignore:from_urdf")
@pytest.mark.parametrize("name", ["ur5", "panda"])
def test_inverse_dynamics_equals_pinocchio_rnea(name, tmp_path):
    """Servo motors on every joint along a smooth trajectory (exact inverse dynamics at
    11 instants): the motors' torques equal Pinocchio's ``rnea`` within 1e-8 of each
    joint's torque range (measured ≤ 1.1e-13)."""
    path = urdf_file(name, tmp_path)
    robot = from_urdf(path)
    pin, model, data = pinocchio_model(path)
    names = [model.names[i] for i in range(1, model.njoints)]
    assert names == [n for n, j in robot.joints.items() if j.kind in DRIVEN_KINDS]
    motion = trajectory(names, robot)
    for n in names:
        robot.add_motor(f"motor {n}", n, servo=motion[n])
    times = np.linspace(0.0, 1.5, 13)
    res = fem.driven_inverse_dynamics(robot.model, times)
    ours, ref = [], []
    for k, t in enumerate(times):
        e = robot.efforts(res.q[k], res.lam[k])
        ours.append([e[f"motor {n}"] for n in names])
        x = np.array([motion[n](t) for n in names])
        ref.append(pin.rnea(model, data, x[:, 0], x[:, 1], x[:, 2]))
        th = [robot.joint_value(n, res.q[k]) for n in names]
        assert np.allclose(th, x[:, 0], atol=1e-11)
    ours, ref = np.array(ours), np.array(ref)
    err = np.abs(ours - ref).max(axis=0) / np.maximum(np.ptp(ref, axis=0), 1e-12)
    assert err.max() < 1e-8, err


@needs_pinocchio
@pytest.mark.filterwarnings("ignore:from_urdf")
@pytest.mark.parametrize("name", ["ur5", "panda"])
def test_forward_dynamics_accelerations_equal_pinocchio_aba(name, tmp_path):
    """A short forward run from rest under gravity (no motors: the arm falls): at states
    along it, the joint accelerations of the model's equations of motion equal
    Pinocchio's ``aba`` at the same joint positions and rates within 1e-8 of their
    largest value; the run's joint angles move as ``aba``'s integration says (RK4 at
    the same step, 1e-4 rad)."""
    path = urdf_file(name, tmp_path)
    robot = from_urdf(path)
    pin, model, data = pinocchio_model(path)
    names = [model.names[i] for i in range(1, model.njoints)]
    res = robot.simulate(0.2, 2e-3, start="placed", rho_inf=1.0, tol=1e-10,
                         correction="projection")
    joints = [robot.joints[n] for n in names]
    for k in range(0, len(res.t), 25):
        q, v, a, _ = consistent_initial_state(robot.model, res.q[k], res.v[k])
        th = np.array([j.value(q) for j in joints])
        thd = np.array([j.rate(q, v) for j in joints])
        thdd = np.array([_joint_acceleration(j, q, v, a) for j in joints])
        ref = pin.aba(model, data, th, thd, np.zeros(len(names)))
        assert np.abs(thdd - ref).max() <= 1e-8 * np.abs(ref).max(), (k, thdd - ref)
    # the integrated motion: Pinocchio's aba by RK4 at the same step
    x = np.zeros(2 * len(names))
    h = 2e-3

    def f(x):
        return np.concatenate([x[len(names):], pin.aba(model, data, x[:len(names)],
                                                       x[len(names):], np.zeros(len(names)))])
    for _ in range(len(res.t) - 1):
        k1 = f(x)
        k2 = f(x + h / 2 * k1)
        k3 = f(x + h / 2 * k2)
        k4 = f(x + h * k3)
        x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    th_end = np.array([j.value(res.q[-1]) for j in joints])
    assert np.abs(th_end - x[:len(names)]).max() < 1e-4


# ------------------------------------------------------------------ a small URDF
ARM = """<robot name="arm">
  <link name="base"/>
  <link name="upper">
    <inertial><mass value="2.0"/><origin xyz="0 0 0.25" rpy="0 0 0"/>
      <inertia ixx="0.05" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.001"/></inertial>
  </link>
  <link name="fore">
    <inertial><mass value="1.0"/><origin xyz="0 0 0.2" rpy="0 0 0"/>
      <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.0005"/></inertial>
  </link>
  <link name="tool">
    <inertial><mass value="0.5"/><origin xyz="0 0 0" rpy="0 0 0"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1" rpy="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="100" velocity="3"/>
  </joint>
  <joint name="elbow" type="continuous">
    <parent link="upper"/><child link="fore"/>
    <origin xyz="0 0 0.5" rpy="0 0 0"/><axis xyz="0 1 0"/>
  </joint>
  <joint name="flange" type="fixed">
    <parent link="fore"/><child link="tool"/>
    <origin xyz="0 0 0.4" rpy="0 0 0"/>
  </joint>
  EXTRA
</robot>"""


def arm_file(tmp_path: Path, extra: str = "", replace: tuple = ()) -> Path:
    text = ARM.replace("EXTRA", extra)
    for a, b in replace:
        assert a in text
        text = text.replace(a, b)
    path = tmp_path / "arm.urdf"
    path.write_text(text)
    return path


def test_small_arm_reads_as_links_joints_and_merged_fixed_links(tmp_path):
    """The tool fixed to the forearm is part of it (mass 1.5 kg, centre of mass by the
    lever rule, inertia by parallel axes) and a frame of it; the base is the ground;
    the continuous joint is a revolute; limits are kept."""
    robot = from_urdf(arm_file(tmp_path))
    assert list(robot.links) == ["upper", "fore"]
    assert [(n, j.kind) for n, j in robot.joints.items()] == [("shoulder", "revolute"),
                                                              ("elbow", "revolute")]
    assert robot.joints["shoulder"].limits == {"lower": -3.0, "upper": 3.0, "effort": 100.0,
                                               "velocity": 3.0}
    fore = robot.links["fore"].spec
    assert fore.mass == pytest.approx(1.5)
    assert np.allclose(fore.com, [0, 0, (1.0 * 0.2 + 0.5 * 0.4) / 1.5])
    d1, d2 = 0.2 - fore.com[2], 0.4 - fore.com[2]
    assert fore.inertia[0, 0] == pytest.approx(0.02 + 0.001 + 1.0 * d1**2 + 0.5 * d2**2)
    p, _ = robot.frame_pose("fore", "tool", robot.model.q0)
    assert np.allclose(p, [0, 0, 1.0])


@pytest.mark.parametrize("extra, replace, match", [
    ("", (('type="continuous"', 'type="floating"'),), "floating joints are not supported"),
    ("", (('type="continuous"', 'type="planar"'),), "planar joints are not supported"),
    ("", (('type="continuous"', 'type="ball"'),), "joint type 'ball'"),
    ("", (('<axis xyz="0 1 0"/>\n  </joint>\n  <joint name="flange"',
           '<axis xyz="0 1 0"/><mimic joint="shoulder"/>\n  </joint>\n  <joint '
           'name="flange"'),), "<mimic> joints"),
    ('<transmission name="t"><type>transmission_interface/DifferentialTransmission</type>'
     '<joint name="elbow"/></transmission>', (), "only simple transmissions"),
    ('<transmission name="t"><type>transmission_interface/SimpleTransmission</type>'
     '<joint name="knee"/></transmission>', (), "names joint 'knee'"),
    ('<joint name="loop" type="fixed"><parent link="upper"/><child link="tool"/></joint>',
     (), "closed chains are not supported"),
    ('<link name="spare"/>', (), "one root link"),
    ("", (('<child link="fore"/>', '<child link="forearm"/>'),), "'forearm' is not defined"),
    ("", (('<limit lower="-3" upper="3" effort="100" velocity="3"/>', ''),),
     "needs <limit>"),
    ("", (('<mass value="2.0"/>', '<mass value="0"/>'),), "'upper' has no mass"),
    ("", (('<mass value="2.0"/>', '<mass value="heavy"/>'),), "is not a number"),
    ("", (('xyz="0 0 0.5"', 'xyz="0 0.5"'),), "expected 3 finite numbers"),
    ("", (("</robot>", "</robt>"),), "not valid XML"),
])
def test_refused_urdf_features_are_named(tmp_path, extra, replace, match):
    with pytest.raises(fem.ModelError, match=re.escape(match)):
        from_urdf(arm_file(tmp_path, extra, replace))


def test_flexible_links_are_refused_without_a_section_and_where_they_cannot_span(tmp_path):
    path = arm_file(tmp_path)
    al = fem.Material(7e10, 0.33, 2700.0)
    with pytest.raises(fem.ModelError, match="section and material"):
        from_urdf(path, flexible={"upper": "ancf_beam"})
    with pytest.raises(fem.ModelError, match="is not in"):
        from_urdf(path, flexible={"shoulder": AncfBeam(al, radius=0.02)})
    with pytest.raises(fem.ModelError, match="exactly one child joint"):
        from_urdf(path, flexible={"fore": AncfBeam(al, radius=0.02)})   # the tool is fixed
    with pytest.raises(fem.ModelError, match="not found"):
        from_urdf(tmp_path / "none.urdf")


def test_flexible_upper_arm_spans_its_joints_and_its_stiff_limit_is_the_rigid_arm(tmp_path):
    """The upper arm as an aluminium tube (ANCF beam) from the shoulder to the elbow,
    its mass matched to the URDF's (``flexible_mass="urdf"``): at E × 1000 the servo
    torques along a motion equal those of the rigid arm whose upper link has the tube's
    mass and inertia, within 1 % of their range."""
    ro, ri, L, m = 0.03, 0.027, 0.5, 2.0
    ixx = m * (L**2 / 12 + (ro**2 + ri**2) / 4)
    izz = m * (ro**2 + ri**2) / 2
    tube = ('ixx="0.05" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.001"',
            f'ixx="{ixx!r}" ixy="0" ixz="0" iyy="{ixx!r}" iyz="0" izz="{izz!r}"')

    def motion(a, T=0.5):
        return fem.robot.rest_to_rest(a, T)

    torques = {}
    for label in ("rigid", "stiff"):
        flex = {}
        if label == "stiff":
            mat = fem.Material(7e10 * 1000, 0.33, 2700.0)
            flex = {"upper": AncfBeam(mat, radius=ro, wall=ro - ri, elements=2)}
        robot = from_urdf(arm_file(tmp_path, "", (tube,)), flexible=flex,
                          flexible_mass="urdf")
        if flex:
            spec = robot.links["upper"].spec
            assert spec.material.rho * spec.properties("upper")["area"] * L == \
                pytest.approx(m)
            assert robot.links["upper"].flexible
        robot.add_motor("m1", "shoulder", servo=motion(0.8))
        robot.add_motor("m2", "elbow", servo=motion(-1.0))
        res = robot.simulate(0.5, 2e-3, rho_inf=0.8)
        torques[label] = np.column_stack([res.sensors["m1 effort_Nm"],
                                          res.sensors["m2 effort_Nm"]])
    rng = np.ptp(torques["rigid"], axis=0)
    err = np.abs(torques["stiff"] - torques["rigid"]).max(axis=0) / rng
    assert err.max() < 0.01, err


def test_urdf_case_stiff_limit_is_the_rigid_arm():
    """The shipped UR5-like arm with its upper arm and forearm as aluminium tubes at
    E × 1000: the servo torques equal the rigid arm's (the tubes as rigid bodies, exact
    inverse dynamics) within 1 % of each joint's torque range."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cases"))
    import urdf_robot as case

    fig = case.run(None, stiffness_factor=1000.0, T_s=0.5, t_end_s=0.5, dt_s=2e-3)
    assert fig["flexible_links"] == ["upper_arm_link", "forearm_link"]
    assert fig["torque_difference_pct"] < 1.0, fig


@needs_pinocchio
def test_link_meshes_are_drawn_on_their_links():
    """The UR5's meshes (its collision STL files: meshio does not read the visual .dae)
    are drawn on their links: surfaces in the ParaView frames, moving with the link (a
    vertex of the wrist's mesh keeps its place in the wrist's frame at another pose)."""
    from fem.io.drawing import Drawing

    robot = from_urdf(urdf_file("ur5", None))
    robot.add_motor("m", "wrist_1_joint", servo=lambda t: (0.7 * t, 0.7, 0.0))
    d = Drawing(robot.model)
    names = {n for n in d.group_names if n.endswith("(mesh)")}
    assert {"base_link (mesh)", "wrist_3_link (mesh)"} <= names
    mesh_id = d.group_names.index("wrist_3_link (mesh)")
    tri = [t for t, g in zip(d.cells["triangle"], d.cell_group["triangle"], strict=True)
           if g == mesh_id]
    assert len(tri) > 100
    i = int(tri[0][0])
    q0, q1 = robot.model.q0, robot.place(1.0)
    p0, R0 = robot.frame_pose("wrist_3_link", "wrist_3_link", q0)
    p1, R1 = robot.frame_pose("wrist_3_link", "wrist_3_link", q1)
    x0, x1 = d.points(q0)[i], d.points(q1)[i]
    assert np.allclose(R1.T @ (x1 - p1), R0.T @ (x0 - p0), atol=1e-12)
    assert np.linalg.norm(x1 - x0) > 1e-3                      # it moved with the wrist


def test_a_link_made_flexible_by_a_reduced_fe_model(tmp_path):
    """The small arm's upper link as a Craig–Bampton reduced body of the user's FE model
    of it (an ANCF beam mesh built where the link is, interfaces named after the link
    and its child joint): stiff (E × 1000), its servo torques along a motion equal the
    rigid arm's with the same mass distribution (the rod's rigid equivalent) within 1 %."""
    ro, L = 0.03, 0.5
    steel = fem.Material(2.1e11 * 1000, 0.3, 7850.0)
    m_rod = 7850.0 * np.pi * ro**2 * L
    ixx = m_rod * (L**2 / 12 + ro**2 / 4)
    izz = m_rod * ro**2 / 2
    rod = ('<mass value="2.0"/>', f'<mass value="{m_rod!r}"/>')
    tube = ('ixx="0.05" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.001"',
            f'ixx="{ixx!r}" ixy="0" ixz="0" iyy="{ixx!r}" iyz="0" izz="{izz!r}"')
    path = arm_file(tmp_path, "", (rod, tube))
    fe = fem.Model("upper FE")
    _, nodes = fem.straight_beam(fe, (0, 0, 0.1), (0, 0, 0.6), 6, steel, section="circle",
                                 radius=ro, up=(1.0, 0.0, 0.0))
    ends = [[fe.node_field(int(n), f) for f in ("r", "r_x", "r_y", "r_z")]
            for n in (nodes[0], nodes[-1])]
    reduced = fem.robot.Reduced(fe, {"upper": ends[0], "elbow": ends[1]}, n_modes=4)

    def motion(a, T=0.5):
        return fem.robot.rest_to_rest(a, T)

    torques = {}
    for label, flex in (("rigid", {}), ("reduced", {"upper": reduced})):
        robot = from_urdf(path, flexible=flex)
        robot.add_motor("m1", "shoulder", servo=motion(0.8))
        robot.add_motor("m2", "elbow", servo=motion(-1.0))
        res = robot.simulate(0.5, 2e-3, rho_inf=0.8)
        torques[label] = np.column_stack([res.sensors["m1 effort_Nm"],
                                          res.sensors["m2 effort_Nm"]])
    err = (np.abs(torques["reduced"] - torques["rigid"]).max(axis=0)
           / np.ptp(torques["rigid"], axis=0))
    assert err.max() < 0.01, err
