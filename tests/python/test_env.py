"""ductile.env: the Gymnasium-style environment over the PushDough task (python/ductile/tasks.py), seeded resets,
the step protocol, and the thread-pool VectorEnv against single environments."""
import numpy as np
import pytest

from ductile.env import DuctileEnv, VectorEnv
from ductile.tasks import PushDough


def rollout(env, seed, steps):
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    observations, rewards = [obs], []
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(rng.uniform(-1, 1, 3))
        observations.append(obs)
        rewards.append(reward)
        assert not truncated
        assert reward == pytest.approx(-info["distance"])
        if terminated:
            break
    return np.stack(observations), np.array(rewards)


def test_steps_follow_the_gymnasium_protocol():
    env = DuctileEnv(PushDough())
    obs, info = env.reset(seed=3)
    assert obs.shape == env.observation_space.shape == (8,) and obs.dtype == np.float32
    assert env.action_space.shape == (3,)
    assert 0.03 <= info["distance"] <= np.hypot(0.08, 0.05) + 0.01
    action = env.action_space.sample()
    assert env.action_space.contains(action)
    obs2, reward, terminated, truncated, info = env.step(action)
    assert env.sim.time == pytest.approx(2 * env.sim.dt)
    assert np.isfinite(reward) and not truncated
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(2))


def test_moving_the_tool_moves_its_observation():
    env = DuctileEnv(PushDough())
    obs, _ = env.reset(seed=0)
    for _ in range(30):
        obs2, *_ = env.step(np.array([0.0, 1.0, 0.0]))  # the target +y, 2 mm a step (10 ms): 6 cm in 0.3 s
    # The tool follows within the arm's lag (measured 0.1 mm at the end); bound 5 mm.
    assert obs2[1] - obs[1] == pytest.approx(0.06, abs=0.005)
    assert abs(obs2[0] - obs[0]) < 0.005 and abs(obs2[2] - obs[2]) < 0.005


def test_the_same_seed_gives_the_same_episode():
    env = DuctileEnv(PushDough())
    a = rollout(env, 7, 15)
    b = rollout(env, 7, 15)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    c = rollout(env, 8, 15)
    assert not np.array_equal(a[0][0], c[0][0])  # another target


def test_vector_env_matches_single_environments():
    n, steps = 2, 10
    vec = VectorEnv(PushDough, n)
    obs, _ = vec.reset(seed=20)
    rng = np.random.default_rng(1)
    actions = rng.uniform(-1, 1, (steps, n, 3))
    for k in range(steps):
        obs, rewards, terminated, truncated, infos = vec.step(actions[k])
    vec.close()
    for i in range(n):
        env = DuctileEnv(PushDough())
        single, _ = env.reset(seed=20 + i)
        for k in range(steps):
            single, reward, *_ = env.step(actions[k, i])
        assert np.array_equal(single, obs[i])
        assert reward == rewards[i]


def test_a_scripted_grasp_lifts_the_towel_corner():
    # LiftTowelCorner: the open gripper comes down 2 cm inside the corner until its fingertips are at the table
    # (tool point 0.222 m, as in TeleopScenes.TowelIsFoldedInHalf), squeezes, and lifts to 0.30 m: the corner comes
    # up with it and the episode ends at 5 cm (measured 6.9 cm at t = 1.6 s).
    from ductile.tasks import LiftTowelCorner

    env = DuctileEnv(LiftTowelCorner(), threads=2)
    obs, info = env.reset(seed=0)
    assert obs.shape == (7,) and info["corner_height"] == 0.0
    corner = obs[4:7]
    assert corner[0] == pytest.approx(0.48) and corner[1] == pytest.approx(-0.08)
    x, y = corner[0] + 0.02, corner[1] + 0.02
    terminated = False

    def go(target, grip, steps=300):
        nonlocal terminated
        for _ in range(steps):
            d = (np.asarray(target) - env.task.tool) / env.task.step_size
            obs, reward, terminated, truncated, info = env.step(np.append(np.clip(d, -1, 1), 1.0 if grip else -1.0))
            if np.linalg.norm(np.asarray(target) - env.task.tool) < 1e-6:
                return obs, reward
        return obs, reward

    go([x, y, 0.26], False)
    obs, reward = go([x, y, 0.222], False)
    assert reward < 0.005  # the corner still lies on the table
    for _ in range(30):
        env.step(np.array([0, 0, 0, 1.0]))
    go([x, y, 0.30], True)
    for _ in range(20):
        obs, reward, terminated, truncated, info = env.step(np.array([0, 0, 0, 1.0]))
    assert reward >= 0.05 and terminated
    assert obs[6] - 0.202 == pytest.approx(reward)
