"""Runs the PushDough environment for 200 steps with random actions, renders every step into a NumPy array and
writes the frames as an MP4: what a data-collection loop looks like.

    PYTHONPATH=build/release/python python3 examples/python/random_actions_video.py [--steps 200] [--out push.mp4]
"""
import argparse

import numpy as np

import ductile
from ductile.env import DuctileEnv
from ductile.tasks import PushDough


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--out", default="push_dough.mp4")
    parser.add_argument("--size", default="480x360", help="WIDTHxHEIGHT of the frames (even numbers)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    env = DuctileEnv(PushDough(), render_mode="rgb_array", render_size=(width, height))
    obs, info = env.reset(seed=args.seed)
    total = 0.0
    frames = []
    with ductile.VideoWriter(args.out, width, height, fps=env.metadata["render_fps"]) as video:
        for _ in range(args.steps):
            obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
            total += reward
            frame = env.render()  # H x W x 3 uint8
            frames.append(frame.mean())
            video.write(frame)
            if terminated or truncated:
                obs, info = env.reset()
    print(f"{args.steps} steps, return {total:.3f}, last distance {info['distance'] * 100:.1f} cm, "
          f"{len(frames)} frames of {width}x{height} (mean brightness {np.mean(frames):.0f}) in {args.out}")


if __name__ == "__main__":
    main()
