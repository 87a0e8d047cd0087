// Where one body of a deformable domain is after the last step: an MPM object (its particles), a FEM soft body (its
// vertices) or an affine body. Each domain summarises its own bodies (DeformableDomain::SummarizeBody); the
// Simulator lists them over every domain (Simulator::num_bodies, SummarizeBody) for the trajectory CSV, the CLI and
// Python, in the order of the domain registry and, within a domain, of the scene.
#pragma once

#include <array>
#include <string>

namespace ductile {

enum class DomainBodyKind {
  kObject,      ///< An MPM object (scene `objects`).
  kSoftBody,    ///< A FEM soft body (scene `soft_bodies`).
  kAffineBody,  ///< An affine body (scene `affine_bodies`).
  kPdBody,      ///< A projective-dynamics soft body (scene `pd_bodies`).
};

struct BodySummary {
  std::string name;
  DomainBodyKind kind = DomainBodyKind::kObject;
  double mass = 0;                         ///< [kg].
  std::array<double, 3> center_of_mass{};  ///< [m].
  std::array<double, 3> velocity{};        ///< Centre-of-mass velocity [m/s].
  std::array<double, 3> bounds_min{};      ///< Of its particles or vertices [m].
  std::array<double, 3> bounds_max{};      ///< [m].
  double kinetic_energy = 0;               ///< [J].
  bool oriented = false;                   ///< It has an orientation (an affine body).
  /// The rotation nearest its deformation (w, x, y, z) when `oriented`, else identity.
  std::array<double, 4> quaternion{1, 0, 0, 0};
};

/// The kind's name in outputs: "object", "soft_body", "affine_body", "pd_body".
inline const char* NameOf(DomainBodyKind kind) {
  switch (kind) {
    case DomainBodyKind::kSoftBody:
      return "soft_body";
    case DomainBodyKind::kAffineBody:
      return "affine_body";
    case DomainBodyKind::kPdBody:
      return "pd_body";
    case DomainBodyKind::kObject:
      break;
  }
  return "object";
}

}  // namespace ductile
