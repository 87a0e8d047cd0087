"""Example tasks for ductile.env (docs/python.md, "Environments")."""
import pathlib

import numpy as np

from ._data import data_dir
from .env import Task, make_box

# The scenes shipped with Ductile (the source tree's scenes/ for a build-tree module).
SCENES = pathlib.Path(data_dir) / "scenes"


class _ToolTask(Task):
    """A task whose action moves the teleop target of the iiwa's gripper tool point (`step_size` metres per unit),
    its orientation held as it was at the episode's start (the fingers pointing down), never below `floor`."""

    step_size = 0.002  # [m] per unit action: up to 0.2 m/s at 10 ms a step
    floor = 0.2  # [m]: lowest tool-point target

    def __init__(self, scene=None):
        if scene is not None:
            self.scene = scene
        self.tool = np.zeros(3)
        self.orientation = np.array([1.0, 0, 0, 0])

    def hold_tool(self, sim):
        """The target at the tool point where it is now (at the episode's start)."""
        tool, self.orientation = sim.link_pose("arm", "gripper_tcp")
        self.tool = tool.copy()

    def move_tool(self, sim, delta):
        self.tool += self.step_size * np.asarray(delta, dtype=np.float64)
        self.tool[2] = max(self.tool[2], self.floor)
        sim.set_teleop_target("arm", "gripper_tcp", self.tool, self.orientation)


class PushDough(_ToolTask):
    """The iiwa arm of scenes/gripper_pinch_lift.yaml, fingers closed, pushes a 4 cm cube of dough across the table
    towards a target drawn per episode 3 to 8 cm beyond it.

    Action: the gripper's tool-point target moves by action * 2 mm per environment step (3 numbers in [-1, 1]), the
    gripper's orientation held.
    Observation: tool point (3), dough centre of mass (3), target (2) [m]. Reward: minus the dough's horizontal
    distance to the target [m]; the episode ends when it is within 1 cm."""

    scene = str(SCENES / "gripper_pinch_lift.yaml")
    max_steps = 200
    steps_per_action = 2  # 10 ms
    floor = 0.215  # the closed fingers above the table (its top is at 0.198 m)
    action_space = make_box(-1.0, 1.0, (3,))
    observation_space = make_box(-np.inf, np.inf, (8,))

    def __init__(self, scene=None):
        super().__init__(scene)
        self.target = np.zeros(2)

    def reset(self, sim, rng):
        self.target = np.array([0.6 + rng.uniform(0.03, 0.08), rng.uniform(-0.05, 0.05)])
        sim.set_gripper("arm", opening=0.0)
        self.hold_tool(sim)

    def apply(self, sim, action):
        self.move_tool(sim, action)

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


class LiftTowelCorner(_ToolTask):
    """The iiwa arm of scenes/towel_fold.yaml over a 24 x 16 cm terry towel lying on the table: grab a corner and lift
    it.

    Action: 4 numbers in [-1, 1]: the tool-point target moves by the first three * 2 mm per environment step (the
    gripper's orientation held), and the gripper squeezes with 10 N per finger while the fourth is above 0 (the
    pads gather the cloth between them, as in TeleopScenes.TowelIsFoldedInHalf), opens otherwise. Observation:
    tool point (3), gripper command (1: open, 0: squeezing), the corner vertex (3) [m]. Reward: the corner's height above where it
    lay [m]; the episode ends when it is 5 cm up."""

    scene = str(SCENES / "towel_fold.yaml")
    max_steps = 300
    steps_per_action = 2  # 10 ms
    floor = 0.2  # the fingertips at the table (its top is at 0.198 m)
    lifted = 0.05
    squeeze = 10.0  # [N] per finger
    action_space = make_box(-1.0, 1.0, (4,))
    observation_space = make_box(-np.inf, np.inf, (7,))

    def __init__(self, scene=None):
        super().__init__(scene)
        self.opening = 1.0
        self.corner = 0
        self.rest_height = 0.0

    def reset(self, sim, rng):
        # The corner: the towel's vertex nearest (−x, −y), in particle id order (stable across steps).
        towel = sim.objects().index("towel")
        x = sim.particle_positions()
        ids = np.flatnonzero(sim.particle_objects() == towel)
        self.corner = int(ids[np.argmin(x[ids, 0] + x[ids, 1])])
        self.rest_height = float(x[self.corner, 2])
        self.hold_tool(sim)
        self.opening = 1.0
        sim.set_gripper("arm", opening=1.0)

    def apply(self, sim, action):
        self.move_tool(sim, action[:3])
        opening = 0.0 if action[3] > 0 else 1.0
        if opening != self.opening:
            self.opening = opening
            if opening == 0.0:
                sim.set_gripper("arm", force=self.squeeze)
            else:
                sim.set_gripper("arm", opening=1.0)

    def corner_position(self, sim):
        return sim.particle_positions()[self.corner]

    def observe(self, sim):
        tool, _ = sim.link_pose("arm", "gripper_tcp")
        return np.concatenate([tool, [self.opening], self.corner_position(sim)]).astype(np.float32)

    def reward(self, sim):
        return float(self.corner_position(sim)[2] - self.rest_height)

    def terminated(self, sim):
        return self.reward(sim) >= self.lifted

    def info(self, sim):
        return {"corner_height": self.reward(sim)}
