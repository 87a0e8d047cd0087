// Description of articulated rigid bodies (docs/architecture.md, "Rigid bodies and SAP"): a tree of links connected by
// joints, as read from a URDF file (LoadUrdf) or from a scene's `bodies:` and `robots:` sections. Validated on load;
// the multibody compiler (engine/src/multibody) turns it into the arrays the dynamics works on.
#pragma once

#include <array>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "ductile/scene.h"

namespace ductile {

/// Mass properties of a link, in the link frame L.
struct InertiaDesc {
  double mass = 0;       ///< [kg], ≥ 0 (0 only for a massless link welded to a massive one).
  Vector3 com{0, 0, 0};  ///< Centre of mass p_LCm [m].
  /// Rotational inertia about the centre of mass, expressed in L [kg·m²]: Ixx, Iyy, Izz, Ixy, Ixz, Iyz.
  /// Positive semi-definite (definite when mass > 0 unless the link is a point mass).
  std::array<double, 6> inertia{0, 0, 0, 0, 0, 0};
};

/// Contact properties of a collision geometry. A negative value means "unset": the scene's default applies.
struct ContactPropertiesDesc {
  double friction = -1;     ///< Coulomb μ, ≥ 0.
  double stiffness = -1;    ///< Point-contact stiffness k [N/m], > 0.
  double dissipation = -1;  ///< Hunt-Crossley dissipation d [s/m], ≥ 0.
};

/// A geometry attached to a link: for drawing (visual) or for contact (collision).
struct GeometryDesc {
  std::string name;
  ShapeDesc shape;  ///< box, sphere, cylinder (along z), capsule (along z), mesh, plane (a half-space).
  PoseDesc pose;    ///< X_LG: the geometry's frame in its link's frame.
  std::array<double, 4> rgba{0.7, 0.7, 0.7, 1.0};  ///< Colour for drawing.
  ContactPropertiesDesc contact;
  SourceLocation where;
};

struct LinkDesc {
  std::string name;
  InertiaDesc inertia;
  std::vector<GeometryDesc> visuals;
  std::vector<GeometryDesc> collisions;
  SourceLocation where;
};

struct JointDesc {
  std::string name;
  JointType type = JointType::kFixed;
  std::string parent;     ///< Parent link name; "world" for the world frame.
  std::string child;      ///< Child link name.
  PoseDesc origin;        ///< X_PJ: the joint frame in the parent link frame; the child frame equals J at q = 0.
  Vector3 axis{1, 0, 0};  ///< Unit axis in J (revolute, prismatic); normalised on load.
  double lower = -std::numeric_limits<double>::infinity();  ///< Position limits [rad or m]; lower ≤ upper.
  double upper = std::numeric_limits<double>::infinity();
  double effort = std::numeric_limits<double>::infinity();    ///< Effort limit [N·m or N], > 0.
  double velocity = std::numeric_limits<double>::infinity();  ///< Velocity limit [rad/s or m/s], > 0.
  double damping = 0;                                         ///< Viscous joint damping [N·m·s/rad or N·s/m], ≥ 0.
  SourceLocation where;
};

/// An articulated tree: links and the joints between them. Exactly one link has no parent joint (the root);
/// it is attached to the world by a joint whose parent is "world", or floats freely when there is none.
struct MultibodyDesc {
  std::string name;
  std::filesystem::path source;  ///< URDF or scene file it came from.
  std::vector<LinkDesc> links;
  std::vector<JointDesc> joints;

  const LinkDesc* FindLink(const std::string& link) const {
    for (const LinkDesc& l : links)
      if (l.name == link) return &l;
    return nullptr;
  }
  const JointDesc* FindJoint(const std::string& joint) const {
    for (const JointDesc& j : joints)
      if (j.name == joint) return &j;
    return nullptr;
  }
};

/// Reads a URDF file into a MultibodyDesc. Joint types: fixed, revolute, continuous (revolute without limits),
/// prismatic, floating; planar is refused. Geometry: box, sphere, cylinder, mesh (path relative to the URDF's
/// folder or package://NAME/... resolved against the folders above it). Throws SceneError with FILE:LINE:COL for
/// a missing or unreadable file, malformed XML, a joint that names an unknown link, a link with two parents, a
/// cycle, negative mass, an inertia that is not positive semi-definite or violates the triangle inequality,
/// lower > upper, non-positive effort or velocity limits, negative damping, a zero axis.
MultibodyDesc LoadUrdf(const std::filesystem::path& file);

}  // namespace ductile
