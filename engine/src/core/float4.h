// Float4: four floats that the CPU handles as one SIMD register (GCC/Clang vector extension: SSE on baseline
// x86-64, NEON on ARM) and CUDA as a plain struct. The transfer kernels keep a grid node's (mass, momentum) or
// (velocity, 0) in one Float4, so a node update is one vector multiply-add instead of four scalar ones.
#pragma once

#include "core/sim_hd.h"
#include "core/small_math.h"

namespace ductile {

#if defined(__CUDACC__) || !(defined(__GNUC__) || defined(__clang__))
// Aligned as the host's vector type, so that a struct holding one has the same layout in both compilers' files,
// and a node loads in one 16-byte access on the GPU.
struct alignas(16) Float4 {
  float v[4];
  SIM_HD float& operator[](int i) { return v[i]; }
  SIM_HD float operator[](int i) const { return v[i]; }
};
SIM_HD Float4 operator+(const Float4& a, const Float4& b) {
  return {{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3]}};
}
SIM_HD Float4 operator*(const Float4& a, float s) {
  return {{a.v[0] * s, a.v[1] * s, a.v[2] * s, a.v[3] * s}};
}
SIM_HD Float4& operator+=(Float4& a, const Float4& b) {
  a = a + b;
  return a;
}
#else
using Float4 = float __attribute__((vector_size(16)));
#endif

SIM_HD Float4 MakeFloat4(float a, float b, float c, float d) {
  Float4 r;
  r[0] = a;
  r[1] = b;
  r[2] = c;
  r[3] = d;
  return r;
}
SIM_HD Float4 ZeroFloat4() {
  return MakeFloat4(0, 0, 0, 0);
}
/// a + b·s, elementwise.
SIM_HD Float4 MulAdd(const Float4& a, const Float4& b, float s) {
  return a + b * s;
}
/// The first three lanes as a vector.
SIM_HD Vec3f Xyz(const Float4& a) {
  return {a[0], a[1], a[2]};
}

}  // namespace ductile
