"""A six-joint serial arm with a flexible upper arm and forearm, in robot words.

A UR-like arm (joint axes z, y, y, y, z, y; upper arm 0.425 m, forearm 0.392 m) stretched
along x at zero, with a payload at the tool.  The upper arm and the forearm are solid
aluminium rods of ``radius_m`` (``link_model``: ANCF beams, floating-frame links or rigid
rods); the base and the three wrist links are rigid.  Every joint's motor is a servo
following a rest-to-rest motion of ``T_s`` (smooth to the jerk): the run is the inverse
dynamics of the flexible arm (collocated drive), from static equilibrium.

Figures: each motor's peak torque ``peak_torque_Nm`` (joints 1–6), the tool point's
largest deflection relative to the arm's rigid motion ``tool_deflection_mm`` (the
forearm's tip relative to its root frame), and with ``compare_rigid`` the rigid arm's
peak torques and the largest difference ``torque_difference_pct`` (of each joint's
torque range).  ``stiffness_factor`` multiplies E: at 1000 the torques are the rigid
arm's (``tests/test_six_joint_arm.py`` checks them against recursive Newton–Euler).
"""

from __future__ import annotations

import time

import numpy as np

import fem
from fem.robot import AncfBeam, FloatingFrame, Rigid, Robot, pose, rest_to_rest

PARAMS = {"link_model": "ancf_beam", "radius_m": 0.015, "E_Pa": 7.0e10,
          "stiffness_factor": 1.0, "elements": 4, "payload_kg": 1.0, "T_s": 0.8,
          "t_end_s": 1.0, "dt_s": 1e-3, "rho_inf": 0.8, "compare_rigid": True}
LIMITS = {"link_model": ("ancf_beam", "floating_frame", "rigid"), "radius_m": ">0",
          "E_Pa": ">0", "stiffness_factor": ">0", "elements": ">=1", "payload_kg": ">=0",
          "T_s": ">0", **fem.cases.STANDARD.limits("t_end_s", "dt_s", "rho_inf")}
DOCS = {"link_model": "model of the upper arm and forearm",
        "radius_m": "radius of the upper arm's and forearm's solid section",
        "E_Pa": "Young's modulus of the arm rods (aluminium)",
        "stiffness_factor": "factor on E (1000: the stiff limit) [-]",
        "elements": "elements (ANCF) or basis functions (floating frame) per rod [-]",
        "payload_kg": "point mass at the tool", "T_s": "duration of the joints' motion",
        "compare_rigid": "also run the rigid arm and compare torques [-]",
        **fem.cases.STANDARD.docs("t_end_s", "dt_s", "rho_inf")}
REFERENCES = ()

AXES = ("z", "y", "y", "y", "z", "y")
AMPLITUDES = (0.8, -0.6, 1.0, -0.7, 0.9, 1.2)            # rad
JOINTS = ((0, 0, 0), (0, 0, 0.089), (0.425, 0, 0.089), (0.817, 0, 0.089),
          (0.817, 0.109, 0.089), (0.817, 0.109, -0.006))
TOOL = (0.817, 0.191, -0.006)
LINK_MASSES = (3.7, None, None, 1.22, 1.22, 0.19)       # kg; None: the rods' own
RHO = 2700.0


def motion(amplitude: float, T: float):
    """Rest to rest in ``T``: θ = A s(t/T), s = 35τ⁴ − 84τ⁵ + 70τ⁶ − 20τ⁷."""
    return rest_to_rest(amplitude, T)


def rod(p0, p1, frame, radius: float, E: float, link_model: str, elements: int):
    """The rod model from ``p0`` to ``p1``; a rigid rod has the same mass and inertia
    (given in the axes of its first ``frame``)."""
    aluminium = fem.Material(E=E, nu=0.33, rho=RHO, name="aluminium")
    if link_model == "ancf_beam":
        return AncfBeam(aluminium, radius=radius, elements=elements)
    if link_model == "floating_frame":
        return FloatingFrame(aluminium, radius=radius, functions=elements)
    d = np.subtract(p1, p0)
    L = float(np.linalg.norm(d))
    t = d / L
    m = RHO * np.pi * radius**2 * L
    ia, it = m * radius**2 / 2, m * (3 * radius**2 + L**2) / 12
    inertia = ia * np.outer(t, t) + it * (np.eye(3) - np.outer(t, t))      # world axes
    R = frame.rotation
    return Rigid(m, com=R.T @ (d / 2), inertia=R.T @ inertia @ R)


def robot(**params) -> Robot:
    p = {**PARAMS, **params}
    arm = Robot("six-joint arm", gravity=(0.0, 0.0, -9.81))
    J = [np.array(j, float) for j in JOINTS] + [np.array(TOOL, float)]
    frames = [pose(J[i], z=AXES[i] if i < 6 else "y") for i in range(7)]
    for i in range(6):                       # link i runs from joint i to joint i+1
        name = f"link {i + 1}"
        ends = {f"joint {i + 1}": frames[i], "end": frames[i + 1]}
        if LINK_MASSES[i] is None:
            spec = rod(J[i], J[i + 1], frames[i], p["radius_m"],
                       p["E_Pa"] * p["stiffness_factor"], p["link_model"], p["elements"])
        else:
            m = LINK_MASSES[i] + (p["payload_kg"] if i == 5 else 0.0)
            spec = Rigid(m, com=frames[i].rotation.T @ (0.5 * (J[i + 1] - J[i])),
                         inertia=np.eye(3) * m * 0.05**2 * 0.4)
        arm.add_link(name, spec, ends)
    for i in range(6):
        parent = "ground" if i == 0 else (f"link {i}", "end")
        arm.add_joint(f"joint {i + 1}", "revolute", parent, (f"link {i + 1}", f"joint {i + 1}"))
        arm.add_motor(f"motor {i + 1}", f"joint {i + 1}", servo=motion(AMPLITUDES[i], p["T_s"]))
    floor = [fem.Model.ground((0.12 * np.cos(a), 0.12 * np.sin(a), 0.0))
             for a in np.linspace(0.0, 2 * np.pi, 13)]
    arm.model.add_sketch(floor, "base")               # the arm's foot on the floor, filled
    arm.model.view = "iso"
    return arm


def build(**params) -> fem.Model:
    return robot(**params).model


def run(out=None, **params) -> dict:
    p = {**PARAMS, **params}
    t0 = time.perf_counter()
    arm = robot(**p)
    res, tau = fem.cases.servo_run(arm, p, out)
    figures = {"peak_torque_Nm": np.abs(tau).max(axis=1).round(4).tolist(),
               "tool_deflection_mm": round(1e3 * float(np.max(
                   [np.linalg.norm(arm.deflection("link 3", q)) for q in res.q])), 4)}
    if p["compare_rigid"] and p["link_model"] != "rigid":
        _, rigid = fem.cases.servo_run(robot(**{**p, "link_model": "rigid"}), p)
        figures.update(fem.cases.rigid_comparison(tau, rigid))
    return fem.cases.finish_run(out, arm.model, res, figures, time.perf_counter() - t0)


if __name__ == "__main__":
    print(run())
