"""The Python examples in examples/python run to success (their own checks decide: a non-zero exit is a failure)."""
import os
import pathlib
import subprocess
import sys

SOURCE = pathlib.Path(os.environ.get("DUCTILE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


def run(name, *args):
    result = subprocess.run([sys.executable, str(SOURCE / "examples" / "python" / name), *args],
                            capture_output=True, text=True, timeout=300, env=os.environ.copy())
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_restore_and_replay_gives_identical_rollouts():
    out = run("restore_and_replay.py", "--steps", "15")
    assert "identical" in out


def test_random_actions_video_writes_its_frames(tmp_path):
    path = tmp_path / "push.mp4"
    out = run("random_actions_video.py", "--steps", "12", "--size", "96x64", "--out", str(path))
    assert "12 frames of 96x64" in out
    assert path.stat().st_size > 0
