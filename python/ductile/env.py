"""A Gymnasium-style environment over a Ductile scene (docs/python.md, "Environments").

A task is a scene plus a small Python class that says what an action does, what is observed, the reward and when an
episode ends. `DuctileEnv(task)` follows Gymnasium's Env protocol (reset(seed=...) -> (obs, info); step(action) ->
(obs, reward, terminated, truncated, info)) without depending on gymnasium, which Debian does not package; when
gymnasium is importable, the spaces are its `Box`es and the class is a subclass of `gymnasium.Env`.
`VectorEnv(task_factory, n)` steps n environments in one process on a thread pool (each simulator releases the GIL
while it steps).
"""
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._ductile import Simulator

try:  # optional: the real thing when present
    import gymnasium as _gym
except ImportError:  # pragma: no cover - Debian 12 has no gymnasium
    _gym = None


class Box:
    """A box of real vectors, low <= x <= high elementwise (the subset of gymnasium.spaces.Box used here)."""

    def __init__(self, low, high, shape=None, dtype=np.float32):
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape) if shape is not None else np.shape(low)
        self.low = np.broadcast_to(np.asarray(low, dtype=self.dtype), self.shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=self.dtype), self.shape).copy()
        self._rng = np.random.default_rng()

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)

    def sample(self):
        low = np.where(np.isfinite(self.low), self.low, -1.0)
        high = np.where(np.isfinite(self.high), self.high, 1.0)
        return self._rng.uniform(low, high).astype(self.dtype)

    def contains(self, x):
        x = np.asarray(x)
        return x.shape == self.shape and bool(np.all(x >= self.low) and np.all(x <= self.high))

    def __repr__(self):
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"


def make_box(low, high, shape=None):
    """gymnasium.spaces.Box when gymnasium is present, else ductile.env.Box."""
    if _gym is not None:
        return _gym.spaces.Box(low=np.float32(low) if np.isscalar(low) else np.asarray(low, np.float32),
                               high=np.float32(high) if np.isscalar(high) else np.asarray(high, np.float32),
                               shape=shape, dtype=np.float32)
    return Box(low, high, shape)


class Task:
    """What an environment does with a scene. Subclasses set `scene` (a path), optionally `overrides`, the two
    spaces and `max_steps`, and implement the methods below."""

    scene = None
    overrides = ()
    max_steps = 200
    steps_per_action = 1  # simulator steps per environment step
    action_space = None
    observation_space = None

    def reset(self, sim, rng):
        """Called after the simulator is back at t = 0, with the episode's random generator."""

    def apply(self, sim, action):
        """Turns an action into commands (teleop targets, gripper, parameters) before the steps."""
        raise NotImplementedError

    def observe(self, sim):
        raise NotImplementedError

    def reward(self, sim):
        raise NotImplementedError

    def terminated(self, sim):
        return False

    def info(self, sim):
        return {}


_Base = _gym.Env if _gym is not None else object


class DuctileEnv(_Base):
    """One simulator and one task; Gymnasium's Env protocol."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(self, task, threads=1, render_mode=None, render_size=(640, 480)):
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.task = task
        self.sim = Simulator(task.scene, overrides=list(task.overrides), threads=threads)
        self.action_space = task.action_space
        self.observation_space = task.observation_space
        self.render_mode = render_mode
        self.render_size = tuple(render_size)
        self._steps = 0
        self._rng = np.random.default_rng()

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self.action_space.seed(seed)
        self.sim.reset()
        self._steps = 0
        self.task.reset(self.sim, self._rng)
        return self.task.observe(self.sim), self.task.info(self.sim)

    def step(self, action):
        action = np.asarray(action, dtype=np.float32)
        if action.shape != self.action_space.shape:
            raise ValueError(f"an action of shape {self.action_space.shape} is needed, got {action.shape}")
        self.task.apply(self.sim, np.clip(action, self.action_space.low, self.action_space.high))
        self.sim.step(self.task.steps_per_action)
        self._steps += 1
        obs = self.task.observe(self.sim)
        terminated = bool(self.task.terminated(self.sim))
        truncated = self._steps >= self.task.max_steps
        return obs, float(self.task.reward(self.sim)), terminated, truncated, self.task.info(self.sim)

    def render(self):
        """The current state as an H x W x 3 uint8 array from the task's `camera` (None: the scene's first preset);
        None when render_mode is None, as Gymnasium has it."""
        if self.render_mode is None:
            return None
        width, height = self.render_size
        return self.sim.render(width, height, camera=getattr(self.task, "camera", None))

    def close(self):
        self.sim = None


class VectorEnv:
    """n environments stepped together on a thread pool; an environment whose episode ended is reset at once (its
    last observation goes into info["final_observation"])."""

    def __init__(self, task_factory, n, threads_per_env=1):
        self.envs = [DuctileEnv(task_factory(), threads=threads_per_env) for _ in range(n)]
        self.num_envs = n
        self.action_space = self.envs[0].action_space
        self.observation_space = self.envs[0].observation_space
        self._pool = ThreadPoolExecutor(max_workers=n)

    def reset(self, seed=None):
        seeds = [None if seed is None else seed + i for i in range(self.num_envs)]
        results = list(self._pool.map(lambda e, s: e.reset(seed=s), self.envs, seeds))
        return np.stack([r[0] for r in results]), [r[1] for r in results]

    def step(self, actions):
        def one(env, action):
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                info = dict(info, final_observation=obs)
                obs, _ = env.reset()
            return obs, reward, terminated, truncated, info

        results = list(self._pool.map(one, self.envs, list(actions)))
        return (np.stack([r[0] for r in results]), np.array([r[1] for r in results], dtype=np.float64),
                np.array([r[2] for r in results]), np.array([r[3] for r in results]), [r[4] for r in results])

    def close(self):
        self._pool.shutdown()
        for e in self.envs:
            e.close()
