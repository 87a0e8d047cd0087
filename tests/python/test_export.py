"""The export of frames (record/src/frame_export.cpp; ductile-cli run --export, ductile.Exporter): an HDF5 file read
back with h5py, which holds the simulator's own particle count and positions, and an XDMF index whose every data
item names a dataset of that file with the stated dimensions (what ParaView and VisIt read through it)."""
import os
import pathlib
import subprocess
import xml.etree.ElementTree as ET

import h5py
import numpy as np
import pytest

import ductile

SOURCE = pathlib.Path(os.environ.get("DUCTILE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BUILD = pathlib.Path(ductile.__file__).resolve().parents[2]
CLI = BUILD / "app" / "cli" / "ductile-cli"


def check_index(folder):
    """Every DataItem of frames.xmf names a dataset of frames.h5 with its dimensions; returns the frames' times."""
    root = ET.parse(folder / "frames.xmf").getroot()
    with h5py.File(folder / "frames.h5", "r") as f:
        for item in root.iter("DataItem"):
            name, path = item.text.split(":")
            assert name == "frames.h5"
            dims = tuple(int(d) for d in item.get("Dimensions").split())
            assert f[path].shape == dims, path
        frames = root.find("Domain/Grid").findall("Grid")
        times = [float(g.find("Time").get("Value")) for g in frames]
        assert times == pytest.approx([f["frames"][k].attrs["time"] for k in sorted(f["frames"])])
    return times


def test_cli_export_of_a_dough_scene_holds_the_simulators_particles(tmp_path):
    scene = str(SOURCE / "scenes" / "dough_drop.yaml")
    out = tmp_path / "dough"
    subprocess.run([str(CLI), "run", scene, "--duration", "0.1", "--export", str(out), "--quiet"], check=True)
    times = check_index(out)
    assert len(times) == 7  # t = 0 and every 1/60 s (simulation.output_rate) up to 0.1 s
    sim = ductile.Simulator(scene, threads=1)
    sim.step(round(0.1 / sim.dt))
    with h5py.File(out / "frames.h5", "r") as f:
        last = f["frames"][sorted(f["frames"])[-1]]
        assert last.attrs["step"] == sim.step_count
        position = last["position"][...]
        assert position.shape == (sim.num_particles, 3)
        # The same run (results do not depend on the thread count): the same float positions, bit for bit.
        assert np.array_equal(position, sim.particle_positions())
        assert np.array_equal(last["velocity"][...], sim.particle_velocities())
        assert np.array_equal(f["particles/material"][...], sim.particle_materials())
        assert list(f["particles"].attrs["material_names"]) == ["dough"]
        assert np.all(last["von_mises"][...] >= 0)


def test_python_exporter_writes_rigid_and_cloth_meshes(tmp_path):
    sim = ductile.Simulator(str(SOURCE / "scenes" / "towel_fold.yaml"), threads=2)
    out = tmp_path / "towel"
    with ductile.Exporter(str(out)) as export:
        for _ in range(3):
            export.write(sim)
            sim.step(5)
        assert export.frames == 3
        assert not (out / "frames.h5").exists()  # it appears whole, at close
    check_index(out)
    with h5py.File(out / "frames.h5", "r") as f:
        cloth = f["cloth/0/triangles"][...]
        assert cloth.shape[1] == 3 and cloth.min() >= 0 and cloth.max() < sim.num_particles
        names = [f["shapes"][k].attrs["name"][0] for k in f["shapes"]]
        assert "table" in names
        table = next(k for k in f["shapes"] if f["shapes"][k].attrs["name"][0] == "table")
        vertices = f["frames/000000/shapes"][table][...]
        # The table's box: 0.4 x 0.6 x 0.198 m about (0.6, 0, 0.099).
        assert vertices.min(axis=0) == pytest.approx([0.4, -0.3, 0.0], abs=1e-6)
        assert vertices.max(axis=0) == pytest.approx([0.8, 0.3, 0.198], abs=1e-6)
        assert list(f["bodies"].attrs["names"]) == sim.rigid_bodies()
        assert f["frames/000002/body_position"].shape == (len(sim.rigid_bodies()), 3)


def test_cli_export_holds_soft_bodies_with_their_stress(tmp_path):
    out = tmp_path / "grasp"
    subprocess.run([str(CLI), "run", str(SOURCE / "scenes" / "soft_cube_grasp.yaml"), "--duration", "0.3", "--export",
                    str(out), "--quiet"], check=True)
    check_index(out)
    with h5py.File(out / "frames.h5", "r") as f:
        cube = f["soft_bodies/0"]
        assert cube.attrs["name"][0] == "cube" and cube.attrs["affine"] == 0
        triangles = cube["triangles"][...]
        first, last = f["frames/000000/soft_bodies/0"], f["frames"][sorted(f["frames"])[-1]]["soft_bodies/0"]
        assert triangles.min() == 0 and triangles.max() < first["position"].shape[0]
        # The 5 cm cube resting on the ground at t = 0, then squeezed: stressed, still within the fingers' gap.
        position = first["position"][...]
        assert position.min(axis=0) == pytest.approx([-0.025, -0.025, 0.0005], abs=1e-4)
        assert position.max(axis=0) == pytest.approx([0.025, 0.025, 0.0505], abs=1e-4)
        squeezed = last["position"][...]
        assert np.ptp(squeezed[:, 0]) < 0.0475  # the fingers close 4 mm each (docs: the scene's comment)
        # Squeezed by 8 mm of 50 (strain 0.16) at E = 1e5 Pa: stresses of order 1e4 Pa; 1e3 tells them from zeros.
        assert np.all(last["von_mises"][...] >= 0) and last["von_mises"][...].max() > 1e3
    index = (out / "frames.xmf").read_text()
    assert 'Grid Name="cube"' in index and "/soft_bodies/0/von_mises" in index


def test_an_unwritable_export_folder_is_refused(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    with pytest.raises(ValueError, match="export to"):
        ductile.Exporter(str(blocked / "sub"))
    run = subprocess.run([str(CLI), "run", str(SOURCE / "scenes" / "dough_drop.yaml"), "--duration", "0.01",
                          "--export", str(blocked / "sub"), "--quiet"], capture_output=True, text=True)
    assert run.returncode == 2 and "export to" in run.stderr  # bad input (docs/cli.md, exit codes)
