"""Example tasks for ductile.env (docs/python.md, "Environments")."""
import pathlib

import numpy as np

from ._ductile import data_dir
from .env import Task, make_box

# The scenes shipped with Ductile (the source tree's scenes/ for a build-tree module).
SCENES = pathlib.Path(data_dir) / "scenes"


class PushDough(Task):
    """The iiwa arm of scenes/gripper_pinch_lift.yaml, fingers closed, pushes a 4 cm cube of dough across the table
    towards a target drawn per episode 3 to 8 cm beyond it.

    Action: the gripper's tool-point target moves by action * 2 mm per environment step (3 numbers in [-1, 1]), the
    gripper's orientation held.
    Observation: tool point (3), dough centre of mass (3), target (2) [m]. Reward: minus the dough's horizontal
    distance to the target [m]; the episode ends when it is within 1 cm."""

    scene = str(SCENES / "gripper_pinch_lift.yaml")
    max_steps = 200
    steps_per_action = 2  # 10 ms
    step_size = 0.002  # [m] per unit action: up to 0.2 m/s
    action_space = make_box(-1.0, 1.0, (3,))
    observation_space = make_box(-np.inf, np.inf, (8,))

    def __init__(self, scene=None):
        if scene is not None:
            self.scene = scene
        self.target = np.zeros(2)
        self.tool = np.zeros(3)
        self.orientation = np.array([1.0, 0, 0, 0])

    def reset(self, sim, rng):
        self.target = np.array([0.6 + rng.uniform(0.03, 0.08), rng.uniform(-0.05, 0.05)])
        sim.set_gripper("arm", opening=0.0)
        tool, self.orientation = sim.link_pose("arm", "gripper_tcp")
        self.tool = tool.copy()

    def apply(self, sim, action):
        self.tool += self.step_size * np.asarray(action, dtype=np.float64)
        self.tool[2] = max(self.tool[2], 0.215)  # not into the table (its top is at 0.198 m)
        sim.set_teleop_target("arm", "gripper_tcp", self.tool, self.orientation)  # the fingers kept pointing down

    def observe(self, sim):
        tool, _ = sim.link_pose("arm", "gripper_tcp")
        dough = sim.object_summary("dough")["center_of_mass"]
        return np.concatenate([tool, dough, self.target]).astype(np.float32)

    def distance(self, sim):
        return float(np.linalg.norm(sim.object_summary("dough")["center_of_mass"][:2] - self.target))

    def reward(self, sim):
        return -self.distance(sim)

    def terminated(self, sim):
        return self.distance(sim) < 0.01

    def info(self, sim):
        return {"distance": self.distance(sim)}
