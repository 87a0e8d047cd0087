"""Restore a saved state and run two rollouts from it with the same random teleoperation actions: the
observations (dough particle positions, gripper pose) come out identical, bit for bit.

    PYTHONPATH=build/release/python python3 examples/python/restore_and_replay.py [--steps 40]
"""
import argparse
import pathlib

import numpy as np

import ductile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def observe(sim):
    position, quaternion = sim.link_pose("arm", "gripper_tcp")
    return np.concatenate([sim.particle_positions().ravel(), position, quaternion])


def rollout(sim, target, actions):
    """Moves the teleop target by each action's step (the target, not the measured pose: an arm that lags its
    target would otherwise ratchet down under its own weight) and sets the gripper's opening."""
    observations = []
    target = np.array(target)
    for delta, opening in actions:
        target += delta
        sim.set_teleop_target("arm", "gripper_tcp", target)
        sim.set_gripper("arm", opening=opening)
        sim.step()
        observations.append(observe(sim))
    return np.stack(observations)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40, help="steps per rollout")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sim = ductile.Simulator(str(ROOT / "scenes" / "gripper_pinch_lift.yaml"))
    sim.step(20)  # settle
    start = sim.save_state()
    target, _ = sim.link_pose("arm", "gripper_tcp")
    rng = np.random.default_rng(args.seed)
    actions = [(rng.uniform(-0.002, 0.002, 3), rng.uniform(0, 1)) for _ in range(args.steps)]
    first = rollout(sim, target, actions)
    sim.restore_state(start)
    second = rollout(sim, target, actions)
    same = np.array_equal(first, second)
    moved = np.linalg.norm(first[-1, -7:-4] - first[0, -7:-4])
    print(f"{args.steps} steps from t = {20 * sim.dt:.3f} s, {sim.num_particles} particles, the gripper moved "
          f"{1e3 * moved:.1f} mm: the two rollouts are {'identical' if same else 'DIFFERENT'} "
          f"(largest difference {np.abs(first - second).max():.3g})")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
