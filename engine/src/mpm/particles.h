// MPM particle state, structure of arrays (one array per field, float).
#pragma once

#include <cstdint>
#include <vector>

#include "core/small_math.h"

namespace ductile::mpm {

/// One particle field as the engine's tools name it: its name (Python's `particle_field`, the docs), its unit, and
/// whether it changes as the particles move (Simulator::StateHash covers those; mass changes only by a live edit).
struct ParticleField {
  const char* name;
  const char* unit;
  bool evolves;
};

/// Calls f(field, a.member, b.member, ...) for every particle field, in declaration order, where each argument is a
/// Particles or a type with the same members (the device backend's buffers): the one list of the fields that
/// Resize, Serialize, GatherParticles, the memory count, the state hash, the device backend's upload, download and
/// buffers, and Python's arrays walk. A new field is a member of Particles and a line here (and, on a device, a
/// buffer and a line in GatherParticlesKernel, whose per-particle copy runs in device code).
template <typename F, typename... P>
void ForEachParticleField(F&& f, P&... p) {
  f(ParticleField{"position", "m", true}, p.x...);
  f(ParticleField{"velocity", "m/s", true}, p.v...);
  f(ParticleField{"deformation_gradient", "", true}, p.F...);
  f(ParticleField{"affine_velocity", "1/s", true}, p.C...);
  f(ParticleField{"mass", "kg", false}, p.mass...);
  f(ParticleField{"volume", "m³", false}, p.volume...);
  f(ParticleField{"plastic_strain", "", true}, p.plastic_strain...);
  f(ParticleField{"material", "", false}, p.material...);
  f(ParticleField{"object", "", false}, p.object...);
  f(ParticleField{"id", "", false}, p.id...);
}

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
    ForEachParticleField([&ar](const ParticleField&, auto& field) { ar(field); }, *this);
  }

  void Resize(std::size_t n) {
    ForEachParticleField([n](const ParticleField&, auto& field) { field.resize(n); }, *this);
  }
};

/// index[id] = storage position of the particle with that id (the block sort reorders storage).
std::vector<std::int32_t> IndexById(const Particles& p);

/// Reorders every field: out[i] = in[order[i]]. `out` is resized to match.
void GatherParticles(const Particles& in, const std::vector<std::int32_t>& order, Particles& out);

}  // namespace ductile::mpm
