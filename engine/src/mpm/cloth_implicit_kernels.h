// The per-triangle terms of the linearly implicit in-plane cloth step (mpm/cloth_implicit.cpp, whose comment has the
// equations) as SIM_HD functions, shared by the CPU solver and the device backend (backend/device_cloth.h).
#pragma once

#include "core/sim_hd.h"
#include "core/small_math.h"
#include "ductile/mpm_params.h"

namespace ductile::mpm {

/// θ V δP̂ β₁ and θ V δP̂ β₂: a triangle's forces on its corners 1 and 2 (on corner 0 minus their sum) for corner
/// displacements u0, u1, u2, with its in-plane rotation's columns r1, r2 (one term of H u).
SIM_HD void ImplicitTriangleForce(const ClothElement& element, const MaterialParams& m, const Vec3f& r1,
                                  const Vec3f& r2, const Vec3f& u0, const Vec3f& u1, const Vec3f& u2, Vec3f& f1,
                                  Vec3f& f2) {
  const float a = element.rest_inverse[0], b = element.rest_inverse[1], c = element.rest_inverse[2];
  const Vec3f du1 = u1 - u0;
  const Vec3f du2 = u2 - u0;
  const Vec3f df1 = du1 * a, df2 = du1 * b + du2 * c;
  const float e11 = Dot(r1, df1), e22 = Dot(r2, df2);
  const float e12 = 0.5f * (Dot(r1, df2) + Dot(r2, df1));
  const float trace = m.lambda * (e11 + e22);
  const float two_mu = 2.0f * m.mu;
  const Vec3f p1 = r1 * (two_mu * e11 + trace) + r2 * (two_mu * e12);
  const Vec3f p2 = r1 * (two_mu * e12) + r2 * (two_mu * e22 + trace);
  const float weight = m.cloth_implicit * element.volume;  // θ V
  f1 = (p1 * a + p2 * b) * weight;
  f2 = p2 * (c * weight);
}

/// A triangle's share of its corner k's preconditioner: θ Δt² V (3μ + λ)/3 ‖β_k‖² (M + θ Δt² H's diagonal averaged
/// over the three directions).
SIM_HD float ImplicitDiagonalTerm(const ClothElement& element, const MaterialParams& m, int k, float dt2) {
  const float a = element.rest_inverse[0], b = element.rest_inverse[1], cc = element.rest_inverse[2];
  const float beta2 = k == 0 ? a * a + (b + cc) * (b + cc) : k == 1 ? a * a + b * b : cc * cc;
  return dt2 * m.cloth_implicit * element.volume * (3.0f * m.mu + m.lambda) / 3.0f * beta2;
}

}  // namespace ductile::mpm
