// A rigid system with the tree, world, welds and state it steps (RigidSystem owns none of them), for tests that
// build a multibody by hand instead of from a scene.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "contact/rigid_system.h"

namespace ductile::contact {

struct RigidFixture {
  RigidFixture(multibody::MultibodyTree tree_in, geometry::CollisionWorld world_in, RigidSystemParams params = {})
      : tree_data(std::move(tree_in)),
        world(std::move(world_in)),
        state(InitialRigidState(tree_data)),
        system(tree_data, world, welds, controllers, std::move(params), state) {}
  RigidFixture(const RigidFixture&) = delete;
  RigidFixture& operator=(const RigidFixture&) = delete;

  RigidStepStats Step(double dt) { return system.Step(dt); }
  const multibody::MultibodyTree& tree() const { return tree_data; }
  const multibody::Kinematics& kinematics() const { return system.kinematics(); }
  const std::vector<RigidContact>& contacts() const { return system.contacts(); }
  void UpdateKinematics() { system.UpdateKinematics(); }
  void AddController(const JointController& c) {
    controllers.push_back(c);
    state.targets.push_back(c.initial);
  }

  multibody::MultibodyTree tree_data;
  geometry::CollisionWorld world;
  std::vector<Weld> welds;
  std::vector<JointController> controllers;  ///< Add one with AddController (its target goes into the state).
  RigidState state;
  RigidSystem system;
};

}  // namespace ductile::contact
