// Anisotropic elastoplastic cloth (Jiang, Gast, Teran 2017, "Anisotropic elastoplasticity for cloth, knit and hair
// frictional contact", ACM TOG 36(4), Secs. 4 to 6).
//
// A cloth element (a triangle) carries F = [d₁ d₂ d₃] D⁻¹: d₁, d₂ its current edges, d₃ a transverse direction
// advected by the grid's velocity gradient, D = [[D̂, 0], [0, 1]] with D̂ the 2x2 rest edges in the element's own
// plane (so F's third column is d₃ and its first two lie in the deformed plane). With the QR decomposition F = Q R
// (Q a rotation, R upper triangular with r₁₁, r₂₂ > 0; r₃₃ < 0 when the element is pressed through itself) the
// energy density per rest volume splits into the in-plane, shear and normal parts of R (Sec. 5, Eq. 16):
//
//   Ψ(F) = f(R̂) + g(r₁₃, r₂₃) + h(r₃₃),   R̂ = [[r₁₁, r₁₂], [0, r₂₂]]
//   f(R̂) = μ ‖R̂ − U(R̂)‖²_F + λ/2 (det R̂ − 1)²      2-D fixed corotated, U(R̂) the rotation of R̂'s polar form
//   g    = γ/2 (r₁₃² + r₂₃²)                          shear of the transverse direction against the sheet
//   h    = k/3 (1 − r₃₃)³ for r₃₃ < 1, else 0         resistance to compression through the sheet only
//
// The stress (Sec. 5.1): with δF = δQ R + Q δR and M = Qᵀ δF R⁻¹ = W + δR R⁻¹ (W skew, δR R⁻¹ upper triangular),
// δΨ = (∂Ψ/∂R) : δR = A : (δR R⁻¹), A = (∂Ψ/∂R) Rᵀ. An upper-triangular U = δR R⁻¹ is M's upper triangle with the
// strictly lower one added onto its mirror, so A : U = B : M where B is A's upper triangle mirrored onto the lower
// one (B = sym-upper(A)). Hence
//
//   P = ∂Ψ/∂F = Q B R⁻ᵀ,   ∂Ψ/∂R: upper block 2μ(R̂ − U) + λ(det R̂ − 1) cof R̂,  ∂Ψ/∂r_{α3} = γ r_{α3},
//                                ∂Ψ/∂r₃₃ = −k (1 − r₃₃)² for r₃₃ < 1, else 0
//
// (only ∂Ψ/∂R's upper triangle enters, since δR is upper triangular).
//
// The return map (Sec. 6) makes the transverse part frictional contact between layers: after the elastic update,
// r₃₃ > 1 means the layers separate, so the normal and shear parts are released (r₃₃ ← 1, r₁₃ = r₂₃ ← 0); otherwise
// the shear is capped by Coulomb's rule, γ ‖(r₁₃, r₂₃)‖ ≤ c_F k (1 − r₃₃)², i.e. the shear stress by c_F times the
// normal pressure. Only R's third column changes, so F's in-plane columns (the mesh edges) are left as they are and
// d₃ = F's third column becomes Q r₃.
#pragma once

#include <cmath>

#include "core/small_math.h"

namespace ductile::mpm {

/// F = Q R, Q a rotation, R upper triangular with r₁₁ = ‖F e₁‖ > 0 and r₂₂ > 0 (Gram-Schmidt on F's first two
/// columns, q₃ = q₁ × q₂, so r₃₃ takes the sign of det F). F's first two columns must be independent.
template <typename T>
struct ClothQr {
  Mat3<T> Q;
  Mat3<T> R;
};

template <typename T>
SIM_HD ClothQr<T> ClothQrDecompose(const Mat3<T>& F) {
  const Vec3<T> f1 = F.Column(0);
  const Vec3<T> f2 = F.Column(1);
  const Vec3<T> f3 = F.Column(2);
  ClothQr<T> qr;
  const T r11 = Norm(f1);
  const Vec3<T> q1 = f1 / r11;
  const T r12 = Dot(q1, f2);
  const Vec3<T> u2 = f2 - q1 * r12;
  const T r22 = Norm(u2);
  const Vec3<T> q2 = u2 / r22;
  const Vec3<T> q3 = Cross(q1, q2);
  qr.Q = Mat3<T>::FromColumns(q1, q2, q3);
  qr.R = Mat3<T>::Zero();
  qr.R(0, 0) = r11;
  qr.R(0, 1) = r12;
  qr.R(1, 1) = r22;
  qr.R(0, 2) = Dot(q1, f3);
  qr.R(1, 2) = Dot(q2, f3);
  qr.R(2, 2) = Dot(q3, f3);
  return qr;
}

/// The cloth model of the file comment. Plain data; the member functions are pure and thread-safe.
template <typename T>
struct Cloth {
  T mu = 0;        ///< In-plane Lamé shear modulus μ [Pa], ≥ 0.
  T lambda = 0;    ///< In-plane Lamé first parameter λ [Pa], ≥ 0.
  T shear = 0;     ///< γ [Pa], ≥ 0: resistance of the transverse direction to shearing against the sheet.
  T normal = 0;    ///< k [Pa], ≥ 0: resistance to compression through the sheet.
  T friction = 0;  ///< c_F [-], ≥ 0: Coulomb friction coefficient between layers.

  /// Strain energy density Ψ(F) per unit rest volume [J/m³].
  SIM_HD T Energy(const Mat3<T>& F) const { return EnergyOfR(ClothQrDecompose(F).R); }

  /// Ψ as a function of R (the file comment's f + g + h).
  SIM_HD T EnergyOfR(const Mat3<T>& R) const {
    T u00, u01, u10, u11;
    InPlaneRotation(R, u00, u01, u10, u11);
    const T d00 = R(0, 0) - u00, d01 = R(0, 1) - u01, d10 = -u10, d11 = R(1, 1) - u11;
    const T J_minus_1 = R(0, 0) * R(1, 1) - T(1);
    T psi = mu * (d00 * d00 + d01 * d01 + d10 * d10 + d11 * d11) + T(0.5) * lambda * J_minus_1 * J_minus_1;
    psi += T(0.5) * shear * (R(0, 2) * R(0, 2) + R(1, 2) * R(1, 2));
    if (R(2, 2) < T(1)) {
      const T c = T(1) - R(2, 2);
      psi += normal / T(3) * c * c * c;
    }
    return psi;
  }

  /// First Piola-Kirchhoff stress P = ∂Ψ/∂F = Q B R⁻ᵀ [Pa], evaluated as Q P̃ with P̃ Rᵀ = B solved column by
  /// column from the last (R is upper triangular): P̃'s third column is ∂Ψ/∂r₃ = (γ r₁₃, γ r₂₃, ∂Ψ/∂r₃₃), since
  /// ∂Ψ/∂f₃ = Q ∂Ψ/∂r₃ (only R's third column depends on f₃), so the back-substitution never divides by r₃₃. The
  /// textbook R⁻ᵀ does, and its 1/r₃₃ terms cancel only in exact arithmetic: a cloth pressed flat (r₃₃ → 0, as on a
  /// floor) got a stress of rounding noise times 1/r₃₃ and went non-finite. Finite for any r₃₃; needs r₁₁, r₂₂ > 0.
  SIM_HD Mat3<T> FirstPiola(const Mat3<T>& F) const { return FirstPiolaOfQr(ClothQrDecompose(F)); }

  /// ReturnMap(F) then FirstPiola(F) of the projected F, with one QR decomposition: the return map changes only R's
  /// third column, so Q and R's in-plane block stay those of the projected F.
  SIM_HD Mat3<T> ReturnMapAndFirstPiola(Mat3<T>& F) const {
    ClothQr<T> qr = ClothQrDecompose(F);
    return ReturnMapAndFirstPiola(F, qr);
  }

  /// The same, with F's QR factors `qr` (as ClothQrDecompose(F) gave them), left as those of the projected F.
  SIM_HD Mat3<T> ReturnMapAndFirstPiola(Mat3<T>& F, ClothQr<T>& qr) const {
    ReturnMapOfQr(qr, F);
    return FirstPiolaOfQr(qr);
  }

  /// The rotation of F's in-plane columns, Q̂ U (3x2, as its two columns): Q̂ = [q₁ q₂] from F's QR factors and U the
  /// rotation of R̂'s polar form.
  SIM_HD static void InPlaneRotationOfQr(const ClothQr<T>& qr, Vec3<T>& r1, Vec3<T>& r2) {
    T u00, u01, u10, u11;
    InPlaneRotation(qr.R, u00, u01, u10, u11);
    const Vec3<T> q1 = qr.Q.Column(0), q2 = qr.Q.Column(1);
    r1 = q1 * u00 + q2 * u10;
    r2 = q2 * u11 + q1 * u01;
  }

  /// Projects F (after its elastic update) onto the admissible set of the file comment by changing its third column
  /// only. Returns the length of that change (0 when F was admissible and is left bit for bit as it was).
  SIM_HD T ReturnMap(Mat3<T>& F) const {
    ClothQr<T> qr = ClothQrDecompose(F);
    return ReturnMapOfQr(qr, F);
  }

 private:
  /// FirstPiola from F's QR factors.
  SIM_HD Mat3<T> FirstPiolaOfQr(const ClothQr<T>& qr) const {
    const Mat3<T>& R = qr.R;
    // ∂Ψ/∂R, upper triangle.
    T u00, u01, u10, u11;
    InPlaneRotation(R, u00, u01, u10, u11);
    const T volumetric = lambda * (R(0, 0) * R(1, 1) - T(1));
    Mat3<T> dR = Mat3<T>::Zero();
    dR(0, 0) = T(2) * mu * (R(0, 0) - u00) + volumetric * R(1, 1);
    dR(0, 1) = T(2) * mu * (R(0, 1) - u01);  // cof R̂ = [[r₂₂, 0], [−r₁₂, r₁₁]]: nothing above the diagonal
    dR(1, 1) = T(2) * mu * (R(1, 1) - u11) + volumetric * R(0, 0);
    dR(0, 2) = shear * R(0, 2);
    dR(1, 2) = shear * R(1, 2);
    if (R(2, 2) < T(1)) {
      const T c = T(1) - R(2, 2);
      dR(2, 2) = -normal * c * c;
    }
    // B = sym-upper((∂Ψ/∂R) Rᵀ).
    Mat3<T> B = dR * R.Transposed();
    B(1, 0) = B(0, 1);
    B(2, 0) = B(0, 2);
    B(2, 1) = B(1, 2);
    // P̃ Rᵀ = B: column j of the left side is Σ_{k ≥ j} p̃_k r_jk.
    const Vec3<T> p3(dR(0, 2), dR(1, 2), dR(2, 2));
    const Vec3<T> p2 = (B.Column(1) - p3 * R(1, 2)) / R(1, 1);
    const Vec3<T> p1 = (B.Column(0) - p2 * R(0, 1) - p3 * R(0, 2)) / R(0, 0);
    return qr.Q * Mat3<T>::FromColumns(p1, p2, p3);
  }

  /// ReturnMap on F with its QR factors qr; R's third column is changed with F's.
  SIM_HD T ReturnMapOfQr(ClothQr<T>& qr, Mat3<T>& F) const {
    Vec3<T> r3(qr.R(0, 2), qr.R(1, 2), qr.R(2, 2));
    if (r3.z > T(1)) {
      r3 = Vec3<T>(T(0), T(0), T(1));
    } else {
      const T c = T(1) - r3.z;
      const T cap = friction * normal * c * c;  // bound on γ ‖(r₁₃, r₂₃)‖
      const T tangential = std::sqrt(r3.x * r3.x + r3.y * r3.y);
      if (!(shear * tangential > cap)) return T(0);
      const T scale = cap / (shear * tangential);
      r3.x *= scale;
      r3.y *= scale;
    }
    qr.R(0, 2) = r3.x;
    qr.R(1, 2) = r3.y;
    qr.R(2, 2) = r3.z;
    const Vec3<T> d3 = qr.Q * r3;
    const Vec3<T> change = d3 - F.Column(2);
    F(0, 2) = d3.x;
    F(1, 2) = d3.y;
    F(2, 2) = d3.z;
    return Norm(change);
  }

  /// The rotation U of R̂ = [[r₁₁, r₁₂], [0, r₂₂]]'s polar decomposition R̂ = U S: the angle maximising tr(Uᵀ R̂).
  SIM_HD static void InPlaneRotation(const Mat3<T>& R, T& u00, T& u01, T& u10, T& u11) {
    const T a = R(0, 0) + R(1, 1);  // tr R̂
    const T b = -R(0, 1);           // r₁₀ − r₀₁ with r₁₀ = 0
    const T n = std::sqrt(a * a + b * b);
    const T c = n > T(0) ? a / n : T(1);
    const T s = n > T(0) ? b / n : T(0);
    u00 = c;
    u01 = -s;
    u10 = s;
    u11 = c;
  }
};

}  // namespace ductile::mpm
