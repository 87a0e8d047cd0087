// The device backend (backend/device_mpm.h) against the CPU reference (mpm/mpm_solver.h): the emulated backend
// runs the CUDA backend's orchestration on the CPU implementation of the launch layer, so these tests check the
// CUDA backend's own code paths in every CI run; the CUDA backend itself runs the same checks where a device is.
#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/device_mpm.h"
#include "contact/grid_contact_params.h"
#include "ductile/scene.h"
#include "mpm/mpm_solver.h"
#include "physics/scene_fixture.h"

namespace ductile {
namespace {

// The backends under test: the emulated one always, CUDA when this machine has a device.
std::vector<std::string> Backends() {
  std::vector<std::string> names{"emulated"};
  if (backend::CudaAvailable()) names.push_back("cuda");
  return names;
}

// "emulated-lanes": the emulated backend with 4 lanes per block on threads of their own (CpuDevice::set_lanes), so
// that the block kernel's lane loops, barriers and atomic adds run as on a GPU.
std::unique_ptr<backend::DeviceMpm> Make(const std::string& name, const Model& model) {
  if (name == "cuda") return backend::MakeCudaMpm(model);
  return backend::MakeEmulatedMpm(model, name == "emulated-lanes" ? 4 : 1);
}

std::shared_ptr<const Model> ShippedScene(const std::string& name, const std::vector<Override>& overrides = {}) {
  return std::make_shared<const Model>(
      CompileModel(LoadScene(std::string(DUCTILE_SOURCE_DIR) + "/scenes/" + name + ".yaml", overrides)));
}

// Particles by id.
mpm::Particles ById(const mpm::Particles& p) {
  mpm::Particles out;
  mpm::GatherParticles(p, mpm::IndexById(p), out);
  return out;
}

struct Difference {
  double position = 0;  // max |Δx| [m]
  double velocity = 0;  // max |Δv| [m/s]
};

Difference Compare(const mpm::Particles& a, const mpm::Particles& b) {
  Difference d;
  const mpm::Particles pa = ById(a), pb = ById(b);
  for (std::size_t i = 0; i < pa.size(); ++i) {
    d.position = std::max(d.position, static_cast<double>(Norm(pa.x[i] - pb.x[i])));
    d.velocity = std::max(d.velocity, static_cast<double>(Norm(pa.v[i] - pb.v[i])));
  }
  return d;
}

// Runs `steps` outer steps of the model on the CPU backend and on device backend `name` from the model's initial
// state, and returns how far their particles are apart.
Difference RunBoth(const Model& model, const std::string& name, int steps, double* fastest = nullptr) {
  mpm::MpmState cpu_state;
  mpm::MpmSolver cpu(model, cpu_state);
  std::unique_ptr<backend::DeviceMpm> device = Make(name, model);
  mpm::Particles initial;
  mpm::InitialParticles(model, initial);
  device->Upload(initial);
  const float sub_dt = static_cast<float>(model.dt / model.substeps);
  for (int s = 0; s < steps; ++s) {
    cpu.SortParticlesByBlock();
    cpu.Advance(sub_dt, model.substeps);
    device->Advance(sub_dt, model.substeps);
  }
  EXPECT_FALSE(cpu.diverged());
  EXPECT_FALSE(device->diverged());
  mpm::Particles on_device;
  device->Download(on_device);
  EXPECT_EQ(on_device.size(), cpu.particles().size());
  if (fastest) {
    *fastest = 0;
    for (const Vec3f& v : cpu.particles().v) *fastest = std::max(*fastest, static_cast<double>(Norm(v)));
  }
  return Compare(cpu.particles(), on_device);
}

// RunBoth, printed, within the bounds of MatchesTheCpuBackendOnTheShippedScenes (whose comment justifies them).
void ExpectMatchesCpu(const Model& model, const std::string& name, int steps, const std::string& scene) {
  double fastest = 0;
  const Difference d = RunBoth(model, name, steps, &fastest);
  // A precondition of the comparison, not a test of the backends: the CPU run's material moves.
  EXPECT_GT(fastest, 0.3) << scene << ": the material must be moving for the comparison to mean anything";
  std::printf("%s %s: max |dx| %.3g h, max |dv| %.3g of the fastest, %.3g m/s\n", name.c_str(), scene.c_str(),
              d.position / model.h, d.velocity / fastest, fastest);
  EXPECT_LT(d.position, 5e-4 * model.h) << name << ", " << scene;
  EXPECT_LT(d.velocity, 1e-3 * fastest) << name << ", " << scene;
}

// The MPM-only shipped scenes (the others have rigid bodies or cloth, which this backend does not run yet), each
// run until its material has hit the floor (the dropped cubes thrown down at 2.5 m/s so that it happens within
// 0.08 s) and spread: walls, colliders and every substep's re-sort and block activation take part.
TEST(DeviceMpm, MatchesTheCpuBackendOnTheShippedScenes) {
  struct Case {
    const char* scene;
    std::vector<Override> overrides;
  };
  const std::vector<Case> cases{{"dam_break", {}},
                                {"dough_drop", {{"objects.dough.velocity", "[0, 0, -2.5]"}}},
                                {"elastic_cube_drop", {{"objects.cube.velocity", "[0, 0, -2.5]"}}},
                                {"sand_column", {}}};
  for (const std::string& name : Backends()) {
    for (const Case& c : cases) {
      // The two backends add the same contributions in different orders, so they differ by float round-off
      // (6e-8 relative per operation), which the dynamics carry and grow: a particle's 27-term gathers put ~1e-7
      // relative error on v each substep, and over 320-480 substeps the trajectories part by 1-4e-5 h here (the most
      // for the sand, whose return map switches between branches). Bound: 5e-4 h (5 µm at h = 1 cm) and 1e-3 of
      // the fastest particle's speed, room for CUDA's fused multiply-adds; a wrong node, weight or window moves
      // particles by a sizeable fraction of a cell within a few substeps.
      ExpectMatchesCpu(*ShippedScene(c.scene, c.overrides), name, 80, c.scene);
    }
  }
}

// The same comparison with 4 lanes per block on threads of their own (the lane loops, barriers and atomic adds of
// the block kernel as a GPU runs them), on the dough thrown down, over its first 20 steps (80 substeps; the lanes'
// threads meet at two barriers per block and substep, which makes this slow): within the same bounds.
TEST(DeviceMpm, EmulatedLanesMatchTheCpuBackend) {
  ExpectMatchesCpu(*ShippedScene("dough_drop", {{"objects.dough.velocity", "[0, 0, -2.5]"}}), "emulated-lanes", 20,
                   "dough_drop");
}

constexpr char kBlobScene[] = R"(
simulation: {dt: 1.0e-4, substeps: 1, gravity: [0, 0, 0]}
grid: {h: 0.02, domain: {min: [-0.5, -0.5, -0.5], max: [0.5, 0.5, 0.5]}}
materials:
  rubber: {model: fixed_corotated, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.3}
  dough: {model: linear_corotated, density: 800, youngs_modulus: 2.0e4, poisson_ratio: 0.4, yield_stress: 500}
  sand: {model: drucker_prager, density: 1600, youngs_modulus: 3.5e5, poisson_ratio: 0.3, friction_angle: 30}
  water: {model: fluid, density: 1000, bulk_modulus: 2.0e4, gamma: 7, viscosity: 0.01}
  putty: {model: stvk_hencky, density: 900, youngs_modulus: 5.0e4, poisson_ratio: 0.35, yield_stress: 300}
objects:
  ball: {material: rubber, shape: {type: sphere, radius: 0.08}, pose: {position: [-0.1, 0, 0]}}
  slab: {material: dough, shape: {type: box, size: [0.1, 0.2, 0.1]}, pose: {position: [0.1, 0, 0.05]}}
  pile: {material: sand, shape: {type: box, size: [0.08, 0.08, 0.08]}, pose: {position: [0, 0.15, 0]}}
  drop: {material: water, shape: {type: sphere, radius: 0.05}, pose: {position: [0, -0.15, 0]}}
  lump: {material: putty, shape: {type: box, size: [0.06, 0.06, 0.06]}, pose: {position: [0, 0, 0.15]}}
)";

// Random velocities, C and deformation, drifting ~0.6 cells per substep so that particles change blocks.
void Randomise(mpm::Particles& p) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  for (std::size_t i = 0; i < p.size(); ++i) {
    p.v[i] = Vec3f{70.0f, 70.0f, 70.0f} + Vec3f{u(rng), u(rng), u(rng)};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        p.C[i].m[r][c] = 5 * u(rng);
        p.F[i].m[r][c] = (r == c ? 1.0f : 0.0f) + 0.1f * u(rng);
      }
  }
}

// P2G and G2P conserve mass and momentum (Σ w_ip = 1, Σ w_ip (x_i − x_p) = 0; tests/physics/conservation_test.cpp
// derives the bounds): with no gravity and no wall in reach, the total momentum after 12 substeps equals the
// initial one to float round-off, relative to Σ m|v|, and every material model's stress adds none.
TEST(DeviceMpm, SubstepsConserveMassAndMomentum) {
  const auto model = testing::ModelFromYaml(kBlobScene);
  std::vector<std::string> names = Backends();
  names.emplace_back("emulated-lanes");
  for (const std::string& name : names) {
    mpm::Particles p;
    mpm::InitialParticles(*model, p);
    Randomise(p);
    double mass = 0, scale = 0, momentum[3] = {0, 0, 0};
    for (std::size_t i = 0; i < p.size(); ++i) {
      mass += p.mass[i];
      scale += p.mass[i] * Norm(p.v[i]);
      for (int a = 0; a < 3; ++a) momentum[a] += static_cast<double>(p.mass[i]) * p.v[i][a];
    }
    std::unique_ptr<backend::DeviceMpm> device = Make(name, *model);
    device->Upload(p);
    constexpr int kSubsteps = 12;
    const mpm::SubstepCounters counters = device->Advance(1e-4f, kSubsteps);
    ASSERT_FALSE(device->diverged()) << name;
    EXPECT_EQ(counters.sorts, kSubsteps + 1) << name;
    mpm::Particles after;
    device->Download(after);
    double mass_after = 0, momentum_after[3] = {0, 0, 0}, moved = 0;
    for (std::size_t i = 0; i < after.size(); ++i) {
      mass_after += after.mass[i];
      for (int a = 0; a < 3; ++a) momentum_after[a] += static_cast<double>(after.mass[i]) * after.v[i][a];
    }
    const mpm::Particles a = ById(after), b = ById(p);
    for (std::size_t i = 0; i < a.size(); ++i) moved = std::max(moved, static_cast<double>(Norm(a.x[i] - b.x[i])));
    EXPECT_EQ(mass_after, mass) << name;
    EXPECT_GT(moved, 3 * model->h) << name << ": particles must cross blocks";
    for (int ax = 0; ax < 3; ++ax)
      EXPECT_NEAR(momentum_after[ax], momentum[ax], kSubsteps * 1e-5 * scale) << name << ", axis " << ax;
  }
}

// The emulated backend's windows are summed in a fixed order: bitwise the same result on one thread or two.
TEST(DeviceMpm, EmulatedIsBitwiseTheSameForAnyThreadCount) {
  const auto model = ShippedScene("dough_drop");
  std::vector<mpm::Particles> results;
  for (int threads : {1, 2}) {
    tbb::task_arena arena(threads);
    arena.execute([&] {
      std::unique_ptr<backend::DeviceMpm> device = backend::MakeEmulatedMpm(*model);
      mpm::Particles p;
      mpm::InitialParticles(*model, p);
      device->Upload(p);
      for (int s = 0; s < 20; ++s) device->Advance(static_cast<float>(model->dt / model->substeps), model->substeps);
      results.emplace_back();
      device->Download(results.back());
    });
  }
  const mpm::Particles a = ById(results[0]), b = ById(results[1]);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(0, std::memcmp(a.x.data(), b.x.data(), a.x.size() * sizeof(Vec3f)));
  EXPECT_EQ(0, std::memcmp(a.F.data(), b.F.data(), a.F.size() * sizeof(Mat3f)));
}

// The contact solve on the device (backend/device_contact.h) against a mesh whose sampled field is flat (every
// sample −1 cm, so its gradient vanishes everywhere: the medial-axis case): every particle is inside, each normal
// comes from the host hook (here +x), and with μ = 0 each impulse lies along it, so the body's impulse is along −x
// exactly, and its moment about an origin on the x axis through the cube's centre has no x part. Registration,
// the host hook, the solve's iterations (more contacts than GridContactParams::dense_contacts) and the per-body
// sums all run.
TEST(DeviceMpm, ContactNormalsOnAMeshsMedialAxisComeFromTheHost) {
  const auto model = ShippedScene("elastic_cube_drop");
  for (const std::string& name : Backends()) {
    std::unique_ptr<backend::DeviceMpm> device = Make(name, *model);
    mpm::Particles p;
    mpm::InitialParticles(*model, p);
    device->Upload(p);
    Vec3<double> lo(1e9, 1e9, 1e9), hi(-1e9, -1e9, -1e9);
    for (const Vec3f& x : p.x)
      for (int a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], static_cast<double>(x[a]) - 0.01);
        hi[a] = std::max(hi[a], static_cast<double>(x[a]) + 0.01);
      }
    backend::DeviceField field;
    for (int a = 0; a < 3; ++a) field.cells[a] = 2;
    field.min = lo;
    field.cell = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z}) / 2;  // the box a field covers: a cube
    field.max = lo + Vec3<double>::Constant(2 * field.cell);
    device->UploadContactFields({field}, std::vector<float>(27, -0.01f));
    backend::DeviceContactSetup setup;
    backend::DeviceGeometry g;
    g.shape.type = ShapeType::kMesh;
    g.field = 0;
    g.R_WG = g.R_GW = Mat3<double>::Identity();
    g.box_min = {-1e9f, -1e9f, -1e9f};
    g.box_max = {1e9f, 1e9f, 1e9f};
    g.radius = 1e9;
    g.body = 0;
    setup.geometries = {g};
    setup.num_materials = static_cast<int>(model->materials.size());
    setup.friction.assign(setup.num_materials, 0.0);
    const Vec3<double> centre = (lo + hi) * 0.5;
    setup.origins = {Vec3<double>(0, centre.y, centre.z)};
    setup.stiffness = 1e4;
    setup.dissipation = 10;
    setup.stiction_speed = 1e-4;
    setup.sigma = 1e-3;
    device->BeginContactStep(setup);
    int asked = 0;
    backend::HostContactHooks hooks;
    hooks.solve = [](backend::HostContactProblem&) { FAIL() << "a problem this large stays on the device"; };
    hooks.medial_normal = [&](int geometry, const Vec3<double>&) {
      EXPECT_EQ(geometry, 0);
      ++asked;
      return Vec3<double>(1, 0, 0);
    };
    backend::DeviceContactOutcome outcome;
    device->Advance(1e-4f, 1, [&](float dt) { outcome = device->SolveContact(dt, hooks); });
    EXPECT_EQ(outcome.contacts, static_cast<int>(p.size())) << name;
    EXPECT_EQ(asked, outcome.contacts) << name;
    EXPECT_GT(outcome.contacts, contact::GridContactParams{}.dense_contacts);
    EXPECT_FALSE(outcome.on_host);
    EXPECT_TRUE(outcome.converged);
    ASSERT_EQ(outcome.linear.size(), 1u);
    EXPECT_EQ(outcome.body_contacts[0], outcome.contacts);
    EXPECT_LT(outcome.linear[0].x, 0) << "the material is pushed along +x, the body along −x";
    EXPECT_EQ(outcome.linear[0].y, 0);
    EXPECT_EQ(outcome.linear[0].z, 0);
    EXPECT_EQ(outcome.angular[0].x, 0);
  }
}

// A particle moving more than a cell in a substep stops the run there, as on the CPU backend.
TEST(DeviceMpm, StopsWhereAParticleDiverges) {
  const auto model = ShippedScene("elastic_cube_drop");
  for (const std::string& name : Backends()) {
    std::unique_ptr<backend::DeviceMpm> device = Make(name, *model);
    mpm::Particles p;
    mpm::InitialParticles(*model, p);
    p.v[p.size() / 2] = {0, 0, 1e4f};  // 10 km/s: 2.5 m a substep of 0.25 ms
    device->Upload(p);
    device->Advance(2.5e-4f, 4);
    EXPECT_TRUE(device->diverged()) << name;
    const std::string description = mpm::DescribeDivergedParticle(*model, [&] {
      mpm::Particles out;
      device->Download(out);
      return out;
    }());
    EXPECT_NE(description.find("particle " + std::to_string(p.size() / 2)), std::string::npos) << description;
    // A new upload starts afresh, whatever the diverged substep left in the grid and block tables: the same run as
    // on a device that never diverged.
    mpm::InitialParticles(*model, p);
    device->Upload(p);
    std::unique_ptr<backend::DeviceMpm> fresh = Make(name, *model);
    fresh->Upload(p);
    for (backend::DeviceMpm* d : {device.get(), fresh.get()}) d->Advance(2.5e-4f, 8);
    EXPECT_FALSE(device->diverged()) << name;
    mpm::Particles a, b;
    device->Download(a);
    fresh->Download(b);
    EXPECT_EQ(Compare(a, b).position, 0.0) << name;
  }
}

TEST(DeviceMpm, SaysWhyCudaCannotRun) {
  std::string reason;
  if (backend::CudaAvailable(&reason)) GTEST_SKIP() << "this machine has a CUDA device";
  EXPECT_FALSE(reason.empty());
  const auto model = ShippedScene("dough_drop");
  try {
    backend::MakeCudaMpm(*model);
    FAIL() << "MakeCudaMpm ran without a device";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
}

TEST(DeviceMpm, NamesWhatItCannotRunYet) {
  EXPECT_EQ(backend::DeviceBackendLimitation(*ShippedScene("dam_break")), "");
  EXPECT_EQ(backend::DeviceBackendLimitation(*ShippedScene("tshirt_drop")), "");  // cloth
  EXPECT_EQ(backend::DeviceBackendLimitation(*ShippedScene("box_bagging")), "");  // the implicit in-plane step, pins
  EXPECT_EQ(backend::DeviceBackendLimitation(*ShippedScene("dough_rolling")), "");
  EXPECT_NE(backend::DeviceBackendLimitation(*ShippedScene("dough_rolling", {{"simulation.coupling", "strong"}}))
                .find("strong"),
            std::string::npos);
}

}  // namespace
}  // namespace ductile
