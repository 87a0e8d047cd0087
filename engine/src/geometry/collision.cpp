#include "geometry/collision.h"

#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>
#include <fcl/narrowphase/distance.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ductile::geometry {
namespace {

struct Aabb {
  Eigen::Vector3d lo = Eigen::Vector3d::Zero(), hi = Eigen::Vector3d::Zero();
  bool infinite = false;  // a half-space
};

Aabb WorldBounds(const CollisionGeometry& g, const Eigen::Isometry3d& X_WG) {
  Aabb box;
  const Eigen::Vector3d c = X_WG.translation();
  const Eigen::Matrix3d R = X_WG.linear();
  Eigen::Vector3d half = Eigen::Vector3d::Zero();
  switch (g.type) {
    case ShapeType::kPlane:
      box.infinite = true;
      return box;
    case ShapeType::kSheet:  // only cloth objects are sheets, never rigid geometry
      return box;
    case ShapeType::kBox:
      half = R.cwiseAbs() * g.half_extents;
      break;
    case ShapeType::kSphere:
      half.setConstant(g.radius);
      break;
    case ShapeType::kCylinder:
    case ShapeType::kCapsule:
      half = R.col(2).cwiseAbs() * (0.5 * g.length) + Eigen::Vector3d::Constant(g.radius);
      break;
    case ShapeType::kMesh: {
      box.lo.setConstant(std::numeric_limits<double>::infinity());
      box.hi = -box.lo;
      for (const Eigen::Vector3d& v : g.mesh->vertices) {
        const Eigen::Vector3d w = X_WG * v;
        box.lo = box.lo.cwiseMin(w);
        box.hi = box.hi.cwiseMax(w);
      }
      return box;
    }
  }
  box.lo = c - half;
  box.hi = c + half;
  return box;
}

// A point q of geometry b below plane (o, n) by d < 0 becomes a contact midway between the surfaces.
void AddIfBelow(int a, int b, const Eigen::Vector3d& o, const Eigen::Vector3d& n, const Eigen::Vector3d& q,
                double radius, std::vector<ContactPoint>& out) {
  const double d = n.dot(q - o) - radius;
  if (d >= 0) return;
  ContactPoint c;
  c.a = a;
  c.b = b;
  c.n_W = n;
  c.depth = -d;
  c.p_W = q - n * radius + n * (0.5 * c.depth);
  out.push_back(c);
}

// Contacts of geometry b (any type but a plane) against half-space a.
void PlaneContacts(int a, const Eigen::Isometry3d& X_WA, const CollisionGeometry& plane, int b,
                   const Eigen::Isometry3d& X_WG, const CollisionGeometry& g, std::vector<ContactPoint>& out) {
  const Eigen::Vector3d n = (X_WA.linear() * plane.normal).normalized();
  const Eigen::Vector3d o = X_WA.translation();
  switch (g.type) {
    case ShapeType::kPlane:
    case ShapeType::kSheet:  // never rigid geometry
      return;
    case ShapeType::kSphere:
      AddIfBelow(a, b, o, n, X_WG.translation(), g.radius, out);
      return;
    case ShapeType::kBox:
      for (int i = 0; i < 8; ++i) {
        const Eigen::Vector3d corner((i & 1) ? g.half_extents.x() : -g.half_extents.x(),
                                     (i & 2) ? g.half_extents.y() : -g.half_extents.y(),
                                     (i & 4) ? g.half_extents.z() : -g.half_extents.z());
        AddIfBelow(a, b, o, n, X_WG * corner, 0, out);
      }
      return;
    case ShapeType::kCapsule:
      for (double s : {-0.5, 0.5}) AddIfBelow(a, b, o, n, X_WG * Eigen::Vector3d(0, 0, s * g.length), g.radius, out);
      return;
    case ShapeType::kCylinder: {
      const Eigen::Vector3d axis = X_WG.linear().col(2);
      const Eigen::Vector3d radial = -(n - n.dot(axis) * axis);
      for (double s : {-0.5, 0.5}) {
        const Eigen::Vector3d center = X_WG * Eigen::Vector3d(0, 0, s * g.length);
        if (radial.norm() > 0.2) {
          // The cap is tilted against the plane: its deepest rim point is along the projected normal.
          AddIfBelow(a, b, o, n, center + g.radius * radial.normalized(), 0, out);
        } else {
          // The cap lies (nearly) flat: eight rim points carry it.
          for (int k = 0; k < 8; ++k) {
            const double t = k * M_PI / 4;
            AddIfBelow(a, b, o, n, center + g.radius * (X_WG.linear() * Eigen::Vector3d(std::cos(t), std::sin(t), 0)),
                       0, out);
          }
        }
      }
      return;
    }
    case ShapeType::kMesh:
      for (const Eigen::Vector3d& v : g.mesh->vertices) AddIfBelow(a, b, o, n, X_WG * v, 0, out);
      return;
  }
}

std::shared_ptr<fcl::CollisionGeometryd> MakeFclGeometry(const CollisionGeometry& g) {
  switch (g.type) {
    case ShapeType::kBox:
      return std::make_shared<fcl::Boxd>(2 * g.half_extents);
    case ShapeType::kSphere:
      return std::make_shared<fcl::Sphered>(g.radius);
    case ShapeType::kCylinder:
      return std::make_shared<fcl::Cylinderd>(g.radius, g.length);
    case ShapeType::kCapsule:
      return std::make_shared<fcl::Capsuled>(g.radius, g.length);
    case ShapeType::kMesh: {
      auto model = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
      model->beginModel();
      for (const std::array<int, 3>& t : g.mesh->triangles)
        model->addTriangle(g.mesh->vertices[t[0]], g.mesh->vertices[t[1]], g.mesh->vertices[t[2]]);
      model->endModel();
      return model;
    }
    case ShapeType::kPlane:  // handled analytically
    case ShapeType::kSheet:  // never rigid geometry
      return nullptr;
  }
  return nullptr;
}

}  // namespace

Eigen::Isometry3d WorldPose(const CollisionGeometry& g, const std::vector<Eigen::Isometry3d>& X_WB) {
  return g.body >= 0 ? X_WB[g.body] * g.X_BG : g.X_BG;
}

struct CollisionWorld::FclData {
  std::vector<std::shared_ptr<fcl::CollisionGeometryd>> shapes;
};

CollisionWorld::CollisionWorld() : fcl_(std::make_unique<FclData>()) {}
CollisionWorld::~CollisionWorld() = default;
CollisionWorld::CollisionWorld(CollisionWorld&&) noexcept = default;
CollisionWorld& CollisionWorld::operator=(CollisionWorld&&) noexcept = default;

CollisionWorld::CollisionWorld(const CollisionWorld& other)
    : excluded_bodies_(other.excluded_bodies_), fcl_(std::make_unique<FclData>()) {
  for (const CollisionGeometry& g : other.geometries_) Add(g);
}

void CollisionWorld::SetContactProperties(int g, double friction, double stiffness, double dissipation) {
  CollisionGeometry& geometry = geometries_.at(static_cast<std::size_t>(g));
  geometry.friction = friction;
  geometry.stiffness = stiffness;
  geometry.dissipation = dissipation;
}

CollisionWorld& CollisionWorld::operator=(const CollisionWorld& other) {
  if (this != &other) {
    CollisionWorld copy(other);
    *this = std::move(copy);
  }
  return *this;
}

int CollisionWorld::Add(CollisionGeometry geometry) {
  fcl_->shapes.push_back(MakeFclGeometry(geometry));
  geometries_.push_back(std::move(geometry));
  return num_geometries() - 1;
}

void CollisionWorld::ExcludeBodyPair(int body_a, int body_b) {
  excluded_bodies_.insert({std::min(body_a, body_b), std::max(body_a, body_b)});
}

bool CollisionWorld::Excluded(int ga, int gb) const {
  return !Collides(geometries_[ga].body, geometries_[gb].body);
}

bool CollisionWorld::Collides(int body_a, int body_b) const {
  if (body_a == body_b) return false;  // the same body, or both static
  return excluded_bodies_.count({std::min(body_a, body_b), std::max(body_a, body_b)}) == 0;
}

GeometryDistance CollisionWorld::Distance(int a, const Eigen::Isometry3d& X_WA, int b,
                                          const Eigen::Isometry3d& X_WB) const {
  const fcl::CollisionObjectd oa(fcl_->shapes.at(static_cast<std::size_t>(a)), X_WA);
  const fcl::CollisionObjectd ob(fcl_->shapes.at(static_cast<std::size_t>(b)), X_WB);
  // Apart: FCL's own GJK, whose distance is smooth in the poses (libccd's changed at 1e-3 of the distance's gradient
  // under a rigid motion of both shapes, which leaves it unchanged). Overlapping: libccd's EPA for the depth (the
  // former has no signed distance for every pair of shapes).
  fcl::DistanceRequestd request;
  request.enable_nearest_points = true;
  request.gjk_solver_type = fcl::GST_INDEP;
  fcl::DistanceResultd result;
  fcl::distance(&oa, &ob, request, result);
  if (!(result.min_distance > 0)) {
    request.enable_signed_distance = true;
    request.gjk_solver_type = fcl::GST_LIBCCD;
    result.clear();
    fcl::distance(&oa, &ob, request, result);
  }
  GeometryDistance out;
  out.distance = result.min_distance;
  out.p_A = result.nearest_points[0];
  out.p_B = result.nearest_points[1];
  return out;
}

double BoundingRadius(const CollisionGeometry& g) {
  switch (g.type) {
    case ShapeType::kBox:
      return g.half_extents.norm();
    case ShapeType::kSphere:
      return g.radius;
    case ShapeType::kCylinder:
      return std::hypot(g.radius, 0.5 * g.length);
    case ShapeType::kCapsule:
      return g.radius + 0.5 * g.length;
    case ShapeType::kMesh: {
      double r = 0;
      if (g.mesh)
        for (const Eigen::Vector3d& v : g.mesh->vertices) r = std::max(r, v.norm());
      return r;
    }
    case ShapeType::kPlane:
    case ShapeType::kSheet:
      break;
  }
  return std::numeric_limits<double>::infinity();
}

double CollisionWorld::BoundingRadius(int g) const {
  return geometry::BoundingRadius(geometries_.at(static_cast<std::size_t>(g)));
}

std::vector<ContactPoint> CollisionWorld::FindContacts(const std::vector<Eigen::Isometry3d>& X_WB) const {
  const int n = num_geometries();
  std::vector<Eigen::Isometry3d> X_WG(n);
  std::vector<Aabb> boxes(n);
  std::vector<int> finite, planes;
  for (int g = 0; g < n; ++g) {
    X_WG[g] = WorldPose(geometries_[g], X_WB);
    boxes[g] = WorldBounds(geometries_[g], X_WG[g]);
    (boxes[g].infinite ? planes : finite).push_back(g);
  }
  // Broad phase: sweep and prune along x, then half-spaces against everything.
  std::vector<std::pair<int, int>> pairs;
  std::sort(finite.begin(), finite.end(), [&](int i, int j) { return boxes[i].lo.x() < boxes[j].lo.x(); });
  for (std::size_t i = 0; i < finite.size(); ++i) {
    const Aabb& bi = boxes[finite[i]];
    for (std::size_t j = i + 1; j < finite.size() && boxes[finite[j]].lo.x() <= bi.hi.x(); ++j) {
      const Aabb& bj = boxes[finite[j]];
      if (bj.lo.y() > bi.hi.y() || bj.hi.y() < bi.lo.y() || bj.lo.z() > bi.hi.z() || bj.hi.z() < bi.lo.z()) continue;
      pairs.emplace_back(std::min(finite[i], finite[j]), std::max(finite[i], finite[j]));
    }
  }
  for (int p : planes)
    for (int g : finite) pairs.emplace_back(std::min(p, g), std::max(p, g));
  std::sort(pairs.begin(), pairs.end());

  // Narrow phase.
  std::vector<ContactPoint> contacts;
  for (const auto& [a, b] : pairs) {
    if (Excluded(a, b)) continue;
    const CollisionGeometry& ga = geometries_[a];
    const CollisionGeometry& gb = geometries_[b];
    if (ga.type == ShapeType::kPlane) {
      PlaneContacts(a, X_WG[a], ga, b, X_WG[b], gb, contacts);
      continue;
    }
    if (gb.type == ShapeType::kPlane) {
      // Report with a first: flip the plane's normal (from b into a becomes from a into b by negation).
      std::vector<ContactPoint> flipped;
      PlaneContacts(b, X_WG[b], gb, a, X_WG[a], ga, flipped);
      for (ContactPoint& c : flipped) {
        std::swap(c.a, c.b);
        c.n_W = -c.n_W;
        contacts.push_back(c);
      }
      continue;
    }
    const fcl::CollisionObjectd oa(fcl_->shapes[a], X_WG[a]);
    const fcl::CollisionObjectd ob(fcl_->shapes[b], X_WG[b]);
    fcl::CollisionRequestd request(8, true);
    fcl::CollisionResultd result;
    fcl::collide(&oa, &ob, request, result);
    std::vector<fcl::Contactd> found;
    result.getContacts(found);
    for (const fcl::Contactd& f : found) {
      if (!(f.penetration_depth > 0)) continue;
      ContactPoint c;
      c.a = a;
      c.b = b;
      c.n_W = f.normal.normalized();
      c.depth = f.penetration_depth;
      c.p_W = f.pos;
      contacts.push_back(c);
    }
  }
  return contacts;
}

}  // namespace ductile::geometry
