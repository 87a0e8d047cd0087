// Drucker-Prager elastoplasticity for sand (Klár, Gast, Pradhana, Fu, Schroeder, Jiang, Teran 2016, "Drucker-Prager
// elastoplasticity for sand animation", SIGGRAPH; Sec. 7.3 and Algorithm 2):
//
// Elasticity: StVK-Hencky (stvk_hencky.h), τ = U (2μ ε + λ tr(ε) I) Uᵀ, ε = log Σ.
// Yield condition (the cone in principal Kirchhoff stress, tr τ = (3λ + 2μ) tr ε, dev τ = 2μ ε̂):
//   ‖dev τ‖_F + α tr τ ≤ 0   ⇔   δγ = ‖ε̂‖_F + (3λ + 2μ)/(2μ) · tr(ε) · α ≤ 0,   ε̂ = ε − tr(ε)/3 I,
// α = √(2/3) · 2 sin φ / (3 − sin φ) for the friction angle φ (no hardening here: α is constant).
// Projection of the trial state (Algorithm 2, with d = 3):
//   Case II,  tr ε > 0 (tension):       ε ← 0 (the cone tip: no stress), plastic increment ‖ε‖_F;
//   Case I,   δγ ≤ 0 (inside the cone):  unchanged;
//   Case III, otherwise (shearing):      ε ← ε − δγ ε̂/‖ε̂‖_F, plastic increment δγ (lands on the cone surface).
// Tension is tested first, so sand never holds a hydrostatic tension even with α = 0.
//
// Cohesion c (MaterialParams::cohesion, a Hencky volumetric strain ≥ 0) moves the cone tip into tension: the
// projection acts on ε − c/3 I and adds c/3 I back, so the tip is tr ε = c, Fᴱ = e^{c/3} U Vᵀ, and the material holds
// hydrostatic tension up to tr τ = (3λ + 2μ) c. With c = 0 this is the dry sand of the paper.
//
// Singular values are raised to kMinHenckySingularValue before the logarithm (stvk_hencky.h); when that clamp is
// active the returned Fᴱ is rebuilt from the clamped values, so an inverted trial state is un-inverted.
#pragma once

#include "core/small_math.h"
#include "core/svd3.h"
#include "mpm/constitutive/stvk_hencky.h"

namespace ductile::mpm {

/// Drucker-Prager sand with StVK-Hencky elasticity. Plain data; member functions are pure and thread-safe.
template <typename T>
struct DruckerPrager {
  T mu = 0;              ///< Lamé shear modulus μ [Pa], > 0.
  T lambda = 0;          ///< Lamé first parameter λ [Pa], ≥ 0.
  T friction_alpha = 0;  ///< α [-], ≥ 0 (file comment).
  T cohesion = 0;        ///< c [-], ≥ 0: tip of the cone at Hencky volumetric strain tr ε = c.

  /// The elastic part: StVK-Hencky with these Lamé parameters.
  SIM_HD StvkHencky<T> Elasticity() const { return StvkHencky<T>{mu, lambda, T(0)}; }

  /// Strain energy density Ψ(F) per unit rest volume [J/m³], det F > 0.
  SIM_HD T Energy(const Mat3<T>& F) const { return Elasticity().Energy(F); }

  /// First Piola-Kirchhoff stress P = ∂Ψ/∂F [Pa], det F > 0.
  SIM_HD Mat3<T> FirstPiola(const Mat3<T>& F) const { return Elasticity().FirstPiola(F); }

  /// Kirchhoff stress τ = P Fᵀ [Pa], det F > 0.
  SIM_HD Mat3<T> Kirchhoff(const Mat3<T>& F) const { return Elasticity().Kirchhoff(F); }

  /// Drucker-Prager projection (file comment) of the trial elastic deformation gradient Fe, in place. Returns the
  /// plastic strain increment [-]: ‖ε‖ at the tip, δγ on the cone, 0 inside.
  SIM_HD T ReturnMap(Mat3<T>& Fe) const {
    Mat3<T> U;
    Mat3<T> V;
    Vec3<T> sigma;
    Svd3(Fe, U, sigma, V);
    const Vec3<T> shift = Vec3<T>::Constant(cohesion / T(3));
    const Vec3<T> epsilon = HenckyStrain(sigma) - shift;
    const T tr = epsilon.x + epsilon.y + epsilon.z;
    if (tr > T(0)) {
      Fe = DeformationFromHencky(U, shift, V);
      return Norm(epsilon);
    }
    const Vec3<T> deviatoric = epsilon - Vec3<T>::Constant(tr / T(3));
    const T deviatoric_norm = Norm(deviatoric);
    const T delta_gamma = deviatoric_norm + (T(3) * lambda + T(2) * mu) / (T(2) * mu) * tr * friction_alpha;
    if (!(delta_gamma > T(0))) {
      // sigma[2] is the smallest singular value (Svd3's ordering).
      if (sigma.z < kMinHenckySingularValue<T>) Fe = DeformationFromHencky(U, epsilon + shift, V);
      return T(0);
    }
    Fe = DeformationFromHencky(U, epsilon - deviatoric * (delta_gamma / deviatoric_norm) + shift, V);
    return delta_gamma;
  }
};

}  // namespace ductile::mpm
