// Fixed corotated elasticity (Stomakhin, Howes, Schroeder, Teran 2012, "Energetically consistent invertible
// elasticity", SCA 2012; also Jiang, Schroeder, Teran, Stomakhin, Selle 2016, "The material point method for
// simulating continuum materials", SIGGRAPH course notes, the fixed corotated model):
//
//   Ψ(F) = μ Σᵢ (σᵢ − 1)² + λ/2 (J − 1)²  =  μ ‖F − R‖²_F + λ/2 (J − 1)²
//   P    = ∂Ψ/∂F = 2μ (F − R) + λ (J − 1) J F⁻ᵀ,      J F⁻ᵀ = cof F
//   τ    = P Fᵀ  = 2μ (F − R) Fᵀ + λ (J − 1) J I
//
// with F = R S the rotation-polar decomposition (R ∈ SO(3) also for inverted F, σᵢ the signed singular values of
// core/svd3.h) and J = det F. Writing J F⁻ᵀ as the cofactor keeps P finite as J → 0 and through inversion.
// Purely elastic: there is no return map.
#pragma once

#include "core/small_math.h"
#include "core/svd3.h"

namespace ductile::mpm {

/// Fixed corotated hyperelastic material. Plain data; the member functions are pure and thread-safe.
template <typename T>
struct FixedCorotated {
  T mu = 0;      ///< Lamé shear modulus μ [Pa], ≥ 0.
  T lambda = 0;  ///< Lamé first parameter λ [Pa], ≥ 0.

  /// Strain energy density Ψ(F) per unit rest volume [J/m³]; F is the (elastic) deformation gradient, any finite F.
  SIM_HD T Energy(const Mat3<T>& F) const {
    const Mat3<T> R = PolarRotation3(F);
    const T J_minus_1 = F.Determinant() - T(1);
    return mu * (F - R).SquaredNorm() + T(0.5) * lambda * J_minus_1 * J_minus_1;
  }

  /// First Piola-Kirchhoff stress P = ∂Ψ/∂F [Pa].
  SIM_HD Mat3<T> FirstPiola(const Mat3<T>& F) const {
    const Mat3<T> R = PolarRotation3(F);
    return (F - R) * (T(2) * mu) + F.Cofactor() * (lambda * (F.Determinant() - T(1)));
  }

  /// Kirchhoff stress τ = P Fᵀ [Pa] (= J × Cauchy stress), computed directly (the per-particle hot path).
  SIM_HD Mat3<T> Kirchhoff(const Mat3<T>& F) const {
    const Mat3<T> R = FastPolarRotation3(F);
    const T J = F.Determinant();
    Mat3<T> tau = (F - R) * F.Transposed() * (T(2) * mu);
    const T volumetric = lambda * (J - T(1)) * J;
    tau.m[0][0] += volumetric;
    tau.m[1][1] += volumetric;
    tau.m[2][2] += volumetric;
    return tau;
  }
};

}  // namespace ductile::mpm
