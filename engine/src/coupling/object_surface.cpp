// ObjectSurfaces (object_surface.h, whose comment has the equations).
#include "coupling/object_surface.h"

#include <algorithm>
#include <cmath>

#include "ductile/scene.h"
#include "scene/desc_eigen.h"

namespace ductile::coupling {
namespace {

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
    SurfaceShape& s = shapes_[o];
    switch (desc.shape.type) {
      case ShapeType::kSphere:
        s.kind = SurfaceShape::kSphere;
        break;
      case ShapeType::kCapsule:
        s.kind = SurfaceShape::kCapsule;
        break;
      case ShapeType::kCylinder:
        s.kind = SurfaceShape::kCylinder;
        break;
      default:
        continue;
    }
    const Eigen::Matrix3d R_WS = ToQuaternion(desc.pose).toRotationMatrix();
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) s.R_WS.m[i][k] = R_WS(i, k);
    // Centred on the particles' centre of mass rather than the scene's point: the lattice's particles are not
    // symmetric about it (their centre lies up to a few hundredths of a millimetre off), and a ball touching below
    // its centre with its mass beside it would roll off on its own.
    const Eigen::Vector3d p_WS =
        model.objects[o].num_particles > 0 ? RestCentre(model, static_cast<int>(o)) : ToEigen(desc.pose.position);
    s.p_WS = {p_WS.x(), p_WS.y(), p_WS.z()};
    s.radius = desc.shape.radius;
    s.half_length = 0.5 * desc.shape.length;
    any_ = true;
  }
}

bool ObjectSurfaces::ContactPoint(int object, const Eigen::Vector3d& X, const Eigen::Matrix3d& F,
                                  const Eigen::Vector3d& x, const Eigen::Vector3d& n, double spread,
                                  Eigen::Vector3d& point, double& depth) const {
  if (!carries(object)) return false;
  Mat3<double> F_p;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) F_p.m[i][k] = F(i, k);
  Vec3<double> at;
  const bool found = shapes_[static_cast<std::size_t>(object)].ContactPoint(
      {X.x(), X.y(), X.z()}, F_p, {x.x(), x.y(), x.z()}, {n.x(), n.y(), n.z()}, spread, at, depth);
  point = {at.x, at.y, at.z};
  return found;
}

}  // namespace ductile::coupling
