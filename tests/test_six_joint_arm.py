"""The six-joint arm case (written in robot words) against recursive Newton–Euler: an
independent inverse dynamics of the same rigid arm (world-frame recursion, product of
exponentials for the kinematics), written here from the textbook equations."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import fem

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cases"))
import six_joint_arm as case  # noqa: E402


def _rot(axis: np.ndarray, angle: float) -> np.ndarray:
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


GRAVITY = np.array([0.0, 0.0, -9.81])


def rnea(arm, th, thd, thdd, g=GRAVITY) -> np.ndarray:
    """Joint torques of the rigid serial arm: forward recursion of ω, ε and the joint
    points' accelerations, backward recursion of forces and moments about each joint;
    τᵢ = wᵢ·nᵢ.  Masses, centres and inertias from the arm's rigid bodies at build."""
    links = [arm.links[f"link {i + 1}"] for i in range(6)]
    joints = [arm.joints[f"joint {i + 1}"] for i in range(6)]
    P0 = [j.child.pose.position for j in joints]
    W0 = [j.child.pose.rotation[:, 2] for j in joints]
    R = np.eye(3)
    p_prev, w_prev, e_prev, a_prev = np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3)
    shift = np.zeros(3)            # the moved position of the previous joint point
    state = []
    for i in range(6):
        p = shift + R @ (P0[i] - (P0[i - 1] if i else P0[i])) if i else P0[0].copy()
        a_p = (a_prev + np.cross(e_prev, p - p_prev)
               + np.cross(w_prev, np.cross(w_prev, p - p_prev))) if i else np.zeros(3)
        w_axis = R @ W0[i]
        R = R @ _rot(W0[i], th[i])          # product of exponentials, zero-pose axes
        w = w_prev + w_axis * thd[i]
        e = e_prev + w_axis * thdd[i] + np.cross(w_prev, w_axis * thd[i])
        body = links[i].spec
        F = links[i].frames[f"joint {i + 1}"].pose.rotation      # the link frame at build
        c = p + R @ (F @ body.com)
        I = R @ F @ body.inertia @ F.T @ R.T
        a_c = a_p + np.cross(e, c - p) + np.cross(w, np.cross(w, c - p))
        state.append((p, w_axis, w, e, c, I, a_c, body.mass))
        p_prev, w_prev, e_prev, a_prev, shift = p, w, e, a_p, p
    tau = np.zeros(6)
    f_next, n_next, p_next = np.zeros(3), np.zeros(3), np.zeros(3)
    for i in reversed(range(6)):
        p, w_axis, w, e, c, I, a_c, m = state[i]
        f_in = m * (a_c - g)
        f = f_in + f_next
        n = (I @ e + np.cross(w, I @ w) + np.cross(c - p, f_in) + n_next
             + np.cross(p_next - p, f_next))
        tau[i] = w_axis @ n
        f_next, n_next, p_next = f, n, p
    return tau


def _reference(arm, p, times):
    motions = [case.motion(a, p["T_s"]) for a in case.AMPLITUDES]
    out = []
    for t in times:
        m = np.array([f(t) for f in motions])
        out.append(rnea(arm, m[:, 0], m[:, 1], m[:, 2]))
    return np.array(out)


def test_rigid_arm_torques_are_newton_euler():
    p = {**case.PARAMS, "link_model": "rigid"}
    arm = case.robot(**p)
    times = np.linspace(0.0, p["T_s"], 17)
    res = fem.driven_inverse_dynamics(arm.model, times)
    got = np.array([[arm.efforts(q, lam)[f"motor {i + 1}"] for i in range(6)]
                    for q, lam in zip(res.q, res.lam, strict=True)])
    ref = _reference(arm, p, times)
    span = np.ptp(ref, axis=0)
    assert np.all(np.abs(got - ref).max(axis=0) <= 1e-8 * span)


@pytest.mark.parametrize("link_model", [
    "ancf_beam", pytest.param("floating_frame", marks=pytest.mark.slow)])   # 42 s NumPy
def test_stiff_flexible_arm_is_the_rigid_arm(link_model):
    """E × 1000: the flexible arm's servo torques within 1 % of each joint's range of the
    rigid arm's (recursive Newton–Euler), joints 1–4 (5 and 6 carry only the wrist)."""
    p = {**case.PARAMS, "link_model": link_model, "stiffness_factor": 1000.0,
         "t_end_s": case.PARAMS["T_s"], "dt_s": 2e-3, "elements": 2}
    arm = case.robot(**p)
    res, tau = fem.cases.servo_run(arm, p)
    ref = _reference(case.robot(**{**p, "link_model": "rigid"}), p, res.t)
    span = np.ptp(ref, axis=0)
    err = np.abs(tau.T - ref).max(axis=0) / span
    assert np.all(err[:4] <= 0.01), err
