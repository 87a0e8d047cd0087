// Two-way MPM-rigid coupling through the simulator: an elastic MPM cube resting on a free rigid plate that rests on
// the ground. The plate must carry the cube: the ground's contact force on the plate settles at the weight of the
// plate plus the cube, which it can only reach if the cube's contact impulses reach the rigid step (Newton's
// third law across the coupling), and the cube must stay on top of the plate.
#include <gtest/gtest.h>

#include <cmath>

#include "ductile/model.h"
#include "ductile/simulator.h"
#include "ductile/telemetry.h"

namespace ductile {
namespace {

TEST(MpmRigidCoupling, ARigidPlateCarriesAnElasticCube) {
  const std::string scene = R"(
simulation: {dt: 1.0e-3, substeps: 10, gravity: [0, 0, -9.81]}
grid: {h: 0.02, domain: {min: [-0.3, -0.3, -0.1], max: [0.3, 0.3, 0.4]}}
materials:
  rubber: {model: fixed_corotated, density: 400, youngs_modulus: 1.0e5, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.1, 0.1, 0.1]}, pose: {position: [0, 0, 0.075]}}
contact: {friction: 0.5, mpm_stiffness: 1.0e4, mpm_dissipation: 10}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
  plate: {shape: {type: box, size: [0.3, 0.3, 0.02]}, mass: 1.0, pose: {position: [0, 0, 0.01]}}
)";
  auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(scene, "plate.yaml")));
  Simulator sim(model);
  const double cube_mass = sim.SummarizeObject(0).mass;
  ASSERT_GT(cube_mass, 0.3);  // ρ·V = 0.4 kg up to the particle sampling at this coarse h
  double fz = 0, net = 0;
  int samples = 0, contacts = 0;
  for (int i = 0; i < 600; ++i) {
    sim.Step();
    ASSERT_TRUE(sim.last_step().mpm_contact_converged) << "step " << i;
    if (i >= 400) {  // the last 0.2 s: mean of the ground's push on the plate
      const std::vector<ContactReport>& rigid = sim.last_step().contacts;  // the ground's push alone
      for (const ContactReport& c : rigid) fz += c.force[2];
      net += sim.SummarizeRigidBody(0).contact_force[2];  // ground and cube together
      ++samples;
      contacts = std::max(contacts, sim.last_step().mpm_contacts_max);
    }
  }
  fz /= samples;
  net /= samples;
  const double weight = (1.0 + cube_mass) * 9.81;
  RecordProperty("ground_force_N", std::to_string(fz));
  RecordProperty("expected_N", std::to_string(weight));
  RecordProperty("mpm_contacts", contacts);
  EXPECT_GT(contacts, 0);
  EXPECT_NEAR(fz, weight, 0.02 * weight);
  // The plate's contact forces (ground up, cube down) balance its own weight: the cube's push reaches the outputs.
  RecordProperty("net_contact_force_N", std::to_string(net));
  EXPECT_NEAR(net, 9.81, 0.02 * 9.81 + 0.02 * cube_mass * 9.81);
  // The cube sits on the plate's top face (z = 0.02): its centre half a side above, within a cell.
  EXPECT_NEAR(sim.SummarizeObject(0).center_of_mass[2], 0.07, 0.02);
}

}  // namespace
}  // namespace ductile
