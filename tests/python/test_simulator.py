"""The `ductile` Python module (python/src/module.cpp, docs/python.md): loading, stepping, particle arrays, live
parameters, save and restore, errors as Python exceptions, and stepping with the GIL released."""
import os
import pathlib
import threading

import numpy as np
import pytest

import ductile
from scene_text import CUBE

SOURCE = pathlib.Path(os.environ.get("DUCTILE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))



def cube():
    return ductile.Simulator.from_yaml(CUBE, threads=1)


def test_steps_advance_time_and_the_cube_falls():
    sim = cube()
    assert sim.time == 0 and sim.step_count == 0
    x0 = sim.particle_positions()
    assert x0.dtype == np.float32 and x0.shape == (sim.num_particles, 3)
    sim.step(10)
    assert sim.time == pytest.approx(10 * sim.dt)
    assert sim.step_count == 10
    x1 = sim.particle_positions()
    # Free fall (the cube is 2 cm above the table) for n = 40 substeps of δ = 0.5 ms: symplectic Euler moves every
    # particle by g δ² n (n + 1)/2 = 2.011 mm; bound 1e-3 relative, float positions at 0.15 m resolve 1e-8 m.
    drop = x0[:, 2].mean() - x1[:, 2].mean()
    assert drop == pytest.approx(9.81 * 0.5e-3**2 * 40 * 41 / 2, rel=1e-3)
    # The arrays agree with the engine's own object summary.
    summary = sim.object_summary("cube")
    assert x1.mean(axis=0) == pytest.approx(summary["center_of_mass"], abs=1e-6)
    v = sim.particle_velocities()
    assert v[:, 2].mean() == pytest.approx(summary["velocity"][2], abs=1e-6)
    assert sim.particle_F().shape == (sim.num_particles, 3, 3)
    assert set(sim.particle_materials().tolist()) == {0}
    assert sim.objects() == ["cube"]
    body = sim.bodies()["cube"]
    assert body["kind"] == "object" and body["mass"] == summary["mass"]
    assert body["center_of_mass"] == pytest.approx(summary["center_of_mass"], abs=0)


def test_particle_arrays_keep_the_id_order_across_steps():
    # Each particle keeps its row: after 5 steps (10 ms of free fall, 0.5 mm) every row is within 1 mm of where it
    # was, while two rows of the lattice are a particle spacing (1 cm) apart, so a reordered row would be off by that.
    sim = cube()
    x0 = sim.particle_positions()
    sim.step(5)
    assert np.abs(sim.particle_positions() - x0).max() < 1e-3


def test_particle_fields_are_listed_once_and_read_by_name():
    # Every field of the engine's list (mpm::ForEachParticleField) with its unit, each readable by name in id order;
    # the named arrays are those fields.
    sim = cube()
    sim.step(3)
    fields = sim.particle_fields()
    assert list(fields) == ["position", "velocity", "deformation_gradient", "affine_velocity", "mass", "volume",
                            "plastic_strain", "material", "object", "id"]
    assert fields["position"] == "m" and fields["velocity"] == "m/s" and fields["mass"] == "kg"
    n = sim.num_particles
    assert np.array_equal(sim.particle_field("position"), sim.particle_positions())
    assert np.array_equal(sim.particle_field("deformation_gradient"), sim.particle_F())
    assert sim.particle_field("affine_velocity").shape == (n, 3, 3)
    assert np.array_equal(sim.particle_field("id"), np.arange(n, dtype=np.int32))  # row i is particle i
    assert sim.particle_field("mass").dtype == np.float32 and sim.particle_field("mass").sum() > 0
    with pytest.raises(ValueError, match=r"no particle field 'pressure' \(fields: position, velocity"):
        sim.particle_field("pressure")


def test_rigid_bodies_and_poses():
    sim = cube()
    assert "box" in sim.rigid_bodies()
    p, q = sim.body_pose("box")
    assert p == pytest.approx([0.1, 0.1, 0.13])
    assert q == pytest.approx([1, 0, 0, 0])
    sim.step(100)
    p, _ = sim.body_pose("box")
    assert p[2] == pytest.approx(0.12, abs=2e-3)  # resting on the table (top at 0.1) on its 2 cm half-height
    force = sim.body_contact("box")["force"]
    assert force[2] == pytest.approx(0.5 * 9.81, rel=0.05)
    with pytest.raises(KeyError, match="no rigid body 'nothing'"):
        sim.body_pose("nothing")


def test_soft_and_affine_bodies():
    sim = ductile.Simulator(str(SOURCE / "scenes" / "soft_ball_on_stack.yaml"), threads=1)
    names = sim.soft_bodies()
    assert len(names) == 4  # the ball, then the three affine blocks
    ball = names[0]
    vertices, triangles = sim.soft_body_mesh(ball)
    assert vertices.dtype == np.float32 and vertices.shape[1] == 3
    assert triangles.dtype == np.int32 and triangles.min() >= 0 and triangles.max() < len(vertices)
    centre, q = sim.soft_body_pose(ball)
    assert q == pytest.approx([1, 0, 0, 0])
    # A soft body's pose is its vertices' centre of mass: lumped masses, so near their plain mean on a uniform mesh.
    assert centre == pytest.approx(vertices.mean(axis=0), abs=5e-3)
    sim.step(20)
    fallen, _ = sim.soft_body_pose(ball)
    assert fallen[2] < centre[2]
    block_p, block_q = sim.soft_body_pose(names[1])
    assert np.linalg.norm(block_q) == pytest.approx(1)
    # bodies(): every domain's bodies, each summarised by its domain (no MPM objects here).
    bodies = sim.bodies()
    assert list(bodies) == names
    assert bodies[ball]["kind"] == "soft_body" and bodies[names[1]]["kind"] == "affine_body"
    assert bodies[ball]["center_of_mass"] == pytest.approx(fallen)
    assert bodies[names[1]]["center_of_mass"] == pytest.approx(block_p)
    assert bodies[names[1]]["quaternion"] == pytest.approx(block_q)
    assert bodies[ball]["bounds_min"][2] < fallen[2] < bodies[ball]["bounds_max"][2]
    assert bodies[ball]["velocity"][2] < 0 and bodies[ball]["kinetic_energy"] > 0  # falling
    with pytest.raises(KeyError, match="no soft or affine body 'nothing'"):
        sim.soft_body_mesh("nothing")
    # telemetry(): every channel of the table the step has, typed as the table says (docs/python.md, "Telemetry").
    t = sim.telemetry()
    assert type(t["ipc_newton_iterations"]) is int and t["ipc_newton_iterations"] >= 1
    assert type(t["ipc_converged"]) is bool and t["ipc_converged"]
    assert 0 < t["ipc_min_distance"] <= 1e-3  # within d̂ of the scene (ipc.dhat 1e-3)
    assert type(t["sap_iterations"]) is int and type(t["wall_ms"]) is float and t["wall_ms"] > 0


def test_telemetry_has_no_ipc_channels_without_soft_bodies():
    sim = cube()
    sim.step(5)
    t = sim.telemetry()
    assert not any(key.startswith("ipc_") for key in t)
    assert {"wall_ms", "substeps", "active_nodes", "sap_iterations", "sap_converged", "mpm_contacts"} <= set(t)
    assert t["substeps"] == 4 and t["sap_converged"] is True  # CUBE: four MPM substeps per step


def test_two_rollouts_from_a_restored_state_are_identical():
    sim = cube()
    sim.step(20)
    blob = sim.save_state()
    assert isinstance(blob, bytes)
    sim.step(30)
    first = sim.particle_positions(), sim.state_hash()
    sim.restore_state(blob)
    assert sim.step_count == 20
    sim.step(30)
    assert np.array_equal(sim.particle_positions(), first[0])
    assert sim.state_hash() == first[1]


def test_live_parameters_apply_and_bad_ones_raise():
    soft, stiff = cube(), cube()
    stiff.set_parameter("materials.rubber.youngs_modulus", 2e5)
    soft.step(60)
    stiff.step(60)
    # Landed: the soft cube squashes more than the stiff one.
    assert np.ptp(soft.particle_positions()[:, 2]) < np.ptp(stiff.particle_positions()[:, 2])
    assert "materials.rubber.youngs_modulus" in soft.parameters()
    soft.set_parameter("simulation.gravity", [0, 0, -1.62])
    with pytest.raises(ValueError, match="poisson_ratio"):
        soft.set_parameter("materials.rubber.poisson_ratio", 0.5)
    with pytest.raises(ValueError, match="nothing"):
        soft.set_parameter("materials.nothing.density", 10)


def test_numpy_numbers_are_parameter_values_and_wrong_types_raise_type_errors():
    # NumPy's scalars and arrays set a parameter as the numbers they hold: a run with them equals one with Python
    # numbers, bitwise.
    plain, numpy = cube(), cube()
    plain.set_parameter("materials.rubber.youngs_modulus", 30000)
    plain.set_parameter("simulation.gravity", [0, 0, -5])
    numpy.set_parameter("materials.rubber.youngs_modulus", np.float32(3e4))
    numpy.set_parameter("simulation.gravity", np.array([0, 0, -5], dtype=np.int64))
    plain.step(20)
    numpy.step(20)
    assert plain.state_hash() == numpy.state_hash()
    with pytest.raises(TypeError, match="parameter value"):
        plain.set_parameter("materials.rubber.density", {"not": "a number"})
    robot = ductile.Simulator(str(SOURCE / "scenes" / "gripper_pinch_lift.yaml"), threads=1)
    with pytest.raises(TypeError, match="position needs 3 numbers, got a str"):
        robot.set_teleop_target(robot.robots()[0], "iiwa_link_7", "up")
    # An unknown robot is a KeyError in every call that names one, as unknown bodies and objects are.
    for call in (lambda: robot.set_teleop_target("nobot", "iiwa_link_7", [0, 0, 0.5]),
                 lambda: robot.clear_teleop_target("nobot"), lambda: robot.set_gripper("nobot", 0.5),
                 lambda: robot.set_joint_target("nobot", "iiwa_joint_1", 0.1), lambda: robot.teleop_status("nobot"),
                 lambda: robot.link_pose("nobot", "iiwa_link_7"), lambda: robot.joints("nobot")):
        with pytest.raises(KeyError, match="no robot 'nobot'"):
            call()


def test_writing_particle_velocities_moves_the_particles():
    sim = cube()
    v = np.zeros((sim.num_particles, 3), dtype=np.float32)
    v[:, 0] = 1.0
    sim.set_particle_velocities(v)
    assert sim.particle_velocities() == pytest.approx(v)
    x0 = sim.particle_positions()
    sim.step(5)
    # 1 m/s sideways for 10 ms (the cube is elastic, free and in the air: it translates).
    assert (sim.particle_positions()[:, 0] - x0[:, 0]).mean() == pytest.approx(0.01, rel=0.02)
    with pytest.raises(ValueError, match="shape"):
        sim.set_particle_velocities(np.zeros((3, 3)))
    bad = np.zeros((sim.num_particles, 3))
    bad[4, 1] = np.nan
    with pytest.raises(ValueError, match="particle 4"):
        sim.set_particle_positions(bad)


def test_bad_input_raises_with_where():
    with pytest.raises(ductile.SceneError, match=r"scene.yaml:\d+:\d+"):
        ductile.Simulator.from_yaml(CUBE.replace("poisson_ratio: 0.3", "poisson_ratio: 0.5"), name="scene.yaml")
    with pytest.raises(ductile.SceneError, match="missing.yaml"):
        ductile.Simulator("missing.yaml")
    with pytest.raises(ductile.SceneError, match="--set"):
        ductile.Simulator(str(SOURCE / "scenes" / "elastic_cube_drop.yaml"), overrides=["no_equals_sign"])
    sim = cube()
    with pytest.raises(ductile.StateError):
        sim.restore_state(b"not a state")
    blob = bytearray(sim.save_state())
    blob[len(blob) // 2] ^= 0xFF
    with pytest.raises(ductile.StateError):
        sim.restore_state(bytes(blob))
    with pytest.raises(ValueError):
        sim.step(-1)


def test_a_scene_file_with_overrides():
    sim = ductile.Simulator(str(SOURCE / "scenes" / "elastic_cube_drop.yaml"),
                            overrides=["materials.rubber.youngs_modulus=2e5", "simulation.dt=5e-4"])
    assert sim.dt == 5e-4
    sim.step(2)
    assert sim.time == pytest.approx(1e-3)


def test_simulators_step_in_parallel_threads_with_the_same_results():
    # The GIL is released while stepping: two simulators in two threads give what they give one after the other.
    sims = [cube(), cube()]
    threads = [threading.Thread(target=s.step, args=(40,)) for s in sims]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    alone = cube()
    alone.step(40)
    assert sims[0].state_hash() == sims[1].state_hash() == alone.state_hash()


def test_a_simulator_shared_by_threads_is_used_by_one_at_a_time():
    # One thread steps (the GIL released meanwhile), another saves the state and reads the particles at the same
    # time. Every saved state must be one between steps: restored into a fresh simulator it hashes as one the
    # stepping thread saw after a step (a save in the middle of a step matches none, or crashes: without the
    # simulator's lock this failed in 2 runs of 5, and 5 of 6). Reading changes nothing: the result equals a run
    # alone.
    sim = cube()
    seen = [sim.state_hash()]
    blobs = []

    def stepper():
        for _ in range(30):
            sim.step()
            seen.append(sim.state_hash())

    def reader():
        for _ in range(60):
            blobs.append(sim.save_state())
            assert np.isfinite(sim.particle_positions()).all()

    threads = [threading.Thread(target=stepper), threading.Thread(target=reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    fresh = cube()
    for blob in blobs:
        fresh.restore_state(blob)
        assert fresh.state_hash() in seen
    alone = cube()
    alone.step(30)
    assert np.array_equal(alone.particle_positions(), sim.particle_positions())


def test_joint_targets_drive_a_robots_joints():
    sim = ductile.Simulator(str(SOURCE / "scenes" / "gripper_pinch_lift.yaml"), threads=1)
    robot = sim.robots()[0]
    joints = sim.joints(robot)
    assert joints[0]["name"] == "iiwa_joint_1" and joints[0]["controlled"] and joints[0]["target"] == 0.0
    assert len(joints) == 9 and all(j["lower"] < j["upper"] for j in joints)
    sim.set_joint_target(robot, "iiwa_joint_1", 0.3)
    sim.step(300)  # 1.5 s
    # The base joint turns about the vertical, where gravity exerts no torque: the PD controller settles at its target
    # (bound 1e-3 rad, as in the engine's test Teleop.JointTargetsDriveTheirJointsAndAreRefusedWhenTheyCannot).
    assert sim.joints(robot)[0]["position"] == pytest.approx(0.3, abs=1e-3)
    assert sim.joints(robot)[0]["target"] == 0.3
    with pytest.raises(ValueError, match="outside its limits"):
        sim.set_joint_target(robot, "iiwa_joint_1", 10.0)
    with pytest.raises(ValueError, match="no moving joint"):
        sim.set_joint_target(robot, "elbow", 0.0)
    with pytest.raises(KeyError, match="no robot"):
        sim.joints("nobody")


def test_the_backend_option_and_a_live_switch():
    # The CUBE scene (an elastic cube falling towards a table) on the emulated backend, the CUDA backend's code on
    # the CPU: the same fall as on the CPU backend, its particle arrays in id order as on the CPU, and a live switch
    # back to the CPU backend that carries the state over.
    cpu = cube()
    assert cpu.backend == "cpu"
    sim = ductile.Simulator.from_yaml(CUBE, threads=1, backend="emulated")
    assert sim.backend == "emulated"
    x0 = sim.particle_positions()
    assert np.array_equal(x0, cpu.particle_positions())
    sim.step(10)
    cpu.step(10)
    # Round-off apart (the backends sum in different orders): 1e-6 m, 1e-4 of a cell.
    assert np.abs(sim.particle_positions() - cpu.particle_positions()).max() < 1e-6
    sim.set_parameter("simulation.backend", "cpu")
    assert sim.backend == "cpu"
    sim.step(10)
    cpu.step(10)
    assert np.abs(sim.particle_positions() - cpu.particle_positions()).max() < 1e-6
    with pytest.raises(ductile.SceneError, match="backend"):
        ductile.Simulator.from_yaml(CUBE, backend="gpu")
    if ductile.Simulator.from_yaml(CUBE, backend="auto").backend == "cpu":  # no CUDA device here
        with pytest.raises(ductile.SceneError, match="cuda"):
            ductile.Simulator.from_yaml(CUBE, backend="cuda")
