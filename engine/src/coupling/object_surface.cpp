// ObjectSurfaces (object_surface.h, whose comment has the equations).
#include "coupling/object_surface.h"

#include <algorithm>
#include <cmath>

#include "ductile/scene.h"
#include "scene/desc_eigen.h"

namespace ductile::coupling {
namespace {

// Below this share of |u| a component of the support direction counts as none: the support is flat along it (a
// cylinder standing on its cap, a capsule lying on its side) and the particle's own coordinate is kept, so that
// contacts spread over the flat part as the particles do instead of all jumping to one rim point. A tilt of 1e-3
// rad moves a 10 cm flat part's ends by 0.1 mm, below the contacts' reach (h/20, 0.8 mm at h = 1/64 m).
constexpr double kFlat = 1e-3;

bool Elastic(const mpm::MaterialParams& m) {
  return m.yield_stress == 0 &&
         (m.model == mpm::MaterialModel::kFixedCorotated || m.model == mpm::MaterialModel::kLinearCorotated ||
          m.model == mpm::MaterialModel::kStvkHencky);
}

}  // namespace

Eigen::Vector3d RestCentre(const Model& model, int object) {
  const ObjectInfo& info = model.objects[static_cast<std::size_t>(object)];
  double mass = 0;
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  for (int i = info.first_particle; i < info.first_particle + info.num_particles; ++i) {
    const auto k = static_cast<std::size_t>(i);
    mass += model.mass[k];
    centre += model.mass[k] * RestPosition(model, i);
  }
  return mass > 0 ? Eigen::Vector3d(centre / mass) : centre;
}

ObjectSurfaces::ObjectSurfaces(const Model& model) {
  shapes_.resize(model.objects.size());
  if (!model.scene || model.scene->objects.size() != model.objects.size()) return;
  for (std::size_t o = 0; o < model.objects.size(); ++o) {
    const MpmObjectDesc& desc = model.scene->objects[o];
    if (!Elastic(model.materials[static_cast<std::size_t>(model.objects[o].material)])) continue;
    Shape& s = shapes_[o];
    switch (desc.shape.type) {
      case ShapeType::kSphere:
        s.kind = Kind::kSphere;
        break;
      case ShapeType::kCapsule:
        s.kind = Kind::kCapsule;
        break;
      case ShapeType::kCylinder:
        s.kind = Kind::kCylinder;
        break;
      default:
        continue;
    }
    s.R_WS = ToQuaternion(desc.pose).toRotationMatrix();
    // Centred on the particles' centre of mass rather than the scene's point: the lattice's particles are not
    // symmetric about it (their centre lies up to a few hundredths of a millimetre off), and a ball touching below
    // its centre with its mass beside it would roll off on its own.
    s.p_WS = model.objects[o].num_particles > 0 ? RestCentre(model, static_cast<int>(o)) : ToEigen(desc.pose.position);
    s.radius = desc.shape.radius;
    s.half_length = 0.5 * desc.shape.length;
    any_ = true;
  }
}

Eigen::Vector3d ObjectSurfaces::Nearest(const Shape& s, const Eigen::Vector3d& Y) {
  const auto radial = [&](const Eigen::Vector3d& centre) {
    const Eigen::Vector3d r = Y - centre;
    const double norm = r.norm();
    return Eigen::Vector3d(centre + s.radius * (norm > 0 ? Eigen::Vector3d(r / norm) : Eigen::Vector3d::UnitX()));
  };
  switch (s.kind) {
    case Kind::kSphere:
      return radial(Eigen::Vector3d::Zero());
    case Kind::kCapsule:
      return radial(Eigen::Vector3d(0, 0, std::clamp(Y.z(), -s.half_length, s.half_length)));
    case Kind::kCylinder: {
      const double rho = std::hypot(Y.x(), Y.y());
      const Eigen::Vector2d dir = rho > 0 ? Eigen::Vector2d(Y.x() / rho, Y.y() / rho) : Eigen::Vector2d::UnitX();
      const double z = std::clamp(Y.z(), -s.half_length, s.half_length);
      const Eigen::Vector3d side(s.radius * dir.x(), s.radius * dir.y(), z);
      const double scale = std::min(rho, s.radius) / (rho > 0 ? rho : 1.0);
      const Eigen::Vector3d cap(Y.x() * scale, Y.y() * scale, Y.z() < 0 ? -s.half_length : s.half_length);
      return (side - Y).squaredNorm() <= (cap - Y).squaredNorm() ? side : cap;
    }
    case Kind::kNone:
      break;
  }
  return Y;
}

Eigen::Vector3d ObjectSurfaces::Support(const Shape& s, const Eigen::Vector3d& u, const Eigen::Vector3d& Y) {
  const double norm = u.norm();
  const Eigen::Vector3d d = u / norm;
  // Along the axis: the end the direction −u points to, or Y's own height where the support is flat along it.
  const auto axial = [&](double half) {
    if (std::abs(d.z()) < kFlat) return std::clamp(Y.z(), -half, half);
    return d.z() > 0 ? -half : half;
  };
  switch (s.kind) {
    case Kind::kSphere:
      return -s.radius * d;
    case Kind::kCapsule:
      return Eigen::Vector3d(0, 0, axial(s.half_length)) - s.radius * d;
    case Kind::kCylinder: {
      const double across = std::hypot(d.x(), d.y());
      Eigen::Vector2d xy;
      if (across < kFlat) {  // standing on a cap: Y's own point of it
        const double rho = std::hypot(Y.x(), Y.y());
        xy = Eigen::Vector2d(Y.x(), Y.y()) * (rho > s.radius ? s.radius / rho : 1.0);
      } else {
        xy = -s.radius * Eigen::Vector2d(d.x(), d.y()) / across;
      }
      return {xy.x(), xy.y(), axial(s.half_length)};
    }
    case Kind::kNone:
      break;
  }
  return Y;
}

bool ObjectSurfaces::ContactPoint(int object, const Eigen::Vector3d& X, const Eigen::Matrix3d& F,
                                  const Eigen::Vector3d& x, const Eigen::Vector3d& n, double spread,
                                  Eigen::Vector3d& point, double& depth) const {
  if (!carries(object)) return false;
  const Shape& s = shapes_[static_cast<std::size_t>(object)];
  // In the shape's frame S at t = 0: the particle, and the direction whose support is the point nearest the
  // geometry, u = R_WSᵀ F_pᵀ n (minimising n·F_p X = (F_pᵀ n)·X).
  const Eigen::Vector3d Y = s.R_WS.transpose() * (X - s.p_WS);
  const Eigen::Vector3d u = s.R_WS.transpose() * (F.transpose() * n);
  if (!(u.norm() > 1e-12) || !u.allFinite()) return false;
  const Eigen::Vector3d nearest = Nearest(s, Y);
  Eigen::Vector3d Y_star = Support(s, u, Y);
  if ((Y_star - nearest).norm() > spread) Y_star = nearest;
  point = x + F * (s.R_WS * Y_star + s.p_WS - X);
  depth = n.dot(x - point);
  return point.allFinite();
}

}  // namespace ductile::coupling
