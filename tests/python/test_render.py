"""Frames and videos from Python (python/src/pictures.cpp): Simulator.render into NumPy arrays (lavapipe where there is
no GPU), camera choices and their errors, DuctileEnv.render, and VideoWriter's MP4 read back by ffprobe."""
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import ductile
from ductile.env import DuctileEnv
from ductile.tasks import PushDough
from scene_text import CUBE

SOURCE = pathlib.Path(os.environ.get("DUCTILE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SCENE = str(SOURCE / "scenes" / "gripper_pinch_lift.yaml")


def test_render_draws_the_scene_into_an_rgb_array():
    sim = ductile.Simulator(SCENE, threads=1)
    frame = sim.render(160, 120)
    assert frame.shape == (120, 160, 3) and frame.dtype == np.uint8
    # A picture, not a blank: the table, the arm and the ground differ in colour.
    assert frame.std() > 10
    # The same state drawn again is the same picture (from the second frame on bit for bit; the first differs by at
    # most 2 of 255 in 0.4% of its pixels, before the renderer's cached ground texture is made); a preset by name is
    # the default (the scene's first).
    again = sim.render(160, 120)
    assert np.abs(frame.astype(int) - again).max() <= 2
    assert np.array_equal(again, sim.render(160, 120, camera="three_quarter"))
    other = sim.render(160, 120, camera="front")
    assert not np.array_equal(frame, other)
    posed = sim.render(160, 120, camera={"eye": [1.0, -0.42, 0.5], "target": [0.6, 0, 0.29], "fov": 35})
    assert np.array_equal(posed, again)  # the preset's own pose
    beads = sim.render(160, 120, particles="beads", color="speed")
    assert beads.shape == frame.shape


def test_render_refuses_bad_requests():
    sim = ductile.Simulator(SCENE, threads=1)
    with pytest.raises(KeyError, match="no camera preset 'nowhere'"):
        sim.render(64, 64, camera="nowhere")
    with pytest.raises(ValueError, match="color"):
        sim.render(64, 64, color="rainbow")
    with pytest.raises(ValueError, match="eye"):
        sim.render(64, 64, camera={"target": [0, 0, 0]})
    with pytest.raises(ValueError, match="16"):
        sim.render(8, 8)


def test_env_renders_when_asked():
    env = DuctileEnv(PushDough(), render_mode="rgb_array", render_size=(96, 64))
    env.reset(seed=0)
    assert env.render().shape == (64, 96, 3)
    assert DuctileEnv(PushDough()).render() is None
    with pytest.raises(ValueError, match="render_mode"):
        DuctileEnv(PushDough(), render_mode="human")


def test_video_writer_writes_every_frame(tmp_path):
    sim = ductile.Simulator(SCENE, threads=1)
    path = tmp_path / "clip.mp4"
    with ductile.VideoWriter(str(path), 96, 64, fps=25) as video:
        for _ in range(7):
            sim.step()
            video.write(sim.render(96, 64))
        assert video.frames == 7
    probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                            "stream=nb_read_frames,width,height", "-of", "json", str(path)],
                           capture_output=True, text=True, check=True)
    stream = json.loads(probe.stdout)["streams"][0]
    assert (int(stream["nb_read_frames"]), stream["width"], stream["height"]) == (7, 96, 64)
    with pytest.raises(ValueError, match="shape"):
        with ductile.VideoWriter(str(tmp_path / "bad.mp4"), 96, 64) as video:
            video.write(np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(ValueError, match="missing"):
        ductile.VideoWriter(str(tmp_path / "missing" / "x.mp4"), 96, 64)


def _axis_depth_of_plane(eye, target, fov_deg, width, height, z):
    """Per pixel centre, the depth along the viewing axis where its ray meets the plane at height z (nan where it does
    not), and the point hit: the camera's frame as the renderer builds it (forward, right = forward x up,
    up' = right x forward), image y down."""
    eye, target = np.asarray(eye, float), np.asarray(target, float)
    forward = (target - eye) / np.linalg.norm(target - eye)
    right = np.cross(forward, [0, 0, 1])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    t = np.tan(np.radians(fov_deg) / 2)
    u = 2 * (np.arange(width) + 0.5) / width - 1
    v = 2 * (np.arange(height) + 0.5) / height - 1
    rays = (forward[None, None, :] + (u[None, :, None] * t * width / height) * right[None, None, :]
            - (v[:, None, None] * t) * up[None, None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (z - eye[2]) / rays[..., 2]
    s[s <= 0] = np.nan
    return s, eye + s[..., None] * rays


def test_render_returns_a_depth_image_along_the_viewing_axis():
    sim = ductile.Simulator.from_yaml(CUBE, threads=1)
    camera = {"eye": [0.05, -0.5, 0.6], "target": [0, 0, 0.1], "fov": 40}
    rgb, depth = sim.render(160, 120, camera=camera, depth=True)
    assert rgb.shape == (120, 160, 3) and depth.shape == (120, 160) and depth.dtype == np.float32
    # The colour is render()'s (within the first frame's 2 levels before the ground cache exists; see above).
    assert np.abs(rgb.astype(int) - sim.render(160, 120, camera=camera)).max() <= 2
    # The table's top, z = 0.1, in front of the cube and the box (y < -4 cm: no ray from the eye at y = -0.5 to
    # there passes them) and 2 cm in from its edges: the depth of the ray-plane intersection, to 1e-4 relative (32-bit
    # depth at under a metre resolves better than 1e-5 m).
    s, p = _axis_depth_of_plane(camera["eye"], camera["target"], 40, 160, 120, 0.1)
    table = (np.abs(p[..., 0]) < 0.13) & (p[..., 1] > -0.13) & (p[..., 1] < -0.04)
    assert table.sum() > 500
    assert np.allclose(depth[table], s[table], rtol=1e-4)
    # The cube's top face, z = 0.18 over |x|, |y| < 2 cm: the surface drawn over its particles lies within half a
    # particle spacing (5 mm) of it (measured: 1.4 to 3.6 mm behind it along the axis).
    s, p = _axis_depth_of_plane(camera["eye"], camera["target"], 40, 160, 120, 0.18)
    top = (np.abs(p[..., 0]) < 0.02) & (np.abs(p[..., 1]) < 0.02)
    assert top.sum() > 20
    assert np.all(np.abs(depth[top] - s[top]) < 0.005)
    # The image's top row sees the ground grid at z = 0 beyond the table; a camera looking up sees nothing above the
    # horizon: infinity.
    s, _ = _axis_depth_of_plane(camera["eye"], camera["target"], 40, 160, 120, 0.0)
    assert np.allclose(depth[0], s[0], rtol=1e-4)
    _, sky = sim.render(160, 120, camera={"eye": [0, -0.5, 0.3], "target": [0, 0, 0.35], "fov": 40}, depth=True)
    assert np.isinf(sky[0]).all() and np.isfinite(sky[-1]).any()
    # With anti-aliasing the depth comes from a one-sample render beside the colour's: the same depth.
    rgb4, depth4 = sim.render(160, 120, camera=camera, samples=4, depth=True)
    assert np.array_equal(depth4, depth) and not np.array_equal(rgb4, rgb)
