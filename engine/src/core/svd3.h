// Singular value, polar and symmetric eigen decompositions of 3x3 matrices, for kernels (SIM_HD, float or double).
//
//   Svd3:            F = U diag(σ) Vᵀ,  U, V ∈ SO(3),  σ₀ ≥ σ₁ ≥ |σ₂|,  σ₂ < 0 exactly when det F < 0.
//   Polar3:          F = R S,  R = U Vᵀ ∈ SO(3),  S = V diag(σ) Vᵀ symmetric (PolarRotation3: R only).
//   SymmetricEigen3: A = Q diag(λ) Qᵀ,  Q ∈ SO(3),  λ₀ ≥ λ₁ ≥ λ₂.
//
// The sign convention of Svd3 is the "inversion-aware" SVD of Irving, Teran, Fedkiw 2004 ("Invertible finite elements
// for robust simulation of large deformation", Sec. 5): U and V are proper rotations, so an inverted F (det F < 0)
// shows as a negative smallest singular value instead of a reflection hidden in U or V.
//
// Method of Svd3, as in McAdams, Selle, Tamstorf, Teran, Sifakis 2011 ("Computing the singular value decomposition
// of 3x3 matrices with minimal branching and elementary floating point operations"):
//   1. V: cyclic Jacobi rotations that diagonalise FᵀF, accumulated into V;
//   2. sort the columns of B = F V by decreasing norm (a swap negates one column so det V stays +1);
//   3. Givens QR of B = U R: U ∈ SO(3), R upper triangular with R₀₀, R₁₁ ≥ 0 and R₂₂ carrying the sign of det F;
//      σ = diag(R) (the off-diagonal of R is round-off once B's columns are orthogonal).
// The Jacobi rotations are one-sided (Hestenes 1958): each angle is computed from the current columns of B = F V
// (‖b_p‖², ‖b_q‖², b_p·b_q are the entries of VᵀFᵀFV recomputed, not updated), so the result is as accurate as F
// allows in float, where updating FᵀF in place would square its condition number. The QR step needs no special
// case for rank-deficient F: a zero column yields an identity rotation and U is completed by the other rotations.
// F is first scaled by its largest entry, so no square over- or underflows for any finite F.
#pragma once

#include <limits>

#include "core/small_math.h"

namespace ductile {

namespace svd_detail {

/// |x|, usable on the device.
template <typename T>
SIM_HD T Abs(T x) {
  return x < T(0) ? -x : x;
}

/// Largest |A_ij|.
template <typename T>
SIM_HD T MaxAbsEntry(const Mat3<T>& A) {
  T max_abs = T(0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const T a = Abs(A.m[i][j]);
      if (a > max_abs) max_abs = a;
    }
  return max_abs;
}

/// Sweeps after which the Jacobi iterations stop even if not converged. Convergence is quadratic: over 2·10⁵ test
/// matrices (random, graded to σ ratios of 10⁻⁸, rank 1, repeated σ) every decomposition converged within 4 sweeps
/// (mean 3.3 in float, 3.7 in double, counting the last sweep that finds nothing to rotate); one more is margin.
constexpr int kMaxJacobiSweeps = 5;

/// Relative size of an off-diagonal entry below which a Jacobi rotation is skipped.
template <typename T>
SIM_HD constexpr T JacobiTolerance() {
  return std::numeric_limits<T>::epsilon();
}

/// The Jacobi rotation J = [[c, s], [−s, c]] (rows/columns p, q) that zeroes a_pq in Jᵀ A J for the symmetric
/// 2x2 block [[a_pp, a_pq], [a_pq, a_qq]], a_pq ≠ 0; the smaller of the two angles (|θ| ≤ π/4). The callers scale
/// their matrices to entries of order one, so the squares below neither overflow nor vanish.
template <typename T>
SIM_HD void JacobiRotation(T a_pp, T a_qq, T a_pq, T& c, T& s) {
  // t = tan θ is the smaller root of a_pq t² + (a_qq − a_pp) t − a_pq = 0, in the cancellation-free form.
  const T d = a_qq - a_pp;
  const T t = T(2) * a_pq / (Abs(d) + std::sqrt(d * d + T(4) * a_pq * a_pq));
  c = T(1) / std::sqrt(T(1) + t * t);
  s = d < T(0) ? -t * c : t * c;
}

/// Columns p, q of A ← (c a_p − s a_q, s a_p + c a_q): A ← A J for the rotation J of JacobiRotation.
template <typename T>
SIM_HD void RotateColumns(Mat3<T>& A, int p, int q, T c, T s) {
  for (int i = 0; i < 3; ++i) {
    const T a_p = A.m[i][p];
    const T a_q = A.m[i][q];
    A.m[i][p] = c * a_p - s * a_q;
    A.m[i][q] = s * a_p + c * a_q;
  }
}

/// Swaps columns p and q of A and negates the new column q: a rotation by 90°, so det A is unchanged.
template <int p, int q, typename T>
SIM_HD void SwapColumnsProper(Mat3<T>& A) {
  for (int i = 0; i < 3; ++i) {
    const T a = A.m[i][p];
    A.m[i][p] = A.m[i][q];
    A.m[i][q] = -a;
  }
}

/// Orders columns p < q of A (and of B, when given) by decreasing key: swaps them with SwapColumnsProper (so det A,
/// det B and A Bᵀ are unchanged) when key[p] < key[q].
template <int p, int q, typename T>
SIM_HD void OrderColumns(Vec3<T>& key, Mat3<T>& A, Mat3<T>* B) {
  if (!(key[p] < key[q])) return;
  const T k = key[p];
  key[p] = key[q];
  key[q] = k;
  SwapColumnsProper<p, q>(A);
  if (B != nullptr) SwapColumnsProper<p, q>(*B);
}

/// Sorts the columns of A (and the same columns of B, when not null) by decreasing key, the keys alongside.
template <typename T>
SIM_HD void SortColumnsDecreasing(Vec3<T>& key, Mat3<T>& A, Mat3<T>* B) {
  OrderColumns<0, 1>(key, A, B);
  OrderColumns<0, 2>(key, A, B);
  OrderColumns<1, 2>(key, A, B);
}

/// Givens rotation G on rows p < q of B that zeroes B_qp and leaves B_pp = ‖(B_pp, B_qp)‖ ≥ 0; U ← U Gᵀ keeps the
/// product U B unchanged. An all-zero pair is left alone.
template <typename T>
SIM_HD void GivensZero(Mat3<T>& B, Mat3<T>& U, int p, int q) {
  const T a = B.m[p][p];
  const T b = B.m[q][p];
  const T r2 = a * a + b * b;
  if (!(r2 > T(0))) return;
  const T inv_r = T(1) / std::sqrt(r2);
  const T c = a * inv_r;
  const T s = b * inv_r;
  for (int j = 0; j < 3; ++j) {
    const T b_p = B.m[p][j];
    const T b_q = B.m[q][j];
    B.m[p][j] = c * b_p + s * b_q;
    B.m[q][j] = c * b_q - s * b_p;
  }
  for (int i = 0; i < 3; ++i) {
    const T u_p = U.m[i][p];
    const T u_q = U.m[i][q];
    U.m[i][p] = c * u_p + s * u_q;
    U.m[i][q] = c * u_q - s * u_p;
  }
}

/// One one-sided (Hestenes) Jacobi rotation of columns p < q of B = F V, accumulated into V: skipped when
/// (b_p·b_q)² ≤ tol2 ‖b_p‖² ‖b_q‖². Returns whether it rotated. p, q are template arguments so the indexing
/// resolves at compile time and B, V stay in registers.
template <int p, int q, typename T>
SIM_HD bool HestenesStep(Mat3<T>& B, Mat3<T>& V, T tol2) {
  T alpha = T(0);
  T beta = T(0);
  T gamma = T(0);
  for (int i = 0; i < 3; ++i) {
    alpha += B.m[i][p] * B.m[i][p];
    beta += B.m[i][q] * B.m[i][q];
    gamma += B.m[i][p] * B.m[i][q];
  }
  if (gamma * gamma <= tol2 * alpha * beta) return false;
  T c;
  T s;
  JacobiRotation(alpha, beta, gamma, c, s);
  RotateColumns(B, p, q, c, s);
  RotateColumns(V, p, q, c, s);
  return true;
}

/// One two-sided Jacobi rotation A ← Jᵀ A J of the symmetric A (both triangles kept) zeroing a_pq, accumulated into
/// Q ← Q J: skipped when |a_pq| ≤ threshold. Returns whether it rotated.
template <int p, int q, typename T>
SIM_HD bool SymmetricJacobiStep(Mat3<T>& A, Mat3<T>& Q, T threshold) {
  constexpr int r = 3 - p - q;
  const T a_pq = A.m[p][q];
  if (!(Abs(a_pq) > threshold)) return false;
  T c;
  T s;
  JacobiRotation(A.m[p][p], A.m[q][q], a_pq, c, s);
  const T t = s / c;
  A.m[p][p] -= t * a_pq;
  A.m[q][q] += t * a_pq;
  A.m[p][q] = A.m[q][p] = T(0);
  const T a_rp = A.m[r][p];
  const T a_rq = A.m[r][q];
  A.m[r][p] = A.m[p][r] = c * a_rp - s * a_rq;
  A.m[r][q] = A.m[q][r] = s * a_rp + c * a_rq;
  RotateColumns(Q, p, q, c, s);
  return true;
}

}  // namespace svd_detail

/// Inversion-aware singular value decomposition F = U diag(sigma) Vᵀ (see the file comment).
/// U, V: proper rotations (det +1, orthonormal to a few ulps). sigma: same units as F, sorted
/// sigma[0] ≥ sigma[1] ≥ |sigma[2]| (up to round-off), sigma[2] < 0 when det F < 0. Defined for every finite F,
/// including singular and zero F (then U = V = I, sigma = 0). Reconstruction error ≈ a few ε‖F‖ (ε the machine
/// epsilon of T). Pure function, thread-safe.
template <typename T>
SIM_HD void Svd3(const Mat3<T>& F, Mat3<T>& U, Vec3<T>& sigma, Mat3<T>& V) {
  const T scale = svd_detail::MaxAbsEntry(F);
  if (!(scale > T(0))) {
    U = Mat3<T>::Identity();
    V = Mat3<T>::Identity();
    sigma = Vec3<T>(T(0), T(0), T(0));
    return;
  }
  // Locals rather than the outputs, which may alias F: the compiler keeps them in registers.
  Mat3<T> B = F * (T(1) / scale);  // entries in [−1, 1]
  Mat3<T> V_local = Mat3<T>::Identity();
  Mat3<T> U_local = Mat3<T>::Identity();

  // 1. One-sided cyclic Jacobi: rotate column pairs of B = F V until they are mutually orthogonal.
  const T tol2 = svd_detail::JacobiTolerance<T>() * svd_detail::JacobiTolerance<T>();
  for (int sweep = 0; sweep < svd_detail::kMaxJacobiSweeps; ++sweep) {
    // Every pair is visited in every sweep (no short-circuit).
    bool rotated = svd_detail::HestenesStep<0, 1>(B, V_local, tol2);
    rotated = svd_detail::HestenesStep<0, 2>(B, V_local, tol2) || rotated;
    rotated = svd_detail::HestenesStep<1, 2>(B, V_local, tol2) || rotated;
    if (!rotated) break;
  }

  // 2. Sort by decreasing column norm.
  Vec3<T> norm2(SquaredNorm(B.Column(0)), SquaredNorm(B.Column(1)), SquaredNorm(B.Column(2)));
  svd_detail::SortColumnsDecreasing(norm2, B, &V_local);

  // 3. Givens QR, B = U R; the signed singular values are the diagonal of R.
  svd_detail::GivensZero(B, U_local, 0, 1);
  svd_detail::GivensZero(B, U_local, 0, 2);
  svd_detail::GivensZero(B, U_local, 1, 2);
  sigma = Vec3<T>(B.m[0][0], B.m[1][1], B.m[2][2]) * scale;
  U = U_local;
  V = V_local;
}

/// Rotation-polar decomposition F = R S: R = U Vᵀ ∈ SO(3) (the rotation closest to F, also for det F < 0) and
/// S = V diag(σ) Vᵀ symmetric (indefinite when F is inverted), from Svd3. Units of S: those of F. Thread-safe.
template <typename T>
SIM_HD void Polar3(const Mat3<T>& F, Mat3<T>& R, Mat3<T>& S) {
  Mat3<T> U;
  Mat3<T> V;
  Vec3<T> sigma;
  Svd3(F, U, sigma, V);
  R = U * V.Transposed();
  S = V * Mat3<T>::Diagonal(sigma) * V.Transposed();
}

/// The rotation R = U Vᵀ ∈ SO(3) of the rotation-polar decomposition F = R S (Polar3 without forming S), the
/// rotation closest to F, also for det F < 0. Thread-safe.
template <typename T>
SIM_HD Mat3<T> PolarRotation3(const Mat3<T>& F) {
  Mat3<T> U;
  Mat3<T> V;
  Vec3<T> sigma;
  Svd3(F, U, sigma, V);
  return U * V.Transposed();
}

/// The rotation of F = R S like PolarRotation3, faster where it can be: Newton's iteration for the orthogonal polar
/// factor (Higham 1986, "Computing the polar decomposition with applications", Eq. 3.1 with determinant scaling)
///   X₀ = F,  X_{k+1} = ½ (γ_k X_k + (γ_k X_k)⁻ᵀ),  γ_k = |det X_k|^(−1/3),
/// converges quadratically to R for det F > 0 (F well away from inversion, the common case of an elastic solid):
/// a few iterations of one cofactor each at moderate strains, against the Jacobi sweeps of Svd3. It falls back to the
/// inversion-aware PolarRotation3 when det F is not clearly positive relative to |F|³ or the iteration has not
/// converged to float round-off after kMaxNewtonPolarIterations. Thread-safe.
template <typename T>
SIM_HD Mat3<T> FastPolarRotation3(const Mat3<T>& F) {
  constexpr int kMaxNewtonPolarIterations = 8;
  // det F relative to (‖F‖²_F / 3)^(3/2), the determinant of a pure scaling of the same size, below this: nearly
  // flat or inverted, where Newton converges slowly or to a reflection.
  const T kMinRelativeDeterminant = T(1e-3);
  const T size2 = F.SquaredNorm() / T(3);
  if (!(F.Determinant() > kMinRelativeDeterminant * size2 * std::sqrt(size2))) return PolarRotation3(F);
  // Newton converges quadratically: once a step changes X by δ (Frobenius), the new X is within about δ²/2 of R.
  // Stop when that bound is at round-off: δ² ≤ 4ε, i.e. δ²/2 ≤ 2ε.
  const T tol2 = T(4) * std::numeric_limits<T>::epsilon();
  Mat3<T> X = F;
  for (int k = 0; k < kMaxNewtonPolarIterations; ++k) {
    const Mat3<T> cof = X.Cofactor();
    const T det = X.m[0][0] * cof.m[0][0] + X.m[0][1] * cof.m[0][1] + X.m[0][2] * cof.m[0][2];
    // Scale only while far from orthogonal: the cube root is the iteration's most expensive operation.
    const T gamma = (det > T(0.9) && det < T(1.1)) ? T(1) : T(1) / std::cbrt(det);
    const T a = T(0.5) * gamma;
    const T b = T(0.5) / (gamma * det);
    T change2 = T(0);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const T next = a * X.m[i][j] + b * cof.m[i][j];
        const T d = next - X.m[i][j];
        change2 += d * d;
        X.m[i][j] = next;
      }
    if (change2 <= tol2) return X;
  }
  return PolarRotation3(F);
}

/// Eigendecomposition of a symmetric A = Q diag(lambda) Qᵀ by cyclic two-sided Jacobi rotations: Q ∈ SO(3) (columns
/// are the eigenvectors), lambda[0] ≥ lambda[1] ≥ lambda[2] in the units of A. Only the upper triangle of A is
/// read. Absolute accuracy ≈ a few ε max|A_ij|. Thread-safe.
template <typename T>
SIM_HD void SymmetricEigen3(const Mat3<T>& A, Mat3<T>& Q, Vec3<T>& lambda) {
  const T scale = svd_detail::MaxAbsEntry(A);
  if (!(scale > T(0))) {
    Q = Mat3<T>::Identity();
    lambda = Vec3<T>(T(0), T(0), T(0));
    return;
  }
  const T inv_scale = T(1) / scale;
  Mat3<T> a;  // A / scale, both triangles from A's upper one
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) a.m[i][j] = a.m[j][i] = A.m[i][j] * inv_scale;
  Mat3<T> Q_local = Mat3<T>::Identity();
  const T threshold = svd_detail::JacobiTolerance<T>();
  for (int sweep = 0; sweep < svd_detail::kMaxJacobiSweeps; ++sweep) {
    bool rotated = svd_detail::SymmetricJacobiStep<0, 1>(a, Q_local, threshold);
    rotated = svd_detail::SymmetricJacobiStep<0, 2>(a, Q_local, threshold) || rotated;
    rotated = svd_detail::SymmetricJacobiStep<1, 2>(a, Q_local, threshold) || rotated;
    if (!rotated) break;
  }
  lambda = Vec3<T>(a.m[0][0], a.m[1][1], a.m[2][2]) * scale;
  svd_detail::SortColumnsDecreasing(lambda, Q_local, static_cast<Mat3<T>*>(nullptr));
  Q = Q_local;
}

}  // namespace ductile
