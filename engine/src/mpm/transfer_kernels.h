// MLS-MPM transfer kernels (Hu et al. 2018, "A moving least squares material point method", Sec. 5) with APIC
// (Jiang et al. 2015), quadratic B-spline weights. One function per phase, per particle or per node, SIM_HD so the
// CPU and CUDA backends launch the same code; where each phase scatters or gathers is a template parameter.
//
// With x̂ = (x_p − origin)/h, base = ⌊x̂ − ½⌋, f = x̂ − base ∈ [½, 3/2):
//   w₀ = ½(3/2 − f)², w₁ = ¾ − (f − 1)², w₂ = ½(f − ½)²            (quadratic B-spline, per axis)
// P2G (MLS-MPM Eq. 16-17 with D⁻¹ = 4/h²):
//   A_p = m_p C_p − Δt V⁰_p (4/h²) τ_p,   τ_p = P(F_p) F_pᵀ (Kirchhoff stress)
//   m_i += w_ip m_p,   (mv)_i += w_ip (m_p v_p + A_p (x_i − x_p))
// Grid update: v_i = (mv)_i / m_i + Δt g, then boundary conditions.
// G2P: v_p = Σ w_ip v_i,   C_p = (4/h²) Σ w_ip v_i (x_i − x_p)ᵀ,   x_p += Δt v_p,   F_p ← (I + Δt C_p) F_p.
#pragma once

#include <cmath>

#include "core/float4.h"
#include "core/sim_hd.h"
#include "core/small_math.h"

namespace ductile::mpm {

/// Nodes per grid block edge; blocks are 4x4x4 nodes.
inline constexpr int kBlockEdge = 4;
inline constexpr int kBlockNodes = kBlockEdge * kBlockEdge * kBlockEdge;
/// The particles sorted into a block have their stencil base in the block when sorted and may move one cell per
/// substep; the solver re-sorts before any base leaves [−1, 4] (block-local, per axis). Their stencils then touch
/// the block's nodes −1 … 6: an 8x8x8 window whose node 0 is the block's node −kWindowMargin.
inline constexpr int kWindowMargin = 1;
inline constexpr int kWindowEdge = kBlockEdge + 4;
inline constexpr int kWindowNodes = kWindowEdge * kWindowEdge * kWindowEdge;
/// Index of node (i, j, k) of a window.
SIM_HD constexpr int WindowIndex(int i, int j, int k) {
  return (i * kWindowEdge + j) * kWindowEdge + k;
}

/// The 3x3x3 stencil of one particle: base node and per-axis weights.
struct Stencil {
  int base[3];    ///< Grid index of the stencil's lowest node per axis.
  float w[3][3];  ///< w[axis][offset], offset 0..2.
  Vec3f fx;       ///< x̂ − base, in cells.
};

/// Fills the weights of a stencil from its base node and fractional offset fx = x̂ − base ∈ [½, 3/2) per axis.
SIM_HD void StencilWeights(Stencil& s) {
  SIM_UNROLL
  for (int a = 0; a < 3; ++a) {
    const float f = s.fx[a];
    const float d0 = 1.5f - f;
    const float d1 = f - 1.0f;
    const float d2 = f - 0.5f;
    s.w[a][0] = 0.5f * d0 * d0;
    s.w[a][1] = 0.75f - d1 * d1;
    s.w[a][2] = 0.5f * d2 * d2;
  }
}

/// The quadratic B-spline's weights along one axis (as StencilWeights computes them) and their derivatives in
/// cells, dw[d] = ∂w[d]/∂f, for the offset f ∈ [½, 3/2) of the stencil's first node below the point. A node's
/// weight gradient is, along each axis, that axis's dw/h times the other two axes' w.
template <typename T>
SIM_HD void QuadraticBSpline(T f, T (&w)[3], T (&dw)[3]) {
  w[0] = T(0.5) * (T(1.5) - f) * (T(1.5) - f);
  w[1] = T(0.75) - (f - T(1)) * (f - T(1));
  w[2] = T(0.5) * (f - T(0.5)) * (f - T(0.5));
  dw[0] = -(T(1.5) - f);
  dw[1] = T(-2) * (f - T(1));
  dw[2] = f - T(0.5);
}

/// The grid coordinate x̂ = (x − origin)·inv_h of one position component, clamped to [½, upper] so that the cast
/// of x̂ − ½ to a base node is always defined: a NaN fails the first comparison and becomes the lower bound.
SIM_HD float ClampedGridCoordinate(float x, float origin, float inv_h, float upper) {
  const float xg = (x - origin) * inv_h;
  const float above = xg > 0.5f ? xg : 0.5f;
  return above < upper ? above : upper;
}

/// The base node and fractional offset of a particle's stencil at x [m] on a grid with node 0 at origin and
/// spacing 1/inv_h (the weights are left to StencilWeights). The base is clamped to [0, max_base] per axis so a
/// runaway particle cannot index outside the grid (the simulator detects and reports divergence separately).
SIM_HD void LocateStencil(const Vec3f& x, const Vec3f& origin, float inv_h, const int max_base[3], Stencil& s) {
  SIM_UNROLL
  for (int a = 0; a < 3; ++a) {
    const float xg = ClampedGridCoordinate(x[a], origin[a], inv_h, static_cast<float>(max_base[a]) + 0.5f);
    const int b = static_cast<int>(std::floor(xg - 0.5f));
    s.base[a] = b;
    s.fx[a] = xg - static_cast<float>(b);
  }
}

/// The complete stencil (base, offset and weights) of a particle at x; see LocateStencil.
SIM_HD void ComputeStencil(const Vec3f& x, const Vec3f& origin, float inv_h, const int max_base[3], Stencil& s) {
  LocateStencil(x, origin, inv_h, max_base, s);
  StencilWeights(s);
}

/// The MLS-MPM affine momentum matrix A_p = m_p C_p − Δt V⁰_p (4/h²) τ_p [kg/s].
SIM_HD Mat3f AffineMomentum(float mass, float volume, const Mat3f& C, const Mat3f& tau, float dt, float inv_h) {
  const float stress_scale = -dt * volume * 4.0f * inv_h * inv_h;
  Mat3f A;
  SIM_UNROLL
  for (int i = 0; i < 3; ++i) SIM_UNROLL
  for (int j = 0; j < 3; ++j) A.m[i][j] = mass * C.m[i][j] + stress_scale * tau.m[i][j];
  return A;
}

/// Scatters a momentum and mass `base` (lanes 0-2 and 3) with an affine term to a stencil's 27 nodes.
/// `sink(di, dj, dk, q)` receives the node offset from the stencil base and q = w_ip (base + (A_p (x_i − x_p), 0)).
/// A·(x_i − x_p) is built up axis by axis, so the inner loop is two vector multiply-adds.
template <typename Sink>
SIM_HD void ScatterMomentum(const Stencil& s, float h, const Float4& base, const Mat3f& A, Sink&& sink) {
  const Float4 a0 = MakeFloat4(A.m[0][0], A.m[1][0], A.m[2][0], 0);
  const Float4 a1 = MakeFloat4(A.m[0][1], A.m[1][1], A.m[2][1], 0);
  const Float4 a2 = MakeFloat4(A.m[0][2], A.m[1][2], A.m[2][2], 0);
  float dz[3];
  SIM_UNROLL
  for (int k = 0; k < 3; ++k) dz[k] = (static_cast<float>(k) - s.fx.z) * h;
  SIM_UNROLL
  for (int i = 0; i < 3; ++i) {
    const Float4 t_i = MulAdd(base, a0, (static_cast<float>(i) - s.fx.x) * h);
    SIM_UNROLL
    for (int j = 0; j < 3; ++j) {
      const Float4 t_ij = MulAdd(t_i, a1, (static_cast<float>(j) - s.fx.y) * h);
      const float w_ij = s.w[0][i] * s.w[1][j];
      SIM_UNROLL
      for (int k = 0; k < 3; ++k) sink(i, j, k, MulAdd(t_ij, a2, dz[k]) * (w_ij * s.w[2][k]));
    }
  }
}

/// One particle's mass and momentum to its 27 nodes: ScatterMomentum with base = (m_p v_p, m_p), so q's lanes
/// 0-2 are momentum [kg·m/s] and lane 3 mass [kg].
template <typename Sink>
SIM_HD void ScatterParticle(const Stencil& s, float h, float mass, const Vec3f& v, const Mat3f& A, Sink&& sink) {
  ScatterMomentum(s, h, MakeFloat4(v.x * mass, v.y * mass, v.z * mass, mass), A, static_cast<Sink&&>(sink));
}

/// Gathers a particle's velocity [m/s] and affine velocity gradient C [1/s] from its 27 nodes.
/// `source(di, dj, dk)` returns the node at that offset from the stencil base with its velocity in lanes 0-2.
/// B = Σ w_ip v_i (x_i − x_p)ᵀ is accumulated by columns, the z column per node and the x, y columns per row of
/// three nodes.
template <typename Source>
SIM_HD void GatherParticle(const Stencil& s, float h, float inv_h, Source&& source, Vec3f& v, Mat3f& C) {
  Float4 v_sum = ZeroFloat4(), b_x = ZeroFloat4(), b_y = ZeroFloat4(), b_z = ZeroFloat4();
  float wz[3], wz_dz[3];
  SIM_UNROLL
  for (int k = 0; k < 3; ++k) {
    wz[k] = s.w[2][k];
    wz_dz[k] = s.w[2][k] * (static_cast<float>(k) - s.fx.z) * h;
  }
  SIM_UNROLL
  for (int i = 0; i < 3; ++i) {
    const float dx = (static_cast<float>(i) - s.fx.x) * h;
    SIM_UNROLL
    for (int j = 0; j < 3; ++j) {
      const float dy = (static_cast<float>(j) - s.fx.y) * h;
      Float4 row = ZeroFloat4(), row_z = ZeroFloat4();
      SIM_UNROLL
      for (int k = 0; k < 3; ++k) {
        const Float4 node = source(i, j, k);
        row = MulAdd(row, node, wz[k]);
        row_z = MulAdd(row_z, node, wz_dz[k]);
      }
      const float w_ij = s.w[0][i] * s.w[1][j];
      v_sum = MulAdd(v_sum, row, w_ij);
      b_x = MulAdd(b_x, row, w_ij * dx);
      b_y = MulAdd(b_y, row, w_ij * dy);
      b_z = MulAdd(b_z, row_z, w_ij);
    }
  }
  v = Xyz(v_sum);
  const float scale = 4.0f * inv_h * inv_h;
  for (int r = 0; r < 3; ++r) {
    C.m[r][0] = b_x[r] * scale;
    C.m[r][1] = b_y[r] * scale;
    C.m[r][2] = b_z[r] * scale;
  }
}

/// F ← (I + Δt C) F.
SIM_HD Mat3f UpdateDeformationGradient(const Mat3f& F, const Mat3f& C, float dt) {
  Mat3f G = C * dt;
  G.m[0][0] += 1.0f;
  G.m[1][1] += 1.0f;
  G.m[2][2] += 1.0f;
  return G * F;
}

}  // namespace ductile::mpm
