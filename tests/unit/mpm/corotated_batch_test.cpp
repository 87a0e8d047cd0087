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

// A rotation from a random unit quaternion.
Mat3f RandomRotation(std::mt19937& rng) {
  std::normal_distribution<float> n(0, 1);
  float w = n(rng), x = n(rng), y = n(rng), z = n(rng);
  const float norm = std::sqrt(w * w + x * x + y * y + z * z);
  w /= norm;
  x /= norm;
  y /= norm;
  z /= norm;
  Mat3f R;
  R.m[0][0] = 1 - 2 * (y * y + z * z);
  R.m[0][1] = 2 * (x * y - w * z);
  R.m[0][2] = 2 * (x * z + w * y);
  R.m[1][0] = 2 * (x * y + w * z);
  R.m[1][1] = 1 - 2 * (x * x + z * z);
  R.m[1][2] = 2 * (y * z - w * x);
  R.m[2][0] = 2 * (x * z - w * y);
  R.m[2][1] = 2 * (y * z + w * x);
  R.m[2][2] = 1 - 2 * (x * x + y * y);
  return R;
}

// F = s R (I + P): a rotation R, a volume change s ∈ [0.8, 1.25] and a symmetric stretch P with entries up to
// `strain`: the elastic deformations the Newton–Schulz iteration serves.
Mat3f NearRotation(std::mt19937& rng, float strain) {
  std::uniform_real_distribution<float> u(-1, 1);
  std::uniform_real_distribution<float> scale(0.8f, 1.25f);
  Mat3f stretch = Mat3f::Identity();
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) stretch.m[i][j] = stretch.m[j][i] = (i == j ? 1.0f : 0.0f) + strain * u(rng);
  return scale(rng) * (RandomRotation(rng) * stretch);
}

// size2[l] = ‖F_l‖²_F / 3, summed as PolarRotationLanes sums it.
void MeanSquares(const float (&f)[9][kStressBatch], float (&size2)[kStressBatch]) {
  for (int l = 0; l < kStressBatch; ++l) {
    float sum = 0;
    for (int e = 0; e < 9; ++e) sum += f[e][l] * f[e][l];
    size2[l] = sum * (1.0f / 3.0f);
  }
}

// Batches whose lanes are all near scaled rotations go through the Newton–Schulz iteration; its rotation must be
// the polar factor the scalar code finds, orthogonal and proper. Strains from 1e-4 (nearly rigid, one iteration)
// to 3% (several), full and partial batches.
TEST(CorotatedBatch, NewtonSchulzRotationOfNearRotations) {
  std::mt19937 rng(21);
  const float strains[] = {1e-4f, 3e-3f, 3e-2f};
  for (int trial = 0; trial < 300; ++trial) {
    const int count = 1 + trial % kStressBatch;
    Mat3f F[kStressBatch];
    for (int l = 0; l < count; ++l) F[l] = NearRotation(rng, strains[(trial + l) % 3]);
    alignas(32) float f[9][kStressBatch], r[9][kStressBatch], size2[kStressBatch];
    ToLanes(F, count, f);
    MeanSquares(f, size2);
    ASSERT_TRUE(NewtonSchulzRotationLanes(f, size2, r)) << "trial " << trial;
    for (int l = 0; l < count; ++l) {
      Mat3f R;
      for (int e = 0; e < 9; ++e) R.m[e / 3][e % 3] = r[e][l];
      const Mat3f expected = FastPolarRotation3(F[l]);
      // As PolarRotationMatchesScalar: both are the polar factor to float round-off, entries ≤ 1.
      for (int e = 0; e < 9; ++e)
        EXPECT_NEAR(R.m[e / 3][e % 3], expected.m[e / 3][e % 3], 1e-5f) << "trial " << trial << " lane " << l;
      // The iteration stops once XᵀX is within about 3ε of I (its last update squares an error of at most 2√ε);
      // the products that form RᵀR here add a few ε more: 1e-6 is 8ε.
      const Mat3f gram = R.Transposed() * R;
      for (int e = 0; e < 9; ++e) EXPECT_NEAR(gram.m[e / 3][e % 3], e % 4 == 0 ? 1.0f : 0.0f, 1e-6f);
      EXPECT_NEAR(R.Determinant(), 1.0f, 1e-6f);
    }
    // The batch path gives the same rotation.
    alignas(32) float r_batch[9][kStressBatch], det[kStressBatch];
    PolarRotationLanes(f, count, r_batch, det);
    for (int l = 0; l < count; ++l)
      for (int e = 0; e < 9; ++e) EXPECT_EQ(r_batch[e][l], r[e][l]);
  }
}

// Outside its domain (a lane stretched by half along one axis: ‖I − X₀ᵀX₀‖_F > ½) the Newton–Schulz iteration
// declines, and the batch takes Newton's iteration, which still finds every lane's rotation.
TEST(CorotatedBatch, FarFromRotationTakesNewtonsIteration) {
  std::mt19937 rng(23);
  Mat3f F[kStressBatch];
  for (int l = 0; l < kStressBatch; ++l) F[l] = NearRotation(rng, 1e-3f);
  F[3] = F[3] * Mat3f::Diagonal(1.5f, 1.0f, 1.0f);
  alignas(32) float f[9][kStressBatch], r[9][kStressBatch], size2[kStressBatch], det[kStressBatch];
  ToLanes(F, kStressBatch, f);
  MeanSquares(f, size2);
  EXPECT_FALSE(NewtonSchulzRotationLanes(f, size2, r));
  PolarRotationLanes(f, kStressBatch, r, det);
  for (int l = 0; l < kStressBatch; ++l) {
    const Mat3f expected = FastPolarRotation3(F[l]);
    for (int e = 0; e < 9; ++e) EXPECT_NEAR(r[e][l], expected.m[e / 3][e % 3], 1e-5f) << "lane " << l;
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
