// The batched corotated stresses and rotations against the scalar ones, lane by lane, for full and partial
// batches, deformations from mild to large, and lanes that need the SVD fallback (flat, inverted).
#include "mpm/constitutive/corotated_batch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "mpm/constitutive/fixed_corotated.h"
#include "mpm/constitutive/linear_corotated.h"

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

// Lanes of a batch from F[0..count), the rest the identity.
void ToLanes(const Mat3f* F, int count, float (&f)[9][kStressBatch]) {
  for (int l = 0; l < kStressBatch; ++l)
    for (int e = 0; e < 9; ++e) f[e][l] = l < count ? F[l].m[e / 3][e % 3] : (e % 4 == 0 ? 1.0f : 0.0f);
}

TEST(CorotatedBatch, FixedCorotatedStressMatchesScalar) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 400; ++trial) {
    const int count = 1 + trial % kStressBatch;
    Mat3f F[kStressBatch];
    float mu[kStressBatch], lambda[kStressBatch];
    alignas(32) float two_mu[kStressBatch] = {}, lam[kStressBatch] = {};
    for (int l = 0; l < count; ++l) {
      F[l] = RandomDeformation(rng, (trial + l) % 5);
      mu[l] = 1e4f * (1 + l);
      lambda[l] = 2e4f * (1 + l);
      two_mu[l] = 2.0f * mu[l];
      lam[l] = lambda[l];
    }
    alignas(32) float f[9][kStressBatch], t[9][kStressBatch];
    ToLanes(F, count, f);
    FixedCorotatedKirchhoffLanes(f, two_mu, lam, count, t);
    Mat3f tau[kStressBatch];
    for (int l = 0; l < count; ++l)
      for (int e = 0; e < 9; ++e) tau[l].m[e / 3][e % 3] = t[e][l];
    for (int l = 0; l < count; ++l) {
      const Mat3f expected = FixedCorotated<float>{mu[l], lambda[l]}.Kirchhoff(F[l]);
      // Both compute R to float round-off (different Newton scalings, or the same fallback); τ's scale is
      // (μ + λ)·‖F‖², so 1e-5 of it bounds the difference of two float evaluations of 2μ(F − R)Fᵀ.
      const float scale = (mu[l] + lambda[l]) * (1.0f + F[l].SquaredNorm());
      EXPECT_LE(std::sqrt((tau[l] - expected).SquaredNorm()), 1e-5f * scale) << "trial " << trial << " lane " << l;
    }
  }
}

TEST(CorotatedBatch, PolarRotationMatchesScalar) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 400; ++trial) {
    const int count = 1 + trial % kStressBatch;
    Mat3f F[kStressBatch];
    for (int l = 0; l < count; ++l) F[l] = RandomDeformation(rng, (trial + l) % 5);
    alignas(32) float f[9][kStressBatch], r[9][kStressBatch], det[kStressBatch];
    ToLanes(F, count, f);
    PolarRotationLanes(f, count, r, det);
    for (int l = 0; l < count; ++l) {
      const Mat3f expected = FastPolarRotation3(F[l]);
      // Both iterate to float round-off of an orthogonal matrix (entries ≤ 1): 1e-5 is a few hundred ε, room for
      // the different scalings' last iterates (or the same SVD fallback) on the nearly flat lanes.
      for (int e = 0; e < 9; ++e)
        EXPECT_NEAR(r[e][l], expected.m[e / 3][e % 3], 1e-5f) << "trial " << trial << " lane " << l;
      // det F is a sum of products of three entries, each at most ‖F‖: two float evaluations in different orders
      // differ by a few ε·‖F‖³; 1e-6 is about 8ε.
      EXPECT_NEAR(det[l], F[l].Determinant(), 1e-6f * (1.0f + F[l].SquaredNorm() * std::sqrt(F[l].SquaredNorm())));
    }
  }
}

TEST(CorotatedBatch, LinearCorotatedStressMatchesScalar) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 400; ++trial) {
    const int count = 1 + trial % kStressBatch;
    Mat3f F[kStressBatch];
    alignas(32) float two_mu[kStressBatch] = {}, lam[kStressBatch] = {};
    for (int l = 0; l < count; ++l) {
      F[l] = RandomDeformation(rng, (trial + l) % 5);
      two_mu[l] = 2 * 1e4f * (1 + l);
      lam[l] = 3e4f * (1 + l);
    }
    alignas(32) float f[9][kStressBatch], r0[9][kStressBatch], t[9][kStressBatch];
    ToLanes(F, count, f);
    LinearCorotatedKirchhoffLanes(f, two_mu, lam, count, r0, t);
    for (int l = 0; l < count; ++l) {
      const Mat3f R0 = FastPolarRotation3(F[l]);
      const Mat3f expected = LinearCorotated<float>{0.5f * two_mu[l], lam[l], 0}.Kirchhoff(F[l], R0);
      // As the fixed corotated test: R agrees to ~1e-5 (above), τ is of scale (μ + λ)·‖F‖².
      const float scale = (two_mu[l] + lam[l]) * (1.0f + F[l].SquaredNorm());
      float difference = 0;
      for (int e = 0; e < 9; ++e) {
        const float d = t[e][l] - expected.m[e / 3][e % 3];
        difference += d * d;
      }
      EXPECT_LE(std::sqrt(difference), 1e-5f * scale) << "trial " << trial << " lane " << l;
      for (int e = 0; e < 9; ++e) EXPECT_NEAR(r0[e][l], R0.m[e / 3][e % 3], 1e-5f);
    }
  }
}

}  // namespace
}  // namespace ductile::mpm
