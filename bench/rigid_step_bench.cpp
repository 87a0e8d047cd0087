// One rigid step (kinematics, CRBA, RNEA, contact detection, SAP solve) of the iiwa 7 arm holding a pose with
// stiff PD gains next to ten 6 cm boxes resting on a table, at Δt = 1 ms and 10 ms. Reports ms per step, SAP
// iterations per step and contacts. Results: bench/results/ (see bench/README.md).
#include <benchmark/benchmark.h>

#include "contact/rigid_system.h"
#include "ductile/multibody_desc.h"
#include "model/add_multibody.h"
#include "support/rigid_fixture.h"

namespace ductile {
namespace {

std::unique_ptr<contact::RigidFixture> MakeArmAndBoxes() {
  multibody::MultibodyTree tree;
  geometry::CollisionWorld world;
  const MultibodyDesc arm =
      LoadUrdf(std::filesystem::path(DUCTILE_SOURCE_DIR) / "assets/robots/iiwa7_gripper/iiwa7_gripper.urdf");
  multibody::AddMultibody(arm, "iiwa", Eigen::Isometry3d::Identity(), false, {}, tree, world);
  // The table top: a static box whose upper face is at z = 0.4 m, in front of the arm.
  geometry::CollisionGeometry table;
  table.type = ShapeType::kBox;
  table.half_extents = Eigen::Vector3d(0.3, 0.4, 0.2);
  table.X_BG.translation() = Eigen::Vector3d(0.65, 0, 0.2);
  world.Add(table);
  const double side = 0.06, mass = 0.2;
  for (int i = 0; i < 10; ++i) {
    multibody::Body box;
    box.name = "box" + std::to_string(i);
    box.joint = JointType::kFloating;
    box.X_PJ.translation() = Eigen::Vector3d(0.45 + 0.1 * (i % 5), -0.1 + 0.2 * (i / 5), 0.4 + side / 2);
    box.mass = mass;
    box.I_Cm_B = Eigen::Matrix3d::Identity() * mass * side * side / 6;
    geometry::CollisionGeometry g;
    g.type = ShapeType::kBox;
    g.half_extents = Eigen::Vector3d::Constant(side / 2);
    g.body = tree.AddBody(box);
    world.Add(g);
  }
  auto sys = std::make_unique<contact::RigidFixture>(std::move(tree), std::move(world));
  for (int b = 0; b < sys->tree().num_bodies(); ++b)
    if (sys->tree().body(b).nv == 1) sys->AddController({b, 1e4, 200, {0.3, 0, 0}});
  return sys;
}

void BM_RigidStep(benchmark::State& state) {
  const double dt = state.range(0) * 1e-3;
  auto sys_owner = MakeArmAndBoxes();
  contact::RigidFixture& sys = *sys_owner;
  for (int i = 0; i < static_cast<int>(0.2 / dt); ++i) sys.Step(dt);  // settle
  double iterations = 0, contacts = 0;
  for (auto _ : state) {
    const contact::RigidStepStats s = sys.Step(dt);
    iterations += s.iterations;
    contacts += s.contacts;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["sap_iterations"] = iterations / n;
  state.counters["contacts"] = contacts / n;
  state.counters["dofs"] = sys.tree().nv();
}
BENCHMARK(BM_RigidStep)->ArgName("dt_ms")->Arg(1)->Arg(10)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ductile
