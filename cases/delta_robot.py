"""A spatial Delta-type parallel robot with flexible forearms, in robot words.

Three motors on the base (axes tangent to a circle of ``base_radius_m``) turn rigid upper
arms; each forearm is one rod from the elbow to the platform with a universal joint at
each end whose axes are arranged as in Tsai's translational 3-UPU/3-RUU mechanism (the
first elbow axis along the motor, the middle axes parallel): the platform translates and
keeps its orientation, as a Delta's parallelogram forearms make it.  The platform's
centre runs once round a horizontal circle of ``path_radius_m`` in ``T_s`` (rest to
rest, smooth to the jerk); the motors are servos on the joint angles of the rigid
robot's inverse kinematics, so the run is the collocated inverse dynamics of the robot
with its forearms as ``forearm_model`` (ANCF beams, floating-frame links or rigid).

Figures: the motors' peak torques ``peak_torque_Nm``, the platform's largest distance
from its path ``path_error_mm`` (the forearms' deflection moves it), the forearms'
largest deflection ``forearm_deflection_mm``, and with ``compare_rigid`` the rigid
robot's torques and ``torque_difference_pct`` (of each motor's torque range).
``tests/test_delta_robot.py`` checks the rigid torques against Newton–Euler and the stiff
limit (E × 1000) against them.
"""

from __future__ import annotations

import time

import numpy as np

import fem
from fem.robot import AncfBeam, FloatingFrame, Rigid, Robot, pose

PARAMS = {"forearm_model": "ancf_beam", "forearm_radius_m": 0.004, "E_Pa": 7.0e10,
          "stiffness_factor": 1.0, "elements": 4, "base_radius_m": 0.15,
          "platform_radius_m": 0.04, "upper_arm_m": 0.2, "forearm_m": 0.45,
          "upper_arm_kg": 0.3, "platform_kg": 0.5, "path_radius_m": 0.08, "height_m": -0.4,
          "T_s": 0.8, "t_end_s": 1.0, "dt_s": 1e-3, "rho_inf": 0.8, "compare_rigid": True}
LIMITS = {"forearm_model": ("ancf_beam", "floating_frame", "rigid"), "E_Pa": ">0",
          "forearm_radius_m": ">0", "stiffness_factor": ">0", "elements": ">=1",
          "base_radius_m": ">0", "platform_radius_m": ">0", "upper_arm_m": ">0",
          "forearm_m": ">0", "upper_arm_kg": ">=0", "platform_kg": ">=0",
          "path_radius_m": ">=0", "T_s": ">0",
          **fem.cases.STANDARD.limits("t_end_s", "dt_s", "rho_inf")}
DOCS = {"forearm_model": "model of the forearms [-]",
        "forearm_radius_m": "radius of the forearms' solid aluminium section",
        "E_Pa": "Young's modulus of the forearms",
        "stiffness_factor": "factor on E (1000: the stiff limit) [-]",
        "elements": "elements (ANCF) or basis functions (floating frame) per forearm [-]",
        "base_radius_m": "radius of the motors' circle", "platform_radius_m":
        "radius of the platform's joints' circle", "upper_arm_m": "upper arm length",
        "forearm_m": "forearm length", "upper_arm_kg": "mass of each upper arm",
        "platform_kg": "mass of the platform", "path_radius_m": "radius of the path",
        "height_m": "height of the path below the motors", "T_s": "time for one round",
        "compare_rigid": "also run the rigid robot and compare torques [-]",
        **fem.cases.STANDARD.docs("t_end_s", "dt_s", "rho_inf")}
REFERENCES = ()
RHO = 2700.0


def path(p: dict, t: float):
    """The platform centre's position, velocity and acceleration at ``t``."""
    T, rho = p["T_s"], p["path_radius_m"]
    s = min(max(t / T, 0.0), 1.0)
    f = 2 * np.pi * np.array([35 * s**4 - 84 * s**5 + 70 * s**6 - 20 * s**7,
                              (140 * s**3 - 420 * s**4 + 420 * s**5 - 140 * s**6) / T,
                              (420 * s**2 - 1680 * s**3 + 2100 * s**4 - 840 * s**5) / T**2])
    c, sn = np.cos(f[0]), np.sin(f[0])
    x = np.array([rho * c, rho * sn, p["height_m"]])
    v = rho * f[1] * np.array([-sn, c, 0.0])
    a = rho * f[2] * np.array([-sn, c, 0.0]) - rho * f[1] ** 2 * np.array([c, sn, 0.0])
    return x, v, a


def inverse_kinematics(p: dict, i: int, t: float) -> tuple[float, float, float]:
    """Motor ``i``'s angle (arm down from horizontal), rate and acceleration for the path:
    the elbow ``E(θ)`` stays at the forearm's length from the platform's joint ``P``,
    ``f = |E(θ) − P|² − L_f² = 0``, differentiated implicitly twice."""
    phi = 2 * np.pi * i / 3
    r = np.array([np.cos(phi), np.sin(phi), 0.0])
    x, v, a = path(p, t)
    d = p["base_radius_m"] * r - (x + p["platform_radius_m"] * r)     # B − P
    La, Lf = p["upper_arm_m"], p["forearm_m"]
    A, B = 2 * La * (d @ r), -2 * La * d[2]                # f = A cos θ + B sin θ + C
    C = d @ d + La**2 - Lf**2
    th = 2 * np.arctan((-B - np.sqrt(A * A + B * B - C * C)) / (C - A))   # elbow outward
    e = La * np.array([*(np.cos(th) * r[:2]), -np.sin(th)])              # E − B
    g = d + e                                                             # E − P
    de = La * np.array([*(-np.sin(th) * r[:2]), -np.cos(th)])            # ∂E/∂θ
    dde = -e
    f_th = 2 * g @ de
    thd = (2 * g @ v) / f_th
    gd = de * thd - v
    thdd = -(2 * gd @ gd + 2 * g @ (dde * thd**2) - 2 * g @ a) / f_th
    return th, thd, thdd


def robot(**params) -> Robot:
    p = {**PARAMS, **params}
    delta = Robot("delta robot", gravity=(0.0, 0.0, -9.81))
    x0 = path(p, 0.0)[0]
    E = p["E_Pa"] * p["stiffness_factor"]
    alu = fem.Material(E=E, nu=0.33, rho=RHO, name="aluminium")
    Rf, Lf, La = p["forearm_radius_m"], p["forearm_m"], p["upper_arm_m"]
    mf = RHO * np.pi * Rf**2 * Lf
    plat = {"centre": pose(x0)}
    for i in range(3):
        plat[f"joint {i + 1}"] = pose(x0 + p["platform_radius_m"] * _radial(i))
    delta.add_link("platform", Rigid(p["platform_kg"], inertia=np.eye(3) * 1e-4), plat)
    for i in range(3):
        r, t = _radial(i), np.array([-np.sin(2 * np.pi * i / 3), np.cos(2 * np.pi * i / 3), 0])
        B = p["base_radius_m"] * r
        th = inverse_kinematics(p, i, 0.0)[0]
        Ei = B + La * np.array([*(np.cos(th) * r[:2]), -np.sin(th)])
        arm = pose(B, z=t, x=Ei - B)
        ma = p["upper_arm_kg"]
        delta.add_link(f"upper arm {i + 1}", Rigid(ma, com=(La / 2, 0, 0), inertia=np.diag(
            [0.0, 1.0, 1.0]) * ma * La**2 / 12), {"motor": arm, "elbow": pose(Ei, z=t, x=Ei - B)})
        Pi = plat[f"joint {i + 1}"].position
        d = (Pi - Ei) / Lf
        fa = pose(Ei, x=d, z=t - (t @ d) * d)          # x along the forearm
        n = np.cross(t, d)
        if p["forearm_model"] == "rigid":
            spec = Rigid(mf, com=(Lf / 2, 0, 0), inertia=np.diag(
                [mf * Rf**2 / 2, *[mf * (3 * Rf**2 + Lf**2) / 12] * 2]))
        elif p["forearm_model"] == "floating_frame":
            spec = FloatingFrame(alu, radius=Rf, functions=p["elements"])
        else:
            spec = AncfBeam(alu, radius=Rf, elements=p["elements"])
        delta.add_link(f"forearm {i + 1}", spec, {"elbow": fa, "platform": pose(Pi, rotation=
                                                                                fa.rotation)})
        delta.add_joint(f"motor joint {i + 1}", "revolute", "ground", (f"upper arm {i + 1}",
                                                                       "motor"))
        delta.add_joint(f"elbow {i + 1}", "universal", (f"upper arm {i + 1}", "elbow"),
                        (f"forearm {i + 1}", "elbow"), axis="z", axis2=fa.rotation.T @ n)
        delta.add_joint(f"wrist {i + 1}", "universal", (f"forearm {i + 1}", "platform"),
                        ("platform", f"joint {i + 1}"), axis=fa.rotation.T @ n, axis2=t)
        delta.add_motor(f"motor {i + 1}", f"motor joint {i + 1}", servo=_servo(p, i, th))
    base = [fem.Model.ground(p["base_radius_m"] * _radial(i % 3)) for i in range(4)]
    delta.model.add_sketch(base, "base")              # the motors' plate, drawn filled
    circle = [fem.Model.ground(path(p, p["T_s"] * k / 48)[0]) for k in range(48)]  # open
    delta.model.add_sketch(circle, "platform path")
    return delta


def _radial(i: int) -> np.ndarray:
    return np.array([np.cos(2 * np.pi * i / 3), np.sin(2 * np.pi * i / 3), 0.0])


def _servo(p: dict, i: int, th0: float):
    """The joint's motion (its angle from the build pose) from the inverse kinematics."""
    def motion(t):
        th, thd, thdd = inverse_kinematics(p, i, t)
        return th - th0, thd, thdd
    return motion


def build(**params) -> fem.Model:
    return robot(**params).model


def run(out=None, **params) -> dict:
    p = {**PARAMS, **params}
    t0 = time.perf_counter()
    delta = robot(**p)
    res, tau = fem.cases.servo_run(delta, p, out)
    centre = delta.links["platform"].frames["centre"].origin
    err = max(np.linalg.norm(centre(q) - path(p, t)[0]) for t, q in zip(res.t, res.q,
                                                                          strict=True))
    defl = [delta.deflection(f"forearm {i + 1}", q) for q in res.q for i in range(3)] \
        if p["forearm_model"] != "rigid" else [np.zeros(3)]
    figures = {"peak_torque_Nm": np.abs(tau).max(axis=1).round(4).tolist(),
               "path_error_mm": round(1e3 * float(err), 4),
               "forearm_deflection_mm": round(1e3 * float(np.max(np.linalg.norm(
                   defl, axis=1))), 4)}
    if p["compare_rigid"] and p["forearm_model"] != "rigid":
        _, rigid = fem.cases.servo_run(robot(**{**p, "forearm_model": "rigid"}), p)
        figures.update(fem.cases.rigid_comparison(tau, rigid))
    return fem.cases.finish_run(out, delta.model, res, figures, time.perf_counter() - t0)


if __name__ == "__main__":
    print(run())
