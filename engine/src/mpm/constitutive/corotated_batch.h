// The corotated models' Kirchhoff stresses (fixed_corotated.h, linear_corotated.h) of kStressBatch particles at
// once, CPU only. The particles' matrices are in lanes (structure of arrays: f[e][l] is element e, row-major, of
// lane l's F), so the compiler turns every loop over lanes into SIMD instructions (8 floats with AVX2): the polar
// rotation and the stress cost a fraction of doing them one particle at a time. The rotation R of F = R S comes
// from the Newton–Schulz iteration (products only) when every lane of the batch is near a scaled rotation, else
// from Newton's iteration X ← ½(γX + (γX)⁻ᵀ) (Higham 1986, Eq. 3.1) with the Frobenius-norm scaling
// γ = (‖X⁻¹‖_F / ‖X‖_F)^½ (Higham's Eq. 3.3; a square root, which vectorises, where FastPolarRotation3 uses a cube
// root). The lane loops carry `#pragma omp simd` (the engine compiles with -fopenmp-simd: vectorisation hints
// only, no OpenMP runtime). Lanes outside Newton's domain (F nearly flat or inverted) or not converged fall back to
// the scalar FastPolarRotation3, which itself falls back to the inversion-aware SVD.
//
//   fixed corotated:  τ = 2μ (F − R) Fᵀ + λ (J − 1) J I
//   linear corotated: τ = R₀ (2μ Ê + λ tr(Ê) I) Fᵀ,  Ê = ½(R₀ᵀF + FᵀR₀) − I,  R₀ the rotation of F
#pragma once

#include <cmath>
#include <limits>

#include "core/small_math.h"
#include "core/svd3.h"

namespace ductile::mpm {

/// Particles per batch: one AVX2 register of floats.
inline constexpr int kStressBatch = 8;

/// a·b + c, fused (one rounding) where the target has FMA, so the lane loops below vectorise to FMA instructions.
inline float FusedMulAdd(float a, float b, float c) {
#if defined(__FMA__)
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}

/// The rotation R of F = R S for the lanes, by the Newton–Schulz iteration X ← X (3I − XᵀX)/2 (Björck and Bowie
/// 1971; Higham 2008, "Functions of Matrices", ch. 8) from X₀ = F/‖F‖_rms. It needs neither an inverse nor
/// a square root, only products (fused multiply-adds), and converges quadratically, E ← ¾E² + O(E³) for
/// E = I − XᵀX, while ‖E‖ < 1. It serves batches whose every lane is near a scaled rotation (‖E₀‖_F ≤ ½: elastic
/// strains up to about 20%, the common case); it stops after the update that follows an ‖E‖²_F ≤ 4ε, which
/// leaves XᵀX within about 3ε of I. Returns false (x then holds no result) when a lane is outside that domain or
/// has not converged. `size2` = ‖F‖²_F/3 per lane.
inline bool NewtonSchulzRotationLanes(const float (&f)[9][kStressBatch], const float (&size2)[kStressBatch],
                                      float (&x)[9][kStressBatch]) {
  constexpr int L = kStressBatch;
  constexpr int kMaxIterations = 6;  // ‖E₀‖ = ½ needs 4
  constexpr float kDomain2 = 0.25f;  // ‖E₀‖²_F
  const float tol2 = 4.0f * std::numeric_limits<float>::epsilon();
  alignas(32) float inverse_size[L];
#pragma omp simd
  for (int l = 0; l < L; ++l) inverse_size[l] = 1.0f / std::sqrt(size2[l]);
  for (int e = 0; e < 9; ++e)
#pragma omp simd
    for (int l = 0; l < L; ++l) x[e][l] = f[e][l] * inverse_size[l];
  for (int it = 0; it < kMaxIterations; ++it) {
    alignas(32) float error2[L];
#pragma omp simd
    for (int l = 0; l < L; ++l) {
      // X (named values, not an array: an array in this loop keeps GCC from vectorising it).
      const float x00 = x[0][l], x01 = x[1][l], x02 = x[2][l];
      const float x10 = x[3][l], x11 = x[4][l], x12 = x[5][l];
      const float x20 = x[6][l], x21 = x[7][l], x22 = x[8][l];
      // G = XᵀX (symmetric; its entries are dot products of X's columns), then H = ½E = ½(I − G).
      const float h00 = 0.5f * (1.0f - FusedMulAdd(x20, x20, FusedMulAdd(x10, x10, x00 * x00)));
      const float h11 = 0.5f * (1.0f - FusedMulAdd(x21, x21, FusedMulAdd(x11, x11, x01 * x01)));
      const float h22 = 0.5f * (1.0f - FusedMulAdd(x22, x22, FusedMulAdd(x12, x12, x02 * x02)));
      const float h01 = -0.5f * FusedMulAdd(x20, x21, FusedMulAdd(x10, x11, x00 * x01));
      const float h02 = -0.5f * FusedMulAdd(x20, x22, FusedMulAdd(x10, x12, x00 * x02));
      const float h12 = -0.5f * FusedMulAdd(x21, x22, FusedMulAdd(x11, x12, x01 * x02));
      // ‖E‖²_F = 4‖H‖²_F.
      const float diagonal = FusedMulAdd(h00, h00, FusedMulAdd(h11, h11, h22 * h22));
      const float off = FusedMulAdd(h01, h01, FusedMulAdd(h02, h02, h12 * h12));
      error2[l] = 4.0f * (diagonal + 2.0f * off);
      // X ← X + X H.
      x[0][l] = FusedMulAdd(x02, h02, FusedMulAdd(x01, h01, FusedMulAdd(x00, h00, x00)));
      x[1][l] = FusedMulAdd(x02, h12, FusedMulAdd(x01, h11, FusedMulAdd(x00, h01, x01)));
      x[2][l] = FusedMulAdd(x02, h22, FusedMulAdd(x01, h12, FusedMulAdd(x00, h02, x02)));
      x[3][l] = FusedMulAdd(x12, h02, FusedMulAdd(x11, h01, FusedMulAdd(x10, h00, x10)));
      x[4][l] = FusedMulAdd(x12, h12, FusedMulAdd(x11, h11, FusedMulAdd(x10, h01, x11)));
      x[5][l] = FusedMulAdd(x12, h22, FusedMulAdd(x11, h12, FusedMulAdd(x10, h02, x12)));
      x[6][l] = FusedMulAdd(x22, h02, FusedMulAdd(x21, h01, FusedMulAdd(x20, h00, x20)));
      x[7][l] = FusedMulAdd(x22, h12, FusedMulAdd(x21, h11, FusedMulAdd(x20, h01, x21)));
      x[8][l] = FusedMulAdd(x22, h22, FusedMulAdd(x21, h12, FusedMulAdd(x20, h02, x22)));
    }
    float worst = 0;
#pragma omp simd reduction(max : worst)
    for (int l = 0; l < L; ++l) worst = error2[l] > worst ? error2[l] : worst;
    if (it == 0 && !(worst <= kDomain2)) return false;  // also for a NaN
    if (worst <= tol2) return true;
  }
  return false;
}

/// Per lane: det F, size2 = ‖F‖²_F/3 and whether F is in the domain of Newton's iteration (newton_ok 1, else 0): a
/// positive determinant, not too small (a flat or inverted F goes to the SVD instead). Returns whether every lane is.
inline bool NewtonDomainLanes(const float (&f)[9][kStressBatch], float (&det_f)[kStressBatch],
                              float (&size2)[kStressBatch], float (&newton_ok)[kStressBatch]) {
  constexpr int L = kStressBatch;
  constexpr float kMinRelativeDeterminant = 1e-3f;  // as FastPolarRotation3
  int all_ok = 1;
#pragma omp simd reduction(& : all_ok)
  for (int l = 0; l < L; ++l) {
    const float c0 = f[4][l] * f[8][l] - f[5][l] * f[7][l];
    const float c1 = f[5][l] * f[6][l] - f[3][l] * f[8][l];
    const float c2 = f[3][l] * f[7][l] - f[4][l] * f[6][l];
    det_f[l] = f[0][l] * c0 + f[1][l] * c1 + f[2][l] * c2;
    float s2 = 0;
    for (int e = 0; e < 9; ++e) s2 += f[e][l] * f[e][l];
    s2 *= 1.0f / 3.0f;
    size2[l] = s2;
    const bool ok = det_f[l] > kMinRelativeDeterminant * s2 * std::sqrt(s2);
    newton_ok[l] = ok ? 1.0f : 0.0f;
    all_ok &= ok ? 1 : 0;
  }
  return all_ok != 0;
}

/// One step of Newton's iteration X ← ½(γX + (γX)⁻ᵀ) with γ = (‖X⁻¹‖_F / ‖X‖_F)^½ in every lane (Higham 1986,
/// Eq. 3.1 and 3.3); change2[l] = ‖ΔX‖²_F of lane l.
inline void NewtonPolarStepLanes(float (&x)[9][kStressBatch], float (&change2)[kStressBatch]) {
  constexpr int L = kStressBatch;
#pragma omp simd
  for (int l = 0; l < L; ++l) {
    float c[9];
    c[0] = x[4][l] * x[8][l] - x[5][l] * x[7][l];
    c[1] = x[5][l] * x[6][l] - x[3][l] * x[8][l];
    c[2] = x[3][l] * x[7][l] - x[4][l] * x[6][l];
    c[3] = x[2][l] * x[7][l] - x[1][l] * x[8][l];
    c[4] = x[0][l] * x[8][l] - x[2][l] * x[6][l];
    c[5] = x[1][l] * x[6][l] - x[0][l] * x[7][l];
    c[6] = x[1][l] * x[5][l] - x[2][l] * x[4][l];
    c[7] = x[2][l] * x[3][l] - x[0][l] * x[5][l];
    c[8] = x[0][l] * x[4][l] - x[1][l] * x[3][l];
    const float det = x[0][l] * c[0] + x[1][l] * c[1] + x[2][l] * c[2];
    // The squared norms summed by rows, then the rows: three short dependency chains instead of one of nine
    // (an iteration is latency-bound: eight lanes are one SIMD register).
    float x2r[3], c2r[3];
    for (int r = 0; r < 3; ++r) {
      x2r[r] = x[3 * r][l] * x[3 * r][l] + x[3 * r + 1][l] * x[3 * r + 1][l] + x[3 * r + 2][l] * x[3 * r + 2][l];
      c2r[r] = c[3 * r] * c[3 * r] + c[3 * r + 1] * c[3 * r + 1] + c[3 * r + 2] * c[3 * r + 2];
    }
    const float x2 = x2r[0] + x2r[1] + x2r[2], c2 = c2r[0] + c2r[1] + c2r[2];
    // γ² = ‖X⁻¹‖_F / ‖X‖_F = √(‖cof X‖² / (det² ‖X‖²)).
    const float gamma = std::sqrt(std::sqrt(c2 / (det * det * x2)));
    const float a = 0.5f * gamma;
    const float b = 0.5f / (gamma * det);
    float d2r[3];
    for (int r = 0; r < 3; ++r) {
      d2r[r] = 0;
      for (int k = 0; k < 3; ++k) {
        const int e = 3 * r + k;
        const float next = a * x[e][l] + b * c[e];
        const float d = next - x[e][l];
        d2r[r] += d * d;
        x[e][l] = next;
      }
    }
    change2[l] = d2r[0] + d2r[1] + d2r[2];
  }
}

/// The rotation R of F = R S for the lanes: x[e][l] = R_l; det_f[l] = det F_l. Lanes from `count` on must hold a
/// valid F (the identity); their R is left as the iterate. Batches near scaled rotations go through
/// NewtonSchulzRotationLanes; the others through Newton's iteration (NewtonPolarStepLanes). Pure, thread-safe.
inline void PolarRotationLanes(const float (&f)[9][kStressBatch], int count, float (&x)[9][kStressBatch],
                               float (&det_f)[kStressBatch]) {
  constexpr int L = kStressBatch;
  constexpr int kMaxIterations = 8;
  const float tol2 = 4.0f * std::numeric_limits<float>::epsilon();
  alignas(32) float newton_ok[L];  // 1 or 0
  alignas(32) float size2[L];
  // Every lane with a positive, not too small determinant and near a scaled rotation: the Newton–Schulz iteration.
  if (NewtonDomainLanes(f, det_f, size2, newton_ok) && NewtonSchulzRotationLanes(f, size2, x)) return;
  // x = Newton iterate (→ R). A lane outside Newton's domain iterates from the identity, a fixed point, and is
  // replaced below.
  for (int e = 0; e < 9; ++e)
#pragma omp simd
    for (int l = 0; l < L; ++l) x[e][l] = newton_ok[l] * f[e][l] + (1.0f - newton_ok[l]) * (e % 4 == 0 ? 1.0f : 0.0f);
  alignas(32) float change2[L];
  for (int it = 0; it < kMaxIterations; ++it) {
    NewtonPolarStepLanes(x, change2);
    // The largest change over the lanes (NaN lanes are left to the fallback below).
    float worst = 0;
#pragma omp simd reduction(max : worst)
    for (int l = 0; l < L; ++l) worst = change2[l] > worst ? change2[l] : worst;
    if (worst <= tol2) break;
  }
  for (int l = 0; l < count; ++l) {
    if (newton_ok[l] != 0.0f && change2[l] <= tol2) continue;
    Mat3f F_l;
    for (int e = 0; e < 9; ++e) F_l.m[e / 3][e % 3] = f[e][l];
    const Mat3f R = FastPolarRotation3(F_l);
    for (int e = 0; e < 9; ++e) x[e][l] = R.m[e / 3][e % 3];
  }
}

/// Fixed corotated τ of the lanes: f[e][l] = F_l for `count` ≤ kStressBatch lanes; two_mu[l] = 2μ, lam[l] = λ;
/// writes t[e][l] = τ_l for every lane. Lanes from `count` on must hold a valid F (the identity); with zero moduli
/// there (as the solver's padding lanes have) their τ is 0, which TransferBlock relies on.
/// Pure, thread-safe.
inline void FixedCorotatedKirchhoffLanes(const float (&f)[9][kStressBatch], const float (&two_mu)[kStressBatch],
                                         const float (&lam)[kStressBatch], int count, float (&t)[9][kStressBatch]) {
  constexpr int L = kStressBatch;
  alignas(32) float x[9][L];
  alignas(32) float det_f[L];
  PolarRotationLanes(f, count, x, det_f);
  // τ = 2μ (F − R) Fᵀ + λ (J − 1) J I, per lane.
#pragma omp simd
  for (int l = 0; l < L; ++l) {
    const float volumetric = lam[l] * (det_f[l] - 1.0f) * det_f[l];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        float s = 0;
        for (int k = 0; k < 3; ++k) s += (f[3 * i + k][l] - x[3 * i + k][l]) * f[3 * j + k][l];
        t[3 * i + j][l] = two_mu[l] * s + (i == j ? volumetric : 0.0f);
      }
  }
}

/// Linear corotated τ of the lanes with R₀ the rotation of F (as the solver's plastic linear corotated particles
/// use it): f[e][l] = F_l for `count` ≤ kStressBatch lanes; two_mu[l] = 2μ, lam[l] = λ; writes r0[e][l] = R₀_l
/// and t[e][l] = τ_l. Lanes from `count` on must hold a valid F (the identity). Pure, thread-safe.
inline void LinearCorotatedKirchhoffLanes(const float (&f)[9][kStressBatch], const float (&two_mu)[kStressBatch],
                                          const float (&lam)[kStressBatch], int count, float (&r0)[9][kStressBatch],
                                          float (&t)[9][kStressBatch]) {
  constexpr int L = kStressBatch;
  alignas(32) float det_f[L];
  PolarRotationLanes(f, count, r0, det_f);
#pragma omp simd
  for (int l = 0; l < L; ++l) {
    // M = R₀ᵀF, Ê = ½(M + Mᵀ) − I, s = 2μ Ê + λ tr(Ê) I, P = R₀ s, τ = P Fᵀ.
    float m[9];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        m[3 * i + j] = r0[i][l] * f[j][l] + r0[3 + i][l] * f[3 + j][l] + r0[6 + i][l] * f[6 + j][l];
    const float trace = m[0] + m[4] + m[8] - 3.0f;
    float s[9];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        s[3 * i + j] = two_mu[l] * (0.5f * (m[3 * i + j] + m[3 * j + i]) - (i == j ? 1.0f : 0.0f)) +
                       (i == j ? lam[l] * trace : 0.0f);
    float p[9];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        p[3 * i + j] = r0[3 * i][l] * s[j] + r0[3 * i + 1][l] * s[3 + j] + r0[3 * i + 2][l] * s[6 + j];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        t[3 * i + j][l] = p[3 * i] * f[3 * j][l] + p[3 * i + 1] * f[3 * j + 1][l] + p[3 * i + 2] * f[3 * j + 2][l];
  }
}
}  // namespace ductile::mpm
