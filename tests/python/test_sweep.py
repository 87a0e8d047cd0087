"""ductile-cli sweep (app/cli/sweep_command.cpp): the product of --grid overrides (and --seeds), a folder and a summary
row per run, a failed run a row with its reason, the runs split between two Open MPI ranks, and a sweep killed half-way and
started again that completes without redoing the runs it had finished."""
import csv
import os
import pathlib
import signal
import subprocess
import time

import pytest

import ductile

SOURCE = pathlib.Path(os.environ.get("DUCTILE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
CLI = str(pathlib.Path(ductile.__file__).resolve().parents[2] / "app" / "cli" / "ductile-cli")
SCENE = str(SOURCE / "scenes" / "elastic_cube_drop.yaml")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "2"]


def summary(folder):
    with open(folder / "summary.csv") as f:
        return list(csv.DictReader(f))


def test_a_grid_sweep_writes_a_folder_and_a_row_per_run_and_a_failure_is_a_row(tmp_path):
    out = tmp_path / "sweep"
    subprocess.run([CLI, "sweep", SCENE, "--grid", "materials.rubber.youngs_modulus=5e4,1e5", "--grid",
                    "materials.rubber.poisson_ratio=0.2,0.5", "--duration", "0.01", "--out", str(out)], check=True,
                   capture_output=True)
    rows = summary(out)
    assert [r["run"] for r in rows] == ["run_0000", "run_0001", "run_0002", "run_0003"]
    assert [(r["materials.rubber.youngs_modulus"], r["materials.rubber.poisson_ratio"]) for r in rows] == [
        ("5e4", "0.2"), ("5e4", "0.5"), ("1e5", "0.2"), ("1e5", "0.5")]
    assert [r["status"] for r in rows] == ["ok", "failed", "ok", "failed"]
    assert "poisson_ratio" in rows[1]["reason"] and rows[1]["exit_code"] == "2"
    for run in ("run_0000", "run_0002"):
        assert (out / run / "stats.json").stat().st_size > 0
        assert (out / run / "trajectory.csv").stat().st_size > 0


def test_two_sweeps_on_one_folder_share_its_runs(tmp_path):
    # Started twice at once (or restarted while a killed mpirun's ranks still run: the test below), the sweeps take
    # each run under a lock, so no run is started by both and both end with the whole folder done.
    out = tmp_path / "twice"
    args = [CLI, "sweep", SCENE, "--grid", "materials.rubber.youngs_modulus=4e4,5e4,6e4", "--grid",
            "materials.rubber.poisson_ratio=0.2,0.3", "--duration", "0.05", "--jobs", "1", "--out", str(out)]
    sweeps = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for sweep in sweeps:
        _, err = sweep.communicate(timeout=300)
        assert sweep.returncode == 0, err
    rows = summary(out)
    assert len(rows) == 6 and all(r["status"] == "ok" for r in rows)
    assert not list(out.glob("*.partial"))


def test_seeds_add_an_axis_of_particle_samplings(tmp_path):
    out = tmp_path / "seeds"
    subprocess.run([CLI, "sweep", SCENE, "--grid", "materials.rubber.youngs_modulus=5e4,1e5", "--seeds", "2",
                    "--duration", "0.02", "--out", str(out)], check=True, capture_output=True)
    rows = summary(out)
    assert [(r["materials.rubber.youngs_modulus"], r["simulation.seed"]) for r in rows] == [
        ("5e4", "0"), ("5e4", "1"), ("1e5", "0"), ("1e5", "1")]
    assert all(r["status"] == "ok" for r in rows)
    # Seed 0 is the scene as written: its run repeats the plain run bit for bit; seed 1 samples other particles (the
    # cube's centre of mass, in the trajectory, moves a little).
    plain = tmp_path / "plain.csv"
    subprocess.run([CLI, "run", SCENE, "--set", "materials.rubber.youngs_modulus=5e4", "--duration", "0.02",
                    "--trajectory", str(plain), "--quiet"], check=True, capture_output=True)
    trajectory = plain.read_text()
    assert (out / "run_0000" / "trajectory.csv").read_text() == trajectory
    assert (out / "run_0001" / "trajectory.csv").read_text() != trajectory
    # Seeds alone make a sweep; seeds with a grid of the seed, or with --replay, are refused.
    alone = subprocess.run([CLI, "sweep", SCENE, "--seeds", "1", "--duration", "0.01", "--out", str(tmp_path / "one")],
                           capture_output=True, text=True)
    assert alone.returncode == 0 and len(summary(tmp_path / "one")) == 1
    both = subprocess.run([CLI, "sweep", SCENE, "--seeds", "2", "--grid", "simulation.seed=3,4", "--out",
                           str(tmp_path / "both")], capture_output=True, text=True)
    assert both.returncode == 2 and "not both" in both.stderr


def test_under_mpirun_the_ranks_split_the_runs_and_a_killed_sweep_completes_without_redoing_runs(tmp_path):
    out = tmp_path / "mpi"
    args = MPIRUN + [CLI, "sweep", SCENE, "--grid", "materials.rubber.youngs_modulus=4e4,6e4", "--grid",
                     "materials.rubber.poisson_ratio=0.2,0.3,0.4", "--duration", "0.4", "--out", str(out)]
    # Killed (SIGKILL to the whole process group) once two runs are done.
    first = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(list(out.glob("run_????/result.txt"))) < 2:
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    done = {p.parent.name: p.read_text() for p in out.glob("run_????/result.txt")}
    assert 2 <= len(done) < 6, f"{len(done)} runs done before the kill: make them longer"
    assert not (out / "summary.csv").exists()
    subprocess.run(args, check=True, capture_output=True, timeout=300)
    rows = summary(out)
    assert len(rows) == 6 and all(r["status"] == "ok" for r in rows)
    assert {r["rank"] for r in rows} == {"0", "1"}
    for run, text in done.items():  # the runs finished before the kill were not run again
        assert (out / run / "result.txt").read_text() == text
    assert not list(out.glob("*.partial"))


def test_replay_sweep_rerenders_a_folder_of_demo_logs(tmp_path):
    # A folder with one shipped demo log (its scene path made absolute, as the copy is elsewhere) and a file that is
    # not a log: the log replays to its recorded final state (exit 0) and its video is written.
    logs = tmp_path / "logs"
    logs.mkdir()
    text = (SOURCE / "scenes" / "demos" / "gripper_pinch_lift_open.demo.yaml").read_text()
    scene = str(SOURCE / "scenes" / "gripper_pinch_lift.yaml")
    (logs / "open.demo.yaml").write_text(text.replace('scene: "../gripper_pinch_lift.yaml"', f'scene: "{scene}"'))
    (logs / "notes.txt").write_text("not a demo log")
    out = tmp_path / "replayed"
    subprocess.run([CLI, "sweep", "--replay", str(logs), "--video", "--out", str(out)], check=True,
                   capture_output=True, timeout=300)
    rows = summary(out)
    assert [(r["demo_log"], r["status"]) for r in rows] == [("open.demo.yaml", "ok")]
    assert (out / "run_0000" / "run.mp4").stat().st_size > 0
    bad = subprocess.run([CLI, "sweep", "--replay", str(tmp_path / "nothing"), "--out", str(out)],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "no demo logs" in bad.stderr
    timed = subprocess.run([CLI, "sweep", "--replay", str(logs), "--duration", "0.1", "--out", str(out)],
                           capture_output=True, text=True)
    assert timed.returncode == 2 and "--duration goes with a SCENE" in timed.stderr


def test_a_run_whose_folder_cannot_be_written_is_missing_and_the_sweep_fails(tmp_path):
    # run_0001's folder made immutable (chattr +i, which even root cannot write into): that run gets no result, the
    # others do; the sweep says which on stderr, writes the summary with the run's status "missing" and exits 1,
    # where it used to exit 0 (or end on an uncaught filesystem error).
    out = tmp_path / "stuck"
    blocked = out / "run_0001.partial"
    blocked.mkdir(parents=True)
    if subprocess.run(["chattr", "+i", str(blocked)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available on this filesystem")
    try:
        done = subprocess.run([CLI, "sweep", SCENE, "--grid", "materials.rubber.youngs_modulus=5e4,6e4,7e4",
                               "--duration", "0.01", "--out", str(out)], capture_output=True, text=True,
                              timeout=300)
    finally:
        subprocess.run(["chattr", "-i", str(blocked)], check=True)
    assert done.returncode == 1, done.stderr
    assert "run_0001" in done.stderr and "1 of 3 runs have no result" in done.stderr
    assert [r["status"] for r in summary(out)] == ["ok", "missing", "ok"]
