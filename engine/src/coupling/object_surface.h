// The surface that an elastic MPM object carries from its scene shape, for contact: the strong coupling's particle
// contacts (coupling/strong_coupling.h) and the weak one's (coupling/mpm_rigid_contact.h); docs/architecture.md,
// "Domains and couplings" and "MPM-rigid contact".
//
// A particle stands for a cube of material, and contact on its sphere of radius r_p makes a body's surface a chain
// of arcs with a kink between neighbours; sampled on a lattice, a ball is not even round (the lowest point of its
// particle spheres moves by 4.7 mm of its 50 mm radius as it turns by 0.3 rad). A rolling body lands on each kink
// and lump as an inelastic impact and rolls far slower than a ball. For an object whose material keeps no plastic
// strain and whose scene shape is round (sphere, capsule, cylinder), the surface about particle p is instead the
// shape at t = 0 mapped by p's deformation,
//   x(X) = x_p + F_p (X − X_p),
// X_p the particle's position at t = 0 (Model::x0) and F_p its deformation gradient (elastic: the whole of it). A
// contact against geometry of outward normal n acts at the point of that surface nearest the geometry: X* minimises
// (F_pᵀ n)·X over the shape's surface, the shape's support point in the direction −F_pᵀ n, taken when it lies
// within `spread` of the surface point nearest X_p, else that nearest point; then
//   x_c = x_p + F_p (X* − X_p),   depth = n·(x_p − x_c),
// and the contact's gap is the particle's signed distance less the depth (the geometry's surface taken as flat over
// |x_c − x_p|, a few millimetres). The shape is centred on the particles' centre of mass at t = 0 (RestCentre). For any
// rigid motion of the object x_c lies on its moved shape exactly, so a ball rolls on a round surface whatever its
// sampling. Boxes, meshes, plastic and fluid objects carry none (their contacts stay on the particles' spheres): a
// box's faces are flat already, and plastic flow leaves no rest shape to map.
#pragma once

#include <Eigen/Core>
#include <array>
#include <vector>

#include "coupling/surface_kernels.h"
#include "ductile/model.h"

namespace ductile::coupling {

/// The position at t = 0 (Model::x0) of the particle whose id is `id`.
inline Eigen::Vector3d RestPosition(const Model& model, int id) {
  const std::array<float, 3>& X = model.x0[static_cast<std::size_t>(id)];
  return {X[0], X[1], X[2]};
}
/// Object o's particles' centre of mass at t = 0 (Model::x0), on which its surface is centred.
Eigen::Vector3d RestCentre(const Model& model, int object);

class ObjectSurfaces {
 public:
  ObjectSurfaces() = default;
  /// The surfaces of `model`'s objects (none when the model has no scene, as one built by hand).
  explicit ObjectSurfaces(const Model& model);

  /// Whether any object carries a surface.
  bool any() const { return any_; }
  /// Whether particles of object o carry a surface.
  bool carries(int object) const {
    return object >= 0 && object < static_cast<int>(shapes_.size()) &&
           shapes_[static_cast<std::size_t>(object)].kind != SurfaceShape::kNone;
  }

  /// The contact point on object o's surface about a particle at x with rest position X (RestPosition) and
  /// deformation gradient F,
  /// against geometry of outward normal n (file comment), and its depth n·(x − point). `spread` [m] bounds the
  /// distance between the support point and the surface point nearest X. False when the object carries no
  /// surface or F is degenerate.
  bool ContactPoint(int object, const Eigen::Vector3d& X, const Eigen::Matrix3d& F, const Eigen::Vector3d& x,
                    const Eigen::Vector3d& n, double spread, Eigen::Vector3d& point, double& depth) const;

  /// Per object its surface (kind kNone: none), for the device backend's registration.
  const std::vector<SurfaceShape>& shapes() const { return shapes_; }

 private:
  std::vector<SurfaceShape> shapes_;
  bool any_ = false;
};

}  // namespace ductile::coupling
