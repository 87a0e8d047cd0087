// Simulator::SetParameter: a live edit patches the model in place to bitwise what CompileModel makes of the scene with
// the new value, for every live parameter of the table; the state carries over in the same storage; a refused edit
// changes nothing; the caller's model is never written (copy on write).
#include <gtest/gtest.h>

#include <iomanip>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ductile/model.h"
#include "ductile/parameters.h"
#include "ductile/scene.h"
#include "ductile/simulator.h"
#include "model/fem_model.h"
#include "model/pd_bodies.h"
#include "model/rigid_model.h"
#include "mpm/boundary.h"
#include "mpm/particles.h"
#include "support/particles_of.h"

namespace ductile {
namespace {

// One object of every material model (a cloth with a pinned corner among them), falling onto a static ground (MPM-rigid
// contact), a box collider with friction and the friction walls; a ball resting on the ground (rigid-rigid contact)
// that a cube falls onto; a soft and an affine body of the FEM–IPC domain and a pd body hitting the ground.
constexpr const char* kScene = R"(
simulation: {dt: 1.0e-3, substeps: 4}
grid: {h: 0.02, domain: {min: [-0.2, -0.2, 0.0], max: [0.2, 0.2, 0.3]}, boundary: {type: friction, friction: 0.2}}
contact: {mpm_stiffness: 2.0e4}
materials:
  rubber: {model: fixed_corotated, density: 500, youngs_modulus: 2.0e4, poisson_ratio: 0.3}
  dough: {model: linear_corotated, density: 1000, youngs_modulus: 2.0e4, poisson_ratio: 0.4, yield_stress: 500}
  clay: {model: stvk_hencky, density: 1800, youngs_modulus: 5.0e4, poisson_ratio: 0.35}
  sand: {model: drucker_prager, density: 1600, youngs_modulus: 3.5e4, poisson_ratio: 0.3, friction: 0.4}
  water: {model: fluid, density: 1000, bulk_modulus: 1.0e4}
  cotton: {model: cloth, density: 200, youngs_modulus: 1.0e4, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.06, 0.06, 0.06]}, pose: {position: [0.1, 0, 0.08]},
         velocity: [0, 0, -1]}
  blob: {material: dough, shape: {type: sphere, radius: 0.03}, pose: {position: [-0.1, 0.1, 0.035]},
         velocity: [0, 0, -1]}
  brick: {material: clay, shape: {type: box, size: [0.04, 0.04, 0.04]}, pose: {position: [-0.1, -0.1, 0.08]},
          velocity: [0, 0, -1]}
  heap: {material: sand, shape: {type: box, size: [0.06, 0.06, 0.04]}, pose: {position: [0, 0.12, 0.025]},
         velocity: [0, 0, -1]}
  drop: {material: water, shape: {type: sphere, radius: 0.025}, pose: {position: [0.1, -0.12, 0.03]},
         velocity: [0, 0, -1]}
  towel: {material: cotton, shape: {type: sheet, width: 0.1, length: 0.1, vertices: 6}, pose: {position: [0, -0.05, 0.2]},
          velocity: [0, 0, -1], pins: {corner: {vertices: [0]}}}
colliders:
  step: {shape: {type: box, size: [0.08, 0.08, 0.02]}, pose: {position: [-0.1, -0.1, 0.01]},
         boundary: {type: friction, friction: 0.5}}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
  ball: {shape: {type: sphere, radius: 0.02}, mass: 0.1, pose: {position: [0.1, 0, 0.0195]}, friction: 0.6}
soft_bodies:
  toy: {shape: {type: box, size: [0.03, 0.03, 0.03]}, resolution: 0.015, pose: {position: [-0.15, 0.15, 0.0155]},
        velocity: [0, 0, -0.5]}
affine_bodies:
  block: {shape: {type: box, size: [0.03, 0.03, 0.03]}, pose: {position: [0.15, 0.15, 0.0155]}, velocity: [0, 0, -0.5]}
pd_bodies:
  jelly: {shape: {type: box, size: [0.03, 0.03, 0.03]}, resolution: 0.015, pose: {position: [-0.15, -0.17, 0.0155]},
          velocity: [0, 0, -0.5], muscle_stiffness: 1.0e4,
          skeleton: {tab: {joint: revolute, axis: [0, 0, 1], anchor: [-0.14, -0.17, 0.0155], torque: 0.001,
                           box: {min: [-0.145, -0.19, 0], max: [-0.13, -0.15, 0.035]}}}}
)";

// The scene with a robot too (a post welded to the world, out of the way): its link_force_limit is live.
std::shared_ptr<const Model> Compile(const std::vector<Override>& overrides = {}) {
  const std::string robot = std::string("robots:\n  post: {urdf: ") + DUCTILE_TEST_DATA_DIR +
                            "/urdf/world_fixed.urdf, pose: {position: [2, 2, 0]}}\n";
  return std::make_shared<const Model>(
      CompileModel(LoadSceneFromString(kScene + robot, "set_parameter.yaml", overrides)));
}

std::string Text(double x) {
  std::ostringstream text;
  text << std::setprecision(17) << x;
  return text.str();
}

// A valid value other than `p`'s current one.
std::string NewValue(const SceneParameter& p) {
  const ParameterInfo& row = *p.info;
  if (row.type == ParameterType::kVector) return "[0.5, -0.25, -6]";
  if (row.type == ParameterType::kChoice) return row.choices.at(p.value == row.choices.front() ? 1 : 0);
  if (row.type == ParameterType::kInteger) return std::to_string(std::stoi(p.value) + 1);
  const double v = p.value.empty() ? 0 : std::stod(p.value);
  double next = v != 0 ? v * 1.25 : 0.3;
  if (!row.range.Contains(next)) next = v * 0.8;
  return Text(next);
}

// The live parameters of the scene with a new value each.
std::vector<std::pair<std::string, std::string>> LiveEdits() {
  std::vector<std::pair<std::string, std::string>> edits;
  for (const SceneParameter& p : ListParameters(*Compile()->scene)) {
    // The strong coupling refuses this scene's sand, cloth and collider (StrongCoupling.*: its live switch).
    if (p.key == "simulation.coupling") continue;
    // The device backends refuse this scene's cloth, and CUDA needs a device (DeviceBackend.*: the live switch).
    if (p.key == "simulation.backend") continue;
    if (p.info->apply == ParameterApply::kLive) edits.emplace_back(p.key, NewValue(p));
  }
  return edits;
}

// The fields live edits change are bitwise equal.
void ExpectSameParameters(const Model& a, const Model& b) {
  EXPECT_EQ(a.dt, b.dt);
  EXPECT_EQ(a.substeps, b.substeps);
  EXPECT_EQ(a.duration, b.duration);
  EXPECT_EQ(a.output_rate, b.output_rate);
  EXPECT_EQ(a.cfl, b.cfl);
  EXPECT_EQ(a.coupling, b.coupling);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.strong_tolerance, b.strong_tolerance);
  EXPECT_EQ(a.strong_dense_limit, b.strong_dense_limit);
  EXPECT_EQ(a.implicit_tolerance, b.implicit_tolerance);
  EXPECT_EQ(a.gravity, b.gravity);
  EXPECT_EQ(a.walls.friction, b.walls.friction);
  for (std::size_t c = 0; c < a.colliders.size(); ++c) EXPECT_EQ(a.colliders[c].friction, b.colliders[c].friction);
  for (std::size_t m = 0; m < a.materials.size(); ++m) {
    const mpm::MaterialParams &x = a.materials[m], &y = b.materials[m];
    EXPECT_EQ(x.mu, y.mu);
    EXPECT_EQ(x.lambda, y.lambda);
    EXPECT_EQ(x.density, y.density);
    EXPECT_EQ(x.yield_stress, y.yield_stress);
    EXPECT_EQ(x.friction_alpha, y.friction_alpha);
    EXPECT_EQ(x.cohesion, y.cohesion);
    EXPECT_EQ(x.bulk_modulus, y.bulk_modulus);
    EXPECT_EQ(x.gamma, y.gamma);
    EXPECT_EQ(x.viscosity, y.viscosity);
    EXPECT_EQ(x.cloth_normal, y.cloth_normal);
    EXPECT_EQ(x.cloth_shear, y.cloth_shear);
    EXPECT_EQ(x.cloth_friction, y.cloth_friction);
  }
  EXPECT_EQ(a.material_friction, b.material_friction);
  EXPECT_EQ(a.mass, b.mass);
  for (std::size_t o = 0; o < a.objects.size(); ++o) EXPECT_EQ(a.objects[o].mass, b.objects[o].mass);
  const FemModel &fa = *a.fem, &fb = *b.fem;
  EXPECT_EQ(fa.settings.dhat, fb.settings.dhat);
  EXPECT_EQ(fa.settings.barrier_stiffness, fb.settings.barrier_stiffness);
  EXPECT_EQ(fa.settings.friction, fb.settings.friction);
  EXPECT_EQ(fa.settings.friction_velocity, fb.settings.friction_velocity);
  EXPECT_EQ(fa.settings.newton_tolerance, fb.settings.newton_tolerance);
  EXPECT_EQ(fa.settings.max_newton_iterations, fb.settings.max_newton_iterations);
  for (std::size_t i = 0; i < fa.soft_bodies.size(); ++i) {
    EXPECT_EQ(fa.soft_bodies[i].desc.lame.mu, fb.soft_bodies[i].desc.lame.mu);
    EXPECT_EQ(fa.soft_bodies[i].desc.lame.lambda, fb.soft_bodies[i].desc.lame.lambda);
  }
  for (std::size_t i = 0; i < fa.affine_bodies.size(); ++i)
    EXPECT_EQ(fa.affine_bodies[i].desc.stiffness, fb.affine_bodies[i].desc.stiffness);
  ASSERT_EQ(a.pd->bodies.size(), b.pd->bodies.size());
  EXPECT_EQ(a.pd->friction, b.pd->friction);
  EXPECT_EQ(a.pd->settings.tolerance, b.pd->settings.tolerance);
  EXPECT_EQ(a.pd->settings.max_iterations, b.pd->settings.max_iterations);
  for (std::size_t i = 0; i < a.pd->bodies.size(); ++i) {
    const PdBodiesModel::Body &x = a.pd->bodies[i], &y = b.pd->bodies[i];
    EXPECT_EQ(x.youngs_modulus, y.youngs_modulus);
    EXPECT_EQ(x.poisson_ratio, y.poisson_ratio);
    EXPECT_EQ(x.pneumatic_ratio, y.pneumatic_ratio);
    EXPECT_EQ(x.muscle_activation, y.muscle_activation);
    EXPECT_EQ(x.joint_torques, y.joint_torques);
  }
  const RigidModel &r = *a.rigid, &s = *b.rigid;
  EXPECT_EQ(r.stiction_speed, s.stiction_speed);
  ASSERT_EQ(r.robots.size(), s.robots.size());
  for (std::size_t i = 0; i < r.robots.size(); ++i)
    EXPECT_EQ(r.robots[i].link_force_limit, s.robots[i].link_force_limit);
  EXPECT_EQ(r.max_solver_iterations, s.max_solver_iterations);
  EXPECT_EQ(r.mpm_stiffness, s.mpm_stiffness);
  EXPECT_EQ(r.mpm_dissipation, s.mpm_dissipation);
  EXPECT_EQ(r.contact_rel_tolerance, s.contact_rel_tolerance);
  EXPECT_EQ(r.contact_abs_tolerance, s.contact_abs_tolerance);
  ASSERT_EQ(r.world.num_geometries(), s.world.num_geometries());
  for (int g = 0; g < r.world.num_geometries(); ++g) {
    EXPECT_EQ(r.world.geometry(g).friction, s.world.geometry(g).friction);
    EXPECT_EQ(r.world.geometry(g).stiffness, s.world.geometry(g).stiffness);
    EXPECT_EQ(r.world.geometry(g).dissipation, s.world.geometry(g).dissipation);
  }
}

void Steps(Simulator& sim, int n) {
  for (int i = 0; i < n; ++i) sim.Step();
}

TEST(SetParameter, TheSceneHasALiveParameterOfEveryKind) {
  std::set<std::string> rows;
  for (const auto& [key, value] : LiveEdits()) rows.insert(MatchParameter(key)->info->key);
  for (const ParameterInfo& row : ParameterTable()) {
    // simulation.coupling's live switch: StrongCoupling.SwitchesLiveAndRunsWhereTheWeakSchemeDiverges;
    // simulation.backend's: DeviceBackend.ALiveSwitchCarriesTheStateOver.
    if (row.apply == ParameterApply::kLive && row.key != "simulation.coupling" && row.key != "simulation.backend") {
      EXPECT_TRUE(rows.count(row.key)) << row.key;
    }
  }
}

TEST(SetParameter, AnEditAtTheStartEqualsCompilingTheValueBitwise) {
  for (const auto& [key, value] : LiveEdits()) {
    SCOPED_TRACE(key + " = " + value);
    Simulator edited(Compile());
    ASSERT_EQ(edited.SetParameter(key, value), "");
    Simulator compiled(Compile({Override{key, value}}));
    ExpectSameParameters(edited.model(), compiled.model());
    Steps(edited, 3);
    Steps(compiled, 3);
    EXPECT_EQ(edited.StateHash(), compiled.StateHash());
    EXPECT_EQ(edited.time(), compiled.time());
  }
}

TEST(SetParameter, AnEditWhileRunningEqualsUpdateModelWithTheRecompiledScene) {
  for (const auto& [key, value] : LiveEdits()) {
    SCOPED_TRACE(key + " = " + value);
    Simulator edited(Compile()), updated(Compile());
    Steps(edited, 3);
    Steps(updated, 3);
    ASSERT_EQ(edited.SetParameter(key, value), "");
    ASSERT_EQ(updated.UpdateModel(Compile({Override{key, value}})), "");
    Steps(edited, 3);
    Steps(updated, 3);
    EXPECT_EQ(edited.StateHash(), updated.StateHash());
    EXPECT_EQ(edited.time(), updated.time());
  }
}

TEST(SetParameter, TheParticlesKeepTheirStorageAndTheEditActsAtTheNextStep) {
  Simulator a(Compile()), b(Compile());
  Steps(a, 5);
  Steps(b, 5);
  const void* x = testing::ParticlesOf(b).x.data();
  const std::size_t count = testing::ParticlesOf(b).size();
  const std::uint64_t before = b.StateHash();
  ASSERT_EQ(b.SetParameter("materials.rubber.youngs_modulus", "8.0e4"), "");
  EXPECT_EQ(testing::ParticlesOf(b).x.data(), x);
  EXPECT_EQ(testing::ParticlesOf(b).size(), count);
  EXPECT_EQ(b.StateHash(), before) << "the state is carried over unchanged";
  a.Step();
  b.Step();
  EXPECT_NE(a.StateHash(), b.StateHash()) << "the stiffer material moves differently";
}

TEST(SetParameter, DensityChangesTheParticleMasses) {
  Simulator sim(Compile());
  sim.Step();
  const double mass = sim.SummarizeObject(0).mass;
  ASSERT_EQ(sim.SetParameter("materials.rubber.density", "1000"), "");
  EXPECT_NEAR(sim.SummarizeObject(0).mass, 2 * mass, 1e-9 * mass);
  EXPECT_EQ(sim.model().objects[0].mass, Compile({Override{"materials.rubber.density", "1000"}})->objects[0].mass);
}

TEST(SetParameter, TimeContinuesWithTheNewStep) {
  Simulator sim(Compile());
  Steps(sim, 10);
  ASSERT_EQ(sim.SetParameter("simulation.dt", "2.0e-3"), "");
  ASSERT_EQ(sim.SetParameter("simulation.substeps", "8"), "");
  Steps(sim, 5);
  EXPECT_NEAR(sim.time(), 0.020, 1e-12);
  EXPECT_EQ(sim.step_count(), 15);
  EXPECT_EQ(sim.last_step().substeps, 8);
}

TEST(SetParameter, ARefusedEditChangesNothing) {
  const std::shared_ptr<const Model> model = Compile();
  Simulator sim(model);
  Steps(sim, 3);
  const std::uint64_t hash = sim.StateHash();
  const Model* before = &sim.model();
  EXPECT_EQ(sim.SetParameter("grid.h", "0.025"), "grid.h changes the grid and the particles: reset to apply");
  EXPECT_EQ(sim.SetParameter("objects.cube.particles_per_cell", "1"),
            "objects.cube.particles_per_cell changes the particles: reset to apply");
  EXPECT_EQ(sim.SetParameter("materials.rubber.poisson_ratio", "0.5"),
            "materials.rubber.poisson_ratio = 0.5: 'poisson_ratio' must be in (-1, 0.5), got 0.5");
  EXPECT_EQ(sim.SetParameter("materials.rubber.youngs_modulus", "-1"),
            "materials.rubber.youngs_modulus = -1: 'youngs_modulus' must be > 0, got -1");
  EXPECT_EQ(sim.SetParameter("materials.rubbr.density", "900"),
            "materials.rubbr.density = 900: no material 'rubbr' in the scene; did you mean 'rubber'? (defined: "
            "rubber, dough, clay, sand, water, cotton)");
  EXPECT_EQ(sim.SetParameter("simulation.dtt", "1e-3"),
            "simulation.dtt = 1e-3: unknown parameter 'simulation.dtt'; did you mean 'simulation.dt'?");
  EXPECT_EQ(sim.SetParameter("rigid_bodies.ground.mass", "2"),
            "rigid_bodies.ground.mass = 2: 'mass' does not apply to static rigid body 'ground': only dynamic bodies "
            "have a mass");
  EXPECT_EQ(&sim.model(), before);
  EXPECT_EQ(sim.StateHash(), hash);
  EXPECT_EQ(sim.model().materials[0].mu, model->materials[0].mu);
  Simulator unedited(Compile());
  Steps(unedited, 4);
  sim.Step();
  EXPECT_EQ(sim.StateHash(), unedited.StateHash());
}

TEST(SetParameter, TheCallersModelIsCopiedOnceAndNeverWritten) {
  const std::shared_ptr<const Model> model = Compile();
  const float mu = model->materials[0].mu;
  const double friction = model->rigid->world.geometry(0).friction;
  Simulator sim(model);
  ASSERT_EQ(sim.SetParameter("materials.rubber.youngs_modulus", "8.0e4"), "");
  const Model* copy = &sim.model();
  EXPECT_NE(copy, model.get());
  EXPECT_EQ(sim.model().rigid.get(), model->rigid.get()) << "the rigid part is shared while unchanged";
  ASSERT_EQ(sim.SetParameter("materials.rubber.poisson_ratio", "0.25"), "");
  EXPECT_EQ(&sim.model(), copy) << "later edits patch the copy in place";
  ASSERT_EQ(sim.SetParameter("contact.friction", "0.9"), "");
  EXPECT_EQ(&sim.model(), copy);
  EXPECT_NE(sim.model().rigid.get(), model->rigid.get());
  EXPECT_EQ(model->materials[0].mu, mu);
  EXPECT_EQ(model->rigid->world.geometry(0).friction, friction);
  EXPECT_EQ(model->scene->contact.friction, 0.5);
  EXPECT_EQ(sim.model().scene->contact.friction, 0.9);
}

TEST(SetParameter, AResetKeepsTheEdits) {
  Simulator sim(Compile());
  Steps(sim, 3);
  ASSERT_EQ(sim.SetParameter("materials.dough.yield_stress", "800"), "");
  ASSERT_EQ(sim.SetParameter("simulation.gravity.2", "-1.62"), "");
  sim.Reset();
  Steps(sim, 3);
  Simulator compiled(Compile({{"materials.dough.yield_stress", "800"}, {"simulation.gravity.2", "-1.62"}}));
  Steps(compiled, 3);
  EXPECT_EQ(sim.StateHash(), compiled.StateHash());
}

}  // namespace
}  // namespace ductile
