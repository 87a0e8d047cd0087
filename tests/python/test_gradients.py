"""Gradients from Python (docs/python.md, "Gradients"): Simulator.loss_and_grad against its own central differences,
and ductile.optimize recovering a Young's modulus from a synthetic target (Adam, and L-BFGS-B where SciPy is)."""
import math

import numpy as np
import pytest

import ductile

# A block hanging from its pinned top under gravity: its centre sags by an amount set by E.
HANGING = """
simulation: {dt: 0.01}
pd_bodies:
  block: {shape: {type: box, size: [0.02, 0.02, 0.06]}, resolution: 0.01, youngs_modulus: %s, poisson_ratio: 0.3,
          pose: {position: [0, 0, 0.2]}, pin_box: {min: [-1, -1, 0.229], max: [1, 1, 1]}}
"""


def hanging(youngs_modulus):
    return ductile.Simulator.from_yaml(HANGING % youngs_modulus, threads=1)


def test_the_gradient_agrees_with_central_differences():
    sim = hanging("2.0e4")
    loss = [{"body": "block", "time": 0.2, "target": [0, 0, 0.19]},
            {"body": "block", "quantity": "velocity", "time": 0.1, "target": [0, 0, 0], "weight": 0.1}]
    r = sim.loss_and_grad(loss, wrt=["pd_bodies.block.youngs_modulus", "pd_bodies.block.poisson_ratio",
                                     "pd_bodies.block.velocity"], check_fd=True)
    assert r["steps"] == 20 and r["converged"]
    assert r["names"][2:] == ["pd_bodies.block.velocity[0]", "pd_bodies.block.velocity[1]",
                              "pd_bodies.block.velocity[2]"]
    assert r["gradient"].shape == (5,) and r["values"][0] == 2e4
    # The z velocity and the material move the sagging centre; five-point differences agree within 1e-5 relative.
    for g, d in zip(r["gradient"], r["central_difference"]):
        assert g == pytest.approx(d, rel=1e-5, abs=1e-12 * abs(r["loss"]))
    assert sim.time == 0  # the simulator's own state is untouched
    with pytest.raises(ValueError, match="gradient keys"):
        sim.loss_and_grad(loss, wrt=["pd_bodies.block.density"])
    with pytest.raises(ValueError, match="not a pd body"):
        sim.loss_and_grad([{"body": "ghost", "time": 0.1, "target": [0, 0, 0]}], wrt=[])


def test_optimize_recovers_a_youngs_modulus_from_a_synthetic_target():
    # The target: the centre at 0.3 s of the block of E = 2e4 Pa; the fit starts at 6e4, three times too stiff, and
    # works in log E (moduli span decades).
    sim = hanging("6.0e4")
    reference = hanging("2.0e4")
    reference.step(30)
    c = reference.bodies()["block"]["center_of_mass"]
    terms = [{"body": "block", "time": 0.3, "target": list(c), "weight": 1e6}]

    def fun(x):
        modulus = math.exp(x[0])
        sim.set_parameter("pd_bodies.block.youngs_modulus", repr(modulus))
        r = sim.loss_and_grad(terms, wrt=["pd_bodies.block.youngs_modulus"])
        return r["loss"], np.array([r["gradient"][0] * modulus])

    for method in ["adam"] + (["lbfgsb"] if _has_scipy() else []):
        result = ductile.optimize(fun, [math.log(6e4)], method=method, max_iterations=200,
                                  bounds=[(math.log(1e3), math.log(1e6))])
        assert math.exp(result["x"][0]) == pytest.approx(2e4, rel=0.01), (method, result["history"][-5:])
        assert result["history"][-1] < 1e-3 * result["history"][0]


def _has_scipy():
    try:
        import scipy  # noqa: F401, PLC0415
    except ImportError:
        return False
    return True
