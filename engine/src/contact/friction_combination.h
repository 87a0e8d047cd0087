// The Coulomb friction coefficient of a contact from the coefficients of its two surfaces, by Drake's rule
// (CalcContactFrictionFromSurfaceProperties, multibody/plant/coulomb_friction.h):
//   μ = 2 μ₁ μ₂ / (μ₁ + μ₂)   (the harmonic mean),   μ = 0 when μ₁ = μ₂ = 0.
// Symmetric; μ(a, a) = a; min(μ₁, μ₂) ≤ μ ≤ 2 min(μ₁, μ₂), so a frictionless surface makes the contact frictionless.
// Used by rigid-rigid contact (rigid_system.cpp) and by MPM-rigid contact when a material sets its own μ.
#pragma once

namespace ductile::contact {

/// The combined friction coefficient of surfaces with coefficients a ≥ 0 and b ≥ 0 [-]. Pure; thread-safe.
inline double CombineFriction(double a, double b) {
  return a + b > 0 ? 2 * a * b / (a + b) : 0;
}

}  // namespace ductile::contact
