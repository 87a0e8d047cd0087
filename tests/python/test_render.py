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
