// MPM particle state, structure of arrays (one array per field, float).
#pragma once

#include <cstdint>
#include <vector>

#include "core/small_math.h"

namespace ductile::mpm {

/// Particle fields. All arrays have size(); the order changes when particles are sorted into grid blocks,
/// `id` keeps each particle's index at t = 0.
struct Particles {
  std::vector<Vec3f> x;                ///< Position [m].
  std::vector<Vec3f> v;                ///< Velocity [m/s].
  std::vector<Mat3f> F;                ///< Elastic deformation gradient Fᴱ [-].
  std::vector<Mat3f> C;                ///< APIC affine velocity gradient [1/s].
  std::vector<float> mass;             ///< [kg].
  std::vector<float> volume;           ///< Rest volume V⁰ [m³].
  std::vector<float> plastic_strain;   ///< Accumulated plastic strain measure [-] (for display and probes).
  std::vector<std::int32_t> material;  ///< Index into Model::materials.
  std::vector<std::int32_t> object;    ///< Index into Model::objects.
  std::vector<std::int32_t> id;        ///< Index at t = 0.

  std::size_t size() const { return x.size(); }

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(x, v, F, C, mass, volume, plastic_strain, material, object, id);
  }

  void Resize(std::size_t n) {
    x.resize(n);
    v.resize(n);
    F.resize(n);
    C.resize(n);
    mass.resize(n);
    volume.resize(n);
    plastic_strain.resize(n);
    material.resize(n);
    object.resize(n);
    id.resize(n);
  }
};

/// index[id] = storage position of the particle with that id (the block sort reorders storage).
std::vector<std::int32_t> IndexById(const Particles& p);

/// Reorders every field: out[i] = in[order[i]]. `out` is resized to match.
void GatherParticles(const Particles& in, const std::vector<std::int32_t>& order, Particles& out);

}  // namespace ductile::mpm
