"""The Delta-type robot case (written in robot words): the rigid robot's motor torques
against Newton–Euler (fem.rigid: each body's balance with the joints' reactions, solved
as one system; the bodies' motion taken from the run), and the stiff limit of its
flexible forearms against the rigid robot."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import fem
from fem.rigid import newton_euler as ne

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cases"))
import delta_robot as case  # noqa: E402


def _body_motion(delta, name, res):
    """Centre of mass, its acceleration, ω, ε and the world inertia of a rigid link over
    the run: ω = ½ Σ eᵢ × ėᵢ and ε = ½ Σ eᵢ × ëᵢ for the body's orthonormal axes."""
    link = delta.links[name]
    model = delta.model
    dofs = model.node_dofs(link.body.node, ("r", "u", "v", "w"))
    spec = link.spec
    com, acc, om, eps, inertia = [], [], [], [], []
    for q, v, a in zip(res.q, res.v, res.a, strict=True):
        x, xd, xdd = (y[dofs].reshape(4, 3) for y in (q, v, a))
        R = x[1:].T
        w = 0.5 * sum(np.cross(x[1 + i], xd[1 + i]) for i in range(3))
        e = 0.5 * sum(np.cross(x[1 + i], xdd[1 + i]) for i in range(3))
        c = R @ spec.com
        com.append(x[0] + c)
        acc.append(xdd[0] + np.cross(e, c) + np.cross(w, np.cross(w, c)))
        om.append(w)
        eps.append(e)
        inertia.append(R @ spec.inertia @ R.T)
    return ne.Link(name, spec.mass, np.array(com), np.array(acc), np.array(om),
                   np.array(eps), np.array(inertia))


def newton_euler_torques(delta, res) -> np.ndarray:
    names = ["platform"] + [f"{k} {i + 1}" for i in range(3) for k in ("upper arm",
                                                                         "forearm")]
    links = [_body_motion(delta, n, res) for n in names]
    joints = []
    at = lambda m: np.array([np.asarray(m(q), float) for q in res.q])      # noqa: E731
    for i in range(3):
        mj = delta.joints[f"motor joint {i + 1}"]
        joints.append(ne.revolute(f"motor {i + 1}", f"upper arm {i + 1}", None,
                                  mj.parent.pose.position, mj.parent.pose.rotation[:, 2],
                                  driven=True))
        for jn, link, other in ((f"elbow {i + 1}", f"forearm {i + 1}", f"upper arm {i + 1}"),
                                (f"wrist {i + 1}", "platform", f"forearm {i + 1}")):
            j = delta.joints[jn]
            a_parent, a_child = at(j.parent.vector(j.axis)), at(j.child.vector(j.axis2))
            joints.append(ne.universal(jn, link, other, at(j.parent.origin), a_child,
                                       a_parent))
    sol = ne.solve_inverse_dynamics(links, joints, [ne.Chain("all", names,
                                                             [j.name for j in joints])],
                                    gravity=delta.model.gravity)
    return np.array([sol.component(f"motor {i + 1}", "M_axis") for i in range(3)])


def test_rigid_delta_torques_are_newton_euler():
    p = {**case.PARAMS, "forearm_model": "rigid"}
    delta = case.robot(**p)
    times = np.linspace(0.0, p["T_s"], 17)
    res = fem.driven_inverse_dynamics(delta.model, times)
    centre = delta.links["platform"].frames["centre"].origin
    assert max(np.linalg.norm(centre(q) - case.path(p, t)[0])
               for t, q in zip(times, res.q, strict=True)) < 1e-12
    got = np.array([[delta.efforts(q, lam)[f"motor {i + 1}"] for i in range(3)]
                    for q, lam in zip(res.q, res.lam, strict=True)]).T
    ref = newton_euler_torques(delta, res)
    assert np.all(np.abs(got - ref).max(axis=1) <= 1e-8 * np.ptp(ref, axis=1))


@pytest.mark.parametrize("forearm_model", [
    "ancf_beam", pytest.param("floating_frame", marks=pytest.mark.slow)])
def test_stiff_flexible_forearms_are_the_rigid_robot(forearm_model):
    """E × 1000: the servo torques within 1 % of each motor's range of the rigid robot's
    (exact inverse dynamics at the same instants)."""
    p = {**case.PARAMS, "forearm_model": forearm_model, "stiffness_factor": 1000.0,
         "t_end_s": case.PARAMS["T_s"], "dt_s": 2e-3, "elements": 2}
    res, tau = fem.cases.servo_run(case.robot(**p), p)
    rigid = case.robot(**{**p, "forearm_model": "rigid"})
    exact = fem.driven_inverse_dynamics(rigid.model, res.t)
    ref = np.array([[rigid.efforts(q, lam)[f"motor {i + 1}"] for i in range(3)]
                    for q, lam in zip(exact.q, exact.lam, strict=True)]).T
    err = np.abs(tau - ref).max(axis=1) / np.ptp(ref, axis=1)
    assert np.all(err <= 0.01), err
