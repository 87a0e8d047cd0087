// Tests of the constitutive models (mpm/constitutive/*.h) in double, and of the float dispatch the engine calls
// (constitutive.h).
//
// Finite differences: P is compared with the central difference (Ψ(F + hE_ij) − Ψ(F − hE_ij)) / 2h, h = 1e-6, with
// moduli of order 1 so that stresses are O(1). The truncation error is h²Ψ'''/6 ≈ 1e-12 and the round-off error
// ε_double·|Ψ|/h ≈ 1e-10 (Ψ is evaluated through an SVD that is accurate to a few ε), so kFdTol = 1e-6 (relative to
// 1 + |P_ij|) has four orders of margin, while a wrong term (a missing factor 2, a transposed cofactor, a stale
// rotation) errs by O(1e-1) or more.
#include "mpm/constitutive/constitutive.h"

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "../support/finite_differences.h"
#include "../support/random_matrices.h"

namespace ductile::mpm {
namespace {

constexpr double kFdStep = 1e-6;
constexpr double kFdTol = 1e-6;
/// Identities that hold exactly in real arithmetic and are computed through a few decompositions: O(ε) = 1e-15
/// relative, checked at 1e-11 to allow for the conditioning of exp/log and the 6x6 solve.
constexpr double kExactTol = 1e-11;

using testing::Frobenius;
using testing::RandomRotation;

Mat3d Deviatoric(const Mat3d& A) {
  return A - Mat3d::Identity() * (A.Trace() / 3.0);
}

/// Deformation gradients with det F > 0: near the identity (I + 0.1 X, X uniform in [−1, 1]) and large
/// deformations R₁ diag(s) R₂ᵀ with s in [0.5, 2]. Fixed seed.
std::vector<Mat3d> PositiveSamples() {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<Mat3d> samples;
  for (int k = 0; k < 5; ++k) {
    Mat3d F = Mat3d::Identity();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) F(i, j) += 0.1 * uniform(rng);
    samples.push_back(F);
  }
  for (int k = 0; k < 5; ++k) {
    const Vec3d s(1.25 + 0.75 * uniform(rng), 1.25 + 0.75 * uniform(rng), 1.25 + 0.75 * uniform(rng));
    samples.push_back(RandomRotation(rng) * Mat3d::Diagonal(s) * RandomRotation(rng).Transposed());
  }
  return samples;
}

/// Checks P(F) against central differences of energy(F) with the file comment's step and tolerance.
template <typename EnergyFn, typename PiolaFn>
void ExpectPiolaMatchesEnergy(const Mat3d& F, EnergyFn energy, PiolaFn piola) {
  testing::ExpectPiolaMatchesEnergy(F, energy, piola, kFdStep, kFdTol);
}

void ExpectNear(const Mat3d& A, const Mat3d& B, double tol) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(A(i, j), B(i, j), tol) << "entry " << i << "," << j;
}

void ExpectIdentical(const Mat3d& A, const Mat3d& B) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(A(i, j), B(i, j)) << "entry " << i << "," << j;
}

// Moduli of order 1 (see the file comment); μ ≠ λ so that swapped terms show.
constexpr double kMu = 1.3;
constexpr double kLambda = 2.1;

// ---------------------------------------------------------------------------------------------------------------
// Fixed corotated.

TEST(FixedCorotatedTest, PiolaIsEnergyGradient) {
  const FixedCorotated<double> model{kMu, kLambda};
  std::vector<Mat3d> samples = PositiveSamples();
  std::mt19937 rng(5);
  samples.push_back(RandomRotation(rng) * Mat3d::Diagonal(1.5, 1.2, -0.5) * RandomRotation(rng).Transposed());
  for (const Mat3d& F : samples) {
    ExpectPiolaMatchesEnergy(
        F, [&](const Mat3d& G) { return model.Energy(G); }, [&](const Mat3d& G) { return model.FirstPiola(G); });
  }
}

TEST(FixedCorotatedTest, KirchhoffIsPiolaTimesFTransposed) {
  const FixedCorotated<double> model{kMu, kLambda};
  for (const Mat3d& F : PositiveSamples()) {
    ExpectNear(model.Kirchhoff(F), model.FirstPiola(F) * F.Transposed(), kExactTol * (1.0 + Frobenius(F)));
  }
}

TEST(FixedCorotatedTest, EnergyMatchesSingularValueFormula) {
  const FixedCorotated<double> model{kMu, kLambda};
  std::mt19937 rng(9);
  const Mat3d F = RandomRotation(rng) * Mat3d::Diagonal(1.5, 0.8, -0.2) * RandomRotation(rng).Transposed();
  const double J = 1.5 * 0.8 * -0.2;
  const double expected = kMu * (0.25 + 0.04 + 1.44) + 0.5 * kLambda * (J - 1.0) * (J - 1.0);
  EXPECT_NEAR(model.Energy(F), expected, kExactTol);
}

TEST(FixedCorotatedTest, NoStressAtRestOrUnderRotation) {
  const FixedCorotated<double> model{kMu, kLambda};
  std::mt19937 rng(1);
  for (int k = 0; k < 10; ++k) {
    const Mat3d R = k == 0 ? Mat3d::Identity() : RandomRotation(rng);
    EXPECT_NEAR(model.Energy(R), 0.0, kExactTol);
    EXPECT_LE(Frobenius(model.FirstPiola(R)), kExactTol);
    EXPECT_LE(Frobenius(model.Kirchhoff(R)), kExactTol);
  }
}

TEST(FixedCorotatedTest, StressStaysFiniteAtZeroVolume) {
  const FixedCorotated<double> model{kMu, kLambda};
  const Mat3d F = Mat3d::Diagonal(1.2, 0.9, 0.0);
  const Mat3d P = model.FirstPiola(F);
  // P = 2μ(F − R) + λ(J − 1) cof F with R = I, J = 0, cof F = diag(0, 0, 1.08).
  ExpectNear(P, Mat3d::Diagonal(2 * kMu * 0.2, 2 * kMu * -0.1, 2 * kMu * -1.0 - kLambda * 1.08), kExactTol);
}

// ---------------------------------------------------------------------------------------------------------------
// Linear corotated.

TEST(LinearCorotatedTest, PiolaIsEnergyGradientAtFixedRotation) {
  const LinearCorotated<double> model{kMu, kLambda, 0.0};
  std::mt19937 rng(13);
  for (const Mat3d& F : PositiveSamples()) {
    // R₀ near F's own rotation (the lagged case) and an unrelated one.
    for (const Mat3d& R0 : {RandomRotation(rng, 0.1) * PolarRotation3(F), RandomRotation(rng)}) {
      ExpectPiolaMatchesEnergy(
          F, [&](const Mat3d& G) { return model.Energy(G, R0); },
          [&](const Mat3d& G) { return model.FirstPiola(G, R0); });
    }
  }
}

TEST(LinearCorotatedTest, KirchhoffIsPiolaTimesFTransposed) {
  const LinearCorotated<double> model{kMu, kLambda, 0.0};
  std::mt19937 rng(17);
  for (const Mat3d& F : PositiveSamples()) {
    const Mat3d R0 = RandomRotation(rng);
    ExpectNear(model.Kirchhoff(F, R0), model.FirstPiola(F, R0) * F.Transposed(), kExactTol * (1.0 + Frobenius(F)));
  }
}

TEST(LinearCorotatedTest, NoStressWhenFIsTheLaggedRotation) {
  const LinearCorotated<double> model{kMu, kLambda, 0.0};
  std::mt19937 rng(19);
  for (int k = 0; k < 10; ++k) {
    const Mat3d R = k == 0 ? Mat3d::Identity() : RandomRotation(rng);
    EXPECT_NEAR(model.Energy(R, R), 0.0, kExactTol);
    EXPECT_LE(Frobenius(model.Kirchhoff(R, R)), kExactTol);
  }
}

/// The trial state of the return-map tests: Fᴱ = R_trial · Q diag(s) Qᵀ, R₀ a small rotation away from R_trial.
struct LinearCorotatedTrial {
  Mat3d Fe;
  Mat3d R0;
};

LinearCorotatedTrial MakeLinearCorotatedTrial(std::mt19937& rng, const Vec3d& stretches) {
  const Mat3d R_trial = RandomRotation(rng);
  const Mat3d Q = RandomRotation(rng);
  return {R_trial * Q * Mat3d::Diagonal(stretches) * Q.Transposed(), RandomRotation(rng, 0.05) * R_trial};
}

TEST(LinearCorotatedTest, ReturnMapLeavesElasticStateUntouched) {
  const double yield_stress = 0.5;  // radius η/(2μ) ≈ 0.19 in stretch space
  const LinearCorotated<double> model{kMu, kLambda, yield_stress};
  std::mt19937 rng(23);
  const LinearCorotatedTrial trial = MakeLinearCorotatedTrial(rng, {1.05, 0.98, 1.0});
  Mat3d Fe = trial.Fe;
  EXPECT_EQ(model.ReturnMap(trial.R0, Fe), 0.0);
  ExpectIdentical(Fe, trial.Fe);
}

TEST(LinearCorotatedTest, ZeroYieldStressIsElastic) {
  const LinearCorotated<double> model{kMu, kLambda, 0.0};
  std::mt19937 rng(29);
  const LinearCorotatedTrial trial = MakeLinearCorotatedTrial(rng, {2.0, 0.5, 1.0});
  Mat3d Fe = trial.Fe;
  EXPECT_EQ(model.ReturnMap(trial.R0, Fe), 0.0);
  ExpectIdentical(Fe, trial.Fe);
}

TEST(LinearCorotatedTest, ReturnMapProjectsOntoYieldSurface) {
  const double yield_stress = 0.2;
  const LinearCorotated<double> model{kMu, kLambda, yield_stress};
  std::mt19937 rng(31);
  const Vec3d stretches[] = {{1.3, 0.8, 1.0}, {1.1, 1.1, 0.7}, {2.0, 0.6, 0.9}};
  for (const Vec3d& s : stretches) {
    const LinearCorotatedTrial trial = MakeLinearCorotatedTrial(rng, s);
    // The yield function acts on the rotated stress s = R₀ᵀP = 2μÊ + λ tr(Ê) I, ‖dev s‖_F = 2μ‖dev Ê‖_F.
    const Mat3d E_trial = LinearCorotated<double>::Strain(trial.Fe, trial.R0);
    const double dev_norm_trial = Frobenius(Deviatoric(E_trial));
    ASSERT_GT(2 * kMu * dev_norm_trial, yield_stress);

    Mat3d Fe = trial.Fe;
    const double increment = model.ReturnMap(trial.R0, Fe);

    const Mat3d stress = trial.R0.Transposed() * model.FirstPiola(Fe, trial.R0);
    EXPECT_NEAR(Frobenius(Deviatoric(stress)), yield_stress, kExactTol);
    // Radial return: the increment is the distance travelled; tr Ê (the linearised volume change) is kept.
    EXPECT_NEAR(increment, dev_norm_trial - yield_stress / (2 * kMu), kExactTol);
    const Mat3d E_new = LinearCorotated<double>::Strain(Fe, trial.R0);
    EXPECT_NEAR(E_new.Trace(), E_trial.Trace(), kExactTol);
    // The deviatoric strain keeps its direction.
    ExpectNear(Deviatoric(E_new) * (1.0 / Frobenius(Deviatoric(E_new))), Deviatoric(E_trial) * (1.0 / dev_norm_trial),
               1e-9);
    // Fᴱ = R Ṽ keeps the trial rotation R with a symmetric Ṽ.
    const Mat3d V_new = PolarRotation3(trial.Fe).Transposed() * Fe;
    EXPECT_LE(Frobenius(V_new - V_new.Transposed()), kExactTol);
  }
}

TEST(LinearCorotatedTest, ReturnMapWithUnrotatedReferenceScalesTheStretch) {
  // With R₀ = R the 6x6 system is the identity: Fᴱ = R S̃ with S̃ the projected stretch.
  const LinearCorotated<double> model{1.0, 1.0, 0.2};
  Mat3d Fe = Mat3d::Diagonal(1.3, 0.8, 1.0);
  model.ReturnMap(Mat3d::Identity(), Fe);
  // σ = (1.3, 0.8, 1.0), σ̄ = 1.0333, deviation (0.2667, −0.2333, −0.0333), radius η/(2μ) = 0.1.
  const Vec3d deviation(1.3 - 3.1 / 3, 0.8 - 3.1 / 3, 1.0 - 3.1 / 3);
  const Vec3d expected = Vec3d::Constant(3.1 / 3) + deviation * (0.1 / Norm(deviation));
  ExpectNear(Fe, Mat3d::Diagonal(expected), kExactTol);
}

TEST(LinearCorotatedTest, StretchSolveMatchesEliminationForEveryRotation) {
  // The return map's step 5, ½(M Ṽ + Ṽ Mᵀ) = S̃ for a symmetric Ṽ: by fixed-point iteration when M = R₀ᵀR is within
  // ‖M − I‖_F < ½ of the identity (rotations up to about 20°), by elimination beyond. Both must solve the system
  // (residual at double round-off of |S̃| ~ 1) and agree.
  std::mt19937 rng(37);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const double angle : {1e-4, 1e-2, 0.1, 0.3, 0.34, 0.5, 1.2}) {
    for (int k = 0; k < 20; ++k) {
      const Mat3d M = RandomRotation(rng, angle);
      Mat3d S = Mat3d::Identity();
      for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) S.m[i][j] = S.m[j][i] = S.m[i][j] + 0.3 * u(rng);
      const Mat3d V = linear_corotated_detail::SolveSymmetricStretch(M, S);
      const Mat3d V_elimination = linear_corotated_detail::SolveSymmetricStretchByElimination(M, S);
      EXPECT_LE(Frobenius(V - V.Transposed()), 1e-14) << "angle " << angle;
      const Mat3d MV = M * V;
      EXPECT_LE(Frobenius((MV + MV.Transposed()) * 0.5 - S), 1e-12) << "angle " << angle;
      EXPECT_LE(Frobenius(V - V_elimination), 1e-11) << "angle " << angle;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// StVK-Hencky.

TEST(StvkHenckyTest, PiolaIsEnergyGradient) {
  const StvkHencky<double> model{kMu, kLambda, 0.0};
  for (const Mat3d& F : PositiveSamples()) {
    ExpectPiolaMatchesEnergy(
        F, [&](const Mat3d& G) { return model.Energy(G); }, [&](const Mat3d& G) { return model.FirstPiola(G); });
  }
}

TEST(StvkHenckyTest, KirchhoffIsPiolaTimesFTransposed) {
  const StvkHencky<double> model{kMu, kLambda, 0.0};
  for (const Mat3d& F : PositiveSamples()) {
    ExpectNear(model.Kirchhoff(F), model.FirstPiola(F) * F.Transposed(), kExactTol * (1.0 + Frobenius(F)));
  }
}

TEST(StvkHenckyTest, KirchhoffOfUniaxialStretch) {
  const StvkHencky<double> model{kMu, kLambda, 0.0};
  const double e = std::log(1.5);
  ExpectNear(model.Kirchhoff(Mat3d::Diagonal(1.5, 1.0, 1.0)),
             Mat3d::Diagonal(2 * kMu * e + kLambda * e, kLambda * e, kLambda * e), kExactTol);
}

TEST(StvkHenckyTest, NoStressAtRestOrUnderRotation) {
  const StvkHencky<double> model{kMu, kLambda, 0.0};
  std::mt19937 rng(37);
  for (int k = 0; k < 10; ++k) {
    const Mat3d R = k == 0 ? Mat3d::Identity() : RandomRotation(rng);
    EXPECT_NEAR(model.Energy(R), 0.0, kExactTol);
    EXPECT_LE(Frobenius(model.FirstPiola(R)), kExactTol);
    EXPECT_LE(Frobenius(model.Kirchhoff(R)), kExactTol);
  }
}

TEST(StvkHenckyTest, ReturnMapLeavesElasticStateUntouched) {
  const StvkHencky<double> model{kMu, kLambda, 1.0};  // radius η/(2μ) ≈ 0.38 in Hencky strain
  std::mt19937 rng(41);
  const Mat3d trial = RandomRotation(rng) * Mat3d::Diagonal(1.1, 0.95, 1.0) * RandomRotation(rng).Transposed();
  Mat3d Fe = trial;
  EXPECT_EQ(model.ReturnMap(Fe), 0.0);
  ExpectIdentical(Fe, trial);
  const StvkHencky<double> elastic{kMu, kLambda, 0.0};
  Fe = Mat3d::Diagonal(3.0, 0.3, 1.0);
  EXPECT_EQ(elastic.ReturnMap(Fe), 0.0);
  ExpectIdentical(Fe, Mat3d::Diagonal(3.0, 0.3, 1.0));
}

TEST(StvkHenckyTest, ReturnMapProjectsOntoYieldSurfaceAndKeepsVolume) {
  const double yield_stress = 0.3;
  const StvkHencky<double> model{kMu, kLambda, yield_stress};
  int projected = 0;
  for (const Mat3d& trial : PositiveSamples()) {
    const Mat3d tau_trial = model.Kirchhoff(trial);
    const double dev_trial = Frobenius(Deviatoric(tau_trial));
    if (dev_trial <= yield_stress) continue;  // samples near the identity may be elastic
    ++projected;
    Mat3d Fe = trial;
    const double delta_gamma = model.ReturnMap(Fe);
    const Mat3d tau = model.Kirchhoff(Fe);
    EXPECT_NEAR(Frobenius(Deviatoric(tau)), yield_stress, kExactTol);
    EXPECT_NEAR(Fe.Determinant(), trial.Determinant(), kExactTol * trial.Determinant());  // isochoric flow
    EXPECT_NEAR(tau.Trace(), tau_trial.Trace(), kExactTol * (1.0 + std::abs(tau_trial.Trace())));
    // ‖dev τ‖ = 2μ‖ε̂‖, so Δγ = (‖dev τ_trial‖ − η)/(2μ).
    EXPECT_NEAR(delta_gamma, (dev_trial - yield_stress) / (2 * kMu), kExactTol);
    // Radial return: dev τ keeps its direction.
    ExpectNear(Deviatoric(tau) * (1.0 / yield_stress), Deviatoric(tau_trial) * (1.0 / dev_trial), 1e-9);
  }
  EXPECT_GE(projected, 5);  // all large-deformation samples yield
}

// ---------------------------------------------------------------------------------------------------------------
// Drucker-Prager.

constexpr double kFrictionAlpha = 0.3266;  // √(2/3)·2 sin φ/(3 − sin φ) for φ = 30°

/// U diag(exp ε) Vᵀ with random rotations U, V.
Mat3d FromHencky(std::mt19937& rng, const Vec3d& epsilon) {
  return RandomRotation(rng) * Mat3d::Diagonal(std::exp(epsilon.x), std::exp(epsilon.y), std::exp(epsilon.z)) *
         RandomRotation(rng).Transposed();
}

TEST(DruckerPragerTest, ElasticityIsStvkHencky) {
  const DruckerPrager<double> sand{kMu, kLambda, kFrictionAlpha, 0.0};
  const StvkHencky<double> hencky{kMu, kLambda, 0.0};
  for (const Mat3d& F : PositiveSamples()) {
    EXPECT_EQ(sand.Energy(F), hencky.Energy(F));
    ExpectIdentical(sand.Kirchhoff(F), hencky.Kirchhoff(F));
    ExpectPiolaMatchesEnergy(
        F, [&](const Mat3d& G) { return sand.Energy(G); }, [&](const Mat3d& G) { return sand.FirstPiola(G); });
  }
}

TEST(DruckerPragerTest, TensionProjectsToTheTip) {
  const DruckerPrager<double> sand{kMu, kLambda, kFrictionAlpha, 0.0};
  std::mt19937 rng(47);
  const Vec3d epsilon(0.1, 0.05, -0.02);  // tr ε > 0
  Mat3d Fe = FromHencky(rng, epsilon);
  EXPECT_NEAR(sand.ReturnMap(Fe), Norm(epsilon), kExactTol);
  // The tip: Fᴱ is a rotation, no stress.
  ExpectNear(Fe.Transposed() * Fe, Mat3d::Identity(), kExactTol);
  EXPECT_NEAR(Fe.Determinant(), 1.0, kExactTol);
  EXPECT_LE(Frobenius(sand.Kirchhoff(Fe)), kExactTol);
}

TEST(DruckerPragerTest, StateInsideTheConeIsUntouched) {
  const DruckerPrager<double> sand{kMu, kLambda, kFrictionAlpha, 0.0};
  std::mt19937 rng(53);
  // tr ε = −0.28, ‖ε̂‖ ≈ 0.016, (3λ + 2μ)/(2μ)·tr ε·α ≈ −0.31: δγ < 0.
  const Mat3d trial = FromHencky(rng, {-0.1, -0.1, -0.08});
  Mat3d Fe = trial;
  EXPECT_EQ(sand.ReturnMap(Fe), 0.0);
  ExpectIdentical(Fe, trial);
}

TEST(DruckerPragerTest, ShearOutsideTheConeLandsOnTheCone) {
  const DruckerPrager<double> sand{kMu, kLambda, kFrictionAlpha, 0.0};
  std::mt19937 rng(59);
  const Vec3d cases[] = {{-0.01, 0.05, -0.05}, {-0.2, 0.1, 0.0}, {0.02, -0.03, -0.0}};
  for (const Vec3d& epsilon : cases) {
    const Mat3d trial = FromHencky(rng, epsilon);
    const Mat3d tau_trial = sand.Kirchhoff(trial);
    // Outside the cone ‖dev τ‖ + α tr τ ≤ 0, in compression.
    ASSERT_LT(tau_trial.Trace(), 0.0);
    ASSERT_GT(Frobenius(Deviatoric(tau_trial)) + kFrictionAlpha * tau_trial.Trace(), 0.0);
    Mat3d Fe = trial;
    const double delta_gamma = sand.ReturnMap(Fe);
    const Mat3d tau = sand.Kirchhoff(Fe);
    EXPECT_NEAR(Frobenius(Deviatoric(tau)) + kFrictionAlpha * tau.Trace(), 0.0, kExactTol);
    EXPECT_NEAR(Fe.Determinant(), trial.Determinant(), kExactTol);  // the projection is deviatoric
    // δγ is the distance travelled in deviatoric Hencky strain: ‖dev τ_trial‖ − ‖dev τ‖ = 2μ δγ.
    EXPECT_NEAR(delta_gamma, (Frobenius(Deviatoric(tau_trial)) - Frobenius(Deviatoric(tau))) / (2 * kMu), kExactTol);
    EXPECT_GT(delta_gamma, 0.0);
  }
}

TEST(DruckerPragerTest, CohesionHoldsTensionUpToTheShiftedTip) {
  const double cohesion = 0.06;
  const DruckerPrager<double> sand{kMu, kLambda, kFrictionAlpha, cohesion};
  std::mt19937 rng(61);
  // Hydrostatic tension tr ε = 0.03 < c: held, untouched.
  const Mat3d held = FromHencky(rng, {0.01, 0.01, 0.01});
  Mat3d Fe = held;
  EXPECT_EQ(sand.ReturnMap(Fe), 0.0);
  ExpectIdentical(Fe, held);
  // tr ε = 0.09 > c: to the tip, det Fᴱ = e^c, stress is the hydrostatic (3λ + 2μ) c/3 per direction.
  Fe = FromHencky(rng, {0.03, 0.03, 0.03});
  EXPECT_GT(sand.ReturnMap(Fe), 0.0);
  EXPECT_NEAR(Fe.Determinant(), std::exp(cohesion), kExactTol);
  ExpectNear(sand.Kirchhoff(Fe), Mat3d::Identity() * ((3 * kLambda + 2 * kMu) * cohesion / 3.0), kExactTol);
}

TEST(DruckerPragerTest, InvertedTrialStateComesBackUninverted) {
  const DruckerPrager<double> sand{kMu, kLambda, kFrictionAlpha, 0.0};
  Mat3d Fe = Mat3d::Diagonal(1.0, 1.0, -0.5);
  sand.ReturnMap(Fe);
  EXPECT_GT(Fe.Determinant(), 0.0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_TRUE(std::isfinite(Fe(i, j)));
}

// ---------------------------------------------------------------------------------------------------------------
// Fluid.

TEST(FluidTest, PiolaIsEnergyGradient) {
  for (const double gamma : {7.0, 1.0, 1.5}) {
    const Fluid<double> fluid{1.7, gamma, 0.0};
    for (const Mat3d& F : PositiveSamples()) {
      ExpectPiolaMatchesEnergy(
          F, [&](const Mat3d& G) { return fluid.Energy(G); }, [&](const Mat3d& G) { return fluid.FirstPiola(G); });
    }
  }
}

TEST(FluidTest, EnergyIsContinuousAtGammaOne) {
  const Mat3d F = Mat3d::Diagonal(0.9, 1.1, 0.8);
  const double at_one = Fluid<double>{1.7, 1.0, 0.0}.Energy(F);
  const double near_one = Fluid<double>{1.7, 1.0 + 1e-9, 0.0}.Energy(F);
  EXPECT_NEAR(near_one, at_one, 1e-9);
  EXPECT_NEAR(at_one, 1.7 * ((F.Determinant() - 1.0) - std::log(F.Determinant())), kExactTol);
}

TEST(FluidTest, KirchhoffIsPressurePlusViscosity) {
  const double kappa = 2.0;
  const double viscosity = 0.5;
  const Fluid<double> fluid{kappa, 7.0, viscosity};
  const Mat3d F = Mat3d::Diagonal(0.9, 1.0, 1.0);
  Mat3d C;  // simple shear plus a stretch rate
  C(0, 1) = 2.0;
  C(2, 2) = -1.0;
  const double J = 0.9;
  const double p = kappa * (std::pow(J, -7.0) - 1.0);
  EXPECT_GT(p, 0.0);  // compressed
  Mat3d expected = Mat3d::Identity() * (-p * J);
  expected(0, 1) += viscosity * J * 2.0;
  expected(1, 0) += viscosity * J * 2.0;
  expected(2, 2) += viscosity * J * -2.0;
  ExpectNear(fluid.Kirchhoff(F, C), expected, kExactTol);
  // Without velocity gradient τ = P Fᵀ.
  ExpectNear(fluid.Kirchhoff(F, Mat3d::Zero()), fluid.FirstPiola(F) * F.Transposed(), kExactTol);
}

TEST(FluidTest, NoStressAtRestOrUnderRotation) {
  const Fluid<double> fluid{2.0, 7.0, 0.5};
  std::mt19937 rng(67);
  for (int k = 0; k < 10; ++k) {
    const Mat3d R = k == 0 ? Mat3d::Identity() : RandomRotation(rng);
    EXPECT_NEAR(fluid.Energy(R), 0.0, kExactTol);
    EXPECT_LE(Frobenius(fluid.Kirchhoff(R, Mat3d::Zero())), kExactTol);
  }
}

TEST(FluidTest, ReturnMapKeepsOnlyTheVolume) {
  const Fluid<double> fluid{2.0, 7.0, 0.0};
  for (const Mat3d& trial : PositiveSamples()) {
    Mat3d Fe = trial;
    EXPECT_EQ(fluid.ReturnMap(Fe), 0.0);
    const double s = std::cbrt(trial.Determinant());
    ExpectNear(Fe, Mat3d::Diagonal(s, s, s), kExactTol);
  }
  Mat3d crushed = Mat3d::Diagonal(1.0, 1.0, -0.2);
  fluid.ReturnMap(crushed);
  EXPECT_NEAR(crushed.Determinant(), kMinFluidVolumeRatio<double>, kExactTol);
}

// ---------------------------------------------------------------------------------------------------------------
// The float dispatch the engine calls, against the double models.

/// Realistic moduli (E = 1e5 Pa, ν = 0.3) so the float path is checked at the magnitudes the engine uses.
MaterialParams MakeParams(MaterialModel model) {
  MaterialParams p;
  p.model = model;
  p.mu = 3.846e4f;
  p.lambda = 5.769e4f;
  p.density = 1000.0f;
  p.yield_stress = model == MaterialModel::kLinearCorotated || model == MaterialModel::kStvkHencky ? 3e3f : 0.0f;
  p.friction_alpha = 0.3266f;
  p.cohesion = 0.0f;
  p.bulk_modulus = 1e5f;
  p.gamma = 7.0f;
  p.viscosity = 1e-3f;
  return p;
}

constexpr MaterialModel kAllModels[] = {MaterialModel::kFixedCorotated, MaterialModel::kLinearCorotated,
                                        MaterialModel::kStvkHencky,     MaterialModel::kDruckerPrager,
                                        MaterialModel::kFluid,          MaterialModel::kCloth};

/// The double reference of KirchhoffStress.
Mat3d ReferenceKirchhoff(const MaterialParams& p, const Mat3d& F, const Mat3d& C) {
  switch (p.model) {
    case MaterialModel::kFixedCorotated:
      return FixedCorotated<double>{p.mu, p.lambda}.Kirchhoff(F);
    case MaterialModel::kLinearCorotated:
      return LinearCorotated<double>{p.mu, p.lambda, p.yield_stress}.Kirchhoff(F, PolarRotation3(F));
    case MaterialModel::kStvkHencky:
      return StvkHencky<double>{p.mu, p.lambda, p.yield_stress}.Kirchhoff(F);
    case MaterialModel::kDruckerPrager:
      return DruckerPrager<double>{p.mu, p.lambda, p.friction_alpha, p.cohesion}.Kirchhoff(F);
    case MaterialModel::kFluid:
      return Fluid<double>{p.bulk_modulus, p.gamma, p.viscosity}.Kirchhoff(F, C);
    case MaterialModel::kCloth:  // a cloth vertex carries no stress (its triangles do)
      return Mat3d::Zero();
  }
  return Mat3d::Zero();
}

// Float tolerance: stresses are O(modulus × strain) with strains O(1); float SVD and log/exp carry a relative error of
// a few ε_float ≈ 1e-6, so 1e-4 of the modulus scale leaves margin while a wrong model or parameter errs by O(1).
constexpr double kFloatRelTol = 1e-4;

TEST(ConstitutiveDispatchTest, KirchhoffStressMatchesDoubleModels) {
  std::mt19937 rng(71);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (const MaterialModel model : kAllModels) {
    const MaterialParams p = MakeParams(model);
    for (const Mat3d& F : PositiveSamples()) {
      Mat3d C;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) C(i, j) = uniform(rng);
      const Mat3f F_f = Cast<float>(F);
      const Mat3f C_f = Cast<float>(C);
      const Mat3d expected = ReferenceKirchhoff(p, Cast<double>(F_f), Cast<double>(C_f));
      const double scale = p.mu + p.lambda + p.bulk_modulus + Frobenius(expected);
      ExpectNear(Cast<double>(KirchhoffStress(p, F_f, C_f)), expected, kFloatRelTol * scale);
    }
  }
}

TEST(ConstitutiveDispatchTest, ReturnMapMatchesDoubleModels) {
  std::mt19937 rng(73);
  for (const MaterialModel model : kAllModels) {
    const MaterialParams p = MakeParams(model);
    for (const Mat3d& F : PositiveSamples()) {
      const Mat3f Fe_old_f = Cast<float>(RandomRotation(rng, 0.05) * PolarRotation3(F));
      const Mat3f trial_f = Cast<float>(F);
      const Mat3d Fe_old = Cast<double>(Fe_old_f);
      Mat3d expected = Cast<double>(trial_f);
      double expected_increment = 0.0;
      switch (model) {
        case MaterialModel::kFixedCorotated:
          break;
        case MaterialModel::kLinearCorotated:
          expected_increment =
              LinearCorotated<double>{p.mu, p.lambda, p.yield_stress}.ReturnMap(PolarRotation3(Fe_old), expected);
          break;
        case MaterialModel::kStvkHencky:
          expected_increment = StvkHencky<double>{p.mu, p.lambda, p.yield_stress}.ReturnMap(expected);
          break;
        case MaterialModel::kDruckerPrager:
          expected_increment = DruckerPrager<double>{p.mu, p.lambda, p.friction_alpha, p.cohesion}.ReturnMap(expected);
          break;
        case MaterialModel::kFluid:
          expected_increment = Fluid<double>{p.bulk_modulus, p.gamma, p.viscosity}.ReturnMap(expected);
          break;
        case MaterialModel::kCloth:  // a cloth vertex's own F is kept at I
          expected = Mat3d::Identity();
          break;
      }
      Mat3f Fe_f = trial_f;
      const float increment = ReturnMap(p, Fe_old_f, Fe_f);
      // Fᴱ is O(1); float decompositions are accurate to a few ε_float.
      ExpectNear(Cast<double>(Fe_f), expected, 1e-5);
      EXPECT_NEAR(increment, expected_increment, 1e-5);
      if (model == MaterialModel::kFixedCorotated) {
        EXPECT_EQ(increment, 0.0f);
        ExpectIdentical(Cast<double>(Fe_f), Cast<double>(trial_f));
      }
    }
  }
}

TEST(ConstitutiveDispatchTest, PlasticModelsYieldOnLargeDeformation) {
  // Guards the comparison above against passing vacuously: the plastic models do yield on these samples.
  const Mat3f trial = Cast<float>(Mat3d::Diagonal(1.5, 0.7, 1.0));
  for (const MaterialModel model :
       {MaterialModel::kLinearCorotated, MaterialModel::kStvkHencky, MaterialModel::kDruckerPrager}) {
    Mat3f Fe = trial;
    EXPECT_GT(ReturnMap(MakeParams(model), trial, Fe), 0.0f) << static_cast<int>(model);
  }
  MaterialParams elastic = MakeParams(MaterialModel::kStvkHencky);
  elastic.yield_stress = 0.0f;
  Mat3f Fe = trial;
  EXPECT_EQ(ReturnMap(elastic, trial, Fe), 0.0f);
}

TEST(ConstitutiveDispatchTest, StrainEnergyDensityMatchesDoubleModels) {
  for (const MaterialModel model : kAllModels) {
    const MaterialParams p = MakeParams(model);
    for (const Mat3d& F : PositiveSamples()) {
      const Mat3f F_f = Cast<float>(F);
      const Mat3d Fd = Cast<double>(F_f);
      double expected = 0.0;
      switch (model) {
        case MaterialModel::kFixedCorotated:
          expected = FixedCorotated<double>{p.mu, p.lambda}.Energy(Fd);
          break;
        case MaterialModel::kLinearCorotated:
          expected = LinearCorotated<double>{p.mu, p.lambda, p.yield_stress}.Energy(Fd, PolarRotation3(Fd));
          break;
        case MaterialModel::kStvkHencky:
          expected = StvkHencky<double>{p.mu, p.lambda, p.yield_stress}.Energy(Fd);
          break;
        case MaterialModel::kDruckerPrager:
          expected = DruckerPrager<double>{p.mu, p.lambda, p.friction_alpha, p.cohesion}.Energy(Fd);
          break;
        case MaterialModel::kFluid:
          expected = Fluid<double>{p.bulk_modulus, p.gamma, p.viscosity}.Energy(Fd);
          break;
        case MaterialModel::kCloth:
          break;
      }
      EXPECT_NEAR(StrainEnergyDensity(p, F_f), expected, kFloatRelTol * (p.mu + p.lambda + p.bulk_modulus + expected));
    }
  }
}

}  // namespace
}  // namespace ductile::mpm
