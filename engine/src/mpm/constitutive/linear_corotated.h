// Linear corotated elasticity with von Mises plasticity (Zong, Jiang, Han 2024, "A convex formulation of frictional
// contact for the material point method and rigid bodies", arXiv:2403.13783, Sec. VI and Algorithm 1; dough):
//
//   Ψ(Fᴱ; R₀) = μ ‖Ê‖²_F + λ/2 tr(Ê)²,   Ê = ½(R₀ᵀFᴱ + FᴱᵀR₀) − I
//   P = ∂Ψ/∂Fᴱ = R₀ (2μ Ê + λ tr(Ê) I),   τ = P Fᴱᵀ
//
// R₀ ∈ SO(3) is held fixed when differentiating (lagged): the rotation of the previous step's Fᴱ. With R₀ fixed, Ψ
// is quadratic in Fᴱ.
//
// Return map, von Mises on the rotated stress s = R₀ᵀP = 2μ Ê + λ tr(Ê) I with the bound ‖dev s‖_F ≤ η:
//   1. Fᴱ = R V, the polar decomposition of the trial Fᴱ;
//   2. S = ½(R₀ᵀFᴱ + FᴱᵀR₀) (= Ê + I) = Q diag(σ) Qᵀ;
//   3. σ̄ = mean(σ),  σ̃ = σ̄ + min(η/(2μ) / ‖σ − σ̄‖, 1) (σ − σ̄): radial return to the cylinder of radius η/(2μ)
//      about the axis [1, 1, 1] (since ‖dev s‖_F = 2μ ‖σ − σ̄‖);
//   4. S̃ = Q diag(σ̃) Qᵀ, which is σ̄ I + min(η/(2μ) / ‖dev S‖_F, 1) dev S: computed so, without Q and σ;
//   5. solve S̃ = ½(R₀ᵀR Ṽ + ṼᵀRᵀR₀) for the symmetric Ṽ (6 linear equations, Gaussian elimination with partial
//      pivoting; Ṽ = S̃ when the system is singular, which happens only if R and R₀ differ by a quarter turn);
//   6. Fᴱ ← R Ṽ.
// The projection keeps tr S (the linearised volume change tr Ê) and leaves ‖dev s(Fᴱ; R₀)‖_F = η exactly.
#pragma once

#include <limits>

#include "core/small_math.h"
#include "core/svd3.h"

namespace ductile::mpm {

namespace linear_corotated_detail {

/// Solves the 6x6 system A x = b in place by Gaussian elimination with partial pivoting. Returns false (x
/// untouched) when a pivot is below pivot_tolerance in magnitude.
template <typename T>
SIM_HD bool SolveLinear6(T (&A)[6][6], T (&b)[6], T pivot_tolerance, T (&x)[6]) {
  for (int k = 0; k < 6; ++k) {
    int pivot = k;
    for (int i = k + 1; i < 6; ++i)
      if (svd_detail::Abs(A[i][k]) > svd_detail::Abs(A[pivot][k])) pivot = i;
    if (!(svd_detail::Abs(A[pivot][k]) > pivot_tolerance)) return false;
    if (pivot != k) {
      for (int j = k; j < 6; ++j) {
        const T a = A[k][j];
        A[k][j] = A[pivot][j];
        A[pivot][j] = a;
      }
      const T t = b[k];
      b[k] = b[pivot];
      b[pivot] = t;
    }
    for (int i = k + 1; i < 6; ++i) {
      const T factor = A[i][k] / A[k][k];
      for (int j = k; j < 6; ++j) A[i][j] -= factor * A[k][j];
      b[i] -= factor * b[k];
    }
  }
  for (int i = 5; i >= 0; --i) {
    T sum = b[i];
    for (int j = i + 1; j < 6; ++j) sum -= A[i][j] * x[j];
    x[i] = sum / A[i][i];
  }
  return true;
}

/// The symmetric Ṽ with ½(M Ṽ + ṼᵀMᵀ) = S̃ for a rotation M by Gaussian elimination; S̃ itself when the system
/// is singular.
template <typename T>
SIM_HD Mat3<T> SolveSymmetricStretchByElimination(const Mat3<T>& M, const Mat3<T>& S_tilde) {
  // Unknowns and equations indexed by the upper-triangle entries (i, j), i ≤ j.
  const int kRow[6] = {0, 1, 2, 0, 0, 1};
  const int kCol[6] = {0, 1, 2, 1, 2, 2};
  T A[6][6];
  T b[6];
  for (int u = 0; u < 6; ++u) {
    // Column u: ½(M E + Eᵀ Mᵀ) for the symmetric unit E with E_ab = E_ba = 1.
    const int a = kRow[u];
    const int c = kCol[u];
    Mat3<T> ME;  // M E: column c of ME is column a of M, column a of ME is column c of M.
    for (int i = 0; i < 3; ++i) {
      ME.m[i][c] = M.m[i][a];
      ME.m[i][a] = M.m[i][c];
    }
    for (int e = 0; e < 6; ++e) A[e][u] = T(0.5) * (ME.m[kRow[e]][kCol[e]] + ME.m[kCol[e]][kRow[e]]);
  }
  for (int e = 0; e < 6; ++e) b[e] = S_tilde.m[kRow[e]][kCol[e]];
  // M is a rotation, so A has O(1) entries; it is singular only when M turns by π/2 (conditioning ~ 1/cos θ).
  const T pivot_tolerance = std::sqrt(std::numeric_limits<T>::epsilon());
  T x[6];
  if (!SolveLinear6(A, b, pivot_tolerance, x)) return S_tilde;
  Mat3<T> V;
  for (int u = 0; u < 6; ++u) V.m[kRow[u]][kCol[u]] = V.m[kCol[u]][kRow[u]] = x[u];
  return V;
}

/// The symmetric Ṽ with ½(M Ṽ + ṼᵀMᵀ) = S̃ for a rotation M; S̃ itself when the system is singular. M is R₀ᵀR, the
/// change of the rotation since the stress was computed, so M = I + D with D small: Ṽ = S̃ − ½(D Ṽ + (D Ṽ)ᵀ) is a
/// contraction by about ‖D‖ (at most ½ where it is used) and its fixed-point iteration reaches float round-off in
/// a few steps of one 3x3 product each. Otherwise, or if it has not converged, Gaussian elimination of the 6x6
/// system.
template <typename T>
SIM_HD Mat3<T> SolveSymmetricStretch(const Mat3<T>& M, const Mat3<T>& S_tilde) {
  constexpr int kMaxIterations = 16;
  Mat3<T> D = M;
  D.m[0][0] -= T(1);
  D.m[1][1] -= T(1);
  D.m[2][2] -= T(1);
  if (D.SquaredNorm() < T(0.25)) {
    // Stop when a step changes Ṽ by no more than a few ε of its size: the remaining error is below that times
    // the contraction factor.
    const T tol2 = T(16) * std::numeric_limits<T>::epsilon() * std::numeric_limits<T>::epsilon();
    Mat3<T> V = S_tilde;
    for (int k = 0; k < kMaxIterations; ++k) {
      const Mat3<T> DV = D * V;
      const Mat3<T> next = S_tilde - (DV + DV.Transposed()) * T(0.5);
      const T change2 = (next - V).SquaredNorm();
      V = next;
      if (change2 <= tol2 * V.SquaredNorm()) return V;
    }
  }
  return SolveSymmetricStretchByElimination(M, S_tilde);
}

}  // namespace linear_corotated_detail

/// Linear corotated material with optional von Mises plasticity. Plain data; member functions are pure and
/// thread-safe. R0 arguments are rotations (det +1).
template <typename T>
struct LinearCorotated {
  T mu = 0;            ///< Lamé shear modulus μ [Pa], > 0.
  T lambda = 0;        ///< Lamé first parameter λ [Pa], ≥ 0.
  T yield_stress = 0;  ///< η [Pa]: bound on ‖dev s‖_F; 0 = purely elastic.

  /// The strain Ê = ½(R₀ᵀF + FᵀR₀) − I [-].
  SIM_HD static Mat3<T> Strain(const Mat3<T>& F, const Mat3<T>& R0) {
    const Mat3<T> RtF = R0.Transposed() * F;
    return (RtF + RtF.Transposed()) * T(0.5) - Mat3<T>::Identity();
  }

  /// Strain energy density Ψ(F; R₀) per unit rest volume [J/m³], F the elastic deformation gradient.
  SIM_HD T Energy(const Mat3<T>& F, const Mat3<T>& R0) const {
    const Mat3<T> E = Strain(F, R0);
    const T tr = E.Trace();
    return mu * E.SquaredNorm() + T(0.5) * lambda * tr * tr;
  }

  /// The rotated stress s = R₀ᵀP = 2μ E + λ tr(E) I for a strain E [Pa]; linear in E (so also the stress
  /// increment δs of a strain increment δE = sym(R₀ᵀδF), which the implicit step's Hessian applies).
  SIM_HD Mat3<T> RotatedStress(const Mat3<T>& E) const {
    Mat3<T> s = E * (T(2) * mu);
    const T volumetric = lambda * E.Trace();
    s.m[0][0] += volumetric;
    s.m[1][1] += volumetric;
    s.m[2][2] += volumetric;
    return s;
  }

  /// First Piola-Kirchhoff stress P = ∂Ψ/∂F at fixed R₀ [Pa].
  SIM_HD Mat3<T> FirstPiola(const Mat3<T>& F, const Mat3<T>& R0) const { return R0 * RotatedStress(Strain(F, R0)); }

  /// Kirchhoff stress τ = P Fᵀ [Pa].
  SIM_HD Mat3<T> Kirchhoff(const Mat3<T>& F, const Mat3<T>& R0) const { return FirstPiola(F, R0) * F.Transposed(); }

  /// Von Mises return map (file comment): projects the trial elastic deformation gradient Fe in place so that
  /// ‖dev s(Fe; R₀)‖_F ≤ η. Returns the plastic strain increment ‖σ − σ̃‖ [-] (0 when elastic or yield_stress ≤ 0).
  SIM_HD T ReturnMap(const Mat3<T>& R0, Mat3<T>& Fe) const {
    if (!(yield_stress > T(0))) return T(0);
    const T radius = yield_stress / (T(2) * mu);
    const Mat3<T> RtF = R0.Transposed() * Fe;
    const Mat3<T> S = (RtF + RtF.Transposed()) * T(0.5);
    // Steps 2-4 without the eigendecomposition: with S = Q diag(σ) Qᵀ, σ̄ = tr S / 3 and ‖σ − σ̄‖ = ‖dev S‖_F, so
    //   S̃ = Q diag(σ̄ + k (σ − σ̄)) Qᵀ = σ̄ I + k dev S,   k = min(η/(2μ) / ‖dev S‖_F, 1),
    // the same projection in closed form (Q is shared by S, its deviator and the identity).
    const T trace_third = (S.m[0][0] + S.m[1][1] + S.m[2][2]) / T(3);
    const Mat3<T> dev_S = S - Mat3<T>::Identity() * trace_third;
    const T deviation_norm2 = dev_S.SquaredNorm();
    if (!(deviation_norm2 > radius * radius)) return T(0);
    const T deviation_norm = std::sqrt(deviation_norm2);
    const Mat3<T> S_tilde = Mat3<T>::Identity() * trace_third + dev_S * (radius / deviation_norm);
    const Mat3<T> R = FastPolarRotation3(Fe);
    Fe = R * linear_corotated_detail::SolveSymmetricStretch(R0.Transposed() * R, S_tilde);
    return deviation_norm - radius;
  }
};

}  // namespace ductile::mpm
