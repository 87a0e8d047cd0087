// Turns a MultibodyDesc (a URDF robot or a scene body) into bodies of a MultibodyTree and collision geometry of a
// CollisionWorld: the link frames, joints, inertias and limits as described, collision shapes with contact
// properties (the description's, else the defaults), and collision filtering between links that a joint
// connects (including links welded together by fixed joints and their neighbours).
#pragma once

#include <Eigen/Geometry>
#include <string>

#include "ductile/multibody_desc.h"
#include "geometry/collision.h"
#include "multibody/multibody_tree.h"

namespace ductile::multibody {

struct ContactDefaults {
  double friction = 0.5;    ///< μ.
  double stiffness = 1e6;   ///< [N/m].
  double dissipation = 10;  ///< [s/m].
};

/// Adds every link of `desc` as a body named "<name>/<link>" (a robot), or, with `single_body`, its one link as a
/// body named `name` (a scene's rigid body).
/// The root link is welded to the world at X_WR, or floats starting there when `floating_base`. Returns the
/// index of the root body. Throws SceneError (at the description's location) when a moving joint carries no
/// mass, so that the mass matrix would be singular.
int AddMultibody(const MultibodyDesc& desc, const std::string& name, const Eigen::Isometry3d& X_WR, bool floating_base,
                 const ContactDefaults& defaults, MultibodyTree& tree, geometry::CollisionWorld& world,
                 bool single_body = false);

/// The collision geometry of a described geometry, in its link frame (body −1 until attached); unset contact
/// properties take the defaults. Loads the mesh of a mesh shape.
geometry::CollisionGeometry ToCollisionGeometry(const GeometryDesc& g, const ContactDefaults& defaults);

}  // namespace ductile::multibody
