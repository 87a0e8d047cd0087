// The device backend inside the simulator (backend/device_mpm_domain.h): the coupled scenes with rigid bodies and
// robots against the CPU backend, a live switch of backend in both directions, and a saved state that goes on.
// The emulated backend runs the CUDA backend's code on the CPU (tests/unit/backend/device_mpm_test.cpp checks the
// substeps on their own); where a CUDA device is present, the same runs on it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "backend/device_mpm.h"
#include "contact/grid_contact_params.h"
#include "ductile/scene.h"
#include "mpm/particles.h"
#include "scene_fixture.h"
#include "support/particles_of.h"

namespace ductile {
namespace {

std::vector<std::string> DeviceBackends() {
  std::vector<std::string> names{"emulated"};
  if (backend::CudaAvailable()) names.push_back("cuda");
  return names;
}

std::unique_ptr<Simulator> ShippedSimulator(const std::string& scene, const std::string& backend) {
  auto model = std::make_shared<const Model>(CompileModel(
      LoadScene(std::string(DUCTILE_SOURCE_DIR) + "/scenes/" + scene + ".yaml", {{"simulation.backend", backend}})));
  return std::make_unique<Simulator>(model, SimulatorOptions{2});
}

// The largest distance between the two simulators' particles (by id) [m] and rigid bodies' origins [m].
struct Apart {
  double particle = 0;
  double body = 0;
};

Apart Distance(const Simulator& a, const Simulator& b) {
  Apart d;
  const mpm::Particles &pa = testing::ParticlesOf(a), &pb = testing::ParticlesOf(b);
  const std::vector<std::int32_t> ia = mpm::IndexById(pa), ib = mpm::IndexById(pb);
  for (std::size_t id = 0; id < ia.size(); ++id)
    d.particle = std::max(d.particle, static_cast<double>(Norm(pa.x[ia[id]] - pb.x[ib[id]])));
  for (int i = 0; i < a.num_rigid_bodies(); ++i) {
    const RigidBodySummary ra = a.SummarizeRigidBody(i), rb = b.SummarizeRigidBody(i);
    double s = 0;
    for (int k = 0; k < 3; ++k) s += (ra.position[k] - rb.position[k]) * (ra.position[k] - rb.position[k]);
    d.body = std::max(d.body, std::sqrt(s));
  }
  return d;
}

// A box dropped on a dough bed that lies on a table: the weak coupling's contact solve (Yu et al. 2025) on the
// device (backend/device_contact.h: 400 contacts a substep, the bed's bottom on the table), against a free body
// and static geometry at once.
constexpr char kBoxOnBed[] = R"(
simulation: {dt: 2.0e-3, substeps: 5, gravity: [0, 0, -9.81], contact_tolerance_relative: 1.0e-4}
grid: {h: 0.01, domain: {min: [-0.1, -0.1, 0.0], max: [0.1, 0.1, 0.15]}}
materials:
  dough: {model: linear_corotated, density: 1000, youngs_modulus: 2.0e4, poisson_ratio: 0.4, yield_stress: 1.0e3}
objects:
  bed: {material: dough, shape: {type: box, size: [0.1, 0.1, 0.04]}, pose: {position: [0, 0, 0.04]}}
rigid_bodies:
  table: {type: static, shape: {type: box, size: [0.2, 0.2, 0.02]}, pose: {position: [0, 0, 0.01]}}
  box: {shape: {type: box, size: [0.04, 0.04, 0.04]}, mass: 0.5, pose: {position: [0.01, 0, 0.082]}}
)";

// A 30 cm towel held by two pinned edges: one keyframed (moved 5 cm across and up over 0.2 s), one released at
// 0.1 s, so that the towel swings from the other.
constexpr char kPinnedTowel[] = R"(
simulation: {dt: 2.0e-3, substeps: 16, gravity: [0, 0, -9.81]}
grid: {h: 0.015625, domain: {min: [-0.35, -0.35, 0.0], max: [0.35, 0.35, 0.6]}}
materials:
  cotton: {model: cloth, density: 600, youngs_modulus: 2.0e4, poisson_ratio: 0.3, thickness: 0.001}
objects:
  towel:
    material: cotton
    shape: {type: sheet, width: 0.3, length: 0.3, vertices: 21}
    pose: {position: [0, 0, 0.4]}
    pins:
      left: {box: {min: [-0.16, -0.16, 0.39], max: [-0.14, 0.16, 0.41]}, keyframes: [{time: 0.2, offset: [0.05, 0, 0.05]}]}
      right: {box: {min: [0.14, -0.16, 0.39], max: [0.16, 0.16, 0.41]}, release_time: 0.1}
)";

// Each contact solve stops at its tolerance ε_r, not at round-off, so two backends whose free-motion velocities
// differ at round-off get impulses that differ within that tolerance's reach: at the default ε_r = 5e-2 (Yu et
// al. 2025) these runs part by 0.16 mm (particles) and 80 µm (the box) in 0.15 s, as the box sinks 1.8 cm into
// the plastic bed. The scene solves to ε_r = 1e-4 instead, where they part by 1 µm and 0.4 µm: bounds 20 µm
// (2e-3 h) and 10 µm. An impulse lost or doubled on a substep, or a node velocity written to the wrong node, moves
// the material and the box by millimetres.
TEST(DeviceBackend, TheCoupledStepMatchesTheCpuBackend) {
  const auto scene = [](const std::string& backend) {
    std::string yaml = kBoxOnBed;
    yaml.replace(yaml.find("simulation: {"), 13, "simulation: {backend: " + backend + ", ");
    return testing::SimulatorFromYaml(yaml, 2);
  };
  for (const std::string& backend : DeviceBackends()) {
    auto cpu = scene("cpu");
    auto device = scene(backend);
    ASSERT_STREQ(device->backend(), backend.c_str());
    std::int64_t contacts = 0;
    while (cpu->time() < 0.15 - 0.5 * cpu->model().dt) {
      cpu->Step();
      device->Step();
      contacts += device->last_step().mpm_contacts_max;
    }
    const RigidBodySummary box = device->SummarizeRigidBody(0);
    EXPECT_LT(box.position[2], 0.075) << "the box must have sunk into the bed";
    EXPECT_GT(box.mpm_contacts, 3);
    EXPECT_GT(contacts, 1000);
    const Apart d = Distance(*cpu, *device);
    std::printf("%s: particles %.3g m, box %.3g m apart, box at z = %.4f m\n", backend.c_str(), d.particle, d.body,
                box.position[2]);
    EXPECT_LT(d.particle, 2e-3 * cpu->model().h) << backend;
    EXPECT_LT(d.body, 1e-5) << backend;
  }
}

// A mesh box dropped on a dough bed that lies on a ground plane: registration against a half-space and a mesh's
// sampled distance field on the device (backend/device_contact.h), with the bed's 400 bottom particles on the plane
// every substep, more than GridContactParams::dense_contacts, so that the solve's own iterations on the device run
// (smaller problems go to the host's dense solve). Same tolerance and bounds as the box above; these runs part by
// 0.17 µm (particles) and 0.07 µm (the box); a contact registered against the wrong geometry or with a wrong
// normal, or a solve that stops short, moves them by millimetres.
TEST(DeviceBackend, AMeshBodyAndAPlaneTouchTheDoughAsOnTheCpu) {
  std::string yaml = kBoxOnBed;
  yaml.replace(
      yaml.find("table: {type: static, shape: {type: box, size: [0.2, 0.2, 0.02]}, pose: {position: [0, 0, 0.01]}}"),
      std::string("table: {type: static, shape: {type: box, size: [0.2, 0.2, 0.02]}, pose: {position: [0, 0, "
                  "0.01]}}")
          .size(),
      "table: {type: static, shape: {type: plane}, pose: {position: [0, 0, 0.02]}}");
  yaml.replace(
      yaml.find("shape: {type: box, size: [0.04, 0.04, 0.04]}, mass"),
      std::string("shape: {type: box, size: [0.04, 0.04, 0.04]}").size(),
      std::string("shape: {type: mesh, file: ") + DUCTILE_SOURCE_DIR + "/tests/data/meshes/cube.obj, scale: 0.04}");
  const auto scene = [&](const std::string& backend) {
    std::string y = yaml;
    y.replace(y.find("simulation: {"), 13, "simulation: {backend: " + backend + ", ");
    return testing::SimulatorFromYaml(y, 2);
  };
  for (const std::string& backend : DeviceBackends()) {
    auto cpu = scene("cpu");
    auto device = scene(backend);
    int most = 0;
    while (cpu->time() < 0.15 - 0.5 * cpu->model().dt) {
      cpu->Step();
      device->Step();
      most = std::max(most, device->last_step().mpm_contacts_max);
    }
    const RigidBodySummary box = device->SummarizeRigidBody(0);
    EXPECT_LT(box.position[2], 0.075) << "the box must have sunk into the bed";
    EXPECT_GT(box.mpm_contacts, 3);
    EXPECT_GT(most, contact::GridContactParams{}.dense_contacts) << "the device's own iterations must run";
    const Apart d = Distance(*cpu, *device);
    std::printf("%s: mesh box and plane: particles %.3g m, box %.3g m apart, box at z = %.4f m, %d contacts\n",
                backend.c_str(), d.particle, d.body, box.position[2], most);
    EXPECT_LT(d.particle, 2e-3 * cpu->model().h) << backend;
    EXPECT_LT(d.body, 1e-5) << backend;
  }
}

// The contact solve and the cloth on the emulated backend sum in a fixed order (per node over its contacts or
// cloth vertices in order, the launch layer's reductions), so a coupled run and a pinned cloth, explicit or with the
// implicit in-plane step, are bitwise the same on one thread and on two.
TEST(DeviceBackend, TheContactSolveAndTheClothAreTheSameForAnyThreadCount) {
  std::string implicit_towel = kPinnedTowel;
  implicit_towel.replace(implicit_towel.find("thickness: 0.001}"), 17, "thickness: 0.001, implicit_in_plane: 1}");
  for (const std::string& scene : {std::string(kBoxOnBed), std::string(kPinnedTowel), implicit_towel}) {
    std::string yaml = scene;
    yaml.replace(yaml.find("simulation: {"), 13, "simulation: {backend: emulated, ");
    std::vector<std::uint64_t> hashes;
    for (int threads : {1, 2}) {
      auto sim = testing::SimulatorFromYaml(yaml, threads);
      testing::RunUntil(*sim, 0.1);
      if (scene == kBoxOnBed) {  // the contact solve's own iterations ran
        EXPECT_GT(sim->last_step().mpm_contacts, contact::GridContactParams{}.dense_contacts);
      }
      hashes.push_back(sim->StateHash());
    }
    EXPECT_EQ(hashes[0], hashes[1]);
  }
}

// The ball on the slope (scenes/ball_on_slope.yaml under the weak coupling): a round elastic object whose contacts
// act on its scene shape's surface (coupling/object_surface.h), registered from 5 r_p away, which the device's
// broad phase must keep. At a contact tolerance of 1e-5 the two backends' runs are 0.8 µm apart after 0.2 s of
// rolling (bound 10 µm); a particle dropped by the broad phase, or a surface point moved wrongly, moves the ball's
// contact and its path by far more.
TEST(DeviceBackend, ARoundObjectTouchesWithItsSurfaceAsOnTheCpu) {
  for (const std::string& backend : DeviceBackends()) {
    std::vector<std::unique_ptr<Simulator>> sims;
    int touched = 0;  // steps whose last substep had contacts, of the last run
    for (const std::string& b : {std::string("cpu"), backend}) {
      auto model = std::make_shared<const Model>(
          CompileModel(LoadScene(std::string(DUCTILE_SOURCE_DIR) + "/scenes/ball_on_slope.yaml",
                                 {{"simulation.coupling", "weak"},
                                  {"simulation.dt", "0.002"},
                                  {"simulation.substeps", "12"},
                                  {"simulation.contact_tolerance_relative", "1e-5"},
                                  {"simulation.backend", b}})));
      sims.push_back(std::make_unique<Simulator>(model, SimulatorOptions{2}));
      touched = 0;
      for (int s = 0; s < 100; ++s) {
        sims.back()->Step();
        touched += sims.back()->last_step().mpm_contacts > 0;
      }
    }
    const ObjectSummary ball = sims[1]->SummarizeObject(0);
    EXPECT_GT(std::abs(ball.velocity[0]), 0.3) << "the ball must be rolling";
    // Touching through its surface points: near-rigid contacts push them onto the face, so a step's last substep
    // may hold none while others do.
    EXPECT_GT(touched, 50);
    const double apart = Distance(*sims[0], *sims[1]).particle;
    std::printf("%s ball on the slope: particles %.3g m apart\n", backend.c_str(), apart);
    EXPECT_LT(apart, 1e-5) << backend;
  }
}

// Cloth on the device (backend/device_cloth.h) against the CPU backend: every shipped cloth scene that runs in a
// short test (a towel draped over a ball, a T-shirt dropped on the floor, the cradle of box_bagging.yaml and the
// laundry of laundry.yaml, both stiff cloth with the implicit in-plane step held by pins) and the pinned towel
// above, explicit and implicit (pins held, moved by keyframes and released; their reaction forces). Contacts are
// solved to 1e-5, as in the coupled tests above. In 0.2 s the runs part by 4.5 µm (the draped towel) or less
// (0.4 to 1.4 µm for the others): bound 1e-3 h (16 µm), while the cloth moves by 9 mm to 20 cm. The triangles'
// forces reach the grid in another order than on the CPU (round-off); a force on the wrong vertex or node, a d₃
// not advected, a pin not applied or an implicit step solved wrongly moves the cloth by millimetres at least. The
// pins' reactions agree to 1e-4 of the largest (4e-5 at most: their sums differ in order; a pin impulse lost
// moves them by 1).
TEST(DeviceBackend, ClothRunsAsOnTheCpu) {
  const auto make = [](const std::string& name, const std::string& backend) {
    if (name == "pinned_towel" || name == "implicit_pinned_towel") {
      std::string yaml = kPinnedTowel;
      if (name == "implicit_pinned_towel")
        yaml.replace(yaml.find("thickness: 0.001}"), 17, "thickness: 0.001, implicit_in_plane: 1}");
      yaml.replace(yaml.find("simulation: {"), 13, "simulation: {backend: " + backend + ", ");
      return testing::SimulatorFromYaml(yaml, 2);
    }
    auto model = std::make_shared<const Model>(
        CompileModel(LoadScene(std::string(DUCTILE_SOURCE_DIR) + "/scenes/" + name + ".yaml",
                               {{"simulation.backend", backend}, {"simulation.contact_tolerance_relative", "1e-5"}})));
    return std::make_unique<Simulator>(model, SimulatorOptions{2});
  };
  for (const std::string& backend : DeviceBackends()) {
    for (const std::string name :
         {"towel_drape", "tshirt_drop", "pinned_towel", "implicit_pinned_towel", "box_bagging", "laundry"}) {
      auto cpu = make(name, "cpu");
      auto device = make(name, backend);
      ASSERT_STREQ(device->backend(), backend.c_str()) << name;
      double pin_apart = 0, pin_largest = 0;
      while (cpu->time() < 0.2 - 0.5 * cpu->model().dt) {
        cpu->Step();
        device->Step();
        const StepTelemetry &a = cpu->last_step(), &b = device->last_step();
        ASSERT_EQ(a.pin_forces.size(), b.pin_forces.size()) << name;
        for (std::size_t g = 0; g < a.pin_forces.size(); ++g)
          for (int k = 0; k < 3; ++k) {
            pin_apart = std::max(pin_apart, std::abs(a.pin_forces[g][k] - b.pin_forces[g][k]));
            pin_largest = std::max(pin_largest, std::abs(a.pin_forces[g][k]));
          }
      }
      const Apart d = Distance(*cpu, *device);
      const double moved = Distance(*cpu, *make(name, "cpu")).particle;
      std::printf("%s %s: particles %.3g m apart (moved %.3g m), pin forces %.3g of %.3g N\n", backend.c_str(),
                  name.c_str(), d.particle, moved, pin_apart, pin_largest);
      EXPECT_GT(moved, 5e-3) << name << ": the cloth must have moved for the comparison to mean anything";
      EXPECT_LT(d.particle, 1e-3 * cpu->model().h) << name;
      EXPECT_LE(pin_apart, 1e-4 * pin_largest) << name;
      // What the studio and the recorder draw: the same cloth meshes over the same vertex positions.
      Snapshot a, b;
      cpu->CaptureSnapshot(a, false);
      device->CaptureSnapshot(b, false);
      ASSERT_EQ(a.cloths.size(), b.cloths.size()) << name;
      for (std::size_t k = 0; k < a.cloths.size(); ++k) EXPECT_EQ(a.cloths[k].triangles, b.cloths[k].triangles) << name;
      ASSERT_EQ(a.particles.position.size(), b.particles.position.size());
      double drawn = 0;
      for (std::size_t i = 0; i < a.particles.position.size(); ++i)
        for (int k = 0; k < 3; ++k)
          drawn =
              std::max(drawn, std::abs(static_cast<double>(a.particles.position[i][k] - b.particles.position[i][k])));
      EXPECT_LT(drawn, 1e-3 * cpu->model().h) << name;
      if (name.find("pinned_towel") != std::string::npos) {
        EXPECT_GT(pin_largest, 0.01) << "the pins must hold the towel";
      }
    }
  }
}

// Every shipped scene the device backend runs (all but the strong coupling's), 20 steps on both backends with the
// contacts solved to 1e-5: the particles and the rigid bodies part by round-off carried through the steps (printed:
// 2.1 µm at most, the laundry; bound 1e-3 h, 16 µm or more, as the cloth above). A scene whose coupling, cloth, pins,
// colliders, walls or robots the device backend ran differently parts by far more.
TEST(DeviceBackend, EveryShippedSceneRunsAsOnTheCpu) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(DUCTILE_SOURCE_DIR) + "/scenes"))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  int compared = 0;
  for (const std::string& backend : DeviceBackends()) {
    for (const std::string& name : names) {
      const auto make = [&](const std::string& b) {
        auto model = std::make_shared<const Model>(
            CompileModel(LoadScene(std::string(DUCTILE_SOURCE_DIR) + "/scenes/" + name + ".yaml",
                                   {{"simulation.backend", b}, {"simulation.contact_tolerance_relative", "1e-5"}})));
        return std::make_unique<Simulator>(model, SimulatorOptions{2});
      };
      auto cpu = make("cpu");
      if (cpu->model().num_particles == 0 || !backend::DeviceBackendLimitation(cpu->model()).empty()) {
        std::printf("%s: not on the device backend\n", name.c_str());
        continue;
      }
      auto device = make(backend);
      for (int s = 0; s < 20; ++s) {
        cpu->Step();
        device->Step();
      }
      const Apart d = Distance(*cpu, *device);
      std::printf("%s %s: particles %.3g m, bodies %.3g m apart after 20 steps\n", backend.c_str(), name.c_str(),
                  d.particle, d.body);
      EXPECT_LT(d.particle, 1e-3 * cpu->model().h) << name;
      EXPECT_LT(d.body, 1e-3 * cpu->model().h) << name;
      ++compared;
    }
  }
  EXPECT_GE(compared, 15);
}

// simulation.backend switched live (the studio's Simulation > Backend): the state carries over at the step
// boundary in both directions, and the run goes on as one on the CPU backend does (to round-off, carried 0.1 s).
TEST(DeviceBackend, ALiveSwitchCarriesTheStateOver) {
  auto reference = ShippedSimulator("dough_drop", "cpu");
  auto switched = ShippedSimulator("dough_drop", "cpu");
  testing::RunUntil(*reference, 0.15);
  testing::RunUntil(*switched, 0.05);
  ASSERT_EQ(switched->SetParameter("simulation.backend", "emulated"), "");
  EXPECT_STREQ(switched->backend(), "emulated");
  testing::RunUntil(*switched, 0.1);
  ASSERT_EQ(switched->SetParameter("simulation.backend", "cpu"), "");
  EXPECT_STREQ(switched->backend(), "cpu");
  testing::RunUntil(*switched, 0.15);
  EXPECT_EQ(switched->step_count(), reference->step_count());
  // As the MPM-only comparison (tests/unit/backend/device_mpm_test.cpp): round-off carried 150 steps, < 5e-4 h.
  EXPECT_LT(Distance(*reference, *switched).particle, 5e-4 * reference->model().h);
}

TEST(DeviceBackend, ASwitchToCudaWithoutADeviceIsRefusedWithTheReason) {
  std::string reason;
  if (backend::CudaAvailable(&reason)) GTEST_SKIP() << "this machine has a CUDA device";
  auto sim = ShippedSimulator("dough_drop", "cpu");
  const std::string refusal = sim->SetParameter("simulation.backend", "cuda");
  EXPECT_NE(refusal.find(reason), std::string::npos) << refusal;
  EXPECT_STREQ(sim->backend(), "cpu");
  sim->Step();  // still runs
  EXPECT_EQ(sim->step_count(), 1);
}

// `auto` runs on the CPU where there is no device (or the scene needs what the device backend does not run).
TEST(DeviceBackend, AutoFallsBackToTheCpu) {
  auto sim = ShippedSimulator("dough_drop", "auto");
  EXPECT_STREQ(sim->backend(), backend::CudaAvailable() ? "cuda" : "cpu");
  auto strong = ShippedSimulator("water_pouring", "auto");  // the strong coupling: the CPU's
  EXPECT_STREQ(strong->backend(), "cpu");
}

// A state saved on the device backend goes on from where it was: its particles reach the host at the save, and a
// restore uploads them again. The continuation is the same motion to round-off (the restored run does its first
// P2G on its own, grouped by the particles' new blocks, where the uninterrupted run had it fused with the last
// gather).
TEST(DeviceBackend, ASavedStateGoesOn) {
  for (const std::string& backend : DeviceBackends()) {
    auto sim = ShippedSimulator("elastic_cube_drop", backend);
    testing::RunUntil(*sim, 0.05);
    const std::vector<std::uint8_t> saved = sim->SaveState();
    auto restored = ShippedSimulator("elastic_cube_drop", backend);
    restored->RestoreState(saved);
    EXPECT_EQ(restored->step_count(), sim->step_count());
    EXPECT_EQ(Distance(*sim, *restored).particle, 0.0) << backend;
    testing::RunUntil(*sim, 0.1);
    testing::RunUntil(*restored, 0.1);
    EXPECT_LT(Distance(*sim, *restored).particle, 5e-4 * sim->model().h) << backend;
    EXPECT_GT(Distance(*sim, *ShippedSimulator("elastic_cube_drop", backend)).particle, 0.01)
        << "the runs must have moved the cube for the comparison to mean anything";
  }
}

}  // namespace
}  // namespace ductile
