// St. Venant-Kirchhoff elasticity on the Hencky (logarithmic) strain, with von Mises plasticity (Klár et al. 2016,
// "Drucker-Prager elastoplasticity for sand animation", Sec. 6 for the elasticity; Gao, Tampubolon, Jiang, Sifakis
// 2017, "An adaptive generalized interpolation material point method for simulating elastoplastic materials", for
// the von Mises return map on the Hencky strain):
//
//   F = U Σ Vᵀ (core/svd3.h),  ε = log Σ (principal Hencky strains)
//   Ψ(F) = μ tr(ε²) + λ/2 tr(ε)²
//   τ = U (2μ ε + λ tr(ε) I) Uᵀ,   P = τ F⁻ᵀ = U diag((2μ εᵢ + λ tr ε) / σᵢ) Vᵀ
//
// Return map, von Mises with ‖dev τ‖_F = 2μ ‖ε̂‖ ≤ η, ε̂ = ε − tr(ε)/3 I:
//   Δγ = ‖ε̂‖ − η/(2μ);  if Δγ > 0:  ε ← ε − Δγ ε̂/‖ε̂‖,  Fᴱ ← U exp(ε) Vᵀ.
// The projection keeps tr ε, so det Fᴱ is preserved exactly (isochoric plastic flow).
//
// The model is defined for det F > 0. Singular values below kMinHenckySingularValue (degenerate or inverted states,
// which an explicit simulation reaches only when it is already unstable) are raised to it before the logarithm, so
// the stress stays finite.
#pragma once

#include "core/small_math.h"
#include "core/svd3.h"

namespace ductile::mpm {

/// Lower bound [-] applied to singular values before their logarithm (Hencky strain log 10⁻⁶ ≈ −13.8).
template <typename T>
inline constexpr T kMinHenckySingularValue = T(1e-6);

/// The singular values raised to at least kMinHenckySingularValue [-].
template <typename T>
SIM_HD Vec3<T> ClampSingularValues(const Vec3<T>& sigma) {
  Vec3<T> clamped;
  for (int i = 0; i < 3; ++i)
    clamped[i] = sigma[i] > kMinHenckySingularValue<T> ? sigma[i] : kMinHenckySingularValue<T>;
  return clamped;
}

/// Principal Hencky strains εᵢ = log(max(σᵢ, kMinHenckySingularValue)) [-].
template <typename T>
SIM_HD Vec3<T> HenckyStrain(const Vec3<T>& sigma) {
  const Vec3<T> clamped = ClampSingularValues(sigma);
  return {std::log(clamped.x), std::log(clamped.y), std::log(clamped.z)};
}

/// U diag(exp εᵢ) Vᵀ: the deformation gradient with principal Hencky strains ε and singular vectors U, V.
template <typename T>
SIM_HD Mat3<T> DeformationFromHencky(const Mat3<T>& U, const Vec3<T>& epsilon, const Mat3<T>& V) {
  return U * Mat3<T>::Diagonal(std::exp(epsilon.x), std::exp(epsilon.y), std::exp(epsilon.z)) * V.Transposed();
}

/// St. Venant-Kirchhoff-Hencky material with optional von Mises plasticity. Plain data; member functions are pure
/// and thread-safe.
template <typename T>
struct StvkHencky {
  T mu = 0;            ///< Lamé shear modulus μ [Pa], > 0.
  T lambda = 0;        ///< Lamé first parameter λ [Pa], ≥ 0.
  T yield_stress = 0;  ///< η [Pa]: bound on ‖dev τ‖_F; 0 = purely elastic.

  /// Principal Kirchhoff stresses τᵢ = 2μ εᵢ + λ tr ε [Pa] for principal Hencky strains ε.
  SIM_HD Vec3<T> PrincipalKirchhoff(const Vec3<T>& epsilon) const {
    const T volumetric = lambda * (epsilon.x + epsilon.y + epsilon.z);
    return epsilon * (T(2) * mu) + Vec3<T>::Constant(volumetric);
  }

  /// Strain energy density Ψ(F) per unit rest volume [J/m³], det F > 0.
  SIM_HD T Energy(const Mat3<T>& F) const {
    Mat3<T> U;
    Mat3<T> V;
    Vec3<T> sigma;
    Svd3(F, U, sigma, V);
    const Vec3<T> epsilon = HenckyStrain(sigma);
    const T tr = epsilon.x + epsilon.y + epsilon.z;
    return mu * SquaredNorm(epsilon) + T(0.5) * lambda * tr * tr;
  }

  /// First Piola-Kirchhoff stress P = ∂Ψ/∂F [Pa], det F > 0.
  SIM_HD Mat3<T> FirstPiola(const Mat3<T>& F) const {
    Mat3<T> U;
    Mat3<T> V;
    Vec3<T> sigma;
    Svd3(F, U, sigma, V);
    const Vec3<T> clamped = ClampSingularValues(sigma);
    const Vec3<T> tau = PrincipalKirchhoff(HenckyStrain(sigma));
    return U * Mat3<T>::Diagonal(tau.x / clamped.x, tau.y / clamped.y, tau.z / clamped.z) * V.Transposed();
  }

  /// Kirchhoff stress τ = P Fᵀ [Pa], det F > 0.
  SIM_HD Mat3<T> Kirchhoff(const Mat3<T>& F) const {
    Mat3<T> U;
    Mat3<T> V;
    Vec3<T> sigma;
    Svd3(F, U, sigma, V);
    return U * Mat3<T>::Diagonal(PrincipalKirchhoff(HenckyStrain(sigma))) * U.Transposed();
  }

  /// Von Mises return map (file comment): projects the trial elastic deformation gradient Fe in place so that
  /// ‖dev τ‖_F ≤ η. Returns the plastic strain increment Δγ [-] (0 when elastic or yield_stress ≤ 0).
  SIM_HD T ReturnMap(Mat3<T>& Fe) const {
    if (!(yield_stress > T(0))) return T(0);
    Mat3<T> U;
    Mat3<T> V;
    Vec3<T> sigma;
    Svd3(Fe, U, sigma, V);
    const Vec3<T> epsilon = HenckyStrain(sigma);
    const Vec3<T> deviatoric = epsilon - Vec3<T>::Constant((epsilon.x + epsilon.y + epsilon.z) / T(3));
    const T deviatoric_norm = Norm(deviatoric);
    const T delta_gamma = deviatoric_norm - yield_stress / (T(2) * mu);
    if (!(delta_gamma > T(0))) return T(0);
    Fe = DeformationFromHencky(U, epsilon - deviatoric * (delta_gamma / deviatoric_norm), V);
    return delta_gamma;
  }
};

}  // namespace ductile::mpm
