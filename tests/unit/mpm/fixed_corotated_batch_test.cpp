// The batched fixed corotated stress against the scalar one, lane by lane, for full and partial batches,
// deformations from mild to large, and lanes that need the SVD fallback (flat, inverted).
#include "mpm/constitutive/fixed_corotated_batch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "mpm/constitutive/fixed_corotated.h"

namespace ductile::mpm {
namespace {

Mat3f RandomDeformation(std::mt19937& rng, int kind) {
  std::uniform_real_distribution<float> u(-1, 1);
  Mat3f F = Mat3f::Identity();
  const float amplitude = kind == 0 ? 0.01f : (kind == 1 ? 0.3f : 0.8f);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) F.m[i][j] += amplitude * u(rng);
  if (kind == 3) F = Mat3f::Diagonal(1.2f, 0.9f, 1e-5f) * F;  // nearly flat
  if (kind == 4) F = Mat3f::Diagonal(1.0f, 1.0f, -0.5f) * F;  // inverted
  return F;
}

TEST(FixedCorotatedBatch, MatchesScalarStress) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 400; ++trial) {
    const int count = 1 + trial % kStressBatch;
    Mat3f F[kStressBatch];
    const Mat3f* F_ptr[kStressBatch];
    float mu[kStressBatch], lambda[kStressBatch];
    for (int l = 0; l < count; ++l) {
      F[l] = RandomDeformation(rng, (trial + l) % 5);
      F_ptr[l] = &F[l];
      mu[l] = 1e4f * (1 + l);
      lambda[l] = 2e4f * (1 + l);
    }
    Mat3f tau[kStressBatch];
    FixedCorotatedKirchhoffBatch(F_ptr, mu, lambda, count, tau);
    for (int l = 0; l < count; ++l) {
      const Mat3f expected = FixedCorotated<float>{mu[l], lambda[l]}.Kirchhoff(F[l]);
      // Both compute R to float round-off (different Newton scalings, or the same fallback); τ's scale is
      // (μ + λ)·‖F‖², so 1e-5 of it bounds the difference of two float evaluations of 2μ(F − R)Fᵀ.
      const float scale = (mu[l] + lambda[l]) * (1.0f + F[l].SquaredNorm());
      EXPECT_LE(std::sqrt((tau[l] - expected).SquaredNorm()), 1e-5f * scale) << "trial " << trial << " lane " << l;
    }
  }
}

}  // namespace
}  // namespace ductile::mpm
