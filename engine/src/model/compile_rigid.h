// Compiles a scene's `rigid_bodies:` and `robots:` into Model::rigid (docs/architecture.md, "Rigid bodies and SAP").
#pragma once

#include "ductile/model.h"
#include "model/rigid_model.h"

namespace ductile {

/// Compiles the scene's rigid bodies and robots into a RigidModel: dynamic bodies float from their pose with mass
/// properties from their shape (mass or density), kinematic bodies follow their keyframes, static bodies are
/// world geometry, robots come from their URDF with initial joint positions and PD controllers. Throws
/// SceneError naming the body when a shape has no volume for a density, or a robot's joint carries no mass.
RigidModel CompileRigid(const SceneDesc& scene);

/// The solver settings of `rigid` from the scene: the stiction speed and the MPM contacts' stiffness and dissipation
/// (`contact:`), the contact solvers' iteration limit and tolerances (`simulation:`).
void CompileRigidSettings(const SceneDesc& scene, RigidModel& rigid);

/// Sets the friction, stiffness and dissipation of every geometry of `rigid.world` from its ContactSource: what the
/// scene rigid body or the URDF geometry declares, else the scene's `contact:` default.
void CompileGeometryContact(const SceneDesc& scene, RigidModel& rigid);

/// Sets each robot's link_force_limit in `rigid.robots` from the scene's robots (same order).
void CompileRobotLimits(const SceneDesc& scene, RigidModel& rigid);

/// Volume [m³], centre of mass in the shape frame [m] and rotational inertia about it per unit density
/// [m⁵] of a solid shape (box, sphere, cylinder, capsule along z; closed mesh by signed tetrahedra).
struct ShapeMassProperties {
  double volume = 0;
  Eigen::Vector3d center = Eigen::Vector3d::Zero();
  Eigen::Matrix3d unit_inertia = Eigen::Matrix3d::Zero();
};
ShapeMassProperties ComputeShapeMassProperties(const ShapeDesc& shape);

}  // namespace ductile
