// Rigid-rigid contact detection (docs/architecture.md, "Rigid bodies and SAP"): a sweep-and-prune broad phase over
// world-space bounding boxes, then a narrow phase that returns point contacts (position, normal, depth).
//
// Narrow phase: pairs with a half-space are handled here analytically with several points where a single
// deepest point would let a resting body rock (every box or mesh vertex below the plane, both ends of a
// capsule, each cylinder cap's deepest rim point, or eight rim points when a cap lies flat); every other pair
// goes to FCL (GJK/EPA through libccd, box-box with up to four points).
// Contact convention: the normal n points from geometry a into geometry b, depth > 0 is penetration, and the
// point lies midway between the two surfaces.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ductile/kinds.h"
#include "geometry/triangle_mesh.h"

namespace ductile::geometry {

/// A collision shape attached to a body (or to the world).
struct CollisionGeometry {
  std::string name;
  ShapeType type = ShapeType::kBox;
  Eigen::Vector3d half_extents = Eigen::Vector3d::Constant(0.05);  ///< Box [m].
  double radius = 0.05;                                            ///< Sphere, cylinder, capsule [m].
  double length = 0.1;                                             ///< Cylinder, capsule: along z, without caps [m].
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< Plane: outward normal in G; the solid is below G's origin.
  std::shared_ptr<const TriangleMesh> mesh;           ///< Mesh vertices in G [m] (scaled).
  int body = -1;                                      ///< Owning body, −1 = the world (static).
  Eigen::Isometry3d X_BG = Eigen::Isometry3d::Identity();  ///< Pose in the body frame (world frame if static).
  double friction = 0.5;                                   ///< Coulomb μ.
  double stiffness = 1e6;                                  ///< Point-contact stiffness [N/m].
  double dissipation = 10;                                 ///< Hunt-Crossley dissipation [s/m].
};

struct ContactPoint {
  int a = -1, b = -1;                              ///< Geometry indices.
  Eigen::Vector3d p_W = Eigen::Vector3d::Zero();   ///< Contact point [m].
  Eigen::Vector3d n_W = Eigen::Vector3d::UnitZ();  ///< Unit normal from a into b.
  double depth = 0;                                ///< Penetration [m], > 0.
};

/// The signed distance between two geometries and where it is measured.
struct GeometryDistance {
  double distance = 0;  ///< [m]; negative when they overlap (minus the penetration depth).
  /// The nearest points of a and of b, world [m] (overlapping: the deepest points of each in the other).
  Eigen::Vector3d p_A = Eigen::Vector3d::Zero(), p_B = Eigen::Vector3d::Zero();
};

/// The radius of a sphere about the geometry's frame origin that holds it [m] (a mesh: its farthest vertex);
/// infinite for a half-space or a sheet.
double BoundingRadius(const CollisionGeometry& g);

/// The geometry's pose in the world at the body poses X_WB (its X_BG when it is static).
Eigen::Isometry3d WorldPose(const CollisionGeometry& g, const std::vector<Eigen::Isometry3d>& X_WB);

class CollisionWorld {
 public:
  CollisionWorld();
  ~CollisionWorld();
  CollisionWorld(CollisionWorld&&) noexcept;
  CollisionWorld& operator=(CollisionWorld&&) noexcept;
  /// A deep copy: FCL caches bounds inside its shapes, so copies never share them (simulators may run on
  /// different threads).
  CollisionWorld(const CollisionWorld& other);
  CollisionWorld& operator=(const CollisionWorld& other);

  /// Adds a geometry; returns its index.
  int Add(CollisionGeometry geometry);
  /// Never report contacts between these two geometries' bodies (−1 for the world).
  void ExcludeBodyPair(int body_a, int body_b);
  int num_geometries() const { return static_cast<int>(geometries_.size()); }
  const CollisionGeometry& geometry(int g) const { return geometries_[g]; }
  /// Sets geometry g's Coulomb μ, stiffness [N/m] and Hunt-Crossley dissipation [s/m] (live edits of contact
  /// properties; the shapes and their collision data are unchanged).
  void SetContactProperties(int g, double friction, double stiffness, double dissipation);

  /// Whether contacts between bodies a and b are reported: they differ and no filter excludes the pair (−1: the
  /// world, for static geometry).
  bool Collides(int body_a, int body_b) const;
  /// The signed distance between geometries a and b, neither a half-space, at world poses X_WA and X_WB (FCL's
  /// GJK, EPA where they overlap). Thread-safe for distinct worlds only (FCL caches bounds in its shapes).
  GeometryDistance Distance(int a, const Eigen::Isometry3d& X_WA, int b, const Eigen::Isometry3d& X_WB) const;
  /// The radius of a sphere about geometry g's frame origin that holds it [m]; infinite for a half-space.
  double BoundingRadius(int g) const;

  /// All contacts at the given body poses (X_WB[b] for body b). Deterministic: pairs in increasing (a, b) order.
  std::vector<ContactPoint> FindContacts(const std::vector<Eigen::Isometry3d>& X_WB) const;

 private:
  struct FclData;
  bool Excluded(int ga, int gb) const;
  std::vector<CollisionGeometry> geometries_;
  std::set<std::pair<int, int>> excluded_bodies_;
  std::unique_ptr<FclData> fcl_;
};

}  // namespace ductile::geometry
