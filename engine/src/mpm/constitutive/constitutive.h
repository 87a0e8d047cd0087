// The constitutive dispatch the MPM kernels call, on float: the Kirchhoff stress τ = P Fᴱᵀ that the P2G transfer
// turns into grid forces (MLS-MPM, Hu et al. 2018), the plastic return map after the Fᴱ update, and the energy
// density for diagnostics. One switch on MaterialParams::model selects the model file:
//
//   kFixedCorotated   fixed_corotated.h   elastic
//   kLinearCorotated  linear_corotated.h  von Mises (yield_stress > 0)
//   kStvkHencky       stvk_hencky.h       von Mises (yield_stress > 0)
//   kDruckerPrager    drucker_prager.h    Drucker-Prager sand
//   kFluid            fluid.h             Fᴱ ← J^{1/3} I
//   kCloth            cloth.h             the vertex particles carry no stress: their triangles do
//                                         (mpm/cloth_elements.h), with the layer-contact return map
//
// Linear corotated lags its rotation R₀ (linear_corotated.h): in explicit MPM the stress is evaluated at the
// start-of-substep Fᴱ, which is the previous state, so R₀ is the rotation of that Fᴱ itself; the return map takes
// R₀ from the Fᴱ before this substep's update.
#pragma once

#include "core/small_math.h"
#include "core/svd3.h"
#include "ductile/mpm_params.h"
#include "mpm/constitutive/drucker_prager.h"
#include "mpm/constitutive/fixed_corotated.h"
#include "mpm/constitutive/fluid.h"
#include "mpm/constitutive/linear_corotated.h"
#include "mpm/constitutive/stvk_hencky.h"

namespace ductile::mpm {

/// Kirchhoff stress τ = P Fᴱᵀ [Pa] of material p at elastic deformation gradient Fe; C [1/s] is the particle's
/// affine velocity gradient (used by the fluid's viscosity only). Pure, thread-safe; runs per particle per substep.
SIM_HD Mat3f KirchhoffStress(const MaterialParams& p, const Mat3f& Fe, const Mat3f& C) {
  switch (p.model) {
    case MaterialModel::kFixedCorotated:
      return FixedCorotated<float>{p.mu, p.lambda}.Kirchhoff(Fe);
    case MaterialModel::kLinearCorotated:
      return LinearCorotated<float>{p.mu, p.lambda, p.yield_stress}.Kirchhoff(Fe, FastPolarRotation3(Fe));
    case MaterialModel::kStvkHencky:
      return StvkHencky<float>{p.mu, p.lambda, p.yield_stress}.Kirchhoff(Fe);
    case MaterialModel::kDruckerPrager:
      return DruckerPrager<float>{p.mu, p.lambda, p.friction_alpha, p.cohesion}.Kirchhoff(Fe);
    case MaterialModel::kFluid:
      return Fluid<float>{p.bulk_modulus, p.gamma, p.viscosity}.Kirchhoff(Fe, C);
    case MaterialModel::kCloth:
      return Mat3f::Zero();
  }
  return Mat3f::Zero();
}

/// Applies material p's plasticity to the trial elastic deformation gradient Fe in place; Fe_old is Fᴱ before this
/// substep's update (linear corotated takes its R₀ from it). Returns the plastic strain increment [-] (0 for the
/// elastic fixed corotated model, for linear corotated and StVK-Hencky with yield_stress = 0, and for fluids).
/// Pure apart from Fe, thread-safe.
SIM_HD float ReturnMap(const MaterialParams& p, const Mat3f& Fe_old, Mat3f& Fe) {
  switch (p.model) {
    case MaterialModel::kFixedCorotated:
      return 0.0f;
    case MaterialModel::kLinearCorotated:
      if (!(p.yield_stress > 0.0f)) return 0.0f;  // elastic: skip the decomposition of Fe_old
      return LinearCorotated<float>{p.mu, p.lambda, p.yield_stress}.ReturnMap(FastPolarRotation3(Fe_old), Fe);
    case MaterialModel::kStvkHencky:
      return StvkHencky<float>{p.mu, p.lambda, p.yield_stress}.ReturnMap(Fe);
    case MaterialModel::kDruckerPrager:
      return DruckerPrager<float>{p.mu, p.lambda, p.friction_alpha, p.cohesion}.ReturnMap(Fe);
    case MaterialModel::kFluid:
      return Fluid<float>{p.bulk_modulus, p.gamma, p.viscosity}.ReturnMap(Fe);
    case MaterialModel::kCloth:
      Fe = Mat3f::Identity();  // a vertex's own F means nothing; kept at I so that it stays finite
      return 0.0f;
  }
  return 0.0f;
}

/// Strain energy density Ψ(Fe) per unit rest volume [J/m³] of material p, for diagnostics (linear corotated about
/// the rotation of Fe itself, as KirchhoffStress; fluids: the pressure energy only). Pure, thread-safe.
SIM_HD float StrainEnergyDensity(const MaterialParams& p, const Mat3f& Fe) {
  switch (p.model) {
    case MaterialModel::kFixedCorotated:
      return FixedCorotated<float>{p.mu, p.lambda}.Energy(Fe);
    case MaterialModel::kLinearCorotated:
      return LinearCorotated<float>{p.mu, p.lambda, p.yield_stress}.Energy(Fe, PolarRotation3(Fe));
    case MaterialModel::kStvkHencky:
      return StvkHencky<float>{p.mu, p.lambda, p.yield_stress}.Energy(Fe);
    case MaterialModel::kDruckerPrager:
      return DruckerPrager<float>{p.mu, p.lambda, p.friction_alpha, p.cohesion}.Energy(Fe);
    case MaterialModel::kFluid:
      return Fluid<float>{p.bulk_modulus, p.gamma, p.viscosity}.Energy(Fe);
    case MaterialModel::kCloth:
      return 0.0f;  // the triangles hold the energy
  }
  return 0.0f;
}

}  // namespace ductile::mpm
