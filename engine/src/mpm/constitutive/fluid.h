// Weakly compressible fluid: Tait equation of state plus Newtonian viscosity (Becker, Teschner 2007, "Weakly
// compressible SPH for free surface flows"; in MPM as in Tampubolon et al. 2017, "Multi-species simulation
// of porous sand and water mixtures"):
//
//   p(J) = κ (J^−γ − 1)
//   Ψ(J) = κ [(J − 1) − (J^{1−γ} − 1)/(1 − γ)]   (γ ≠ 1),   Ψ(J) = κ [(J − 1) − log J]   (γ = 1),
//          so that dΨ/dJ = −p and Ψ(1) = 0, Ψ ≥ 0
//   P = ∂Ψ/∂F = −p J F⁻ᵀ = −p cof F
//   τ = −p J I + ν J (C + Cᵀ)
//
// with J = det F, κ the bulk modulus, γ the Tait exponent, ν the dynamic viscosity and C the affine velocity
// gradient of APIC/MLS-MPM (∇v ≈ C). The viscous term is J times the Newtonian Cauchy stress ν (∇v + ∇vᵀ); it
// dissipates and has no energy, so Energy and FirstPiola cover only the pressure.
//
// Return map: a fluid keeps no shape, so Fᴱ ← J^{1/3} I (only the volume ratio is remembered). J is first raised to
// kMinFluidVolumeRatio, so a particle crushed through zero volume in an unstable step cannot leave a state where
// J^−γ is undefined.
#pragma once

#include "core/small_math.h"

namespace ductile::mpm {

/// Lower bound [-] on the volume ratio J kept by Fluid::ReturnMap.
template <typename T>
inline constexpr T kMinFluidVolumeRatio = T(1e-3);

/// Weakly compressible (Tait) fluid with viscosity. Plain data; member functions are pure and thread-safe.
template <typename T>
struct Fluid {
  T bulk_modulus = 0;  ///< κ [Pa], ≥ 0.
  T gamma = 7;         ///< Tait exponent γ [-], ≥ 1.
  T viscosity = 0;     ///< Dynamic viscosity ν [Pa·s], ≥ 0.

  /// Pressure p(J) [Pa] at volume ratio J > 0 (positive in compression, J < 1).
  SIM_HD T Pressure(T J) const { return bulk_modulus * (std::pow(J, -gamma) - T(1)); }

  /// Strain energy density Ψ(det F) per unit rest volume [J/m³], det F > 0.
  SIM_HD T Energy(const Mat3<T>& F) const {
    const T J = F.Determinant();
    const T log_J = std::log(J);
    // (J^{1−γ} − 1)/(1 − γ) = expm1((1 − γ) log J)/(1 − γ), accurate as γ → 1; log J in the limit γ = 1.
    const T one_minus_gamma = T(1) - gamma;
    const T integral = one_minus_gamma == T(0) ? log_J : std::expm1(one_minus_gamma * log_J) / one_minus_gamma;
    return bulk_modulus * ((J - T(1)) - integral);
  }

  /// First Piola-Kirchhoff stress P = ∂Ψ/∂F = −p cof F [Pa] (pressure only), det F > 0.
  SIM_HD Mat3<T> FirstPiola(const Mat3<T>& F) const { return F.Cofactor() * (-Pressure(F.Determinant())); }

  /// Kirchhoff stress τ = −p J I + ν J (C + Cᵀ) [Pa], det F > 0; C [1/s] the affine velocity gradient.
  SIM_HD Mat3<T> Kirchhoff(const Mat3<T>& F, const Mat3<T>& C) const {
    const T J = F.Determinant();
    Mat3<T> tau = (C + C.Transposed()) * (viscosity * J);
    const T pressure_term = Pressure(J) * J;
    tau.m[0][0] -= pressure_term;
    tau.m[1][1] -= pressure_term;
    tau.m[2][2] -= pressure_term;
    return tau;
  }

  /// Fe ← J^{1/3} I with J = max(det Fe, kMinFluidVolumeRatio). Returns 0: a fluid accumulates no plastic strain.
  SIM_HD T ReturnMap(Mat3<T>& Fe) const {
    const T J = Fe.Determinant();
    const T s = std::cbrt(J > kMinFluidVolumeRatio<T> ? J : kMinFluidVolumeRatio<T>);
    Fe = Mat3<T>::Diagonal(s, s, s);
    return T(0);
  }
};

}  // namespace ductile::mpm
