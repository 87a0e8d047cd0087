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

#include "core/sim_hd.h"
#include "core/small_math.h"

namespace ductile::mpm {

/// Nodes per grid block edge; blocks are 4x4x4 nodes.
inline constexpr int kBlockEdge = 4;
inline constexpr int kBlockNodes = kBlockEdge * kBlockEdge * kBlockEdge;
/// A block's particles touch nodes of the block and of its +x, +y, +z neighbours: a 6x6x6 window.
inline constexpr int kWindowEdge = kBlockEdge + 2;
inline constexpr int kWindowNodes = kWindowEdge * kWindowEdge * kWindowEdge;

/// The 3x3x3 stencil of one particle: base node and per-axis weights.
struct Stencil {
  int base[3];    ///< Grid index of the stencil's lowest node per axis.
  float w[3][3];  ///< w[axis][offset], offset 0..2.
  Vec3f fx;       ///< x̂ − base, in cells.
};

/// Computes the quadratic B-spline stencil of a particle at x [m] on a grid with node 0 at origin and spacing
/// 1/inv_h. The base is clamped to [0, max_base] per axis so a runaway particle cannot index outside the grid
/// (the simulator detects and reports divergence separately).
SIM_HD void ComputeStencil(const Vec3f& x, const Vec3f& origin, float inv_h, const int max_base[3], Stencil& s) {
  for (int a = 0; a < 3; ++a) {
    // fminf/fmaxf return the number when the other operand is NaN, so the cast below is always defined.
    const float xg = fminf(fmaxf((x[a] - origin[a]) * inv_h, 0.5f), static_cast<float>(max_base[a]) + 0.5f);
    const int b = static_cast<int>(std::floor(xg - 0.5f));
    const float f = xg - static_cast<float>(b);
    s.base[a] = b;
    s.fx[a] = f;
    const float d0 = 1.5f - f;
    const float d1 = f - 1.0f;
    const float d2 = f - 0.5f;
    s.w[a][0] = 0.5f * d0 * d0;
    s.w[a][1] = 0.75f - d1 * d1;
    s.w[a][2] = 0.5f * d2 * d2;
  }
}

/// The MLS-MPM affine momentum matrix A_p = m_p C_p − Δt V⁰_p (4/h²) τ_p [kg/s].
SIM_HD Mat3f AffineMomentum(float mass, float volume, const Mat3f& C, const Mat3f& tau, float dt, float inv_h) {
  const float stress_scale = -dt * volume * 4.0f * inv_h * inv_h;
  Mat3f A;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A.m[i][j] = mass * C.m[i][j] + stress_scale * tau.m[i][j];
  return A;
}

/// Scatters one particle's mass and momentum to its 27 nodes. `sink(di, dj, dk, dm, dmv)` receives the node
/// offset from the stencil base and the mass [kg] and momentum [kg·m/s] to add.
template <typename Sink>
SIM_HD void ScatterParticle(const Stencil& s, float h, float mass, const Vec3f& v, const Mat3f& A, Sink&& sink) {
  const Vec3f mv = v * mass;
  for (int i = 0; i < 3; ++i) {
    const float dx = (static_cast<float>(i) - s.fx.x) * h;
    for (int j = 0; j < 3; ++j) {
      const float dy = (static_cast<float>(j) - s.fx.y) * h;
      const float wij = s.w[0][i] * s.w[1][j];
      // A·dpos split so the k loop only adds the z column.
      const Vec3f a_xy{A.m[0][0] * dx + A.m[0][1] * dy, A.m[1][0] * dx + A.m[1][1] * dy,
                       A.m[2][0] * dx + A.m[2][1] * dy};
      for (int k = 0; k < 3; ++k) {
        const float dz = (static_cast<float>(k) - s.fx.z) * h;
        const float w = wij * s.w[2][k];
        const Vec3f momentum{mv.x + a_xy.x + A.m[0][2] * dz, mv.y + a_xy.y + A.m[1][2] * dz,
                             mv.z + a_xy.z + A.m[2][2] * dz};
        sink(i, j, k, w * mass, momentum * w);
      }
    }
  }
}

/// Gathers a particle's velocity [m/s] and affine velocity gradient C [1/s] from its 27 nodes.
/// `source(di, dj, dk)` returns the node velocity at that offset from the stencil base.
template <typename Source>
SIM_HD void GatherParticle(const Stencil& s, float h, float inv_h, Source&& source, Vec3f& v, Mat3f& C) {
  Vec3f v_sum{};
  Mat3f B{};
  for (int i = 0; i < 3; ++i) {
    const float dx = (static_cast<float>(i) - s.fx.x) * h;
    for (int j = 0; j < 3; ++j) {
      const float dy = (static_cast<float>(j) - s.fx.y) * h;
      const float wij = s.w[0][i] * s.w[1][j];
      for (int k = 0; k < 3; ++k) {
        const float dz = (static_cast<float>(k) - s.fx.z) * h;
        const float w = wij * s.w[2][k];
        const Vec3f vi = source(i, j, k);
        const Vec3f wv = vi * w;
        v_sum += wv;
        B.m[0][0] += wv.x * dx;
        B.m[0][1] += wv.x * dy;
        B.m[0][2] += wv.x * dz;
        B.m[1][0] += wv.y * dx;
        B.m[1][1] += wv.y * dy;
        B.m[1][2] += wv.y * dz;
        B.m[2][0] += wv.z * dx;
        B.m[2][1] += wv.z * dy;
        B.m[2][2] += wv.z * dz;
      }
    }
  }
  v = v_sum;
  C = B * (4.0f * inv_h * inv_h);
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
