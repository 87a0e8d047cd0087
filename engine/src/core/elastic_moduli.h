// Isotropic linear elastic moduli: Lamé's μ and λ from Young's modulus E and Poisson's ratio ν and back, written once
// for every solver that takes E and ν from a scene (the MPM materials, model/compile_model.cpp; the FEM soft bodies,
// fem/elasticity.h). Pure, thread-safe.
#pragma once

namespace ductile {

/// Lamé parameters. Plain data.
struct LameParameters {
  double mu = 0;      ///< Shear modulus μ [Pa], > 0.
  double lambda = 0;  ///< First Lamé parameter λ [Pa]; > 0 for 0 < ν < 0.5, negative for −1 < ν < 0.
};

/// μ = E / (2(1 + ν)), λ = E ν / ((1 + ν)(1 − 2ν)) from Young's modulus E [Pa] > 0 and Poisson's ratio
/// −1 < ν < 0.5. The inputs are not checked (the caller validates them).
inline LameParameters LameFromYoungPoisson(double youngs_modulus, double poisson_ratio) {
  const double E = youngs_modulus;
  const double nu = poisson_ratio;
  return {.mu = E / (2.0 * (1.0 + nu)), .lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))};
}

/// Its inverse's first half: E = μ(3λ + 2μ)/(λ + μ) [Pa].
inline double YoungsModulus(const LameParameters& lame) {
  return lame.mu * (3.0 * lame.lambda + 2.0 * lame.mu) / (lame.lambda + lame.mu);
}

}  // namespace ductile
