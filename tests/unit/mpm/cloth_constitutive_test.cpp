// Tests of the cloth model (mpm/constitutive/cloth.h, Jiang, Gast, Teran 2017) in double.
//
// Finite differences as in constitutive_test.cpp: P against the central difference of Ψ with step 1e-6 and moduli of
// order 1. The truncation error h²Ψ'''/6 ≈ 1e-12 and the round-off ε·|Ψ|/h ≈ 1e-10 (Ψ goes through a Gram-Schmidt
// QR, a few ε), so 1e-6 relative to 1 + |P_ij| leaves four orders of margin while a wrong term (a missing mirror of
// B's upper triangle, R⁻¹ instead of R⁻ᵀ) errs by O(1e-1). Samples keep r₃₃ at least 0.2 away from 1, where h's
// third derivative jumps (Ψ is C² there, and the central difference across the kink errs by O(h)).
#include "mpm/constitutive/cloth.h"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "../support/finite_differences.h"
#include "../support/random_matrices.h"

namespace ductile::mpm {
namespace {

constexpr double kFdStep = 1e-6;
constexpr double kFdTol = 1e-6;
/// Identities that hold in real arithmetic through one QR (a few ε relative): checked at 1e-12.
constexpr double kExactTol = 1e-12;

using testing::Frobenius;
using testing::RandomRotation;

// Moduli of order 1, all different so that swapped terms show.
const Cloth<double> kModel{/*mu=*/1.3, /*lambda=*/2.1, /*shear=*/0.7, /*normal=*/1.9, /*friction=*/0.4};

/// F = Q R for a random rotation Q and an upper-triangular R with the given third column; in-plane part near
/// (but not at) the identity.
Mat3d MakeF(std::mt19937& rng, double r13, double r23, double r33) {
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  Mat3d R = Mat3d::Zero();
  R(0, 0) = 1.0 + u(rng);
  R(0, 1) = u(rng);
  R(1, 1) = 1.0 + u(rng);
  R(0, 2) = r13;
  R(1, 2) = r23;
  R(2, 2) = r33;
  return RandomRotation(rng) * R;
}

std::vector<Mat3d> Samples() {
  std::mt19937 rng(7);
  std::vector<Mat3d> samples;
  // Compressed through the sheet (h active), stretched away from it (h off), inverted (r₃₃ < 0), sheared.
  for (double r33 : {0.8, 0.5, 1.2, 1.6, -0.4})
    for (int k = 0; k < 3; ++k) samples.push_back(MakeF(rng, 0.3 * (k - 1), 0.2 * k, r33));
  return samples;
}

TEST(ClothModelTest, QrReproducesFWithUpperTriangularR) {
  for (const Mat3d& F : Samples()) {
    const ClothQr<double> qr = ClothQrDecompose(F);
    EXPECT_LE(Frobenius(qr.Q * qr.R - F), kExactTol);
    EXPECT_LE(Frobenius(qr.Q.Transposed() * qr.Q - Mat3d::Identity()), kExactTol);
    EXPECT_NEAR(qr.Q.Determinant(), 1.0, kExactTol);
    EXPECT_EQ(qr.R(1, 0), 0.0);
    EXPECT_EQ(qr.R(2, 0), 0.0);
    EXPECT_EQ(qr.R(2, 1), 0.0);
    EXPECT_GT(qr.R(0, 0), 0.0);
    EXPECT_GT(qr.R(1, 1), 0.0);
  }
}

TEST(ClothModelTest, PiolaIsEnergyGradient) {
  for (const Mat3d& F : Samples()) {
    testing::ExpectPiolaMatchesEnergy(
        F, [](const Mat3d& G) { return kModel.Energy(G); }, [](const Mat3d& G) { return kModel.FirstPiola(G); },
        kFdStep, kFdTol);
  }
}

TEST(ClothModelTest, EnergyAndStressAreInvariantUnderRotation) {
  std::mt19937 rng(3);
  for (const Mat3d& F : Samples()) {
    const Mat3d Q = RandomRotation(rng);
    EXPECT_NEAR(kModel.Energy(Q * F), kModel.Energy(F), kExactTol * (1.0 + kModel.Energy(F)));
    EXPECT_LE(Frobenius(kModel.FirstPiola(Q * F) - Q * kModel.FirstPiola(F)), 1e-11);
  }
}

TEST(ClothModelTest, NoStressAtRestOrUnderRotation) {
  std::mt19937 rng(11);
  for (int k = 0; k < 5; ++k) {
    const Mat3d Q = k == 0 ? Mat3d::Identity() : RandomRotation(rng);
    EXPECT_NEAR(kModel.Energy(Q), 0.0, kExactTol);
    EXPECT_LE(Frobenius(kModel.FirstPiola(Q)), kExactTol);
  }
}

// A sheet pressed flat through its normal (r₃₃ → 0: a cloth lying on a floor, whose grid holds its vertices) while
// sheared: P stays the energy's gradient, and in float (the engine's precision) it agrees with the double result to
// float rounding, 1e-5 relative to 1 + |P| (a few ε_float = 6e-8 through the QR; measured under 1e-6). Evaluated
// as Q B R⁻ᵀ, P carried 1/r₃₃ terms that cancel only exactly: at r₃₃ = 1e-9 the float stress was rounding noise
// amplified by 1e9, and at r₃₃ = 0 not finite (scenes/tshirt_drop.yaml diverged with 2 and 4 substeps).
TEST(ClothModelTest, StressOfASheetPressedFlatIsFinite) {
  std::mt19937 rng(23);
  const Cloth<float> model_f{1.3f, 2.1f, 0.7f, 1.9f, 0.4f};
  for (const double r33 : {1e-9, 0.0, -1e-9}) {
    for (int k = 0; k < 3; ++k) {
      const Mat3d F = MakeF(rng, 0.01 * (k + 1), -0.02 * k, r33);
      testing::ExpectPiolaMatchesEnergy(
          F, [](const Mat3d& G) { return kModel.Energy(G); }, [](const Mat3d& G) { return kModel.FirstPiola(G); },
          kFdStep, kFdTol);
      Mat3f F_f;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) F_f(i, j) = static_cast<float>(F(i, j));
      // The double stress at the float F, so that only the arithmetic differs.
      Mat3d F_back;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) F_back(i, j) = F_f(i, j);
      const Mat3d P = kModel.FirstPiola(F_back);
      const Mat3f P_f = model_f.FirstPiola(F_f);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          ASSERT_TRUE(std::isfinite(P_f(i, j))) << "r33 " << r33 << " entry " << i << "," << j;
          EXPECT_NEAR(P_f(i, j), P(i, j), 1e-5 * (1 + std::abs(P(i, j))))
              << "r33 " << r33 << " entry " << i << "," << j;
        }
    }
  }
}

// A sheet stretched by s₁, s₂ along its edges (F = diag(s₁, s₂, 1)): the 2-D fixed corotated stress,
// P₁₁ = 2μ(s₁ − 1) + λ(s₁s₂ − 1)s₂ and symmetrically P₂₂, nothing through the sheet.
TEST(ClothModelTest, InPlaneStretchFollowsTwoDimensionalFixedCorotated) {
  const double s1 = 1.3, s2 = 0.9;
  const Mat3d P = kModel.FirstPiola(Mat3d::Diagonal(s1, s2, 1.0));
  const double mu = kModel.mu, lambda = kModel.lambda;
  EXPECT_NEAR(P(0, 0), 2 * mu * (s1 - 1) + lambda * (s1 * s2 - 1) * s2, kExactTol);
  EXPECT_NEAR(P(1, 1), 2 * mu * (s2 - 1) + lambda * (s1 * s2 - 1) * s1, kExactTol);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      if (i != j || i == 2) {
        EXPECT_NEAR(P(i, j), 0.0, kExactTol) << "entry " << i << "," << j;
      }
    }
}

// Through the sheet: F = diag(1, 1, r₃₃) gives P₃₃ = −k(1 − r₃₃)² when compressed, nothing when stretched.
TEST(ClothModelTest, CompressionThroughTheSheetOnlyResists) {
  EXPECT_NEAR(kModel.FirstPiola(Mat3d::Diagonal(1.0, 1.0, 0.6))(2, 2), -kModel.normal * 0.16, kExactTol);
  EXPECT_EQ(kModel.FirstPiola(Mat3d::Diagonal(1.0, 1.0, 1.4))(2, 2), 0.0);
}

// The return map (Jiang, Gast, Teran 2017, Sec. 6): afterwards r₃₃ ≤ 1 and γ‖(r₁₃, r₂₃)‖ ≤ c_F k (1 − r₃₃)²; the
// in-plane columns (the mesh edges) and Q are unchanged; a second application changes nothing; admissible F are
// left bit for bit; the energy does not rise.
TEST(ClothModelTest, ReturnMapInvariants) {
  std::mt19937 rng(19);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int separated = 0, capped = 0, admissible = 0;
  for (int k = 0; k < 200; ++k) {
    const Mat3d F0 = MakeF(rng, 0.4 * u(rng), 0.4 * u(rng), 1.0 + 0.8 * u(rng));
    Mat3d F = F0;
    const double change = kModel.ReturnMap(F);
    const ClothQr<double> before = ClothQrDecompose(F0);
    if (before.R(2, 2) > 1.0) {
      ++separated;
    } else {
      ++(change > 0 ? capped : admissible);
    }
    const ClothQr<double> after = ClothQrDecompose(F);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) EXPECT_EQ(F(i, j), F0(i, j));
    EXPECT_LE(Frobenius(after.Q - before.Q), kExactTol);
    const double r33 = after.R(2, 2);
    EXPECT_LE(r33, 1.0 + kExactTol);
    const double c = std::max(0.0, 1.0 - r33);
    EXPECT_LE(kModel.shear * std::hypot(after.R(0, 2), after.R(1, 2)),
              kModel.friction * kModel.normal * c * c + kExactTol);
    EXPECT_NEAR(change, Norm(F.Column(2) - F0.Column(2)), kExactTol);
    EXPECT_LE(kModel.Energy(F), kModel.Energy(F0) + kExactTol);
    Mat3d again = F;
    EXPECT_LE(kModel.ReturnMap(again), 1e-12);
    if (change == 0.0) {
      for (int i = 0; i < 3; ++i) EXPECT_EQ(F(i, 2), F0(i, 2));
    }
  }
  // Every branch is exercised: separation, the friction cap, and small shear under pressure left as it is.
  EXPECT_GT(separated, 20);
  EXPECT_GT(capped, 20);
  EXPECT_GT(admissible, 20);
}

// Separation releases the transverse direction: r₃₃ > 1 becomes the unit normal of the deformed sheet.
TEST(ClothModelTest, SeparatedLayersLoseShearAndNormalStress) {
  std::mt19937 rng(23);
  Mat3d F = MakeF(rng, 0.5, -0.2, 1.5);
  kModel.ReturnMap(F);
  const ClothQr<double> qr = ClothQrDecompose(F);
  EXPECT_NEAR(qr.R(0, 2), 0.0, kExactTol);
  EXPECT_NEAR(qr.R(1, 2), 0.0, kExactTol);
  EXPECT_NEAR(qr.R(2, 2), 1.0, kExactTol);
  // Only the in-plane stress remains: P's transverse column is P e₃ = Q B R⁻ᵀ e₃ = 0 when r₁₃ = r₂₃ = 0, r₃₃ = 1.
  const Mat3d P = kModel.FirstPiola(F);
  EXPECT_LE(Norm(P.Column(2)), 1e-12);
}

// The fused return map and stress of the solver's inner loop (one QR) equals the two calls in turn: the same
// projected F bit for bit (the same arithmetic on the same Q) and the same P to a few ε (R's third column is the
// projected r₃ itself rather than Qᵀ d₃ recomputed from F).
TEST(ClothModelTest, FusedReturnMapAndStressEqualTheTwoCalls) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < 100; ++k) {
    const Mat3d F0 = MakeF(rng, 0.4 * u(rng), 0.4 * u(rng), 1.0 + 0.8 * u(rng));
    Mat3d separate = F0;
    kModel.ReturnMap(separate);
    const Mat3d P_separate = kModel.FirstPiola(separate);
    Mat3d fused = F0;
    const Mat3d P_fused = kModel.ReturnMapAndFirstPiola(fused);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(fused(i, j), separate(i, j));
    EXPECT_LE(Frobenius(P_fused - P_separate), kExactTol * (1.0 + Frobenius(P_separate)));
  }
}

}  // namespace
}  // namespace ductile::mpm
