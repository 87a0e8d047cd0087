// Kernels and views that the device backend's orchestrations share (backend/device_mpm_impl.h,
// backend/device_contact.h): the particle arrays on the device, and the fill, run-start and compaction kernels of
// sorting and compaction by flags and scan.
#pragma once

#include <cstdint>

#include "core/float4.h"
#include "core/sim_hd.h"

namespace ductile::backend {

/// The particle arrays on the device (mpm::Particles' fields, same units).
struct ParticleView {
  Vec3f* x;
  Vec3f* v;
  Mat3f* F;
  Mat3f* C;
  float* mass;
  float* volume;
  float* plastic_strain;
  std::int32_t* material;
  std::int32_t* object;
  std::int32_t* id;
};

/// flags[i] = 1 where sorted key i starts a run of equal keys (and is below `invalid`), else 0.
struct RunStartKernel {
  const std::uint32_t* keys;
  std::uint32_t invalid;
  std::int32_t* flags;
  SIM_HD void operator()(std::int64_t i) const {
    flags[i] = keys[i] < invalid && (i == 0 || keys[i] != keys[i - 1]) ? 1 : 0;
  }
};

/// to[i] = value.
struct SetKernel {
  std::int32_t* to;
  std::int32_t value;
  SIM_HD void operator()(std::int64_t i) const { to[i] = value; }
};

/// list[scan[p]] = p where flags[p].
struct CompactKernel {
  const std::int32_t* flags;
  const std::int32_t* scan;
  std::int32_t* list;
  SIM_HD void operator()(std::int64_t p) const {
    if (flags[p]) list[scan[p]] = static_cast<std::int32_t>(p);
  }
};

}  // namespace ductile::backend
